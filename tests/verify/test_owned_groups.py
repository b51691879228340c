"""How many of their own cards a player holds at once in a group of zones with a shared one in it
(verify/owned_groups.py), on a small spec whose answer is known by hand, with a case where it must not
apply; every game is played (exhaustive) and none scores above the proved maximum."""

from __future__ import annotations

from test_score_bounds import proved_and_best

# Each player has four dice, two of them in hand.  Each round every player places one on a shared
# pool, may swap it there for a die of their stock, and takes their own back at the round's end.
# A hand holds at most 2 at once (not the 4 of a set), and every game ends with 2.
POOL = """game "Pool" players 2..2
component die "die" { faces: 4..6 }
zone stock: per_player public unordered
zone hand: per_player public unordered
zone pool: shared public unordered
cards die per player in stock { 2 x faces = 4
  2 x faces = 6 }
score held "held"
setup { for p in players { move take([d in p.stock where d.faces == 4], 2) to p.hand } }
procedure place(p) {
  choose d from p.hand by p "places a die" {
    move d to pool
    if count(p.stock) > 0 {
      may choose by p "swaps it" {
        option swap "for one of the stock" { exchange d with first(p.stock) }
      }
    }
  }
}
rounds 2 {
  for p in players { do place(p) }
  for p in players { move [d in pool where d.owner == p] to p.hand }
}
scoring { for p in players { award count(p.hand) to p for held } }
winner among p in players by vp(p) desc else shared
"""


def test_own_dice_placed_on_a_shared_area_and_taken_back_are_held_at_most_as_dealt():
    """Two dice in hand, placed on a shared pool, swapped with the stock and taken back: a hand holds
    at most 2 (not 4), and a game reaches 2."""
    assert proved_and_best(POOL, "held") == (2, 2)


def test_a_pool_emptied_into_one_hand_is_not_owned_so():
    """When the round's end hands the whole pool to each player in turn, the first takes the other's
    dice too: the bound is not 2, and a game reaches 4 (all four dice in play, twice taken)."""
    spec = POOL.replace("move [d in pool where d.owner == p] to p.hand", "move pool to p.hand")
    hi, best = proved_and_best(spec, "held")
    assert hi >= 4 and best == 4
