"""Searching real games for witnesses: seeded games with bots, within a time
budget, keeping for every kind of event the shortest game that shows it.
A witness is a real game log; it is replayed before it is reported."""

from __future__ import annotations

import time
from collections import Counter
from typing import Callable

import attrs

from soan.interpreter.play import GameRecord, play_game, replay
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
    res = SearchResult()
    start = time.perf_counter()
    g = 0
    while True:
        elapsed = time.perf_counter() - start
        if elapsed >= budget or (max_games is not None and g >= max_games):
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
    res.seconds = time.perf_counter() - start
    return res


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
