"""A sum over one list of the cards of another matching each on a printed field (verify/matched_sums.py),
on a small spec whose answer is known by hand, with a case where it must not apply; every game is played
(exhaustive) and none scores above the proved maximum."""

from __future__ import annotations

from test_score_bounds import proved_and_best

# Each player takes three cards of six (4 red, 2 blue), each laid as a main or a side dish, and
# scores per side the mains of its colour.  Three cards split into sides and mains give at most
# 2 x 1 = 2 pairs (not 3 sides x 3 mains of a colour = 9); two red mains and a red side reach 2.
SYNERGY = """game "Synergy" players 2..2
enum colour = red, blue
enum role = main_dish, side_dish
component meat "meat" { colour: colour
  state role: role = main_dish }
zone deck: shared public unordered
zone dishes: per_player public unordered
cards meat in deck { 4 x colour = red
  2 x colour = blue }
score synergy "synergy"
def mains(p) = [c in p.dishes where c.role == main_dish]
def sides(p) = [c in p.dishes where c.role == side_dish]
def n_of(cs, k) = count(c in cs where c.colour == k)
def synergy_of(p) = sum(n_of(mains(p), s.colour) for s in sides(p))
procedure take(p) {
  choose c from deck by p "takes a card" {
    choose by p "lays it" {
      option as_main "as a main" { set c.role = main_dish }
      option as_side "as a side" { set c.role = side_dish }
    }
    move c to p.dishes
  }
}
rounds 3 {
  for p in players { do take(p) }
}
scoring { for p in players { award synergy_of(p) to p for synergy } }
winner among p in players by vp(p) desc else shared
"""


def test_matching_pairs_of_two_disjoint_lists_share_the_zone():
    """Three dishes split into sides and mains match in at most 2 pairs (not 3 x 3 = 9), and a game
    reaches 2."""
    assert proved_and_best(SYNERGY, "synergy") == (2, 2)


def test_lists_that_can_share_a_card_are_not_counted_as_apart():
    """When the sum runs over every dish, mains among them, a card counts on both sides: three red
    mains give 3 x 3 = 9 pairs, so the bound is not 2, and a game reaches 9."""
    spec = SYNERGY.replace("for s in sides(p))", "for s in p.dishes)")
    assert proved_and_best(spec, "synergy") == (9, 9)


def test_a_match_on_a_state_is_not_counted_from_the_printed_field():
    """When the mains are matched on a state (each dish's glaze, red unless changed), not the printed
    colour, no pairs bound by colour is claimed: the bound stays 9 and the game's best is 2 or more."""
    spec = SYNERGY.replace("state role: role = main_dish }", "state role: role = main_dish\n  state glaze: colour = red }")
    spec = spec.replace("count(c in cs where c.colour == k)", "count(c in cs where c.glaze == k)")
    hi, best = proved_and_best(spec, "synergy")
    assert hi == 9 and best >= 2
