"""Score bounds through an `if ... elif` chain (verify/branch_awards.py): a test on a card's printed
field narrows the card, and the chain's branches share its runs; each on a small spec whose answer
is known by hand, every game played (exhaustive), none above the proved maximum."""

from __future__ import annotations

from tests.verify.test_score_bounds import proved_and_best

# One task card is shown at the start (low: bonus 1, high: bonus 2); for three rounds each player
# scores it: a low card 3 x its bonus, a high card its bonus.  Best: the low card, 3 a round, 9.
CHAIN = """game "Chain" players 2..2
enum goal = low, high
component task "task" {
  goal: goal
  bonus: 1..5
}
zone deck: shared hidden stack
zone shown: shared public row
cards task in deck {
  1 x goal = low, bonus = 1
  1 x goal = high, bonus = 2
}
score pts "pts"
setup {
  shuffle deck
  draw 1 from deck to shown
}
procedure score_task(p, ch) {
  if ch.goal == low { award 3 * ch.bonus to p for pts } elif ch.goal == high { award ch.bonus to p for pts }
}
rounds 3 {
  for p in players { for ch in shown { do score_task(p, ch) } }
}
winner among p in players by vp(p) desc else shared
"""


def test_a_chain_on_a_printed_field_bounds_by_the_card_it_names_and_one_branch_a_run():
    """Under `ch.goal == low` the card is the low one (bonus 1, not up to 2), and the two branches share the
    three runs: 3 x max(3, 2) = 9 (apart and unnarrowed: 3 x 6 + 3 x 2 = 24), and a game reaches 9."""
    assert proved_and_best(CHAIN, "pts") == (9, 9)


def test_two_separate_ifs_are_not_read_as_exclusive():
    """Two `if`s in a row both fire in one run (a low card: 3 + 1 a round, 12 in all): the bound adds
    them, 3 x 3 + 3 x 2 = 15, and a game reaches 12."""
    text = CHAIN.replace("} elif ch.goal == high {", "}\n  if ch.bonus >= 1 {")
    assert proved_and_best(text, "pts") == (15, 12)


def test_a_test_on_a_field_that_changes_in_play_does_not_narrow_the_card():
    """`ch.mood` is a state (it starts low and the high card's is set high in setup): a test on it is no
    printed field, so the low branch still reads a bonus up to 2 (3 x 6 = 18), and a game reaches 9."""
    text = CHAIN.replace("  bonus: 1..5\n", "  bonus: 1..5\n  state mood: goal = low\n")
    text = text.replace("  draw 1 from deck to shown\n",
                        "  for c in deck { if c.goal == high { set c.mood = high } }\n  draw 1 from deck to shown\n")
    text = text.replace("if ch.goal == low { award", "if ch.mood == low { award")
    text = text.replace("elif ch.goal == high", "elif ch.mood == high")
    assert proved_and_best(text, "pts") == (18, 9)
