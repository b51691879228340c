"""Chosen luck: outcomes of chance events chosen, not drawn, by the searches that look for witnesses.

Any outcome of a chance event that has a chance of happening is a game that could be dealt, so a search
for a witness (a game that shows something can happen) may choose the outcomes instead of drawing them:
the game log records each (a roll's number, a shuffle's new order) and replay takes any of them.  The
choices are few and made from the event alone, knowing no game:

- a roll: its highest face, its lowest, or one drawn at random (`menu`: every face);
- a pick: drawn at random;
- a shuffle (and later the cards of it still undrawn, below): the ordering drawn at random, or that
  ordering sorted by one fixed field every shuffled card has (a number lowest first or highest first, an
  enum or a flag grouped in its declared order), cards that tie kept in the random order: a deck stacked
  low, stacked high or dealt by kind.

A deck is dealt as it is drawn: where the cards of a shuffle not yet drawn are still the pile, in the
order the shuffle left them and seen by nobody, they may be stacked again (`Deals.restack`) as if the
shuffle had put them so.  The shuffle's outcome in the steps taken is rewritten to match (the cards drawn
before keep their places), so the game recorded is one that shuffle could have dealt; the witness is that
game, replayed from its steps like any other (a rule that read the pile's order in between would play
differently on replay, and the replayed game is the one reported).

`Course` is one way of choosing: which face rolls show and which ordering each pile takes.
"""

from __future__ import annotations

import random
from typing import Any

from soan.interpreter.runtime import Tables
from soan.interpreter.state import State

ROLLS = ("high", "low", "random")


def orderings(t: Tables, cards: list[int], base: list[int]) -> list[list[int]]:
    """The orderings of `cards` (card ids) to try, as positions into `cards`: `base` (an ordering drawn at
    random) first, then `base` sorted by each fixed field every card has (numbers ascending and
    descending, enums and flags grouped in their declared order), ties in `base`'s order; no ordering twice."""
    out = [base]
    if len(cards) < 2:
        return out
    shared = None
    for k in {t.kind[cid] for cid in cards}:
        names = t.static_fields[k]
        shared = list(names) if shared is None else [f for f in shared if f in names]
    seen = {tuple(base)}
    for f in shared or ():
        vals = [t.fields[cid].get(f) for cid in cards]
        if len(set(vals)) < 2:
            continue
        if all(type(v) is int for v in vals):
            keys = [lambda i, vals=vals: vals[i], lambda i, vals=vals: -vals[i]]
        else:
            keys = [lambda i, vals=vals: (vals[i] is None, t.symbol_rank(vals[i]))]
        for key in keys:
            order = sorted(base, key=key)
            if tuple(order) not in seen:
                seen.add(tuple(order))
                out.append(order)
    return out


def menu(st: State, rng: random.Random) -> list[Any]:
    """The outcomes to try at the chance event `st` stands at: a roll's or pick's outcome numbers whose
    probability is above 0, or a shuffle's orderings (`orderings`, the random one drawn from `rng`)."""
    c = st.pending
    if c.kind == "shuffle":
        cards = st.zones[c.target]
        base = list(range(len(cards)))
        rng.shuffle(base)
        return orderings(st.t, cards, base)
    return [i for i, (_, p) in enumerate(c.outcomes) if p > 0]


class Deals:
    """The shuffles whose cards not yet drawn may still be stacked again: per zone slot, the index of
    the shuffle's outcome among the steps taken, the zone's cards before the shuffle and as the shuffle
    (or a later stacking) left them."""

    __slots__ = ("open",)

    def __init__(self, open_: dict | None = None):
        self.open: dict[int, tuple[int, tuple, tuple]] = dict(open_ or {})

    def copy(self) -> "Deals":
        return Deals(self.open)

    def shuffled(self, slot: int, index: int, before: list[int], after: list[int]) -> None:
        """A shuffle of zone `slot`, its outcome at `index` of the steps taken."""
        self.open[slot] = (index, tuple(before), tuple(after))

    def pile(self, st: State, slot: int) -> int | None:
        """How many of the shuffle's cards were drawn where zone `slot` still holds the rest of them, in
        the shuffle's order and unseen (else None: the pile cannot be stacked again)."""
        rec = self.open.get(slot)
        if rec is None:
            return None
        after = rec[2]
        cur = st.zones[slot]
        k = len(after) - len(cur)
        if k < 0 or len(cur) < 2 or tuple(cur) != after[k:] or any(st.known[c] or st.facedown[c] for c in cur):
            return None
        return k

    def restack(self, st: State, slot: int, order: list[int]) -> tuple[int, list[int]]:
        """Zone `slot` (a pile `pile` allows) put in `order` (positions into it); the shuffle's outcome
        rewritten to match: its step index and new outcome."""
        index, before, after = self.open[slot]
        cur = st.zones[slot]
        k = len(after) - len(cur)
        new = [cur[i] for i in order]
        st.zones[slot] = new
        full = list(after[:k]) + new
        pos = {cid: j for j, cid in enumerate(before)}
        self.open[slot] = (index, before, tuple(full))
        return index, [pos[cid] for cid in full]


class Course:
    """One way of choosing luck, number `index`: its piles take the `index`-th stacked ordering of
    `orderings` (counting round again past the last), and its rolls show their highest face (numbers
    0-1), their lowest (2-3) or one drawn at random (4-5), and so on round again (so a pile of two
    stacked orderings meets each way of rolling)."""

    __slots__ = ("index", "roll")

    def __init__(self, index: int):
        self.index = index
        self.roll = ROLLS[(index // 2) % len(ROLLS)]

    def entry(self, n: int) -> int:
        """Which of a menu of `n` orderings (the random one first) this course's piles take."""
        return 0 if n < 2 else 1 + self.index % (n - 1)

    def draw(self, st: State, rng: random.Random) -> Any:
        """The outcome of the chance event `st` stands at (`rng`: where it is drawn at random)."""
        c = st.pending
        if c.kind == "roll" and self.roll != "random":
            m = [i for i, (_, p) in enumerate(c.outcomes) if p > 0]
            return m[-1] if self.roll == "high" else m[0]
        if c.kind == "shuffle":
            m = menu(st, rng)
            return m[self.entry(len(m))]
        return st.sample_chance(rng)

    def stack(self, st: State, deals: Deals) -> dict[int, list[int]]:
        """Every pile `deals` may stack again put in this course's ordering for it; the shuffles'
        outcomes rewritten, by step index."""
        out = {}
        for slot in sorted(deals.open):
            if deals.pile(st, slot) is None:
                continue
            cards = st.zones[slot]
            base = list(range(len(cards)))
            m = orderings(st.t, cards, base)
            order = m[self.entry(len(m))]
            if order == base:
                continue
            index, outcome = deals.restack(st, slot, order)
            out[index] = outcome
        return out
