"""A draw right after the rules refill an empty pile from the players.

    if count(pile) == 0 { do shortage }      # shortage: the players with the most give all theirs back
    draw 1 from pile to p.stash

When the pile's cards can only ever lie in the pile or in one per-player zone
Z, an empty pile means every one of them is in some player's Z; so a `best q
in players where count(q.Z) > 0 ...` finds someone, and `for q in that { move
q.Z to pile }` puts at least one card back before the draw.  The draw of one
card then never finds the pile empty.  Every step is checked: the test, the
refill's shape (through one procedure call), that nothing else in it takes
cards from the pile, and where the pile's cards can go (`flow.py`).
"""

from __future__ import annotations

from soan.dsl import ir
from soan.dsl.analysis import counts_cards_of

from .bounds import Bounds


def refilled_before(b: Bounds, draw: ir.Draw, parents: dict) -> str | None:
    """Why the one-card `draw` cannot find its pile empty thanks to a refill just before it, or None."""
    pile = draw.source
    if not (isinstance(pile, ir.SharedZone) and isinstance(draw.count, ir.Int) and draw.count.value == 1):
        return None
    place = parents.get(id(draw))
    if place is None or place[1] == 0:
        return None
    block, i = place
    test_if = block.stmts[i - 1]
    if not (isinstance(test_if, ir.If) and len(test_if.branches) == 1 and test_if.orelse is None
            and _empty_test(test_if.branches[0][0], pile.name)):
        return None
    stmts = _procedures_opened(b.spec, test_if.branches[0][1].stmts)
    if stmts is None:
        return None
    zone = _refill_zone(stmts, pile.name)
    if zone is None:
        return None
    cards = b.flow.cards_in(pile.name)
    if not cards or any(not (b.flow.reach[cid] <= {pile.name, zone}) for cid in cards):
        return None
    return (f"before the draw at line {draw.span.line}, an empty {pile.name} is refilled from the players' {zone} "
            f"(line {test_if.span.line}), where all its other cards must then be")


def _empty_test(test, pile: str) -> bool:
    match test:
        case ir.BinOp(op="==", left=c, right=ir.Int(value=0)) | ir.BinOp(op="<", left=c, right=ir.Int(value=1)) \
                | ir.BinOp(op="<=", left=c, right=ir.Int(value=0)):
            return counts_cards_of(c, ir.SharedZone(pile))
    return False


def _procedures_opened(spec: ir.Spec, stmts) -> list | None:
    """The statements, a call of a procedure without parameters replaced by its body (one level)."""
    procs = {p.name: p for p in spec.procedures}
    out = []
    for s in stmts:
        if isinstance(s, ir.Do):
            p = procs[s.proc]
            if p.params:
                return None
            out.extend(p.body.stmts)
        else:
            out.append(s)
    return out


def _refill_zone(stmts, pile: str) -> str | None:
    """The per-player zone Z of `for q in (best q in players where count(q.Z) > 0 ...) { move q.Z to pile }`
    among `stmts`, when nothing else there moves cards; else None."""
    lets, zone = {}, None
    for s in stmts:
        match s:
            case ir.Let(name=name, value=value):
                lets[name] = value
            case ir.Say():
                pass
            case ir.For(var=var, coll=coll, where=None, body=body):
                if isinstance(coll, ir.Local):
                    coll = lets.get(coll.name)
                z = _nonempty_holders(coll)
                if z is None or zone is not None or len(body.stmts) != 1:
                    return None
                mv = body.stmts[0]
                if not (isinstance(mv, ir.Move) and isinstance(mv.dest, ir.SharedZone) and mv.dest.name == pile
                        and isinstance(mv.what, ir.Attr) and mv.what.name == z
                        and isinstance(mv.what.obj, ir.Local) and mv.what.obj.name == var):
                    return None
                zone = z
            case _:
                return None
    return zone


def _nonempty_holders(coll) -> str | None:
    """Z, when `coll` is `best q in players where count(q.Z) > 0 by ...` with a fallback that keeps someone."""
    if not (isinstance(coll, ir.Ranking) and coll.kind == "best" and isinstance(coll.coll, ir.AllPlayers)
            and coll.fallback in ("shared", "stable")):
        return None
    w = coll.where
    match w:
        case ir.BinOp(op=">", left=ir.Call(func="count", args=(ir.Attr(obj=ir.Local(name=v), name=z),)),
                      right=ir.Int(value=0)) if v == coll.var:
            return z
        case ir.BinOp(op=">", left=ir.Agg(func="count", coll=ir.Attr(obj=ir.Local(name=v), name=z), where=None,
                                          value=None), right=ir.Int(value=0)) if v == coll.var:
            return z
    return None
