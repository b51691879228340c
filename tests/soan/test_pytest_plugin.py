"""The pytest plugin collects every example and playthrough of a folder's specs as items named after them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WALK = ROOT / "tests" / "interpreter" / "specs" / "walk-1.soan"
FAILING = '''
example "A deliberately wrong winner" {
  players 3
  play do winning(p3) { }
  expect winner p1
}
'''


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir", str(folder),
                           "-c", os.devnull, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def test_pytest_collects_examples_and_playthroughs_by_name(tmp_path):
    """`pytest FOLDER` lists each example under its title and each playthrough under its file name."""
    shutil.copy(WALK, tmp_path / "walk-1.soan")
    shutil.copy(ROOT / "tests" / "playthroughs" / "kitano-20-p3-s1.playthrough", tmp_path / "k.playthrough")
    (tmp_path / "k.playthrough").write_text((tmp_path / "k.playthrough").read_text(encoding="utf-8").replace(
        "spec: ../../specs/kitano-20.soan", f"spec: {os.path.relpath(ROOT / 'specs' / 'kitano-20.soan', tmp_path)}"),
        encoding="utf-8")
    r = pytest_in(tmp_path, "--collect-only", ".")
    assert "walk-1.soan::Every tool in one procedure" in r.stdout
    assert "walk-1.soan::A whole game from the setup: simultaneous choices and named options [bonus_points=3]" in r.stdout
    assert "k.playthrough::k" in r.stdout
    r = pytest_in(tmp_path, ".")
    assert r.returncode == 0, r.stdout
    assert "11 passed" in r.stdout


def test_a_failure_shows_the_located_message_and_k_and_x_work(tmp_path):
    """A failing example is reported in the spec's own words (file:line:col, caret); -k selects by title; -x stops."""
    (tmp_path / "walk-1.soan").write_text(WALK.read_text(encoding="utf-8") + FAILING, encoding="utf-8")
    r = pytest_in(tmp_path, "-k", "wrong and winner", ".")
    assert r.returncode == 1
    assert "1 failed" in r.stdout and "deselected" in r.stdout
    assert "error: expected P1 to win, but the game ended with won by P3" in r.stdout
    assert "walk-1.soan:" in r.stdout and "    expect winner p1" in r.stdout and "^^^" in r.stdout
    assert "Traceback" not in r.stdout
    r = pytest_in(tmp_path, "-x", "-k", "wrong or tool", ".")
    assert "stopping after 1 failures" in r.stdout


def test_a_broken_spec_is_one_failing_item_with_its_problems(tmp_path):
    """A spec that does not compile is collected as one failing item that shows its located problems."""
    (tmp_path / "bad.soan").write_text(WALK.read_text(encoding="utf-8").replace("set turn = 1", "set trun = 1"),
                                       encoding="utf-8")
    r = pytest_in(tmp_path, ".")
    assert r.returncode == 1
    assert "unknown name 'trun'" in r.stdout or "nothing is called" in r.stdout or "'trun'" in r.stdout
    assert "hint: did you mean 'turn'?" in r.stdout
