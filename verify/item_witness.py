"""Witnesses for loose score items: a climb over whole games aimed at one item, steered by
how close a seat is to the item's own conditions, started from the best games of the items
that read what it reads.

An item awarded only when a condition holds (four cards of one kind, five of them spanning
six ranks) reads 0 in nearly every game, so a climb on its score has nothing to climb.  The
rules say what the condition is: the `if` tests around the item's awards, through the defs
they call.  A test graded instead of judged says how near a seat is: `a >= k` is a / k of the
way when it fails, `x and y` the mean of both, `x or y` the better, `any(s in S where c)` the
best element's, `all(...)` the mean, `if c then x else y` the branch c takes (closeness).

Items that share what they read (the zones their awards count in, the card states and player
variables: item_progress.item_reads) are built by the same play, so the best games of the
related items are good places to start from (a game rich in roasted mains for one dish item
is one for the next).

Every game a climb returns is a real game played by the engine and replayed before it is
reported; closeness only steers.  Work is counted in games played (evaluations) and steps,
never seconds, and the climb is verify/search.climb, which plays the same games for any
number of jobs.
"""

from __future__ import annotations

from typing import Callable

import attrs

from soan.dsl import ir
from soan.interpreter.play import GameRecord
from soan.interpreter.runtime import Tables

from . import item_progress

# how often a climb takes a change that keeps the item but lowers the closeness (verify/search.climb's
# drift): rarely, so the climb follows the grade (on the test spec's five-of-a-colour set, 0.5 wanders
# off in half the seeds)
DRIFT = 0.1
_COMPARE = ("<", "<=", ">", ">=", "==")


def award_conditions(tables: Tables, name: str) -> list[tuple[str, tuple[ir.Expr, ...]]]:
    """Each award of item `name` whose player is a local (a procedure's parameter, a loop's
    seat): that local's name and the tests that must hold for the award to be reached (an
    `elif`'s earlier tests negated), innermost last."""
    out = []

    def on_award(node, conds):
        if node.item == name and isinstance(node.player, ir.Local):
            out.append((node.player.name, conds))

    _walk_guarded(tables, ir.Award, on_award)
    return out


def _walk_guarded(tables: Tables, kind: type, visit: Callable[[ir.Node, tuple], None]) -> None:
    """`visit(statement, tests)` for every statement of type `kind` in the rules, with the tests that must
    hold for it to be reached (an `elif`'s earlier tests negated), innermost last."""

    def walk(node, conds):
        if isinstance(node, ir.Block):
            for s in node.stmts:
                walk(s, conds)
        elif isinstance(node, kind):
            visit(node, conds)
        elif isinstance(node, ir.If):
            before: tuple = ()
            for test, blk in node.branches:
                walk(blk, conds + before + (test,))
                before += (ir.Not(test),)
            if node.orelse is not None:
                walk(node.orelse, conds + before)
        elif isinstance(node, (ir.Stmt, ir.OptionBranch)):
            for b in item_progress._exprs_and_blocks(node)[1]:
                walk(b, conds)

    for body in item_progress._rule_bodies(tables.spec):
        walk(body, ())


class Grader:
    """How near a test is to holding in a state (0..1, 1: it holds): see the module's docstring."""

    def __init__(self, tables: Tables):
        self.t = tables
        self.defs = {d.name: d for d in tables.spec.defs}
        # each expression's compiled function, by the node (the rules' compiler builds a new one per call)
        self._fns: dict[int, tuple[ir.Expr, Callable]] = {}

    def _x(self, e, st, env):
        got = self._fns.get(id(e))
        if got is None:
            got = self._fns[id(e)] = (e, self.t.rules.x(e))  # the node kept, so its id stays its own
        return got[1](st, env)

    def grade(self, e: ir.Expr, st, env: dict, depth: int) -> float:
        try:
            return self._grade(e, st, env, depth)
        except Exception:  # a test that cannot be read here (a local bound elsewhere): nothing known
            return 0.0

    def _grade(self, e, st, env, depth) -> float:
        if depth > 12:
            return float(self._x(e, st, env) is True)
        if isinstance(e, ir.BinOp) and e.op in ("and", "or"):
            a, b = self.grade(e.left, st, env, depth + 1), self.grade(e.right, st, env, depth + 1)
            return (a + b) / 2 if e.op == "and" else max(a, b)
        if isinstance(e, ir.BinOp) and e.op in _COMPARE:
            a, b = self._x(e.left, st, env), self._x(e.right, st, env)
            if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, int) or not isinstance(b, int):
                return float(self._x(e, st, env) is True)
            return _graded_compare(e.op, a, b)
        if isinstance(e, ir.Cond):
            return self.grade(e.then if self._x(e.test, st, env) is True else e.orelse, st, env, depth + 1)
        if isinstance(e, ir.Call) and e.func in self.defs:
            d = self.defs[e.func]
            inner = {p: self._x(a, st, env) for p, a in zip(d.params, e.args)}
            return self.grade(d.body, st, inner, depth + 1)
        if isinstance(e, ir.Agg) and e.func in ("any", "all") and e.where is not None and e.value is None:
            items = list(self._x(e.coll, st, env))
            if not items:
                return float(e.func == "all")
            gs = [self.grade(e.where, st, {**env, e.var: x}, depth + 1) for x in items]
            return max(gs) if e.func == "any" else sum(gs) / len(gs)
        return float(self._x(e, st, env) is True)


class Closeness(Grader):
    """How close a seat is, in a state, to the conditions of an item's awards (0..1, 1: met)."""

    def __init__(self, tables: Tables, name: str):
        super().__init__(tables)
        self.awards = [(who, conds) for who, conds in award_conditions(tables, name) if conds]

    def __bool__(self) -> bool:
        return bool(self.awards)

    def __call__(self, st, seat: int) -> float:
        best = 0.0
        for who, conds in self.awards:
            env = {who: self.t.P[seat]}
            best = max(best, sum(self.grade(c, st, env, 0) for c in conds) / len(conds))
        return best


# where a card state read by an award's amount counts as "more is more" (at_top): through sums and
# products, the left of a difference or a quotient, a conditional's branches, an aggregate's value
_MONOTONE_OPS = ("+", "*")


def _inlined(defs: dict, e: ir.Expr, depth: int = 0) -> ir.Expr:
    """`e` with each call of a def replaced by the def's body (its parameters by the arguments), through
    the defs those call (8 levels at most); a call whose arguments name a local the body binds is kept."""
    def sub(n, table, depth):
        if isinstance(n, ir.Local) and n.name in table:
            return table[n.name]
        if isinstance(n, ir.Call) and n.func in defs and depth < 8 and len(defs[n.func].params) == len(n.args):
            d = defs[n.func]
            args = tuple(sub(a, table, depth) for a in n.args)
            bound = {getattr(x, "var", None) for x in ir.walk(d.body)}
            if not any(isinstance(x, ir.Local) and x.name in bound for a in args for x in ir.walk(a)):
                return sub(d.body, dict(zip(d.params, args)), depth + 1)
        return ir.map_children(n, lambda c: sub(c, table, depth) if isinstance(c, ir.Expr) else c)
    return sub(e, {}, depth)


def _at_top(e: ir.Expr, tops: dict[str, int], monotone: bool = True, caps: dict | None = None) -> ir.Expr:
    """`e` with each card state in `tops` read where more of it means more (see _MONOTONE_OPS) replaced
    by its top value (where `caps` gives the state a card's own cap, state_caps, that cap read on the
    card); everywhere else (a test, a filter, what is subtracted) read as it is."""
    if isinstance(e, ir.Attr) and monotone and e.name in tops:
        if caps and e.name in caps:
            return _cap_on(caps[e.name], e.obj, tops[e.name])
        return ir.Int(tops[e.name])
    if isinstance(e, ir.BinOp):
        keep_left = monotone and e.op in _MONOTONE_OPS + ("-", "//")
        keep_right = monotone and e.op in _MONOTONE_OPS
        left, right = _at_top(e.left, tops, keep_left, caps), _at_top(e.right, tops, keep_right, caps)
        return e if left is e.left and right is e.right else attrs.evolve(e, left=left, right=right)
    if isinstance(e, ir.Cond):
        then, orelse = _at_top(e.then, tops, monotone, caps), _at_top(e.orelse, tops, monotone, caps)
        return e if then is e.then and orelse is e.orelse else attrs.evolve(e, then=then, orelse=orelse)
    if isinstance(e, ir.Agg) and e.func in ("sum", "max", "min") and e.value is not None:
        value = _at_top(e.value, tops, monotone, caps)
        return e if value is e.value else attrs.evolve(e, value=value)
    return e


def _larger(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.Cond(ir.BinOp(">=", a, b), a, b)


def _cap_on(cap: list, obj: ir.Expr, top: int) -> ir.Expr:
    """A state's cap (state_caps: the values it is set to, the bounds its raises are guarded by, each
    on a card local) read on the card `obj`, never past `top` (its declared range's)."""
    parts = [_substituted(x, {var: obj}) for var, x in cap]
    got = parts[0]
    for x in parts[1:]:
        got = _larger(got, x)
    return ir.Cond(ir.BinOp("<=", got, ir.Int(top)), got, ir.Int(top))


def _substituted(e: ir.Expr, table: dict) -> ir.Expr:
    if isinstance(e, ir.Local) and e.name in table:
        return table[e.name]
    return ir.map_children(e, lambda c: _substituted(c, table) if isinstance(c, ir.Expr) else c)


def state_caps(tables: Tables) -> dict[str, list[tuple[str, ir.Expr]]]:
    """For each card state of whole numbers that the rules only ever raise under a guard, the most it can
    reach on a card: every `set c.s = k` (k a number) and every `set c.s += k` inside a test `c.s < E`
    (`<= E`) on the same card give k, E - 1 + k (E + k); the cap is the largest of them, each an
    expression on its card local (with the defs it calls inlined).  A state set any other way (to what is
    not a number, raised with no such guard, or on what is not a card local) has none: what it can reach
    is then its declared range's top.  A guide for what a card can become (at_top): the guard is read from
    the rules, so a card whose cap is its printed gauge plus a token on it is valued at that, not at the
    range every card shares."""
    defs = {d.name: d for d in tables.spec.defs}
    states = {s for names in tables.kind_states.values() for s in names}
    found: dict[str, list] = {}
    broken: set[str] = set()

    def conjuncts(tests):
        for t in tests:
            if isinstance(t, ir.BinOp) and t.op == "and":
                yield from conjuncts((t.left, t.right))
            else:
                yield t

    def on_set(node, tests):
        tgt = node.target
        if not (isinstance(tgt, ir.Attr) and tgt.name in states):
            return
        name = tgt.name
        if not isinstance(tgt.obj, ir.Local):
            broken.add(name)
            return
        var = tgt.obj.name
        if node.op == "-=":
            if not (isinstance(node.value, ir.Int) and node.value.value >= 0):
                broken.add(name)
            return
        if not isinstance(node.value, ir.Int):
            broken.add(name)
            return
        k = node.value.value
        if node.op == "=":
            found.setdefault(name, []).append((var, ir.Int(k)))
            return
        for t in conjuncts(tests):
            if isinstance(t, ir.BinOp) and t.op in ("<", "<=") and t.left == tgt:
                bound = _inlined(defs, t.right)
                if not (ir.free_locals(bound) - {var}):
                    extra = k - 1 if t.op == "<" else k
                    found.setdefault(name, []).append(
                        (var, bound if extra == 0 else ir.BinOp("+", bound, ir.Int(extra))))
                    return
        broken.add(name)

    _walk_guarded(tables, ir.Set, on_set)
    return {name: cap for name, cap in found.items() if name not in broken}


def at_top(tables: Tables, name: str, capped: bool = False) -> Callable[[object, int], int] | None:
    """What item `name`'s awards to a seat would add up to now, were every card state their amounts
    count (a level, a number of tokens on a card: a state of whole numbers) at the top of its declared
    range: the cards a seat holds that the item counts, valued for what they can become.  Where no
    award's amount counts such a state, the amounts that read what is printed on cards, as they read now
    (None where there is none): the scoring's own steps before an award may drop what the seat holds (a
    dish not yet cooked, discarded at judging), so the score alone says 0 for a card that counts once
    finished, and the progress (item_progress) counts every card alike where the amount tells them apart
    by what is printed on them (a side dish matching a main's suit).  An amount that reads nothing printed
    (a count of cards times a player variable) is left to the score and the progress: read as it stands,
    past what the scoring would cut, it steered a shipped spec's plans for such an item from a mean of 30
    to 14.
    Only the awards whose player is a local (a loop's seat, a procedure's parameter) are read, with that
    local the only one known: an amount that reads another (a procedure's other parameter: a challenge
    card's bonus) is left out, and None where no other is left.  `capped`: a state the rules raise only
    under a guard on the card (state_caps) is read at that card's own cap instead."""
    spec = tables.spec
    defs = {d.name: d for d in spec.defs}
    tops: dict[str, int] = {}
    for (_, sname), dom in tables.state_domain.items():
        if isinstance(dom, ir.IntDomain) and isinstance(dom.hi, int):
            tops[sname] = max(tops.get(sname, dom.hi), dom.hi)
    caps = state_caps(tables) if capped else None
    found = []
    live = []

    def on_award(st, context):
        if isinstance(st, ir.Award) and st.item == name and isinstance(st.player, ir.Local):
            e = _inlined(defs, st.amount)
            if ir.free_locals(e) - {st.player.name}:  # reads what only its procedure's call binds: unreadable
                return
            top = _at_top(e, tops, caps=caps)
            (found if top != e else live).append((st.player.name, top))

    for body in item_progress._rule_bodies(spec):
        item_progress._walk_stmts(body, (), on_award)
    printed = {f for names in tables.static_fields.values() for f in names}
    found = found or [(who, e) for who, e in live
                      if any(isinstance(x, ir.Attr) and x.name in printed for x in ir.walk(e))]
    if not found:
        return None
    fns = [(who, tables.rules.x(e), e) for who, e in found]
    P = tables.P

    def value(st, seat: int) -> int:
        total = 0
        for who, fn, _ in fns:
            try:
                got = fn(st, {who: P[seat]})
            except Exception:  # a state the amount cannot be read in (a card not there): unread
                continue
            if isinstance(got, int) and not isinstance(got, bool):
                total += max(0, got)
        return total
    return value


def _graded_compare(op: str, a: int, b: int) -> float:
    """How far `a op b` is towards holding: 1 when it holds, else the share of the way from 0."""
    holds = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b}[op]
    if holds:
        return 1.0
    if op in (">", ">="):
        need = b + (1 if op == ">" else 0)
        return max(0, a) / need if need > 0 else 0.0
    if op in ("<", "<="):
        need = b - (1 if op == "<" else 0)
        return need / a if a > 0 and need >= 0 else 0.0
    return 1.0 - min(1.0, abs(a - b) / max(abs(a), abs(b), 1))


def item_value(tables: Tables, name: str, sign: int) -> Callable[[GameRecord], tuple]:
    """A game's value for a climb on item `name` (`sign` -1: its lowest): the seat with the most of
    it (times sign), then that seat's closeness to the item's conditions, its progress towards
    what the item counts (item_progress), and the others' item as low as can be."""
    close = Closeness(tables, name)
    progress = item_progress.progress_of(tables, name) if sign > 0 else None
    n = tables.n

    def value(rec: GameRecord) -> tuple:
        st = rec.state
        vals = [sign * rec.result["breakdown"][f"P{i + 1}"][name] for i in range(n)]
        steer = [(close(st, i) if close else 0.0, progress(st, i) if progress else 0.0) for i in range(n)]
        i = max(range(n), key=lambda j: (vals[j], steer[j]))
        return (vals[i], *steer[i], -(sum(vals) - vals[i]))
    return value


def related_items(tables: Tables, name: str) -> list[str]:
    """The other score items whose awards read a zone, card state or player variable this one's do."""
    reads = {}
    for item in tables.spec.scores:
        r = item_progress.item_reads(tables, item.name)
        reads[item.name] = r.targets | r.card_states | r.player_vars
    mine = reads.get(name, set())
    return [x for x, got in reads.items() if x != name and got & mine]


def climb_loose(tables: Tables, items: list[tuple[str, int, int]], best_games: Callable[[str, int], list[GameRecord]],
                seen: Callable[[str, int], int | None], seed: int, evals_each: int, evals_total: int,
                patience: int, on_game: Callable[[GameRecord], None], climb, jobs: int = 1,
                stop: Callable[[], bool] | None = None) -> list[tuple[str, int, GameRecord]]:
    """A climb for each loose item (name, sign, proved bound; the nearest to 'within 2x' first)
    towards half its bound, valued by item_value, started from the best games of the item and of
    its related items (`best_games(name, sign)`).  Each climb plays at most `evals_each` games and
    stops after `patience` in a row that raise neither the item nor the steer (closeness, progress); all of them at most `evals_total`.
    Returns the games that beat the best seen: (item, value, game)."""
    order = sorted(items, key=lambda x: -(x[1] * (seen(x[0], x[1]) or 0)) / max(1, abs(x[2])))
    out = []
    left = evals_total
    for name, sign, bound in order:
        if left <= 0 or (stop is not None and stop()):
            break
        starts = list({id(r): r for x in [name] + related_items(tables, name) for r in best_games(x, sign)}.values())
        if not starts:
            continue
        goal = -(-abs(bound) // 2)
        before = seen(name, sign)
        spent = [0]

        def counted(rec, spent=spent):
            spent[0] += 1
            on_game(rec)
        # an item with conditions is steered by their grade, followed closely; one scored by an amount
        # alone (a sum over cards) by the seat's progress, and crosses plateaus as any climb does
        drift = DRIFT if Closeness(tables, name) else 0.5
        found = climb(tables, item_value(tables, name, sign), starts, seed, None, min(evals_each, left),
                      goal=goal, on_game=counted, jobs=jobs, patience=patience, drift=drift,
                      raise_parts=3)
        left -= spent[0]
        if found is not None and (before is None or found[0] > sign * before):
            out.append((name, sign * found[0], found[1]))
    return out
