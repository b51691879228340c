"""Every game of a small spec: the whole state tree, walked through the
interpreter's own State API, so what it lists is exactly what play can do.

Used to check proofs against the truth: a claim verify proves must hold in
every game listed here.  The walk is depth first and clones a state only
where the game branches (one branch goes on in the state itself).  Each game
keeps its path, so `replay_path` plays it again.  A game
that stops with a rule error is a game too (a leaf with `error` set), since a
designer's players can reach it.  A tree with more than `max_leaves` games is
not listed at all (None): a partial list would make "no game contradicts the
claim" mean nothing.
"""

from __future__ import annotations

import itertools
import math

import attrs

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.runtime import Tables
from soan.interpreter.state import Chance, Decision, State


@attrs.frozen
class GameFacts:
    """What one complete game did, as the play module's result reports it."""

    scores: tuple[int, ...]  # total per player, seat order
    items: dict  # score item -> tuple of points per player
    winners: tuple[int, ...]  # seat indices (0-based)
    draw: bool
    reason: str | None
    marks: frozenset  # (kind, site) of every mark the game hit
    decisions: int  # decisions taken (single-move decisions included, as in a log)
    rounds: int
    rulings: frozenset  # open rulings the game read
    error: str | None  # 'line:col: message' when the game stopped with a rule error
    course: tuple[str, ...]  # every decision and chance outcome, in order
    holdings: dict = attrs.field(factory=dict)  # token -> what each player holds at the end
    path: tuple = ()  # what was applied at each step: a move's index or a chance outcome (see replay_path)
    # the spec's questions: name -> (true in some state looked at, false or not worked out in one);
    # the states looked at are those a question looks at: every stop (decision, chance, end), or the end only
    questions: dict = attrs.field(factory=dict)

    @property
    def completed(self) -> bool:
        return self.error is None

    def show(self) -> str:
        """The game as a path a designer can follow (and replay)."""
        steps = " ; ".join(self.course) or "(no decision or chance event)"
        end = f"stops with an error at {self.error}" if self.error else \
            f"scores {list(self.scores)}, winners {[f'P{i + 1}' for i in self.winners]}"
        return f"[{steps}] -> {end}"


class TooManyGames(Exception):
    pass


def all_games(tables: Tables, max_leaves: int = 20_000) -> list[GameFacts] | None:
    """Every complete game of the spec at this player count, or None when the
    game tree has more than `max_leaves` leaves (nothing is truncated)."""
    games: list[GameFacts] = []
    try:
        st = State(tables)
        try:
            st.start()
        except SpecRuntimeError as e:
            games.append(game_facts(st, tables, 0, (), e))
            return games
        _walk(st, tables, 0, (), games, max_leaves, _Questions(tables))
    except TooManyGames:
        return None
    return games


def replay_path(tables: Tables, path) -> State:
    """Play a game again from its `path`: each step's move index at a decision,
    or outcome at a chance event.  Raises SpecRuntimeError where the game does."""
    st = State(tables).start()
    for value in path:
        if isinstance(st.pending, Decision):
            st.apply(value)
        else:
            st.apply_chance(list(value) if isinstance(value, (list, tuple)) else value)
    return st


class _Questions:
    """The spec's questions worked out on the states a game stops at, as `soan prove` looks at them."""

    def __init__(self, tables: Tables):
        from .questions import Evaluator

        self.qs = [(q, Evaluator(tables, q)) for q in tables.spec.questions]
        self.start = tuple((False, False) for _ in self.qs)

    def look(self, st: State, seen: tuple) -> tuple:
        if not self.qs:
            return seen
        out = []
        for (q, ev), (true, false) in zip(self.qs, seen):
            if not q.at_end or st.result is not None:
                v, _why = ev(st)
                true, false = true or v is True, false or v is not True
            out.append((true, false))
        return tuple(out)

    def named(self, seen: tuple) -> dict:
        return {q.name: s for (q, _), s in zip(self.qs, seen)}


def _walk(root: State, t: Tables, decisions: int, course: tuple, games: list, max_leaves: int,
          qs: _Questions) -> None:
    # An explicit stack of (state, decisions, course, path, questions seen, branch to take first):
    # deep games must not hit Python's recursion limit.
    stack = [(root, decisions, course, (), qs.start, None)]
    while stack:
        st, decisions, course, path, seen, branch = stack.pop()
        while True:
            if branch is not None:
                value, label, is_decision = branch
                decisions += is_decision
                course += (label,)
                path += (value,)
                try:
                    if is_decision:
                        st.apply(value)
                    else:
                        st.apply_chance(value)
                except SpecRuntimeError as e:  # the game stops here: a leaf
                    games.append(game_facts(st, t, decisions, course, e, path, qs.named(seen)))
                    break
            seen = qs.look(st, seen)
            p = st.pending
            if st.result is not None or p is None:
                games.append(game_facts(st, t, decisions, course, None, path, qs.named(seen)))
                break
            branches = _branches(st, p, max_leaves)
            if len(games) + len(stack) + len(branches) > max_leaves:
                raise TooManyGames
            # the other branches from clones taken now; the first goes on in this state
            for b in reversed(branches[1:]):
                stack.append((st.clone(), decisions, course, path, seen, b))
            branch = branches[0]


def _branches(st: State, p, max_leaves: int) -> list[tuple]:
    """(value to apply, label for the course, whether it is a decision) for each way on."""
    if isinstance(p, Decision):
        return [(i, f"P{p.player + 1} {p.prompt or 'chooses'}: {m.label}", True) for i, m in enumerate(p.moves)]
    assert isinstance(p, Chance)
    outs = st.chance_outcomes()
    if outs is None:  # a shuffle: every order of the zone's cards
        if math.factorial(p.outcomes) > max_leaves:
            raise TooManyGames
        return [(perm, f"{p.text}: order {list(perm)}", False)
                for perm in itertools.permutations(range(p.outcomes))]
    return [(i, p.describe(i), False) for i in range(len(outs))]


def game_facts(st: State, t: Tables, decisions: int, course: tuple, error: SpecRuntimeError | None,
               path: tuple = (), questions: dict | None = None) -> GameFacts:
    """The facts of one game played to `st` (GameFacts: its scores and items, winners, marks, rulings read,
    decisions and course, the error that stopped it if any), as the claims are checked against them."""
    n = t.n
    res = st.result
    if res is not None:
        scores = tuple(res["scores"][f"P{i + 1}"] for i in range(n))
        items = {s: tuple(res["breakdown"][f"P{i + 1}"][s] for i in range(n)) for s in t.scores}
        winners = tuple(int(w[1:]) - 1 for w in res["winners"])
        draw, reason, rounds = bool(res["draw"]), res["reason"], res["rounds"]
    else:  # stopped by an error: the points so far
        scores = tuple(st.total_vp(i) for i in range(n))
        items = {s: tuple(st.vp[s]) for s in t.scores}
        winners, draw, reason, rounds = (), False, None, st.round
    err = None
    if error is not None:
        err = f"{error.span.line}:{error.span.col}: {error.message}"
    holdings = {tok: tuple(st.pv[tok]) for tok in t.tokens}
    return GameFacts(scores, items, winners, draw, reason, frozenset(st.marks), decisions, rounds,
                     frozenset(st.consulted), err, course, holdings, path, questions or {})
