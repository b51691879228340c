"""Cooperative search: a witness for the highest (or lowest) score the rules allow.

The question "can a player's score reach the proved maximum?" is one of
reachability, not of strategy: every seat may play to feed one player, and a
witness may take any chance outcome the game could draw (every roll on six,
the deck in the order that serves).  So the search treats the whole game as one
puzzle (reach): the opening's chance events chosen by played-out games
(choose_opening), then a beam of game states advanced one step (a decision or
a chance event) at a time, each child valued by the score the best seat would
have if the game's end-of-game scoring ran now (interpreter.evaluate.finish_now)
and a few steps further on (cooperative_beam), and the best game's chance
events polished, every other outcome tried (polish).

Work is counted in engine steps (states advanced, scorings run), never in
seconds, so the same seed and budget give the same game on any machine.  The
game it returns is a real game, recorded as played; it replays like any other.

The objective is any number a game state has, not only a score: `objective`
(a function of a state giving a tuple, the higher the better) replaces the
score's (score_objective); supply_objective counts the tokens out of a
supply, so every seat works at emptying it and a give that finds it short is
the witness.
"""

from __future__ import annotations

import random
from typing import Callable, Iterator

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.evaluate import finish_now
from soan.interpreter.play import GameRecord, record_game
from soan.interpreter.runtime import Tables
from soan.interpreter.state import CHANCE, ShuffleOutcomes, State

# the beam's shape: states kept, moves tried per state, and random continuations (how many, how many
# steps) that tell apart moves whose effect shows a few steps later
BEAM_WIDTH = 16
BEAM_BRANCHING = 8
BEAM_DEPTH = 6
BEAM_ROLLOUTS = 2


def seat_values(result: dict, key: str, n: int) -> list[int]:
    """Every seat's score for `key` ("total" or "item:NAME") in a result."""
    if key == "total":
        return [result["scores"][f"P{i + 1}"] for i in range(n)]
    return [result["breakdown"][f"P{i + 1}"][key[5:]] for i in range(n)]


def score_objective(key: str, sign: int, n: int) -> Callable[[State], tuple]:
    """A state's value for a score: the best seat's `key` score (times `sign`) if the
    game's end-of-game scoring ran now, then the others' as far behind as possible
    (one seat's top often needs the rest to hold little)."""
    score_rng = random.Random(0)

    def value(st: State) -> tuple:
        try:
            done = st if st.result is not None else finish_now(st, score_rng)
        except SpecRuntimeError:  # a scoring that cannot run yet (in the setup, say): such a state ranks last
            return (float("-inf"), float("-inf"))
        vals = [sign * v for v in seat_values(done.result, key, n)]
        i = max(range(n), key=lambda j: vals[j])
        return (vals[i], -(sum(vals) - vals[i]))
    return value


def item_objective(name: str, sign: int, n: int,
                   progress: Callable[[State, int], float] | None = None) -> Callable[[State], tuple]:
    """A state's value for one score item: the best seat's item score (times `sign`) if the
    game's end-of-game scoring ran now, then that seat's progress towards it (`progress(state,
    seat)`, verify/item_progress.py), then its total.  An item that scores only once a set is
    complete (a bonus, a judged dish) shows nothing for most of the game; the progress (cards
    reaching the zones the item counts) and the total keep the beam moving until it does."""
    score_rng = random.Random(0)
    item = f"item:{name}"

    def value(st: State) -> tuple:
        try:
            done = st if st.result is not None else finish_now(st, score_rng)
        except SpecRuntimeError:  # a scoring that cannot run yet: such a state ranks last
            return (float("-inf"), float("-inf"))
        vals = [sign * v for v in seat_values(done.result, item, n)]
        totals = seat_values(done.result, "total", n)
        if progress is None:
            i = max(range(n), key=lambda j: (vals[j], totals[j]))
            return (vals[i], totals[i])
        ahead = [progress(st, j) for j in range(n)]
        i = max(range(n), key=lambda j: (vals[j], ahead[j], totals[j]))
        return (vals[i], ahead[i])
    return value


def supply_objective(token: str, supply: int) -> Callable[[State], tuple]:
    """A state's value for a token supply: how many of its `supply` tokens are out (held by
    the players, on cards, anywhere but the supply), and `supply + 1` once a give found it
    short (a mark that stays, so the search may stop there)."""
    def value(st: State) -> tuple:
        short = any(k == "short_supply" and site[0] == token for k, site in st.first_marks)
        return (supply + 1 if short else supply - st.supply[token],)
    return value


class _Node:
    __slots__ = ("state", "path", "value")

    def __init__(self, state: State, path: tuple | None, value: tuple):
        self.state, self.path, self.value = state, path, value


def _outcomes(path: tuple | None) -> list:
    out = []
    while path is not None:
        path, step = path
        out.append(step)
    out.reverse()
    return out


def cooperative_beam(tables: Tables, key: str, sign: int, seed: int, max_steps: int, width: int = 24,
                     branching: int = 10, orderings: int = 3, depth: int = 0, rollouts: int = 1,
                     opening: list | None = None, spent: list | None = None,
                     stop: Callable[[], bool] | None = None, objective: Callable[[State], tuple] | None = None,
                     settled: Callable[[tuple], bool] | None = None) -> tuple[tuple, GameRecord] | None:
    """One game in which every seat and every chance event works towards the best
    seat's `key` score (`sign` -1: the worst seat's lowest), found by a beam of
    `width` states; each state tries at most `branching` of its moves or outcomes
    (a shuffle: `orderings` random orders), each valued now and after `rollouts`
    random continuations `depth` steps on.  `opening`: the rolls and picks before
    the first decision, taken as given (shuffles are sampled).  `max_steps` bounds
    the work (states advanced, each scoring counted as one; `spent`, a one-item
    list, carries a count across calls).  `objective`: a state's value in place of
    the score's (score_objective; `key` then only names the search); `settled(value)`:
    a value the rest of the game cannot take back, so the first state to reach it
    is played to the end at random.  Returns the value (best seat's score times
    sign, then the others' against it) and the game, or None."""
    rng = random.Random(f"soan/{seed}/beam/{key}/{sign}")
    work = spent if spent is not None else [0]
    limit = work[0] + max_steps
    judge = objective if objective is not None else score_objective(key, sign, tables.n)

    def value(st: State) -> tuple:
        work[0] += 1
        return judge(st)

    try:
        root = State(tables).start()
        path = None
    except SpecRuntimeError:
        return None

    def ahead(st: State, luck: int) -> tuple:
        # the child's own value, and the best of a few random continuations `depth` steps on
        # (the same luck for every sibling): a choice whose effect shows only a few steps later
        # (cards laid face down, revealed once every seat has laid) is still told apart
        best = value(st)
        if depth <= 0 or st.is_terminal():
            return best
        for r in range(rollouts):
            s = st.clone()
            lr = random.Random(luck + r)
            for _ in range(depth):
                if s.is_terminal():
                    break
                if s.current_player() == CHANCE:
                    s.apply_chance(s.sample_chance(lr))
                else:
                    s.apply(lr.randrange(len(s.legal_moves())))
                work[0] += 1
            best = max(best, value(s))
        return best

    beam = [_Node(root, path, value(root))]
    while work[0] < limit and any(not nd.state.is_terminal() for nd in beam):
        if stop is not None and stop():  # the wall-clock limit (the caller says so)
            return None
        children = []
        for nd in beam:
            st = nd.state
            if st.is_terminal():
                children.append((nd.value, rng.random(), nd))
                continue
            if st.current_player() == CHANCE:
                oc = st.chance_outcomes()
                at = st.steps
                if opening and at < len(opening) and not isinstance(oc, ShuffleOutcomes) \
                        and isinstance(opening[at], int) and 0 <= opening[at] < len(oc) and oc[opening[at]][1] > 0:
                    tries = [opening[at]]  # the given opening's roll or pick
                elif isinstance(oc, ShuffleOutcomes):
                    tries = [oc.sample(rng) for _ in range(orderings)]
                else:
                    tries = [i for i, (_, p) in enumerate(oc) if p > 0]
                    if len(tries) > branching:
                        tries = rng.sample(tries, branching)
                apply = State.apply_chance
            else:
                k = len(st.legal_moves())
                tries = list(range(k)) if k <= branching else rng.sample(range(k), branching)
                apply = State.apply
            luck = rng.getrandbits(32)
            for t in tries:
                c = st.clone()
                try:
                    apply(c, t)
                    v = ahead(c, luck)
                except SpecRuntimeError:
                    continue
                work[0] += 1
                children.append((v, rng.random(), _Node(c, (nd.path, t), v)))
        if not children:
            return None
        children.sort(key=lambda x: (x[0], x[1]), reverse=True)
        beam = [nd for _, _, nd in children[:width]]
        if settled is not None and settled(beam[0].value):
            beam = [nd for nd in [_finish(beam[0], rng, work)] if nd is not None]
            break
    done = [nd for nd in beam if nd.state.is_terminal()]
    if not done and beam:
        # the work ran out before the end: the furthest state's game played on at random is
        # still a real game (an objective whose value shows at once keeps most of it)
        done = [nd for nd in [_finish(beam[0], rng, work)] if nd is not None]
    if not done:
        return None
    best = max(done, key=lambda nd: nd.value)
    # the log's seed only names the game (its chance is the path's): one far from the seeded games' 0, 1, ...
    rec = follow(tables, _outcomes(best.path), rng.randrange(2**31))
    return best.value, rec


def _finish(nd: _Node, rng: random.Random, work: list) -> _Node | None:
    """The node's game played on to its end at random (its value kept: a settled one); None where
    the rules break on the way."""
    st, path = nd.state.clone(), nd.path
    try:
        for t in play_out(st, rng):
            path = (path, t)
            work[0] += 1
    except SpecRuntimeError:  # the spec's own fault, which the seeded games report: no game from this climb
        return None
    return _Node(st, path, nd.value)


def play_out(st: State, rng: random.Random) -> Iterator[int]:
    """`st` played on to its end at random, in place: each step's move or chance outcome as it is taken."""
    while not st.is_terminal():
        if st.current_player() == CHANCE:
            t = st.sample_chance(rng)
            st.apply_chance(t)
        else:
            t = rng.randrange(len(st.legal_moves()))
            st.apply(t)
        yield t


def follow(tables: Tables, steps: list, seed: int) -> GameRecord:
    """The game whose decisions take move `steps[k]` (an index) and whose chance
    events take outcome `steps[k]`, recorded as any game is."""
    it = iter(steps)

    def choose(st, p, moves):
        return next(it)

    def chance(st, _rng):
        return next(it)

    return record_game(tables, seed, choose, ["search"] * tables.n, chance=chance)


def _play(tables: Tables, course: list, seed: int) -> tuple[GameRecord, list]:
    """A game following `course` as far as it fits (search.play_course's rules: a
    decision by its move's label, else the index modulo the moves; a chance event
    by its outcome when possible; past it or where it does not fit, drawn from
    `seed`), and what every step offered: a decision's labels, a roll's or pick's
    number of outcomes, a shuffle's number of cards (negative)."""
    rng = random.Random(f"soan/{seed}/course")
    offered: list = []
    sites: list = []  # each decision's seat and rule site (None for a chance event)

    def wanted():
        k = len(offered)
        return course[k] if k < len(course) else None

    def choose(st, p, moves):
        w = wanted()
        labels = [m.label for m in moves]
        offered.append(labels)
        sites.append((p, st.pending.site))
        if isinstance(w, str) and w in labels:
            return labels.index(w)
        if isinstance(w, int) and not isinstance(w, bool):
            return w % len(moves)
        return rng.randrange(len(moves))

    def chance(st, _rng):
        w = wanted()
        oc = st.chance_outcomes()
        if isinstance(oc, ShuffleOutcomes):
            offered.append(-oc.n)
            sites.append(None)
            if isinstance(w, list) and sorted(w) == list(range(oc.n)):
                return list(w)
            return oc.sample(rng)
        offered.append(len(oc))
        sites.append(None)
        possible = [i for i, (_, p) in enumerate(oc) if p > 0]
        if isinstance(w, int) and not isinstance(w, bool) and w in possible:
            return w
        return rng.choice(possible)

    rec = record_game(tables, seed, choose, ["search"] * tables.n, chance=chance)
    return rec, list(zip(offered, sites))


def _course(rec: GameRecord) -> list:
    return [step["move"] if "move" in step else step["outcome"] for step in rec.log["steps"]]


def polish(tables: Tables, value: Callable[[GameRecord], tuple], rec: GameRecord, seed: int, max_steps: int,
           alternatives: int = 12, on_game: Callable[[GameRecord], None] | None = None,
           chance_only: bool = False) -> tuple[tuple, GameRecord, int]:
    """Coordinate ascent on one game: at every step in turn, every other move of a
    decision (or outcome of a chance event; for a shuffle, a few swaps of two
    cards), the rest of the game following the old course where it still fits;
    a change is kept when the game's `value(record)` rises.  Sweeps until one
    finds nothing or `max_steps` (engine steps played) run out."""
    rng = random.Random(f"soan/{seed}/polish")
    best_v = value(rec)
    course = _course(rec)
    _, offered = _play(tables, course, seed)
    spent = len(course)
    improved = True
    while improved and spent < max_steps:
        improved = False
        k = 0
        while k < len(course) and spent < max_steps:
            o, site = offered[k]
            swaps = []
            if chance_only and isinstance(o, list):
                alts = []
            elif isinstance(o, list):
                alts = [x for x in o if x != course[k]]
                # the same seat's later decision at the same rule taken here instead, and this one there
                # (a card laid in another round): one change alone would leave the later one unplayable
                swaps = [j for j in range(k + 1, len(course)) if offered[j][1] == site and course[j] != course[k]]
            elif o < 0:
                alts = []
                for _ in range(min(alternatives, o * o)):
                    perm = list(course[k])
                    a, b = rng.sample(range(len(perm)), 2)
                    perm[a], perm[b] = perm[b], perm[a]
                    alts.append(perm)
            else:
                alts = [x for x in range(o) if x != course[k]]
            if len(alts) > alternatives:
                alts = rng.sample(alts, alternatives)
            tries = [(k, a) for a in alts] + [(j, None) for j in swaps]
            for j, a in tries:
                cand = list(course)
                if a is None:
                    cand[k], cand[j] = course[j], course[k]
                else:
                    cand[k] = a
                try:
                    got, got_offered = _play(tables, cand, rng.randrange(2**31))
                except SpecRuntimeError:
                    continue
                spent += len(got.log["steps"])
                if on_game is not None:
                    on_game(got)
                v = value(got)
                if v > best_v:
                    best_v, rec, course, offered = v, got, _course(got), got_offered
                    improved = True
                    break
                if spent >= max_steps:
                    break
            k += 1
    return best_v, rec, spent


def reach(tables: Tables, key: str, sign: int, goal: int, seed: int, max_work: int,
          on_game: Callable[[GameRecord], None] | None = None,
          stop: Callable[[], bool] | None = None, objective: Callable[[State], tuple] | None = None,
          settled: Callable[[tuple], bool] | None = None, shape: tuple | None = None,
          choose_chance: bool = True) -> tuple[int, GameRecord] | None:
    """The cooperative search for a game in which a seat's `key` score reaches
    `goal` (times `sign`: -1 looks for the lowest), or, given `objective` (a
    state's value, see cooperative_beam; `key` then names the search), in which
    the objective's first number reaches `goal`: a beam (cooperative_beam), the
    chance events of its game polished, then beams again from that game's
    opening chance events (the rolls and shuffles before the first decision, now
    the ones that serve), each game polished, until one reaches the goal or
    `max_work` engine steps are spent (or `stop()`, the wall-clock limit, says so
    between attempts).  `shape`: the beam's (width, branching, depth, rollouts),
    by default the score's; `choose_chance` False: the opening's chance events left
    to the beam (an objective that shows at once needs no played-out games to
    choose them).  Returns the best value's first number (a score: times
    sign) and its game."""
    judge = objective if objective is not None else score_objective(key, sign, tables.n)

    def value(rec: GameRecord) -> tuple:
        return judge(rec.state)

    def top(rec: GameRecord) -> tuple:
        # the first number alone (a score: the best seat's): a roll that only lowers another seat's
        # score is left as it was
        return judge(rec.state)[:1]

    target = goal if objective is not None else sign * goal
    spent = [0]
    best = None
    attempt = 0
    while spent[0] < max_work and (best is None or best[0][0] < target) and not (stop and stop()):
        if best is None:
            opening = choose_opening(tables, key, sign, seed, spent=spent, objective=objective) \
                if choose_chance else None
        else:
            course = _course(best[1])
            first = next((k for k, step in enumerate(best[1].log["steps"]) if "move" in step), len(course))
            opening = course[:first]
        width, branching, depth, rollouts = shape or (BEAM_WIDTH, BEAM_BRANCHING, BEAM_DEPTH, BEAM_ROLLOUTS)
        found = cooperative_beam(tables, key, sign, seed + attempt, max_work - spent[0], width=width,
                                 branching=branching, depth=depth, rollouts=rollouts, opening=opening, spent=spent,
                                 stop=stop, objective=objective, settled=settled)
        attempt += 1
        if found is None:
            break
        rec = found[1]
        if on_game is not None:
            on_game(rec)
        if not (settled is not None and settled(value(rec))):
            v, rec, used = polish(tables, top, rec, seed + attempt, max(0, max_work - spent[0]), on_game=on_game,
                                  chance_only=True)
            spent[0] += used
        v = value(rec)
        if best is None or v > best[0]:
            best = (v, rec)
    if best is None:
        return None
    return best[0][0], best[1]


def choose_opening(tables: Tables, key: str, sign: int, seed: int, rollouts: int = 4, orderings: int = 4,
                   spent: list | None = None, objective: Callable[[State], tuple] | None = None) -> list:
    """The chance events before the first decision (rolls, picks, shuffles), each
    outcome chosen in turn by random games played to the end from it: the one
    whose games give the best seat the highest `key` score on average.  Every
    outcome is tried with the same random games (the same luck), so the games
    differ only by that outcome; where a beam cannot tell outcomes apart (nothing
    scores yet), played-out games can.  `objective`: the games' value in place of
    the score's (its first number, at the game's end)."""
    n = tables.n
    rng = random.Random(f"soan/{seed}/opening/{key}/{sign}")
    work = spent if spent is not None else [0]
    st = State(tables).start()
    opening: list = []
    while st.current_player() == CHANCE:
        oc = st.chance_outcomes()
        if isinstance(oc, ShuffleOutcomes):
            tries = [oc.sample(rng) for _ in range(orderings)]
        else:
            tries = [i for i, (_, p) in enumerate(oc) if p > 0]
        lucks = [rng.getrandbits(32) for _ in range(rollouts)]
        best, best_v = None, None
        for t in tries:
            total = 0
            for luck in lucks:
                s = st.clone()
                lr = random.Random(luck)
                try:
                    s.apply_chance(t)
                    while not s.is_terminal():
                        if s.current_player() == CHANCE:
                            s.apply_chance(s.sample_chance(lr))
                        else:
                            s.apply(lr.randrange(len(s.legal_moves())))
                        work[0] += 1
                except SpecRuntimeError:
                    continue
                if objective is not None:
                    total += objective(s)[0]
                    continue
                vals = [sign * v for v in seat_values(s.result, key, n)]
                # the best seat's score and every seat's: what an outcome puts in play shows in the
                # sum (a majority's worth counts for whoever holds it), far less noisily than in the top
                total += max(vals) + sum(vals)
            if best_v is None or total > best_v:
                best, best_v = t, total
        st.apply_chance(best)
        opening.append(best)
    return opening
