"""How many of their own cards one player can hold at once in a group of zones that the rules only
move cards around in, when the group takes in shared zones too: dice in hand, placed on shared work
areas (`move d to area`) and taken back by their owner (`move [d in area where d.owner == p] to
p.workers`).  verify/held.py reads groups of a player's own zones; this reads groups with shared
zones in them.

When the rules keep each set dealt per player with its owner (termination._owners_kept: a player's
zone only ever takes that player's cards, and an exchange swaps two cards of one owner), count, for
one player, their cards lying anywhere in the group G.  A move from a zone of G into a zone of G
leaves a card in G and its owner unchanged; an exchange swaps two cards of one owner.  So the
count rises only by moves and draws into G from outside it: into one of the player's own zones as
often as such a move fires for that player, into a shared zone of G as often as it fires at all
(it may carry anyone's cards).  The player's own zones of G hold only their cards, so each holds at
most the cards the player starts with in G plus all those.  Four dice dealt of a set of eight,
placed, grown by an exchange with the stock and taken back each round: at most four in hand."""

from __future__ import annotations

from .held import _components, arrivals, card_moves


def at_once(b) -> dict[str, int]:
    """Per-player zone -> the most cards one player's zone holds at once, where a group with shared
    zones proves fewer than the cards that can lie there (b: a Bounds that has read the rules)."""
    from .termination import _owners_kept  # it imports bounds, which imports this module

    t, flow = b.t, b.flow
    owned = {c for c in range(t.n_cards) if t.owner[c] is not None}
    if not owned:
        return {}
    per_player = {z.name for z in b.spec.zones if z.per_player}
    shared = {z.name for z in b.spec.zones if not z.per_player and flow.cards_in(z.name)
              and set(flow.cards_in(z.name)) <= owned}
    if not shared:
        return {}
    nodes = per_player | shared
    edges: dict[str, set[str]] = {z: set() for z in nodes}
    moves = card_moves(b)
    if any(dest is None for _, _, dest, _ in moves):
        return {}
    for _, src, dest, _ in moves:
        for s in (src or ()):
            for d in dest:
                if s in nodes and d in nodes:
                    edges[s].add(d)
    if not moves or not _owners_kept(b):
        return {}
    out: dict[str, int] = {}
    for group in _components(edges):
        if not group & shared or not group & per_player:
            continue
        cards = set().union(*(flow.cards_in(z) for z in group))
        if not cards <= owned:
            continue
        start: dict[int, int] = {}
        for c, slot in enumerate(t.start_slot):
            z, _ = t.zone_slots[slot]
            if z.name in group and t.owner[c] is not None:
                start[t.owner[c].i] = start.get(t.owner[c].i, 0) + 1
        more = arrivals(b, moves, group)  # within the group: the card and its owner stay in it
        if more is None:
            continue
        most = max(start.values(), default=0) + more
        for z in group & per_player:
            if most < len(flow.cards_in(z)):
                out[z] = most
    return out
