"""Witnesses for loose score items by planned turns: the turn-planned search (verify/turn_plan.py)
aimed at one item.

An item that pays only for something built over the whole game (a dish cooked grade by grade
to the top, five of one kind gathered) needs a plan kept for many rounds: the same kind of
card taken each round, the same work done on it.  Climbs that change a game here and there
(verify/item_witness.py) and beams that value one decision at a time rarely keep one; a seat
whose every run of decisions is searched as a whole, the game grown round by round, does when
the objective says what is being built.  Here the objective is the best seat's item if the
game's end-of-game scoring ran now (interpreter.evaluate.finish_now), then that seat's closeness
to the item's award conditions and its progress towards what the item counts
(verify/item_witness.Closeness, verify/item_progress), then the other seats' item as low as can
be.

The search is a guide only: every game it returns is a real game, recorded as played, observed
and replayed like any other.  Work is engine steps (moves, chance events and scorings run),
never seconds.
"""

from __future__ import annotations

import random
from typing import Callable

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.evaluate import finish_now
from soan.interpreter.play import GameRecord
from soan.interpreter.runtime import Tables
from soan.interpreter.state import State

from . import item_progress, turn_plan
from .item_witness import Closeness

# the plan's shape: sequences tried per run of one seat's decisions, and courses of each round (turn_plan's
# own 200 and 4 cost a shipped spec of 250-decision games 67,000 steps a game; 50 and 1 about 7,500, and
# reached further on its loose items from three seeds than the climbs: a top-grade bonus 10 where they saw 8)
LEAVES = 50
TRIES = 1
# engine steps a planned game costs per decision of a seeded game (moves tried, scorings run): about 30
# on that spec, so a plan is tried only where the item's steps cover this many per decision
STEPS_PER_DECISION = 40
# the wider plan for items still loose after that one: courses of each round, and its engine steps per decision
# (50 sequences and 4 courses cost that spec 28,000-40,000 steps a game, 130-140 a decision; from six seeds
# they reached a 4-player combo bonus of 8-10 in five, where 1 course reached 2-3, and a top-grade bonus of
# 8-12 in five, where 1 course reached 0-10, mostly 4-6)
WIDE_TRIES = 4
# of the wider plan's courses of each round, how many choose their luck (verify/luck.py: piles stacked, rolls
# high or low) instead of drawing it
WIDE_CHOSEN = 4
WIDE_STEPS_PER_DECISION = 150
# the wider plan's courses now all choose their luck (WIDE_CHOSEN = WIDE_TRIES; it was 2), and its progress
# counts each token the seat holds that its own choices spend (item_progress.spent_by_choice) this much: a
# run that spends them at once for a little progress leaves a later run nothing to make a move count with.
# On a shipped spec of 150-190-step games, the wide plan for one loose item from seeds 0-8: as before 1 of 9
# seeds reached half the bound at 3 players, 0 of 9 at 4; all courses choosing 2 and 1 of 9 (3 of 18 at 4 from
# seeds 0-17); with tokens held at 0.05 as well, 4 and 1 of 9, seed 0 in both (docs/verify.md)
WIDE_HELD = 0.05


def item_scores(tables: Tables, name: str, sign: int = 1) -> Callable[[State], list[int] | None]:
    """Each seat's item `name` (times `sign`) were the game's end-of-game scoring run now; None where
    the scoring cannot run yet (in the setup, say)."""
    score_rng = random.Random(0)

    def scores(st: State) -> list[int] | None:
        try:
            done = st if st.result is not None else finish_now(st, score_rng)
        except SpecRuntimeError:
            return None
        return [sign * done.result["breakdown"][f"P{i + 1}"][name] for i in range(tables.n)]
    return scores


def item_state_value(tables: Tables, name: str, sign: int, enablers: bool = True,
                     held: float = 0.0) -> Callable[[State], tuple]:
    """A state's value for item `name` (`sign` -1: its lowest): the best seat's item (times sign)
    were the game scored now, then that seat's closeness to the item's conditions and progress
    towards what it counts (`enablers`: the free slots a counted card is laid on count too,
    verify/item_progress.ENABLER_CARD; `held`: each token the seat holds that its own choices spend,
    item_progress.spent_by_choice, counts this much more), then minus the others' item."""
    close = Closeness(tables, name)
    progress = item_progress.progress_of(tables, name, enablers) if sign > 0 else None
    kept = item_progress.spent_by_choice(tables.spec) if held and progress else []
    n = tables.n
    scores = item_scores(tables, name, sign)

    def value(st: State) -> tuple:
        vals = scores(st)
        if vals is None:  # a scoring that cannot run yet: such a state ranks last
            return (float("-inf"),)
        steer = [(close(st, i) if close else 0.0,
                  (progress(st, i) if progress else 0.0) + held * sum(st.pv[tok][i] for tok in kept)) for i in range(n)]
        i = max(range(n), key=lambda j: (vals[j], steer[j]))
        return (vals[i], *steer[i], -(sum(vals) - vals[i]))
    return value


def plan_loose(tables: Tables, items: list[tuple[str, int, int]], seen: Callable[[str, int], int | None],
               seed: int, max_steps: int, max_each: int, game_length: int, on_game: Callable[[GameRecord], None],
               stop: Callable[[], bool] | None = None, enablers: bool = True,
               wide_steps: int = 0, wide_each: int = 0) -> list[tuple[str, int, GameRecord]]:
    """A planned game for each loose maximum (name, sign, proved bound; the nearest to 'within 2x'
    first) while the steps last, each at most `max_each` steps and all of them `max_steps`, a plan
    stopping once its item reaches half its bound.  A game of `game_length` decisions whose plan
    would not fit in one item's steps (STEPS_PER_DECISION each) is not planned at all: cut short,
    the rest is played at random, no better than the seeded games.  Then each item still short of
    half its bound gets a wider plan (WIDE_TRIES courses of each round, WIDE_CHOSEN of them with chosen
    luck), each at most `wide_each`
    steps and all of them `wide_steps`, where one fits (WIDE_STEPS_PER_DECISION a decision).
    Returns the games that beat the best seen: (item, value, game)."""
    need = game_length * STEPS_PER_DECISION
    if need > max_each:
        return []
    out: list = []
    _plan_each(tables, items, seen, seed, max_steps, max_each, need, TRIES, on_game, stop, enablers, out, 0, 0.0)
    wide_need = game_length * WIDE_STEPS_PER_DECISION
    if wide_need <= wide_each:
        short = [x for x in items if (seen(x[0], x[1]) or 0) < -(-x[2] // 2)]
        _plan_each(tables, short, seen, seed, wide_steps, wide_each, wide_need, WIDE_TRIES, on_game, stop, enablers,
                   out, WIDE_CHOSEN, WIDE_HELD)
    return out


def _plan_each(tables: Tables, items: list[tuple[str, int, int]], seen: Callable[[str, int], int | None],
               seed: int, max_steps: int, max_each: int, need: int, tries: int,
               on_game: Callable[[GameRecord], None], stop: Callable[[], bool] | None, enablers: bool,
               out: list, chosen: int, held: float) -> None:
    """One plan of `tries` courses a round (`chosen` of them choosing their luck, `held` the weight of
    the tokens the seat holds to spend: item_state_value) for each item (the
    nearest to 'within 2x' first) while `max_steps` cover `need` more, each at most `max_each`; games
    that beat the best seen are added to `out`."""
    order = sorted((x for x in items if x[1] > 0), key=lambda x: -(seen(x[0], x[1]) or 0) / max(1, x[2]))
    left = max_steps
    for name, sign, bound in order:
        if left < need or (stop is not None and stop()):
            break
        goal = -(-bound // 2)
        spent = [0]
        found = turn_plan.plan(tables, item_state_value(tables, name, sign, enablers, held), seed, min(max_each, left),
                               settled=lambda v, goal=goal: v[0] >= goal, stop=stop, on_game=on_game,
                               spent=spent, leaves=LEAVES, tries=tries, chosen=chosen)
        left -= spent[0]
        if found is None:
            continue
        rec = found[1]
        got = max(rec.result["breakdown"][f"P{i + 1}"][name] for i in range(tables.n))
        before = seen(name, sign)
        if before is None or got > before:
            out.append((name, got, rec))
