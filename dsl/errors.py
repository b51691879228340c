"""Located problems in a spec, and how they are shown to a designer.

Every problem has a file, a line and a column, a plain message and, where one
helps, a hint.  Problems are collected, never raised one at a time, so a
designer sees all of them in one run.
"""

from __future__ import annotations

import difflib
from typing import Iterable

import attrs

from .ir import Span
from .limits import MAX_SHOWN_LINE


@attrs.frozen
class Problem:
    path: str
    span: Span
    message: str
    hint: str | None = None
    severity: str = "error"  # error | warning

    def render(self, source: str | None = None) -> str:
        head = f"{self.path}:{self.span.line}:{self.span.col}: {self.severity}: {self.message}"
        lines = [head]
        if source is not None and self.span.line > 0:
            src_lines = source.splitlines()
            if 0 < self.span.line <= len(src_lines):
                text = src_lines[self.span.line - 1].rstrip("\n")
                width = 1
                if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
                    width = self.span.end_col - self.span.col
                text, col, width = _window(text, max(self.span.col - 1, 0), width)
                lines.append(f"    {text}")
                lines.append("    " + " " * col + "^" * max(width, 1))
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


def _window(text: str, col: int, width: int) -> tuple[str, int, int]:
    """At most MAX_SHOWN_LINE characters of a source line around the caret: a one-line spec of 80 KB must
    not make an error message of 80 KB.  Returns the text shown, the caret's column in it and its width."""
    if len(text) <= MAX_SHOWN_LINE:
        return text, col, width
    half = MAX_SHOWN_LINE // 2
    lo = max(0, min(col - half, len(text) - MAX_SHOWN_LINE))
    hi = lo + MAX_SHOWN_LINE
    shown = ("…" if lo else "") + text[lo:hi] + ("…" if hi < len(text) else "")
    caret = col - lo + (1 if lo else 0)
    return shown, caret, max(1, min(width, hi - col))


class SpecErrors(Exception):
    """Raised with every problem found in a spec."""

    def __init__(self, problems: Iterable[Problem], source: str | None = None, sources: dict | None = None):
        self.problems = sorted(problems, key=lambda p: (p.path, p.span.line, p.span.col))
        self.source = source  # the spec's own text
        self.sources = sources or {}  # path -> text of every file, when a spec extends another
        super().__init__(self.render())

    def source_of(self, path: str) -> str | None:
        return self.sources.get(path, self.source)

    def render(self) -> str:
        parts = [p.render(self.source_of(p.path)) for p in self.problems]
        n = len(self.problems)
        parts.append(f"{n} problem{'s' if n != 1 else ''} found.")
        return "\n".join(parts)


class SpecRuntimeError(Exception):
    """A rule could not be carried out as written (a value left its domain, a
    field does not exist on a card, ...).  Carries the span of the rule."""

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None):
        self.message = message
        self.span = span or Span()
        self.hint = hint
        super().__init__(message)

    def problem(self, path: str) -> Problem:
        return Problem(path, self.span, self.message, self.hint)


def nearest(name: str, known: Iterable[str]) -> str | None:
    """A hint naming the closest known name, if any is close."""
    matches = difflib.get_close_matches(name, sorted(set(known)), n=1, cutoff=0.6)
    return f"did you mean '{matches[0]}'?" if matches else None
