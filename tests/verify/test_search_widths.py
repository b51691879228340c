"""The climb's step widths: a game play_course plays carries the widths a replay would find."""

from __future__ import annotations

from pathlib import Path

from soan.verify.search import course_of, play_course, widths_of

from soan import api
from soan.dsl import load_spec


def test_played_course_widths_match_a_replay():
    """Each step's count of moves or outcomes noted while play_course plays equals what widths_of finds by replaying the log."""
    tables = api.tables(load_spec(str(Path(__file__).parents[2] / "specs" / "pitmaster-20.soan")), 3)
    first = play_course(tables, [], 7)
    again = play_course(tables, course_of(first)[:40], 11)
    for rec in (first, again):
        noted = rec.widths
        del rec.widths
        assert noted == widths_of(tables, rec)
        assert len(noted) == len(rec.log["steps"]) and any(w == 0 for w in noted) and max(noted) > 1
