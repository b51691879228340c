"""A yes/no card state that few firings can make true (verify/rare_states.py), on a small spec whose
answer is known by hand, with variants that must not tighten; every game is played (exhaustive) and
none scores above the proved maximum."""

from __future__ import annotations

from test_score_bounds import proved_and_best

# Each player holds 3 gems worth 1, or 3 when shiny; the first seat polishes one gem a round for 2
# rounds: at most 2 gems are shiny, so a player scores at most 3 + 3 + 1 = 7 (not 3 x 3 = 9).
SHINE = """game "Shine" players 2..2
component gem "gem" { worth: 1..1 = 1
  state shiny: bool = false }
zone gems: per_player public unordered
cards gem per player in gems { 3 x worth = 1 }
score shine "shine"
procedure polish(p) { choose c from p.gems by p "polishes a gem" { set c.shiny = true } }
rounds 2 {
  do polish(first(players))
}
scoring { for p in players { award sum((if c.shiny then 3 else c.worth) for c in p.gems) to p for shine } }
winner among p in players by vp(p) desc else shared
"""


def test_a_state_set_twice_in_a_game_is_true_on_at_most_two_cards():
    """Two polishes in the whole game: at most 2 shiny gems of 3, so at most 7 (not 9), and a game
    reaches 7."""
    assert proved_and_best(SHINE, "shine") == (7, 7)


def test_a_state_that_starts_true_is_not_counted_from_the_firings():
    """When every gem starts shiny, the firings say nothing: the bound stays 9, and a game reaches 9."""
    spec = SHINE.replace("state shiny: bool = false", "state shiny: bool = true")
    assert spec != SHINE
    assert proved_and_best(spec, "shine") == (9, 9)


def test_a_state_set_on_every_card_is_not_capped():
    """When every player's every gem is polished each round, the firings (12) exceed the 3 gems summed:
    the bound stays 9, and a game reaches 9."""
    spec = SHINE.replace("do polish(first(players))", "for p in players { for c in p.gems { set c.shiny = true } }")
    assert spec != SHINE
    assert proved_and_best(spec, "shine") == (9, 9)


def test_a_filter_that_reads_the_state_through_a_def_is_read_as_the_filter_written_out():
    """A sum filtered by `bright(c)`, a def reading c.shiny, is bounded as the filter `c.shiny` is (the filter
    reads the state), and no game scores above it (a game reaches 6)."""
    defs = "def bright(x) = x.shiny\nprocedure polish"
    through_def = SHINE.replace("for c in p.gems) to p", "for c in p.gems where bright(c)) to p") \
        .replace("procedure polish", defs)
    written_out = SHINE.replace("for c in p.gems) to p", "for c in p.gems where c.shiny) to p")
    assert through_def != SHINE and written_out != SHINE
    assert proved_and_best(through_def, "shine") == proved_and_best(written_out, "shine")
    assert proved_and_best(through_def, "shine")[1] == 6
