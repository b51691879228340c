"""Games steered towards a situation no seeded game reached: an open ruling that is read only under
a test the games never met, or a designer's question whose answer no game showed.

A ruling is read where its name stands in the rules; the tests on the way there say when that
happens: the `if` tests around it (an `elif`'s earlier tests negated), an option's `when`, the left
side of an `and` (the right side is read only when it holds) or of an `or` (only when it fails), a
conditional's test.  A `let` bound before the read stands for its value, so `let drawn = min(3,
count(deck))` ... `if drawn < 3 and r == x` steers by the deck.  The tests are graded as
verify/item_witness.py grades an award's conditions (how near `a < b` is to holding, the mean of an
`and`), with `not` pushed through to the comparisons under it and `min`/`max` split into their
parts (`min(a, b) < c` holds when either part does), so the grade moves before the test holds.  A
test on a local (a procedure's parameter, a loop's card) is left out: a bare state cannot answer it.

The games are verify/search.directed_games: every seat works together towards the grade; each is a
real game, and only a game whose own record shows the situation (the ruling among its consulted
rulings, the question's answer at one of its states) counts: the grade only steers.  Work is fixed
in games, moves tried and steps looked ahead, never seconds.
"""

from __future__ import annotations

from typing import Callable

import attrs

from soan.dsl import ir
from soan.interpreter.play import GameRecord
from soan.interpreter.runtime import Tables
from soan.interpreter.state import State

from .item_witness import Grader
from .search import directed_games

# the work of one steered search: games, and per decision the moves tried and the random steps
# played after each (the search for a game that never ends uses the same small look-ahead)
GAMES = 2
# ... and more of them while they took fewer steps than this in all (a short game is cheap to steer: on a
# 50-step game a question met one steered game in twenty; a 330-step game gets about eight)
STEPS = 2_500
MAX_GAMES = 64
DEPTH = 3
MAX_MOVES = 8
# a random move now and then keeps the games apart; seldom, since a rare situation needs most moves aimed
EXPLORE = 0.05

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


@attrs.frozen
class ReadSite:
    params: tuple[str, ...]  # the parameters of the procedure or def it lies in (none at top level)
    tests: tuple[ir.Expr, ...]  # what must hold for the read to happen, outermost first
    # the piles of which a draw must have found too few cards for the read to happen: a test
    # `n < k` on `let n = min(k, count(Z))` (or `count(Z)`) right before `draw k from Z`
    short_draws: frozenset = frozenset()
    # the innermost statement whose own expression holds the read (None: none, as in a def's body),
    # the tests as written (no let inlined), and how many of them are that statement's own (the
    # last ones: an earlier branch's test, an option's `when`, the left side of an `and`), which
    # it reads where it starts; the rest are the tests of the statements around it
    stmt: ir.Stmt | None = attrs.field(default=None, eq=False)
    written: tuple = attrs.field(default=(), eq=False)
    own: int = attrs.field(default=0, eq=False)


def read_sites(spec: ir.Spec, name: str) -> list[ReadSite]:
    """Every place the rules read ruling (or assumption, option) `name`, with the tests on the way."""
    out: list[ReadSite] = []
    roots = [((), n) for n in (spec.setup, spec.rounds, spec.scoring) if n is not None]  # all of them, headers too
    roots += [(p.params, p.body) for p in spec.procedures if p.body is not None]
    roots += [(d.params, d.body) for d in spec.defs if d.body is not None]
    for params, body in roots:
        _Walk(name, params, out).node(body, (), {})
    return out


class _Walk:
    def __init__(self, name: str, params: tuple, out: list):
        self.name, self.params, self.out = name, params, out
        self.stmt: ir.Stmt | None = None  # the statement being walked, and how many tests lay outside it
        self.outside = 0

    def node(self, n, tests: tuple, lets: dict) -> None:
        if isinstance(n, ir.Stmt):
            saved = self.stmt, self.outside
            self.stmt, self.outside = n, len(tests)
            try:
                self._node(n, tests, lets)
            finally:
                self.stmt, self.outside = saved
        else:
            self._node(n, tests, lets)

    def _node(self, n, tests: tuple, lets: dict) -> None:
        if isinstance(n, ir.Expr):
            self.expr(n, tests, lets)
        elif isinstance(n, ir.Block):
            lets = dict(lets)
            for i, s in enumerate(n.stmts):
                self.node(s, tests, lets)
                if isinstance(s, ir.Let):
                    lets[s.name] = _inline(s.value, lets)
                before = n.stmts[i - 1] if i > 0 else None
                if isinstance(before, ir.Let) and _counted_draw(before.value, s) is not None:
                    # from the statement after the draw on, the let says whether the draw was short
                    lets[(_DRAWN, before.name)] = _counted_draw(before.value, s)
        elif isinstance(n, ir.If):
            before: tuple = ()
            for test, blk in n.branches:
                self.expr(test, tests + before, lets)
                self.node(blk, tests + before + (test,), lets)
                before += (ir.Not(test),)
            if n.orelse is not None:
                self.node(n.orelse, tests + before, lets)
        elif isinstance(n, ir.OptionBranch):
            if n.when is not None:
                self.expr(n.when, tests, lets)
                tests = tests + (n.when,)
            self.node(n.body, tests, lets)
        elif isinstance(n, ir.Node):
            for c in ir.children(n):  # every child: a read missed here would be a read the proof never saw
                if isinstance(c, ir.Expr):
                    self.expr(c, tests, lets)
                else:
                    self.node(c, tests, lets)

    def expr(self, e: ir.Expr, tests: tuple, lets: dict) -> None:
        if isinstance(e, ir.Param) and e.name == self.name:
            self.out.append(ReadSite(self.params, tuple(_inline(t, lets) for t in tests),
                                     frozenset(z for t in tests if (z := _short_draw(t, lets)) is not None),
                                     self.stmt, tuple(tests), len(tests) - self.outside))
        elif isinstance(e, ir.BinOp) and e.op in ("and", "or"):
            self.expr(e.left, tests, lets)
            self.expr(e.right, tests + ((e.left if e.op == "and" else ir.Not(e.left)),), lets)
        elif isinstance(e, ir.Cond):
            self.expr(e.test, tests, lets)
            self.expr(e.then, tests + (e.test,), lets)
            self.expr(e.orelse, tests + (ir.Not(e.test),), lets)
        else:
            for c in ir.children(e):
                if isinstance(c, ir.Expr):
                    self.expr(c, tests, lets)


_DRAWN = "drawn before"  # the key, beside a let's own, under which a let before a draw is kept


def _counted_draw(value: ir.Expr, nxt) -> tuple[str, int, int] | None:
    """(pile, k, n) when `value` is `min(k, count(pile))` (k unbounded for a bare count) and `nxt`
    draws a written number n of cards from that shared pile."""
    if not (isinstance(nxt, ir.Draw) and isinstance(nxt.count, ir.Int) and isinstance(nxt.source, ir.SharedZone)):
        return None
    cap = None
    if isinstance(value, ir.Call) and value.func == "min" and len(value.args) == 2:
        ints = [a for a in value.args if isinstance(a, ir.Int)]
        rest = [a for a in value.args if not isinstance(a, ir.Int)]
        if len(ints) != 1 or len(rest) != 1:
            return None
        cap, value = ints[0].value, rest[0]
    if value == ir.Call("count", (nxt.source,)):
        return nxt.source.name, (cap if cap is not None else 1 << 30), nxt.count.value
    return None


def _short_draw(test: ir.Expr, lets: dict) -> str | None:
    """The pile whose draw must have been short for `test` to hold: `n < k` (or `n <= k - 1`,
    `not (n >= k)`, ...) on a let n of min(k', count(pile)) with k' >= k, right before a draw of
    at least k cards from the pile (which draws fewer than k only when the pile holds fewer)."""
    t = normal(test)
    if not isinstance(t, ir.BinOp) or t.op not in ("<", "<=", ">", ">="):
        return None
    local, op, bound = t.left, t.op, t.right
    if isinstance(bound, ir.Local) and isinstance(local, ir.Int):
        local, op, bound = bound, _FLIP[op], local
    if not (isinstance(local, ir.Local) and isinstance(bound, ir.Int) and op in ("<", "<=")):
        return None
    k = bound.value + (1 if op == "<=" else 0)  # the test holds exactly when the let is below k
    got = lets.get((_DRAWN, local.name))
    if got is None:
        return None
    pile, cap, n = got
    return pile if cap >= k and n >= k else None


def short_draw_piles(spec: ir.Spec, name: str) -> set[str] | None:
    """The piles such that ruling `name` is read only after a draw from one of them found it short
    (every read behind such a test), or None."""
    sites = read_sites(spec, name)
    if not sites or any(not s.short_draws for s in sites):
        return None
    return set().union(*(s.short_draws for s in sites))


def _inline(e: ir.Expr, lets: dict) -> ir.Expr:
    """`e` with each local bound by a `let` in reach replaced by the let's value."""
    if isinstance(e, ir.Local) and e.name in lets:
        return lets[e.name]
    return ir.map_children(e, lambda c: _inline(c, lets) if isinstance(c, ir.Expr) else c)


class Steer(Grader):
    """Grades with `not` pushed inwards and `min`/`max` split, so that a negated or saturated test
    still says how near it is."""

    def _grade(self, e, st, env, depth) -> float:
        if isinstance(e, ir.BinOp) and e.op in _NEGATE:
            a, b = self._x(e.left, st, env), self._x(e.right, st, env)
            if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) and not isinstance(b, bool):
                # 1 when it holds, else nearer 1 the fewer steps it is from holding: every step
                # counts, also towards 0 (item_witness's share of the way has none there)
                return 1.0 / (1 + _distance(e.op, a, b))
        if isinstance(e, ir.Agg) and e.func in ("any", "all") and e.where is None and e.value is not None:
            items = list(self._x(e.coll, st, env))
            if not items:
                return float(e.func == "all")
            gs = [self.grade(e.value, st, {**env, e.var: x}, depth + 1) for x in items]
            return max(gs) if e.func == "any" else sum(gs) / len(gs)
        return super()._grade(e, st, env, depth)


def _normal(e: ir.Expr) -> ir.Expr:
    """One rewrite step that keeps `e`'s truth: `not` over a comparison, `and`, `or` or `not`
    pushed inwards; a comparison with `min`/`max` on one side split into its parts."""
    if isinstance(e, ir.Not):
        x = e.operand
        if isinstance(x, ir.Not):
            return _normal(x.operand)
        if isinstance(x, ir.BinOp) and x.op in _NEGATE:
            return _normal(ir.BinOp(_NEGATE[x.op], x.left, x.right))
        if isinstance(x, ir.BinOp) and x.op in ("and", "or"):
            return ir.BinOp("or" if x.op == "and" else "and", ir.Not(x.left), ir.Not(x.right))
        return e
    if isinstance(e, ir.BinOp) and e.op in ("<", "<=", ">", ">="):
        left, op, right = e.left, e.op, e.right
        if not _minmax(left) and _minmax(right):
            left, op, right = right, _FLIP[op], left
        if _minmax(left):
            # min(a, b) < c: a < c or b < c; min(a, b) > c: both; max the other way round
            low = op in ("<", "<=")
            join = "or" if (left.func == "min") == low else "and"
            a, b = left.args
            return _fold(ir.BinOp(join, _fold(ir.BinOp(op, a, right)), _fold(ir.BinOp(op, b, right))))
    return e


_HOLDS = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__}


def _fold(e: ir.BinOp) -> ir.Expr:
    """A comparison of two numbers written out is its truth; `x or false` is x, `x and true` is x
    (`min(3, count(deck)) < 3` is `count(deck) < 3`: a constant part would hide the gradient)."""
    if e.op in _HOLDS and isinstance(e.left, ir.Int) and isinstance(e.right, ir.Int):
        return ir.Bool(_HOLDS[e.op](e.left.value, e.right.value))
    if e.op in ("and", "or"):
        for x, y in ((e.left, e.right), (e.right, e.left)):
            if isinstance(x, ir.Bool):
                return y if x.value == (e.op == "and") else x
    return e


def _distance(op: str, a: int, b: int) -> int:
    """How many steps of a or b `a op b` is from holding (0: it holds)."""
    return {"<": max(0, a - b + 1), "<=": max(0, a - b), ">": max(0, b - a + 1), ">=": max(0, b - a),
            "==": abs(a - b), "!=": int(a == b)}[op]


def normal(e: ir.Expr) -> ir.Expr:
    """`e` with _normal's rewrites made all the way down (once: the engine compiles each new node)."""
    e = _normal(e)
    return ir.map_children(e, lambda c: normal(c) if isinstance(c, ir.Expr) else c)


def _minmax(e) -> bool:
    return isinstance(e, ir.Call) and e.func in ("min", "max") and len(e.args) == 2


def ruling_steer(tables: Tables, name: str) -> Callable[[State], float] | None:
    """How near a state is to reading ruling `name` (far more once it has been read), or None when
    the rules say nothing that could steer towards it."""
    sites = read_sites(tables.spec, name)
    if not sites:
        return None
    g = Steer(tables)
    # only the tests a bare state can answer steer: one on a local (a parameter, a loop's card)
    # depends on where the rules are, which a state does not say
    tests = [ts for ts in ({normal(t) for t in site.tests if not ir.free_locals(t)} for site in sites) if ts]
    tests = [tuple(ts) for ts in {frozenset(ts) for ts in tests}]
    if not tests:
        return None
    tests.sort(key=repr)

    def value(st: State) -> float:
        if name in st.consulted:
            return 1000.0
        saved = _quiet(st)
        try:
            return max(sum(g.grade(t, st, {}, 0) for t in ts) / len(ts) for ts in tests)
        finally:
            _restore(st, saved)
    return value


def question_steer(tables: Tables, q: ir.Question) -> Callable[[State], float]:
    """How near a state is to answering question `q`: its expression graded (for `always` and an
    invariant, its negation: a game where it fails answers them)."""
    e = normal(q.expr if q.kind == "can" else ir.Not(q.expr))
    g = Steer(tables)

    def value(st: State) -> float:
        saved = _quiet(st)
        try:
            return g.grade(e, st, {}, 0)
        finally:
            _restore(st, saved)
    return value


def _quiet(st: State) -> tuple:
    """Grading reads rulings and may break ties: none of that may show in the game's own record."""
    saved = (st.consulted, st.marks, st.first_marks, st.mark_events)
    st.consulted, st.marks = set(saved[0]), dict(saved[1])
    st.first_marks, st.mark_events = dict(saved[2]), dict(saved[3])
    return saved


def _restore(st: State, saved: tuple) -> None:
    st.consulted, st.marks, st.first_marks, st.mark_events = saved


def steered_games(tables: Tables, steer: Callable[[State], float], seed: int, *, games: int | None = None,
                  found: Callable[[GameRecord], bool] | None = None, first: int = 0) -> list[GameRecord]:
    """Steered games until one that `found` says shows the situation: at least GAMES of them, then
    more while all of them together took fewer than STEPS steps (MAX_GAMES at most), or exactly
    `games`; the same games for the same seed on any machine."""
    got: list[GameRecord] = []
    least, most = (GAMES, MAX_GAMES) if games is None else (games, games)

    def on_game(rec: GameRecord) -> None:
        got.append(rec)

    def enough() -> bool:
        if found is not None and any(found(r) for r in got):
            return True
        return len(got) >= least and sum(len(r.log["steps"]) for r in got) >= STEPS

    directed_games(tables, steer, seed, most, depth=DEPTH, max_moves=MAX_MOVES, explore=EXPLORE, on_game=on_game,
                   last=True, until=enough, first=first)
    return got
