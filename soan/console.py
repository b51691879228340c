"""The two consoles every command prints to, and the width they wrap at.

Output must not depend on where it runs: in a pipe or a file nothing wraps
(a path 150 characters long stays one line), unless the designer sets a width
with --width or COLUMNS; on a terminal the terminal's width is used.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Callable, Iterator

from rich.console import Console as RichConsole


class PipeClosed(Exception):
    """The reader of our output went away (`soan run ... | head -1`): not an error, as for any other CLI."""


def silence_stdout() -> None:
    """Send whatever is still buffered for stdout nowhere, so the interpreter's last flush does not fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


class Console(RichConsole):
    def on_broken_pipe(self) -> None:
        # rich's own handling exits 1, which soan keeps for failed examples and replays that differ
        silence_stdout()
        raise PipeClosed()

# In a pipe with no width set, lines never wrap; tables still need a width to lay
# themselves out in, and this one is far wider than any row soan prints.
UNWRAPPED = 100_000


def user_width(width: int | None) -> int | None:
    """The width the designer asked for: --width first, then COLUMNS; None if neither (or nonsense)."""
    if width is not None:
        return width
    raw = os.environ.get("COLUMNS", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


def make_console(stderr: bool = False, width: int | None = None) -> Console:
    """A console that wraps at the designer's width, at the terminal's width, or (in a pipe) not at all.
    Errors never wrap: an editor or script must find `file:line:col` whole at the start of a line."""
    base = dict(stderr=stderr, highlight=False, emoji=False, soft_wrap=stderr)
    probe = Console(**base)
    if width is not None:
        return Console(width=width, **base)
    if probe.is_terminal:
        return Console(**base)
    asked = user_width(None)
    if asked is not None:
        return Console(width=asked, **base)
    return Console(**{**base, "soft_wrap": True}, width=UNWRAPPED)


@contextmanager
def stage_progress(err: RichConsole) -> Iterator[Callable[[str, int, int], None]]:
    """A progress bar for each named stage of a long study, on the terminal only (none in a pipe or a
    file): yields `progress(stage, done, total)`, the callback soan.impact's studies take."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=err,
                  transient=True, disable=not err.is_terminal) as prog:
        tasks: dict[str, int] = {}

        def progress(what: str, k: int, total: int) -> None:
            if what not in tasks:
                tasks[what] = prog.add_task(what, total=total)
            prog.update(tasks[what], completed=k, total=total)

        yield progress
