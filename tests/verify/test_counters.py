"""A player field the rules only raise is bounded by its raises (verify/counters.py), on small specs
whose answer is known by hand; every game played (exhaustive), none above the proved maximum."""

from __future__ import annotations

from tests.verify.test_score_bounds import proved_and_best

# Each round each player may raise `tally` by one; it is declared up to 99, scored at the end.
TALLY = """game "Tally" players 2..2
player { tally: 0..99 = 0 }
score pts "pts"
rounds 3 {
  for p in players {
    choose by p "raises the tally or not" {
      option raise { set p.tally += 1 }
      option wait { }
    }
  }
}
scoring { for p in players { award p.tally to p for pts } }
winner among p in players by vp(p) desc else shared
"""


def test_a_field_only_raised_is_at_most_its_raises():
    """Raised by one at most once a round for three rounds: at most 3 (not its declared 99), and a game reaches 3."""
    assert proved_and_best(TALLY, "pts") == (3, 3)


def test_a_field_that_is_also_set_keeps_its_declared_range():
    """A field also set outright (`= 5`) is no counter: the bound stays the declared 99; a game reaches 7."""
    text = TALLY.replace("option wait { }", "option wait { set p.tally = 5 }")
    assert proved_and_best(text, "pts") == (99, 7)


def test_a_raise_by_the_field_itself_reads_its_declared_range():
    """Doubling (`+= p.tally` from 1) is not a step of one: the bound stays the declared 99; a game reaches 8."""
    text = TALLY.replace("tally: 0..99 = 0", "tally: 0..99 = 1").replace("set p.tally += 1", "set p.tally += p.tally")
    assert proved_and_best(text, "pts") == (99, 8)
