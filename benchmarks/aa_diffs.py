"""A/A diffs of Kitano draft 20: how often does `soan diff` call a change
between two drafts that are the same game?

The rewrite shuffles the undealt deck once more after the Taiko's cards are
dealt: the same game in distribution, but other draws from there on, so the
paired games really differ and only the statistics stand between the
designer and a false "change".  Diff k plays seeds k*games ... (k+1)*games-1.
The family of metrics is controlled with Holm's method at 5%, so at most
about 5% of the diffs may print any change.

    python benchmarks/aa_diffs.py [--diffs 50] [--games 100] [--players 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from soan import api  # noqa: E402
from soan import diff as sdiff  # noqa: E402

import aa_rewrites  # noqa: E402


def run(diffs: int = 50, games: int = 100, players: int = 3, progress=None) -> dict:
    text = (ROOT / "specs/kitano-20.soan").read_text(encoding="utf-8")
    rewrite = aa_rewrites.reshuffled_after_deal(text, "deck", "draw 5 from deck to taiko")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "kitano-20-aa.soan"
        path.write_text(rewrite, encoding="utf-8")
        old, new = api.load(ROOT / "specs/kitano-20.soan"), api.load(path)
    old_t, new_t = api.tables(old, players), api.tables(new, players)
    rows = []
    for k in range(diffs):
        play = sdiff.play_diff(old_t, new_t, games, k * games, ["random"] * players)
        called = [m["metric"] for m in play["metrics"] if m["change"]]
        rows.append({"seed": k * games, "changes": called, "differing_games": play["differing_games"]})
        if progress:
            progress(k + 1, called)
    return {"diffs": diffs, "games": games, "players": players, "metrics": len(play["metrics"]),
            "method": play["method"],
            "diffs_with_a_change": sum(1 for r in rows if r["changes"]),
            "diverging_games": sum(r["differing_games"] for r in rows), "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--diffs", type=int, default=50)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    t0 = time.perf_counter()
    res = run(a.diffs, a.games, a.players,
              progress=lambda k, c: print(f"  diff {k}: {', '.join(c) if c else 'no change'}", file=sys.stderr))
    if a.json:
        print(json.dumps(res, indent=1))
        return
    print(f"{res['diffs']} A/A diffs of Kitano 20 (undealt deck reshuffled), {res['games']} games each, "
          f"{res['players']} players, {res['metrics']} metrics per diff; {res['method']}")
    print(f"games whose score differed between the two copies: {res['diverging_games']} of {res['diffs'] * res['games']}")
    print(f"diffs printing any change: {res['diffs_with_a_change']} of {res['diffs']} "
          f"({res['diffs_with_a_change'] / res['diffs']:.0%})")
    for r in res["rows"]:
        if r["changes"]:
            print(f"  seeds {r['seed']}..: {', '.join(r['changes'])}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
