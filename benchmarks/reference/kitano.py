"""Kitano Grand Tea Party, draft 20, written by hand: the yardstick soan's speed
is measured against.  No soan: plain Python over ints and lists.

It plays the game `specs/kitano-20.soan` describes, with that spec's
provisional rulings and assumptions (see the spec for each one and the
draft's section it cites):

  anger_shortage = unlimited, pardon_threshold = 3, facedown_spent = kept,
  utensils_only = meibutsu_only, tribute_minimum = 1, bulk_needs_two = two,
  bestowal_column = new_column, procurement_short = return_drawn,
  final_tiebreak = favourite_only, majority_tiebreak = play_round,
  taiko_lacks_suit = angers, only_possible_effects, effects_one_by_one.

Every seat is a random player that picks uniformly among the *distinct* moves
soan offers: cards a player cannot tell apart (same kind, suit or type, same
storehouse column and round) are one move, and a choice of several cards is a
choice of how many of each such class.  So the two play the same game with
the same move distribution, though not on the same random stream: they are
compared statistically (benchmarks/yardstick.py), not game by game.

    python benchmarks/reference/kitano.py --players 4 -n 10000
"""

from __future__ import annotations

import argparse
import random
import time

SUITS = 6  # chaire, chawan, chashaku, chasen, chagama, kogo: the popularity cards' order
AUDIENCE, GOLD, NINJA = 0, 1, 2
TRIBUTE, BESTOWAL, PROCUREMENT, GILDING, BULK, SWAP, SCOUTING = range(7)
MENU = {AUDIENCE: (TRIBUTE, BESTOWAL, PROCUREMENT), GOLD: (GILDING, BULK, PROCUREMENT),
        NINJA: (SWAP, SCOUTING, PROCUREMENT)}
ROUNDS = 7
ANGER_COST = 3
PARDON = 3


def _pick_classes(rng, classes, lo, hi):
    """Uniformly one of every way to take between lo and hi items, items of a
    class alike: returns how many to take of each class."""
    sizes = [len(c) for c in classes]
    hi = min(hi, sum(sizes))
    if hi < lo:
        return None
    # ways[k][t]: selections of exactly t items from classes k.. (each class 0..size)
    n = len(sizes)
    ways = [[0] * (hi + 1) for _ in range(n + 1)]
    ways[n][0] = 1
    for k in range(n - 1, -1, -1):
        row, nxt = ways[k], ways[k + 1]
        for t in range(hi + 1):
            row[t] = sum(nxt[t - m] for m in range(min(sizes[k], t) + 1))
    total = sum(ways[0][t] for t in range(lo, hi + 1))
    r = rng.randrange(total)
    for t in range(lo, hi + 1):
        if r < ways[0][t]:
            break
        r -= ways[0][t]
    picked = []
    for k in range(n):
        for m in range(min(sizes[k], t) + 1):
            w = ways[k + 1][t - m]
            if r < w:
                picked.append(m)
                t -= m
                break
            r -= w
    return picked


class Game:
    """One game.  A card is an int; kind 0 is a utensil (meibutsu) with a suit,
    kind 1 an action card with a type.  Zones are lists, top of a pile first."""

    def __init__(self, players: int, rng: random.Random):
        self.n = players
        self.rng = rng
        self.kind, self.suit, self.slot, self.placed, self.down = [], [], [], [], []
        self.deck = []
        for s in range(SUITS):
            for _ in range(8):
                self._new(0, s)
                self.deck.append(len(self.kind) - 1)
        self.actions = []
        for _p in range(players):
            self.actions.append([self._new(1, t) for t in (AUDIENCE, GOLD, NINJA)])
        self.dice_suits = list(range(SUITS))
        self.hand = [[] for _ in range(players)]
        self.store = [[] for _ in range(players)]
        self.taiko = []
        self.columns = [0] * players
        self.anger = [0] * players
        self.vp = [0] * players
        self.elim = [False] * players

    def _new(self, kind, suit):
        self.kind.append(kind)
        self.suit.append(suit)
        self.slot.append(0)
        self.placed.append(0)
        self.down.append(False)
        return len(self.kind) - 1

    # ---- what a random seat does ----------------------------------------------------------

    def _classes(self, cards):
        groups = {}
        for c in cards:
            groups.setdefault((self.kind[c], self.suit[c], self.slot[c], self.placed[c], self.down[c]), []).append(c)
        return list(groups.values())

    def choose_one(self, cards):
        classes = self._classes(cards)
        return self.rng.choice(classes)[0] if classes else None

    def choose_some(self, cards, lo, hi):
        classes = self._classes(cards)
        picked = _pick_classes(self.rng, classes, lo, hi)
        if picked is None:
            return None
        return [c for cls, m in zip(classes, picked) for c in cls[:m]]

    # ---- the game ----------------------------------------------------------------------------

    def draw(self, k, to):
        got = self.deck[:k]
        del self.deck[:k]
        to.extend(got)

    def play(self) -> dict:
        rng, n = self.rng, self.n
        if n == 3:  # one suit leaves the game, cards and die alike
            gone = rng.randrange(SUITS)
            self.deck = [c for c in self.deck if self.suit[c] != gone]
            self.dice_suits.remove(gone)
        self.face = [rng.randint(1, 6) for _ in self.dice_suits]
        rng.shuffle(self.deck)
        self.draw(2, self.taiko)
        for c in self.taiko:
            self.down[c] = True
        self.draw(5, self.taiko)
        for p in range(n):
            self.draw(7, self.hand[p])
        discards = []
        for p in range(n):
            out = self.choose_some(self.hand[p], 0, 3)
            for c in out:
                self.hand[p].remove(c)
            discards.extend(out)
            self.draw(len(out), self.hand[p])
        self.deck = discards + self.deck  # the discards are moved onto the deck, then shuffled
        rng.shuffle(self.deck)
        for p in range(n):
            self.hand[p].extend(self.actions[p])
        head = rng.randrange(n)
        order = [(head + k) % n for k in range(n)]
        for rnd in range(1, ROUNDS + 1):
            played = [self.choose_one(self.hand[p]) for p in range(n)]
            for p in order:
                c = played[p]
                self.hand[p].remove(c)
                self.slot[c] = self.columns[p]
                self.placed[c] = rnd
                self.columns[p] += 1
                self.store[p].append(c)
            types = [self.suit[played[p]] for p in range(n) if self.kind[played[p]] == 1]
            for p in order:
                c = played[p]
                if self.kind[c] == 1 and types.count(self.suit[c]) >= 2:
                    self.down[c] = True
            for p in order:
                c = played[p]
                if self.kind[c] == 1 and not self.down[c]:
                    self.resolve(p, c, rnd)
        return self.tea_party()

    def shown(self):
        return [c for c in self.taiko if not self.down[c]]  # only utensils reach the Taiko

    def resolve(self, p, card, rnd):
        allowed = 1 + sum(1 for c in self.store[p] if self.kind[c] == 1 and self.down[c])
        done = []
        for k in range(allowed):
            hand_utensils = sum(1 for c in self.hand[p] if self.kind[c] == 0)
            options = []
            for e in MENU[self.suit[card]]:
                if e in done:
                    continue
                if e == TRIBUTE and not hand_utensils:
                    continue
                if e == BESTOWAL and not self.shown():
                    continue
                if e == BULK and hand_utensils < 2:
                    continue
                if e == SWAP and not (self.shown() and any(self.kind[c] == 0 for c in self.store[p])):
                    continue
                options.append(e)
            if k > 0:
                options.append(None)  # pass: ends the turn's effects
            e = self.rng.choice(options)
            if e is None:
                return
            done.append(e)
            self.apply(p, card, e, rnd)

    def apply(self, p, card, e, rnd):
        hand = self.hand[p]
        if e == TRIBUTE:
            gifts = self.choose_some([c for c in hand if self.kind[c] == 0], 1, 2)
            if gifts is not None:
                for c in gifts:
                    hand.remove(c)
                    self.down[c] = False
                self.taiko.extend(gifts)
            self.draw(1, hand)
        elif e == BESTOWAL:
            c = self.choose_one(self.shown())
            self.placed[c] = rnd
            self.slot[c] = self.columns[p]
            self.columns[p] += 1
            self.taiko.remove(c)
            self.store[p].append(c)
        elif e == PROCUREMENT:
            drawn = min(3, len(self.deck))
            self.draw(3, hand)
            for _ in range(drawn):
                c = self.choose_one([c for c in hand if self.kind[c] == 0])
                if c is None:
                    continue
                hand.remove(c)
                self.deck.append(c)
        elif e == GILDING:
            if self.rng.randrange(2) == 0:  # swap two dice
                m = len(self.face)
                pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
                i, j = self.rng.choice(pairs)
                self.face[i], self.face[j] = self.face[j], self.face[i]
            else:  # turn one over
                i = self.rng.randrange(len(self.face))
                self.face[i] = 7 - self.face[i]
        elif e == BULK:
            bought = self.choose_some([c for c in hand if self.kind[c] == 0], 2, 2)
            for c in bought:
                self.slot[c] = self.slot[card]
                self.placed[c] = rnd
                hand.remove(c)
            self.store[p].extend(bought)
        elif e == SWAP:
            mine = self.choose_one([c for c in self.store[p] if self.kind[c] == 0])
            theirs = self.choose_one(self.shown())
            self.slot[theirs] = self.slot[mine]
            self.placed[theirs] = self.placed[mine]
            store = self.store[p]
            store[store.index(mine)] = theirs
            self.taiko[self.taiko.index(theirs)] = mine
        # SCOUTING only changes what a player knows

    def tea_party(self) -> dict:
        n = self.n
        store, suit, kind = self.store, self.suit, self.kind
        for p in range(n):
            self.vp[p] += len({suit[c] for c in store[p] if kind[c] == 0})
        for c in self.taiko:
            self.down[c] = False
        taiko_count = [0] * SUITS
        for c in self.taiko:
            taiko_count[suit[c]] += 1
        held = [[0] * SUITS for _ in range(n)]
        first = [[99] * SUITS for _ in range(n)]
        for p in range(n):
            for c in store[p]:
                if kind[c] == 0:
                    s = suit[c]
                    held[p][s] += 1
                    if self.placed[c] < first[p][s]:
                        first[p][s] = self.placed[c]
        for face, s in zip(self.face, self.dice_suits):
            best = None
            holders = []
            for p in range(n):
                if held[p][s] > 0:
                    key = (-held[p][s], first[p][s])
                    if best is None or key < best:
                        best, holders = key, [p]
                    elif key == best:
                        holders.append(p)
            for p in holders:
                self.vp[p] += face // len(holders)
                if held[p][s] >= taiko_count[s]:
                    self.anger[p] += 1
        for p in range(n):
            if self.anger[p] == 1:
                self.vp[p] -= ANGER_COST
            elif 2 <= self.anger[p] < PARDON:
                self.elim[p] = True
        top_face = max(self.face)
        favourite = self.dice_suits[self.face.index(top_face)]
        alive = [p for p in range(n) if not self.elim[p]]
        winners = []
        if alive:
            best = max((self.vp[p], held[p][favourite]) for p in alive)
            winners = [p for p in alive if (self.vp[p], held[p][favourite]) == best]
        return {"scores": list(self.vp), "winners": winners, "draw": len(winners) > 1,
                "eliminated": sum(self.elim)}


def play(players: int, seed: int) -> dict:
    return Game(players, random.Random(f"kitano/{seed}")).play()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4, choices=(3, 4))
    ap.add_argument("-n", "--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    total = draws = elims = 0
    for g in range(a.games):
        r = play(a.players, a.seed + g)
        total += sum(r["scores"])
        draws += r["draw"]
        elims += r["eliminated"]
    dt = time.perf_counter() - t0
    print(f"{a.games} games at {a.players} players in {dt:.2f} s ({a.games / dt:.0f} games/s): "
          f"mean score {total / (a.games * a.players):.3f}, draw rate {draws / a.games:.4f}, "
          f"eliminations/game {elims / a.games:.4f}")


if __name__ == "__main__":
    main()
