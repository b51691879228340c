"""A bot's copy makes a choice's moves (of one item or several) only when read (state.LazyDecision): the same moves,
and never a stale view."""

from __future__ import annotations

import random

from gameplay import decision_states
from soan.interpreter.bots import determinize
from soan.interpreter.state import Chance, Decision, LazyChance, LazyDecision

SPECS = ("specs/kitano-20.soan", "specs/hibachi.soan")


def _moves(d) -> list[tuple]:
    """A decision's moves as comparable tuples (label, value, sort key)."""
    return [(m.label, m.value, m.sort_key) for m in d.moves]




def test_lazy_copies_offer_the_moves_an_eager_copy_offers():
    """After every move of every decision of a game, a lazy copy's next decision offers the eager copy's moves."""
    lazy_seen = subsets_seen = 0
    for spec, n in ((SPECS[0], 4), (SPECS[1], 2)):
        for st in decision_states(spec, n, 3):
            for i in range(len(st.pending.moves)):
                eager, lazy = st.clone(), st.clone()
                lazy.lazy_moves = True
                eager.apply(i)
                lazy.apply(i)
                if isinstance(lazy.pending, LazyDecision):
                    lazy_seen += 1
                    subsets_seen += type(lazy.pending.moves[0]).__name__ == "_Selection"  # a choice of several items
                assert type(eager.pending) is type(lazy.pending) or isinstance(lazy.pending, (LazyDecision, LazyChance))
                if isinstance(eager.pending, Decision):
                    assert _moves(lazy.pending) == _moves(eager.pending)
                    assert lazy.pending.player == eager.pending.player and lazy.pending.prompt == eager.pending.prompt
    assert lazy_seen > 100 and subsets_seen > 5


def test_a_copy_reads_the_moves_of_the_state_it_was_made_from():
    """A lazy decision copied, then its hidden cards re-dealt, offers the moves the state offered before the deal."""
    checked = 0
    for st in decision_states(SPECS[0], 4, 5):
        if len(st.pending.moves) < 2:
            continue
        lazy = st.clone()
        lazy.lazy_moves = True
        lazy.apply(0)
        if not isinstance(lazy.pending, LazyDecision):
            continue
        eager = st.clone()
        eager.apply(0)
        sample = determinize(lazy, lazy.pending.player, random.Random(7))  # copies the pending decision first
        assert type(sample.pending) is Decision
        assert [m.label for m in sample.pending.moves] == [m.label for m in eager.pending.moves]
        assert _moves(lazy.pending) == _moves(eager.pending)
        checked += 1
    assert checked > 10


def test_lazy_picks_offer_the_outcomes_an_eager_copy_offers():
    """After every move of a game, a lazy copy's random pick has the eager copy's outcomes, values and draw."""
    picks = 0
    for spec, n in (("specs/hibachi.soan", 2), ("specs/bbqp-9.soan", 3)):
        for st in decision_states(spec, n, 4):
            for i in range(len(st.pending.moves)):
                eager, lazy = st.clone(), st.clone()
                lazy.lazy_moves = True
                eager.apply(i)
                lazy.apply(i)
                if not isinstance(eager.pending, Chance) or eager.pending.kind != "pick":
                    continue
                assert isinstance(lazy.pending, LazyChance)
                picks += 1
                copied = lazy.clone()  # a copy reads the outcomes first: a plain Chance
                assert type(copied.pending) is Chance
                assert lazy.pending.outcomes == eager.pending.outcomes and lazy.pending.values == eager.pending.values
                assert copied.pending.outcomes == eager.pending.outcomes
                assert lazy.sample_chance(random.Random(i)) == eager.sample_chance(random.Random(i))
    assert picks > 20
