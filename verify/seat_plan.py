"""Witnesses for loose score items in long games: the turn-planned search (verify/turn_plan.py)
aimed at one seat's item, that seat planned closely and the others cheaply.

A planned game (verify/item_plan.py) searches every seat's runs of decisions as a tree of
sequences; in a game of hundreds of decisions that costs more engine steps than one item's
share of the work, or leaves most loose items without a game.  But a witness for an item's maximum needs one
seat to score it, not every seat: the others need only keep out of its way.  Here the objective
is the focused seat's item were the game scored now, then its closeness to the item's conditions
and its progress towards what it counts (verify/item_witness.Closeness, verify/item_progress),
then the other seats' item as low as can be; the focused seat's runs are searched as a tree of
LEAVES sequences, every other seat's as one of OTHER_LEAVES (a few first decisions weighed on
the same objective, the rest at random).  A game then costs about half the steps of a fully
planned one, so twice as many items get one.  The first game for an item keeps the setup of the
item's best game seen (the deal and opening choices that served it, replayed as they were) and
focuses the seat that scored it there; the plans left over take turns: one re-plans the item's best
game so far from its half-way round, one tries the next seat from a fresh deal.  Two more guides
than the score: what the item's awards would count were the card states they count at their tops
(item_witness.at_top: a card held for what it can become), and a round whose end falls below what
it reached is played again (turn_plan.plan's `again`: the rules' own steps at a round's end, which
no run sees, can take back what the runs built).  A loose penalty is planned the same way towards its
minimum (the item negated), after the maxima and with a share of its own, each plan played to the
game's end (a penalty reached at a round's end is easily undone by the random play-out after it).

The search is a guide only: every game it returns is a real game, recorded as played, observed
and replayed like any other.  Work is engine steps (moves, chance events and scorings run),
never seconds.
"""

from __future__ import annotations

import random
from typing import Callable

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import GameRecord
from soan.interpreter.runtime import Tables
from soan.interpreter.state import CHANCE, State

from . import item_progress, luck, turn_plan
from .item_plan import item_scores
from .item_witness import Closeness, at_top

# sequences tried per run of the focused seat's decisions and per run of any other seat's
LEAVES = 60
OTHER_LEAVES = 4
# plans an item gets at most where its best game is known (the first from its setup, then in turn
# one from its half-way round and one from a fresh deal: on a shipped spec of 4 rounds, the side
# dishes' best game of 32 planned on from round 3 reached 40 in 3 of 4 tries, 20 in the fourth;
# planned afresh from its setup alone, 36; from six fresh deals 8-44, one at 40 or more)
MAX_PLANS = 16
# more courses of a round whose end leaves the focused seat's item below where the round began
# (turn_plan.plan's `again`)
AGAIN = 2
# engine steps a focused game costs per decision of a seeded game: 10-15 on a shipped spec of
# 330-440-decision games (3,400-6,400 steps a game), so a plan is tried only where an item's steps
# cover this many per decision
STEPS_PER_DECISION = 18
# the plans planned ahead (_plan_ahead): how many of the best ends of each of the focused seat's runs are
# valued again at the round's end, and the way their luck is chosen (luck.Course: piles stacked by their
# first field's first ordering, rolls high)
AHEAD = 4
AHEAD_LUCK = 0


def seat_state_value(tables: Tables, name: str, seat: int, sign: int = 1,
                     capped: bool = False) -> Callable[[State], tuple]:
    """A state's value for item `name` at seat `seat` (`sign` -1: aimed at its lowest, a penalty): that
    seat's item (times sign) were the game scored now, then its closeness to the item's conditions, what
    its awards would count were the card states they count at their tops (item_witness.at_top: the cards
    held for what they can become; where the amounts count no such state, those that read what is printed
    on cards, as they stand; a maximum only), its progress towards what the item counts, then minus the
    other seats' item (times sign).  `capped`: what the cards can become read at each card's own cap
    (at_top's `capped`)."""
    close = Closeness(tables, name)
    top = (at_top(tables, name, capped=True) if capped else at_top(tables, name)) if sign > 0 else None
    progress = item_progress.progress_of(tables, name)
    scores = item_scores(tables, name, sign)

    def value(st: State) -> tuple:
        vals = scores(st)
        if vals is None:  # a scoring that cannot run yet: such a state ranks last
            return (float("-inf"),)
        return (vals[seat], close(st, seat) if close else 0.0, top(st, seat) if top else 0,
                progress(st, seat) if progress else 0.0, -(sum(vals) - vals[seat]))
    return value


def plan_focused(tables: Tables, items: list[tuple[str, int, int]], seen: Callable[[str, int], int | None],
                 seed: int, max_steps: int, max_each: int, game_length: int, on_game: Callable[[GameRecord], None],
                 stop: Callable[[], bool] | None = None,
                 best_game: Callable[[str], GameRecord | None] | None = None,
                 ahead_steps: int = 0) -> list[tuple[str, int, GameRecord]]:
    """Focused planned games for each loose item (name, sign, proved bound: sign 1 a maximum, -1 a
    penalty's minimum, the bound then below 0) while the item's `max_each` steps cover another game of
    `game_length` decisions (STEPS_PER_DECISION each; a game planned from a later round, the share of
    its rounds left) and all the maxima `max_steps` (a penalty has its `max_each` to itself), stopping
    once the item reaches half its bound.  `best_game(name)`, where given, is the item's best game seen
    at the end it is aimed at (asked again before each plan, so a planned game that beat it is the next
    one's): the first plan keeps its setup (the deal and the opening choices that served it) and
    focuses the seat that scored the item there; then, in turn, one keeps its first half of rounds too
    and plans the rest with other luck (the game that planned on from a good start is often better than
    a new one), and one starts from a fresh deal, seat 2, 3, ... focused (other deals, other games by
    the way), MAX_PLANS at most.  Without it, seat 1 is focused, then seat 2, ..., each from a fresh
    deal.  The maxima fewest points short of half their bound go first, the penalties after them.
    `ahead_steps`: the steps of the plans planned ahead after all these (_plan_ahead), 0 for none.
    Returns the games that beat the best seen: (item, value, game), the best per item."""
    need = game_length * STEPS_PER_DECISION
    # the maxima first, sharing `max_steps`, the nearest to half their bound first; then each penalty with a
    # share of its own (the maxima's plans are the same with or without them)
    order = sorted((x for x in items if x[1] > 0 and x[2] > 0),
                   key=lambda x: -(-x[2] // 2) - (seen(x[0], x[1]) or 0))
    order += [x for x in items if x[1] < 0 and x[2] < 0]
    out = []
    left = max_steps
    for name, sign, bound in order:
        if sign < 0:
            left = max_each
        goal = -(-sign * bound // 2)  # half the bound's size, rounded up, in the item times sign
        used = 0
        found_best = None
        best = seen(name, sign)
        best = None if best is None else sign * best

        def item_of(rec: GameRecord, i: int, name=name, sign=sign) -> int:
            return sign * rec.result["breakdown"][f"P{i + 1}"][name]
        for k in range(MAX_PLANS if best_game is not None else tables.n):
            if best is not None and best >= goal or (stop is not None and stop()):
                break
            seat, start, share = k % tables.n, None, need
            kept = best_game(name) if best_game is not None and (k == 0 or k % 2 == 1) else None
            if kept is not None:
                seat = max(range(tables.n), key=lambda i: item_of(kept, i))
                rounds = kept.result.get("rounds", 0)
                first = 1 if k == 0 or rounds < 2 else rounds // 2 + 1
                start = opening_of(tables, kept, first)
                share = need * (rounds - first + 1) // max(1, rounds)
            elif best_game is not None:
                seat = (k // 2) % tables.n  # a fresh deal: seat 2, 3, ..., then 1
            if min(left, max_each - used) < share:
                break
            spent = [0]
            # a maximum reached stops the planning (the rest played out at random); a penalty is planned to
            # the end, as the play after it can undo what it counts (a raw dish roasted, say)
            settled = (lambda v, goal=goal: v[0] >= goal) if sign > 0 else None
            found = turn_plan.plan(tables, seat_state_value(tables, name, seat, sign), seed + k,
                                   min(max_each - used, left),
                                   settled=settled, stop=stop, on_game=on_game,
                                   spent=spent, leaves=LEAVES, tries=1,
                                   leaves_of=lambda s, seat=seat: LEAVES if s == seat else OTHER_LEAVES, start=start,
                                   again=AGAIN)
            used += spent[0]
            left -= spent[0]
            if found is None:
                continue
            rec = found[1]
            got = max(item_of(rec, i) for i in range(tables.n))
            if best is None or got > best:
                best, found_best = got, rec
        if found_best is not None:
            out.append((name, sign * best, found_best))
    if ahead_steps > 0:
        out += _plan_ahead(tables, [x for x in items if x[1] > 0 and x[2] > 0], seen, seed, ahead_steps,
                           max_each, need, on_game, stop)
    return out


def _plan_ahead(tables: Tables, items: list[tuple[str, int, int]], seen: Callable[[str, int], int | None],
                seed: int, max_steps: int, max_each: int, need: int, on_game: Callable[[GameRecord], None],
                stop: Callable[[], bool] | None) -> list[tuple[str, int, GameRecord]]:
    """After every other plan, the maxima still short of half their bound (fewest points short first) get
    plans of `max_steps` of their own (`max_each` an item), each planned ahead: the focused seat's runs
    valued again at the round's end (turn_plan.plan's `ahead_of`, AHEAD of each run's ends), the cards
    valued at their own caps (at_top's `capped`), the luck chosen (luck.Course(AHEAD_LUCK)) and the seat
    focused the one whose value is highest where that luck and random choices have dealt the setup
    (_dealt_seat).  The games before are the same as without them, so what these play only adds."""
    order = sorted(items, key=lambda x: -(-x[2] // 2) - (seen(x[0], x[1]) or 0))
    out = []
    left = max_steps
    for name, _, bound in order:
        goal = -(-bound // 2)
        best = seen(name, 1)
        used = 0
        found_best = None
        for k in range(MAX_PLANS):
            if best is not None and best >= goal or (stop is not None and stop()):
                break
            if min(left, max_each - used) < need:
                break
            seat = _dealt_seat(tables, name, seed + k)
            spent = [0]
            found = turn_plan.plan(tables, seat_state_value(tables, name, seat, capped=True), seed + k,
                                   min(max_each - used, left), settled=lambda v, goal=goal: v[0] >= goal,
                                   stop=stop, on_game=on_game, spent=spent, leaves=LEAVES, tries=1,
                                   leaves_of=lambda s, seat=seat: LEAVES if s == seat else OTHER_LEAVES,
                                   again=AGAIN, chosen=1, first_luck=AHEAD_LUCK,
                                   ahead_of=lambda s, seat=seat: AHEAD if s == seat else 0)
            used += spent[0]
            left -= spent[0]
            if found is None:
                continue
            rec = found[1]
            got = max(rec.result["breakdown"][f"P{i + 1}"][name] for i in range(tables.n))
            if best is None or got > best:
                best, found_best = got, rec
        if found_best is not None:
            out.append((name, best, found_best))
    return out


def _dealt_seat(tables: Tables, name: str, seed: int) -> int:
    """The seat whose value for item `name` (seat_state_value, cards at their caps) is highest where the
    setup is dealt with luck.Course(AHEAD_LUCK) and its decisions taken at random (`seed`): the seat that
    luck favours (a pile stacked by kind deals one seat the cards its item counts)."""
    rng = random.Random(f"soan/{seed}/dealt_seat")
    course = luck.Course(AHEAD_LUCK)
    st = State(tables).start()
    try:
        while not st.is_terminal() and st.round < 1:
            if st.current_player() == CHANCE:
                st.apply_chance(course.draw(st, rng))
            else:
                st.apply(rng.randrange(len(st.legal_moves())))
    except SpecRuntimeError:
        return 0
    values = [seat_state_value(tables, name, i, capped=True)(st) for i in range(tables.n)]
    return max(range(tables.n), key=lambda i: values[i])


def opening_of(tables: Tables, rec: GameRecord, rounds: int = 1) -> tuple[State, list]:
    """The state at which game `rec` enters round `rounds` (its setup, and the rounds before, kept
    as played) and the steps that led there: each decision's move index, each chance event's outcome."""
    st = State(tables).start()
    steps: list = []
    for step in rec.log["steps"]:
        if st.is_terminal() or st.round >= rounds:
            break
        t = step["index"] if "index" in step else step["outcome"]
        if "index" in step:
            st.apply(t)
        else:
            st.apply_chance(t)
        steps.append(t)
    return st, steps
