"""A bot's copy (State.lazy_moves) leaves out the frames that have run their last op and go round no loop: the copy
plays on exactly as a copy with every frame, and frames with a loop still to go are kept."""

from __future__ import annotations

import random

from gameplay import decision_states
from soan.interpreter.state import Decision, State

SPECS = (("specs/kitano-20.soan", 4), ("specs/hibachi.soan", 2), ("specs/bbqp-9.soan", 3))




def _finished(f) -> bool:
    """A frame the machine would only pop: its ops all run and no loop to go round."""
    return f.loop is None and f.pc >= len(f.ops)


def _snapshot(st: State) -> tuple:
    """Everything a game's record and its ending read of a state, comparable."""
    pending = st.pending
    moves = [m.label for m in pending.moves] if isinstance(pending, Decision) else None
    return (st.zones, st.loc, st.cs, st.facedown, st.known, st.pv, st.gv, st.vp, st.supply, st.elim, st.round,
            st.result, st.steps, st.passes, st.marks, st.consulted, st.loop_peak, type(pending).__name__, moves)


def _play_on(st: State, rng: random.Random, steps: int) -> None:
    """Up to `steps` random moves and draws on `st`."""
    for _ in range(steps):
        if st.is_terminal():
            return
        if isinstance(st.pending, Decision):
            st.apply(rng.randrange(len(st.pending.moves)))
        else:
            st.apply_chance(st.sample_chance(rng))


def test_a_lean_copy_plays_on_as_a_full_copy():
    """From every decision of random games of three specs, a lean copy and a full copy meet the same moves and draws
    and end in the same state, however many frames the lean one left out."""
    left_out = 0
    for spec, n in SPECS:
        for k, st in enumerate(decision_states(spec, n, 11)):
            st.lazy_moves = True
            lean = st.clone()
            st.lazy_moves = False
            full = st.clone()
            full.lazy_moves = True
            assert not any(_finished(f) for f in lean.frames)
            assert [f.loop is not None for f in full.frames if not _finished(f)] == [f.loop is not None for f in lean.frames]
            left_out += len(full.frames) - len(lean.frames)
            seed = 1000 + k
            for a, b in ((lean, random.Random(seed)), (full, random.Random(seed))):
                _play_on(a, b, 40)
            assert _snapshot(lean) == _snapshot(full)
    assert left_out > 100


def test_frames_with_a_loop_to_go_are_kept():
    """A loop's frame whose body has run to its end (its pass over, the loop not) is never left out of a lean copy."""
    kept = 0
    for spec, n in SPECS[:1]:
        for st in decision_states(spec, n, 4):
            st.lazy_moves = True
            lean = st.clone()
            st.lazy_moves = False
            waiting = [f for f in st.frames if f.loop is not None and f.pc >= len(f.ops)]
            kept += len(waiting)
            assert sum(f.loop is not None for f in lean.frames) == sum(f.loop is not None for f in st.frames)
    assert kept > 50
