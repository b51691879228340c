"""How many cards one player's zone can hold at once when some draws into it only replace cards just
taken out of it: `choose out between 1 and 3 from p.hand { move out to discard; draw count(out) from
deck to p.hand }` (an exchange of cards with the deck).  The draw brings at most as many cards as the
move just took from the zone, so after it the zone holds no more than before the move: it never
raises what the zone holds at once.  Every other move or draw into the zone raises it by at most the
cards it moves, as often as it can fire for one player.  Five cards dealt and then swapped twice
(three, then one) are at most five at once, though nine can arrive in all.

An exchange swaps a card for a card: no zone's count changes.  A move or draw whose destination is
not known may fill any zone: then nothing is claimed.

Bounds (verify/bounds.py) reads the rules again with these counts, as it does with verify/held.py's."""

from __future__ import annotations

from soan.dsl import ir

from .held import card_moves


def at_once(b) -> dict[str, int]:
    """Per-player zone -> the most cards one player's zone holds at once, where replacing draws make
    that fewer than the cards that can lie there (b: a Bounds that has read the rules)."""
    t, flow = b.t, b.flow
    per_player = {z.name for z in b.spec.zones if z.per_player}
    replacing = _replacing_draws(b.spec)
    if not replacing:
        return {}
    start: dict[tuple, int] = {}
    for slot in t.start_slot:
        z, o = t.zone_slots[slot]
        if z.name in per_player and o is not None:
            start[(z.name, o.i)] = start.get((z.name, o.i), 0) + 1
    most: dict[str, int | None] = {z: max((n for (name, _), n in start.items() if name == z), default=0) for z in per_player}
    for site, _src, dest, own in card_moves(b):
        if dest is None:
            return {}
        if not dest & per_player or (isinstance(site.node, ir.Draw) and id(site.node) in replacing):
            continue
        with b.reading_in(site.env):
            each = b.carried(site.node)
        times = b.times_for_one_player(site) if own else site.firings
        for z in dest & per_player:
            if most.get(z) is None or times is None or each is None:
                most[z] = None
            else:
                most[z] += times * each
    return {z: m for z, m in most.items() if m is not None and m < len(flow.cards_in(z))}


def _replacing_draws(spec: ir.Spec) -> set[int]:
    """The draws (by id) that follow, in the body of a choice of cards from a player's zone, a move of
    the chosen cards out of that zone, and draw as many cards back into it."""
    out: set[int] = set()
    roots = [x for x in (spec.setup, spec.scoring) if x is not None] + \
        ([spec.rounds.body] if spec.rounds is not None else []) + [p.body for p in spec.procedures]
    for root in roots:
        for ch in ir.walk(root):
            if not isinstance(ch, ir.Choose) or ch.var is None or ch.body is None:
                continue
            zone = _own_zone(ch.source)
            if zone is None:
                continue
            stmts = ch.body.stmts
            for k in range(len(stmts) - 1):
                mv, dr = stmts[k], stmts[k + 1]
                if any(isinstance(s, (ir.Move, ir.Draw, ir.Exchange, ir.Do)) for s in stmts[:k]):
                    break  # the chosen cards may have left the zone already
                if any(isinstance(s, (ir.Let, ir.Set)) and {zone[0], ch.var} & set(_bound(s)) for s in stmts[:k]):
                    break  # the player or the chosen cards named anew
                if not (isinstance(mv, ir.Move) and isinstance(dr, ir.Draw) and mv.what == ir.Local(ch.var)):
                    continue
                if dr.dest != ir.Attr(ir.Local(zone[0]), zone[1]) or _own_zone(mv.dest) == zone:
                    continue
                if not isinstance(mv.dest, (ir.SharedZone, ir.Attr)) or getattr(mv.dest, "name", None) == zone[1]:
                    continue  # into a zone not known, or another player's zone of the same name
                if _as_many(dr.count, ch):
                    out.add(id(dr))
    return out


def _own_zone(e) -> tuple[str, str] | None:
    """(player local, zone) when `e` is a player's zone `p.Z` or a filter of it."""
    if isinstance(e, ir.ListComp) and e.value is None:
        e = e.coll
    if isinstance(e, ir.Attr) and isinstance(e.obj, ir.Local):
        return e.obj.name, e.name
    return None


def _as_many(count, ch: ir.Choose) -> bool:
    """Whether `count` is the number of cards the choice chose: `count(var)`, or 1 for one card."""
    var = ir.Local(ch.var)
    match count:
        case ir.Call(func="count" | "size", args=(a,)) if a == var:
            return True
        case ir.Agg(func="count", coll=coll, where=None) if coll == var:
            return True
        case ir.Int(value=1) if ch.count_kind is None:
            return True
    return False


def _bound(s: ir.Stmt) -> list[str]:
    if isinstance(s, ir.Let):
        return [s.name]
    if isinstance(s, ir.Set) and isinstance(s.target, ir.Local):
        return [s.target.name]
    return []
