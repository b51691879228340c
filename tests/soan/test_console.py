"""Output does not depend on where soan runs: no wrapping in a pipe unless a width is asked for."""

import shutil
from pathlib import Path

from clirun import soan

ROOT = Path(__file__).resolve().parents[2]


def _long_dir(tmp_path: Path) -> Path:
    d = tmp_path
    while len(str(d)) < 160:
        d = d / "a-rather-long-folder-name-for-a-clone"
    d.mkdir(parents=True)
    return d


def test_a_long_spec_path_is_never_wrapped_in_a_pipe(capsys, tmp_path):
    """With stdout not a terminal and no width set, a diff naming specs at a 160-character path prints each path whole on one line."""
    d = _long_dir(tmp_path)
    old, new = d / "kitano-19.soan", d / "kitano-20.soan"
    shutil.copy(ROOT / "specs/kitano-19.soan", old)
    shutil.copy(ROOT / "specs/kitano-20.soan", new)
    code, out, _ = soan(capsys, "diff", old, new, "-n", "0")
    assert code == 0
    assert any(str(new) in line for line in out.splitlines())
    pieces = [line for line in out.splitlines() if "a-rather-long-folder-name" in line]
    assert pieces and all(str(d) in line for line in pieces)  # no line holds a broken-off part of the path


def test_width_option_wraps_at_the_width_asked(capsys):
    """'--width 40' (before or after the command) wraps the check report at 40 columns."""
    for args in (("--width", "40", "check", ROOT / "specs/kitano-20.soan"),
                 ("check", ROOT / "specs/kitano-20.soan", "--width", "40")):
        code, out, _ = soan(capsys, *args)
        assert code == 0
        assert max(len(line) for line in out.splitlines()) <= 40


def test_columns_sets_the_width_in_a_pipe(capsys, monkeypatch):
    """COLUMNS=50 in a pipe wraps at 50 columns, as --width 50 would."""
    monkeypatch.setenv("COLUMNS", "50")
    code, out, _ = soan(capsys, "check", ROOT / "specs/kitano-20.soan")
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 50


def test_a_silly_width_is_a_usage_error(capsys):
    """'--width 3' exits 2 naming the option."""
    code, _, err = soan(capsys, "check", ROOT / "specs/kitano-20.soan", "--width", "3")
    assert code == 2 and "--width" in err
