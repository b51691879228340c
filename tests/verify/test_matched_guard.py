"""A branch run once per card of a loop under a test that the card's printed field equals a value fixed
for the whole run (verify/matched_guard.py), on a small spec whose answer is known by hand, with cases
where it must not apply; every game is played (exhaustive) and none scores above the proved maximum."""

from __future__ import annotations

from test_score_bounds import proved_and_best

# Each player takes three cards of six (ranks 1, 2, 3, two of each) and names a rank; at the end each
# card of the hand matching the named rank scores 1, checked in a procedure.  Two cards share a rank:
# at most 2 (not one per card of the hand, 3), and a game reaches 2.
CALLED = """game "Called rank" players 2..2
component card "card" { rank: 1..3 }
zone deck: shared public unordered
zone hand: per_player public row
cards card in deck { 2 x rank = 1
  2 x rank = 2
  2 x rank = 3 }
player { mark: 0..9 = 0 }
score hits "hits"
procedure take(p) { choose c from deck by p "takes a card" { move c to p.hand } }
procedure call(p) {
  choose by p "names a rank" {
    option one "1" { set p.mark = 1 }
    option two "2" { set p.mark = 2 }
    option three "3" { set p.mark = 3 }
  }
}
procedure judge(p, c, k) {
  if k == c.rank { award 1 to p for hits }
}
rounds 3 {
  for p in players { do take(p) }
}
scoring {
  for p in players { do call(p) }
  for p in players {
    for c in p.hand { do judge(p, c, p.mark) }
  }
}
winner among p in players by vp(p) desc else shared
"""


def test_a_fixed_value_matches_only_the_cards_sharing_it():
    """The named rank is the same for every card of the hand and two cards share a rank: at most 2
    hits (not 3), and a game reaches 2."""
    assert proved_and_best(CALLED, "hits") == (2, 2)


def test_the_test_in_the_loops_own_body_is_read_alike():
    """Written in the loop's body rather than a procedure, the bound is the same 2, reached."""
    spec = CALLED.replace("for c in p.hand { do judge(p, c, p.mark) }",
                          "for c in p.hand { if p.mark == c.rank { award 1 to p for hits } }")
    assert proved_and_best(spec, "hits") == (2, 2)


def test_a_value_the_run_changes_is_not_fixed():
    """When each check also raises the named rank, the value differs card by card: ranks 1, 2, 3
    against 1, 2, 3 hit three times, so the bound is 3 (not 2), and a game reaches 3."""
    spec = CALLED.replace("if k == c.rank { award 1 to p for hits }",
                          "if k == c.rank { award 1 to p for hits }\n  if p.mark < 9 { set p.mark += 1 }")
    spec = spec.replace("do judge(p, c, p.mark)", "do judge(p, c, p.mark)")
    assert proved_and_best(spec, "hits") == (3, 3)


def test_a_value_read_from_the_card_itself_is_not_fixed():
    """When the value compared is the loop's card's own rank, it is not one value a run and every card
    hits: the bound stays 3, and a game reaches 3."""
    spec = CALLED.replace("do judge(p, c, p.mark)", "do judge(p, c, c.rank)")
    hi, best = proved_and_best(spec, "hits")
    assert hi == 3 and best == 3
