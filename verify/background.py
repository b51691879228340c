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
            kind, value = self.conn.recv()
        except EOFError:  # the child died without an answer (killed, out of memory): the work is done here
            kind, value = "value", (here or self.fn)()
        finally:
            self.close()
        if kind == "rule error":
            raise SpecRuntimeError(*value)
        if kind == "error":
            raise value
        return value

    def close(self) -> None:
        if self.proc is not None:
            self.conn.close()
            if self.proc.is_alive():
                self.proc.terminate()
            self.proc.join()
            self.proc = None


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
