"""How many cards one player can hold at once in a group of their own zones that the rules only
move cards around in: the workers in hand and those placed on work areas, say.

A zone's count moves only by moves and draws: an exchange swaps one card for another and leaves
every zone holding as many as before.  Take a group G of per-player zones closed under moving
(each reaches every other by moves: a strongly connected part of the move graph).  When every
card that can lie in G is dealt per player and the rules keep each player's cards in that
player's zones (termination._owners_kept), a move from a zone of G into one of G takes a
player's own card from that player's G into that player's G: their count is unchanged.  So one
player's G never holds more cards than it starts with plus what every other move or draw into G
can bring them (its firings for one player times the cards it moves).  That bounds each zone of
G at every moment, however often the cards go round (four pieces dealt of a set of eight, placed
on areas, swapped for larger ones and taken back every round: at most four in hand, not eight)."""

from __future__ import annotations

from soan.dsl import ir


def at_once(b) -> dict[str, int]:
    """Per-player zone -> the most cards one player's zone holds at once, where this reading
    proves fewer than the cards that can lie there (b: a Bounds that has read the rules)."""
    from .termination import _owners_kept  # it imports bounds, which imports this module

    t, flow = b.t, b.flow
    per_player = {z.name for z in b.spec.zones if z.per_player}
    edges: dict[str, set[str]] = {z: set() for z in per_player}
    moves = []
    for site, src, dest, own in card_moves(b):
        if dest is None:  # anywhere: into any group, from one player's to another's
            dest, own = set(flow.zone_names), False
        moves.append((site, src, dest, own))
        for s in (src or ()):
            for d in dest:
                if s in per_player and d in per_player:
                    edges[s].add(d)
    if not moves or not _owners_kept(b):
        return {}
    owned = {c for c in range(t.n_cards) if t.owner[c] is not None}
    out: dict[str, int] = {}
    for group in _components(edges):
        cards = set().union(*(flow.cards_in(z) for z in group))
        if not cards or not cards <= owned:
            continue
        start: dict[int, int] = {}
        for c, slot in enumerate(t.start_slot):
            z, o = t.zone_slots[slot]
            if z.name in group and o is not None:
                start[o.i] = start.get(o.i, 0) + 1
        more = arrivals(b, moves, group)
        if more is None:
            continue
        most = max(start.values(), default=0) + more
        for z in group:
            if most < len(flow.cards_in(z)):
                out[z] = most
    return out


def card_moves(b) -> list[tuple]:
    """Every move and draw the rules make, as (site, the zones its cards come from or None, the
    zones they go to or None for anywhere, whether they go to the zones of the player the site
    is read for)."""
    out = []
    for site in b.sites:
        node = site.node
        if not isinstance(node, (ir.Move, ir.Draw)):
            continue
        with b.reading_in(site.env):
            dest, own = b._filled(node.dest)
            # the zones the cards lie in now: a zone, a filter of one, a def's zones joined, a card
            # a local names (Bounds._taken_from); else wherever its cards can ever lie
            zc = b._zone_cards(node.what) if isinstance(node, ir.Move) else None
        src = set(zc[0]) if zc is not None else b._taken_from(site)
        out.append((site, src, dest, own))
    return out


def arrivals(b, moves: list[tuple], group: set[str]) -> int | None:
    """The most cards the moves and draws into `group` from outside it bring one player over a
    game (their firings for that player, or at all when they may carry anyone's cards, times the
    cards each moves); a move within the group brings none.  None where one is not bounded."""
    most = 0
    for site, src, dest, own in moves:
        if not dest & group or (src is not None and src <= group):
            continue
        with b.reading_in(site.env):
            each = b.carried(site.node)
        times = b.times_for_one_player(site) if own else site.firings
        if times is None or each is None:
            return None
        most += times * each
    return most


def _components(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected parts of the move graph with more than one zone (Tarjan's, iterative
    over a small graph: plain reachability both ways)."""
    reach: dict[str, set[str]] = {}
    for z in edges:
        seen, todo = set(), [z]
        while todo:
            x = todo.pop()
            for y in edges.get(x, ()):
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        reach[z] = seen
    out, done = [], set()
    for z in sorted(edges):
        if z in done:
            continue
        part = {z} | {y for y in reach[z] if z in reach.get(y, ())}
        done |= part
        if len(part) > 1:
            out.append(part)
    return out
