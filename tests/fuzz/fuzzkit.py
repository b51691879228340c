"""The fuzz harness's runner and its property: whatever the input, soan exits 0, 1 or 2; an exit 2 says
where (file:line:col) or which option; no run hangs; memory stays bounded."""

from __future__ import annotations

import contextlib
import io
import os
import re
import resource
import threading
import time
from pathlib import Path

from soan.cli import main

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted(str(p) for p in (ROOT / "specs").glob("*.soan"))

CASE_SECONDS = 10  # a case that works longer than this (CPU seconds) is a hang (the bound for every bad input)
# a case that waits without working (on input, a lock) is a hang too: caught by the wall clock, set far enough above
# CASE_SECONDS that a loaded machine, which slows every case alike, does not trip it
CASE_WALL_SECONDS = 12 * CASE_SECONDS
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
    started = time.monotonic()
    while True:
        t.join(0.1)
        if not t.is_alive():
            break
        cpu = _thread_cpu(t)
        assert cpu is None or cpu < CASE_SECONDS, \
            f"soan {' '.join(map(str, argv))} worked {cpu:.1f} s of CPU without finishing (a hang: more than {CASE_SECONDS} s)"
        assert time.monotonic() - started < CASE_WALL_SECONDS, \
            f"soan {' '.join(map(str, argv))} did not finish within {CASE_WALL_SECONDS} s (waiting on something)"
    return result[0], out.getvalue(), err.getvalue()


def _thread_cpu(t: threading.Thread) -> float | None:
    """CPU seconds the case's thread has used: the hang measure, which does not grow with the machine's load."""
    try:  # Linux: the thread's user and system ticks (pthread_getcpuclockid does not find Python's threads here)
        fields = Path(f"/proc/self/task/{t.native_id}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):  # no per-thread clock here: the wall clock alone
        return None


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
