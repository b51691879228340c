"""The `soan` command line: check, run, replay, simulate and test, exit codes,
and located, hinted errors (never a traceback) for bad specs and command lines."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from soan.interpreter.play import LOG_FORMAT
from soan import api
from soan.cli import main

from clirun import KITANO, ROOT, TINY, flat, soan


# A spec with a misspelled procedure: the problem is on line 4.
BROKEN = '''game "Broken" players 2..3
score pts "Points"
rounds 1 {
  for p in players { do scroe(p) }
}
procedure score(p) { award 1 to p for pts }
winner among p in players by vp(p) desc else draw
'''


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def assert_usage_error(code: int, err: str, hint: str | None = None) -> None:
    """Exit 2, an 'soan: error:' line and a hint on stderr, and no traceback."""
    assert code == 2, err
    assert "soan: error: " in err
    expected = "  hint: " if hint is None else f"  hint: {hint}"
    assert expected in err, err
    assert "Traceback" not in err


# ---- check ---------------------------------------------------------------------------------------


def test_check_shipped_spec_lists_rulings_and_assumptions(capsys):
    """'soan check' on the Kitano spec exits 0 and lists its open rulings and assumptions by name."""
    code, out, err = soan(capsys, "check", KITANO)
    assert code == 0, err
    assert "Kitano Grand Tea Party" in out and "— ok" in flat(out)
    assert re.search(r"Open rulings \(\d+\)", out)
    assert re.search(r"Assumptions \(\d+\)", out)
    assert re.search(r"pardon_threshold \(line \d+\) = \d+ ", out)
    assert "popularity_layout" in out
    assert err == ""


def test_check_json_has_rulings(capsys, monkeypatch):
    """'soan check --json' on a wide console prints JSON with the rulings and assumptions and their citations."""
    monkeypatch.setenv("COLUMNS", "100000")
    code, out, _ = soan(capsys, "check", KITANO, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["ok"] is True
    rulings = {r["name"]: r for r in report["rulings"]}
    spec = api.load(KITANO)
    declared = next(r for r in spec.rulings if r.name == "pardon_threshold")
    assert rulings["pardon_threshold"]["provisional"] == str(declared.provisional.value)
    assert rulings["pardon_threshold"]["domain"] == str(declared.domain)
    assert rulings["pardon_threshold"]["line"] == declared.span.line
    assert all(r["cite"] for r in report["rulings"])
    assert "popularity_layout" in {a["name"] for a in report["assumptions"]}


# An assumption the rules are written by (read by nothing), one with a value nothing reads, and one read.
ASSUMED = TINY + '''assume seats_clockwise "Turns run clockwise." cite "Play: turns"
assume hand_limit: 3..8 = 5 "Our guess." cite "Setup"
assume bonus: 0..2 = 1 "Our guess too." cite "Play / Scoring"
scoring { for p in players { award bonus to p for pts } }
'''


def test_check_says_an_unread_fact_is_embodied_and_groups_by_section(capsys, tmp_path, monkeypatch):
    """An assumption without a value that nothing reads is 'embodied in the rules'; a valued one nothing reads affects nothing; rows are grouped by the section cited first."""
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = soan(capsys, "check", write(tmp_path, "a.soan", ASSUMED))
    assert code == 0, err
    lines = [l.strip() for l in out.splitlines()]
    assert lines.index("Play") < lines.index("seats_clockwise (line 7)") < lines.index("bonus (line 9) = 1") < lines.index("Setup")
    assert "cites: Play: turns; embodied in the rules" in out
    assert "cites: Setup; affects: nothing the engine runs" in out
    code, out, _ = soan(capsys, "check", write(tmp_path, "a.soan", ASSUMED), "--json")
    rows = {a["name"]: a for a in json.loads(out)["assumptions"]}
    assert [rows[n]["embodied"] for n in ("seats_clockwise", "hand_limit", "bonus")] == [True, False, False]
    assert rows["bonus"]["section"] == "Play"


def test_check_brief_lists_names_by_section(capsys, tmp_path, monkeypatch):
    """'soan check --brief' gives one line per cited section with the names (and values), without the texts."""
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = soan(capsys, "check", write(tmp_path, "a.soan", ASSUMED), "--brief")
    assert code == 0
    assert "  Play: seats_clockwise, bonus=1" in out and "  Setup: hand_limit=5" in out
    assert "Our guess" not in out


@pytest.mark.parametrize("command", ["check", "test"])
def test_json_output_parses_on_a_narrow_console(capsys, command):
    """'soan check --json' and 'soan test --json' print valid JSON whatever the console width."""
    code, out, _ = soan(capsys, command, KITANO, "--json")
    assert code == 0
    json.loads(out)


def test_check_broken_spec_is_located(capsys, tmp_path):
    """'soan check' on a spec with a misspelled procedure exits 2 with file:line:col, the line, a caret and a hint on stderr."""
    path = write(tmp_path, "broken.soan", BROKEN)
    code, out, err = soan(capsys, "check", path)
    assert code == 2
    assert f"{path}:4:22: error: unknown procedure 'scroe'" in err
    assert "      for p in players { do scroe(p) }" in err
    assert re.search(r"^ {25}\^+$", err, re.M), err
    assert "  hint: did you mean 'score'?" in err
    assert "1 problem found." in err
    assert "Traceback" not in err and "— ok" not in out


def test_check_syntax_error_is_located(capsys, tmp_path):
    """'soan check' on a spec with '=' for '==' exits 2 with the location, a caret and the expected tokens."""
    path = write(tmp_path, "eq.soan", TINY + "setup { if player_count = 3 { } }\n")
    code, _, err = soan(capsys, "check", path)
    assert code == 2
    assert f"{path}:7:25: error: syntax error" in err
    assert "write '=='" in err
    assert "^" in err and "  hint: expected" in err


def test_check_several_specs_reports_each(capsys, tmp_path):
    """'soan check' on a good and two broken specs checks all three and exits 2, naming each broken file."""
    bad1 = write(tmp_path, "bad1.soan", BROKEN)
    bad2 = write(tmp_path, "bad2.soan", TINY + "def f = cout(1)\n")
    good = write(tmp_path, "good.soan", TINY)
    code, out, err = soan(capsys, "check", bad1, good, bad2)
    assert code == 2
    assert f"{bad1}:4:22:" in err
    assert f"{bad2}:7:9: error: unknown function 'cout'" in err
    assert "hint: did you mean 'count'?" in err
    assert "Tiny" in out and "— ok" in flat(out)


def test_check_several_good_specs_json(capsys, tmp_path, monkeypatch):
    """'soan check --json' on two specs prints a list with one report per spec."""
    monkeypatch.setenv("COLUMNS", "100000")
    good = write(tmp_path, "good.soan", TINY)
    code, out, _ = soan(capsys, "check", good, KITANO, "--json")
    assert code == 0
    reports = json.loads(out)
    assert [r["path"] for r in reports] == [str(good), KITANO]
    assert reports[0]["rulings"] == [] and reports[1]["rulings"]


def test_check_missing_spec_file(capsys, tmp_path):
    """'soan check' on a file that does not exist exits 2 saying so, without a traceback."""
    code, _, err = soan(capsys, "check", tmp_path / "nothere.soan")
    assert code == 2
    assert "no such spec file" in err
    assert "Traceback" not in err


# ---- run and replay ------------------------------------------------------------------------------


def test_run_tells_the_game(capsys):
    """'soan run --players 4 --seed 7' exits 0 and tells rounds 1 to 7, a final score table and the result."""
    code, out, err = soan(capsys, "run", KITANO, "--players", 4, "--seed", 7)
    assert code == 0, err
    rounds = [int(n) for n in re.findall(r"── Round (\d+) ──", out)]
    assert rounds == list(range(1, 8))
    assert "Final scores" in out
    for seat in ("P1", "P2", "P3", "P4"):
        assert re.search(rf"│ {seat}\s+│", out)
    assert re.search(r"^(Winner: P\d|Result: a draw between|No winner: )", out, re.M)


def test_run_is_deterministic(capsys):
    """Running the same spec with the same seed twice prints the same account."""
    first = soan(capsys, "run", KITANO, "--players", 4, "--seed", 7)
    second = soan(capsys, "run", KITANO, "--players", 4, "--seed", 7)
    assert first[0] == second[0] == 0
    assert first[1] == second[1]


def test_run_json_is_a_log(capsys):
    """'soan run --json' prints the game log as JSON with the seed, players and result."""
    code, out, _ = soan(capsys, "run", KITANO, "--players", 3, "--seed", 11, "--json")
    assert code == 0
    log = json.loads(out)
    assert (log["soan_log"], log["players"], log["seed"]) == (LOG_FORMAT, 3, 11)
    assert set(log["result"]["scores"]) == {"P1", "P2", "P3"}


@pytest.fixture
def game_log(capsys, tmp_path) -> Path:
    """A log written by 'soan run --log' for seed 7 with four players."""
    log = tmp_path / "game.json"
    code, out, _ = soan(capsys, "run", KITANO, "--players", 4, "--seed", 7, "--log", log, "--quiet")
    assert code == 0
    assert f"log written to {log}" in flat(out)
    return log


def test_replay_confirms_the_same_result(capsys, game_log):
    """'soan replay' of a fresh log exits 0 and says the course and result are the same."""
    code, out, err = soan(capsys, "replay", game_log)
    assert code == 0, err
    assert "same course and result" in flat(out)
    steps = len(json.loads(game_log.read_text(encoding="utf-8"))["steps"])
    assert f"replayed {steps} steps" in flat(out)


def test_replay_of_tampered_move_differs(capsys, game_log):
    """'soan replay' of a log with one move label changed exits 1 and names the step that differs."""
    log = json.loads(game_log.read_text(encoding="utf-8"))
    k, step = next((k, s) for k, s in enumerate(log["steps"], 1) if "move" in s)
    step["move"] += " (forged)"
    game_log.write_text(json.dumps(log), encoding="utf-8")
    code, out, err = soan(capsys, "replay", game_log)
    assert code == 1
    assert f"replay differs: step {k}:" in flat(out)
    assert "Traceback" not in err


def test_replay_of_tampered_result_differs(capsys, game_log):
    """'soan replay' of a log whose recorded scores were changed exits 1."""
    log = json.loads(game_log.read_text(encoding="utf-8"))
    log["result"]["scores"]["P1"] += 1
    game_log.write_text(json.dumps(log), encoding="utf-8")
    code, out, _ = soan(capsys, "replay", game_log)
    assert code == 1
    assert "replay differs: the game ends with" in flat(out)


def test_replay_of_a_non_log_file(capsys):
    """'soan replay' of a spec file (not JSON) exits 2 saying it is not a soan game log."""
    code, _, err = soan(capsys, "replay", KITANO)
    assert code == 2
    assert "soan: error: " in err and "is not a soan game log" in err
    assert "Traceback" not in err


def test_replay_of_a_missing_log(capsys, tmp_path):
    """'soan replay' of a file that does not exist exits 2 saying so."""
    code, _, err = soan(capsys, "replay", tmp_path / "nothere.json")
    assert code == 2
    assert "no such log file" in err


def test_replay_of_a_log_whose_spec_is_elsewhere_hints_at_spec(capsys, tmp_path, monkeypatch):
    """A log whose recorded spec path does not resolve is a usage error with a '--spec' hint, and '--spec' replays it."""
    monkeypatch.chdir(ROOT)
    log = tmp_path / "game.json"
    assert soan(capsys, "run", "specs/kitano-20.soan", "--seed", 3, "--log", log, "--quiet")[0] == 0
    monkeypatch.chdir(tmp_path)  # the relative path 'specs/kitano-20.soan' no longer resolves
    code, _, err = soan(capsys, "replay", log)
    assert code == 2 and "the spec this log was written from is not at 'specs/kitano-20.soan'" in flat(err)
    assert "hint: give it with --spec" in flat(err) and "Traceback" not in err
    code, out, err = soan(capsys, "replay", log, "--spec", KITANO)
    assert code == 0, err
    assert "same course and result" in flat(out)


def test_a_witness_log_replays_from_any_directory(tmp_path, monkeypatch):
    """A witness file stores the spec's absolute path, so it replays after a change of directory."""
    monkeypatch.chdir(ROOT)
    spec = api.load("specs/kitano-20.soan")
    rec = api.play(api.tables(spec, 3), 5, ["random"] * 3)
    path = tmp_path / "w.json"
    path.write_text(rec.to_json_anywhere(), encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8"))["spec"]["path"] == KITANO
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(path)]) == 0


def test_replay_of_an_incomplete_log(capsys, tmp_path):
    """'soan replay' of a JSON log with its body missing exits 2 naming a missing field."""
    log = write(tmp_path, "partial.json", '{"soan_log": 1}')
    code, _, err = soan(capsys, "replay", log)
    assert code == 2, err
    assert "is not a valid soan game log: field bots: missing" in err


# ---- simulate and test ---------------------------------------------------------------------------


def test_simulate_json_summary(capsys):
    """'soan simulate --players 3 -n 20 --json' exits 0 with per-seat win rates and mean points per scoring item."""
    code, out, err = soan(capsys, "simulate", KITANO, "--players", 3, "-n", 20, "--json")
    assert code == 0, err
    stats = json.loads(out)
    assert stats["games"] == 20 and stats["players"] == 3
    assert [s["seat"] for s in stats["seats"]] == ["P1", "P2", "P3"]
    assert all(0.0 <= s["win_rate"] <= 1.0 for s in stats["seats"])
    assert sum(s["win_rate"] for s in stats["seats"]) + stats["draw_rate"] + stats["no_winner_rate"] \
        == pytest.approx(1.0, abs=0.01)
    assert set(stats["items"]) == {s.name for s in api.load(KITANO).scores}


def test_test_command_passes_shipped_examples(capsys):
    """'soan test' on the Kitano spec exits 0 and reports every example passed."""
    code, out, _ = soan(capsys, "test", KITANO)
    assert code == 0
    m = re.search(r"^(\d+) passed, 0 failed$", out, re.M)
    assert m and int(m.group(1)) >= 1
    assert out.count("PASS ") == int(m.group(1))
    assert "FAIL" not in out


def test_test_command_fails_on_failing_example(capsys, tmp_path):
    """'soan test' on a spec with a failing example exits 1, marks it FAIL and shows the actual value."""
    path = write(tmp_path, "ex.soan", TINY + 'example "sum" { players 2 expect 2 + 2 == 5 }\n'
                                             'example "fine" { expect 1 == 1 }\n')
    code, out, _ = soan(capsys, "test", path)
    assert code == 1
    assert f"FAIL {path}:7 sum" in flat(out)
    assert f"PASS {path}:8 fine" in flat(out)
    assert "but it was 4 (against 5)" in flat(out)
    assert "1 passed, 1 failed" in flat(out)


def test_test_command_on_broken_spec(capsys, tmp_path):
    """'soan test' on a spec that does not compile exits 2 with the located problem."""
    path = write(tmp_path, "broken.soan", BROKEN)
    code, _, err = soan(capsys, "test", path)
    assert code == 2
    assert f"{path}:4:22:" in err


# ---- bad command lines ---------------------------------------------------------------------------


def test_unknown_command_suggests_nearest(capsys):
    """'soan chek' exits 2 with a hint naming 'check'."""
    code, _, err = soan(capsys, "chek", KITANO)
    assert_usage_error(code, err, "did you mean 'check'?")


def test_unknown_option_exits_2_with_hint(capsys):
    """An option no command knows ('--playrs') exits 2 with an error naming it and a hint."""
    code, _, err = soan(capsys, "run", KITANO, "--playrs", 4)
    assert_usage_error(code, err)
    assert "--playrs" in err


def test_unknown_option_suggests_nearest(capsys):
    """'soan run --playrs 4' hints at '--players'."""
    code, _, err = soan(capsys, "run", KITANO, "--playrs", 4)
    assert_usage_error(code, err, "did you mean '--players'?")


def test_players_outside_the_spec_range(capsys):
    """'--players 9' on a 3-4 player spec exits 2, says the range and hints at a valid count."""
    code, _, err = soan(capsys, "run", KITANO, "--players", 9)
    assert_usage_error(code, err, "try --players 3")
    assert "3 to 4 players" in err


def test_non_number_players(capsys):
    """'--players four' exits 2 with argparse's message and a hint, not a traceback."""
    code, _, err = soan(capsys, "run", KITANO, "--players", "four")
    assert_usage_error(code, err)
    assert "invalid int value: 'four'" in err


def test_unknown_bot_suggests_nearest(capsys):
    """'--bots grredy' exits 2 with a hint naming 'greedy'."""
    code, _, err = soan(capsys, "run", KITANO, "--bots", "grredy")
    assert_usage_error(code, err, "did you mean 'greedy'?")


def test_unknown_rule(capsys):
    """'--rule nosuch=1' exits 2 saying no ruling has that name; a near miss gets the nearest name."""
    code, _, err = soan(capsys, "run", KITANO, "--rule", "nosuch=1")
    assert_usage_error(code, err)
    assert "'nosuch'" in err
    code, _, err = soan(capsys, "run", KITANO, "--rule", "pardon_treshold=4")
    assert_usage_error(code, err, "did you mean 'pardon_threshold'?")


def test_rule_value_outside_domain(capsys):
    """'--rule pardon_threshold=99' exits 2 naming the ruling's domain; a bad enum value gets the nearest value."""
    code, _, err = soan(capsys, "run", KITANO, "--rule", "pardon_threshold=99")
    assert code == 2
    assert re.search(r"'pardon_threshold' takes a number in \d+\.\.\d+, not 99", err), err
    code, _, err = soan(capsys, "run", KITANO, "--rule", "facedown_spent=spnt")
    assert_usage_error(code, err, "did you mean 'spent'?")


def test_rule_changes_the_game(capsys):
    """A valid '--rule pardon_threshold=8' is accepted and the game still runs to a result."""
    code, out, err = soan(capsys, "run", KITANO, "--players", 3, "--seed", 3, "--rule", "pardon_threshold=8", "-q")
    assert code == 0, err
    assert "Final scores" in out


def test_run_missing_spec_file(capsys, tmp_path):
    """'soan run' on a spec file that does not exist exits 2 saying so."""
    code, _, err = soan(capsys, "run", tmp_path / "nothere.soan")
    assert code == 2
    assert "no such spec file" in err and "Traceback" not in err


def test_no_command_prints_help(capsys):
    """'soan' with no command prints the usage listing the commands and exits 2."""
    code, out, _ = soan(capsys)
    assert code == 2
    assert "usage: soan" in out
    for command in ("check", "run", "simulate", "replay", "test"):
        assert command in out


# ---- as a separate process -----------------------------------------------------------------------


def _python_m(*args, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SOAN_DEBUG"}
    return subprocess.run([sys.executable, "-m", "soan.cli", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_python_m_broken_spec_has_no_traceback(tmp_path):
    """'python -m soan.cli check' on a broken spec exits 2 with the located problem and no traceback."""
    path = write(tmp_path, "broken.soan", BROKEN)
    proc = _python_m("check", path, cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"{path}:4:22: error: unknown procedure 'scroe'" in proc.stderr


def test_python_m_bad_command_line_has_no_traceback(tmp_path):
    """'python -m soan.cli' with an unknown command and with a bad --players value exits 2 without a traceback."""
    proc = _python_m("chek", KITANO, cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "did you mean 'check'?" in proc.stderr
    proc = _python_m("run", KITANO, "--players", "9", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "--players 9 is outside that" in proc.stderr


def test_simulate_says_which_assumed_card_tables_its_results_rest_on(capsys, monkeypatch):
    """'soan simulate' ends by naming the assumptions the card lists rest on, with the table in use."""
    monkeypatch.setenv("COLUMNS", "300")
    spec = str(ROOT / "specs" / "pitmaster-20.soan")
    code, out, err = soan(capsys, "simulate", spec, "-n", 2, "--rule", "storage_table=vp_only")
    assert code == 0, err
    assert "depend on card contents the spec assumes: character_favourites, meat_table=graded" in flat(out)
    assert "storage_table=vp_only" in out
