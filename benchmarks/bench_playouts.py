"""How fast soan plays Kitano Grand Tea Party draft 20.

Measures, in one run and side by side:

  * random-bot playouts per second at 4 players and at 3 players;
  * greedy-bot games per second at 4 players (far fewer games: a greedy bot
    samples a state and looks one move ahead at every decision);
  * the ratio greedy / random at 4 players.

Every game goes through the public API (`api.load`, `api.tables`,
`api.play(tables, seed, bots)`), on fixed seeds, after a warm-up, timed with
`time.perf_counter`.  Building the tables is done once per player count and is
not part of the timed loop.  The script only reports numbers: it asserts
nothing about them, so it never fails on a slow machine.

    python benchmarks/bench_playouts.py                  # 200 random games per count, 10 greedy
    python benchmarks/bench_playouts.py --games 1000     # more games, steadier numbers
    python benchmarks/bench_playouts.py --json           # machine-readable
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from soan import api

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "specs" / "kitano-20.soan"
FIRST_SEED = 1000  # measured games use seeds FIRST_SEED, FIRST_SEED + 1, ...
WARMUP_SEED = 900  # warm-up games use seeds below the measured ones


def machine() -> dict:
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or "unknown",
        "machine": platform.machine(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cpu_count": os.cpu_count(),
        "soan": api.__version__,
    }


def measure(tables, bot: str, games: int, warmup: int) -> dict:
    """Play `warmup` untimed games, then `games` timed ones on fixed seeds."""
    bots = [bot] * tables.n
    for k in range(warmup):
        api.play(tables, WARMUP_SEED + k, bots)
    per_game: list[float] = []
    steps = decisions = 0
    start = time.perf_counter()
    for k in range(games):
        t0 = time.perf_counter()
        rec = api.play(tables, FIRST_SEED + k, bots)
        per_game.append(time.perf_counter() - t0)
        steps += len(rec.log["steps"])
        decisions += sum(1 for s in rec.log["steps"] if "move" in s)
    total = time.perf_counter() - start
    return {
        "bot": bot,
        "players": tables.n,
        "games": games,
        "seeds": [FIRST_SEED, FIRST_SEED + games - 1],
        "warmup_games": warmup,
        "seconds": total,
        "games_per_second": games / total if total > 0 else float("inf"),
        "ms_per_game_median": statistics.median(per_game) * 1000,
        "ms_per_game_max": max(per_game) * 1000,
        "steps_per_game": steps / games,
        "decisions_per_game": decisions / games,
        "steps_per_second": steps / total if total > 0 else float("inf"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200, metavar="N",
                    help="random-bot games per player count (default 200)")
    ap.add_argument("--greedy-games", type=int, default=None, metavar="M",
                    help="greedy-bot games at 4 players (default: N // 20, at least 2)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    greedy_games = args.greedy_games if args.greedy_games is not None else max(2, args.games // 20)
    if greedy_games < 1:
        ap.error("--greedy-games must be at least 1")

    t0 = time.perf_counter()
    spec = api.load(SPEC)
    load_s = time.perf_counter() - t0
    tables = {}
    tables_s = {}
    for n in (4, 3):
        t0 = time.perf_counter()
        tables[n] = api.tables(spec, n)
        tables_s[n] = time.perf_counter() - t0

    runs = [
        measure(tables[4], "random", args.games, warmup=max(3, args.games // 20)),
        measure(tables[3], "random", args.games, warmup=max(3, args.games // 20)),
        measure(tables[4], "greedy", greedy_games, warmup=1),
    ]
    random4, greedy4 = runs[0], runs[2]
    ratio = greedy4["games_per_second"] / random4["games_per_second"]
    report = {
        "spec": str(SPEC.relative_to(ROOT)),
        "machine": machine(),
        "load_seconds": load_s,
        "tables_seconds": {str(n): s for n, s in tables_s.items()},
        "runs": runs,
        "greedy_over_random_4p": ratio,
    }

    if args.json:
        print(json.dumps(report, indent=2))
        return 0

    m = report["machine"]
    print(f"soan {m['soan']} playout benchmark: {report['spec']}")
    print(f"machine: {m['platform']} ({m['processor']}, {m['machine']})")
    print(f"python {m['python']} ({m['implementation']}), os.cpu_count() = {m['cpu_count']}; "
          "one process, one thread")
    print(f"spec load {load_s * 1000:.0f} ms; tables "
          + ", ".join(f"{n}p {s * 1000:.0f} ms" for n, s in tables_s.items()) + " (not timed below)")
    print()
    head = f"{'bots':<8} {'players':>7} {'games':>6} {'seconds':>8} {'games/s':>9} {'ms/game (median)':>17} " \
           f"{'steps/game':>11} {'steps/s':>9}"
    print(head)
    print("-" * len(head))
    for r in runs:
        print(f"{r['bot']:<8} {r['players']:>7} {r['games']:>6} {r['seconds']:>8.2f} {r['games_per_second']:>9.2f} "
              f"{r['ms_per_game_median']:>17.2f} {r['steps_per_game']:>11.1f} {r['steps_per_second']:>9.0f}")
    print()
    print(f"greedy / random games per second at 4 players: {ratio:.4f} "
          f"(a greedy game takes about {1 / ratio:.0f}x as long as a random playout)")
    print(f"seeds {FIRST_SEED}.. for measured games, {WARMUP_SEED}.. for warm-up; numbers vary from run to run")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. piped into head
        sys.exit(0)
