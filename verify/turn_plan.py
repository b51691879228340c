"""Turn by turn: a cooperative search that plans each seat's run of decisions as one move.

A supply that runs short only when every seat, turn after turn, takes the
steps that lead to a give (a card laid where a give can reach it, then the
work that gives for it, with the right roll or number) is seldom found by
searches that value one decision at a time: the decision that matters (where a
piece is placed) shows its worth only two or three decisions later (which card,
which way), and a random continuation seldom takes those.  Here every run of
decisions one seat makes in a row (its turn, up to DEPTH of them) is searched
as a tree: every move at each decision, the run's budget of LEAVES sequences
shared evenly among them, and the sequence whose end (where another seat or a
chance event is next) has the highest objective is played.  Where every
sequence ties (a choice whose effect shows only after the other seats chose,
such as cards laid in secret together), the first TIE_LEAVES of them are told
apart by the same short random continuation (the same luck for each).

The game grows a round at a time (State.round): each round is played TRIES
times from where the last one ended, with different luck for the chance events
and ties, and the course whose round ends with the highest objective is kept.
Chance events are drawn at random, or, in the last `chosen` courses of each
round, chosen (verify/luck.py: piles stacked by a field of their cards, the
undrawn rest of a pile stacked again at a round's start with its shuffle's
outcome rewritten, rolls at their highest or lowest face): every outcome
chosen has a chance of happening, so the game is still one that could be
dealt.  A guide for finding a witness only: the witness is the game itself,
recorded as played (climb.follow), and it replays like any other.

Work is counted in engine steps (moves and chance events applied, each
valuation one, each pile stacked again one), never in seconds.

`soan verify` calls it for tokens that lie one per card where more cards than
the supply can take one (verify/supplies.py); on the shipped specs that is one
supply at 4 players, found short (31 of 30 out) from seed 0 in about 95,000
steps in one draft, not from seed 0 in the draft before it (27), nor from seed 1
in the first (25); docs/verify.md names them.
"""

from __future__ import annotations

import random
from typing import Callable

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import GameRecord
from soan.interpreter.runtime import Tables
from soan.interpreter.state import CHANCE, State

from . import luck
from .climb import follow, play_out

# sequences tried per run of one seat's decisions, and decisions in a run at most (a seat's turn)
LEAVES = 200
DEPTH = 8
# runs whose ends all tie: how many are told apart by a continuation of how many random steps
TIE_LEAVES = 64
TIE_STEPS = 6
# courses of each round, the one whose end values highest kept
TRIES = 4
# random steps at most from a run's end to the round's end (plan's `ahead_of`)
ROUND_END_STEPS = 600


class _Work:
    __slots__ = ("spent",)

    def __init__(self):
        self.spent = 0


def _run(st: State, objective: Callable[[State], tuple], rng: random.Random, work: _Work,
         leaves: int = LEAVES, ahead: int = 0) -> tuple[list[int], tuple]:
    """The moves of the seat to move, from `st` until another seat or a chance event is next (at
    most DEPTH): the sequence whose end values highest among a tree of LEAVES sequences, and that
    value.  `ahead`: the `ahead` ends valued highest are valued again where a random continuation
    leaves them at the round's end (_at_round_end, the same luck for each), and the best of them there
    is played."""
    seat = st.current_player()
    ends: list = []

    def grow(s: State, seq: list, budget: int, owned: bool) -> None:
        # owned: `s` is this call's own copy (not the caller's state), so it may be played on in place
        if s.is_terminal() or s.current_player() != seat or len(seq) >= DEPTH:
            ends.append((s, seq))
            return
        if budget <= 1:  # no budget left to branch: the run finished at random
            if not owned:
                s = s.clone()
            seq = list(seq)
            while not s.is_terminal() and s.current_player() == seat and len(seq) < DEPTH:
                m = rng.randrange(len(s.legal_moves()))
                s.apply(m)
                seq.append(m)
                work.spent += 1
            ends.append((s, seq))
            return
        moves = list(range(len(s.legal_moves())))
        rng.shuffle(moves)
        moves = moves[:budget]
        for i, m in enumerate(moves):
            # the last move may be played on `s` itself where it is this call's own: nothing reads it after
            c = s if owned and i == len(moves) - 1 else s.clone()
            c.apply(m)
            work.spent += 1
            grow(c, seq + [m], budget // len(moves), True)

    grow(st, [], leaves, False)
    valued = []
    for s, seq in ends:
        work.spent += 1
        valued.append((objective(s), rng.random(), s, seq))
    if len({v for v, _, _, _ in valued}) == 1 and len({tuple(seq[:1]) for _, _, _, seq in valued}) > 1:
        bits = rng.getrandbits(32)  # the same luck for every continuation
        valued = [(_later(s, objective, bits, work), r, s, seq) for _, r, s, seq in valued[:TIE_LEAVES]]
    elif ahead > 0 and len(valued) > 1:
        top = sorted(valued, key=lambda x: (x[0], x[1]), reverse=True)[:ahead]
        bits = rng.getrandbits(32)
        later = [((_at_round_end(s, objective, bits, work), v), r, s, seq, v) for v, r, s, seq in top]
        best = max(later, key=lambda x: (x[0], x[1]))
        return best[3], best[4]
    best = max(valued, key=lambda x: (x[0], x[1]))
    return best[3], best[0]


def _at_round_end(st: State, objective: Callable[[State], tuple], luck: int, work: _Work) -> tuple:
    """The objective where random steps from `st` (the same luck for every caller) reach the next
    round's start or the game's end (ROUND_END_STEPS at most): what the rules' own steps at the round's
    end (a step that changes every card left in play, say) make of what a run built, which its end does not
    show."""
    return _random_on(st, objective, luck, work, ROUND_END_STEPS, to_round_end=True)


def _later(st: State, objective: Callable[[State], tuple], luck: int, work: _Work) -> tuple:
    """The objective TIE_STEPS random steps on from `st` (the same luck for every caller)."""
    return _random_on(st, objective, luck, work, TIE_STEPS)


def _random_on(st: State, objective: Callable[[State], tuple], luck: int, work: _Work, steps: int,
               to_round_end: bool = False) -> tuple:
    """The objective `steps` random steps on from a copy of `st` (fewer at the game's end, or at the next
    round's start when `to_round_end`), each step and the valuing counted in `work`."""
    r = random.Random(luck)
    s = st.clone()
    first = s.round
    for _ in range(steps):
        if s.is_terminal() or (to_round_end and s.round != first):
            break
        if s.current_player() == CHANCE:
            s.apply_chance(s.sample_chance(r))
        else:
            s.apply(r.randrange(len(s.legal_moves())))
        work.spent += 1
    work.spent += 1
    return objective(s)


def _round(start: State, objective: Callable[[State], tuple], rng: random.Random, work: _Work,
           max_steps: int, leaves: int = LEAVES,
           leaves_of: Callable[[int], int] | None = None,
           course: luck.Course | None = None, deals: luck.Deals | None = None,
           base: int = 0, ahead_of: Callable[[int], int] | None = None) -> tuple[State, list, tuple | None, dict]:
    """The rules played from `start` to the next round's start (the setup goes with the first
    round) or the game's end, every seat's runs planned (_run), chance drawn from `rng` (or chosen
    by `course`, its piles in `deals` stacked again first); the highest value a run of the round
    ended on (None where none was planned); and the earlier shuffles' outcomes rewritten by the
    stacking, by their index among the steps (`base`: the steps taken before `start`).  `deals`,
    where given, is updated with the round's shuffles."""
    st = start.clone()
    first = st.round
    taken: list = []
    peak = None
    rewritten = course.stack(st, deals) if course is not None and deals is not None else {}
    work.spent += len(rewritten)
    while not st.is_terminal() and work.spent < max_steps:
        if st.round != first and first > 0:
            break
        if st.current_player() == CHANCE:
            c = st.pending
            before = list(st.zones[c.target]) if deals is not None and c.kind == "shuffle" else None
            t = st.sample_chance(rng) if course is None else course.draw(st, rng)
            st.apply_chance(t)
            work.spent += 1
            if before is not None:  # the zone as the shuffle left it (the rules ran on from it, drawing, say)
                deals.shuffled(c.target, base + len(taken), before, [before[i] for i in t])
            taken.append(t)
            continue
        first = max(first, st.round)  # the setup's decisions go with the first round
        seat = st.current_player()
        seq, v = _run(st, objective, rng, work, leaves if leaves_of is None else leaves_of(seat),
                      0 if ahead_of is None else ahead_of(seat))
        for m in seq:
            st.apply(m)
            work.spent += 1
            taken.append(m)
        if peak is None or v > peak:
            peak = v
    return st, taken, peak, rewritten


def plan(tables: Tables, objective: Callable[[State], tuple], seed: int, max_steps: int,
         settled: Callable[[tuple], bool] | None = None, stop: Callable[[], bool] | None = None,
         on_game: Callable[[GameRecord], None] | None = None,
         spent: list | None = None, leaves: int = LEAVES, tries: int = TRIES,
         leaves_of: Callable[[int], int] | None = None,
         start: tuple[State, list] | None = None,
         hopeless: Callable[[list, State], bool] | None = None, again: int = 0,
         chosen: int = 0, first_luck: int = 0,
         ahead_of: Callable[[int], int] | None = None) -> tuple[tuple, GameRecord] | None:
    """One game grown round by round with every seat's runs planned on `objective` (a state's
    value, the higher the better), the best of TRIES courses of each round kept.  Stops early
    once `settled(value)` (the rest is played out at random), when `max_steps` engine steps are
    spent (the rest played out at random: still a real game), or when `stop()` (the wall-clock
    limit, asked between rounds) says so.  Returns the best value reached at a round's end and
    the recorded game, or None where the rules break.  `spent[0]` (where given) counts the steps
    spent; `leaves` and `tries` replace LEAVES and TRIES (a cheaper plan); `leaves_of(seat)`, where
    given, is each seat's own number of sequences in place of `leaves` (one seat planned closely, the
    others cheaply); `start`, where given, is a state and the steps that led to it (a game's
    opening kept), planned on from there; `hopeless(kept, state)`, where given, is asked after each
    round with the values kept so far (the start's first, then each round's) and the state kept: where
    it says so, planning stops there (the rest played out at random), its work saved; `again`: up to
    this many more courses of a round whose best course ends with the objective's first number below
    the most it reached, at the round's start or at the end of a run in one of its courses (what the
    seats had built, undone after their runs: a step the round's end carries out by itself, which no
    run sees), the best course kept; `chosen`: how many of each round's TRIES courses (the last ones)
    choose their luck instead of drawing it, all the same way (verify/luck.py: luck.Course number
    `first_luck`: piles stacked one way, rolls high, low or drawn); `ahead_of(seat)`, where given: how
    many of the best ends of each of that seat's runs are valued again at the round's end (_run's
    `ahead`)."""
    rng = random.Random(f"soan/{seed}/turn_plan")
    work = _Work()
    try:
        st, steps = (State(tables).start(), []) if start is None else (start[0].clone(), list(start[1]))
        best_v = objective(st)
        kept = [best_v]
        deals = luck.Deals() if chosen > 0 else None
        while not st.is_terminal() and work.spent < max_steps and not (stop and stop()):
            if settled is not None and settled(best_v):
                break
            found = None
            courses = 0
            high = kept[-1][:1]  # the most the item reached: at the round's start, at a run's end in it
            while courses < tries or (courses < tries + again and found[0][:1] < high and work.spent < max_steps):
                course = luck.Course(first_luck) if tries - chosen <= courses < tries else None
                dealt = deals.copy() if deals is not None else None
                end, taken, peak, rewritten = _round(st, objective, rng, work, max_steps, leaves, leaves_of,
                                                     course, dealt, len(steps), ahead_of)
                courses += 1
                v = objective(end)
                if peak is not None:
                    high = max(high, peak[:1])
                if found is None or v > found[0]:
                    found = (v, end, taken, rewritten, dealt)
                if settled is not None and settled(v):
                    break
            v, st, taken, rewritten, deals = found
            steps += taken
            for index, outcome in rewritten.items():
                steps[index] = outcome
            best_v = max(best_v, v)
            kept.append(v)
            if hopeless is not None and not (settled is not None and settled(best_v)) and hopeless(kept, st):
                break
        steps.extend(play_out(st, rng))  # the rest at random: the witness is a whole game
    except SpecRuntimeError:  # the spec's own fault, which the seeded games report
        return None
    finally:
        if spent is not None:
            spent[0] += work.spent
    rec = follow(tables, steps, rng.randrange(2**31))
    if on_game is not None:
        on_game(rec)
    return best_v, rec
