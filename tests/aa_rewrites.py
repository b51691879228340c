"""Equivalent rewrites of a spec for A/A tests of soan diff: each is the same
game as the original, so a diff against it must not call any change.

Draw-for-draw equivalents (a comment, a reordered declaration, a duplicated
shuffle, a renamed local) play exactly the same games on the per-purpose
random streams.  `reshuffled_after_deal` is equivalent only in distribution
(the undealt rest of a shuffled deck shuffled again): its games differ, so
it tests the statistics rather than the streams.
"""

from __future__ import annotations

import re

_SINGLE_LINE_FOR = re.compile(r"^(\s*)for (\w+) in ([^{]*)\{([^{}]*)\}(\s*(#.*)?)$")
_SHUFFLE = re.compile(r"^(\s*)shuffle (\w+)\s*$")
_DEF = re.compile(r"^def \w+(\(.*\))? = .*$")


def with_comment(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return lines[0] + "# A/A: a note that changes nothing\n" + "".join(lines[1:])


def with_reordered_declaration(text: str) -> str | None:
    """The first one-line def moved to the end of the file."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else "\n"
        if _DEF.match(line.rstrip("\n")) and not nxt.startswith((" ", "\t")):
            rest = lines[:i] + lines[i + 1:]
            return "".join(rest).rstrip("\n") + "\n\n" + line.rstrip("\n") + "\n"
    return None


def with_duplicated_shuffle(text: str) -> str | None:
    """The first shuffle statement written twice."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if _SHUFFLE.match(line.rstrip("\n")):
            return "".join(lines[:i + 1] + [line] + lines[i + 1:])
    return None


def with_renamed_local(text: str) -> str | None:
    """The variable of the first one-line for loop renamed."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        m = _SINGLE_LINE_FOR.match(line.rstrip("\n"))
        if m:
            var = m.group(2)
            new = f"renamed_{var}"
            body = re.sub(rf"(?<![\w.]){re.escape(var)}\b", new, m.group(4))
            coll = re.sub(rf"(?<![\w.]){re.escape(var)}\b", new, m.group(3))
            lines[i] = f"{m.group(1)}for {new} in {coll}{{{body}}}{m.group(5)}\n"
            return "".join(lines)
    return None


def draw_for_draw(text: str) -> dict[str, str]:
    """Every draw-for-draw equivalent rewrite the spec's text allows, by name."""
    out = {"a comment": with_comment(text)}
    for name, f in (("a reordered declaration", with_reordered_declaration),
                    ("a duplicated shuffle", with_duplicated_shuffle), ("a renamed local", with_renamed_local)):
        t = f(text)
        if t is not None:
            out[name] = t
    return out


def reshuffled_after_deal(text: str, zone: str, after: str) -> str:
    """A `shuffle ZONE` inserted after the first line containing `after`."""
    lines = text.splitlines(keepends=True)
    i = next(k for k, line in enumerate(lines) if after in line)
    indent = re.match(r"\s*", lines[i]).group(0)
    return "".join(lines[:i + 1] + [f"{indent}shuffle {zone}\n"] + lines[i + 1:])
