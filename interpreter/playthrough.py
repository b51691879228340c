"""Playthroughs: one seeded game written out for a reader, and re-run as a test.

A playthrough (in the manner of OpenSpiel's playthrough files) names the spec,
the player count, the seed, the bots and any rule settings in its head, then
tells the game step by step: each decision with every legal move offered and
the move taken, each chance outcome, the account (awards, tokens, phases),
a summary of the state at the end of each round, and the result.  Re-running
it plays the same game again and compares the text line by line, so any
change in the rules' course shows as the first line that differs.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from .account import event_line, score_titles
from .play import play_game
from .runtime import Tables, fmt
from .state import State

MAX_MOVES_SHOWN = 40  # a decision with more legal moves lists the first ones and says how many more
SUFFIX = ".playthrough"
HEAD_KEYS = ("spec", "players", "seed", "bots", "rules")


@attrs.frozen
class Head:
    spec: str  # relative to the playthrough's folder
    players: int
    seed: int
    bots: tuple[str, ...]
    rules: tuple[tuple[str, str], ...] = ()  # NAME=VALUE as given on the command line


def playthrough_text(tables: Tables, seed: int, bots: list[str], head_lines: list[str]) -> str:
    """Play one seeded game with bots and write it out for a reader."""
    out: list[str] = list(head_lines)
    titles: dict[str, str] = {}
    seen = [0]  # events already written

    def flush(st: State) -> None:
        for e in st.events[seen[0]:]:
            if e[0] == "move":  # the decision's line above names the prompt and the moves offered
                out.append(f"    → {e[3]}" + ("  (secretly)" if e[4] else ""))
                continue
            line = event_line(e, titles)
            if line is not None:
                out.append(line)
        seen[0] = len(st.events)

    def round_end(st: State) -> None:
        flush(st)
        out.append(f"── End of round {st.round} ──")
        out.extend(state_summary(st))

    def on_step(st: State) -> None:
        if not titles:
            titles.update(score_titles(st))
            st.on_round_end = round_end
        flush(st)
        p = st.current_player()
        if p >= 0:
            labels = [m.label for m in st.legal_moves()]
            shown = ", ".join(labels[:MAX_MOVES_SHOWN])
            if len(labels) > MAX_MOVES_SHOWN:
                shown += f", ... ({len(labels) - MAX_MOVES_SHOWN} more)"
            out.append(f"  P{p + 1} {st.pending.prompt or 'chooses'} — legal ({len(labels)}): {shown}")

    out.append("── Setup ──")
    rec = play_game(tables, seed, bots, narrate=True, on_step=on_step)
    flush(rec.state)
    res = rec.result
    out.append("── Result ──")
    won = ", ".join(res["winners"])
    out.append(f"  {'draw between ' + won if res['draw'] else ('winner ' + won if won else 'no winner')} ({res['reason']})")
    for p, total in res["scores"].items():
        parts = ", ".join(f"{k} {v}" for k, v in res["breakdown"][p].items())
        out.append(f"  {p}: {total}" + (f" ({parts})" if parts else ""))
    if res["eliminated"]:
        out.append("  eliminated: " + ", ".join(res["eliminated"]))
    out.append(f"  {res['rounds']} rounds")
    return "\n".join(out) + "\n"


def state_summary(st: State) -> list[str]:
    """Each player's score, variables, tokens and the size of their zones; the shared variables."""
    t = st.t
    lines = []
    for i in range(t.n):
        bits = [f"{st.total_vp(i)} vp"]
        items = [f"{s} {st.vp[s][i]}" for s in t.scores if st.vp[s][i]]
        if items:
            bits[0] += " (" + ", ".join(items) + ")"
        bits += [f"{k} {_val(st, v[i])}" for k, v in st.pv.items()]
        zones = [f"{t.zone_label(slot).split('.', 1)[1]} {len(cards)}" for slot, cards in enumerate(st.zones)
                 if t.zone_slots[slot][1] is not None and t.zone_slots[slot][1].i == i]
        if zones:
            bits.append("cards: " + ", ".join(zones))
        if st.elim[i]:
            bits.append("eliminated")
        lines.append(f"  P{i + 1}: " + "; ".join(bits))
    shared = [f"{k} {_val(st, v)}" for k, v in st.gv.items()]
    zones = [f"{t.zone_label(slot)} {len(cards)}" for slot, cards in enumerate(st.zones)
             if t.zone_slots[slot][1] is None and slot != 0]
    if shared or zones:
        lines.append("  shared: " + "; ".join(shared + (["cards: " + ", ".join(zones)] if zones else [])))
    return lines


def _val(st: State, v) -> str:
    from .runtime import CardRef

    if type(v) is CardRef:
        return st.t.card_labels[v.id]
    return fmt(v)


# ---- files --------------------------------------------------------------------------------------


def head_lines(head: Head, title: str) -> list[str]:
    rules = " ".join(f"{k}={v}" for k, v in head.rules) or "(as the spec resolves them)"
    cmd = f"soan record {head.spec} --players {head.players} --seed {head.seed} --bots {','.join(head.bots)}"
    cmd += "".join(f" --rule {k}={v}" for k, v in head.rules)
    return [f"# soan playthrough of {title}",
            f"# re-run by `soan test` and by pytest; to write it again (spec path relative to this file): {cmd}",
            f"spec: {head.spec}", f"players: {head.players}", f"seed: {head.seed}",
            f"bots: {','.join(head.bots)}", f"rules: {rules}", ""]


def read_head(text: str) -> Head:
    """The head of a playthrough file; ValueError names what is missing."""
    found = {}
    for line in text.splitlines():
        if not line.strip():
            break
        if line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if sep and key.strip() in HEAD_KEYS:
            found[key.strip()] = value.strip()
    missing = [k for k in HEAD_KEYS if k not in found]
    if missing:
        raise ValueError("the playthrough's head lacks " + ", ".join(missing))
    rules = ()
    if not found["rules"].startswith("("):
        rules = tuple(tuple(r.split("=", 1)) for r in found["rules"].split())
    return Head(found["spec"], int(found["players"]), int(found["seed"]),
                tuple(b.strip() for b in found["bots"].split(",")), rules)


def relative_spec(spec_path: str | Path, playthrough_path: str | Path) -> str:
    return Path(os.path.relpath(Path(spec_path).resolve(), Path(playthrough_path).resolve().parent)).as_posix()


def first_difference(expected: str, got: str) -> tuple[int, str, str] | None:
    """(line number in `expected`, expected line, line got) of the first
    difference in the game's course, or None.  The heads are not compared:
    they say how to play the game, and the game is what is checked."""
    a, b = expected.splitlines(), got.splitlines()
    skip_a, skip_b = _body_start(a), _body_start(b)
    a, b = a[skip_a:], b[skip_b:]
    for k in range(max(len(a), len(b))):
        x = a[k] if k < len(a) else "(the file ends)"
        y = b[k] if k < len(b) else "(the game's playthrough ends)"
        if x != y:
            return k + 1 + skip_a, x, y
    return None


def _body_start(lines: list[str]) -> int:
    return next((k + 1 for k, line in enumerate(lines) if not line.strip()), 0)
