"""The turn-planned search (verify/turn_plan.py): a shortage of tokens held one per card, which
needs every seat to lay cards out, take the market card and then choose the right cards to work
on, is witnessed when the supply is short by one and its game replays; a supply exactly as
large as the most that can be out is never found short; a plan whose pace cannot reach the supply
gives up before its last round, one whose pace can does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from soan import api
from soan.interpreter.play import replay
from soan.verify import stepwise, supplies, turn_plan

SPECS = Path(__file__).resolve().parents[2] / "specs"

# Each player draws 3 plates and lays them out, at least one as a side; one plate a round comes
# to the market for three rounds, and the first player who wants it takes it as a main or a side.
# Then each player picks one or two plates of their table and works them: a main not yet marked
# takes one mark (a side takes nothing).  By hand: at most 2 mains per player from the setup and
# the 3 market plates, 2 x 2 + 3 = 7 marks out at most, and all 7 can be out (both lay out two
# mains, every market plate taken as a main and worked in the round it comes): a supply of 7 is
# never short, one of 6 is.  Nothing is marked without a worked main, so the marks come only from
# runs of choices (lay out mains, take the plate as a main, pick the unmarked mains).
KITCHEN = """game "Kitchen" players 2..2
enum dish = main, side
component plate {
  size: 1..1 = 1
  state role: dish = main
  state heat: 0..1 = 0
}
cards plate in deck { 12 x size = 1 }
zone deck: shared hidden stack
zone hand: per_player owner unordered
zone table: per_player public row
zone market: shared public row
token mark supply SUPPLY hold 0..12 when short partial
score points "points"
setup {
  shuffle deck
  for p in players { draw 3 from deck to p.hand }
  for p in players {
    choose picked between 1 and (count(p.hand) - 1) from p.hand by p "chooses mains" {
      for c in p.hand { set c.role = if picked has c then main else side }
    }
  }
  for p in players { move p.hand to p.table }
}
rounds 3 {
  draw 1 from deck to market
  for p in players {
    if count(market) > 0 {
      may choose c from market by p "takes the market plate" {
        choose by p "as what" {
          option as_main "as a main" { set c.role = main }
          option as_side "as a side" { set c.role = side }
        }
        move c to p.table
      }
    }
  }
  for p in players {
    choose worked between 1 and 2 from p.table by p "works plates" {
      for d in worked { if d.role == main { do heat(p, d) } }
    }
  }
}
procedure heat(p, c) {
  if c.heat == 0 {
    let before = p.mark
    give 1 mark to p
    if p.mark > before { set c.heat = 1 }
  }
}
scoring { for p in players { award p.mark to p for points } }
winner among p in players by vp(p) desc else draw
"""


def _tables(supply: int):
    return api.tables(api.compile_text(KITCHEN.replace("SUPPLY", str(supply)), "kitchen.soan"), 2)


def _short(state) -> bool:
    return any(kind == "short_supply" and site[0] == "mark" for kind, site in state.first_marks)


def _plan(supply: int, seed: int):
    t = _tables(supply)
    return t, turn_plan.plan(t, stepwise.potential_objective(t, "mark", supply), seed, 200_000,
                             settled=lambda v: v[0] == 1)


def test_the_turn_planned_search_finds_the_shortage_by_one_and_it_replays():
    """With 6 marks, the planned game takes all 7 out (the 7th give finds the supply empty), and its log replays."""
    t, got = _plan(6, seed=0)
    value, rec = got
    assert value[0] == 1 and _short(rec.state)
    again = replay(t, rec.log)  # raises where the game takes another course
    assert _short(again) and again.supply["mark"] == 0


def test_the_turn_planned_search_never_finds_an_exact_supply_short():
    """With 7 marks, the most that can be out, the planned games (three seeds) take all 7 out and none finds it short."""
    out = []
    for seed in range(3):
        _, (value, rec) = _plan(7, seed)
        assert value[0] == 0 and not _short(rec.state)
        out.append(7 - rec.state.supply["mark"])
    assert max(out) == 7


@pytest.mark.slow
def test_pitmaster_roast_tokens_can_run_short_at_four_players():
    """Pitmaster-20 at 4 players: the planned game from seed 0 puts a 31st roast token out of 30, and it replays (so no proof of 'never short' can be sound)."""
    t = api.tables(api.compile_text((SPECS / "pitmaster-20.soan").read_text(encoding="utf-8"), "specs/pitmaster-20.soan"), 4)
    value, rec = turn_plan.plan(t, stepwise.potential_objective(t, "roast_token", 30), 0, 200_000,
                                settled=lambda v: v[0] == 1)
    short = any(kind == "short_supply" and site[0] == "roast_token" for kind, site in rec.state.first_marks)
    assert value[0] == 1 and short
    assert any(kind == "short_supply" and site[0] == "roast_token" for kind, site in replay(t, rec.log).first_marks)


def _plan_paced(supply: int, seed: int):
    t = _tables(supply)
    spent = [0]
    got = turn_plan.plan(t, stepwise.potential_objective(t, "mark", supply), seed, 200_000,
                         settled=lambda v: v[0] == 1, spent=spent, hopeless=supplies.out_of_pace(supply, 3))
    return got, spent[0]


def test_the_plan_gives_up_where_its_pace_cannot_reach_the_supply():
    """With 20 marks (at most 7 can be out), the plan stands at 6 after round 2, having risen 1.5 in it: 6 + 1.5 x 1.5 for the one round left is below 21, so round 3 is not planned and its work is saved."""
    for seed in range(2):
        (value, rec), spent = _plan_paced(20, seed)
        (full_value, _), full_spent = _plan_paced_off(20, seed)
        assert value[0] == 0 and not _short(rec.state)
        assert spent < full_spent and full_value > value


def test_the_plan_keeps_going_where_its_pace_still_reaches_the_supply():
    """With 7 marks (exactly the most that can be out), 6 after round 2 plus 1.5 x 1.5 reaches 8: the pace rule does not give up, and the plan takes all 7 out, as without it."""
    for seed in range(2):
        (value, rec), spent = _plan_paced(7, seed)
        (full_value, _), full_spent = _plan_paced_off(7, seed)
        assert 7 - rec.state.supply["mark"] == 7 and value == full_value and spent == full_spent


def _plan_paced_off(supply: int, seed: int):
    t = _tables(supply)
    spent = [0]
    got = turn_plan.plan(t, stepwise.potential_objective(t, "mark", supply), seed, 200_000,
                         settled=lambda v: v[0] == 1, spent=spent)
    return got, spent[0]


def test_the_pace_rule_reads_the_rounds_left_from_the_state_kept():
    """A plan that rose 3 in round 2 and stands at 21 with 2 rounds left gives up with 30 tokens (21 + 1.5 x 3 x 2 = 30, below the 31st) and not with 29 (30 reaches the 30th); with no round count it never gives up."""

    class At:
        round = 3  # the state kept after round 2 stands at round 3's start

    kept = [(0, 0.0), (0, 18.0), (0, 21.0)]
    assert supplies.out_of_pace(30, 4)(kept, At())
    assert not supplies.out_of_pace(29, 4)(kept, At())
    assert not supplies.out_of_pace(30, None)(kept, At())
    assert not supplies.out_of_pace(30, 4)(kept[:2], At())  # after round 1 only: no pace yet
