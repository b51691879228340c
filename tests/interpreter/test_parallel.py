"""Simulating in several processes: the work is split by seed and summed in
seed order, so the summary is the same for any number of jobs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import soan
from soan import api

ROOT = Path(__file__).resolve().parents[2]
KITANO = ROOT / "specs" / "kitano-20.soan"


def test_simulate_gives_the_same_summary_for_one_and_two_jobs():
    """simulate with jobs=2 (and an uneven split, jobs=3) returns exactly the summary of jobs=1."""
    tables = api.tables(api.load(str(KITANO)), 3)
    one = api.simulate(tables, 24, 5, ["random"] * 3, jobs=1)
    assert api.simulate(tables, 24, 5, ["random"] * 3, jobs=2) == one
    assert api.simulate(tables, 24, 5, ["random"] * 3, jobs=3) == one


def test_simulate_reports_progress_up_to_the_last_game_with_jobs():
    """With two jobs, progress is reported in seed order and ends at the number of games."""
    tables = api.tables(api.load(str(KITANO)), 4)
    seen = []
    api.simulate(tables, 10, 0, ["random"] * 4, progress=seen.append, jobs=2)
    assert seen == sorted(seen) and seen[-1] == 10


def test_simulate_error_in_a_worker_keeps_its_spec_line():
    """A rule failing in a worker process raises the lowest failing seed's error with its span, as one process would."""
    text = """game "T" draft 1 players 2..2
player { n: 0..5 = 0 "n" }
rounds 1 { phase main "m" { for p in players { set p.n = 10 // (p.n - p.n) } } }
winner among p in players by vp(p) desc else draw
"""
    tables = api.tables(api.compile_text(text, "t.soan"), 2)
    with pytest.raises(Exception) as info:
        api.simulate(tables, 6, 0, ["random"] * 2, jobs=2)
    assert "division by zero" in str(info.value) and info.value.span.line == 3


def test_cli_simulate_jobs_flag_changes_nothing_in_the_output(capsys):
    """'soan simulate --jobs 2 --json' prints exactly what '--jobs 1 --json' prints."""
    code1, out1, _ = soan(capsys, "simulate", KITANO, "--players", 3, "-n", 12, "--jobs", 1, "--json")
    code2, out2, _ = soan(capsys, "simulate", KITANO, "--players", 3, "-n", 12, "--jobs", 2, "--json")
    assert code1 == code2 == 0
    assert json.loads(out1) == json.loads(out2) and out1 == out2
