"""The generated code is cached by its source alone: tables of other rulings or player counts built in the
same process reuse what they generate alike, and every game is still the game its own tables play."""

from __future__ import annotations

from pathlib import Path

from soan import api
from soan.interpreter import codegen
from soan.interpreter.play import play_game

WALK = Path(__file__).resolve().parent / "specs" / "walk-1.soan"


def _logs(tables, seeds):
    return [play_game(tables, s, ["random"] * tables.n).to_json() for s in seeds]


def test_games_played_after_other_rulings_compiled_are_the_same_games():
    """A ruling's games are byte for byte those played with nothing else compiled, and the ruling changes some."""
    spec = api.load(str(WALK))
    seeds = range(12)
    codegen._CODE_CACHE.clear()
    alone = _logs(api.tables(spec, 2, {"bonus_points": 3}), seeds)
    codegen._CODE_CACHE.clear()
    first = _logs(api.tables(spec, 2, {"bonus_points": 1}), seeds)
    cached = len(codegen._CODE_CACHE)
    assert cached > 0
    after = _logs(api.tables(spec, 2, {"bonus_points": 3}), seeds)
    assert after == alone
    assert first != alone  # the ruling is read in these games: the test compares games that differ
    assert len(codegen._CODE_CACHE) - cached < cached // 2  # most functions were shared, not compiled again
