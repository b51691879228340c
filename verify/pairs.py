"""An award, once per card of a loop over distinct cards, that counts the cards of another list
matching the loop's card on a printed field (`for s in p.sides { award count(m in L where m.f ==
s.g) to p for ... }`): one run of the loop gives the number of matching pairs (s, m).  Counted from
the side of L, each card m of L pairs with at most the loop's cards whose g equals m's f; so the run
gives at most the sum, over as many cards as L can hold, of the largest such numbers.  With three
loop cards per value and a list of at most six, that is 3 x 6 = 18, not (cards of the loop) x (the
most that match one of them).

The loop's body must move no card and set no field, so the list holds the same cards at each card
of the loop.  A term for the solver as verify/card_sums.py gives one, when it is the tighter."""

from __future__ import annotations

from soan.dsl import ir
from soan.dsl.analysis import conjuncts

from . import card_sums


def term(bounds, site, amount: tuple, times: int | None) -> tuple[int, int, int] | None:
    """(0, most pairs in one run, runs for one player) when the site is such an award and that is
    tighter than both `amount` x `times` and card_sums' term; else None."""
    ca = site.card_award
    node = site.node
    if ca is None or not isinstance(node.amount, ir.Agg) or node.amount.func != "count":
        return None
    agg = node.amount
    loop = ca.loop
    fields = _matched_fields(agg.where, agg.var, loop.var)
    if fields is None or loop.body is None or not _still(loop.body):
        return None
    f, g = fields
    with bounds.reading_in(site.env):
        listed = bounds._zone_cards(agg.coll)
        size = bounds.size(agg.coll)
    if listed is None or size is None:
        return None
    t = bounds.t
    values = [_printed(t, c, g) for c in loop.cards[1]]
    if any(v is _UNKNOWN for v in values):
        return None
    per = []
    for c in listed[1]:
        v = _printed(t, c, f)
        if v is _UNKNOWN:
            return None
        per.append(sum(1 for w in values if w == v))
    top = sum(sorted(per, reverse=True)[:size])
    lo, hi = amount
    best = None if None in (hi, times) else max(0, hi * times)
    other = card_sums.term(bounds, site, amount, times)
    if other is not None:
        best = other[1] * other[2] if best is None else min(best, other[1] * other[2])
    if best is not None and top * ca.runs >= best:
        return None
    return 0, top, ca.runs


_UNKNOWN = object()


def _still(body: ir.Block) -> bool:
    """Whether the loop's body leaves every list as it was: no card moved, no field set, no procedure
    run (else the list counted could hold other cards at each card of the loop, more in all than at once)."""
    return not any(isinstance(n, (ir.Move, ir.Draw, ir.Exchange, ir.Do)) or
                   (isinstance(n, ir.Set) and isinstance(n.target, ir.Attr)) for n in ir.walk(body))


def _printed(t, c: int, name: str):
    """A card's printed value of the field (None may be one), or _UNKNOWN: a state, or no such field."""
    if name in t.kind_states[t.kind[c]] or name not in t.fields[c]:
        return _UNKNOWN
    return t.fields[c][name]


def _matched_fields(where, var: str, loop_var: str) -> tuple[str, str] | None:
    """(f, g) when a conjunct of the filter is `var.f == loop_var.g` (either way round): the count
    is then at most the cards of the list matching the loop's card on those fields."""
    for x in conjuncts(where):
        if not (isinstance(x, ir.BinOp) and x.op == "=="):
            continue
        for a, b in ((x.left, x.right), (x.right, x.left)):
            if (isinstance(a, ir.Attr) and isinstance(b, ir.Attr) and a.obj == ir.Local(var)
                    and b.obj == ir.Local(loop_var)):
                return a.name, b.name
    return None
