"""Background work (verify/background.py): the same result as in this process, computed in a forked process
that yields the cores to the run's critical path."""

from __future__ import annotations

import os

import pytest

from soan.interpreter.play import _can_fork
from soan.verify.background import BACKGROUND_NICE, Background

needs_fork = pytest.mark.skipif(not _can_fork(), reason="no fork on this platform: the work runs in place")


@needs_fork
def test_a_background_process_runs_at_the_lowest_priority():
    """The forked process's niceness is this process's raised by BACKGROUND_NICE (at most 19), this process's unchanged."""
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
