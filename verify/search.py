"""Searching real games for witnesses: seeded games with bots, within a time
budget, keeping for every kind of event the shortest game that shows it.
A witness is a real game log; it is replayed before it is reported."""

from __future__ import annotations

import time
from collections import Counter
from typing import Callable

import attrs

from soan.interpreter.play import GameRecord, play_game, record_game, replay
from soan.interpreter.runtime import Tables
from soan.interpreter.state import CHANCE, State


@attrs.define
class Witness:
    record: GameRecord
    step: int  # the step at which it first happened
    key: tuple | None = None  # the mark it witnesses, if any

    @property
    def length(self) -> int:
        return len(self.record.log["steps"])


@attrs.define
class SearchResult:
    games: int = 0
    seconds: float = 0.0
    marks: dict = attrs.field(factory=dict)  # (kind, site) -> Witness
    consulted: dict = attrs.field(factory=dict)  # ruling -> Witness
    best: dict = attrs.field(factory=dict)  # "total"/item -> (value, Witness)
    worst: dict = attrs.field(factory=dict)
    invariant_steps: int = 0
    counts: Counter = attrs.field(factory=Counter)


def _bots_for(g: int, n: int) -> list[str]:
    # Mostly random playouts; every eighth game greedy bots, which reach higher scores.
    return ["greedy"] * n if g % 8 == 7 else ["random"] * n


def _check_invariants(st: State) -> None:
    t = st.t
    seen = [0] * t.n_cards
    for slot, zone in enumerate(st.zones):
        for c in zone:
            seen[c] += 1
            assert st.loc[c] == slot, f"card {c} is in zone {slot} but indexed at {st.loc[c]}"
    assert all(k == 1 for k in seen), "a card is missing or in two places"
    for name, left in st.supply.items():
        assert left >= 0, f"supply {name} went below zero"


def search(tables: Tables, budget: float, seed: int = 0, max_games: int | None = None,
           progress: Callable[[int, float], None] | None = None, check_steps_games: int = 20) -> SearchResult:
    """Seeded games for 70% of the budget, then hypothesis's targeted search
    pushing the highest score up for the rest."""
    res = SearchResult()
    start = time.perf_counter()
    g = 0
    while True:
        elapsed = time.perf_counter() - start
        if max_games is not None:
            if g >= max_games:  # a fixed number of games: the same verdicts every run
                break
        elif elapsed >= budget * 0.7:
            break
        bots = _bots_for(g, tables.n)
        on_step = None
        if g < check_steps_games:
            def on_step(st, res=res):
                _check_invariants(st)
                res.invariant_steps += 1
        rec = play_game(tables, seed + g, bots, on_step=on_step)
        _absorb(res, rec, tables)
        g += 1
        res.games = g
        if progress:
            progress(g, time.perf_counter() - start)
    left = budget - (time.perf_counter() - start)
    examples = None if max_games is None else max_games // 4
    if (max_games is None and left > 0.5) or examples:
        for rec in targeted(tables, seed, left if max_games is None else float("inf"), examples):
            _absorb(res, rec, tables)
            res.games += 1
    res.seconds = time.perf_counter() - start
    return res


def play_choices(tables: Tables, seed: int, choices: list[int]) -> GameRecord:
    """A game whose decisions follow `choices` (each taken modulo the number of
    legal moves; 0 once they run out) and whose chance follows `seed`."""
    taken = iter(choices)

    def choose(st, p, moves) -> int:
        return next(taken, 0) % len(moves)

    return record_game(tables, seed, choose, ["targeted"] * tables.n)


def targeted(tables: Tables, seed: int, seconds: float, examples: int | None = None) -> list[GameRecord]:
    """hypothesis's targeted search (target()) for games with a high score:
    it generates decision lists, keeps those that push the best score up, and
    mutates them.  Derandomised, so the same seed finds the same games."""
    from hypothesis import HealthCheck, Phase, given, settings, target
    from hypothesis import strategies as st

    found: list[GameRecord] = []
    best = [None]
    deadline = time.perf_counter() + seconds

    @settings(max_examples=examples or 10_000, deadline=None, database=None, derandomize=True,
              phases=[Phase.generate, Phase.target], suppress_health_check=list(HealthCheck))
    @given(st.integers(0, 2**16), st.lists(st.integers(0, 2**16), max_size=400))
    def run(chance_seed, choices):
        if time.perf_counter() > deadline:
            raise _OutOfTime  # ends the search at once: no shrinking phase runs
        rec = play_choices(tables, seed * 100_003 + chance_seed, choices)
        top = max(rec.result["scores"].values())
        target(float(top), label="highest score")
        if best[0] is None or top > best[0]:
            best[0] = top
            found.append(rec)

    try:
        run()
    except Exception:  # out of time, or a spec error (which the seeded games report, not this search)
        pass
    return found


class _OutOfTime(Exception):
    pass


def _keep(table: dict, key, w: Witness) -> None:
    old = table.get(key)
    if old is None or w.length < old.length:
        table[key] = w


def _absorb(res: SearchResult, rec: GameRecord, tables: Tables) -> None:
    st = rec.state
    for key, first in st.first_marks.items():
        res.counts[key] += 1
        _keep(res.marks, key, Witness(rec, first, key))
    for r in rec.log["consulted_rulings"]:
        _keep(res.consulted, r, Witness(rec, 0))
    result = rec.result
    for i in range(tables.n):
        p = f"P{i + 1}"
        values = {"total": result["scores"][p], **{f"item:{k}": v for k, v in result["breakdown"][p].items()}}
        for k, v in values.items():
            if k not in res.best or v > res.best[k][0]:
                res.best[k] = (v, Witness(rec, len(rec.log["steps"])))
            if k not in res.worst or v < res.worst[k][0]:
                res.worst[k] = (v, Witness(rec, len(rec.log["steps"])))


def confirm(tables: Tables, w: Witness) -> bool:
    """Re-run a witness in the real interpreter: the same course and result."""
    try:
        st = replay(tables, w.record.log)
    except Exception:
        return False
    return st.result == w.record.result


def account_around(tables: Tables, w: Witness, before: int = 4, after: int = 2) -> list[str]:
    """The few lines of the game's account around the step that matters."""
    from soan.api import narrate

    st = replay(tables, w.record.log, narrate=True)
    lines = narrate(st)
    if w.key is not None and w.key in st.mark_events:
        k = st.mark_events[w.key]  # events before the mark; narrate() puts a heading first
        return lines[max(0, k + 1 - before - 2): k + 1 + after]
    # narrate() gives one line per event after its "Setup" heading; decisions and chance events are the steps.
    k, step = len(st.events) - 1, 0
    for idx, e in enumerate(st.events):
        if e[0] in ("move", "chance"):
            step += 1
        if step >= w.step:
            k = idx
            break
    k = min(k + 1, len(lines) - 1)
    return lines[max(0, k - before): k + after + 1]


__all__ = ["search", "confirm", "account_around", "Witness", "SearchResult", "CHANCE"]
