"""The readable account of a game: what `soan run` tells, what an example's
`expect account "..."` reads, and what a playthrough records."""

from __future__ import annotations

from .state import State


def narrate(state: State) -> list[str]:
    """A readable account of a game played with narrate=True."""
    titles = score_titles(state)
    lines = ["── Setup ──"]
    for e in state.events:
        line = event_line(e, titles)
        if line is not None:
            lines.append(line)
    return lines


def score_titles(state: State) -> dict[str, str]:
    return {s.name: (s.title or s.name) for s in state.t.spec.scores}


def event_line(e: tuple, titles: dict[str, str]) -> str | None:
    """One event of the account as a line, or None for events it does not tell."""
    match e:
        case ("round", r):
            return f"── Round {r} ──"
        case ("phase", name, title):
            return f"  [{title or name}]"
        case ("move", p, prompt, label, secret):
            return f"  P{p + 1} {prompt}: {label}" + ("  (secretly)" if secret else "")
        case ("chance", text):
            return f"  · {text}"
        case ("award", i, item, v):
            return f"  P{i + 1} {v:+d} for {titles.get(item, item)}"
        case ("token", i, token, n):
            return f"  P{i + 1} takes {n} {token}"
        case ("eliminate", i, reason):
            return f"  P{i + 1} is out of the running" + (f": {reason}" if reason else "")
        case ("say", text):
            return f"  {text}"
    return None
