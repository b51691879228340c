"""The fuzz harness's runner and its property: whatever the input, soan exits 0, 1 or 2; an exit 2 says
where (file:line:col) or which option; no run hangs; memory stays bounded."""

from __future__ import annotations

import contextlib
import io
import re
import resource
import threading
from pathlib import Path

from soan.cli import main

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted(str(p) for p in (ROOT / "specs").glob("*.soan"))

CASE_SECONDS = 10  # a case that runs longer than this is a hang (the bound for every bad input)
MAX_RSS_MB = 3000  # the test process's peak memory; a case that blows up memory pushes it over

LOCATED = re.compile(r"^\S.*:\d+:\d+: (error|warning): \S", re.M)
OPTION = re.compile(r"(^|\s|\()(--[a-z][a-z-]*|-[a-z])\b")


def run(argv: list[str]) -> tuple[int, str, str]:
    """Run `soan ARGV` in-process with stdout and stderr captured; fail if it does not finish in CASE_SECONDS."""
    out, err = io.StringIO(), io.StringIO()
    result: list = []

    def target():
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                result.append(main([str(a) for a in argv]))
            except SystemExit as e:  # --help, --version
                result.append(e.code if isinstance(e.code, int) else 0)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(CASE_SECONDS)
    assert not t.is_alive(), f"soan {' '.join(map(str, argv))} did not finish within {CASE_SECONDS} s"
    return result[0], out.getvalue(), err.getvalue()


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def check_outcome(argv: list, code: int, out: str, err: str) -> None:
    """The property every fuzz case must keep."""
    shown = f"soan {' '.join(map(str, argv))}\n--- exit {code}; stderr:\n{err[-3000:]}"
    assert code in (0, 1, 2), shown
    assert "Traceback" not in err and "internal error" not in err, shown
    if code == 2:
        usage = [line for line in err.splitlines() if line.startswith("soan: error: ")]
        named = any(OPTION.search(line) or "argument" in line or "command" in line or any(str(a) in line for a in argv if str(a).strip())
                    for line in usage)
        assert LOCATED.search(err) or named, "exit 2 without a location or a named option or argument\n" + shown
    assert peak_rss_mb() < MAX_RSS_MB, f"memory grew to {peak_rss_mb():.0f} MB\n{shown}"


def soan_case(*argv) -> tuple[int, str, str]:
    """Run one case and check the property; returns what it printed."""
    code, out, err = run(list(argv))
    check_outcome(list(argv), code, out, err)
    return code, out, err
