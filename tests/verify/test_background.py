"""Background work (verify/background.py): the same result as in this process, computed in a forked process
that yields the cores to the run's critical path."""

from __future__ import annotations

import os

import pytest

from soan.interpreter.play import _can_fork
from soan.verify.background import BACKGROUND_NICE, Background

needs_fork = pytest.mark.skipif(not _can_fork(), reason="no fork on this platform: the work runs in place")


@needs_fork
def test_a_background_process_runs_at_the_lowest_priority(monkeypatch):
    """The forked process's niceness is this process's raised by BACKGROUND_NICE (at most 19), this process's unchanged."""
    monkeypatch.setattr(os, "setpriority", lambda which, pid, nice: None)  # waiting would raise it again
    mine = os.nice(0)
    work = Background(lambda: os.nice(0))
    assert work.proc is not None
    assert work.result() == min(19, mine + BACKGROUND_NICE)
    assert os.nice(0) == mine


def test_the_result_is_the_same_in_a_process_or_in_place():
    """A value computed in the background equals the one computed here, with or without a process."""
    def work():
        return sorted({k * k % 97 for k in range(500)})

    assert Background(work).result() == Background(work, enabled=False).result() == work()


@needs_fork
def test_waiting_gives_the_process_this_ones_priority_where_allowed(monkeypatch):
    """result() asks the system to run the waited-for process at this process's priority."""
    asked = []
    monkeypatch.setattr(os, "setpriority", lambda which, pid, nice: asked.append((pid, nice)))
    work = Background(lambda: 7)
    pid = work.proc.pid
    assert work.result() == 7
    assert asked == [(pid, os.getpriority(os.PRIO_PROCESS, 0))]


@needs_fork
def test_a_starved_process_is_ended_and_the_work_done_here(monkeypatch):
    """Where its priority cannot be raised and it gets no CPU while waited for, the process is ended and the work done in this process."""
    import time

    from soan.verify import background

    def refused(which, pid, nice):
        raise PermissionError

    monkeypatch.setattr(os, "setpriority", refused)
    monkeypatch.setattr(background, "STARVED_AFTER", 0.2)
    work = Background(lambda: time.sleep(600))  # asleep: no CPU, as a process the machine never runs
    proc = work.proc
    assert work.result(lambda: "here") == "here"
    assert not proc.is_alive()
