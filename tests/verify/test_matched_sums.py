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


# Each player takes two cards of six (red 3, 1, 1 and blue 3, 1, 1) and names a colour; a hand scores
# the values of its cards of that colour.  Two cards of one colour are worth at most 3 + 1 = 4 (not
# the 3 + 3 of the best two cards of any colours), and a game reaches 4.
FAVOURITE = """game "Favourite" players 2..2
enum colour = red, blue
component card "card" { colour: colour
  value: 1..3 }
zone deck: shared public unordered
zone hand: per_player public unordered
cards card in deck { 1 x colour = red, value = 3
  2 x colour = red, value = 1
  1 x colour = blue, value = 3
  2 x colour = blue, value = 1 }
player { fav: colour = red }
score worth "worth"
procedure take(p) { choose c from deck by p "takes a card" { move c to p.hand } }
rounds 2 {
  for p in players { do take(p) }
}
scoring {
  for p in players {
    choose by p "names a colour" {
      option r "red" { set p.fav = red }
      option b "blue" { set p.fav = blue }
    }
    award sum(c.value for c in p.hand where c.colour == p.fav) to p for worth
  }
}
winner among p in players by vp(p) desc else shared
"""


def test_a_sum_over_one_printed_value_takes_the_best_cards_of_one_value():
    """Two cards of the named colour are worth at most 4 (not 3 + 3 of two colours), and a game reaches 4."""
    assert proved_and_best(FAVOURITE, "worth") == (4, 4)


def test_a_filter_that_lets_in_other_values_is_not_one_value():
    """When the filter also lets in any card worth 3, both 3s count: the bound stays 6, and a game reaches 6."""
    spec = FAVOURITE.replace("where c.colour == p.fav)", "where c.colour == p.fav or c.value == 3)")
    assert proved_and_best(spec, "worth") == (6, 6)
