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



def _cards_spec(shades: str, cards: str, hand: int, most: int):
    """A 2-player game: P1 takes one of two moves, then P2 keeps 0 to `most` of its `hand` cards, then P1 keeps 3
    to 4 of none (a choice with no selection)."""
    from soan import api

    text = f"""game "Cards" draft 1 players 2..2
enum shade = {shades}
component chip {{ shade: shade }}
cards chip in pool {{ {cards} }}
zone pool: shared public stack
zone hand: per_player owner unordered
zone kept: per_player public unordered
setup {{ for p in players where p != first(players) {{ draw {hand} from pool to p.hand }} }}
rounds 1 {{ phase main "m" {{
  for p in players where p == first(players) {{ choose x from [1, 2] by p "warms up" {{ }} }}
  for p in players where p != first(players) {{
    choose xs between 0 and {most} from p.hand by p "keeps" {{ move xs to p.kept }}
  }}
  for p in players where p == first(players) {{
    choose ys between 3 and 4 from p.hand by p "keeps none" {{ move ys to p.kept }}
  }}
}} }}
winner among p in players by count(p.kept) desc else draw
"""
    return api.tables(api.compile_text(text, "cards.soan"), 2)


def _after_first_move(tables, lazy: bool):
    """P1's first move played on a copy (a bot's lazy copy or an eager one): the copy, or the error it raised."""
    from soan.dsl.errors import SpecRuntimeError
    from soan.interpreter.state import State

    st = State(tables).start().clone()
    st.lazy_moves = lazy
    try:
        st.apply(0)
    except SpecRuntimeError as err:
        return str(err)
    return st


TWENTY = "a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, q, r, s, t, u"


def test_a_lazy_choice_of_cards_makes_their_classes_at_once_where_an_error_could_be_missed():
    """A lazy copy leaves a choice of several cards' classes for later only where the selections cannot pass
    MAX_SUBSETS counted card by card: 20 distinct cards (too many selections) fail at the choice as the eager copy
    fails; 20 alike (too many counted card by card, 11 as one class) are classed at once and offer the eager moves."""
    distinct = _cards_spec(TWENTY, "1 x each shade", 20, 10)
    eager, lazy = _after_first_move(distinct, False), _after_first_move(distinct, True)
    assert isinstance(eager, str) and "possible selections" in eager and lazy == eager
    alike = _cards_spec(TWENTY, "20 x shade = a", 20, 10)
    eager, lazy = _after_first_move(alike, False), _after_first_move(alike, True)
    assert isinstance(lazy.pending, LazyDecision) and lazy.pending._make.__name__ == "planned_selections"  # classed
    assert _moves(lazy.pending) == _moves(eager.pending) and len(eager.pending.moves) == 11


def test_a_lazy_choice_of_cards_defers_its_classes_and_skips_an_impossible_choice_as_the_eager_one():
    """Where the selections can be counted without classes, a lazy copy's choice of cards defers them (the moves,
    made when read, are the eager copy's); a choice with fewer cards than its least (3 of none) is skipped by both
    alike, with the same marks."""
    tables = _cards_spec("a, b, c", "2 x each shade", 6, 2)
    eager, lazy = _after_first_move(tables, False), _after_first_move(tables, True)
    assert isinstance(lazy.pending, LazyDecision) and lazy.pending._make.__name__ == "classed_selections"  # deferred
    assert _moves(lazy.pending) == _moves(eager.pending) and len(eager.pending.moves) == 10  # 1 + 3 + 6 selections
    eager.apply(len(eager.pending.moves) - 1)
    lazy.apply(len(lazy.pending.moves) - 1)
    assert eager.is_terminal() and lazy.is_terminal() and eager.result == lazy.result
    assert eager.marks == lazy.marks and any(kind == "no_choice" for kind, _ in eager.marks)
