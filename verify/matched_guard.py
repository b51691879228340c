"""A branch, run once per card of a loop, under a test that the card's printed field equals a value
the same for the whole run: `for c in L { do heat(p, c, fire(p)) }` with `if f == c.rank { award
... }` in the procedure.  In one run of the loop the value is one number, so the branch runs only
for the cards of L printed with it: at most as many as the cards of L that share one printed value
(five cards of each rank: at most five a run, not every card of L).

The value is an argument of the call (or the test reads it directly in the loop's body); it is the
same at every card when it reads nothing the run changes: not the loop's card, no local the body
binds anew, no field the run sets, no token it gives or takes, no zone when the run moves, draws,
exchanges or shuffles cards, no face when it flips, no die when it rolls, no score.  The call must
be the only way the run reaches the procedure (one call, no loop around it in the body), and the
branch must lie in the procedure with no loop or call on the way.

Bounds (verify/bounds.py) calls `enter` as it reads a loop over a list of distinct cards, `leave`
after it, and `cap` for the firings of each branch it reads."""

from __future__ import annotations

from soan.dsl import ir
from soan.dsl.analysis import conjuncts

from .card_sums import _outside_loops
from .matched_sums import INLINE_DEPTH, _expand, _mentions
from .pairs import _UNKNOWN, _printed

# Functions an invariant value may call (a def is expanded first): they read only their arguments.
_PURE = {"sum", "count", "min", "max", "abs", "first", "last", "size", "distinct", "reverse", "take"}
# Statements a run may hold: anything else (a roll, a look, a win) is read as changing everything.
_KNOWN = (ir.Award, ir.Give, ir.Return, ir.Set, ir.Let, ir.If, ir.Choose, ir.Do, ir.Say, ir.Flip, ir.Move,
          ir.Draw, ir.Exchange, ir.Shuffle, ir.Phase, ir.Check, ir.Pick)


def enter(bounds, loop: ir.For, mult: int | None, size: int | None) -> list[int]:
    """Note the branches of `loop`'s run that fire at most for the cards sharing one printed value,
    with their cap (mult x those cards); returns their keys, for `leave`."""
    if mult is None or not size:
        return []
    caps = bounds.__dict__.setdefault("_guard_caps", {})
    found = []
    zc = bounds._zone_cards(ir.ListComp(loop.var, loop.coll, loop.where, None))
    if zc is None or not zc[1]:
        return []
    procs = {p.name: p for p in bounds.spec.procedures}
    closure = _closure(loop.body, procs)
    if closure is None:
        return []
    changed = _changes(closure)
    if changed is None:
        return []
    for branch in ir.walk(loop.body):  # a test in the loop's own body
        if isinstance(branch, ir.If) and _outside_loops(loop.body, branch):
            hit = _fixed_match(bounds, branch.branches[0][0], {loop.var}, None, loop, changed, None)
            alike = None if hit is None else _alike(bounds.t, zc[1], hit)
            if alike is not None and id(branch) not in caps:
                caps[id(branch)] = mult * min(size, alike)
                found.append(id(branch))
    for node in ir.walk(loop.body):
        if not isinstance(node, ir.Do) or node.proc not in procs or not _outside_loops(loop.body, node):
            continue
        if sum(1 for n in closure if isinstance(n, ir.Do) and n.proc == node.proc) != 1:
            continue  # reached another way too
        proc = procs[node.proc]
        if node.proc in _called(proc.body, procs):
            continue  # recursive
        table = dict(zip(proc.params, node.args))
        card_params = {name for name, a in table.items() if a == ir.Local(loop.var)}
        for branch in ir.walk(proc.body):
            if not isinstance(branch, ir.If) or not _outside_calls(proc.body, branch):
                continue
            test = branch.branches[0][0]
            hit = _fixed_match(bounds, test, card_params, table, loop, changed, proc)
            if hit is None:
                continue
            alike = _alike(bounds.t, zc[1], hit)
            if alike is None:
                continue
            key = id(branch)
            if key in caps:
                continue
            caps[key] = mult * min(size, alike)
            found.append(key)
    return found


def leave(bounds, keys: list[int]) -> None:
    caps = bounds.__dict__.get("_guard_caps", {})
    for k in keys:
        caps.pop(k, None)


def cap(bounds, node: ir.If, test, mult: int | None) -> int | None:
    """The firings of the first branch of `node` (whose test is `test`), given `mult`."""
    caps = bounds.__dict__.get("_guard_caps")
    if not caps or id(node) not in caps or node.branches[0][0] is not test:
        return mult
    return caps[id(node)] if mult is None else min(mult, caps[id(node)])


def _fixed_match(bounds, test, card_params: set, table: dict, loop: ir.For, changed, proc) -> str | None:
    """The printed field f when a conjunct of `test` is `card.f == v` with v the same all run (`table`:
    the procedure's parameters -> the call's arguments; None: the test lies in the loop's body)."""
    from .bounds import _rebound

    rebound = (_rebound(proc.body) if proc is not None else set()) | _rebound(loop.body)
    for x in conjuncts(test):
        if not (isinstance(x, ir.BinOp) and x.op == "=="):
            continue
        for a, b in ((x.left, x.right), (x.right, x.left)):
            if not (isinstance(a, ir.Attr) and isinstance(a.obj, ir.Local) and a.obj.name in card_params):
                continue
            if a.obj.name in rebound:
                continue
            # the value as the caller gives it: parameters replaced by the call's arguments
            if table is not None and any(isinstance(n, ir.Local) and n.name not in table for n in ir.walk(b)):
                continue  # reads the procedure's own locals
            if any(isinstance(n, ir.Local) and n.name in rebound for n in ir.walk(b)):
                continue
            value = _expand(bounds, b if table is None else _sub(b, table), INLINE_DEPTH)
            if value is None or _mentions(value, loop.var) or not _invariant(bounds, value, changed, loop):
                continue
            return a.name
    return None


def _sub(n, table):
    if isinstance(n, ir.Local) and n.name in table:
        return table[n.name]
    return ir.map_children(n, lambda x: _sub(x, table))


def _invariant(bounds, e, changed: dict, loop: ir.For) -> bool:
    """Whether `e` (in the caller's terms) reads nothing a run of the loop changes."""
    from .bounds import _rebound

    zones = bounds.flow.zone_names
    rebound = _rebound(loop.body)
    for n in ir.walk(e):
        match n:
            case ir.Local(name=name) if name in rebound:
                return False
            case ir.SharedZone():
                if changed["cards"]:
                    return False
            case ir.Attr(name=name):
                if name in zones and changed["cards"]:
                    return False
                if name in changed["names"]:
                    return False
            case ir.Call(func=func) if func not in _PURE:
                return False
            case ir.Builtin(name=name) if name not in ("round", "player_count"):
                return False
            case ir.GlobalVar():
                return False
    return True


def _changes(closure: list) -> dict | None:
    """What a run can change: whether cards move, and the names (fields, tokens) it sets."""
    out = {"cards": False, "names": set()}
    for n in closure:
        if not isinstance(n, ir.Stmt):
            continue
        if not isinstance(n, _KNOWN):
            return None
        match n:
            case ir.Move() | ir.Draw() | ir.Exchange() | ir.Shuffle():
                out["cards"] = True
                out["names"] |= {"facedown", "faceup"}  # a move may lay a card face down
            case ir.Set(target=ir.Attr(name=name)):
                out["names"].add(name)
            case ir.Give(token=tok) | ir.Return(token=tok):
                out["names"].add(tok)
            case ir.Flip():
                out["names"].add("facedown")
                out["names"].add("faceup")
    return out


def _closure(body: ir.Block, procs: dict) -> list | None:
    """Every node the body can run, the procedures it calls read through (None: too deep)."""
    out, todo, seen = [], [body], set()
    while todo:
        b = todo.pop()
        for n in ir.walk(b):
            out.append(n)
            if isinstance(n, ir.Do) and n.proc in procs and n.proc not in seen:
                seen.add(n.proc)
                todo.append(procs[n.proc].body)
        if len(seen) > 64:
            return None
    return out


def _called(body: ir.Block, procs: dict) -> set[str]:
    closure = _closure(body, procs) or []
    return {n.proc for n in closure if isinstance(n, ir.Do)}


def _outside_calls(node, target) -> bool:
    """Whether `target` lies in `node` with no loop on the way (calls are not followed)."""
    return _outside_loops(node, target)


def _alike(t, cards, field: str) -> int | None:
    """The most cards among `cards` printed with one value of `field` (None: not printed)."""
    count: dict = {}
    for c in cards:
        v = _printed(t, c, field)
        if v is _UNKNOWN:
            return None
        count[v] = count.get(v, 0) + 1
    return max(count.values(), default=0)
