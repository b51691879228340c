"""A card's state raised only below a limit read on the card is bounded card by card
(verify/state_caps.py), on small specs whose answer is known by hand; every game played
(exhaustive), none above the proved maximum."""

from __future__ import annotations

from tests.verify.test_score_bounds import proved_and_best

# Each player holds a card of gauge 2; each round they may raise its level, only while it is below its
# gauge.  The level can reach 2.
GAUGES = """game "Gauges" players 2..2
component card "card" {
  gauge: 1..3
  state level: 0..9 = 0
}
zone hand: per_player public unordered
cards card per player in hand { 1 x gauge = 2 }
score pts "pts"
rounds 4 {
  for p in players {
    for c in p.hand {
      choose by p "raises the card or not" {
        option raise { if c.level < c.gauge { set c.level += 1 } }
        option wait { }
      }
    }
  }
}
scoring { for p in players { award sum(c.level for c in p.hand) to p for pts } }
winner among p in players by vp(p) desc else shared
"""


def test_a_state_raised_below_its_cards_gauge_is_at_most_that_gauge():
    """A level declared 0..9 but raised only below the card's gauge: at most 2 (not 9), and a game reaches 2."""
    assert proved_and_best(GAUGES, "pts") == (2, 2)


def test_a_limit_read_with_at_most_lets_one_more():
    """Raised while `level <= gauge`: the card can reach its gauge + 1, 3, and a game does."""
    assert proved_and_best(GAUGES.replace("c.level < c.gauge", "c.level <= c.gauge"), "pts") == (3, 3)


def test_a_state_raised_with_no_limit_keeps_its_declared_range():
    """Raised with no test: the level is bounded only by its declared 9; four rounds reach 4."""
    text = GAUGES.replace("if c.level < c.gauge { set c.level += 1 }", "set c.level += 1")
    assert proved_and_best(text, "pts") == (9, 4)


def test_a_rolled_face_is_not_read_as_set_only_by_its_sets():
    """A die's face is written by `roll` too, not only by `set`: a face set to 1 and rolled keeps its declared 1..6, and a game reaches 6."""
    text = """game "Roll" players 2..2
component die "die" {
  faces: 6..6 = 6
  state face: 1..6 = 1
}
zone tray: per_player public unordered
cards die per player in tray { 1 x faces = 6 }
score pips "pips"
rounds 1 {
  for p in players { for d in p.tray { roll d  set d.face = 1  roll d } }
}
scoring { for p in players { award sum(d.face for d in p.tray) to p for pips } }
winner among p in players by vp(p) desc else shared
"""
    assert proved_and_best(text, "pips") == (6, 6)
