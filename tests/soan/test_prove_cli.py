"""`soan prove`: the spec's own questions or one typed on the command line, at
every player count or one; a readable table or --json; exit 0 when every
question is answered, 1 when one is unknown, 2 for a bad spec, question or
command line (located, with a caret and a hint)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soan import api

from clirun import flat, soan

ROOT = Path(__file__).resolve().parents[2]
KITANO = ROOT / "specs" / "kitano-20.soan"

# Two or three players; each turn a player takes a chip or rests for a coin, three rounds.
CHIPS = '''game "Chips" players 2..3
token chip supply 5 hold 0..5 when short partial
score pts "Points" 0..10
player { coins: 0..4 = 0 }
rounds 3 {
  for p in players {
    choose by p "acts" {
      option take { give 1 chip to p }
      option rest { set p.coins += 1 }
    }
  }
}
scoring { for p in players { award p.chip to p for pts } }
winner among p in players by vp(p) desc else draw
'''

OWN = '''question rich "Can a player end with three chips?" : can any(p.chip >= 3 for p in players) at end
question capped "Does every player end with at most 10 points?" : always all(vp(p) <= 10 for p in players) at end
'''


@pytest.fixture
def chips(tmp_path) -> Path:
    p = tmp_path / "chips.soan"
    p.write_text(CHIPS, encoding="utf-8")
    return p


def test_a_witnessed_question_exits_0_with_a_table_and_a_replayable_witness(capsys, chips, tmp_path):
    """A reachable 'can' is answered yes at both player counts, with the witness path and account lines."""
    wdir = tmp_path / "w"
    code, out, err = soan(capsys, "prove", chips, "can any(p.chip >= 3 for p in players) at end", "--games", "60",
                          "--witness-dir", wdir)
    assert code == 0, err
    text = flat(out)
    assert "witnessed" in text and "yes: it can happen" in text and "2 witnessed (0 problems), 0 unknown" in text
    logs = sorted(wdir.rglob("question-question.json"))
    assert [p.parent.name for p in logs] == ["chips-p2", "chips-p3"]
    spec = api.load(str(chips))
    log = api.load_log(logs[0])
    assert api.replay(api.tables(spec, 2), log).result == log["result"]
    assert code == soan(capsys, "replay", logs[0], "--spec", chips)[0] == 0


def test_json_lists_findings_per_player_count(capsys, chips, tmp_path):
    """--json gives the question, one result per player count and a summary; a proved question plays no game."""
    code, out, _ = soan(capsys, "prove", chips, "always all(vp(p) <= 10 for p in players) at end", "--json",
                        "--witness-dir", tmp_path)
    assert code == 0
    data = json.loads(out)
    assert data["soan_prove"] == 1 and data["question"].startswith("always all(vp(p)")
    assert [r["players"] for r in data["results"]] == [2, 3]
    f = data["results"][0]["findings"][0]
    assert (f["property"], f["subject"], f["verdict"]) == ("questions", "question", "proved")
    assert f["bounds"]["answer"] == "yes" and f["bounds"]["games"] == 0
    assert data["summary"] == {"proved": 2, "witnessed": 0, "unknown": 0, "problems": 0}


def test_an_unknown_answer_exits_1(capsys, chips, tmp_path):
    """With no games to play, a question z3 cannot settle is unknown, and unknown is not a pass."""
    code, out, _ = soan(capsys, "prove", chips, "can any(p.coins == 3 for p in players) at end", "--games", "0",
                        "-p", "2", "--witness-dir", tmp_path)
    assert code == 1
    assert "1 unknown" in flat(out) and "unknown is not a pass" in flat(out)


def test_a_bad_question_is_shown_with_a_caret_and_exits_2(capsys, chips):
    """A misspelt name in the typed question points into it, with the nearest name as a hint."""
    code, out, err = soan(capsys, "prove", chips, "can any(p.chipz >= 3 for p in players) at end")
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines[0] == "<question>:1:9: error: nothing is called '.chipz'"
    assert lines[1] == "    can any(p.chipz >= 3 for p in players) at end"
    assert lines[2] == "            ^^^^^^^"
    assert "hint: did you mean 'chip'?" in err and "Traceback" not in err


def test_a_question_with_a_syntax_error_exits_2(capsys, chips):
    """A question that is not 'can ...' or 'always ...' is a located syntax error."""
    code, _, err = soan(capsys, "prove", chips, "is it over")
    assert code == 2
    assert "<question>:1:1: error: syntax error" in err and "a question starts with 'can'" in err


def test_the_spec_s_own_questions_are_answered_when_none_is_typed(capsys, chips, tmp_path):
    """Without a QUESTION, every question block of the spec is answered, by name."""
    chips.write_text(CHIPS + OWN, encoding="utf-8")
    code, out, _ = soan(capsys, "prove", chips, "--games", "60", "-p", "3", "--json", "--witness-dir", tmp_path)
    assert code == 0
    found = {f["subject"]: f["verdict"] for f in json.loads(out)["results"][0]["findings"]}
    assert found == {"rich": "witnessed", "capped": "proved"}


def test_a_spec_without_questions_needs_one_typed(capsys, chips):
    """Asking nothing of a spec that asks nothing is a usage error with a hint."""
    code, _, err = soan(capsys, "prove", chips)
    assert code == 2
    assert "asks no questions" in err and "hint:" in err


@pytest.mark.parametrize("args,message", [
    (["--players", "5"], "is for 2 to 3 players"),
    (["--budget", "-1"], "--budget must be 0 or more"),
    (["--games", "-2"], "--games must be 0 or more"),
    (["--rule", "nothing=1"], "no open ruling, assumption or option is called 'nothing'"),
])
def test_bad_command_lines_exit_2(capsys, chips, args, message):
    """Player counts, budgets, game counts and rulings are checked before anything is played."""
    code, _, err = soan(capsys, "prove", chips, "can true", *args)
    assert code == 2 and message in flat(err)


def test_kitano_s_score_floor_is_proved_at_once(capsys, tmp_path):
    """On Kitano, 'every player ends with at least -3 points' follows from the score items' domains."""
    code, out, _ = soan(capsys, "prove", KITANO, "always all(vp(p) >= -3 for p in players) at end", "--games", "0",
                        "--json", "--witness-dir", tmp_path)
    assert code == 0
    assert [f["verdict"] for r in json.loads(out)["results"] for f in r["findings"]] == ["proved", "proved"]


@pytest.mark.slow
def test_kitano_s_own_questions_are_all_answered(capsys, tmp_path):
    """Kitano's questions: everyone can be sentenced and a pardon can be reached (witnessed), the floor is proved."""
    code, out, _ = soan(capsys, "prove", KITANO, "--games", "200", "--json", "--witness-dir", tmp_path)
    assert code == 0
    data = json.loads(out)
    for r in data["results"]:
        got = {f["subject"]: (f["verdict"], f["bounds"]["answer"]) for f in r["findings"]}
        assert got == {"everyone_sentenced": ("witnessed", "yes"), "pardon_reached": ("witnessed", "yes"),
                       "score_floor": ("proved", "yes")}
        for f in r["findings"]:
            if f["witness"]:
                log = api.load_log(f["witness"])
                tables = api.tables(api.load(str(KITANO)), r["players"])
                assert api.replay(tables, log).result == log["result"]
