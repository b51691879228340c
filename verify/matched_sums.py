"""A sum, over the cards of one list, of how many cards of another list match each on a printed
field: `sum(count(m in B where m.f == s.g) for s in A)`, written directly or through defs (a
synergy bonus: each side dish scores the main dishes of its suit).

It counts the matching pairs (s, m).  Split both lists by the value v of the matched field: the
sum is the sum over v of |A_v| x |B_v|.  Each |A_v| is at most the cards printed g = v that can
lie in A (|B_v| likewise), their sums at most the lists' sizes.  When A and B filter the same zone
by one field with two different values (a card's role is main or side, never both), a card lies
in at most one of them: with f = g, |A_v| + |B_v| is at most the cards printed v, and all of them
together at most what the zone holds.  Eight cards of each of five suits in a zone of at most 25
give at most 16 + 16 + 16 = 48 pairs, not 25 x 8 = 200.

Any other condition of the count's filter or of the sum's only drops pairs, so it is left out.
The whole sum is one expression, read at one moment: the lists cannot change while it is read.
Bounds (verify/bounds.py) asks `most` for the largest value of such a sum."""

from __future__ import annotations

from soan.dsl import ir
from soan.dsl.analysis import conjuncts

from .branch_awards import _name
from .pairs import _UNKNOWN, _printed

# Calls of defs expanded inside one sum before giving up (a def calling defs calling defs).
INLINE_DEPTH = 8


def most(bounds, e: ir.Agg) -> int | None:
    """The largest value of the sum `e` when it is such a sum, or a sum over the cards printed with
    one value (see `_one_value`), else None; the locals are as `bounds.env` says."""
    found = [x for x in (_pairs(bounds, e), _one_value(bounds, e)) if x is not None]
    return min(found) if found else None


def _one_value(bounds, e: ir.Agg) -> int | None:
    """`sum(value for c in L where c.f == v)` with v one value for the whole sum (it does not read
    c) and f printed: only the cards printed f = v count, so at most the largest values of as many
    cards as L holds, within one value's cards (a favourite suit's eight cards, not the eight best
    of all suits).  Only for values never below 0 (the sum's least is then 0)."""
    field = None
    for x in conjuncts(e.where):
        if isinstance(x, ir.BinOp) and x.op == "==":
            for a, b in ((x.left, x.right), (x.right, x.left)):
                if isinstance(a, ir.Attr) and a.obj == ir.Local(e.var) and not _mentions(b, e.var):
                    field = a.name
    if field is None:
        return None
    listed = ir.ListComp(e.var, e.coll, e.where, None)
    zc, size = bounds._zone_cards(listed), bounds.size(listed)
    per = bounds._per_card(listed, e.var, e.value)
    if zc is None or size is None or per is None or any(iv[0] < 0 for iv in per):
        return None
    groups: dict = {}
    for c, iv in zip(zc[1], per):
        v = _printed(bounds.t, c, field)
        if v is _UNKNOWN:
            return None
        groups.setdefault(v, []).append(iv[1])
    return max((sum(sorted(g, reverse=True)[:size]) for g in groups.values()), default=0)


def _pairs(bounds, e: ir.Agg) -> int | None:
    """The largest value of a sum of matching pairs (see the module's docstring), else None."""
    value = _expand(bounds, e.value, INLINE_DEPTH)
    coll_a = _expand(bounds, e.coll, INLINE_DEPTH)
    if value is None or coll_a is None:
        return None
    if not (isinstance(value, ir.Agg) and value.func == "count"):
        return None
    coll_b = value.coll
    if _mentions(coll_b, e.var):
        return None  # the counted list changes with the card: not one list
    f, g = _matched(value.where, value.var, e.var)
    if f is None:
        return None
    list_a = ir.ListComp(e.var, coll_a, None, None)
    list_b = ir.ListComp(value.var, coll_b, None, None)
    za, zb = bounds._zone_cards(list_a), bounds._zone_cards(list_b)
    size_a, size_b = bounds.size(list_a), bounds.size(list_b)
    if za is None or zb is None or size_a is None or size_b is None:
        return None
    t = bounds.t
    by_a: dict = {}
    by_b: dict = {}
    for cards, field, out in ((za[1], g, by_a), (zb[1], f, by_b)):
        for c in cards:
            v = _printed(t, c, field)
            if v is _UNKNOWN:
                return None
            out.setdefault(v, set()).add(c)
    apart = _apart(bounds, coll_a, coll_b)
    total = size_a + size_b
    if apart is not None:
        total = min(total, apart)
    best = size_a * max((len(x) for x in by_b.values()), default=0)
    best = min(best, size_b * max((len(x) for x in by_a.values()), default=0))
    # the largest sum of |A_v| x |B_v| with the cards of all values together at most `total`
    reach = [0] + [None] * total  # cards used -> most pairs
    for v in set(by_a) & set(by_b):
        cap_a, cap_b = min(len(by_a[v]), size_a), min(len(by_b[v]), size_b)
        cap = cap_a + cap_b
        if apart is not None and f == g:
            cap = min(cap, len(by_a[v] | by_b[v]))
        gain = [max((a * (k - a) for a in range(max(0, k - cap_b), min(cap_a, k) + 1)), default=0)
                for k in range(min(cap, total) + 1)]
        nxt = list(reach)
        for used, have in enumerate(reach):
            if have is None:
                continue
            for k in range(1, len(gain)):
                if used + k > total:
                    break
                if nxt[used + k] is None or nxt[used + k] < have + gain[k]:
                    nxt[used + k] = have + gain[k]
        reach = nxt
    return min(best, max(x for x in reach if x is not None))


def _expand(bounds, e, depth: int):
    """`e` with every call of a def replaced by its body (its parameters by the arguments), or None
    when that goes deeper than `depth` (a def that calls itself)."""
    defs = bounds.t.rules.defs_ir
    failed = False

    def sub(n, table, left):
        nonlocal failed
        if failed:
            return n
        if isinstance(n, ir.Local) and n.name in table:
            return table[n.name]
        if isinstance(n, ir.Call) and n.func in defs and len(defs[n.func].params) == len(n.args):
            if left == 0:
                failed = True
                return n
            args = tuple(sub(a, table, left) for a in n.args)
            d = defs[n.func]
            return sub(d.body, dict(zip(d.params, args)), left - 1)
        return ir.map_children(n, lambda x: sub(x, table, left))

    out = sub(e, {}, depth)
    return None if failed else out


def _mentions(e, name: str) -> bool:
    return any(isinstance(n, ir.Local) and n.name == name for n in ir.walk(e))


def _matched(where, var: str, other: str) -> tuple[str | None, str | None]:
    """(f, g) when a conjunct of the count's filter is `var.f == other.g` (either way round)."""
    for x in conjuncts(where):
        if not (isinstance(x, ir.BinOp) and x.op == "=="):
            continue
        for a, b in ((x.left, x.right), (x.right, x.left)):
            if (isinstance(a, ir.Attr) and isinstance(b, ir.Attr) and a.obj == ir.Local(var)
                    and b.obj == ir.Local(other)):
                return a.name, b.name
    return None, None


def _apart(bounds, a, b) -> int | None:
    """The most cards both lists hold together, when no card can be in both at once: filters of
    the same zone list whose conditions give one field two different values.  Else None."""
    if not (isinstance(a, ir.ListComp) and isinstance(b, ir.ListComp) and a.value is None and b.value is None):
        return None
    if a.coll != b.coll or _mentions(a.coll, a.var) or _mentions(b.coll, b.var):
        return None
    fa, fb = _fixed(bounds, a.where, a.var), _fixed(bounds, b.where, b.var)
    if not any(k in fb and fb[k] != v for k, v in fa.items()):
        return None
    return bounds.size(a.coll)


def _fixed(bounds, where, var: str) -> dict:
    """Field -> the named value a conjunct `var.field == name` of the filter fixes it to."""
    out = {}
    for x in conjuncts(where):
        if not (isinstance(x, ir.BinOp) and x.op == "=="):
            continue
        for a, b in ((x.left, x.right), (x.right, x.left)):
            if isinstance(a, ir.Attr) and a.obj == ir.Local(var):
                name = _name(bounds, b)
                if name is not None:
                    out[a.name] = name
    return out
