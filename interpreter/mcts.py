"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling,
Powley and Whitehouse 2012), the search OpenSpiel and TAG use for games with
hidden cards.

One tree per decision, seen from the deciding seat.  Each playout starts from
a fresh determinization: a full state consistent with what the seat can see
(BotInput.sample: every card hidden from it re-dealt among the hidden ones),
so the search never reads a hidden card, it only averages over what the card
could be.  Nodes are keyed by move labels, not by states, so the playouts of
every determinization share one tree; a move is scored by UCB over the
playouts in which it was legal (availability counts).  Chance events are drawn
on the way, never branched on.  A playout runs the rest of the game with
random moves (or `depth` decisions of it, then ends the game there) and is
valued on the winner line (evaluate.py) for every seat, each node backing up
the value of the seat that moved into it.

The work is fixed: `playouts` playouts a decision, never a time limit.  Every
draw comes from the decision's own random stream, so the same game, seed and
bots give the same choices on any machine.
"""

from __future__ import annotations

import math
import random

from .evaluate import evaluator
from .state import CHANCE
from .streams import _with_copies

DEFAULT_PLAYOUTS = 500
EXPLORATION = 0.7  # UCB's constant for values in 0..1


class _Node:
    __slots__ = ("children", "visits", "avail", "total", "player")

    def __init__(self, player: int):
        self.children: dict[str, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.player = player


class MCTSBot:
    """ISMCTS with `playouts` playouts a decision; a playout plays `depth`
    decisions at most (None: to the game's end) before the game is ended and
    valued."""

    name = "mcts"

    def __init__(self, seat: int, rng: random.Random, playouts: int = DEFAULT_PLAYOUTS, depth: int | None = None):
        self.seat, self.rng = seat, rng
        self.playouts = playouts
        self.depth = depth
        self.last_visits: dict[str, int] = {}  # the root's visit counts at the last decision (for tests and reports)

    def choose(self, info) -> int:
        if len(info.moves) == 1:
            return 0
        rng = info.rng or self.rng
        root = _Node(self.seat)
        root_labels = _with_copies(info.moves)
        ev = None
        depth = self.depth
        log = math.log
        sqrt = math.sqrt
        for _ in range(self.playouts):
            s = info.sample(rng)
            if ev is None:
                ev = evaluator(s.t)
            node = root
            path = []
            # selection and expansion
            while not s.is_terminal():
                p = s.current_player()
                if p == CHANCE:
                    s.apply_chance(s.sample_chance(rng))
                    continue
                labels = _with_copies([m.label for m in s.pending.moves])
                children = node.children
                untried = []
                for i, lab in enumerate(labels):
                    c = children.get(lab)
                    if c is None:
                        untried.append(i)
                    else:
                        c.avail += 1
                if untried:
                    i = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                    child = children[labels[i]] = _Node(p)
                    s.apply(i)
                    path.append(child)
                    break
                best_i, best_u = 0, -1.0
                for i, lab in enumerate(labels):
                    c = children[lab]
                    u = c.total / c.visits + EXPLORATION * sqrt(log(c.avail) / c.visits)
                    if u > best_u:
                        best_i, best_u = i, u
                node = children[labels[best_i]]
                s.apply(best_i)
                path.append(node)
            # the rest of the game at random
            steps = 0
            while not s.is_terminal():
                if s.current_player() == CHANCE:
                    s.apply_chance(s.sample_chance(rng))
                    continue
                if depth is not None and steps >= depth:
                    break
                s.apply(rng.randrange(len(s.pending.moves)))
                steps += 1
            values = ev.values(s, rng, spare=True)
            for nd in path:
                nd.visits += 1
                nd.total += values[nd.player]
        self.last_visits = {lab: root.children[lab].visits if lab in root.children else 0 for lab in root_labels}
        best = max(range(len(root_labels)), key=lambda i: (self.last_visits[root_labels[i]], _mean(root, root_labels[i]), -i))
        return best


def _mean(root: _Node, label: str) -> float:
    c = root.children.get(label)
    return c.total / c.visits if c is not None and c.visits else 0.0
