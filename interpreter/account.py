"""The readable account of a game: what `soan run` tells, what an example's
`expect account "..."` reads, and what a playthrough records."""

from __future__ import annotations

from .state import State


def narrate(state: State) -> list[str]:
    """A readable account of a game played with narrate=True."""
    t = state.t
    titles = {s.name: (s.title or s.name) for s in t.spec.scores}
    lines = ["── Setup ──"]
    for e in state.events:
        match e:
            case ("round", r):
                lines.append(f"── Round {r} ──")
            case ("phase", name, title):
                lines.append(f"  [{title or name}]")
            case ("move", p, prompt, label, secret):
                lines.append(f"  P{p + 1} {prompt}: {label}" + ("  (secretly)" if secret else ""))
            case ("chance", text):
                lines.append(f"  · {text}")
            case ("award", i, item, v):
                lines.append(f"  P{i + 1} {v:+d} for {titles.get(item, item)}")
            case ("token", i, token, n):
                lines.append(f"  P{i + 1} takes {n} {token}")
            case ("eliminate", i, reason):
                lines.append(f"  P{i + 1} is out of the running" + (f": {reason}" if reason else ""))
            case ("say", text):
                lines.append(f"  {text}")
    return lines
