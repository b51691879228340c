"""Cards spent for good, counted by what is printed on them.

A choice of one card whose body always puts the card into a zone no rule takes
cards from runs at most once per card in the whole game (Bounds._consumed).
Read once for all the cards, a test of the card's printed fields inside the
body (directly, or through a procedure's parameter: `do act(p, c.effect)` then
`if e == bonus`) is undecided, so every branch counts as firing once per card.
Read once for each class of cards printed alike, the test is decided, and a
branch fires at most once per card of the classes that take it: of 18 cards,
the one printed with a bonus gives it once, not 18 times.

Sound because each run of the body has one chosen card, which is of exactly one
class, and a card of a class whose every way through the body ends with it in
such a zone is chosen at most once; a class that may keep its card counts as
often as the whole choice can run.  The split is used only when the classes'
counts add up to no more than the choice's count read as one, so it never makes
a statement outside the decided branches count more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from soan.dsl import ir

if TYPE_CHECKING:
    from .bounds import Bounds


def spent_by_class(b: Bounds, var: str, src, body: ir.Block | None, mult: int | None,
                   once: int | None) -> list[tuple[object, int | None]] | None:
    """For a choice (or pick) of one card `var` from `src` whose body is `body`, firing `mult`
    times and, read as one, `once` times in a game: [(what the chosen card is, how often the body
    runs with such a card)] for each class of cards printed alike, or None when reading the body
    once for all the cards is as good."""
    from .bounds import Val  # bounds imports this module

    if body is None:
        return None
    zc = b._zone_cards(src)
    if zc is None or len(zc[1]) < 2:
        return None
    if var in _bound_in(body):
        return None  # the local names another card later in the body
    classes: dict = {}
    for c in zc[1]:
        classes.setdefault(_printed(b, c), []).append(c)
    if len(classes) < 2:
        return None
    sinks = b._sinks()
    spent, kept_back = [], []
    for cards in classes.values():
        v = Val(one=True, zc=(zc[0], tuple(cards)))
        gone = b._with(var, v, lambda: _ends_in_sink(b, var, body.stmts, sinks, zc[0]))
        (spent if gone else kept_back).append(cards)
    if not spent:
        return None
    out = [(Val(one=True, zc=(zc[0], tuple(cards))), len(cards) if mult is None else min(mult, len(cards)))
           for cards in spent]
    total = sum(cap for _, cap in out)
    if kept_back:  # the cards a choice may choose again: read together, as often as the choice runs
        if mult is None:
            return None
        out.append((Val(one=True, zc=(zc[0], tuple(sorted(c for cards in kept_back for c in cards)))), mult))
    # never worse than reading the body once: the spent cards' runs at most double what the
    # choice's other statements count, and only beside cards that run the body anyway
    if once is not None and total > once and not kept_back:
        return None
    if once is not None and kept_back and total > once:
        return None
    return out


def printed_name(t, v, field: str) -> str | None:
    """The name printed alike in `field` on every card the value `v` can be (its kind for
    `kind`), or None: a field that changes in play, or differs between those cards."""
    if not v.one or v.zc is None or not v.zc[1]:
        return None
    names = set()
    for c in v.zc[1]:
        if field in t.kind_states[t.kind[c]]:
            return None
        x = t.fields[c].get(field, t.kind[c] if field == "kind" else None)
        if not isinstance(x, str):
            return None
        names.add(x)
    return names.pop() if len(names) == 1 else None


def _printed(b: Bounds, c: int) -> tuple:
    """What is printed on card `c`: its kind and fixed fields (its states change in play)."""
    t = b.t
    states = t.kind_states[t.kind[c]]
    return (t.kind[c],) + tuple(sorted((k, repr(x)) for k, x in t.fields[c].items() if k not in states))


def _ends_in_sink(b: Bounds, var: str, stmts, sinks: set[str], src_zones) -> bool:
    """Whether every way through `stmts` (tests of the card's printed fields decided as they
    read for the card bound to `var`) moves the card into a zone no rule takes cards from and
    that the choice does not choose from, with no `break` before that move."""
    for st in stmts:
        if isinstance(st, ir.Move) and st.what == ir.Local(var) and _sink(st.dest, sinks, src_zones):
            return True
        if isinstance(st, ir.If):
            ways, settled = [], False
            for test, blk in st.branches:
                known = b.truth(test) if _reads_only_print(test, var) else None
                if known is False:
                    continue
                ways.append(blk.stmts)
                if known is True:
                    settled = True
                    break
            if not settled:
                if st.orelse is None:
                    ways.append(None)  # no branch taken: the statements after the `if` must do it
                else:
                    ways.append(st.orelse.stmts)
            if ways and all(w is not None and _ends_in_sink(b, var, w, sinks, src_zones) for w in ways):
                return True
        if _has_break(st):
            return False
    return False


def _has_break(st: ir.Stmt) -> bool:
    from .bounds import node_memo
    return node_memo(_BREAKS, st, lambda: any(isinstance(n, ir.Break) for n in ir.walk(st)))


def _bound_in(body: ir.Block) -> frozenset[str]:
    """The locals the statements of `body` bind, at any depth."""
    from .bounds import node_memo
    return node_memo(_BOUND, body, lambda: frozenset(k for n in ir.walk(body) if isinstance(n, ir.Stmt)
                                                      for k in _bound_by(n)))


_BREAKS: dict = {}
_BOUND: dict = {}


def _reads_only_print(test, var: str) -> bool:
    """Whether `test` reads nothing the body's earlier statements could change: only the chosen
    card's fields (a printed one decides, a state one does not), names, numbers and settings."""
    for n in ir.walk(test):
        match n:
            case ir.Local(name=name) if name != var:
                return False
            case ir.BinOp() | ir.Not() | ir.Attr(obj=ir.Local()) | ir.Local() | ir.Symbol() | ir.Int() | ir.Bool() | \
                    ir.Param():
                continue
            case _:
                return False
    return True


def _sink(dest, sinks: set[str], src_zones) -> bool:
    match dest:
        case ir.SharedZone(name=name) | ir.Attr(name=name):
            return name in sinks and name not in src_zones
    return False


def _bound_by(st: ir.Stmt) -> set[str]:
    from .bounds import _binds
    return _binds(st)
