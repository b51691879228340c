"""The most a card's state can reach, card by card, from the statements that set it: a state set
outright to values up to V, and raised (`+= k`) only under a test `c.f < E` on the same card, is
at most max(V, E - 1 + k, its start) on each card, E read for that card.  A level declared
0..6 but raised only while below its card's printed limit (2 to 4) is at most that limit on each card.

Read only once every statement is known (after Bounds has read the rules), like verify/counters.py."""

from __future__ import annotations

import attrs

from soan.dsl import ir
from soan.dsl.analysis import conjuncts


# The state a `roll` sets (interpreter/state.py: apply_chance).
ROLLED = "face"


def card_max(bounds, card: int, field: str) -> int | None:
    """The most `card`'s state `field` can hold at any moment, or None when not known so."""
    cache = bounds.__dict__.setdefault("_state_cap_cache", {})
    if field not in cache:
        cache[field] = None  # a test or value that reads this state itself reads its declared range
        cache[field] = _caps(bounds, field)
    caps = cache[field]
    return None if caps is None else caps.get(card)


def _caps(bounds, field: str) -> dict[int, int] | None:
    t = bounds.t
    if field in t.player_vars or field in t.tokens or field not in t.state_default:
        return None
    if field == ROLLED and any(isinstance(s.node, ir.Roll) for s in bounds.sites):
        return None  # a roll writes the die's face with no `set`
    cards = [c for c in range(t.n_cards) if field in t.kind_states[t.kind[c]]]
    most: dict[int, int] = {}
    for c in cards:
        start = t.state_default[field][c]
        if isinstance(start, bool) or not isinstance(start, int):
            return None
        most[c] = start
    for site in bounds.sites:
        node = site.node
        if not (isinstance(node, ir.Set) and isinstance(node.target, ir.Attr) and node.target.name == field):
            continue
        if node.op == "=":
            iv = bounds.value_at(site, node.value)
            if iv is None:
                return None
            for c in cards:  # a value read for each card when it names the card set
                hi = _for_card(bounds, site, node.target.obj, c, node.value)
                most[c] = max(most[c], iv[1] if hi is None else hi)
            continue
        if node.op == "-=":
            step = bounds.value_at(site, node.value)
            if step is None or step[0] < 0:
                return None
            continue  # lowers it: no card goes above what it held
        step = bounds.value_at(site, node.value)
        limit = _limit(site, node.target.obj, field)
        if node.op != "+=" or step is None or step[0] < 0 or limit is None:
            return None
        test, below = limit
        for c in cards:
            e = _for_card(bounds, site, node.target.obj, c, test)
            if e is None:
                return None
            most[c] = max(most[c], e + step[1] - (1 if below else 0))
    return most


def _limit(site, obj, field: str):
    """(E, strict) when the site runs only under a test `obj.field < E` (or `<= E`, or `E > obj.field`)."""
    if not isinstance(obj, ir.Local):
        return None
    mine = ir.Attr(obj, field)
    for g in site.guards:
        for c in conjuncts(g):
            if not isinstance(c, ir.BinOp):
                continue
            if c.op in ("<", "<=") and c.left == mine:
                return c.right, c.op == "<"
            if c.op in (">", ">=") and c.right == mine:
                return c.left, c.op == ">"
    return None


def _for_card(bounds, site, obj, card: int, e) -> int | None:
    """The largest `e` can be at `site` with the local `obj` naming `card` (None: not known)."""
    with bounds.reading_in(dict(site.env)):
        if isinstance(obj, ir.Local):
            v = bounds.env.get(obj.name)
            zones = v.zc[0] if v is not None and v.zc is not None else frozenset()
            base = v if v is not None else _one()
            bounds.env[obj.name] = attrs.evolve(base, one=True, zc=(zones, (card,)), iv=None, size=None, elem=None)
        iv = bounds.interval(e)
        return None if iv is None else iv[1]


def _one():
    from .bounds import Val  # it imports this module

    return Val(one=True)
