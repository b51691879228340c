"""Cards that pass through a shared zone: a move or draw that takes its cards from shared zones
moves, over a whole game, no more of them than ever arrive in those zones (the cards they start
with counted), and none of a zone that holds no card that can lie where it puts them.

So one player's dishes taken one at a time from a display refilled four cards a round number at
most the sixteen cards that ever come to that display, however many turns the player takes; a
display of cards of another kind (that can never be dishes) gives none.  Bounds._arrivals uses it
on its second count, from the zones' arrivals its first count proved."""

from __future__ import annotations

from soan.dsl import ir


def source_cap(bounds, site, dest_zones: set[str], arrived: dict[str, int]) -> int | None:
    """The most cards the move or draw at `site` can put into `dest_zones` in a whole game, from
    what arrives in the zones it takes from (`arrived`: zone -> most arrivals, proved); None when
    it takes from anywhere, from a zone of unknown arrivals, or from a player's zone other than
    the receiving player's own (a player's zone gives, in a whole game, what arrives in it for
    that one player)."""
    src = bounds._taken_from(site)
    if not src:
        return None
    per_player = bounds._per_player_zones
    flow = bounds.flow
    node = site.node
    own = _own_zone(node.source if isinstance(node, ir.Draw) else node.what)
    dest = node.dest
    total = 0
    for z in src:
        if z not in arrived:
            return None
        if z in per_player and not (own is not None and own == (_local_of(dest), z)):
            return None
        # with the setup's opening picks fixed (a branch), a card may have left z before them: where
        # cards lay before those steps counts too, or a setup draw from z would seem to give nothing
        early = flow.early if flow.early is not None else flow.reach
        if any((flow.reach[c] | early[c]) & dest_zones for c, zones in enumerate(early)
               if z in zones or z in flow.reach[c]):
            total += arrived[z]
    return total


def _local_of(e) -> str | None:
    """`x` of a player's zone `x.Z`."""
    return e.obj.name if isinstance(e, ir.Attr) and isinstance(e.obj, ir.Local) else None


def _own_zone(e) -> tuple[str, str] | None:
    """(x, Z) when `e` is the player's zone `x.Z`, a filter of it, or some of its cards (`take`)."""
    match e:
        case ir.Attr(obj=ir.Local(name=x), name=z):
            return x, z
        case ir.ListComp(coll=coll, value=None):
            return _own_zone(coll)
        case ir.Call(func="take", args=(coll, _)):
            return _own_zone(coll)
    return None
