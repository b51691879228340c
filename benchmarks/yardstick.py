"""Is the hand-written yardstick the same game as soan's Kitano draft 20?

Plays N random games at each player count with soan (specs/kitano-20.soan) and
with benchmarks/reference/kitano.py, and compares mean score (over every
seat), draw rate and eliminations per game.  The two use different random
streams, so they agree only statistically: each difference is shown with its
standard error and z = difference / standard error; |z| < 3 on every line is
"within sampling error".

    python benchmarks/yardstick.py              # 10,000 games per engine and count
    python benchmarks/yardstick.py -n 2000 --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "reference"))

import kitano  # noqa: E402

from soan import api  # noqa: E402

SPEC = HERE.parent / "specs" / "kitano-20.soan"


def _summary(games: list[tuple[list[int], bool, int]], players: int) -> dict:
    scores = [sum(s) / players for s, _, _ in games]  # a game's mean seat score
    draws = [1.0 if d else 0.0 for _, d, _ in games]
    elims = [float(e) for _, _, e in games]
    out = {}
    for name, xs in (("mean_score", scores), ("draw_rate", draws), ("eliminations_per_game", elims)):
        m = sum(xs) / len(xs)
        var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
        out[name] = (m, math.sqrt(var / len(xs)))
    return out


def soan_games(tables, n: int, seed: int) -> list:
    out = []
    for g in range(n):
        r = api.play(tables, seed + g, ["random"] * tables.n).result
        out.append(([r["scores"][f"P{i + 1}"] for i in range(tables.n)], r["draw"], len(r["eliminated"])))
    return out


def reference_games(players: int, n: int, seed: int) -> list:
    out = []
    for g in range(n):
        r = kitano.play(players, seed + g)
        out.append((r["scores"], r["draw"], r["eliminated"]))
    return out


def compare(players: int, n: int, seed: int, spec=None) -> dict:
    spec = spec or api.load(str(SPEC))
    tables = api.tables(spec, players)
    t0 = time.perf_counter()
    a = _summary(soan_games(tables, n, seed), players)
    t1 = time.perf_counter()
    b = _summary(reference_games(players, n, seed), players)
    t2 = time.perf_counter()
    rows = {}
    for k in a:
        (ma, sa), (mb, sb) = a[k], b[k]
        se = math.sqrt(sa * sa + sb * sb)
        rows[k] = {"soan": ma, "reference": mb, "difference": ma - mb, "stderr": se,
                   "z": (ma - mb) / se if se else 0.0}
    return {"players": players, "games": n, "seed": seed, "stats": rows,
            "soan_games_per_second": n / (t1 - t0), "reference_games_per_second": n / (t2 - t1),
            "within_sampling_error": all(abs(r["z"]) < 3 for r in rows.values())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="compare soan's Kitano 20 with the hand-written yardstick")
    ap.add_argument("-n", "--games", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", default="3,4")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    spec = api.load(str(SPEC))
    results = [compare(int(p), a.games, a.seed, spec) for p in a.players.split(",")]
    if a.json:
        print(json.dumps(results, indent=1))
        return 0
    for r in results:
        print(f"{r['players']} players, {r['games']} games each (seeds {a.seed}..{a.seed + a.games - 1}):")
        print(f"  {'statistic':24} {'soan':>9} {'reference':>9} {'diff':>8} {'stderr':>8} {'z':>6}")
        for k, s in r["stats"].items():
            print(f"  {k:24} {s['soan']:9.4f} {s['reference']:9.4f} {s['difference']:8.4f} {s['stderr']:8.4f} "
                  f"{s['z']:6.2f}")
        print(f"  within sampling error (|z| < 3 everywhere): {'yes' if r['within_sampling_error'] else 'NO'}")
        print(f"  games/s: soan {r['soan_games_per_second']:.0f}, reference {r['reference_games_per_second']:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
