"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling,
Powley and Whitehouse 2012), the search OpenSpiel and TAG use for games with
hidden cards.

One search per decision, for the deciding seat.  Each playout starts from a
fresh determinization: a full state consistent with what the seat can see
(BotInput.sample: every card hidden from it re-dealt among the hidden ones),
so the search never reads a hidden card, it only averages over what the card
could be.

Every seat decides in the search on what *it* can see.  The statistics of a
decision are kept per information set: the deciding seat and its view of the
position (the cards it can see, by label and state, the rest as unknown; every
variable, score and supply; the moves offered).  So the playouts of every
determinization share them, an opponent holding a strong card answers as one
holding a strong card does (not as an average of every hand it might hold,
which makes a bluff look as good as a strong bet), and a seat choosing at the
same time as another (a card played face down) cannot react to the other's
hidden choice (in a tree keyed by moves it could, and the searching seat would
expect every opponent to answer its secret bid perfectly).  Positions that look
the same to the deciding seat share statistics, wherever in the search they
are met.  A move is scored by UCB over its information set's visits.  Chance
events are drawn on the way, never branched on.  A playout runs the rest of the game with
random moves (or `depth` decisions of it, the mover then finishing the move under
way, or up to the end of the round under way or a later one, and ends the game there) and is
valued on the winner line (evaluate.py) for every seat, each decision on the
way backing up the value of the seat that took it.

With the `mast` playout policy (Move-Average Sampling Technique, Finnsson and
Bjornsson 2008, the playout policy of the general game player CadiaPlayer),
a playout's seats do not move uniformly at random: each seat keeps, over the
search's playouts so far, the mean value to it of every move label it played
(in the tree and out of it), and outside the tree plays the label with the
best mean (with probability MAST_EPSILON a random move instead; an unplayed
label counts as the best).  A reply that wins wherever it is offered (the same
label, deep in many playouts) is soon played as a sensible opponent would,
at the price of a dictionary look-up per offered move, where a greedy playout
pays a scoring per offered move.  Its playouts are valued as greedy playouts
are (playout.search_values: the win, the place, and the lead).

With the option `topK` (`mcts:30:10:mast:top3`) the root is not searched by
UCB: greedy ranks its moves on one determinization (playout.greedy_ranking),
and only the K best are played, in turn, each round of them on one
determinization and one stream of draws (common random numbers); the best
mean decides and equal means go to greedy's order.  So greedy's one-step
judgement is the search's prior: where the playouts tell the K moves apart
the search overrules greedy, where they see nothing, or the budget is below
the moves offered, it plays greedy's move rather than one tried at random.

The work is fixed: `playouts` playouts a decision, never a time limit.  Every
draw comes from the decision's own random stream, so the same game, seed and
bots give the same choices on any machine.
"""

from __future__ import annotations

import math
import random

from .evaluate import evaluator
from .playout import greedy_move, greedy_ranking, search_values
from .runtime import CardRef
from .state import CHANCE
from .streams import _with_copies

DEFAULT_PLAYOUTS = 500
EXPLORATION = 0.7  # UCB's constant for values in 0..1
FOLLOW_UPS = 8  # a cut playout's mover may finish its move with this many more decisions
EXPAND = 8  # with a greedy playout policy, visits an information set takes before its own moves are searched
MAST_EPSILON = 0.3  # with the mast policy, the share of playout moves drawn at random rather than by their mean value
MAST_UNSEEN = 1.0  # with the mast policy, the value of a label not yet played: the best, so every move is tried


class _InfoSet:
    """One seat's statistics at one information set: visits and total value per move label."""

    __slots__ = ("visits", "n", "total", "player", "order")

    def __init__(self, player: int, labels: list[str], order: list[int] | None = None):
        self.player = player
        self.order = order  # the moves best first by the playout policy (a greedy policy), or None
        self.visits = 0
        self.n = dict.fromkeys(labels, 0)
        self.total = dict.fromkeys(labels, 0.0)


class MCTSBot:
    """ISMCTS with `playouts` playouts a decision; a playout plays `depth`
    decisions at most (None: to the game's end) after leaving the searched
    information sets, before the game is ended and valued."""

    name = "mcts"

    def __init__(self, seat: int, rng: random.Random, playouts: int = DEFAULT_PLAYOUTS, depth: int | None = None,
                 policy: str = "random", rounds: int | None = None, top: int | None = None):
        self.seat, self.rng = seat, rng
        self.playouts = playouts
        self.depth = depth
        # cut every playout where the game's round counter has gone `rounds` rounds past the decision's round (the
        # end of the round under way, for 1) instead of after `depth` decisions: a game ended between rounds is
        # valued where every seat has had its turn, not in the middle of a round of simultaneous or rotating play
        self.rounds = rounds
        self.policy = policy  # playout.py: how seats move outside the tree, and which move a fresh set tries first
        # search only greedy's `top` best moves at the root (ranked on one determinization, one step ahead with its
        # follow-ups), in turn, each round of them from one determinization and one stream of draws, the best mean
        # deciding and equal means going to greedy's order: a search whose playouts tell the moves apart overrules
        # greedy, one whose playouts see nothing (or a budget below the moves offered) plays greedy's move
        self.top = top
        self.last_visits: dict[str, int] = {}  # the root's visit counts at the last decision (for tests and reports)

    def choose(self, info) -> int:
        if len(info.moves) == 1:
            return 0
        rng = info.rng or self.rng
        root_labels = _with_copies(info.moves)
        table: dict[tuple, _InfoSet] = {}
        ev = None
        depth = self.depth
        log = math.log
        sqrt = math.sqrt
        root_key = None
        greedy = self.policy == "greedy"
        # the mast policy: each seat's mean value of every move label over this search's playouts (Move-Average
        # Sampling Technique, Finnsson and Bjornsson 2008): (seat, label) -> [times played, total value]
        mast = {} if self.policy == "mast" else None
        played: list = []  # with mast: the (seat, label) of every move of the playout under way
        cut_round = None
        top = self.top
        ranked = greedy or top is not None  # the root's moves ranked by greedy and taken in turn
        if ranked:
            root, ev = self._root(info, rng, table)
            root_key = next(iter(table))
            order = root.order if top is None else root.order[:top]
            seed = 0
        for t in range(self.playouts):
            path: list[tuple[_InfoSet, str]] = []
            if ranked:
                # the root's moves in turn, greedy's best first, each round of them from one determinization and
                # one stream of draws (common random numbers: moves compared on the same deal and the same luck,
                # so a few playouts each tell them apart); deeper information sets as below
                j = t % len(order)
                if j == 0:
                    seed = rng.getrandbits(64)
                prng = random.Random(seed)
                s = info.sample(prng)
                if cut_round is None and self.rounds is not None:
                    cut_round = s.round + self.rounds
                i = order[j]
                path.append((root, root_labels[i]))
                if mast is not None:
                    played.append((root.player, info.moves[i]))
                s.apply(i)
            else:
                prng = rng
                s = info.sample(rng)
                if cut_round is None and self.rounds is not None:
                    cut_round = s.round + self.rounds
            if ev is None:
                ev = evaluator(s.t)
            # selection and expansion, through the information sets met before
            while not s.is_terminal():
                p = s.current_player()
                if p == CHANCE:
                    s.apply_chance(s.sample_chance(prng))
                    continue
                raw = [m.label for m in s.pending.moves]
                labels = _with_copies(raw)
                key = info_key(s, p, labels)
                if root_key is None:
                    root_key = key
                node = table.get(key)
                if node is None:
                    node = table[key] = _InfoSet(p, labels, greedy_ranking(s, ev, prng) if greedy else None)
                n = node.n
                if greedy:
                    # a set met fewer than EXPAND times (the root apart) plays the policy's move and the playout
                    # starts there; so with a small budget every other seat answers as the policy would (a greedy
                    # opponent as it really plays), and the tree grows where the playouts keep coming back
                    i = next((i for i in node.order if n[labels[i]] == 0), None)
                    if key != root_key and node.visits < EXPAND:
                        i = node.order[0]
                    if i is not None:
                        path.append((node, labels[i]))
                        s.apply(i)
                        break
                else:
                    untried = [i for i, lab in enumerate(labels) if n[lab] == 0]
                    if untried:
                        i = untried[prng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                        if mast is not None:
                            played.append((p, raw[i]))
                        path.append((node, labels[i]))
                        s.apply(i)
                        break
                total = node.total
                lv = log(node.visits)
                best_i, best_u = 0, -1.0
                for i, lab in enumerate(labels):
                    c = n[lab]
                    u = total[lab] / c + EXPLORATION * sqrt(lv / c)
                    if u > best_u:
                        best_i, best_u = i, u
                if mast is not None:
                    played.append((p, raw[best_i]))
                path.append((node, labels[best_i]))
                s.apply(best_i)
            # the rest of the game at random; a playout cut at `depth` first finishes the move under way (the
            # mover's own follow-up decisions, at most FOLLOW_UPS), as the end of a turn is what the game is
            # valued at: cut between choosing what to buy and paying for it, the choice would be worth nothing
            steps = 0
            mover = path[-1][0].player if path else -1
            while not s.is_terminal():
                p = s.current_player()
                if p == CHANCE:
                    s.apply_chance(s.sample_chance(prng))
                    continue
                if depth is not None and steps >= depth and (p != mover or steps >= depth + FOLLOW_UPS):
                    break
                if cut_round is not None and s.round >= cut_round:  # (a decision: the round's last move is done)
                    break
                if greedy:
                    s.apply(greedy_move(s, ev, prng))
                elif mast is not None:
                    s.apply(_mast_move(s, p, mast, played, prng))
                else:
                    s.apply(prng.randrange(len(s.pending.moves)))
                mover = p
                steps += 1
            if mast is not None:
                values = search_values(ev.outcome(s, prng, spare=True), ev.n)
                for key in played:
                    st = mast.get(key)
                    if st is None:
                        mast[key] = [1, values[key[0]]]
                    else:
                        st[0] += 1
                        st[1] += values[key[0]]
                played.clear()
            else:
                values = (search_values(ev.outcome(s, prng, spare=True), ev.n) if greedy
                          else ev.values(s, prng, spare=True))
            for node, lab in path:
                node.visits += 1
                node.n[lab] += 1
                node.total[lab] += values[node.player]
        root = table[root_key]  # (the random policy's root: the first set met)
        self.last_visits = {lab: root.n[lab] for lab in root_labels}
        if top is not None:  # the best mean among the moves searched; equal means to greedy's order
            rank = {i: r for r, i in enumerate(order)}
            return max(order, key=lambda i: (root.n[root_labels[i]] > 0, _mean(root, root_labels[i]), -rank[i]))
        if greedy:  # a small budget spreads its playouts about evenly: the best mean, not the most visits, decides
            return max(range(len(root_labels)),
                       key=lambda i: (root.n[root_labels[i]] > 0, _mean(root, root_labels[i]), root.n[root_labels[i]], -i))
        return max(range(len(root_labels)),
                   key=lambda i: (root.n[root_labels[i]], _mean(root, root_labels[i]), -i))


    def _root(self, info, rng: random.Random, table: dict) -> tuple[_InfoSet, object]:
        """The root information set, its moves ranked by greedy on one determinization, and the evaluator."""
        s = info.sample(rng)
        ev = evaluator(s.t)
        labels = _with_copies([m.label for m in s.pending.moves])
        root = table[info_key(s, s.current_player(), labels)] = _InfoSet(s.current_player(), labels,
                                                                         greedy_ranking(s, ev, rng))
        return root, ev


def _mast_move(s, p: int, mast: dict, played: list, rng: random.Random) -> int:
    """The mast policy's move for seat `p` at the decision of `s`: with probability MAST_EPSILON one at random, else
    the move whose label has the best mean value for `p` over the search's playouts so far (a label not yet played
    counts MAST_UNSEEN, the best value, so every move is tried; equals broken at random); its (seat, label) noted
    in `played` for the backup."""
    moves = s.pending.moves
    k = len(moves)
    if k == 1:
        played.append((p, moves[0].label))
        return 0
    if rng.random() < MAST_EPSILON:
        i = rng.randrange(k)
        played.append((p, moves[i].label))
        return i
    best: list[int] = []
    best_v = -1.0
    labels = [m.label for m in moves]
    for i, lab in enumerate(labels):
        st = mast.get((p, lab))
        v = st[1] / st[0] if st is not None else MAST_UNSEEN
        if v > best_v:
            best, best_v = [i], v
        elif v == best_v:
            best.append(i)
    i = best[0] if len(best) == 1 else best[rng.randrange(len(best))]
    played.append((p, labels[i]))
    return i


def _mean(node: _InfoSet, label: str) -> float:
    c = node.n[label]
    return node.total[label] / c if c else 0.0


def info_key(s, p: int, labels: list[str]) -> tuple:
    """Seat `p`'s information set at a decision of `s`, as far as its view shows it: the cards it can see by label
    and state, in place (the rest as unknown), every variable, score, supply and elimination (cards named by a
    variable only where `p` can see them), the round, and the moves offered."""
    t = s.t
    bit = 1 << p
    viewers = s.viewers
    names = t.card_labels
    cols = list(s.cs.values())
    zones = []
    for cards in s.zones:
        if not cards:
            zones.append(())
            continue
        row = []
        for c in cards:
            if viewers(c) & bit:
                row.append((names[c], *[col[c] for col in cols], s.facedown[c]) if cols else (names[c], s.facedown[c]))
            else:
                row.append(None)
        zones.append(tuple(row))

    def shown(v):
        if type(v) is CardRef:
            return names[v.id] if viewers(v.id) & bit else None
        if type(v) is tuple:
            return tuple(shown(x) for x in v)
        return v

    return (p, s.round, tuple(labels), tuple(zones),
            tuple(tuple(shown(x) for x in col) for col in s.pv.values()),
            tuple(shown(v) for v in s.gv.values()),
            tuple(tuple(col) for col in s.vp.values()),
            tuple(s.supply.values()), tuple(s.elim))
