"""No proof may contradict a game.

Every claim a verify run proves is checked against every game the same run
played (seeded, targeted, climbed) and so against every witness.  A game that
goes past a proved bound means the abstraction is unsound: that is a bug in
soan, never a verdict, so it stops the run as an internal error naming the
claim and a saved log of the game that breaks it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from .search import SearchResult, Witness


class UnsoundProof(Exception):
    """A proved claim that a played game contradicts: a bug in soan's verifier."""


def check(findings, s: SearchResult, witness_dir: Path | None = None) -> None:
    """Raise UnsoundProof at the first proved finding some game of `s` contradicts."""
    for f in findings:
        if f.verdict != "proved":
            continue
        broken = contradiction(f, s)
        if broken is not None:
            what, w = broken
            raise UnsoundProof(f"soan proved '{f.claim}' ({f.property}: {f.subject}), but {what}; "
                               f"the game is saved at {_save(w, witness_dir)}")


def contradiction(f, s: SearchResult) -> tuple[str, Witness] | None:
    """What in the games of `s` contradicts the proved finding `f`, and the game that shows it."""
    b = f.bounds or {}
    match f.property:
        case "score" if "proved" in b:
            key = "total" if f.subject == "total" else "item:" + f.subject.removeprefix("item ")
            lo, hi = b["proved"]
            if key in s.best and s.best[key][0] > hi:
                return f"a game reached {s.best[key][0]}", s.best[key][1]
            if key in s.worst and s.worst[key][0] < lo:
                return f"a game reached {s.worst[key][0]}", s.worst[key][1]
        case "supplies":
            for (kind, site), w in s.marks.items():
                if kind == "short_supply" and site[0] == f.subject:
                    return "a game ran it short", w
        case "tiebreaks" if "site" in b:
            w = s.marks.get(("tie_fallback", tuple(b["site"])))
            if w is not None:
                return "a game left a tie there", w
        case "termination" if "site" in b:  # a loop cap proved out of reach, or a loop that never runs
            site = tuple(b["site"])
            w = s.marks.get(("while_limit", site))
            if w is not None:
                return "a game reached the cap", w
            peak = s.loop_peak.get(site)
            if peak is not None and peak[0] > b.get("passes", 0 if f.claim.endswith("never runs") else peak[0]):
                return f"one run of the loop made {peak[0]} passes", peak[1]
        case "termination":
            for k in ("rounds", "decisions"):
                if k in b and k in s.longest and s.longest[k][0] > b[k]:
                    return f"a game took {s.longest[k][0]} {k}", s.longest[k][1]
        case "rulings":
            w = s.consulted.get(f.subject)
            if w is not None:
                return "a game read it", w
    return None


def _save(w: Witness, witness_dir: Path | None) -> str:
    folder = witness_dir if witness_dir is not None else Path(tempfile.mkdtemp(prefix="soan-unsound-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"unsound-seed{w.record.log['seed']}.json"
    path.write_text(w.record.to_json_anywhere(), encoding="utf-8")
    return str(path)
