"""Files soan writes: checked before any work starts, so nothing played or searched is lost to a bad path,
and a write that fails anyway is a plain error naming the path (exit 2), never an internal error."""

from __future__ import annotations

import os
from pathlib import Path


class OutputError(Exception):
    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message, self.hint = message, hint


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def check_output_file(path: str, option: str) -> None:
    """Raise OutputError unless `path` can be written as a file (tried by opening it, then left as it was)."""
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"{option} {path} is a folder, not a file", f"give a file name, e.g. {option} {p / 'out'}")
    if not p.parent.is_dir():
        raise OutputError(f"{option} {path}: the folder {p.parent} does not exist", "create it first, or choose another path")
    existed = p.exists()
    try:
        with open(p, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise OutputError(f"{option} {path} cannot be written: {_reason(e)}", "choose a path you can write to") from None
    if not existed:
        try:
            p.unlink()
        except OSError:
            pass


def check_output_dir(path: str, option: str) -> None:
    """Raise OutputError unless `path` is, or can be made, a folder soan can write files in."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(f"{option} {path} is a file, not a folder", "give a folder (it is created if need be)")
    base = p  # the folder is made only when there is something to write; its nearest existing ancestor is tried now
    while not base.exists() and base != base.parent:
        base = base.parent
    if not base.is_dir():
        raise OutputError(f"{option} {path}: {base} is a file, not a folder", "choose another folder")
    try:
        probe = base / f".soan-write-test-{os.getpid()}"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as e:
        raise OutputError(f"{option} {path} cannot be written: {_reason(e)}", "choose a folder you can write to") from None


def write_text(path: str | Path, text: str, option: str) -> None:
    """Write a whole file, or raise OutputError naming it."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise OutputError(f"{option} {path} could not be written: {_reason(e)}", "is the disk full?") from None
