"""A group of a player's cards cut down to another group's size at scoring, and never refilled after:

    scoring { ... for p in players { do judge(p) } ... award count(sides(p)) * k to p ... }
    procedure judge(p) {
      let over = count(sides(p)) - count(mains(p))
      if over > 0 { choose out exactly over from sides(p) by p "..." { move out to discard } }
    }

with `sides(p)` and `mains(p)` the cards of the same zone of p whose field f equals two different
values (so no card is in both).  Once the loop has run, every player holds at most as many of the
first group as of the second, so the first group holds at most half the zone: the zone's most
cards // 2 (and no more than the second group can hold).

It holds at every later top-level step of the scoring when nothing after the cut can change the
two groups: no later step (nor a procedure it calls) moves, draws or exchanges cards, or sets f;
inside the procedure every move takes cards out of that player's own zone only (a list built from
it), none into the zone, and nothing after the cut moves a card or sets f.  The loop must visit
every player (all players, in any order, with no filter).

Bounds (verify/bounds.py) calls `most` for the size of a filtered list read at a site (value_at), with
the site's step."""

from __future__ import annotations

import attrs

from soan.dsl import ir

from .flow import opening_steps
from .matched_sums import INLINE_DEPTH, _expand

# Statements that can change which cards a zone holds or a card's fields.
_CHANGES = (ir.Move, ir.Draw, ir.Exchange, ir.Roll)


@attrs.frozen
class Cut:
    step: int  # the scoring step (top-level index) whose loop makes the cut
    zone: str
    field: str
    cut: str  # the value of the field of the group cut down
    kept: str  # the value of the group it is cut to


def cuts(bounds) -> list[Cut]:
    """Every cut the scoring makes, read once per Bounds."""
    found = bounds.__dict__.get("_trimmed_cuts")
    if found is None:
        found = bounds.__dict__["_trimmed_cuts"] = _find(bounds)
    return found


def most(bounds, e: ir.ListComp, stage: tuple | None) -> int | None:
    """The most cards the list `e` (a player's zone filtered by `field == value`) holds at `stage`,
    when a cut before that scoring step made that group no larger than another, or None."""
    if stage is None or stage[0] != "scoring":
        return None
    found = [c for c in cuts(bounds) if c.step < stage[1]]
    if not found:
        return None
    group = _group(e)
    if group is None:
        return None
    obj, zone, field, value = group
    out = None
    for c in found:
        if (c.zone, c.field, c.cut) == (zone, field, value):
            whole = bounds.size(ir.Attr(obj, zone))
            kept = bounds.size(ir.ListComp(e.var, e.coll, _equals(e.var, field, c.kept), None))
            caps = [x for x in (None if whole is None else whole // 2, kept) if x is not None]
            if caps:
                out = min(caps) if out is None else min(out, *caps)
    return out


def _equals(var: str, field: str, value: str) -> ir.Expr:
    return ir.BinOp("==", ir.Attr(ir.Local(var), field), ir.Symbol(value))


def _group(e) -> tuple | None:
    """(player expression, zone, field, value) when `e` is `[c in X.zone where c.field == value]`."""
    match e:
        case ir.ListComp(var=var, coll=ir.Attr(obj=obj, name=zone), value=None,
                         where=ir.BinOp(op="==", left=ir.Attr(obj=ir.Local(name=v), name=field),
                                        right=ir.Symbol(name=value))) if v == var:
            return obj, zone, field, value
    return None


def _find(bounds) -> list[Cut]:
    steps = list(opening_steps(bounds.spec.scoring))
    out = []
    for k, st in enumerate(steps):
        match st:
            case ir.For(var=var, coll=coll, where=None, body=ir.Block(stmts=(ir.Do(proc=name, args=args),))):
                pass
            case _:
                continue
        if not _every_player(bounds, coll) or name not in bounds._procs:
            continue
        proc = bounds._procs[name]
        params = [p for p, a in zip(proc.params, args) if a == ir.Local(var)]
        if len(params) != 1 or len(proc.params) != len(args):
            continue
        cut = _cut_in(bounds, proc, params[0])
        if cut is None:
            continue
        later = [n for s in steps[k + 1:] for n in _reached(bounds, s)]
        if any(_changes(n, cut.field) for n in later):
            continue
        out.append(attrs.evolve(cut, step=k))
    return out


def _every_player(bounds, coll) -> bool:
    coll = _expand(bounds, coll, INLINE_DEPTH)
    while isinstance(coll, (ir.Ranking, ir.Call)):
        if isinstance(coll, ir.Call) and coll.func != "reverse":
            return False
        if isinstance(coll, ir.Ranking) and (coll.kind != "order" or coll.where is not None):
            return False  # `best` gives only those that come first; a filter drops some
        coll = coll.args[0] if isinstance(coll, ir.Call) else coll.coll
    return isinstance(coll, ir.AllPlayers)


def _reached(bounds, node) -> list:
    """The nodes of `node` and of every procedure it calls, at any depth."""
    seen, todo, out = set(), [node], []
    while todo:
        n = todo.pop()
        for x in ir.walk(n):
            out.append(x)
            if isinstance(x, ir.Do) and x.proc not in seen and x.proc in bounds._procs:
                seen.add(x.proc)
                todo.append(bounds._procs[x.proc].body)
    return out


def _changes(n, field: str) -> bool:
    return isinstance(n, _CHANGES) or isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) \
        and n.target.name == field


def _cut_in(bounds, proc: ir.Procedure, param: str) -> Cut | None:
    """The cut a procedure makes of its player's zone (see the module's docstring), or None."""
    stmts = proc.body.stmts
    for j, (let, test) in enumerate(zip(stmts, stmts[1:])):
        match let, test:
            case (ir.Let(name=over, value=ir.BinOp(op="-", left=ir.Call(func="count", args=(a,)),
                                                    right=ir.Call(func="count", args=(b,)))),
                  ir.If(branches=((ir.BinOp(op=">", left=ir.Local(name=o), right=ir.Int(value=0)),
                                   ir.Block(stmts=(choice,))),), orelse=None)) if o == over:
                pass
            case _:
                continue
        match choice:
            case ir.Choose(var=out, source=src, where=None, count_kind="exactly", count_lo=ir.Local(name=lo),
                           count_hi=ir.Local(name=hi), options=(), pass_if=None, orelse=None,
                           body=ir.Block(stmts=(ir.Move(what=ir.Local(name=moved), dest=dest),))) \
                    if lo == hi == over and moved == out and src == a:
                pass
            case _:
                continue
        ga, gb = (_group(_expand(bounds, x, INLINE_DEPTH)) for x in (a, b))
        if ga is None or gb is None or ga[0] != ir.Local(param) or gb[0] != ir.Local(param):
            continue
        if ga[1:3] != gb[1:3] or ga[3] == gb[3]:
            continue
        zone, field = ga[1], ga[2]
        if _into(dest, zone) or not _own_moves_only(bounds, proc, param, zone, field):
            continue
        if any(_changes(n, field) for s in stmts[j + 2:] for n in ir.walk(s)):
            continue
        return Cut(-1, zone, field, ga[3], gb[3])
    return None


def _into(dest, zone: str) -> bool:
    return any(isinstance(n, ir.Attr) and n.name == zone for n in ir.walk(dest))


def _own_moves_only(bounds, proc: ir.Procedure, param: str, zone: str, field: str) -> bool:
    """Whether every change the procedure makes to cards takes cards out of `param`'s own `zone`
    (a list bound in it, built from that zone) or leaves `zone` alone, puts none into it, calls no
    procedure and sets no `field`: so the cut of one player stands while the others' are made."""
    bound = {}
    for n in ir.walk(proc.body):
        if isinstance(n, ir.Let):
            bound[n.name] = n.value
        elif isinstance(n, ir.Choose) and n.var is not None:
            bound[n.var] = n.source
    own = ir.Attr(ir.Local(param), zone)
    for n in ir.walk(proc.body):
        if isinstance(n, ir.Do) or _changes(n, field) and not isinstance(n, ir.Move):
            return False
        if isinstance(n, ir.Move):
            if _into(n.dest, zone):
                return False
            what = _resolved(n.what, bound, param)
            what = None if what is None else _expand(bounds, what, INLINE_DEPTH)
            if what is None:
                return False
            if _into(what, zone) and not _rooted(what, own):
                return False
    return True


def _rooted(e, own: ir.Attr) -> bool:
    """Whether the list `e` is the zone `own` or a filter of one (at any depth)."""
    while isinstance(e, ir.ListComp) and e.value is None:
        e = e.coll
    return e == own


def _resolved(e, bound: dict, param: str, depth: int = 4):
    """`e` with the locals bound in the procedure replaced by what they were bound to, or None when
    it reads a local other than the player's that is not known so (a loop's card, say)."""
    if depth == 0:
        return None
    failed = False
    # the variables of the lists and sums inside it are bound there
    inner_vars = {n.var for n in ir.walk(e) if isinstance(n, (ir.ListComp, ir.Agg, ir.Ranking))}

    def sub(n):
        nonlocal failed
        if isinstance(n, ir.Local) and n.name != param and n.name not in inner_vars:
            if n.name not in bound:
                failed = True
                return n
            inner = _resolved(bound[n.name], bound, param, depth - 1)
            if inner is None:
                failed = True
                return n
            return inner
        return ir.map_children(n, sub)

    out = sub(e)
    return None if failed else out
