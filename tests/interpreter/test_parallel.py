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


def test_parallel_map_returns_results_in_the_order_of_the_items_for_any_number_of_jobs():
    """parallel_map gives [fn(x) for x in items] whether one process or several work it out."""
    from soan.interpreter.play import parallel_map

    tables = api.tables(api.load(str(KITANO)), 3)
    digest = lambda s: api.play(tables, s, ["random"] * 3).to_json()  # noqa: E731
    one = parallel_map(digest, range(7, 19), 1)
    assert parallel_map(digest, range(7, 19), 2) == one == [digest(s) for s in range(7, 19)]


def test_workers_raise_a_later_items_error_only_when_its_result_is_taken():
    """A rule error at an item a caller never reaches is never raised, as in one process; taking it raises it with its span."""
    from soan.dsl.errors import SpecRuntimeError
    from soan.interpreter.play import Workers

    def fn(x):
        if x == 5:
            raise SpecRuntimeError("item five fails", None, "a hint")
        return x * x

    for jobs in (1, 2):
        with Workers(fn, jobs) as w:
            taken = []
            for r in w.imap(range(10)):
                taken.append(r)
                if len(taken) == 5:
                    break
            assert taken == [0, 1, 4, 9, 16]
            with pytest.raises(SpecRuntimeError) as info:
                list(w.imap(range(10)))
            assert info.value.message == "item five fails" and info.value.hint == "a hint"


def test_a_finished_games_record_pickles_without_its_tables_and_an_unfinished_state_does_not():
    """A finished game's record crosses between processes (its state with the tables left out); a state mid-game refuses."""
    import pickle

    tables = api.tables(api.load(str(KITANO)), 4)
    rec = api.play(tables, 3, ["random"] * 4)
    back = pickle.loads(pickle.dumps(rec))
    assert back.log == rec.log and back.state.t is None
    back.state.t = tables
    assert back.state.result == rec.state.result and back.state.zones == rec.state.zones
    assert back.state.total_vp(0) == rec.state.total_vp(0)
    with pytest.raises(TypeError):
        pickle.dumps(api.State(tables).start())


def test_jobs_must_not_be_negative(capsys):
    """'--jobs -1' is a usage error (exit 2) with a hint, not a silent default."""
    code, _out, err = soan(capsys, "simulate", KITANO, "--players", 3, "-n", 2, "--jobs", -1)
    assert code == 2 and "--jobs" in err
