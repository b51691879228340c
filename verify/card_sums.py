"""An award made once per card of a loop over distinct cards (`for s in p.sides { award s.value
to p for ... }`): in one run of the loop each card comes once, so the run gives at most the sum of
the largest amounts of as many cards as the list can hold, not that many times the largest amount.
With eighteen cards worth 2, 3, 4 or 5 and a list of up to eighteen, the bound is their sum (60),
not 18 x 5 (90).

Bounds (verify/bounds.py) notes each loop over a list of cards as it reads it (`enter`), and each
award met in such a loop's body (`note_award`); `term` then gives the award's term for the solver
when it is the tighter one."""

from __future__ import annotations

import attrs

from soan.dsl import ir


@attrs.frozen
class CardLoop:
    """A `for` over a list of distinct cards, as it was met."""

    var: str
    cards: tuple  # (zones, card ids): the cards that can be in the list
    size: int  # the most cards the list holds
    mult: int  # how often the loop statement itself runs in a game (its body fires mult x size)
    env: dict  # the locals where the loop starts
    depth: int  # the procedures and defs being read around it (an award in a call it makes is not its own)
    body: ir.Block | None = None  # the loop's body
    coll: ir.Expr | None = None  # the list looped over


@attrs.frozen
class CardAward:
    """An award that fires at most once per card in a run of `loop`, for one player at most
    `runs` runs of it."""

    loop: CardLoop
    runs: int


def enter(bounds, coll: ir.Expr, var: str, mult: int | None, size: int | None,
          body: ir.Block | None = None) -> CardLoop | None:
    """The loop `for var in coll`, when `coll` is a list of distinct cards (a zone, a filter of one,
    zones joined: a card lies in one zone at a time) of known size, run a known number of times."""
    if mult is None or not size:
        return None
    zc = bounds._zone_cards(coll)
    if zc is None or not zc[1]:
        return None
    return CardLoop(var, (zc[0], tuple(zc[1])), size, mult, dict(bounds.env), len(bounds._stack), body, coll)


def note_award(bounds, loops: list[CardLoop], who: ir.Expr, mult: int | None,
               award: ir.Stmt | None = None) -> CardAward | None:
    """For an award to `who` fired `mult` times, read inside the innermost of `loops`: the loop
    and how often one player can be given it per run, when the award fires at most once per card:
    no other loop lies between (its firings are exactly the loop's body's), and `who` is a local
    the loop's body has not bound anew (so the same player all through one run)."""
    if not loops or mult is None:
        return None
    loop = loops[-1]
    if mult != loop.mult * loop.size or len(bounds._stack) != loop.depth:
        return None
    if award is None or loop.body is None or not _outside_loops(loop.body, award):
        return None
    if not isinstance(who, ir.Local) or who.name == loop.var or who.name not in loop.env:
        return None
    from .bounds import _rebound  # it imports this module

    if bounds.env.get(who.name) != loop.env[who.name] or who.name in _rebound(loop.body):
        return None
    with bounds.reading_in(loop.env):
        runs = bounds._per_player(who, loop.mult)
    return None if runs is None else CardAward(loop, runs)


def term(bounds, site, amount: tuple[int, int], times: int | None) -> tuple[int, int, int] | None:
    """(lowest, highest, runs): what one run of the site's card loop can give in all, and the
    runs for one player, when that is tighter than `amount` x `times` (and on neither side looser);
    else None."""
    ca = site.card_award
    if ca is None:
        return None
    loop = ca.loop
    per_card = amounts(bounds, site)
    if per_card is None:
        return None
    k = loop.size
    top = sum(sorted((max(0, hi) for _, hi in per_card), reverse=True)[:k])
    bottom = sum(sorted(min(0, lo) for lo, _ in per_card)[:k])
    lo, hi = amount
    if None not in (lo, hi, times):  # the default term's range: from no firing to all of them
        most, least = max(0, hi * times), min(0, lo * times)
        if top * ca.runs > most or bottom * ca.runs < least or (top * ca.runs, bottom * ca.runs) == (most, least):
            return None  # not tighter, or looser on one side
    return bottom, top, ca.runs


def amounts(bounds, site) -> list | None:
    """The award's amount for each card its loop can meet, that card bound to the loop's variable."""
    loop = site.card_award.loop
    out = []
    with bounds.reading_in(site.env):
        for c in loop.cards[1]:
            iv = bounds._with(loop.var, attrs.evolve(bounds.env.get(loop.var, _one()), one=True,
                                                    zc=(loop.cards[0], (c,))),
                              lambda: bounds.interval(site.node.amount))
            if iv is None:
                return None
            out.append(iv)
    return out


def _one():
    from .bounds import Val

    return Val(one=True)


def _outside_loops(node: ir.Node, target: ir.Node) -> bool:
    """Whether `target` lies inside `node` with no loop (`for`, `repeat`, `while`) on the way."""
    if node is target:
        return True
    if isinstance(node, (ir.For, ir.Repeat, ir.While)):
        return False
    return any(_outside_loops(c, target) for c in ir.children(node))
