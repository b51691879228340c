"""Bots' copies of a state are freed when dropped: no reference cycle keeps one for the garbage collector."""

from __future__ import annotations

import gc

from soan import api
from soan.interpreter.state import State


def _states_left_in_cycles(spec: str, n: int, seed: int) -> int:
    """How many State objects one greedy game of `spec` leaves that only the cycle collector could free."""
    t = api.tables(api.load(spec), n)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        api.play(t, seed, ["greedy"] * n)
        gc.collect()
        return sum(isinstance(o, State) for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_a_greedy_game_leaves_no_state_in_a_cycle():
    """Rankings in the scoring (rank_groups' recursive split) no longer tie a copy into a cycle: none is left over."""
    assert _states_left_in_cycles("specs/kitano-20.soan", 3, 1) == 0
    assert _states_left_in_cycles("specs/bbqp-9.soan", 3, 1) == 0


def test_the_check_sees_a_cycle():
    """The check is not blind: a state tied into a cycle on purpose is found."""
    t = api.tables(api.load("specs/kitano-20.soan"), 3)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        s = State(t)
        s.loop_peak["self"] = s  # a cycle through the state's own dict
        del s
        gc.collect()
        found = sum(isinstance(o, State) for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert found == 1
