"""Per-purpose random streams (common random numbers).

Every random draw of a game comes from a stream named by what it is for and
how many times that purpose has come up, not from one generator consumed in
order.  Two drafts that differ in one rule, or one draft under two
resolutions of a ruling, then draw the same cards, dice and bot choices
everywhere the change does not reach, so paired comparisons measure what the
rule causes and not the luck of a re-dealt game.

The purposes (format 2 of the game log):
- a shuffle of zone Z: `shuffle/Z/k`.  Each card gets its own key from the
  stream and the zone is sorted by key, so a card added to or removed from the
  zone leaves the others' order alone.  Shuffling a zone again before anything
  moved it reuses the same keys (an already shuffled order shuffled again is
  still uniformly random), so a duplicated shuffle is the same shuffle.
- a die's roll: `roll/DIE/rR/k` (R the round, k the k-th roll of that die in it).
- a random pick into variable V: `pick/V/rR/k`; each candidate has its own key
  and the pick is a weighted race of keys, so a candidate that was not chosen
  can disappear without changing the choice.
- a bot's decision: `bot/SEAT/rR/PROMPT/k`; the random bot takes the move
  whose own key is smallest (the same move wherever it is still legal), other
  bots get a generator seeded from the name.
Keys are named by labels (zone, die, card, move) with a copy number for equal
labels, never by card numbers or source lines, so a comment, a reordered
declaration or a renamed local does not change any draw.
"""

from __future__ import annotations

import hashlib
import math
import random

STREAMS_FORMAT = 2


def uniform(key: str) -> float:
    """A number in (0, 1) fixed by the key: the stream's draw for one name."""
    h = int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "big")
    return (h + 0.5) / 2.0 ** 64


_blake2b = hashlib.blake2b
_from_bytes = int.from_bytes
_SCALE = 2.0 ** 64


def uniforms(base: str, names) -> list[float]:
    """[uniform(f"{base}/{name}") for name in names], the same numbers: the hash of the shared prefix
    is computed once and copied for each name (a game draws hundreds of these, one per candidate
    move or shuffled card, and hashing each key from scratch was a good part of a random playout)."""
    head = _blake2b(f"{base}/".encode("utf-8"), digest_size=8)
    out = []
    append = out.append
    for name in names:
        h = head.copy()
        h.update(name.encode("utf-8"))
        append((_from_bytes(h.digest(), "big") + 0.5) / _SCALE)
    return out


def _with_copies(labels) -> list[str]:
    """Labels made unique by a copy number among equal labels, in order."""
    if type(labels) is list and len(set(labels)) == len(labels):
        return labels  # no two alike (the usual case): nothing to number
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
        k = seen.get(lab, 0) + 1
        seen[lab] = k
        out.append(lab if k == 1 else f"{lab}#{k}")
    return out


class Streams:
    """The random streams of one game on one seed."""

    def __init__(self, seed: int):
        self.seed = seed
        self.counts: dict[str, int] = {}
        self.after_shuffle: dict[int, tuple[tuple[int, ...], int]] = {}  # zone slot -> (order it left, occurrence)
        self._card_names: list[str] | None = None

    def _next(self, purpose: str) -> int:
        k = self.counts.get(purpose, 0) + 1
        self.counts[purpose] = k
        return k

    def _base(self, purpose: str, k: int) -> str:
        return f"soan/{self.seed}/{purpose}/{k}"

    def card_names(self, tables) -> list[str]:
        if self._card_names is None:
            # kept on the tables (their labels never change), not made again for every game's streams
            names = getattr(tables, "_stream_card_names", None)
            if names is None:
                names = tables._stream_card_names = _with_copies(tables.card_labels)
            self._card_names = names
        return self._card_names

    # ---- chance -------------------------------------------------------------------------------

    def chance(self, st):
        """The outcome of the chance event `st` is at, drawn from its purpose's stream."""
        c = st.pending
        if c.kind == "shuffle":
            return self._shuffle(st, c)
        if c.kind == "roll":
            die = st.t.card_labels[c.target]
            base = self._base(f"roll/{die}/r{st.round}", self._next(f"roll/{die}/r{st.round}"))
            return _by_cumulative(uniform(base), c.outcomes)
        purpose = f"pick/{c.var}/r{st.round}"
        base = self._base(purpose, self._next(purpose))
        us = uniforms(base, _with_copies(label for label, _ in c.outcomes))
        # exponential race: P(i wins) = w_i / sum(w), and dropping a loser keeps the winner
        return min(range(len(us)), key=lambda i: (-math.log(us[i]) / float(c.outcomes[i][1]), i))

    def _shuffle(self, st, c) -> list[int]:
        slot = c.target
        order = tuple(st.zones[slot])
        zone = st.t.zone_label(slot)
        prev = self.after_shuffle.get(slot)
        if prev is not None and order == prev[0]:
            k = prev[1]
        else:
            k = self._next(f"shuffle/{zone}")
        base = self._base(f"shuffle/{zone}", k)
        names = self.card_names(st.t)
        keys = uniforms(base, [names[cid] for cid in order])
        pairs = list(zip(keys, order))  # (key, card): the cards' keys, equal keys parted by card number
        outcome = sorted(range(len(order)), key=pairs.__getitem__)
        self.after_shuffle[slot] = (tuple(order[i] for i in outcome), k)
        return outcome

    # ---- decisions ----------------------------------------------------------------------------

    def decision(self, st, player: int) -> tuple[str, random.Random]:
        """The stream of a bot's decision: its name (for keyed choices) and a generator from it."""
        base = self.decision_name(st, player)
        return base, random.Random(base)

    def decision_name(self, st, player: int) -> str:
        """The name of a bot's decision's stream, without seeding a generator from it (seeding one
        costs more than a random bot's whole choice; a generator from the name is the same one
        whenever it is made)."""
        d = st.pending
        purpose = f"bot/{player}/r{st.round}/{d.prompt or d.var or 'chooses'}"
        k = self.counts.get(purpose, 0) + 1  # _next and _base, inline: one name per decision of every game
        self.counts[purpose] = k
        return f"soan/{self.seed}/{purpose}/{k}"


def keyed_choice(base: str, labels: list[str]) -> int:
    """A uniform choice among moves that stays the same move wherever it is still legal."""
    # The move whose key uniform(f"{base}/{label}") is smallest, the first of equal keys.  Compared as
    # digests (big-endian bytes of one length order as the numbers do) rather than as floats: a random
    # bot makes this choice at every decision, and the floats cost more than the hashing.  Two digests
    # can round to one float; if the two smallest do, the floats decide, as they always did.
    head = _blake2b(f"{base}/".encode(), digest_size=8)
    ds: list[bytes] = []
    append = ds.append
    for name in _with_copies(labels):
        h = head.copy()
        h.update(name.encode())
        append(h.digest())
    if len(ds) < 2:
        return 0
    order = sorted(ds)
    if _digest_uniform(order[0]) == _digest_uniform(order[1]):
        us = [_digest_uniform(d) for d in ds]
        return us.index(min(us))
    return ds.index(order[0])


def _digest_uniform(d: bytes) -> float:
    return (_from_bytes(d, "big") + 0.5) / _SCALE


def _by_cumulative(u: float, outcomes) -> int:
    # u < (running sum of the probabilities), decided exactly in integers, as comparing with a Fraction
    # sum would (State.sample_chance does the same): u = un / ud exactly, the sum = an / ad
    un, ud = u.as_integer_ratio()
    an, ad = 0, 1
    for i, (_, p) in enumerate(outcomes):
        pn, pd = p.numerator, p.denominator
        an, ad = an * pd + pn * ad, ad * pd
        if un * ad < an * ud:
            return i
    return len(outcomes) - 1
