"""Bots.  A bot is given only what its seat may know: its view, its legal
moves, and a way to sample a full state consistent with that view (hidden
cards re-dealt at random).  It never sees the real hidden cards."""

from __future__ import annotations

import random
from typing import Callable

from .evaluate import evaluator
from .runtime import CardRef
from .state import CHANCE, Decision, State
from .streams import keyed_choice


class BotInput:
    """What a bot may see at one decision.  `stream` names the decision's own
    random stream and `rng` is a generator drawn from it (see streams.py);
    without them a bot uses the generator it was made with."""

    __slots__ = ("seat", "view", "moves", "sample", "stream", "_rng")

    def __init__(self, seat: int, view: Callable[[], dict], moves: list[str], sample: Callable[[random.Random], State],
                 stream: str | None = None, rng: random.Random | None = None):
        self.seat = seat
        self.view = view
        self.moves = moves
        self.sample = sample
        self.stream = stream
        self._rng = rng

    @property
    def rng(self) -> random.Random | None:
        """The decision's generator; given as FROM_STREAM, it is seeded from `stream` when first asked
        for (the same generator as one made up front: seeding costs more than a random bot's choice)."""
        if self._rng is FROM_STREAM:
            self._rng = random.Random(self.stream)
        return self._rng

    @rng.setter
    def rng(self, value) -> None:
        self._rng = value


FROM_STREAM = object()  # BotInput's rng: a generator seeded from the decision's stream, made on first use


class RandomBot:
    name = "random"

    def __init__(self, seat: int, rng: random.Random):
        self.seat, self.rng = seat, rng

    def choose(self, info: BotInput) -> int:
        if info.stream is not None:  # the same move wherever it is still legal, for paired comparisons
            return keyed_choice(info.stream, info.moves)
        return self.rng.randrange(len(info.moves))


class GreedyBot:
    """One turn's lookahead on the winner line: for each move, play it in a state
    sampled from its view, end the game there (its scoring and winner line)
    and take the move that leaves the seat best placed to win (evaluate.py:
    the win, then the place, then the lead on the line's first key).

    A move the rules split into several decisions of the same seat (what to buy
    chosen, then how to pay for it) is judged by where the whole of it leads:
    while the seat decides again straight after the move, with no chance or
    other seat between, the bot plays on greedily (each follow-up judged one
    step ahead, at most FOLLOW_UPS of them) before ending the game.  Judged
    one decision ahead, the first half of such a move changes nothing and
    every option looks alike."""

    name = "greedy"
    FOLLOW_UPS = 8

    def __init__(self, seat: int, rng: random.Random):
        self.seat, self.rng = seat, rng

    def choose(self, info: BotInput) -> int:
        if len(info.moves) == 1:
            return 0
        rng = info.rng or self.rng
        sample = info.sample(rng)
        sample.lazy_moves = True  # its copies' next decisions are mostly only scored: their moves made when read
        ev = evaluator(sample.t)
        best: list[int] = []
        best_value = None
        last = len(info.moves) - 1
        for i in range(len(info.moves)):
            s = sample.clone() if i < last else sample  # the sample itself serves the last move (not used after it)
            s.apply(i)
            s, value = self._follow_up_valued(s, ev, rng)
            if value is None:
                value = ev.outcome(s, rng, spare=True).key(self.seat)  # s is this move's own copy
            if best_value is None or value > best_value:
                best, best_value = [i], value
            elif value == best_value:
                best.append(i)
        return best[0] if len(best) == 1 else rng.choice(best)

    def _follow_up(self, s: State, ev, rng: random.Random) -> State:
        """`s` played on while the seat decides again at once: each follow-up the one that ends best one step ahead
        (the first of equals, so no draw is spent)."""
        return self._follow_up_valued(s, ev, rng)[0]

    def _follow_up_valued(self, s: State, ev, rng: random.Random) -> tuple[State, tuple | None]:
        """`_follow_up`, with the value of where it ends, where already known:
        the last follow-up's best copy was that very position, and an ending that drew no chance event gives
        it again without drawing (so scoring it twice would change nothing, not even the stream of draws)."""
        seat = self.seat
        known = None
        for _ in range(self.FOLLOW_UPS):
            pending = s.pending
            if not isinstance(pending, Decision) or pending.player != seat or s.is_terminal():
                break
            moves = pending.moves
            if len(moves) == 1:
                s.apply(0)
                known = None
                continue
            best_i, best_value, best_pure, best_c = 0, None, False, None
            last = len(moves) - 1
            for j in range(len(moves)):
                # the last option is played on `s` itself where `s` is not needed again: the best so far is a copy kept
                # whole, and the ending runs on a copy of its own (finish_now without spare) unless remembered, so `s`
                # stays the position the option leads to
                own = j < last or best_c is None
                c = s.clone() if own else s
                c.apply(j)
                drawn = [0]
                ended = c.is_terminal()
                value = ev.outcome(c, rng, spare=own, drawn=drawn).key(seat)
                if best_value is None or value > best_value:
                    # a copy the evaluator did not end in place (its outcome remembered, the game over, or `s`
                    # itself, ended on a copy) is the position the move leads to, as applying it to `s` would make it
                    best_i, best_value, best_pure = j, value, not drawn[0]
                    best_c = c if ended or not c.ending or not own else None
            if best_c is not None:
                s = best_c
            else:
                s.apply(best_i)
            known = best_value if best_pure else None
        return s, known


class RolloutBot:
    """Looks past chance: for each move, plays a few games on from a state sampled from its view (every
    seat at random, every chance event drawn) for a fixed number of steps, scores them as if the game
    ended there, and takes the move with the best mean margin over the best other seat.  So a choice
    whose worth shows only after a chance event and later steps (where to aim a toss) is judged by
    what tends to follow it.  Each rollout is valued on the winner line (evaluate.py), its lead on
    the line's first key breaking ties between rollouts of equal outcome.  Its work is fixed (ROLLOUTS x DEPTH steps a move), never timed."""

    name = "rollout"
    ROLLOUTS = 3
    DEPTH = 100

    def __init__(self, seat: int, rng: random.Random):
        self.seat, self.rng = seat, rng

    def choose(self, info: BotInput) -> int:
        if len(info.moves) == 1:
            return 0
        best: list[int] = []
        best_value = None
        # every move meets the same draws in its k-th rollout (common random numbers): the moves are
        # compared on the same luck, so a few rollouts tell them apart
        seeds = [self.rng.getrandbits(64) for _ in range(self.ROLLOUTS)]
        for i in range(len(info.moves)):
            value = sum(self._rollout(info, i, random.Random(s)) for s in seeds)
            if best_value is None or value > best_value:
                best, best_value = [i], value
            elif value == best_value:
                best.append(i)
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _rollout(self, info: BotInput, i: int, rng: random.Random) -> float:
        s = info.sample(rng)
        s.apply(i)
        for _ in range(self.DEPTH):
            if s.is_terminal():
                break
            if s.current_player() == CHANCE:
                s.apply_chance(s.sample_chance(rng))
            else:
                s.apply(rng.randrange(len(s.legal_moves())))
        o = evaluator(s.t).outcome(s, rng, spare=True)
        return o.soft(self.seat, s.t.n) * 1000 + o.margin[self.seat]


BOTS = {"random": RandomBot, "greedy": GreedyBot, "rollout": RolloutBot}
SEARCH_BOTS = ("mcts",)  # bots that take a work budget: mcts:PLAYOUTS, mcts:PLAYOUTS:DEPTH or mcts:PLAYOUTS:DEPTH:POLICY
# (POLICY: random, greedy or mast, playout.py)
# (DEPTH in decisions, or rK: K round ends), and after the policy an option: `topK`, only greedy's K best moves
# searched at the root (mcts.py)
MAX_PLAYOUTS = 1_000_000


def bot_problem(name: str, spec=None) -> tuple[str, str] | None:
    """Why `name` names no bot (a message and a hint), or None.  A bot is a
    built-in one (random, greedy, rollout), mcts with an optional budget
    (`mcts:2000`: playouts a decision; `mcts:2000:40`: each playout 40
    decisions deep at most; `mcts:12:r1`: each playout to the end of the
    round under way; `mcts:20:6:greedy`: the seats play greedy's moves
    in the playouts, playout.py; `mcts:100:10:mast`: each seat plays the move
    whose label has fared best for it in the search so far, mcts.py; `mcts:30:10:mast:top3`: only greedy's 3 best
    moves searched at the root), or a strategy the spec declares."""
    import difflib

    strategies = [st.name for st in getattr(spec, "strategies", ())] if spec is not None else []
    known = sorted(BOTS) + list(SEARCH_BOTS) + strategies
    head, _, rest = name.partition(":")
    if head in SEARCH_BOTS:
        from .playout import POLICIES

        parts = rest.split(":") if rest else []
        least = (1, 0)  # at least one playout; a depth of 0 scores the game where the tree ends
        if len(parts) >= 3 and parts[2] not in POLICIES:
            return (f"'{name}': mcts's playout policy is one of {', '.join(POLICIES)}, not '{parts[2]}'",
                    "e.g. mcts:20:6:greedy")
        if len(parts) > 3:
            if len(parts) > 4 or not _top(parts[3]):
                return (f"'{name}': mcts's one option after the playout policy is topK, K a whole number from 1 to "
                        f"{MAX_PLAYOUTS:,}: search only greedy's K best moves at the root", "e.g. mcts:30:10:mast:top3")
            parts = parts[:3]
        parts = parts[:1] + [_rounds_depth(x) for x in parts[1:2]] + parts[2:]  # a depth `r2` checked as 2
        if len(parts) > 3 or not all(x.isdigit() and least[k] <= int(x) <= MAX_PLAYOUTS for k, x in enumerate(parts[:2])):
            return (f"'{name}': mcts takes a budget of playouts a decision, and optionally a playout depth in "
                    f"decisions (0: score the game where the tree ends) or in rounds (r1: to the end of the round "
                    f"under way), whole numbers up to {MAX_PLAYOUTS:,}, "
                    f"and after them a playout policy ({', '.join(POLICIES)}) and the option topK",
                    "e.g. mcts:2000 or mcts:500:40 or mcts:20:6:greedy or mcts:12:r1:greedy or mcts:100:10:mast "
                    "or mcts:30:10:mast:top3")
        return None
    if rest:
        return f"'{name}': only mcts takes a budget after ':'", "e.g. mcts:2000"
    if head in BOTS or head in strategies:
        return None
    near = difflib.get_close_matches(head, known, n=1)
    return f"unknown bot '{name}'", (f"did you mean '{near[0]}'?" if near else "bots: " + ", ".join(known))


def _top(x: str) -> bool:
    """Whether `x` is mcts's option after the playout policy, `topK`, K a whole number from 1 to MAX_PLAYOUTS."""
    return x.startswith("top") and x[3:].isdigit() and 1 <= int(x[3:]) <= MAX_PLAYOUTS


def _rounds_depth(x: str) -> str:
    """A playout depth in rounds (`r1`: to the end of the round under way, `r2`: of the next) as its count, to be
    checked like a depth in decisions; at least one round."""
    return x[1:] if x.startswith("r") and x[1:].isdigit() and int(x[1:]) >= 1 else ("" if x.startswith("r") else x)


def make_bot(name: str, seat: int, rng: random.Random, tables):
    """The bot `name` (see bot_problem) for one seat of a game on `tables`."""
    head, _, rest = name.partition(":")
    if head in SEARCH_BOTS:
        from .mcts import DEFAULT_PLAYOUTS, MCTSBot

        parts = rest.split(":") if rest else []
        depth = parts[1] if len(parts) > 1 else None
        rounds = int(depth[1:]) if depth is not None and depth.startswith("r") else None
        return MCTSBot(seat, rng, int(parts[0]) if parts else DEFAULT_PLAYOUTS,
                       int(depth) if depth is not None and rounds is None else None,
                       parts[2] if len(parts) > 2 else "random", rounds=rounds,
                       top=int(parts[3][3:]) if len(parts) > 3 else None)
    if head in BOTS:
        return BOTS[head](seat, rng)
    from .strategy import StrategyBot

    return StrategyBot(tables, head, seat, rng)


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A copy of `state` in which every card hidden from `seat` is swapped at
    random with another hidden card of the same kind and owner.  States, face
    and knowledge stay with the position; every reference to a card follows it."""
    s = state.clone()
    t = s.t
    bit = 1 << seat
    groups: dict[tuple, list[int]] = {}
    kinds = getattr(t, "_redeal_kinds", None)  # each card's (kind, owner's seat or -1): the group it is re-dealt within
    if kinds is None:
        kinds = t._redeal_kinds = tuple((t.kind[cid], -1 if t.owner[cid] is None else t.owner[cid].i)
                                        for cid in range(t.n_cards))
    facedown, known, loc, sees = s.facedown, s.known, s.loc, t.slot_sees
    for cid in range(t.n_cards):
        # State.viewers, inline: who sees a face-down card is who knows it; a face-up one, also who sees its place
        if not (known[cid] if facedown[cid] else sees[loc[cid]] | known[cid]) & bit:
            groups.setdefault(kinds[cid], []).append(cid)
    mapping: dict[int, int] = {}
    # the columns read below are the original's (`state`, which nothing here changes), so none is copied first
    old_loc, old_cs, old_fd, old_known, old_zones = state.loc, state.cs, state.facedown, state.known, state.zones
    zones, loc, cs, fd, kn = s.zones, s.loc, s.cs, s.facedown, s.known
    states = t.kind_states
    for (kind, _), ids in groups.items():
        if len(ids) < 2:
            continue
        perm = list(ids)
        rng.shuffle(perm)
        pairs = [(old, new) for old, new in zip(ids, perm) if old != new]
        for old, new in pairs:
            mapping[old] = new
            slot = old_loc[old]
            zones[slot][old_zones[slot].index(old)] = new
            loc[new] = slot
            fd[new] = old_fd[old]
            kn[new] = old_known[old]
        # card states stay with the position, a column at a time; only the kind's own states: a card never holds a
        # state its kind lacks (its column is none there, for every card of the kind, and no write can set it)
        for k in states[kind]:
            col, was = cs[k], old_cs[k]
            for old, new in pairs:
                col[new] = was[old]
    if not mapping:
        return s
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
    remap = None  # it refers to itself through its closure: a reference cycle the garbage collector would have to free
    return s
