"""Score bounds through the options of one choice (verify/option_awards.py): a firing runs one option, so
awards in several options, also inside the procedures they call, share the choice's firings; each on a
small spec whose answer is known by hand, every game played (exhaustive), none above the proved maximum."""

from __future__ import annotations

from tests.verify.test_score_bounds import proved_and_best

# Each of 4 rounds each player chooses a way to roast; either way the procedure awards 3 to them.
# Best: 4 x 3 = 12 (the options apart would add up to 4 x 3 + 4 x 3 = 24).
TWO_WAYS = """game "Two ways" players 2..2
score pts "pts"
procedure roast(p, d) {
  if d != 0 { award 3 to p for pts }
}
rounds 4 {
  for p in players {
    choose by p "which way" {
      option plus "+" { do roast(p, 1) }
      option minus "-" { do roast(p, 0 - 1) }
    }
  }
}
winner among p in players by vp(p) desc else shared
"""


def test_options_calling_one_awarding_procedure_share_the_choices_firings():
    """Both options award 3 through `roast`, and one firing runs one option: 4 x 3 = 12, and a game reaches 12."""
    assert proved_and_best(TWO_WAYS, "pts") == (12, 12)


def test_an_option_that_calls_the_procedure_twice_counts_both_calls():
    """`plus` roasts twice (6 a firing): 4 x 6 = 24, not 12, and a game reaches 24."""
    text = TWO_WAYS.replace('{ do roast(p, 1) }', '{ do roast(p, 1)\n do roast(p, 1) }')
    assert proved_and_best(text, "pts") == (24, 24)


def test_a_loop_inside_an_option_counts_its_passes():
    """`plus` roasts in a `repeat 2` (6 a firing): 4 x 6 = 24, and a game reaches 24."""
    text = TWO_WAYS.replace('{ do roast(p, 1) }', '{ repeat 2 times { do roast(p, 1) } }')
    assert proved_and_best(text, "pts") == (24, 24)


def test_awards_to_another_player_in_one_option_are_not_shared():
    """`minus` roasts for the next player: a player gets 3 from their own `plus` and 3 from their
    neighbour's `minus` each round, 24 in all, which a game reaches (sharing would claim 12)."""
    text = TWO_WAYS.replace("do roast(p, 0 - 1)", "do roast(next(p), 0 - 1)")
    hi, best = proved_and_best(text, "pts")
    assert best == 24 and hi >= 24


def test_an_award_outside_the_choice_adds_to_it():
    """A roast after the choice also fires each round: 4 x 3 + 4 x 3 = 24, and a game reaches 24."""
    text = TWO_WAYS.replace("    }\n  }\n}\nwinner", "    }\n    do roast(p, 1)\n  }\n}\nwinner")
    assert proved_and_best(text, "pts") == (24, 24)


# The same choice raising a player's counter through the procedure instead; the counter is scored at the end.
COUNTED = TWO_WAYS.replace('score pts "pts"\n', 'player { done: 0..99 = 0 }\nscore pts "pts"\n').replace(
    "if d != 0 { award 3 to p for pts }", "if d != 0 { set p.done += 1 }").replace(
    "winner", "scoring { for p in players { award p.done to p for pts } }\nwinner")


def test_a_counter_raised_in_either_option_shares_the_choices_firings():
    """Either option raises `done` by one through `roast`, one a firing: at most 4 (not 8, nor the declared 99),
    and a game reaches 4."""
    assert proved_and_best(COUNTED, "pts") == (4, 4)


def test_a_counter_raised_twice_in_one_option_counts_both():
    """`plus` raises `done` twice a firing: at most 8, and a game reaches 8."""
    text = COUNTED.replace('{ do roast(p, 1) }', '{ do roast(p, 1)\n do roast(p, 1) }')
    assert proved_and_best(text, "pts") == (8, 8)
