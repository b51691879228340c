"""Bots.  A bot is given only what its seat may know: its view, its legal
moves, and a way to sample a full state consistent with that view (hidden
cards re-dealt at random).  It never sees the real hidden cards."""

from __future__ import annotations

import random
from typing import Callable

from .runtime import CardRef
from .state import CHANCE, Decision, Frame, State
from .streams import keyed_choice


class BotInput:
    """What a bot may see at one decision.  `stream` names the decision's own
    random stream and `rng` is a generator drawn from it (see streams.py);
    without them a bot uses the generator it was made with."""

    __slots__ = ("seat", "view", "moves", "sample", "stream", "rng")

    def __init__(self, seat: int, view: Callable[[], dict], moves: list[str], sample: Callable[[random.Random], State],
                 stream: str | None = None, rng: random.Random | None = None):
        self.seat = seat
        self.view = view
        self.moves = moves
        self.sample = sample
        self.stream = stream
        self.rng = rng


class RandomBot:
    name = "random"

    def __init__(self, seat: int, rng: random.Random):
        self.seat, self.rng = seat, rng

    def choose(self, info: BotInput) -> int:
        if info.stream is not None:  # the same move wherever it is still legal, for paired comparisons
            return keyed_choice(info.stream, info.moves)
        return self.rng.randrange(len(info.moves))


class GreedyBot:
    """One-step lookahead on its own score: for each move, play it in a state
    sampled from its view, then score the game as if it ended there."""

    name = "greedy"

    def __init__(self, seat: int, rng: random.Random):
        self.seat, self.rng = seat, rng

    def choose(self, info: BotInput) -> int:
        if len(info.moves) == 1:
            return 0
        rng = info.rng or self.rng
        sample = info.sample(rng)
        best: list[int] = []
        best_value = None
        for i in range(len(info.moves)):
            s = sample.clone()
            s.apply(i)
            value = score_if_ended(s, self.seat, rng)
            if best_value is None or value > best_value:
                best, best_value = [i], value
            elif value == best_value:
                best.append(i)
        return best[0] if len(best) == 1 else rng.choice(best)


BOTS = {"random": RandomBot, "greedy": GreedyBot}


def score_if_ended(state: State, seat: int, rng: random.Random, max_steps: int = 10_000) -> float:
    """The seat's score if the game's end-of-game scoring ran now.  Choices
    inside the scoring take the first legal move; chance is sampled."""
    if state.is_terminal():
        s = state
    else:
        s = state.clone()
        s.pending = None
        s.frames = [Frame(s.t.rules.end_ops, {})]
        s.run()
        steps = 0
        while not s.is_terminal() and steps < max_steps:
            if s.current_player() == CHANCE:
                s.apply_chance(s.sample_chance(rng))
            else:
                s.apply(0)
            steps += 1
    if s.elim[seat]:
        return -1_000_000
    return s.total_vp(seat)


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A copy of `state` in which every card hidden from `seat` is swapped at
    random with another hidden card of the same kind and owner.  States, face
    and knowledge stay with the position; every reference to a card follows it."""
    s = state.clone()
    t = s.t
    bit = 1 << seat
    groups: dict[tuple, list[int]] = {}
    for cid in range(t.n_cards):
        if not s.viewers(cid) & bit:
            groups.setdefault((t.kind[cid], -1 if t.owner[cid] is None else t.owner[cid].i), []).append(cid)
    mapping: dict[int, int] = {}
    for ids in groups.values():
        if len(ids) < 2:
            continue
        perm = list(ids)
        rng.shuffle(perm)
        for old, new in zip(ids, perm):
            if old != new:
                mapping[old] = new
    if not mapping:
        return s
    old_loc = list(s.loc)
    old_cs = {k: list(v) for k, v in s.cs.items()}
    old_fd, old_known = list(s.facedown), list(s.known)
    for old, new in mapping.items():
        slot = old_loc[old]
        zone = s.zones[slot]
        zone[state.zones[slot].index(old)] = new
        s.loc[new] = slot
        for k in s.cs:
            s.cs[k][new] = old_cs[k][old]
        s.facedown[new] = old_fd[old]
        s.known[new] = old_known[old]
    C = t.C

    def remap(v):
        if type(v) is CardRef:
            return C[mapping.get(v.id, v.id)]
        if type(v) is tuple:
            return tuple(remap(x) for x in v)
        return v

    for k, col in s.pv.items():
        s.pv[k] = [remap(v) for v in col]
    for k, v in s.gv.items():
        s.gv[k] = remap(v)
    seen = set()
    envs = [f.env for f in s.frames]
    if isinstance(s.pending, Decision) or getattr(s.pending, "env", None) is not None:
        envs.append(s.pending.env)
    for env in envs:
        if id(env) in seen:
            continue
        seen.add(id(env))
        for k, v in env.items():
            env[k] = remap(v)
    for f in s.frames:
        if f.loop is not None and hasattr(f.loop, "items"):
            f.loop.items = remap(f.loop.items)
    return s
