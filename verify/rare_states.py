"""A card's yes/no state that few firings can make true: at most that many cards hold it at once.

A `state f: bool` starts as its declared default on every card, and only a `set x.f = ...` changes
it, one card a firing.  So at any moment the cards with f true are at most the cards it starts true
on plus the firings, in the whole game, of every `set` of f to anything but `false`.  With a work
area taking 2 workers a round for 4 rounds, each marking one card (`set c.marked = true`), at most 8
cards of the whole table are marked at once, whatever else the rules do.

A sum over a list of s distinct cards whose value reads `c.f` then takes at most k of its cards with
f true: for each card its largest value with f false and with f true (the value read with `c.f`
fixed), and the best s cards of which at most k use their true value.  It tightens only when k < s.

Bounds (verify/bounds.py) calls `most` for a sum once the rules are read (the firings known)."""

from __future__ import annotations

from soan.dsl import ir

from .matched_sums import INLINE_DEPTH, _expand


def true_at_once(bounds, field: str) -> int | None:
    """The most cards with the yes/no state `field` true at once in a game, or None."""
    memo = bounds.__dict__.setdefault("_rare_true", {})
    if field not in memo:
        memo[field] = _count(bounds, field)
    return memo[field]


def _count(bounds, field: str) -> int | None:
    t = bounds.t
    kinds = [c for c in bounds.spec.components if any(f.name == field for f in c.fields)]
    if not kinds or not all(isinstance(f.domain, ir.BoolDomain) and f.is_state
                            for c in kinds for f in c.fields if f.name == field):
        return None  # a printed field, or one of another kind that is no yes/no state
    start = sum(1 for v in t.state_default.get(field, ()) if v is not None and v is not False)
    total = start
    for site in bounds.sites:
        n = site.node
        if isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name == field \
                and not (n.op == "=" and n.value == ir.Bool(False)):
            if site.firings is None:
                return None
            total += site.firings
    return total


def most(bounds, e: ir.Agg, s: int | None) -> int | None:
    """The largest the sum `e` over at most `s` distinct cards can be, given the yes/no states its
    value reads that few cards can hold at once, or None."""
    if s is None:
        return None
    out = None
    for f, off, on in parts(bounds, e):
        k = true_at_once(bounds, f)
        if k is None or k >= s:
            continue
        best = _best(off, on, s, k)
        out = best if out is None else min(out, best)
    return out


def parts(bounds, e: ir.Agg) -> list:
    """[(f, each card's value range with f false, ... with f true)] for every yes/no state f the value of
    the sum `e` reads and its filter does not, for the cards that can be in its list."""
    if not bounds._read_done or e.value is None:
        return []
    value = _expand(bounds, e.value, INLINE_DEPTH)
    if value is None:
        return []
    card = ir.Local(e.var)
    fields = sorted({n.name for n in ir.walk(value) if isinstance(n, ir.Attr) and n.obj == card})
    where = e.where
    # what the filter reads, through the defs it calls (one it cannot unfold: read as reading every field)
    read_by_where = None if where is None else _expand(bounds, where, INLINE_DEPTH)
    out = []
    for f in fields:
        if where is not None and (read_by_where is None or
                                  any(isinstance(n, ir.Attr) and n.name == f for n in ir.walk(read_by_where))):
            continue  # the filter reads it too: which cards are summed depends on it
        if true_at_once(bounds, f) is None:
            continue
        listed = ir.ListComp(e.var, e.coll, where, None)
        # read with the flag false, a state whose rises it limits may be capped lower (verify/gated_caps.py)
        saved, bounds._given_false = bounds._given_false, {**bounds._given_false, e.var: (f,)}
        try:
            off = bounds._per_card(listed, e.var, _fixed(value, card, f, False))
        finally:
            bounds._given_false = saved
        on = bounds._per_card(listed, e.var, _fixed(value, card, f, True))
        if off is not None and on is not None:
            out.append((f, off, on))
    return out


def _fixed(e, card: ir.Local, field: str, truth: bool):
    """`e` with the card's `field` read as `truth`."""
    if isinstance(e, ir.Attr) and e.obj == card and e.name == field:
        return ir.Bool(truth)
    return ir.map_children(e, lambda x: _fixed(x, card, field, truth))


def _best(off: list, on: list, s: int, k: int) -> int:
    """The largest sum of at most s of the cards, each at its largest value (at least 0: a card need
    not be among them), of which at most k at their value with the state true."""
    neg = float("-inf")
    # best[j][u]: j cards taken, u of them with the state true
    best = [[neg] * (k + 1) for _ in range(s + 1)]
    best[0][0] = 0
    for a, b in zip(off, on):
        lo, hi = max(0, a[1]), max(0, max(a[1], b[1]))
        for j in range(min(s, len(off)) - 1, -1, -1):
            row, up = best[j], best[j + 1]
            for u in range(k, -1, -1):
                if row[u] == neg:
                    continue
                if row[u] + lo > up[u]:
                    up[u] = row[u] + lo
                if u < k and row[u] + hi > up[u + 1]:
                    up[u + 1] = row[u] + hi
    return int(max(x for row in best for x in row if x != neg))
