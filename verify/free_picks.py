"""Tie-break keys kept different by a free pick (a fourth shape beside verify/distinct_keys.py;
general and sound, anything outside it leaves the claim unproved).

A per-player number F with a per-player flag P (false by default) where every write of F is

    set X.F = first([k in A..B where not any(q in players where q != X and H(q) == k)])

with H(q) reading q.F whenever q.P holds (`q.F`, or `if ... or q.P then q.F else ...`, possibly
through a def), or a reset `set X.F = e` next to `set X.P = false`; every `set X.P = true` is
followed at once by such a pick for the same X.  Then *no two flagged players share F* holds
between any two statements: a pick gives X a value no other flagged player holds, and a reset
unflags X.  With A..B wide enough for every seat, a pick always finds a value.

Every player is flagged where the last thing that ran is a `while any(q in players where not q.P)`
loop whose cap is proved out of reach (its test was false when it ended) and nothing since wrote
F or P.  Two kinds of key follow:

1. F itself, read only by the scoring (or the winner line), when the final round ends so: every
   player flagged, so F differs for every player.
2. A field G whose every write is (a) in the setup, before anything reads G,
   `for p in players { set p.G = c + count(q in players where K(q) < K(p)) }` with K a key
   proved different for every player (the rank of p by K), or (b) a copy
   `for p in players { ... set p.G = p.F ... }` run where every player is flagged, whose body
   writes F and P only of p and after the copy.  Each leaves G different for every player, and
   nothing reads G while such a loop runs.
"""

from __future__ import annotations

from typing import Callable

import attrs

from soan.dsl import ir

from .distinct_keys import may_read, player_field_of, reached_nodes, rule_bodies

_ENDS = (ir.Win, ir.EndGame, ir.Eliminate)


def separated(spec: ir.Spec, node, distinct_players: bool, cap_proved: Callable[[ir.While], bool],
              unique_key: Callable[[ir.Expr, str], str | None]) -> str | None:
    """Why a ranking (or the winner line) separates its candidates by a key of the shapes above,
    or None.  `cap_proved(loop)`: the loop's cap is proved out of reach; `unique_key(expr, var)`:
    why a key of `var` is different for every player from the setup's deal on."""
    rounds = spec.rounds
    if not distinct_players or rounds is None or not isinstance(rounds.count, ir.Int) or rounds.until is not None \
            or rounds.count.value < 1:
        return None
    if any(isinstance(n, _ENDS) for r in rule_bodies(spec) for n in ir.walk(r)):
        return None  # an early end (or a player leaving `players`) skips the rounds' remaining statements
    for k in node.keys:
        field = player_field_of(spec, k.expr, node.var)
        if field is None:
            continue
        why = _picked_at_scoring(spec, node, field, cap_proved) or _ranked_or_copied(spec, field, cap_proved, unique_key)
        if why:
            return why
    return None


# ---- the free pick

def _sets(spec: ir.Spec, name: str) -> list:
    return [n for r in rule_bodies(spec) for n in ir.walk(r)
            if isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name == name]


def _target(st) -> tuple[str, str] | None:
    """(X, field) of `set X.field = ...` with X a name."""
    if isinstance(st, ir.Set) and st.op == "=" and isinstance(st.target, ir.Attr) and isinstance(st.target.obj, ir.Local):
        return st.target.obj.name, st.target.name
    return None


def _blocks(spec: ir.Spec) -> list:
    return [n for r in rule_bodies(spec) for n in ir.walk(r) if isinstance(n, ir.Block)]


def _neighbours(spec: ir.Spec, st) -> list:
    """The statements right before and after `st` in its block."""
    for b in _blocks(spec):
        for i, s in enumerate(b.stmts):
            if s is st:
                return [b.stmts[j] for j in (i - 1, i + 1) if 0 <= j < len(b.stmts)]
    return []


def _next(spec: ir.Spec, st):
    for b in _blocks(spec):
        for i, s in enumerate(b.stmts):
            if s is st:
                return b.stmts[i + 1] if i + 1 < len(b.stmts) else None
    return None


def pick_flag(spec: ir.Spec, field: str) -> str | None:
    """The flag P when every write of `field` is a free pick or a reset beside unflagging, and
    every flagging is followed at once by a pick (the module's docstring), else None."""
    flag = None
    picks, others = [], []
    for st in _sets(spec, field):
        xf = _target(st)
        if xf is None:
            return None
        p = _free_pick(spec, st.value, xf[0], field)
        if p is not None:
            if flag not in (None, p):
                return None
            flag = p
            picks.append(st)
        else:
            others.append(st)
    if flag is None or flag == field:
        return None
    var = next((v for v in spec.vars if v.name == flag and v.per_player), None)
    if var is None or not isinstance(var.domain, ir.BoolDomain) or var.default not in (None, ir.Bool(False)):
        return None
    for st in _sets(spec, flag):
        xf = _target(st)
        if xf is None or not isinstance(st.value, ir.Bool):
            return None
        if st.value.value and not any(s is _next(spec, st) for s in picks if _target(s)[0] == xf[0]):
            return None  # flagged without a pick at once
    for st in others:  # a reset stands beside `set X.P = false`
        x = _target(st)[0]
        if not any(_target(n) == (x, flag) and n.value == ir.Bool(False) for n in _neighbours(spec, st)):
            return None
    return flag


def _free_pick(spec: ir.Spec, e: ir.Expr, x: str, field: str) -> str | None:
    """The flag P when `e` is `first([k in A..B where not any(q in players where q != x and H(q) == k)])`
    (possibly through a def of one parameter), H(q) reading q.field when q.P, and A..B wide enough."""
    defs = {d.name: d for d in spec.defs}
    if isinstance(e, ir.Call) and e.func in defs and len(e.args) == 1 and e.args[0] == ir.Local(x) \
            and len(defs[e.func].params) == 1:
        return _free_pick(spec, defs[e.func].body, defs[e.func].params[0], field)
    match e:
        case ir.Call(func="first", args=(ir.ListComp(var=k, coll=ir.RangeExpr(lo=ir.Int(value=lo), hi=ir.Int(value=hi)),
                                                      where=ir.Not(operand=ir.Agg(func="any", var=q, coll=ir.AllPlayers(),
                                                                                  where=test, value=None)),
                                                      value=None),)):
            pass
        case _:
            return None
    if k in (q, x) or q == x:
        return None
    parts = _conjuncts(test)
    other = ir.BinOp("!=", ir.Local(q), ir.Local(x))
    excludes_self = any(c == other or c == ir.BinOp("!=", ir.Local(x), ir.Local(q)) for c in parts)
    rest = [c for c in parts if c != other and c != ir.BinOp("!=", ir.Local(x), ir.Local(q))]
    if len(rest) != 1 or not (isinstance(rest[0], ir.BinOp) and rest[0].op == "=="):
        return None  # a further condition lets a held value through
    a, b = rest[0].left, rest[0].right
    held = a if b == ir.Local(k) else b if a == ir.Local(k) else None
    if held is None:
        return None
    # at most max_players - 1 (or max_players) values are excluded: the range always has one left
    if hi - lo + 1 <= spec.max_players - (1 if excludes_self else 0):
        return None
    return _held_flag(spec, held, q, field)


def _conjuncts(e: ir.Expr) -> list:
    if isinstance(e, ir.BinOp) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _held_flag(spec: ir.Spec, h: ir.Expr, q: str, field: str) -> str | None:
    """P when `h` is q.field whenever q.P holds: `if C or q.P then q.field else ...` (C reading no
    player: a ruling, say), or `if q.P then q.field else ...`, possibly through a def of q."""
    defs = {d.name: d for d in spec.defs}
    if isinstance(h, ir.Call) and h.func in defs and h.args == (ir.Local(q),) and len(defs[h.func].params) == 1:
        return _held_flag(spec, defs[h.func].body, defs[h.func].params[0], field)
    if not (isinstance(h, ir.Cond) and h.then == ir.Attr(ir.Local(q), field)):
        return None
    tests = [h.test]
    if isinstance(h.test, ir.BinOp) and h.test.op == "or":
        tests = [h.test.left, h.test.right]
    for t in tests:
        match t:
            case ir.Attr(obj=ir.Local(name=v), name=flag) if v == q:
                return flag
    return None


# ---- every player flagged, right after a loop that runs until they all are

def _until_all_flagged(loop, flag: str, cap_proved) -> bool:
    match loop:
        case ir.While(test=ir.Agg(func="any", var=q, coll=ir.AllPlayers(),
                                  where=ir.Not(operand=ir.Attr(obj=ir.Local(name=v), name=f)), value=None)) \
                if v == q and f == flag:
            # a `break` would end it with some player unflagged
            return not any(isinstance(n, ir.Break) for n in ir.walk(loop.body)) and cap_proved(loop)
    return False


def _touches(spec: ir.Spec, nodes, names: set) -> bool:
    return any((isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name in names)
               or isinstance(n, _ENDS) for n in reached_nodes(spec, nodes))


def _last_round_skips(spec: ir.Spec, st) -> bool:
    """`if round < N { ... }` (or `round != N`) with no else: it does not run in the last round N."""
    n = spec.rounds.count.value
    if isinstance(st, ir.If) and len(st.branches) == 1 and st.orelse is None:
        match st.branches[0][0]:
            case ir.BinOp(op="<" | "!=", left=ir.Builtin(name="round"), right=ir.Int(value=m)) if m == n:
                return True
    return False


def _scan_back(spec: ir.Spec, stmts, flag: str, field: str, cap_proved, last_round: bool) -> bool | None:
    """Backwards along statements run in order: True at a loop that ends with every player
    flagged, False at anything that may unflag one or change F first, None past them all."""
    bodies = {p.name: p.body for p in spec.procedures}
    for st in reversed(stmts):
        if _until_all_flagged(st, flag, cap_proved):
            return True
        if last_round and _last_round_skips(spec, st):
            continue
        if isinstance(st, ir.Phase):
            inner = _scan_back(spec, st.body.stmts, flag, field, cap_proved, last_round)
        elif isinstance(st, ir.Do) and st.proc in bodies and not st.args:
            inner = _scan_back(spec, bodies[st.proc].stmts, flag, field, cap_proved, last_round)
        else:
            inner = False if _touches(spec, [st], {flag, field}) else None
        if inner is not None:
            return inner
    return None


def _path(block: ir.Block, target) -> list | None:
    """[(stmts, i), ...] from `block` down to `target` through phases and if branches (outermost first)."""
    for i, st in enumerate(block.stmts):
        if st is target:
            return [(block.stmts, i)]
        inner = [st.body] if isinstance(st, ir.Phase) else \
            [b for _, b in st.branches] + ([st.orelse] if st.orelse else []) if isinstance(st, ir.If) else []
        for b in inner:
            p = _path(b, target)
            if p is not None:
                return [(block.stmts, i)] + p
    return None


def _flagged_before(spec: ir.Spec, target, flag: str, field: str, cap_proved) -> bool:
    """Every player is flagged whenever the rounds' statement `target` starts."""
    path = _path(spec.rounds.body, target)
    if path is None:
        return False
    for stmts, i in reversed(path):
        r = _scan_back(spec, stmts[:i], flag, field, cap_proved, False)
        if r is not None:
            return r
    return False


# ---- 1. F read by the scoring

def _picked_at_scoring(spec: ir.Spec, node, field: str, cap_proved) -> str | None:
    flag = pick_flag(spec, field)
    if flag is None:
        return None
    early = [x for x in (spec.setup, spec.rounds.body, spec.rounds.count) if x is not None]
    early += [q.expr for q in spec.questions] + [t.supply for t in spec.tokens]
    early += [v.default for v in spec.vars if v.default is not None]
    if any(n is node for n in reached_nodes(spec, early)):
        return None  # read while the rounds run
    if spec.scoring is not None and _touches(spec, [spec.scoring], {flag, field}):
        return None
    if _scan_back(spec, spec.rounds.body.stmts, flag, field, cap_proved, True) is not True:
        return None
    return (f"'{field}' is a free pick (a value no other player with '{flag}' holds), and the last round ends "
            f"with every player's '{flag}' set by a loop proved to end before its cap: no two players share it")


# ---- 2. G ranked in the setup or copied from F

def _ranked_or_copied(spec: ir.Spec, g: str, cap_proved, unique_key) -> str | None:
    writes = _sets(spec, g)
    if not writes or spec.setup is None:
        return None
    loops = {}
    for r in rule_bodies(spec):
        for n in ir.walk(r):
            if isinstance(n, ir.For):
                for s in n.body.stmts:
                    if any(s is w for w in writes):
                        loops[id(s)] = n
    if any(id(w) not in loops for w in writes):
        return None  # a write outside a loop's own statements
    ranks = []
    sources = set()
    for w in writes:
        loop = loops[id(w)]
        if not isinstance(loop.coll, ir.AllPlayers) or loop.where is not None or _target(w) != (loop.var, g):
            return None
        if may_read(spec, [loop.body], g):
            return None  # read while the loop runs
        if len(loop.body.stmts) == 1 and any(s is loop for s in spec.setup.stmts) and \
                _rank_of(spec, w.value, loop.var, g, unique_key, spec.setup.stmts[:_index(spec.setup.stmts, loop)]):
            ranks.append(loop)
            continue
        f = _copy_of(spec, loop, w, g, cap_proved)
        if f is None:
            return None
        sources.add(f)
    if len(ranks) != 1:
        return None  # the first write must rank every player
    first = ranks[0]
    start = list(spec.setup.stmts[:_index(spec.setup.stmts, first)]) + [x for x in (spec.rounds.count,) if x is not None]
    start += [t.supply for t in spec.tokens] + [v.default for v in spec.vars if v.default is not None]
    if may_read(spec, start, g) or may_read(spec, [q.expr for q in spec.questions], g):
        return None
    via = f", and copied from the free pick{'s' if len(sources) > 1 else ''} " + \
        ", ".join(f"'{s}'" for s in sorted(sources)) + " when every player has made it" if sources else ""
    return (f"'{g}' is first set in the setup to each player's rank by a key no two players share{via}: "
            f"no two players share it, and nothing reads it while it is being set")


def _index(stmts, st) -> int:
    return next(i for i, s in enumerate(stmts) if s is st)


def _rename(e, old: str, new: str):
    if isinstance(e, ir.Local):
        return ir.Local(new) if e.name == old else e
    if not isinstance(e, ir.Node):
        return e
    changes = {}
    for f in attrs.fields(type(e)):
        v = getattr(e, f.name)
        if isinstance(v, tuple):
            changes[f.name] = tuple(_rename(x, old, new) for x in v)
        elif isinstance(v, ir.Node):
            changes[f.name] = _rename(v, old, new)
    return attrs.evolve(e, **changes)


def _rank_of(spec: ir.Spec, e: ir.Expr, p: str, g: str, unique_key, before) -> bool:
    """`c + count(q in players where K(q) < K(p))` (either order of the sum) with K different for
    every player once the cards it reads are dealt, dealt before, and K reading nothing of G."""
    match e:
        case ir.BinOp(op="+", left=ir.Int(), right=ir.Agg() as agg) | ir.BinOp(op="+", left=ir.Agg() as agg, right=ir.Int()):
            pass
        case _:
            return False
    match agg:
        case ir.Agg(func="count", var=q, coll=ir.AllPlayers(), where=ir.BinOp(op="<", left=kq, right=kp), value=None) \
                if q != p:
            pass
        case _:
            return False
    if _rename(kq, q, p) != kp or any(isinstance(n, ir.Local) and n.name == p for n in ir.walk(kq)):
        return False
    if may_read(spec, [kq], g) or unique_key(kq, q) is None:
        return False
    zone = _dealt_zone(spec, kq, q)
    # dealt to every player by an earlier statement of the setup itself (not under a condition)
    return zone is not None and any(
        isinstance(s, ir.For) and isinstance(s.coll, ir.AllPlayers) and s.where is None and
        any(isinstance(d, ir.Draw) and d.dest == ir.Attr(ir.Local(s.var), zone) and isinstance(d.count, ir.Int)
            and d.count.value >= 1 for d in s.body.stmts)
        for s in before)


def _dealt_zone(spec: ir.Spec, k: ir.Expr, var: str) -> str | None:
    """Z of a key `first(var.Z).field` (possibly through a def of var)."""
    defs = {d.name: d for d in spec.defs}
    if isinstance(k, ir.Call) and k.func in defs and k.args == (ir.Local(var),) and len(defs[k.func].params) == 1:
        return _dealt_zone(spec, defs[k.func].body, defs[k.func].params[0])
    match k:
        case ir.Attr(obj=ir.Call(func="first" | "last", args=(ir.Attr(obj=ir.Local(name=v), name=zone),))) if v == var:
            return zone
    return None


def _copy_of(spec: ir.Spec, loop, w, g: str, cap_proved) -> str | None:
    """F when `w` is `set p.G = p.F` in a loop over every player run with every player flagged,
    F a free pick whose flag and F the loop's body writes only of p, after the copy."""
    p = loop.var
    match w.value:
        case ir.Attr(obj=ir.Local(name=v), name=f) if v == p:
            pass
        case _:
            return None
    flag = pick_flag(spec, f)
    if flag is None:
        return None
    i = _index(loop.body.stmts, w)
    if _touches(spec, loop.body.stmts[:i], {f, flag}):
        return None
    for st in loop.body.stmts[i + 1:]:
        t = _target(st)
        if t is not None and t[1] in (f, flag):
            if t[0] != p:
                return None
        elif _touches(spec, [st], {f, flag}):
            return None
    return f if _flagged_before(spec, loop, flag, f, cap_proved) else None
