"""Focused planned witnesses for loose score items in long games (verify/seat_plan.py): one seat's
runs of decisions searched closely, the others' cheaply, valued by that seat's item were the game
scored now, then its closeness and progress towards the item."""

from __future__ import annotations

from soan import api
from soan.interpreter.play import replay
from soan.verify import item_plan, seat_plan, turn_plan

from tests.verify.test_item_plan import _best, _tables

# the Smokehouse's seeded game: 2 seats x 9 rounds x 2 decisions
DECISIONS = 36


def test_a_focused_plan_reaches_the_hand_known_top_where_no_full_plan_fits_and_the_game_replays():
    """With one item's share at STEPS_PER_DECISION a decision, the full plan plays nothing, while the focused one reaches 15 (every pot of the first seat at grade 3, the hand-known top) from each of three seeds, and its log replays to 15."""
    t = _tables()
    share = DECISIONS * seat_plan.STEPS_PER_DECISION
    for seed in range(3):
        played = []
        assert item_plan.plan_loose(t, [("smoked", 1, 30)], lambda name, sign: 0, seed, share, share, DECISIONS,
                                    played.append) == [] and played == []
        found = seat_plan.plan_focused(t, [("smoked", 1, 30)], lambda name, sign: 0, seed, share, share, DECISIONS,
                                       played.append)
        assert [(name, v) for name, v, _ in found] == [("smoked", 15)]
        assert found[0][2].result["breakdown"]["P1"]["smoked"] == 15
        again = replay(t, found[0][2].log)
        assert _best(again) == 15


def test_a_share_below_one_focused_game_plans_nothing():
    """Where the decisions times STEPS_PER_DECISION exceed the item's share, no game is planned or played."""
    t = _tables()
    played = []
    share = DECISIONS * seat_plan.STEPS_PER_DECISION - 1
    assert seat_plan.plan_focused(t, [("smoked", 1, 30)], lambda name, sign: 0, 0, 100_000, share, DECISIONS,
                                  played.append) == [] and played == []


def test_the_next_seat_is_planned_while_the_share_lasts_and_only_better_games_are_returned():
    """With 15 already seen (the goal, half of 30, met) nothing is planned; with 0 seen and a bound of 40 (goal 20, out of reach) each seat gets one plan, both observed, and the best (15) is returned once."""
    t = _tables()
    played = []
    assert seat_plan.plan_focused(t, [("smoked", 1, 30)], lambda name, sign: 15, 0, 100_000, 100_000, DECISIONS,
                                  played.append) == [] and played == []
    found = seat_plan.plan_focused(t, [("smoked", 1, 40)], lambda name, sign: 0, 0, 100_000, 100_000, DECISIONS,
                                   played.append)
    assert len(played) == 2 and [(name, v) for name, v, _ in found] == [("smoked", 15)]
    assert [rec.result["breakdown"][f"P{k + 1}"]["smoked"] for k, rec in enumerate(played)] == [15, 15]


def test_the_first_plan_focuses_the_seat_that_scored_the_items_best_game():
    """Given a random game as the item's best, the first plan reaches 15 for the seat that scored most there, and replays."""
    t = _tables()
    kept = api.play(t, 3, ["random", "random"])
    seat = max((0, 1), key=lambda i: kept.result["breakdown"][f"P{i + 1}"]["smoked"])
    played = []
    found = seat_plan.plan_focused(t, [("smoked", 1, 30)], lambda name, sign: 0, 0, 100_000, 100_000, DECISIONS,
                                   played.append, best_game=lambda name: kept)
    rec = found[0][2]
    assert len(played) == 1 and rec.result["breakdown"][f"P{seat + 1}"]["smoked"] == 15
    assert _best(replay(t, rec.log)) == 15


def test_a_plan_from_a_kept_opening_plays_that_opening_as_it_was():
    """A game's first two rounds kept (opening_of, up to round 3) and planned on from there: the planned game's log begins with exactly those steps, and replays."""
    t = _tables()
    kept = api.play(t, 5, ["random", "random"])
    start = seat_plan.opening_of(t, kept, 3)
    assert start[0].round == 3 and len(start[1]) == 8
    found = turn_plan.plan(t, seat_plan.seat_state_value(t, "smoked", 1), 0, 100_000, start=start, leaves=60, tries=1)
    steps = [s["index"] for s in found[1].log["steps"]]
    assert steps[:8] == start[1] == [s["index"] for s in kept.log["steps"][:8]]
    assert replay(t, found[1].log).result == found[1].result
