"""The evaluator runs the scoring's loops a pass at a time where each pass reads its own part of the state
(reads.scoring_plan): a pass whose cards, scores and tokens are as in one run before writes what that one wrote, and
every ending ends exactly as the whole scoring run at once would."""

from __future__ import annotations

import random

import pytest

from soan import api
from soan.dsl import compile_text
from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.evaluate import evaluator, finish_now
from soan.interpreter.reads import scoring_plan
from soan.interpreter.state import State

# Each player plays chips from hand to their row; the scoring gives each colour's majority the worth of that colour's
# marker on the board, and a crown (two in the supply).  Each pass of the loop over the markers reads the row cards
# of its own colour only.
SPEC = """
game "Passes" players 2..3
enum colour = red, blue, green
component chip { colour: colour  state level: 0..3 = 0 }
component marker { colour: colour  state worth: 1..6 = 2 }
cards chip in bag { 4 x each colour }
cards marker in board { 1 x each colour }
zone bag: shared hidden stack
zone board: shared public row
zone hand: per_player owner unordered
zone row: per_player public row
token crown "crowns" supply 2 hold 0..3 when short partial
score most "majorities" 0..MOST
score rows "row sizes" 0..40
setup {
  shuffle bag
  for p in players { draw 4 from bag to p.hand }
}
rounds 2 {
  for p in players {
    choose c from p.hand by p "plays" { move c to p.row  set c.level = round }
  }
}
def held(p, k) = count(c in p.row where c.colour == k)
def first_level(p, k) = min(c.level for c in p.row where c.colour == k)
procedure settle(k) {
  let top = best p in players where held(p, k) > 0 by held(p, k) desc, first_level(p, k) asc else shared
  for p in top {
    award sum(m.worth for m in board where m.colour == k) to p for most
    give 1 crown to p
  }
}
scoring {
  for p in players { award count(p.row) to p for rows }
  for m in board { do settle(m.colour) }
}
winner among p in players by vp(p) desc else stable
"""


def _tables(most: int = 40, n: int = 3):
    return api.tables(compile_text(SPEC.replace("MOST", str(most)), "passes.soan"), n)


def _positions(t, games: int = 12) -> list[State]:
    """States at every decision of a few random games."""
    out = []
    for seed in range(games):
        rng = random.Random(seed)
        st = State(t).start()
        while not st.is_terminal():
            if st.current_player() < 0:
                st.apply_chance(st.sample_chance(rng))
            else:
                out.append(st.clone())
                st.apply(rng.randrange(len(st.legal_moves())))
    return out


def _remembered(ev) -> dict:
    """The evaluator's remembered passes (of its one remembered loop)."""
    return [step for step in ev.plan if step[0] == "passes"][0][5]


def _ended(st: State) -> tuple:
    """What an ending wrote: scores, tokens, supplies, eliminations."""
    return ({k: list(v) for k, v in st.vp.items()}, {k: list(v) for k, v in st.pv.items()}, dict(st.supply),
            list(st.elim), st.passes)


def test_the_plan_remembers_the_loop_whose_passes_read_their_own_cards():
    """The loop over the markers is run a pass at a time, keyed by the cards of its colour; the loop over the players, which reads whole rows, runs as it is."""
    t = _tables()
    plan = scoring_plan(t)
    assert [k for k, _ in plan] == ["op", "passes"]
    memo = plan[1][1]
    assert memo.stmt.var == "m"
    # only added to (the score awarded, the token given): not in the key
    assert memo.added == (("most", t.score_domains["most"], False), ("crown", t.tokens["crown"].hold, True))
    st = _positions(t, 1)[-1]
    st.vp["most"][0] = 7
    other = st.clone()
    other.vp["most"][0] = 3
    other.pv["crown"][1] += 1
    other.supply["crown"] -= 1
    env = {"m": t.C[st.zones[t.slot_of[("board", -1)]][0]]}
    assert memo.key(st, env, memo.prepare(st)) == memo.key(other, env, memo.prepare(other))
    red = [c for c in st.zones[t.slot_of[("bag", -1)]] if t.fields[c].get("colour") == t.fields[env["m"].id]["colour"]]
    if red:  # a chip of the pass's colour put in a row changes the pass's key
        other.move_cards([red[0]], t.slot_of[("row", 1)], None, None, None)
        assert memo.key(st, env, memo.prepare(st)) != memo.key(other, env, memo.prepare(other))


def test_remembered_passes_end_every_position_as_the_whole_scoring_does():
    """Ending positions pass by pass, with passes remembered from the positions before, leaves the same scores, tokens and loop count as running the scoring block at once."""
    t = _tables()
    ev = evaluator(t)
    assert ev.plan is not None
    _remembered(ev).clear()
    positions = _positions(t)
    for st in positions:
        a, b = st.clone(), st.clone()
        ev._score(a)
        finish_now(b, random.Random(0), spare=True, memo=True, winner=False)
        assert _ended(a) == _ended(b)
    markers = len(t.zone_slots and positions[0].zones[t.slot_of[("board", -1)]])
    assert len(_remembered(ev)) < len(positions) * markers  # some passes were replayed, not run


def test_a_replayed_award_checks_the_scores_range_as_the_award_would():
    """A pass remembered where its award fitted the score's range runs for real, and fails as the scoring does, where the same award would pass the range's top."""
    t = _tables(most=6)
    ev = evaluator(t)
    _remembered(ev).clear()
    st = _positions(t, 1)[-1]
    first = st.clone()
    ev._score(first)  # every pass remembered from scores of 0
    winners = [i for i in range(t.n) if first.vp["most"][i] > 0]
    assert winners
    high = st.clone()
    high.vp["most"][winners[0]] = 6  # at the top: any award passes it
    with pytest.raises(SpecRuntimeError) as whole:
        finish_now(high.clone(), random.Random(0), spare=True, memo=True, winner=False)
    with pytest.raises(SpecRuntimeError) as passes:
        ev._score(high)
    assert str(passes.value) == str(whole.value)


def test_a_replayed_give_needs_the_supply_to_cover_it():
    """A pass remembered where the supply covered its gives runs for real where the supply is now short, giving what the whole scoring gives (the partial rule: what is left)."""
    t = _tables()
    ev = evaluator(t)
    _remembered(ev).clear()
    st = _positions(t, 1)[-1]
    ev._score(st.clone())  # remembered from a full supply
    for left in (0, 1):
        low = st.clone()
        low.supply["crown"] = left
        a, b = low.clone(), low.clone()
        ev._score(a)
        finish_now(b, random.Random(0), spare=True, memo=True, winner=False)
        assert _ended(a) == _ended(b)
        assert sum(a.pv["crown"]) - sum(low.pv["crown"]) <= left


def test_outcomes_with_and_without_the_plan_agree():
    """The evaluator's outcome of every position is the same with the scoring run pass by pass as with it run at once."""
    t = _tables(n=2)
    ev = evaluator(t)
    plan = ev.plan
    for st in _positions(t, 6):
        ev.plan, ev.memo = plan, {}
        a = ev.outcome(st.clone(), random.Random(0))
        ev.plan, ev.memo = None, {}
        b = ev.outcome(st.clone(), random.Random(0))
        assert (a.share, a.place, a.margin) == (b.share, b.place, b.margin)
    ev.plan = plan


def test_kitano_endings_pass_by_pass_equal_the_whole_scoring():
    """On Kitano draft 20 (its majority loop is remembered per suit), every move of sampled positions along a random game ends alike pass by pass and as one block."""
    from pathlib import Path

    from soan.interpreter.bots import determinize

    spec = Path(__file__).resolve().parents[2] / "specs" / "kitano-20.soan"
    t = api.tables(api.load(str(spec)), 4)
    ev = evaluator(t)
    assert ev.plan is not None and any(step[0] == "passes" for step in ev.plan)
    rng = random.Random(5)
    st = State(t).start()
    checked = 0
    while not st.is_terminal():
        if st.current_player() < 0:
            st.apply_chance(st.sample_chance(rng))
            continue
        sample = determinize(st, st.current_player(), rng)
        for i in range(len(sample.legal_moves())):
            c = sample.clone()
            c.apply(i)
            if c.is_terminal() or c.ending:
                continue
            a, b = c.clone(), c.clone()
            ev._score(a)
            finish_now(b, random.Random(0), spare=True, memo=True, winner=False)
            assert _ended(a) == _ended(b)
            checked += 1
        st.apply(rng.randrange(len(st.legal_moves())))
    assert checked > 100
