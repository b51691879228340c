"""Slot cards gained on passing in the last round come too late to be used (verify/in_time.py),
on a small spec whose answer is known by hand, with variants where the card comes in time and the
bound must not tighten; every game is played (exhaustive) and none scores above the proved
maximum."""

from __future__ import annotations

from soan import api
from soan.verify import in_time
from soan.verify.bounds import Bounds

from test_score_bounds import proved_and_best

# One slot dealt; each round a player fills an empty slot with a dish (a work turn) until they
# pass, and passing gains a slot.  The passes are cleared between rounds but not after the last,
# so the second round's slot is gained after that player's last work turn: 1 + 1 usable slots.
SLOTS = """game "Slots" players 2..2
component slot "slot" { size: 1..1 = 1
  state dish: card }
component dish "dish" { size: 1..1 = 1 }
zone slot_supply: shared public unordered
zone kitchen: shared public unordered
zone slots: per_player public row
zone served: per_player public row
cards slot in slot_supply { 6 x size = 1 }
cards dish in kitchen { 6 x size = 1 }
player { passed: bool }
score dishes "dishes"
setup { for p in players { draw 1 from slot_supply to p.slots } }
def empty_slots(p) = [g in p.slots where g.dish == none]
procedure serve(p) {
  choose m from kitchen by p "cooks a dish" {
    choose g from empty_slots(p) by p "on a slot" {
      set g.dish = m
      move m to p.served
    }
  }
}
procedure turn(p) {
  choose by p "works or passes" {
    option work "work" when count(empty_slots(p)) > 0 { do serve(p) }
    option pass "pass" {
      set p.passed = true
      draw 1 from slot_supply to p.slots
    }
  }
}
rounds 2 {
  phase main {
    while any(q in players where not q.passed) max 4 {
      for p in players where not p.passed { do turn(p) }
    }
  }
  phase end {
    if round < 2 { for p in players { set p.passed = false } }
  }
}
scoring { for p in players { award count(p.served) to p for dishes } }
winner among p in players by vp(p) desc else shared
"""


def test_a_slot_gained_on_the_last_pass_serves_no_dish():
    """One slot dealt and one gained on each of two passes: the second round's comes after the
    player's last work turn, so at most 2 dishes (not 3), and a game serves 2."""
    assert proved_and_best(SLOTS, "dishes") == (2, 2)


def test_only_the_late_slot_is_left_out_of_the_cap():
    """What can arrive in the served zone: the dealt slot and the first round's, two of three."""
    t = api.tables(api.compile_text(SLOTS, "t.soan"), 2)
    assert Bounds(t)._caps["served"] == 2


def test_a_slot_still_usable_after_the_last_round_keeps_the_bound():
    """The passes are cleared after the last round too and the scoring lets every player who has
    not passed serve once more: the last slot comes in time, the bound stays 3 and a game serves 3."""
    text = SLOTS.replace("if round < 2 { for p in players { set p.passed = false } }",
                         "for p in players { set p.passed = false }")
    text = text.replace("scoring { for p in players {",
                        "scoring { for p in players where not p.passed { do serve(p) }\n  for p in players {")
    assert proved_and_best(text, "dishes") == (3, 3)


def test_a_dish_served_without_the_pass_test_keeps_the_bound():
    """A dish served at the end phase by every player, passed or not, can use the slot gained on
    the last pass: the bound stays 3 and a game serves 3."""
    text = SLOTS.replace("if round < 2 { for p in players { set p.passed = false } }",
                         "if round < 2 { for p in players { set p.passed = false } }\n"
                         "    for p in players { do serve(p) }")
    assert proved_and_best(text, "dishes") == (3, 3)


def test_a_pass_that_sets_another_players_flag_is_not_read_as_in_time():
    """Passing also marks the next player passed, whose test in the same loop was read before: the
    walk cannot say nothing set their flag since, so the late slot counts and the bound stays 3."""
    text = SLOTS.replace("      set p.passed = true\n", "      set next(p).passed = true\n      set p.passed = true\n")
    assert text != SLOTS
    b = Bounds(api.tables(api.compile_text(text, "t.soan"), 2))
    assert not in_time._Walk(b, "served", "passed").all_clear()
    assert in_time._Walk(Bounds(api.tables(api.compile_text(SLOTS, "t.soan"), 2)), "served", "passed").all_clear()
    lo, hi = b.score_bounds()["dishes"]
    assert hi.status == "proved" and hi.value == 3
