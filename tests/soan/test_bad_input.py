"""Bad input never crashes, hangs or passes silently: one regression case per class of failure found (issue 16).

Every case runs the real command line in-process and checks the exit code and the message a designer sees."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from clirun import soan

ROOT = Path(__file__).resolve().parents[2]
KITANO = str(ROOT / "specs" / "kitano-20.soan")

TINY = '''game "Tiny" players 2..3
score pts "Points"
rounds 1 {
  for p in players { award 1 to p for pts }
}
winner among p in players by vp(p) desc else draw
'''

LOCATED = re.compile(r"^\S.*:\d+:\d+: error: ", re.M)


def write(tmp_path: Path, text: str, name: str = "spec.soan") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def assert_located(code: int, err: str, path: Path, message: str) -> None:
    """Exit 2 with a file:line:col error naming `message`, and no internal error."""
    assert code == 2, err
    assert re.search(rf"^{re.escape(str(path))}:\d+:\d+: error: .*{message}", err, re.M), err
    assert "internal error" not in err and "Traceback" not in err


def assert_usage(code: int, err: str, *words: str) -> None:
    """Exit 2 with an 'soan: error:' line naming every one of `words`, and no internal error."""
    assert code == 2, err
    assert "soan: error: " in err, err
    for w in words:
        assert w in err, (w, err)
    assert "internal error" not in err and "Traceback" not in err


# ---- deep nesting and long expressions -------------------------------------------------------------


@pytest.mark.parametrize("body", [
    "if true {" * 400 + "for p in players { award 1 to p for pts }" + "}" * 400,
    "for p in players { award (" + "+".join(["1"] * 900) + ") - 899 to p for pts }",
    "for p in players { if " + " and ".join(["true"] * 900) + " { award 1 to p for pts } }",
], ids=["400 nested ifs", "900-term sum", "900-term and"])
def test_deep_nesting_checks_and_plays(capsys, tmp_path, body):
    """Blocks nested 400 deep and expressions of 900 terms check and play like any other spec."""
    path = write(tmp_path, TINY.replace("rounds 1 {", "rounds 1 {" + body + "\n") )
    code, _, err = soan(capsys, "check", path)
    assert code == 0, err
    code, out, err = soan(capsys, "run", path, "-q")
    assert code == 0, err
    assert "Final scores" in out


def test_nesting_beyond_the_limit_is_a_located_error(capsys, tmp_path):
    """An expression of 40,000 terms on one line is a located 'nests more than 1000 levels' error, and the echoed line is cut short."""
    path = write(tmp_path, TINY + "def y = " + "1+" * 40000 + "1\n")
    code, _, err = soan(capsys, "check", path)
    assert_located(code, err, path, "nests more than 1000 levels deep")
    assert len(err) < 2000


# ---- limits checked at soan check, and the step budget of every game ------------------------------------

HUGE = "1" + "0" * 30


@pytest.mark.parametrize("change, message", [
    (("players 2..3", f"players 3..{HUGE}"), "players is beyond the most soan plays"),
    (('score pts "Points"', 'score pts "Points"\ntoken gem supply -8 hold 0..10 when short partial'),
     "the supply of token 'gem' is -8; it must be 0 or more"),
    (("rounds 1 {", 'rounds 1 { repeat -3 times { say "hi" }'), "the number of repeats is -3"),
    (("rounds 1 {", f'rounds 1 {{ repeat {HUGE} times {{ say "x" }}'), "beyond the largest number soan reads"),
    (("rounds 1 {", f'rounds 1 {{ while true max {HUGE} {{ say "x" }}'), "beyond the largest number soan reads"),
    (("rounds 1 {", 'rounds 1 { while true max 0 { say "x" }'), "a while loop's cap is 0; it must be 1 or more"),
    (('score pts "Points"', f'score pts "Points"\ncomponent c {{ v: 1..3 }}\ncards c in deck {{ {HUGE} x v = 1 }}\n'
                            'zone deck: shared'), "copies is beyond the largest number"),
    (('score pts "Points"', 'score pts "Points"\ncomponent c { v: 1..1000 }\ncards c per player in hand '
                            '{ 1000 x each v }\nzone hand: per_player'), "cards at 3 players; soan plays at most 100,000"),
    (('score pts "Points"', f'score pts "Points"\nplayer {{ gold: 0..{HUGE} }}'), "goes beyond the largest number"),
], ids=["huge player count", "negative supply", "negative repeat", "huge repeat", "huge while cap", "zero while cap",
        "huge copies", "too many cards", "huge domain"])
def test_sizes_are_checked_when_the_spec_is_read(capsys, tmp_path, change, message):
    """Negative supplies and counts, and sizes beyond the documented maximums, are located errors at soan check, and run refuses them too."""
    path = write(tmp_path, TINY.replace(*change))
    code, _, err = soan(capsys, "check", path)
    assert_located(code, err, path, re.escape(message))
    code, _, err = soan(capsys, "run", path)
    assert_located(code, err, path, re.escape(message))


def test_a_runaway_loop_stops_at_the_step_budget_naming_the_loop(capsys, tmp_path):
    """A million repeats inside a million repeats stop at the step budget with the inner loop located, exit 2."""
    path = write(tmp_path, TINY.replace("rounds 1 {", 'rounds 1 { repeat 1000000 times { repeat 1000000 times { say "x" } }'))
    code, _, err = soan(capsys, "run", path, "-q")
    assert_located(code, err, path, "went round its loops more than 2,000,000 times and was stopped in this repeat loop")
    assert "repeat 1000000 times { say" in err


def test_a_computed_negative_repeat_is_a_located_error(capsys, tmp_path):
    """'repeat player_count - 5 times' is a located runtime error, not a loop run zero times."""
    path = write(tmp_path, TINY.replace("rounds 1 {", 'rounds 1 { repeat player_count - 5 times { say "x" }'))
    code, _, err = soan(capsys, "run", path)
    assert_located(code, err, path, "cannot repeat a negative number of times")


def test_a_huge_computed_range_is_a_located_error(capsys, tmp_path):
    """A range of a trillion values computed in play is a located error, not exhausted memory."""
    path = write(tmp_path, TINY.replace("rounds 1 {", "rounds 1 { let n = count(x in 0..1000000 * 1000000)"))
    code, _, err = soan(capsys, "run", path)
    assert_located(code, err, path, "has more than 1,000,000 values")
