"""Playout policies for the tree search (mcts.py): how the seats move once a
playout has left the searched information sets, and which move a fresh
information set tries first.

`random` moves at random, the cheapest and the search's first guide.
`greedy` plays each seat's one-step greedy move (bots.GreedyBot: the move,
with its follow-ups, that leaves the seat best placed on the winner line if
the game ended now), every seat deciding on the sampled state the playout
runs on.  A greedy playout costs one evaluation per offered move at every
step, some ten to twenty random steps' worth, but it values a move by what
sensible play makes of it, not by what random play does: a move's worth after
depth-limited random steps is a noisier reading of greedy's own one-step signal,
while greedy playouts give the one-step rollout improvement over greedy
(Tesauro and Galperin 1996; heuristic playouts in MCTS, e.g. Browne et al.
2012, section 5.2): against greedy opponents the search simulates them as
they play.

`mast` plays, for each seat, the move label with the best mean value to it
over the search's playouts so far (some moves at random): mcts.py.

A playout policy sees only the playout's own state, a determinization drawn
from the searching seat's view (BotInput.sample), never the real hidden cards.
"""

from __future__ import annotations

import random

from .bots import GreedyBot
from .state import State

POLICIES = ("random", "greedy", "mast")


def greedy_ranking(s: State, ev, rng: random.Random) -> list[int]:
    """The moves offered at `s` (a decision), best first for the seat deciding, as greedy judges them one step
    ahead (its follow-ups played); equals in a random order drawn from `rng`."""
    p = s.pending.player
    follow = GreedyBot(p, rng)._follow_up_valued
    scored = []
    for i in range(len(s.pending.moves)):
        c = s.clone()
        c.apply(i)
        c, value = follow(c, ev, rng)
        if value is None:  # not already scored as the last follow-up's best copy
            value = ev.outcome(c, rng, spare=True).key(p)
        scored.append((value, rng.random(), i))
    scored.sort(reverse=True)
    return [i for _, _, i in scored]


def greedy_move(s: State, ev, rng: random.Random) -> int:
    """The move greedy takes at `s` (a decision) for the seat deciding; equals broken at random from `rng`."""
    moves = s.pending.moves
    if len(moves) == 1:
        return 0
    return greedy_ranking(s, ev, rng)[0]


def search_values(o, n: int) -> list[float]:
    """Every seat's value in 0..1 of a playout's outcome `o` (evaluate.Outcome) for a search whose playouts are
    greedy: greedy's own order of things (the win first, then the place, then the lead on the winner line's
    first key) made one number, so the search's mean ranks moves as greedy would and also sees by how much a
    move leads.  The lead counts through m / (|m| + S), S the outcome's mean absolute lead (at least 1), so it
    needs no scale of the game's points; where the line declares a payoff, the payoff alone (Outcome.soft)."""
    if o.payoff is not None:
        return list(o.payoff)
    margins = o.margin
    spread = max(1.0, sum(abs(m) for m in margins) / n)
    out = []
    for i in range(n):
        placed = 1.0 - o.place[i] / max(1, n - 1) if n > 1 else 1.0
        m = margins[i]
        out.append(0.8 * o.share[i] + 0.1 * max(0.0, placed) + 0.05 * (1.0 + m / (abs(m) + spread)))
    return out
