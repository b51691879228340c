"""Round by round: a cooperative search that keeps one game and extends it a round at a time.

The beam (verify/climb.py) values every state by an objective read at once,
so a move whose worth shows only many steps later (a piece placed now where a
payment later in the round counts it) is told apart only by chance.
Here the game grows one round at a time: from the kept state, the rest of the
round is played out (every decision and chance event, the setup's too, as one
course), the course's steps improved one at a time by coordinate ascent (each
other move of a decision, other outcome of a chance event, a few swaps of a
shuffle; the rest of the round following the old course, each step taken
where the same seat is asked at the same rule, so a change that adds or skips a
follow-up choice leaves the rest as it was), valued by the objective where the
round ends.  The objective may count more than the tokens out: what the
players hold that a rule turns into tokens (potential_objective), so a card
bought in one round for a sale in a later one is worth keeping.  The best
round is kept and the next one searched from its end.  A round is what the
rules call one (State.round); a game without rounds is searched in windows of
a fixed number of steps.

This finds what a greedy beam cannot when the objective moves only at a
round's end, but each round's gain must show by that round's end (in tokens or
in what is held): a plan whose worth depends on which cards were gathered
rounds before (all of one type, for one later sale) is beyond it.

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

from .climb import follow, play_out
from .waiting import waiting_count

# a round searched: random courses to start from, then sweeps of single changes, each step trying
# at most ALTERNATIVES others; WINDOW steps make a "round" where the rules have none (or one runs long)
RESTARTS = 4
ALTERNATIVES = 8
SWEEPS = 3
WINDOW = 400
RESYNC = 16
# a card waiting for a give of the token, against a token out (potential_objective)
WAITING_WEIGHT = 0.5


def _segment(start: State, course: list, rng: random.Random) -> tuple[State, list, list]:
    """The rules played from `start` to the next round's start (or the game's end, or WINDOW
    steps), following `course` where it fits, drawn from `rng` elsewhere.  `course` holds
    (where, what) pairs: where a step is asked (a decision's seat and rule site, a chance
    event's kind and text), and a decision's move by its label or a chance event's outcome.
    Each step takes the next pair of the course asked at the same place within RESYNC pairs
    (a changed step that adds or skips a decision, such as an option with a follow-up choice,
    leaves the rest of the round as it was).  Returns the state reached, the steps taken (a
    decision's move index, a chance event's outcome) and the course they make, each pair with
    what its step offered (a decision's labels; a roll's or pick's possible outcomes; a
    shuffle's card count, negative)."""
    st = start.clone()
    first = st.round
    taken: list = []
    made: list = []
    decided = False
    j = 0
    while not st.is_terminal() and len(taken) < WINDOW:
        if decided and st.round != first:
            break
        chance = st.current_player() == CHANCE
        if not decided and not chance:
            first = st.round  # the setup's chance events go with the first round played
        p = st.pending
        where = ("chance", p.kind, p.text) if chance else (p.player, p.site)
        want = None
        for i in range(j, min(len(course), j + RESYNC)):
            if course[i][0] == where:
                want, j = course[i][1], i + 1
                break
        if chance:
            oc = st.chance_outcomes()
            if isinstance(oc, ShuffleOutcomes):
                offer = -oc.n
                t = list(want) if isinstance(want, list) and sorted(want) == list(range(oc.n)) else oc.sample(rng)
            else:
                offer = [i for i, (_, pr) in enumerate(oc) if pr > 0]
                t = want if isinstance(want, int) and not isinstance(want, bool) and want in offer \
                    else rng.choice(offer)
            st.apply_chance(t)
            made.append((where, t, offer))
        else:
            offer = [m.label for m in st.legal_moves()]
            t = offer.index(want) if isinstance(want, str) and want in offer else rng.randrange(len(offer))
            st.apply(t)
            made.append((where, offer[t], offer))
            decided = True
        taken.append(t)
    return st, taken, made


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
        v, end, taken, made = found
        for _ in range(SWEEPS):
            improved = False
            k = 0
            while k < len(taken) and spent < max_steps:
                where, chosen, o = made[k]
                if isinstance(o, list):
                    alts = [x for x in o if x != chosen]
                else:
                    alts = []
                    for _ in range(ALTERNATIVES if o <= -2 else 0):
                        perm = list(chosen)
                        a, b = rng.sample(range(len(perm)), 2)
                        perm[a], perm[b] = perm[b], perm[a]
                        alts.append(perm)
                if len(alts) > ALTERNATIVES:
                    alts = rng.sample(alts, ALTERNATIVES)
                course = [(w, x) for w, x, _ in made]
                for a in alts:
                    cand = list(course)
                    cand[k] = (where, a)
                    try:
                        got = _segment(st, cand, rng)
                    except SpecRuntimeError:
                        continue
                    spent += len(got[1]) + 1
                    gv = objective(got[0])
                    if gv > v:
                        v, end, taken, made = gv, *got
                        improved = True
                        break
                k += 1
            if not improved or (settled is not None and settled(v)):
                break
        st = end
        steps += taken
        best_v = max(best_v, v)
    try:
        steps.extend(play_out(st, rng))  # played out at random: the witness is a whole game
    except SpecRuntimeError:  # the spec's own fault, which the seeded games report
        return None
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
    # cards that pass the tests on the way to a give of the token, worth less than a token out (a
    # layout that keeps more of them waiting, for a give in a later round: verify/waiting.py)
    waiting = waiting_count(tables, token)

    def value(st: State) -> tuple:
        if any(k == "short_supply" and site[0] == token for k, site in st.first_marks):
            return (1, supply + 1)
        held = share * sum(len(st.zones[s]) for s in slots)
        return (0, supply - st.supply[token] + held + (WAITING_WEIGHT * waiting(st) if waiting else 0))
    return value
