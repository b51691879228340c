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
