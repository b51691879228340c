"""The ending's key, generated per tables (reads.EndingReads.key), gives the values the plain loop (key_of) gives."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from soan import api
from soan.interpreter.evaluate import evaluator
from soan.interpreter.state import Decision, State

SPECS = sorted(str(p) for p in (Path(__file__).resolve().parents[2] / "specs").glob("*.soan"))


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: Path(p).stem)
def test_generated_key_equals_the_loop(spec):
    """At every step of a random game, on every shipped spec that has an analysed ending, both keys are equal."""
    sp = api.load(spec)
    t = api.tables(sp, sp.min_players)
    reads = evaluator(t).reads
    if reads is None:
        pytest.skip("the ending is not analysed")
    st = State(t).start()
    rng = random.Random(2)
    steps = 0
    while not st.is_terminal() and not st.ending:
        assert reads.key(st) == reads.key_of(st)
        steps += 1
        if isinstance(st.pending, Decision):
            st.apply(rng.randrange(len(st.pending.moves)))
        else:
            st.apply_chance(st.sample_chance(rng))
    assert steps > 20
