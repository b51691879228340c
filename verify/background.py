"""Work that depends on nothing else a verify run does (the rulings' paired study: a
function of the spec, the player count, the seed and the number of games) done in a
forked process from the start, so that it fills a core the rest leaves idle (the
proofs, the cooperative searches) instead of running after them.  The result is what
the same call returns in this process: the verdicts do not change, only when the work
is done.

Such a process runs at the lowest priority (BACKGROUND_NICE): it is needed only at the end
of the run, while the main process and the pools it waits for (the seeded games, a climb's
look-ahead) are the run's critical path.  At the same priority it took a core's share from
them (on a shipped spec at 4 players, the wait for the seeded games shared the cores with
17 s of background CPU beside their own 19 s); at the lowest it takes the cores they leave
idle (the proofs, the plans of one process), and the whole of one once the main process
waits for its result (benchmarks/README.md, branch s13-sched)."""

from __future__ import annotations

import os
from typing import Callable

from soan.dsl.errors import SpecRuntimeError

# the niceness a background process takes (os.nice: the most a process can lower its own priority)
BACKGROUND_NICE = 19
# Once the main process waits for a background process, the low priority is only a cost: on a machine busy
# with other users' work the process gets next to nothing (a shipped spec's study, 12 s of CPU, took 700 s of
# wall clock under a load of 15).  So result() gives it this process's priority back where the system allows
# (it seldom lets a process raise another's), and otherwise, where the process got less than STARVED_SHARE
# of a core over STARVED_AFTER seconds of waiting, ends it and does the work here.  Only where the work is
# done depends on the clock, never what it finds.
STARVED_AFTER = 2.0
STARVED_SHARE = 0.25


class Background:
    """`fn()` run in a forked child process when `enabled` (and fork is available), else when asked for;
    result() gives what fn() returns, or raises the rule error it raised."""

    def __init__(self, fn: Callable[[], object], enabled: bool = True):
        self.fn = fn
        self.proc = None
        self.conn = None
        if not enabled:
            return
        import multiprocessing

        from soan.interpreter.play import _can_fork

        if not _can_fork():
            return
        ctx = multiprocessing.get_context("fork")
        here, there = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_run, args=(fn, there), daemon=True)
        self.proc.start()
        there.close()
        self.conn = here

    def result(self, here: Callable[[], object] | None = None):
        """`here()` (default fn) is what is run in this process when no child was started or it died."""
        if self.proc is None:
            return (here or self.fn)()
        try:
            if not self._answering():
                raise EOFError
            kind, value = self.conn.recv()
        except EOFError:  # the child died without an answer (killed, out of memory, starved): the work is done here
            self.close()
            kind, value = "value", (here or self.fn)()
        finally:
            self.close()
        if kind == "rule error":
            raise SpecRuntimeError(*value)
        if kind == "error":
            raise value
        return value

    def _answering(self) -> bool:
        """Wait until the child's answer is there, its priority raised to this process's where allowed;
        False if it is starved (see STARVED_AFTER)."""
        try:
            os.setpriority(os.PRIO_PROCESS, self.proc.pid, os.getpriority(os.PRIO_PROCESS, 0))
            return True
        except (OSError, AttributeError):  # not allowed (or no such call): watch that it gets a core
            pass
        last = _cpu_seconds(self.proc.pid)
        while not self.conn.poll(STARVED_AFTER):
            now = _cpu_seconds(self.proc.pid)
            if last is not None and now is not None and now - last < STARVED_SHARE * STARVED_AFTER:
                return False
            last = now
        return True

    def close(self) -> None:
        if self.proc is not None:
            self.conn.close()
            if self.proc.is_alive():
                self.proc.terminate()
            self.proc.join()
            self.proc = None


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time a process has used (Linux's /proc), or None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _run(fn: Callable[[], object], conn) -> None:
    try:
        os.nice(BACKGROUND_NICE)
    except OSError:  # a platform without priorities: the work is the same, only its timing differs
        pass
    try:
        out = ("value", fn())
    except SpecRuntimeError as e:  # pickling the exception would lose its span
        out = ("rule error", (e.message, e.span, e.hint))
    except Exception as e:
        out = ("error", e)
    try:
        conn.send(out)
    finally:
        conn.close()
