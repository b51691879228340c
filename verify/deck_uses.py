"""Draws counted per resolution of a laid card: a pile is never short when what the
rules can take out of it, counted card by card, fits in what the setup leaves it.

Firing counts multiply down the program, so an effect that a card's resolution
can run looks as if it ran every round for every player.  Three things the
rules often guarantee cut that down (each checked here on the rules, none
assumed):

- **A laid card resolves once.**  A procedure R is called only as `do R(...,
  p.f)` from a loop over the players that is a step of the round (only `if`s in
  between, one of them testing `p.f.kind == K`, so never with `none`); the
  player field `f` is set back to `none` for every player by an earlier step of
  each round, and otherwise only ever set to the card a choice of one card from
  a player's zone Z picks, in a body that also moves that card to a zone from
  which no rule brings a card back into any Z.  So each card is laid at most
  once in a game and read by each call site at most in the round it was laid:
  R runs at most once per call site for each card that can lie in Z.
- **An effect at most once per resolution.**  `for ... { choose e from [x in L
  where not done has x ...] { set done = done + [e] ... } }`: a value, once
  chosen, is in `done` for the rest of the loop, so the loop runs the body at
  most once for each value L can hold (read for the card being resolved: a
  def of the card's fixed field gives the values of that card's kind).
- **An exchange nets to zero.**  `draw k from P to D` followed by `repeat N {
  choose c from [c in D where W] { move c to P } }`, where N is at least k
  whenever the draw finds k cards (`let n = min(k, count(P))` just before) and
  every card that can lie in P passes W: the k cards drawn are there to put
  back, so the pile ends the exchange as it began; it only needs k cards while
  the exchange runs.

A game where the pile first ran short would have run every exchange before
that moment in full, so reading each exchange as netting to zero is sound
(the induction is on the first short draw).  The most the pile can lose for
good is then the sum, over the cards that can be resolved, of what one
resolution takes out and does not put back, plus what the rest of the rounds
takes; the pile never goes below what the setup leaves it (verify/setup_counts.py)
less that sum less the most one resolution holds out while it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from soan.dsl import ir
from soan.dsl.analysis import conjuncts

from .flow import opening_steps, pauses
from .setup_counts import SetupCounts

if TYPE_CHECKING:
    from .bounds import Bounds
    from .properties import Verifier

TOP = None  # a value not known
_MAX_SET = 64  # a set of values larger than this is read as not known


@attrs.frozen
class _Card:
    cid: int


@attrs.frozen
class _List:
    elems: frozenset | None  # the values its items can be (None: not known)


@attrs.frozen
class Resolution:
    """A procedure run once per laid card (see the module's docstring)."""

    proc: str
    param: str  # the parameter the laid card is passed in
    calls: int  # call sites: each reads a card in at most one round
    zones: frozenset  # the players' zones the laid card is chosen from
    kinds: frozenset  # the kinds the calls' tests let through
    tree: frozenset  # R and every procedure it runs (called from nowhere else)


def fits_per_resolution(v: Verifier, name: str, outside) -> str | None:
    """Why no draw from the shared zone `name` can find it short, or None: what
    the setup leaves it (the setup's own draws fitting) covers what the rules
    can take out for good, counted per resolution of a laid card, plus the most
    one resolution holds out at once.  `outside(b, among)` is the most the
    statements at the sites `among` take out of the pile (None: not bounded)."""
    res = resolutions(v.spec, v.b)
    if not res:
        return None
    trees = set().union(*(r.tree for r in res))
    tree_sites = {n.span.site for p in v.spec.procedures if p.name in trees for n in ir.walk(p.body)
                  if isinstance(n, ir.Stmt)}
    later = {n.span.site for x in (v.spec.rounds, v.spec.scoring) if x is not None for n in _walk_with_procs(v.spec, x)
             if isinstance(n, ir.Stmt)} - tree_sites
    worst_total, parts, leasts = 0, [], []
    for b, (label, loc) in zip(v.bs, v.branches):
        least = least_after_setup(v, name, b, label, loc)
        if least is None:
            return None
        leasts.append(least)
        rest = outside(b, later)
        if rest is None:
            return None
        ev = _Eval(b.t)
        pile = _PileReach(b, loc, ev)
        kept, held = 0, 0
        for r in res:
            groups: dict[tuple, list[int]] = {}
            for z in r.zones:
                for cid in b.flow.cards_in(z):
                    if b.t.kind[cid] in r.kinds:
                        groups.setdefault((b.t.kind[cid], tuple(sorted(b.t.fields[cid].items()))), []).append(cid)
            for cids in groups.values():
                eff = _Walker(b, ev, name, pile).resolution(r, cids[0])
                if eff is None:
                    return None
                final, peak = eff
                kept += r.calls * len(set(cids)) * max(final, 0)
                held = max(held, peak - max(final, 0))
        total = rest + kept + held
        worst_total = max(worst_total, total)
        parts.append((rest, kept, held))
        if total > least:
            return None
    rest, kept, held = max(parts, key=sum)
    names = ", ".join(sorted(r.proc for r in res))
    least = min(leasts)
    return (f"the setup leaves {name} at least {least} cards; each laid card is resolved once ({names}), each "
            f"effect at most once per resolution, and an exchange puts back what it draws: the resolutions keep "
            f"at most {kept} cards for good, the rest of the rules take at most {rest}, and one resolution holds "
            f"out at most {held} more while it runs ({worst_total} in all)")


# ---- what the setup leaves the pile


def least_after_setup(v: Verifier, name: str, b: Bounds, label: str, loc: list[int]) -> int | None:
    """The fewest cards the pile holds when the setup is done, its own draws fitting
    (verify/setup_counts.py): read from the start, or else from this outcome of the setup's
    opening picks (a suit removed at 3 players, which a count cannot follow)."""
    if not hasattr(v, "_setup_counts"):
        v._setup_counts = SetupCounts(v.b)
    sc = v._setup_counts
    if sc.least_after(name) is not None and sc.draws_fit(name):
        return sc.least_after(name)
    steps = _after_opening(v, b, label, loc)
    if steps is None:
        return None
    sc = SetupCounts(b, loc, steps)
    return sc.least_after(name) if sc.draws_fit(name) else None


def _after_opening(v: Verifier, b: Bounds, label: str, loc: list[int]) -> list | None:
    """The setup's steps still to run from `loc`, the placement its opening picks left (see
    flow.setup_branches, which runs the setup up to its first decision, roll or shuffle): the
    steps from the first that can pause, when none of those before it can stop the run short of
    their end (picks all enumerated) and no card can move between that step and a shuffle that
    surely pauses (one of a zone holding two cards or more).  None when that is not so."""
    if not label:
        return None  # no pick was enumerated: the placement is where the spec deals the cards
    steps = list(opening_steps(v.spec.setup))
    k = next((i for i, st in enumerate(steps) if pauses(st)), len(steps))
    outcomes = 1
    for st in steps[:k]:
        for n in ir.walk(st):
            if isinstance(n, ir.Pick):
                many = _enum_size(v.spec, n.source, b)
                if many is None:
                    return None
                outcomes *= many
    if outcomes > 64:  # setup_branches stops enumerating past 64 outcomes
        return None
    held: dict[str, int] = {}
    for slot in loc:
        z, owner = b.t.zone_slots[slot]
        if owner is None:
            held[z.name] = held.get(z.name, 0) + 1
    for st in steps[k:]:
        if isinstance(st, ir.Shuffle) and isinstance(st.zone, ir.SharedZone) and held.get(st.zone.name, 0) > 1:
            return steps[k:]
        if _moves_cards(st) or any(isinstance(n, ir.Pick) for n in ir.walk(st)):
            return None
    return steps[k:]  # nothing after the opening moves a card: the placement is the end


def _enum_size(spec: ir.Spec, e, b: Bounds) -> int | None:
    match e:
        case ir.Name(name=name) | ir.Local(name=name) if any(x.name == name for x in spec.enums):
            return len(next(x for x in spec.enums if x.name == name).values)
        case ir.AllPlayers():
            return b.n
    size = b.size(e) if not _reads_locals(e) else None
    return size


# ---- a laid card resolves once


def resolutions(spec: ir.Spec, b: Bounds) -> list[Resolution]:
    """Every procedure run only on a card laid that round (see the module's docstring)."""
    if spec.rounds is None:
        return []
    player_fields = {x.name for x in spec.vars if x.per_player}
    per_player_zones = {z.name for z in spec.zones if z.per_player}
    steps = list(_steps(spec.rounds.body))
    calls: dict[str, list] = {}
    for root in [x for x in (spec.setup, spec.rounds, spec.scoring) if x is not None] + [p.body for p in spec.procedures]:
        for n in ir.walk(root):
            if isinstance(n, ir.Do):
                calls.setdefault(n.proc, []).append(n)
    callers = _callers(spec)
    out = []
    for proc in spec.procedures:
        sites = calls.get(proc.name, [])
        if not sites:
            continue
        found = [_laid_call(st, k, proc, player_fields) for k, st in enumerate(steps)]
        if any(group is None for group in found):
            continue
        # every call of the procedure must be one of the call sites read from the round's steps
        read = [x for group in found for x in group]
        if len(read) != len(sites) or any(not any(x[0] is s for x in read) for s in sites):
            continue
        params = {(x[1], x[2]) for x in read}
        if len(params) != 1:
            continue
        (param, field), = params
        first_call = min(x[3] for x in read)
        if not any(_resets(steps[k], field) for k in range(first_call)):
            continue
        zones = _fresh_sets(spec, field, per_player_zones, b)
        if zones is None:
            continue
        kinds = frozenset.intersection(*(x[4] for x in read))
        tree = _tree(spec, proc.name)
        if tree is None or any(not callers.get(p, set()) <= tree for p in tree - {proc.name}):
            continue
        out.append(Resolution(proc.name, param, len(read), frozenset(zones), kinds, frozenset(tree)))
    return out


def _steps(block):
    """The round's top-level steps in order, phases opened up."""
    for st in block.stmts:
        if isinstance(st, ir.Phase):
            yield from _steps(st.body)
        else:
            yield st


def _laid_call(step, k: int, proc: ir.Procedure, player_fields: set) -> list | None:
    """The calls of `proc` in this step of the round, each as (the Do, the parameter, the field,
    k, the kinds its tests allow), when the step is `for p in players ...` and only `if`s lie
    between it and each call; a call found any other way gives None for the whole step."""
    if not isinstance(step, ir.For) or not isinstance(step.coll, ir.AllPlayers | ir.PlayersFrom):
        return [] if not any(isinstance(n, ir.Do) and n.proc == proc.name for n in ir.walk(step)) else None
    var = step.var
    out: list = []

    def visit(stmts, tests, clean: bool) -> bool:
        """`clean`: nothing run since the tests were read can have changed a player's field."""
        for st in stmts:
            if isinstance(st, ir.Do) and st.proc == proc.name:
                got = _card_arg(st, proc, var, tests if clean else [], player_fields)
                if got is None:
                    return False
                out.append((st, *got[:2], k, got[2]))
            elif isinstance(st, ir.If):
                for test, blk in st.branches:
                    if not visit(blk.stmts, (tests if clean else []) + [test], True):
                        return False
                if st.orelse is not None and not visit(st.orelse.stmts, tests, clean):
                    return False
            elif any(isinstance(n, ir.Do) and n.proc == proc.name for n in ir.walk(st)):
                return False  # inside a loop or a choice: it could run more than once a round
            if any(isinstance(n, ir.Do | ir.Choose | ir.Pick) or isinstance(n, ir.Set) and isinstance(n.target, ir.Attr)
                   for n in ir.walk(st)):
                clean = False
        return True

    return out if visit(step.body.stmts, [], False) else None


def _card_arg(call: ir.Do, proc: ir.Procedure, var: str, tests: list, player_fields: set):
    """(the parameter, the field, the kinds) when the call passes `var.f` and a test around it
    says `var.f.kind == K` (so it never runs with `none`)."""
    for name, a in zip(proc.params, call.args):
        if isinstance(a, ir.Attr) and a.obj == ir.Local(var) and a.name in player_fields:
            kinds = None
            for t in tests:
                for c in conjuncts(t):
                    match c:
                        case ir.BinOp(op="==", left=ir.Attr(obj=obj, name="kind"), right=ir.Symbol(name=kind)) \
                                if obj == a:
                            kinds = {kind} if kinds is None else kinds & {kind}
            if kinds is not None:
                return name, a.name, frozenset(kinds)
    return None


def _resets(step, field: str) -> bool:
    """`for q in players { set q.field = none ... }`: every player's field is none after this step."""
    return (isinstance(step, ir.For) and isinstance(step.coll, ir.AllPlayers) and step.where is None
            and any(isinstance(st, ir.Set) and st.op == "=" and st.target == ir.Attr(ir.Local(step.var), field)
                    and isinstance(st.value, ir.NoneLit) for st in step.body.stmts))


def _fresh_sets(spec: ir.Spec, field: str, per_player_zones: set, b: Bounds) -> set | None:
    """The players' zones the field's cards are chosen from, when every `set X.field = V` is
    `= none` or the only set of it in the body of a choice of one card `c` from a player's zone Z
    (or a filter of one) that moves `c` (no break) to a zone from which no rule brings a card back
    into any such Z; None otherwise."""
    zones: set[str] = set()
    sends: list = []
    fresh: list = []
    for root, scope in _roots(spec):
        for ch in ir.walk(root):
            if not isinstance(ch, ir.Choose) or ch.body is None:
                continue
            sets = [st for st in ch.body.stmts if isinstance(st, ir.Set) and isinstance(st.target, ir.Attr)
                    and st.target.name == field]
            if not sets:
                continue
            src = ch.source.coll if isinstance(ch.source, ir.ListComp) and ch.source.value is None else ch.source
            moves = [st for st in ch.body.stmts if isinstance(st, ir.Move) and st.what == ir.Local(ch.var)]
            if (len(sets) != 1 or sets[0].op != "=" or sets[0].value != ir.Local(ch.var) or ch.count_kind is not None
                    or not (isinstance(src, ir.Attr) and src.name in per_player_zones) or not moves
                    or any(isinstance(n, ir.Break) for n in ir.walk(ch.body))
                    or any(isinstance(n, ir.Stmt) and ch.var in _bound(n) for n in ir.walk(ch.body))):
                return None
            zones.add(src.name)
            sends.append(b.flow.zones_of(moves[0].dest, scope))
            fresh.append(sets[0])
    for root, _ in _roots(spec):
        for n in ir.walk(root):
            if isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name == field \
                    and not (n.op == "=" and isinstance(n.value, ir.NoneLit)) and not any(n is x for x in fresh):
                return None  # set to something other than none or a card just picked
    return _never_back(zones, sends, b) if zones else None


def _never_back(zones: set, sends: list, b: Bounds) -> set | None:
    """`zones` when no card moved to any of `sends` can, move by move, come back into them."""
    moves = [m for root, scope in _roots(b.spec) for m in spec_moves(b, root, scope)]
    reach: set[str] = set()
    for s in sends:
        if s is None:
            return None
        reach |= s
    changed = True
    while changed:
        changed = False
        for src, dest, _ in moves:
            if src is None or src & reach:
                if dest is None:
                    return None
                if not dest <= reach:
                    reach |= dest
                    changed = True
    return None if reach & zones else zones


def _tree(spec: ir.Spec, proc: str) -> set | None:
    """The procedure and every procedure it runs; None when one of them calls back into it."""
    procs = {p.name: p for p in spec.procedures}
    out, todo = set(), [proc]
    while todo:
        name = todo.pop()
        for n in ir.walk(procs[name].body):
            if isinstance(n, ir.Do):
                if n.proc == proc:
                    return None
                if n.proc not in out:
                    out.add(n.proc)
                    todo.append(n.proc)
    return out | {proc}


def _callers(spec: ir.Spec) -> dict[str, set]:
    """Procedure -> the procedures that call it ('' for the setup, rounds and scoring)."""
    out: dict[str, set] = {}
    for root, scope in _roots(spec):
        for n in ir.walk(root):
            if isinstance(n, ir.Do):
                out.setdefault(n.proc, set()).add(scope[5:] if scope.startswith("proc:") else "")
    return out


def _roots(spec: ir.Spec):
    for x, scope in ((spec.setup, "main"), (spec.rounds, "rounds"), (spec.scoring, "main")):
        if x is not None:
            yield x, scope
    for p in spec.procedures:
        yield p.body, "proc:" + p.name


def _walk_with_procs(spec: ir.Spec, root):
    procs = {p.name: p for p in spec.procedures}
    todo, seen = [root], set()
    while todo:
        for n in ir.walk(todo.pop()):
            yield n
            if isinstance(n, ir.Do) and n.proc not in seen:
                seen.add(n.proc)
                todo.append(procs[n.proc].body)


def _bound(s: ir.Stmt) -> set[str]:
    match s:
        case ir.Let(name=name) | ir.Set(target=ir.Local(name=name)) | ir.For(var=name) | ir.Pick(var=name):
            return {name}
        case ir.Choose(var=name) if name is not None:
            return {name}
    return set()


# ---- values, read for one card


class _Eval:
    """The values an expression can take, as a set of constants (a card's fixed fields, rulings,
    enum values, numbers); TOP where not known.  A list is a _List of what its items can be."""

    def __init__(self, t):
        self.t = t
        self.defs = {d.name: d for d in t.spec.defs}
        self._stack: list[str] = []

    def val(self, e, env: dict):
        try:
            out = self._val(e, env)
        except (TypeError, ZeroDivisionError):
            return TOP
        if isinstance(out, frozenset) and len(out) > _MAX_SET:
            return TOP
        return out

    def _val(self, e, env: dict):
        match e:
            case ir.Int(value=x) | ir.Bool(value=x):
                return frozenset({x})
            case ir.Symbol(name=x):
                return frozenset({x})
            case ir.NoneLit():
                return frozenset({None})
            case ir.Param(name=name):
                return frozenset({self.t.params[name]}) if name in self.t.params else TOP
            case ir.Local(name=name):
                return env.get(name, TOP)
            case ir.Attr(obj=obj, name=name):
                o = self.val(obj, env)
                if not isinstance(o, frozenset) or not o or not all(isinstance(c, _Card) for c in o):
                    return TOP
                out = set()
                for c in o:
                    k = self.t.kind[c.cid]
                    if name == "kind":
                        out.add(k)
                    elif name in self.t.fields[c.cid] and name not in self.t.kind_states[k]:
                        out.add(self.t.fields[c.cid][name])
                    else:
                        return TOP
                return frozenset(out)
            case ir.ListLit(items=items):
                elems: set = set()
                for i in items:
                    x = self.val(i, env)
                    if not isinstance(x, frozenset):
                        return _List(None)
                    elems |= x
                return _List(frozenset(elems))
            case ir.ListComp(var=var, coll=coll, where=where, value=None):
                c = self.val(coll, env)
                if not isinstance(c, _List) or c.elems is None:
                    return _List(None)
                return _List(frozenset(x for x in c.elems if self.may_hold(where, {**env, var: frozenset({x})})))
            case ir.Cond(test=test, then=then, orelse=orelse):
                t = self.val(test, env)
                if t == frozenset({True}):
                    return self.val(then, env)
                if t == frozenset({False}):
                    return self.val(orelse, env)
                return _join(self.val(then, env), self.val(orelse, env))
            case ir.Not(operand=x):
                x = self.val(x, env)
                return frozenset(not y for y in x) if _bools(x) else TOP
            case ir.BinOp(op="and" | "or", left=left, right=right):
                a, bb = self.val(left, env), self.val(right, env)
                a = a if _bools(a) else frozenset({True, False})
                if e.op == "and" and a == frozenset({False}):
                    return a
                if e.op == "or" and a == frozenset({True}):
                    return a
                bb = bb if _bools(bb) else frozenset({True, False})
                return frozenset((x and y) if e.op == "and" else (x or y) for x in a for y in bb)
            case ir.BinOp(op=op, left=left, right=right) if op in _OPS:
                a, bb = self.val(left, env), self.val(right, env)
                if not isinstance(a, frozenset) or not isinstance(bb, frozenset) or len(a) * len(bb) > _MAX_SET:
                    return TOP
                if op in ("==", "!="):
                    # a card is not followed by identity; a truth value is never a number (Python says True == 1)
                    if any(isinstance(x, _Card) for x in a | bb) or \
                            any(type(x) is bool for x in a | bb) and not all(type(x) is bool for x in a | bb):
                        return TOP
                    return frozenset((x == y) == (op == "==") for x in a for y in bb)
                if not all(type(x) is int for x in a | bb):
                    return TOP
                return frozenset(_OPS[op](x, y) for x in a for y in bb)
            case ir.Call(func="min" | "max", args=args) if args:
                vals = [self.val(a, env) for a in args]
                if not all(isinstance(x, frozenset) and x and all(type(y) is int for y in x) for x in vals):
                    return TOP
                f = min if e.func == "min" else max
                lo, hi = f(min(x) for x in vals), f(max(x) for x in vals)
                return frozenset(range(lo, hi + 1)) if hi - lo < _MAX_SET else TOP
            case ir.Call(func=func, args=args) if func in self.defs and func not in self._stack:
                d = self.defs[func]
                inner = {name: self.val(a, env) for name, a in zip(d.params, args)}
                self._stack.append(func)
                try:
                    return self.val(d.body, inner)
                finally:
                    self._stack.pop()
        return TOP

    def may_hold(self, cond, env: dict) -> bool:
        """False only when the condition is surely false."""
        if cond is None:
            return True
        return self.val(cond, env) != frozenset({False})

    def ints(self, e, env: dict) -> frozenset | None:
        x = self.val(e, env)
        return x if isinstance(x, frozenset) and x and all(type(y) is int for y in x) else None


_OPS = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
        "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
        "//": lambda x, y: x // y, "%": lambda x, y: x % y, "==": None, "!=": None}


def _bools(x) -> bool:
    return isinstance(x, frozenset) and bool(x) and all(type(y) is bool for y in x)


def _join(a, b):
    if isinstance(a, frozenset) and isinstance(b, frozenset):
        return a | b
    if isinstance(a, _List) and isinstance(b, _List):
        return _List(None if a.elems is None or b.elems is None else a.elems | b.elems)
    return TOP


# ---- which cards can lie in the pile


def spec_moves(b: Bounds, root, scope: str, calling: set | None = None, shallow: bool = False,
               sources: dict | None = None) -> list:
    """(source zones, destination zones, card filter) of every move, draw and exchange under `root`,
    through the procedures it calls.  A card a choice (or pick) just picked, with no card moved
    since, lies where it was picked from; a move of it takes from there.  A move of a card picked
    from a filter (`[c in p.hand where W]`) carries the filter: only cards W lets through move.
    `sources` (when given) gets each statement's site -> the zones it takes from (None: any)."""
    flow = b.flow
    procs = {p.name: p for p in b.spec.procedures}
    sim_procs = _simultaneous_procs(b.spec)
    out: list = []
    calling = set() if calling is None else set(calling)

    def source(what, fresh):
        if isinstance(what, ir.Local) and what.name in fresh:
            return fresh[what.name]
        return None

    def visit(n, filters: dict, fresh: dict, scope: str, sim: bool = False) -> None:
        if isinstance(n, ir.Exchange):
            za = source(n.a, fresh) or flow.zones_of(n.a, scope)
            zb = source(n.b, fresh) or flow.zones_of(n.b, scope)
            out.extend([(za, zb, None), (zb, za, None)])
            _note(sources, n, None if za is None or zb is None else za | zb)
        elif isinstance(n, ir.Move | ir.Draw):
            what = n.what if isinstance(n, ir.Move) else n.source
            src = source(what, fresh) or flow.taken_from.get(n.span.site)
            keep = None
            if isinstance(n, ir.Move):
                if isinstance(what, ir.Local) and what.name in filters:
                    keep = (what.name, filters[what.name])
                elif isinstance(what, ir.ListComp) and what.value is None and what.where is not None:
                    keep = (what.var, [what.where])
            out.append((src, flow.zones_of(n.dest, scope), keep))
            _note(sources, n, src)
        if shallow:
            return
        if isinstance(n, ir.Do):
            if n.proc not in calling:
                calling.add(n.proc)
                visit(procs[n.proc].body, {}, {}, "proc:" + n.proc, n.proc in sim_procs)
            return
        if isinstance(n, ir.Block):
            for st in n.stmts:
                visit(st, filters, fresh, scope, sim)
                if _moves_cards(st):
                    fresh = {}
                rebound = set().union(*(_bound(x) for x in ir.walk(st) if isinstance(x, ir.Stmt)))
                if rebound & (set(filters) | set(fresh)):  # the local may name another card from here on
                    filters = {k: f for k, f in filters.items() if k not in rebound}
                    fresh = {k: z for k, z in fresh.items() if k not in rebound}
            return
        inner_f, inner_fresh = filters, fresh
        if isinstance(n, ir.Choose | ir.Pick | ir.For) and n.var is not None:
            src = n.coll if isinstance(n, ir.For) else n.source
            where = [w for w in (getattr(n, "where", None),) if w is not None]
            if isinstance(src, ir.ListComp) and src.value is None and src.where is not None:
                where.append(_renamed(src.where, src.var, n.var))
            one = isinstance(n, ir.For | ir.Pick) or n.count_kind is None
            inner_f = {**filters, n.var: where} if where and one else {k: f for k, f in filters.items() if k != n.var}
            inner_fresh = {k: z for k, z in fresh.items() if k != n.var}
            # in a simultaneous loop the others' bodies may run between a choice and its own body
            if isinstance(n, ir.Choose | ir.Pick) and one and not sim:
                z = flow.zones_of(src, scope)
                if z is not None:
                    inner_fresh[n.var] = z
        if isinstance(n, ir.For | ir.While | ir.Repeat):
            inner_fresh = {}  # a later pass runs after this one's moves
        inner_sim = sim or isinstance(n, ir.For) and n.simultaneous
        for child in ir.children(n):
            if isinstance(child, ir.Block):
                visit(child, inner_f, inner_fresh, scope, inner_sim)
            elif isinstance(child, ir.OptionBranch):
                visit(child.body, inner_f, inner_fresh, scope, inner_sim)

    visit(root, {}, {}, scope, scope.startswith("proc:") and scope[5:] in sim_procs)
    return out


def _simultaneous_procs(spec: ir.Spec) -> set[str]:
    """The procedures run (directly or not) from the body of a simultaneous loop."""
    procs = {p.name: p for p in spec.procedures}
    todo = [n.proc for root, _ in _roots(spec) for f in ir.walk(root) if isinstance(f, ir.For) and f.simultaneous
            for n in ir.walk(f.body) if isinstance(n, ir.Do)]
    out: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in out:
            out.add(name)
            todo += [n.proc for n in ir.walk(procs[name].body) if isinstance(n, ir.Do)]
    return out


def _note(sources: dict | None, n, zones) -> None:
    if sources is None:
        return
    key = n.span.site
    if key in sources:
        old = sources[key]
        sources[key] = None if old is None or zones is None else old | zones
    else:
        sources[key] = zones


def _moves_cards(st) -> bool:
    return any(isinstance(x, ir.Move | ir.Draw | ir.Exchange | ir.Do) for x in ir.walk(st))


class _PileReach:
    """The cards that can lie in each zone once the setup is done: the setup read step by step
    in its order (a loop's moves until they settle) from the placement after its opening picks,
    then every other move as often as it likes.  A move of a card chosen from a filter (`[c in
    p.hand where W]`) moves only the cards W lets through (read on the card's kind and fixed
    fields)."""

    def __init__(self, b: Bounds, loc: list[int], ev: _Eval):
        self.b, self.ev, t = b, ev, b.t
        self.at = [{t.zone_slots[s][0].name} for s in loc]
        self.sources: dict = {}  # statement site -> the zones it takes from, read as spec_moves does
        for root, scope in _roots(b.spec):
            spec_moves(b, root, scope, sources=self.sources)
        spec = b.spec
        if spec.setup is not None:
            self._in_order(spec.setup, "main", set())
        later = []
        for root, scope in _roots(spec):
            if root is not spec.setup:
                later.extend(self._moves(root, scope))
        self._settle(later)

    def cards_in(self, zone: str) -> list[int]:
        return [c for c, zs in enumerate(self.at) if zone in zs]

    def _in_order(self, node, scope: str, calling: set) -> None:
        if isinstance(node, ir.Block):
            for st in node.stmts:
                self._in_order(st, scope, calling)
            return
        if isinstance(node, ir.For | ir.While | ir.Repeat):
            self._settle(self._moves(node, scope, calling))  # every pass, until nothing new arrives
            return
        if isinstance(node, ir.Do) and node.proc not in calling:
            p = next(x for x in self.b.spec.procedures if x.name == node.proc)
            self._in_order(p.body, "proc:" + p.name, calling | {node.proc})
            return
        if isinstance(node, ir.Do):
            self._settle(self._moves(node, scope, calling))
            return
        moves = [m for m in self._moves(node, scope, calling, shallow=True)]
        self._settle(moves)
        for child in ir.children(node):
            if isinstance(child, ir.Block):
                self._in_order(child, scope, calling)
            elif isinstance(child, ir.OptionBranch):
                self._in_order(child.body, scope, calling)

    def _moves(self, root, scope: str, calling: set | None = None, shallow: bool = False) -> list:
        """(source zones, destination zones, card filter) of every move under `root` (through the
        procedures it calls); `shallow`: of `root` itself only."""
        return spec_moves(self.b, root, scope, calling, shallow)

    def _settle(self, moves: list) -> None:
        names = self.b.flow.zone_names
        changed = True
        while changed:
            changed = False
            for src, dest, keep in moves:
                for cid, zones in enumerate(self.at):
                    if src is not None and not zones & src:
                        continue
                    if keep is not None and not all(
                            self.ev.may_hold(w, {keep[0]: frozenset({_Card(cid)})}) for w in keep[1]):
                        continue
                    new = names if dest is None else dest
                    if not new <= zones:
                        zones |= new
                        changed = True


def _renamed(e, old: str, new: str):
    """`e` with the local `old` read as `new` (a filter's own variable as the choice's)."""
    if old == new:
        return e
    if isinstance(e, ir.Local) and e.name == old:
        return ir.Local(new)
    if not isinstance(e, ir.Node):
        return e
    changes = {}
    for f in attrs.fields(type(e)):
        if f.name == "span":
            continue
        x = getattr(e, f.name)
        if isinstance(x, ir.Node):
            changes[f.name] = _renamed(x, old, new)
        elif isinstance(x, tuple):
            changes[f.name] = tuple(_renamed(i, old, new) if isinstance(i, ir.Node) else i for i in x)
    return attrs.evolve(e, **changes)


# ---- what one resolution takes out of the pile


class _Walker:
    """(final, peak): the most cards one run takes out of the pile and keeps, and the most it has
    out at any moment (peak >= final, peak >= 0); None when not bounded."""

    def __init__(self, b: Bounds, ev: _Eval, pile: str, reach: _PileReach):
        self.b, self.ev, self.pile, self.reach = b, ev, pile, reach
        self.sources = reach.sources
        self.procs = {p.name: p for p in b.spec.procedures}
        self._calling: list[str] = []

    def resolution(self, r: Resolution, cid: int):
        p = self.procs[r.proc]
        env = {name: TOP for name in p.params}
        env[r.param] = frozenset({_Card(cid)})
        return self.block(p.body.stmts, env, "proc:" + p.name)

    def block(self, stmts, env: dict, scope: str):
        final, peak = 0, 0
        k = 0
        stmts = list(stmts)
        while k < len(stmts):
            st = stmts[k]
            ex = self._exchange(stmts, k, env, scope)
            if ex is not None:
                eff, k = ex
            else:
                eff = self.stmt(st, env, scope)
                k += 1
            if eff is None:
                return None
            f, p = eff
            peak = max(peak, final + p)
            final += f
        return final, max(peak, final, 0)

    def _takes(self, n, scope: str) -> bool:
        src = self.sources.get(n.span.site, self.b.flow.taken_from.get(n.span.site))
        return src is None or self.pile in src

    def stmt(self, s, env: dict, scope: str):
        ev = self.ev
        match s:
            case ir.Let(name=name, value=value):
                env[name] = ev.val(value, env)
                return 0, 0
            case ir.Set(target=ir.Local(name=name), op=op, value=value):
                env[name] = ev.val(value, env) if op == "=" else TOP
                return 0, 0
            case ir.Draw(count=count, source=src):
                if not self._takes(s, scope):
                    return 0, 0
                k = ev.ints(count, env)
                return None if k is None else (max(0, max(k)), max(0, max(k)))
            case ir.Move(what=what):
                if not self._takes(s, scope):
                    return 0, 0
                one = isinstance(what, ir.Local) and env.get("\0one:" + what.name)
                return (1, 1) if one else None
            case ir.Exchange():
                return None if self._takes(s, scope) else (0, 0)
            case ir.If(branches=branches, orelse=orelse):
                effs, settled = [], False
                for test, blk in branches:
                    known = ev.val(test, env)
                    if known == frozenset({False}):
                        continue
                    effs.append(self.block(blk.stmts, dict(env), scope))
                    if known == frozenset({True}):
                        settled = True
                        break
                if not settled:
                    effs.append(self.block(orelse.stmts, dict(env), scope) if orelse is not None else (0, 0))
                self._forget(s, env)
                return _most(effs)
            case ir.Choose(var=None, options=options, orelse=orelse):
                effs = [(0, 0)] + [self.block(o.body.stmts, dict(env), scope) for o in options
                                   if ev.may_hold(o.when, env)]
                if orelse is not None:
                    effs.append(self.block(orelse.stmts, dict(env), scope))
                self._forget(s, env)
                return _most(effs)
            case ir.Choose(var=var, source=src, body=body, orelse=orelse):
                inner = dict(env)
                if s.count_kind is None:
                    coll = ev.val(src, env)
                    inner[var] = coll.elems if isinstance(coll, _List) and coll.elems is not None else TOP
                    inner["\0one:" + var] = True
                else:
                    inner[var] = TOP
                    inner.pop("\0one:" + var, None)
                effs = [(0, 0), self.block(body.stmts, inner, scope) if body is not None else (0, 0)]
                if orelse is not None:
                    effs.append(self.block(orelse.stmts, dict(env), scope))
                self._forget(s, env)
                return _most(effs)
            case ir.For(var=var, coll=coll, body=body):
                done = _done_list(s)
                if done is not None:
                    return self._once_each(s, done, env, scope)
                n = self._size(coll, env)
                return self._times(n, body, {**env, var: TOP}, scope, s, env)
            case ir.Repeat(count=count, body=body):
                n = ev.ints(count, env)
                return self._times(None if n is None else max(n), body, dict(env), scope, s, env)
            case ir.While(limit=limit, body=body):
                n = ev.ints(limit, env)
                return self._times(None if n is None else max(n), body, dict(env), scope, s, env)
            case ir.Pick(var=var, body=body):
                eff = self.block(body.stmts, {**env, var: TOP}, scope)
                self._forget(s, env)
                return _most([(0, 0), eff])
            case ir.Phase(body=body):
                return self.block(body.stmts, env, scope)
            case ir.Do(proc=proc, args=args):
                if proc in self._calling:
                    return None
                p = self.procs[proc]
                inner = {name: ev.val(a, env) for name, a in zip(p.params, args)}
                for name, a in zip(p.params, args):
                    if isinstance(a, ir.Local) and env.get("\0one:" + a.name):
                        inner["\0one:" + name] = True
                self._calling.append(proc)
                try:
                    return self.block(p.body.stmts, inner, "proc:" + proc)
                finally:
                    self._calling.pop()
        return 0, 0

    def _forget(self, s, env: dict) -> None:
        """Locals set inside a branch, choice or loop may hold anything after it."""
        for n in ir.walk(s):
            if n is not s and isinstance(n, ir.Stmt):
                for name in _bound(n):
                    env[name] = TOP
                    env.pop("\0one:" + name, None)

    def _size(self, coll, env: dict) -> int | None:
        if isinstance(coll, ir.RangeExpr):
            lo, hi = self.ev.ints(coll.lo, env), self.ev.ints(coll.hi, env)
            return None if lo is None or hi is None else max(0, max(hi) - min(lo) + 1)
        v = self.ev.val(coll, env)
        if isinstance(v, _List) and v.elems is not None and not any(isinstance(x, _Card) for x in v.elems):
            return None  # a list of values may name one twice: its length is not known here
        return self.b.size(coll) if not _reads_locals(coll) else None

    def _times(self, n, body, inner: dict, scope: str, s, env: dict):
        self._forget(s, inner)
        eff = self.block(body.stmts, inner, scope)
        self._forget(s, env)
        if eff is None:
            return None
        f, p = eff
        if f == 0 and p == 0:
            return 0, 0
        if n is None:
            return None
        if n == 0:
            return 0, 0
        return n * max(f, 0), (n - 1) * max(f, 0) + p

    def _once_each(self, loop: ir.For, choose: ir.Choose, env: dict, scope: str):
        """A loop whose every pass chooses a value not yet in its done list and adds it there:
        each value the list offers at most once (see the module's docstring)."""
        inner = dict(env)
        self._forget(loop, inner)
        coll = self.ev.val(choose.source.coll, inner)
        if not isinstance(coll, _List) or coll.elems is None:
            return None
        final, peak = 0, 0
        for x in sorted(coll.elems, key=repr):
            if not self.ev.may_hold(choose.source.where, {**inner, choose.source.var: frozenset({x})}):
                continue
            eff = self.block(choose.body.stmts, {**inner, choose.var: frozenset({x})}, scope)
            if eff is None:
                return None
            final += max(eff[0], 0)
            peak += eff[1]
        self._forget(loop, env)
        return final, max(peak, final)

    def _exchange(self, stmts: list, k: int, env: dict, scope: str):
        """`draw n from P to D`, then (only `let`s and `say`s between) `repeat N { choose c from [c in
        D where W] { ... move c to P ... } }` with N >= n whenever the draw finds n cards and every
        card that can lie in P passing W: ((0, n), the index after the repeat); else None."""
        d = stmts[k]
        if not (isinstance(d, ir.Draw) and isinstance(d.source, ir.SharedZone) and d.source.name == self.pile):
            return None
        n = self.ev.ints(d.count, env)
        if n is None or len(n) != 1:
            return None
        n = next(iter(n))
        j = k + 1
        while j < len(stmts) and isinstance(stmts[j], ir.Let | ir.Say):
            j += 1
        if j >= len(stmts) or not isinstance(stmts[j], ir.Repeat):
            return None
        rep = stmts[j]
        if len(rep.body.stmts) != 1 or not isinstance(rep.body.stmts[0], ir.Choose):
            return None
        ch = rep.body.stmts[0]
        src = ch.source
        coll, where = (src.coll, _renamed(src.where, src.var, ch.var)) \
            if isinstance(src, ir.ListComp) and src.value is None else (src, None)
        if ch.var is None or ch.count_kind is not None or ch.pass_if is not None or coll != d.dest or ch.body is None:
            return None
        back = [st for st in ch.body.stmts if isinstance(st, ir.Move) and st.what == ir.Local(ch.var)
                and st.dest == d.source]
        others = [x for st in ch.body.stmts if not any(st is y for y in back) for x in ir.walk(st)]
        if len(back) != 1 or any(isinstance(x, ir.Break | ir.Move | ir.Draw | ir.Exchange | ir.Do) for x in others):
            return None
        tests = [w for w in (where, ch.where) if w is not None]
        # every card that can lie in the pile passes the filter, so the cards drawn are there to put back
        if not all(self.ev.val(w, {ch.var: frozenset({_Card(c)})}) == frozenset({True})
                   for c in self.reach.cards_in(self.pile) for w in tests):
            return None
        # the repeat's count, read with each `let m = min(a, count(P))` before the draw as the draw found n
        inner = dict(env)
        i = k - 1
        while i >= 0 and isinstance(stmts[i], ir.Let | ir.Say):
            st = stmts[i]
            if isinstance(st, ir.Let):
                got = _min_with_count(st.value, self.pile, self.ev, env)
                if got is not None and got <= n:
                    inner[st.name] = frozenset({got})
            i -= 1
        for st in stmts[k + 1:j]:
            if isinstance(st, ir.Let):
                inner[st.name] = self.ev.val(st.value, inner)
        times = self.ev.ints(rep.count, inner)
        if times is None or min(times) < n:
            return None
        for st in stmts[k + 1:j]:
            if isinstance(st, ir.Let):
                env[st.name] = inner[st.name]
        return (0, n), j + 1


def _min_with_count(e, pile: str, ev: _Eval, env: dict) -> int | None:
    """`min(a, count(P))` with `a` a single number: a."""
    if not (isinstance(e, ir.Call) and e.func == "min" and len(e.args) == 2):
        return None
    for a, c in (e.args, e.args[::-1]):
        if isinstance(c, ir.Call) and c.func == "count" and c.args == (ir.SharedZone(pile),) or \
                isinstance(c, ir.Agg) and c.func == "count" and c.coll == ir.SharedZone(pile) and c.where is None:
            x = ev.ints(a, env)
            if x is not None and len(x) == 1:
                return next(iter(x))
    return None


def _done_list(loop: ir.For) -> ir.Choose | None:
    """The loop's choice when the loop is `for ... { choose e from [x in L where not done has x
    ...] { set done = done + [e] ... } }`, `done` set nowhere else in the loop."""
    if len(loop.body.stmts) != 1 or not isinstance(loop.body.stmts[0], ir.Choose):
        return None
    ch = loop.body.stmts[0]
    src = ch.source
    if ch.var is None or ch.count_kind is not None or ch.body is None or not isinstance(src, ir.ListComp) \
            or src.value is not None or src.where is None:
        return None
    done = None
    for c in conjuncts(src.where):
        match c:
            case ir.Not(operand=ir.BinOp(op="has", left=ir.Local(name=name), right=ir.Local(name=x))) \
                    if x == src.var:
                done = name
    if done is None or not ch.body.stmts:
        return None
    first = ch.body.stmts[0]
    grows = ir.BinOp("+", ir.Local(done), ir.ListLit((ir.Local(ch.var),)))
    if not (isinstance(first, ir.Set) and first.target == ir.Local(done) and
            ((first.op == "=" and first.value == grows) or
             (first.op == "+=" and first.value == ir.ListLit((ir.Local(ch.var),))))):
        return None
    for n in ir.walk(loop.body):
        if isinstance(n, ir.Stmt) and n is not first and done in _bound(n):
            return None
    return ch


def _reads_locals(e) -> bool:
    return any(isinstance(n, ir.Local) for n in ir.walk(e))


def _most(effs: list):
    if any(e is None for e in effs):
        return None
    return max(e[0] for e in effs), max(e[1] for e in effs)
