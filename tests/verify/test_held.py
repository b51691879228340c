"""Cards one player holds at once in a group of their own zones the rules only move cards around
in (verify/held.py), on a small spec whose answer is known by hand, with a case where it must not
apply; every game is played (exhaustive) and none scores above the proved maximum."""

from __future__ import annotations

from soan import api
from soan.verify.bounds import Bounds

from test_score_bounds import proved_and_best

# Four chips a player, two dealt to the hand; each round one goes onto the area, may be swapped
# for one of the stock (an exchange: no zone's count changes) and comes back: two in hand at most.
HANDS = """game "Hands" players 2..2
component chip "chip" { size: 1..2 = 1 }
zone stock: per_player public unordered
zone hand: per_player public unordered
zone area: per_player public unordered
cards chip per player in stock { 2 x size = 1
  2 x size = 2 }
score kept "kept"
setup { for p in players { move take([c in p.stock where c.size == 1], 2) to p.hand } }
procedure turn(p) {
  award count(p.hand) to p for kept
  choose c from p.hand by p "places" { move c to p.area }
  choose d from p.area by p "grows" { exchange d with first(p.stock) }
  move p.area to p.hand
}
rounds 3 {
  for p in players { do turn(p) }
}
winner among p in players by vp(p) desc else shared
"""


def test_pieces_going_round_a_players_zones_and_swapped_stay_as_many_as_were_dealt():
    """Two chips dealt to the hand, placed, swapped with the stock and taken back each round: the hand
    holds at most 2 at once, so 3 rounds give at most 6 (not 3 x 4), and a game reaches 6."""
    assert proved_and_best(HANDS, "kept") == (6, 6)


def test_the_group_bound_is_read_for_each_zone_of_the_group():
    """Hand and area form the group, both bounded by the two chips dealt; the stock is outside it."""
    t = api.tables(api.compile_text(HANDS, "t.soan"), 2)
    assert Bounds(t)._held == {"hand": 2, "area": 2}


def test_a_piece_taken_from_outside_the_group_each_round_counts_against_it():
    """Taking a chip from the stock into the hand each round (instead of swapping) lets the hand grow
    to all four: the bound stays 3 x 4 = 12 and a game reaches 2 + 3 + 4 = 9."""
    assert proved_and_best(HANDS.replace("exchange d with first(p.stock)", "move first(p.stock) to p.hand"),
                           "kept") == (12, 9)


def test_a_group_open_to_another_players_cards_is_not_bounded():
    """Moving the area to the next player's hand puts both sets in play for one hand: no group bound
    (the rules do not keep each player's chips with them)."""
    t = api.tables(api.compile_text(HANDS.replace("move p.area to p.hand", "move p.area to next(p).hand"), "t.soan"), 2)
    assert Bounds(t)._held == {}
