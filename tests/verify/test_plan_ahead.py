"""One-seat plans planned ahead (verify/seat_plan.py's _plan_ahead): a run's best ends valued again at the
round's end (turn_plan.plan's `ahead_of`), and what the cards can become read at each card's own cap
(item_witness.state_caps)."""

from __future__ import annotations

from soan import api
from soan.interpreter.play import replay
from soan.interpreter.state import State
from soan.verify import item_witness, seat_plan, turn_plan

# Each of four rounds every player tends their pot twice: a stoke raises its heat by one (up to the
# pot's printed gauge, 4), a lid covers it.  At the round's end every pot left uncovered at heat 2 or
# more cracks (heat 0), then the lids come off; a pot's heat scores at the end.  By hand: a round that
# starts at heat 0 and stokes twice ends at 2 uncovered, cracked; one at heat 1 or more cracks after any
# stoke unless lidded; so a round keeps at most one stoke, and 4 (a stoke and a lid every round) is the
# top.  A turn valued where it ends prefers the stoke (+1 now) to the lid every time, and cracks the pot
# in every round; only the round's end shows the lid's worth (the wind's shuffle before the cooling, a
# chance event, ends every seat's last run of a round before it).  Soot rises with every stoke, unguarded.
HEARTH = """game "Hearth" players 2..2
component pot "pot" {
  gauge: 1..9
  state heat: 0..9 = 0
  state soot: 0..20 = 0
  state lidded: bool
}
component gust "gust" {
  strength: 1..2
}
zone shelf: shared public unordered
zone pots: per_player public unordered
zone weather: shared hidden stack
cards pot in shelf { 2 x gauge = 4 }
cards gust in weather {
  1 x strength = 1
  1 x strength = 2
}
score fired "fired"
score sooty "sooty"
setup {
  for p in players { draw 1 from shelf to p.pots }
}
rounds 4 {
  phase work "work" {
    for p in players { do tend(p) }
    for p in players { do tend(p) }
  }
  phase cool "cool" {
    shuffle weather
    for p in players {
      for c in p.pots {
        if not c.lidded and c.heat >= 2 { set c.heat = 0 }
        set c.lidded = false
      }
    }
  }
}
procedure tend(p) {
  choose by p "tends the pot" {
    option stoke "stokes" {
      for c in p.pots {
        if c.heat < c.gauge { set c.heat += 1 }
        set c.soot += 1
      }
    }
    option lid "lids" { for c in p.pots { set c.lidded = true } }
  }
}
scoring {
  for p in players {
    award sum(c.heat for c in p.pots) to p for fired
    award sum(c.soot for c in p.pots) to p for sooty
  }
}
winner among p in players by vp(p) desc else draw
"""


def _tables():
    return api.tables(api.compile_text(HEARTH, "hearth.soan"), 2)


def _plan(t, seed, ahead):
    return turn_plan.plan(t, seat_plan.seat_state_value(t, "fired", 0, capped=True), seed, 20_000,
                          leaves=seat_plan.LEAVES, tries=1,
                          leaves_of=lambda s: seat_plan.LEAVES if s == 0 else seat_plan.OTHER_LEAVES,
                          ahead_of=(lambda s: seat_plan.AHEAD if s == 0 else 0) if ahead else None)


def test_a_guarded_raise_caps_a_state_at_the_cards_own_bound_and_an_unguarded_one_has_none():
    """state_caps reads heat's cap from the guard `c.heat < c.gauge` (and its reset to 0), none for soot (raised unguarded); at_top capped reads a dealt pot's heat at its gauge, 4, where the declared range says 9."""
    t = _tables()
    caps = item_witness.state_caps(t)
    assert set(caps) == {"heat"}
    st = State(t).start()
    assert item_witness.at_top(t, "fired")(st, 0) == 9
    assert item_witness.at_top(t, "fired", capped=True)(st, 0) == 4


def test_runs_valued_at_the_rounds_end_keep_a_stoke_a_round_and_reach_the_hand_known_top():
    """Planned ahead, the first seat reaches 4 (the hand-known top) from each of six seeds, and its log replays; valued where each turn ends, every round's pot cracks and it ends at 0 or 1."""
    t = _tables()
    for seed in range(6):
        found = _plan(t, seed, True)
        assert found[1].result["breakdown"]["P1"]["fired"] == 4
        assert replay(t, found[1].log).result == found[1].result
        assert _plan(t, seed, False)[1].result["breakdown"]["P1"]["fired"] <= 1


def test_plans_ahead_come_after_the_others_which_play_the_same_games_and_reach_the_top():
    """With a share for plans ahead, plan_focused first plays exactly the games it plays without one (none above 1), then plans ahead until the item reaches half its bound (4 of 8): the best returned is 4, and it replays."""
    t = _tables()
    share = 8 * 18 * 20
    without, with_ahead = [], []
    seat_plan.plan_focused(t, [("fired", 1, 8)], lambda name, sign: 0, 0, share, share, 8, without.append)
    found = seat_plan.plan_focused(t, [("fired", 1, 8)], lambda name, sign: 0, 0, share, share, 8,
                                   with_ahead.append, ahead_steps=share)
    assert [r.log["steps"] for r in with_ahead[:len(without)]] == [r.log["steps"] for r in without]
    assert max(r.result["breakdown"][p]["fired"] for r in without for p in ("P1", "P2")) <= 1
    assert len(with_ahead) > len(without)
    assert [(name, v) for name, v, _ in found] == [("fired", 4)]
    assert replay(t, found[0][2].log).result == found[0][2].result
