"""Round by round: a cooperative search that keeps one game and extends it a round at a time.

The beam (verify/climb.py) values every state by an objective read at once,
so a move whose worth shows only many steps later (a chip tossed onto a spot
now, for a sale that round's market pays on it) is told apart only by chance.
Here the game grows one round at a time: from the kept state, the rest of the
round is played out (every decision and chance event, the setup's too, as one
course), the course's steps improved one at a time by coordinate ascent (each
other move of a decision, other outcome of a chance event, a few swaps of a
shuffle; the rest of the round following the old course by its moves' labels
where it still fits), valued by the objective where the round ends.  The best
round is kept and the next one searched from its end.  A round is what the
rules call one (State.round); a game without rounds is searched in windows of
a fixed number of steps.

This finds what a greedy beam cannot when the objective moves only at a
round's end, but each round's gain must show by that round's end: a plan that
saves for several rounds is beyond it (say so, do not rely on it).

Work is counted in engine steps (steps played, each valuation one), never in
seconds.  The game returned is recorded as played (climb.follow) and replays
like any other.
"""

from __future__ import annotations

import random
from typing import Callable

from soan.dsl import ir
from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import GameRecord
from soan.interpreter.runtime import Tables
from soan.interpreter.state import CHANCE, ShuffleOutcomes, State

from .climb import follow

# a round searched: random courses to start from, then sweeps of single changes, each step trying
# at most ALTERNATIVES others; WINDOW steps make a "round" where the rules have none (or one runs long)
RESTARTS = 4
ALTERNATIVES = 8
SWEEPS = 3
WINDOW = 400


def _segment(start: State, course: list, rng: random.Random) -> tuple[State, list, list]:
    """The rules played from `start` to the next round's start (or the game's end, or WINDOW
    steps), following `course` where it fits (a decision by its move's label, a chance event by
    its outcome when possible), drawn from `rng` past it.  Returns the state reached, the steps
    taken (a decision's move index, a chance event's outcome) and what each step offered (a
    decision's labels; a roll's or pick's possible outcomes; a shuffle's card count, negative)."""
    st = start.clone()
    first = st.round
    taken: list = []
    offered: list = []
    decided = False
    while not st.is_terminal() and len(taken) < WINDOW:
        if decided and st.round != first:
            break
        if not decided and st.current_player() != CHANCE:
            first = st.round  # the setup's chance events go with the first round played
        k = len(taken)
        want = course[k] if k < len(course) else None
        if st.current_player() == CHANCE:
            oc = st.chance_outcomes()
            if isinstance(oc, ShuffleOutcomes):
                offered.append(-oc.n)
                t = list(want) if isinstance(want, list) and sorted(want) == list(range(oc.n)) else oc.sample(rng)
            else:
                possible = [i for i, (_, p) in enumerate(oc) if p > 0]
                offered.append(possible)
                t = want if isinstance(want, int) and want in possible else rng.choice(possible)
            st.apply_chance(t)
        else:
            labels = [m.label for m in st.legal_moves()]
            offered.append(labels)
            t = labels.index(want) if isinstance(want, str) and want in labels else rng.randrange(len(labels))
            st.apply(t)
            decided = True
        taken.append(t)
    return st, taken, offered


def _labelled(taken: list, offered: list) -> list:
    """A course to follow again: a decision's move by its label (a change earlier in the round may
    reorder the moves), a chance event's outcome as taken."""
    return [offered[k][t] if isinstance(offered[k], list) and isinstance(t, int) and offered[k]
            and isinstance(offered[k][0], str) else t for k, t in enumerate(taken)]


def extend(tables: Tables, objective: Callable[[State], tuple], seed: int, max_steps: int,
           settled: Callable[[tuple], bool] | None = None, stop: Callable[[], bool] | None = None,
           on_game: Callable[[GameRecord], None] | None = None) -> tuple[tuple, GameRecord] | None:
    """One game grown round by round, each round's course improved by coordinate ascent on
    `objective` (a state's value, the higher the better) where the round ends.  Stops when
    `settled(value)` (the rest of the game cannot take it back: played out at random), the game
    ends, or `max_steps` engine steps are spent (then the game is played out at random: still a
    real game).  `stop()`: the wall-clock limit, asked between rounds.  Returns the best value
    reached at a round's end and the recorded game, or None."""
    rng = random.Random(f"soan/{seed}/stepwise")
    spent = 0
    try:
        st = State(tables).start()
    except SpecRuntimeError:
        return None
    steps: list = []
    best_v = objective(st)
    while not st.is_terminal() and spent < max_steps and not (stop and stop()):
        if settled is not None and settled(best_v):
            break
        found = None
        for _ in range(RESTARTS):
            try:
                got = _segment(st, [], rng)
            except SpecRuntimeError:
                continue
            spent += len(got[1]) + 1
            v = objective(got[0])
            if found is None or v > found[0]:
                found = (v, *got)
        if found is None:
            return None
        v, end, taken, offered = found
        for _ in range(SWEEPS):
            improved = False
            k = 0
            while k < len(taken) and spent < max_steps:
                o = offered[k]
                if isinstance(o, list) and o and isinstance(o[0], str):
                    alts = [i for i in range(len(o)) if i != taken[k]]
                elif isinstance(o, list):
                    alts = [i for i in o if i != taken[k]]
                else:
                    alts = []
                    for _ in range(min(ALTERNATIVES, o * o)):
                        perm = list(taken[k])
                        a, b = rng.sample(range(len(perm)), 2)
                        perm[a], perm[b] = perm[b], perm[a]
                        alts.append(perm)
                if len(alts) > ALTERNATIVES:
                    alts = rng.sample(alts, ALTERNATIVES)
                course = _labelled(taken, offered)
                for a in alts:
                    cand = list(course)
                    cand[k] = o[a] if isinstance(o, list) and o and isinstance(o[0], str) else a
                    try:
                        got = _segment(st, cand, rng)
                    except SpecRuntimeError:
                        continue
                    spent += len(got[1]) + 1
                    gv = objective(got[0])
                    if gv > v:
                        v, end, taken, offered = gv, *got
                        improved = True
                        break
                k += 1
            if not improved or (settled is not None and settled(v)):
                break
        st = end
        steps += taken
        best_v = max(best_v, v)
    while not st.is_terminal():  # played out at random: the witness is a whole game
        if st.current_player() == CHANCE:
            t = st.sample_chance(rng)
            st.apply_chance(t)
        else:
            t = rng.randrange(len(st.legal_moves()))
            st.apply(t)
        steps.append(t)
    rec = follow(tables, steps, rng.randrange(2**31))
    if on_game is not None:
        on_game(rec)
    return best_v, rec


def convertible_zones(spec: ir.Spec, token: str, player_zones: set[str]) -> set[str]:
    """The players' zones whose cards a rule turns into `token`: a block whose own statements
    both give the token and move cards out of a player's zone of that name (a sale: the cards
    go, the tokens come)."""
    out: set[str] = set()
    for node in ir.walk(spec):
        if not isinstance(node, ir.Block):
            continue
        if not any(isinstance(s, ir.Give) and s.token == token for s in node.stmts):
            continue
        for s in node.stmts:
            if isinstance(s, ir.Move | ir.Draw):
                src = s.what if isinstance(s, ir.Move) else s.source
                out |= {n.name for n in ir.walk(src) if isinstance(n, ir.Attr) and n.name in player_zones}
    return out


def potential_objective(tables: Tables, token: str, supply: int) -> Callable[[State], tuple]:
    """A state's value when looking for a shortage of `token`: the tokens out of the supply, and
    for every card the players hold in a zone a rule turns into the token (convertible_zones)
    the supply's share per card of the game (a card bought cheap is worth keeping for a sale
    in a later round, which the tokens out alone cannot see), after a first number that is 1
    once a give found the supply short (a mark that stays).  A guide for the search only: the witness is the
    shortage itself, replayed."""
    zones = convertible_zones(tables.spec, token, set(tables.player_zone_names))
    slots = [tables.slot_of[(z, i)] for z in sorted(zones) for i in range(tables.n)
             if (z, i) in tables.slot_of]
    share = supply / max(1, len(tables.C))

    def value(st: State) -> tuple:
        if any(k == "short_supply" and site[0] == token for k, site in st.first_marks):
            return (1, supply + 1)
        return (0, supply - st.supply[token] + share * sum(len(st.zones[s]) for s in slots))
    return value
