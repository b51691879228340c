"""Climbs aimed at a loose score item, steered by how close a seat is to the item's own conditions
(verify/item_witness.py)."""

from __future__ import annotations

from soan import api
from soan.interpreter.play import play_game
from soan.verify import item_witness, properties
from soan.verify.search import climb, play_course

# Six turns each; a turn rests (1 nap point) or takes a chip of any colour from the market.  Five chips
# of one colour in hand score the set's 5 at the end: one of six colours, five of six turns, so random
# play almost never shows it, and until it is complete the set's score reads 0.  Hand-known top: 5.
COLLECTOR = """game "Collector" players 2..2
enum colour "colour" = red, blue, green, gold, grey, pink
component chip "chip" {
  colour: colour
}
zone market: shared public unordered
zone hand: per_player public unordered
cards chip in market {
  6 x colour = red
  6 x colour = blue
  6 x colour = green
  6 x colour = gold
  6 x colour = grey
  6 x colour = pink
}
score naps "naps"
score set "set"
def n_of(p, k) = count(c in p.hand where c.colour == k)
def has_set(p) = any(k in colour where n_of(p, k) >= 5)
rounds 6 {
  for p in players {
    choose by p "a turn" {
      option rest "rest" { award 1 to p for naps }
      option take "take" when count(market) > 0 {
        choose c from market by p "takes a chip" { move c to p.hand }
      }
    }
  }
}
scoring {
  for p in players {
    if has_set(p) { award 5 to p for set }
  }
}
winner among p in players by vp(p) desc else draw
"""


def _tables():
    return api.tables(api.compile_text(COLLECTOR, "t.soan"), 2)


def test_the_award_conditions_are_the_if_tests_around_the_award_with_its_player_local():
    """The set's one award sits under `if has_set(p)` in the loop over players; the naps' award has no test."""
    tables = _tables()
    conds = item_witness.award_conditions(tables, "set")
    assert len(conds) == 1 and conds[0][0] == "p" and len(conds[0][1]) == 1
    assert [c for _, c in item_witness.award_conditions(tables, "naps")] == [()]


def test_closeness_grades_the_condition_through_the_defs_as_the_share_of_the_way():
    """At the start a seat is 0 of the way to five of a colour; ending with three blue chips and one red it is
    3/5 of the way (the best colour of any(...)), and with five blue it is there (1) and scores the set."""
    tables = _tables()
    close = item_witness.Closeness(tables, "set")
    assert close(api.State(tables).start(), 0) == 0.0

    def ending_with(chips):
        course = []
        for k in range(6):
            course += ["take", f"chip({chips[k]})"] if k < len(chips) else ["rest"]
            course += ["rest"]  # the other seat
        return play_course(tables, course, 0)
    rec = ending_with(["blue", "blue", "red", "blue"])
    assert close(rec.state, 0) == 3 / 5 and close(rec.state, 1) == 0.0
    rec = ending_with(["blue"] * 5)
    assert close(rec.state, 0) == 1.0 and rec.result["breakdown"]["P1"]["set"] == 5


def test_the_graded_climb_reaches_the_hand_known_set_and_the_plain_climb_does_not():
    """From the same four random games and 300 games of work, the climb valued by the set and its closeness
    finds a game scoring the set's 5 (the hand-known top) that replays; valued by the set alone (as the
    short climbs were) it stays at 0, for seeds 0 to 2."""
    tables = _tables()
    starts = [play_game(tables, s, ["random"] * 2) for s in range(4)]
    assert all(b["set"] == 0 for r in starts for b in r.result["breakdown"].values())
    for seed in range(3):
        value, rec = climb(tables, item_witness.item_value(tables, "set", 1), starts, seed, None, 300, goal=5,
                           drift=item_witness.DRIFT)
        assert value == 5 and max(b["set"] for b in rec.result["breakdown"].values()) == 5
        assert api.replay(tables, rec.log).result == rec.result
        plain, _ = climb(tables, properties._score_value("item:set", 1, 2), starts, seed, None, 300, goal=5)
        assert plain == 0


def test_a_stalled_climb_gives_its_work_back():
    """With patience 40 a climb valued by the set alone (which no small change raises) stops after 40 games
    that raise nothing (and one kick), well before its 300 games of budget."""
    tables = _tables()
    starts = [play_game(tables, s, ["random"] * 2) for s in range(4)]
    played = []
    value, _ = climb(tables, properties._score_value("item:set", 1, 2), starts, 0, None, 300,
                     on_game=played.append, patience=40)
    assert value == 0 and len(played) == 40 + 1  # and the kick every climb tries on its way out


def test_the_loose_item_climbs_find_the_same_games_for_any_number_of_jobs():
    """climb_loose over the set (from four random games, 400 games of work, patience 250) returns the same game, a set of
    5, with one process and with two (the second plays the games the climb would try next)."""
    tables = _tables()
    starts = [play_game(tables, s, ["random"] * 2) for s in range(4)]

    def run(jobs):
        seen = {"set": 0}
        return item_witness.climb_loose(tables, [("set", 1, 5)], lambda name, sign: starts,
                                        lambda name, sign: seen.get(name), 0, 400, 400, 250, lambda rec: None,
                                        climb, jobs=jobs)
    one, two = run(1), run(2)
    assert [(n, v) for n, v, _ in one] == [("set", 5)]
    assert [(n, v, r.log) for n, v, r in one] == [(n, v, r.log) for n, v, r in two]
