"""What the game-playing tests share: a shipped spec loaded once, the
invariants every game keeps whatever its rules, and a random game checked at
every step."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Callable

from soan import api
from soan.interpreter.state import CHANCE, Decision, State

ROOT = Path(__file__).resolve().parents[1]


class ShippedSpec:
    """A spec from specs/, compiled once, with its tables cached per player count and parameters."""

    def __init__(self, filename: str):
        self.path = ROOT / "specs" / filename
        self._spec = None
        self._tables: dict = {}

    @property
    def spec(self):
        if self._spec is None:
            self._spec = api.load(self.path)
        return self._spec

    def tables(self, n: int, params: dict | None = None):
        """Tables for n players; `params` are resolved rulings as on the command line (NAME -> text or value)."""
        key = (n, tuple(sorted((params or {}).items())))
        if key not in self._tables:
            parsed = api.parse_params(self.spec, {k: str(v).lower() if isinstance(v, bool) else str(v)
                                                  for k, v in (params or {}).items()})
            self._tables[key] = api.tables(self.spec, n, parsed)
        return self._tables[key]


def zone(s: State, name: str, owner: int = -1) -> list[int]:
    return s.zones[s.t.slot_of[(name, owner)]]


def check_core_invariants(s: State) -> None:
    """Every card in exactly one zone (and indexed there), no supply below zero,
    holdings and player variables in their domains, and a decision offering
    at least one move, without duplicates."""
    t = s.t
    seen = Counter(c for z in s.zones for c in z)
    assert sorted(seen) == list(range(t.n_cards)), "a card is missing"
    assert max(seen.values()) == 1, "a card is in two places"
    for slot, cards in enumerate(s.zones):
        for c in cards:
            assert s.loc[c] == slot
    for name, left in s.supply.items():
        assert left >= 0, f"supply {name} is negative"
        hold = t.tokens[name].hold
        assert all(hold.lo <= v <= hold.hi for v in s.pv[name])
    for name, var in t.player_vars.items():
        for v in s.pv[name]:
            t.check_domain(var.domain, v, name, None)
    if s.current_player() >= 0:
        labels = [m.label for m in s.legal_moves()]
        assert labels and len(set(labels)) == len(labels)


def play_random(tables, seed: int, check: Callable[[State], None] = check_core_invariants,
                on_step: Callable[[State], None] | None = None, max_steps: int = 20_000) -> State:
    """A game of uniformly random moves and chance from `seed`, with `check` run on every state."""
    rng = random.Random(seed)
    s = State(tables).start()
    check(s)
    steps = 0
    while not s.is_terminal():
        if s.current_player() == CHANCE:
            s.apply_chance(s.sample_chance(rng))
        else:
            s.apply(rng.randrange(len(s.legal_moves())))
        check(s)
        if on_step:
            on_step(s)
        steps += 1
        assert steps < max_steps, "the game did not end"
    return s


def decision_states(spec: str, n: int, seed: int):
    """States at every decision of one random game of the spec at `spec` (a path) for n players, random moves
    and draws from `seed`; each state is the game itself, moved on once the caller is done with it."""
    t = api.tables(api.load(spec), n)
    st = State(t).start()
    rng = random.Random(seed)
    while not st.is_terminal():
        if isinstance(st.pending, Decision):
            yield st
            st.apply(rng.randrange(len(st.pending.moves)))
        else:
            st.apply_chance(st.sample_chance(rng))
