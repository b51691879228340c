"""A group of a player's cards cut down to another group's size at scoring (verify/trimmed.py), on a
small spec whose answer is known by hand, with variants that must not tighten; every game is played
(exhaustive) and none scores above the proved maximum."""

from __future__ import annotations

from test_score_bounds import proved_and_best

# Each player is served 3 dishes, each as a main or a side; at judging the sides beyond the mains
# are dropped: at most 1 side of 3 dishes scores (not 3).
CUT = """game "Cut" players 2..2
enum dish_role = fresh, main, side
component dish "dish" { size: 1..1 = 1
  state role: dish_role = fresh }
zone deck: shared public stack
zone discard: shared public stack
zone plate: per_player public unordered
cards dish in deck { 6 x size = 1 }
score side_pts "sides"
def mains(p) = [c in p.plate where c.role == main]
def sides(p) = [c in p.plate where c.role == side]
procedure serve(p) {
  draw 1 from deck to p.plate
  for c in p.plate where c.role == fresh {
    choose by p "how the dish is served" {
      option as_main "main" { set c.role = main }
      option as_side "side" { set c.role = side }
    }
  }
}
procedure judge(p) {
  let over = count(sides(p)) - count(mains(p))
  if over > 0 { choose out exactly over from sides(p) by p "drops sides" { move out to discard } }
}
rounds 3 {
  for p in players { do serve(p) }
}
scoring {
  for p in players { do judge(p) }
  for p in players { award count(sides(p)) to p for side_pts }
}
winner among p in players by vp(p) desc else shared
"""


def test_sides_cut_to_the_mains_are_at_most_half_the_plate():
    """Sides cut down to the number of mains: at most 1 of a plate of 3 (not 3), and a game reaches 1."""
    assert proved_and_best(CUT, "side_pts") == (1, 1)


def test_a_role_set_after_the_cut_keeps_the_plate_bound():
    """When a later scoring step turns every main into a side, the cut no longer holds: the bound stays
    3, and a game reaches 3."""
    spec = CUT.replace("  for p in players { award count(sides(p))",
                       "  for p in players { for c in p.plate where c.role == main { set c.role = side } }\n"
                       "  for p in players { award count(sides(p))")
    assert proved_and_best(spec, "side_pts") == (3, 3)


def test_an_award_before_the_cut_keeps_the_plate_bound():
    """Sides counted before the cut is made: the bound stays 3, and a game reaches 3."""
    spec = CUT.replace("  for p in players { do judge(p) }\n  for p in players { award count(sides(p)) to p for side_pts }",
                       "  for p in players { award count(sides(p)) to p for side_pts }\n  for p in players { do judge(p) }")
    assert spec != CUT
    assert proved_and_best(spec, "side_pts") == (3, 3)


def test_a_cut_the_player_may_skip_keeps_the_plate_bound():
    """When dropping the extra sides is optional (`may choose`), nothing is cut for sure: the bound
    stays 3, and a game reaches 3."""
    spec = CUT.replace("if over > 0 { choose out", "if over > 0 { may choose out")
    assert spec != CUT
    assert proved_and_best(spec, "side_pts") == (3, 3)


def test_a_cut_of_one_player_only_keeps_the_plate_bound():
    """When only the first seat's sides are cut, another player's are not: the bound stays 3, and a
    game reaches 3."""
    spec = CUT.replace("  for p in players { do judge(p) }", "  do judge(first(players))")
    assert spec != CUT
    assert proved_and_best(spec, "side_pts") == (3, 3)


def test_a_cut_of_the_leaders_only_keeps_the_plate_bound():
    """When only the first seat is cut (`best`, not `order`), the other player keeps every
    side: the bound stays 3, and a game reaches 3."""
    spec = CUT.replace("  for p in players { do judge(p) }",
                       "  for p in (best q in players by q.seat asc else stable) { do judge(p) }")
    assert spec != CUT
    assert proved_and_best(spec, "side_pts") == (3, 3)


def test_a_cut_in_play_order_counts():
    """A cut made for every player in an order (`order q in players by ...`) is a cut of every player:
    the bound is 1, and a game reaches 1."""
    spec = CUT.replace("  for p in players { do judge(p) }",
                       "  for p in (order q in players by count(q.plate) desc else stable) { do judge(p) }")
    assert spec != CUT
    assert proved_and_best(spec, "side_pts") == (1, 1)
