"""A draw that only replaces cards just taken from a player's zone (verify/replaced.py), on a small spec
whose answer is known by hand, with a case where it must not apply; every game is played (exhaustive)
and none scores above the proved maximum."""

from __future__ import annotations

from test_score_bounds import proved_and_best

# Each player is dealt three cards and twice may swap one or two of them with the deck; at the end a
# hand scores its size.  Swaps put back as many as they take: at most 3 at once (not 3 + 2 + 2 = 7
# that can arrive), and every game ends with 3.
SWAPS = """game "Swaps" players 2..2
component card "card" { value: 1..1 = 1 }
zone deck: shared hidden stack
zone discard: shared public stack
zone hand: per_player owner unordered
cards card in deck { 12 x value = 1 }
score held "held"
setup { for p in players { draw 3 from deck to p.hand } }
procedure swap(p) {
  may choose out between 1 and 2 from p.hand by p "swaps cards" {
    move out to discard
    draw count(out) from deck to p.hand
  }
}
rounds 2 {
  for p in players { do swap(p) }
}
scoring { for p in players { award count(p.hand) to p for held } }
winner among p in players by vp(p) desc else shared
"""


def test_a_draw_replacing_the_cards_just_taken_adds_none_at_once():
    """Three dealt, swapped twice: a hand holds at most 3 at once (not 7), and a game reaches 3."""
    assert proved_and_best(SWAPS, "held") == (3, 3)


def test_a_draw_of_more_than_was_taken_is_not_a_replacement():
    """When each swap draws one card more than it put back, the hand grows: at most 3 + 2 x 3 = 9 can
    arrive, the bound is not 3, and a game reaches 5 (one card put back and two drawn, twice)."""
    spec = SWAPS.replace("draw count(out) from deck", "draw count(out) + 1 from deck")
    hi, best = proved_and_best(spec, "held")
    assert hi >= 5 and best == 5


def test_a_draw_before_the_cards_leave_is_not_a_replacement():
    """When the draw comes before the chosen cards are put back, the hand holds up to 5 in between;
    the bound then is not 3 (a hand scored between would see 5), and the end still shows 3."""
    spec = SWAPS.replace("    move out to discard\n    draw count(out) from deck to p.hand\n",
                         "    draw count(out) from deck to p.hand\n    move out to discard\n")
    hi, best = proved_and_best(spec, "held")
    assert hi > 3 and best == 3
