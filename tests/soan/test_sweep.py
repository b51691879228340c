"""`soan sweep`: a grid of player counts and ruling values, each cell the same
summary simulate gives, locally or on Ray."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import soan
from soan import api

KITANO = Path(__file__).resolve().parents[2] / "specs" / "kitano-20.soan"


def _sweep_json(capsys, *extra):
    code, out, err = soan(capsys, "sweep", KITANO, "--players", "3,4", "--rule", "pardon_threshold=3,4",
                          "-n", 6, "--seed", 2, "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_sweep_cells_are_the_grid_and_match_simulate(capsys):
    """Every combination of players and ruling values is one cell whose summary is simulate's on the same seeds."""
    report = _sweep_json(capsys, "--jobs", 1)
    cells = report["cells"]
    assert [(c["players"], c["settings"]) for c in cells] == [
        (3, {"pardon_threshold": "3"}), (3, {"pardon_threshold": "4"}),
        (4, {"pardon_threshold": "3"}), (4, {"pardon_threshold": "4"})]
    spec = api.load(str(KITANO))
    direct = api.simulate(api.tables(spec, 4, {"pardon_threshold": 4}), 6, 2, ["random"] * 4)
    assert cells[3]["summary"] == direct
    assert cells[3]["eliminations_per_game"] == round(sum(s["eliminated_rate"] for s in direct["seats"]), 3)


def test_sweep_is_the_same_for_any_number_of_jobs(capsys):
    """--jobs 2 prints exactly what --jobs 1 prints."""
    assert _sweep_json(capsys, "--jobs", 2) == _sweep_json(capsys, "--jobs", 1)


def test_sweep_table_names_the_settings(capsys):
    """Without --json the comparison table has a column per swept ruling and a row per cell."""
    code, out, _ = soan(capsys, "sweep", KITANO, "-p", "3", "--rule", "bestowal_column=new_column,with_action",
                        "-n", 3, "--jobs", 1)
    assert code == 0
    assert "new_column" in out and "with_action" in out


def test_sweep_bad_value_is_a_usage_error(capsys):
    """A value outside a ruling's domain exits 2 with the ruling's domain, no traceback."""
    code, _, err = soan(capsys, "sweep", KITANO, "--rule", "pardon_threshold=3,9", "-n", 2)
    assert code == 2 and "3..8" in err and "Traceback" not in err


@pytest.mark.slow
def test_sweep_on_a_local_ray_instance_matches_local_processes(capsys):
    """With --ray (a local Ray instance started for the test) the cells are exactly those of local processes."""
    pytest.importorskip("ray")
    assert _sweep_json(capsys, "--ray") == _sweep_json(capsys, "--jobs", 1)


def test_sweep_ray_without_ray_installed_says_how_to_install_it(capsys, monkeypatch):
    """--ray where Ray cannot be imported exits 2 with the pip command of the optional extra, no traceback."""
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # importing it now fails, as when it is not installed
    code, _, err = soan(capsys, "sweep", KITANO, "-p", "3", "-n", 2, "--ray")
    assert code == 2 and 'pip install "soan[ray]"' in err and "Traceback" not in err
