"""Focused planned witnesses for loose score items in long games (verify/seat_plan.py): one seat's
runs of decisions searched closely, the others' cheaply, valued by that seat's item were the game
scored now, then its closeness and progress towards the item."""

from __future__ import annotations

from soan.interpreter.play import replay
from soan.verify import item_plan, seat_plan

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
