"""search.climb's `quiet`: a climb stops after that many games in a row that neither raise its value
nor add anything its caller keeps (on_game returns nothing true), counted in games, never seconds.
On the Collector spec of test_item_witness (five chips of one colour score the set's 5; random play
never shows it)."""

from __future__ import annotations

from soan.interpreter.play import play_game
from soan.verify import item_witness, properties
from soan.verify.search import SearchResult, climb, observe
from tests.verify.test_item_witness import _tables


def _starts(tables):
    return [play_game(tables, s, ["random"] * 2) for s in range(4)]


def test_a_climb_whose_games_add_nothing_stops_after_quiet_games():
    """Valued by the set alone (no small change raises it) and told that no game adds anything, a climb with quiet 30 plays 30 games and the kick on its way out, not its 300 of budget."""
    tables = _tables()
    played = []

    def nothing_new(rec):
        played.append(rec)
        return False
    value, _ = climb(tables, properties._score_value("item:set", 1, 2), _starts(tables), 0, None, 300,
                     on_game=nothing_new, quiet=30)
    assert value == 0 and len(played) == 30 + 1


def test_a_game_that_adds_something_starts_the_count_again():
    """Told that games 25, 50 and 75 each added something (a by-product another item keeps), the same climb goes on to game 75 + 30 and the kick: 106 games."""
    tables = _tables()
    played = []

    def by_the_way(rec):
        played.append(rec)
        return len(played) in (25, 50, 75)
    climb(tables, properties._score_value("item:set", 1, 2), _starts(tables), 0, None, 300, on_game=by_the_way,
          quiet=30)
    assert len(played) == 75 + 30 + 1


def test_quiet_only_cuts_a_climb_short_and_a_late_gain_needs_a_quiet_above_its_plateau():
    """Valued by the set and its closeness (seed 1, no game said to add anything), the climb reaches the hand-known 5 at its 228th game; with quiet 150 it plays the very same 228 games, with quiet 120 it stops after the same first 217 (its value last rose at game 97, then not until the set at 228), plays the kick every climb tries on its way out, and misses it."""
    tables = _tables()
    starts = _starts(tables)

    def run(quiet):
        logs = []
        value, _ = climb(tables, item_witness.item_value(tables, "set", 1), starts, 1, None, 300, goal=5,
                         drift=item_witness.DRIFT, raise_parts=3, quiet=quiet,
                         on_game=lambda rec: logs.append(rec.log))
        return value, logs
    free, patient, short = run(None), run(150), run(120)
    assert free[0] == 5 and len(free[1]) == 228 and patient == free
    assert short[0] == 0 and len(short[1]) == 218 and short[1][:217] == free[1][:217]


def test_observe_says_whether_a_game_changed_what_is_kept():
    """observe returns True for a game that brings a first witness or extreme, and False for the same game seen again."""
    tables = _tables()
    res, rec = SearchResult(), _starts(tables)[0]
    assert observe(res, rec, tables) is True
    assert observe(res, rec, tables) is False
