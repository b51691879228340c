"""Where the time of a random Kitano draft 20 playout goes: cProfile over N
random 4-player games (seeds 1..N), the top functions by own time, and the
number of Python calls per game.  With `--bot greedy`, greedy games instead
(every seat greedy), with the cumulative time of the greedy bot's parts.

    python benchmarks/profile_kitano.py            # 200 games, 4 players
    python benchmarks/profile_kitano.py -n 100 --players 3 --top 30
    python benchmarks/profile_kitano.py --bot greedy -n 5
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import re
from pathlib import Path

from soan import api

SPEC = Path(__file__).resolve().parents[1] / "specs" / "kitano-20.soan"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="profile random Kitano playouts")
    ap.add_argument("-n", "--games", type=int, default=200)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--bot", default="random", help="the bot every seat plays (random or greedy)")
    a = ap.parse_args(argv)
    tables = api.tables(api.load(str(SPEC)), a.players)
    prof = cProfile.Profile()
    prof.enable()
    for seed in range(1, a.games + 1):
        api.play(tables, seed, [a.bot] * a.players)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    print(f"{a.games} {a.bot} games at {a.players} players: {stats.total_calls / a.games:,.0f} Python calls per game, "
          f"{stats.total_tt / a.games * 1000:.1f} ms per game under the profiler")
    if a.bot == "greedy":
        parts = {"choose": "bots.py:.*\\(choose\\)", "sampling hidden cards": "determinize",
                 "copies": "state.py:.*\\(clone\\)", "keys of what the ending reads": "ending key>:.*\\(key\\)|reads.py:.*\\(key",
                 "endings run (scoring)": "finish_now", "winners, places and margins": "_decided|_outcome"}
        cum = {}
        for (path, line, fn), (cc, nc, tt, ct, callers) in stats.stats.items():
            for label, pat in parts.items():
                if re.search(pat, f"{path}:{line}({fn})"):
                    cum[label] = cum.get(label, 0.0) + ct
        whole = cum.get("choose", 0.0) or 1.0
        print("cumulative, share of the greedy bot's time: " + ", ".join(
            f"{label} {v / whole:.0%}" for label, v in cum.items() if label != "choose"))
    stats.sort_stats("tottime").print_stats(a.top)
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))


if __name__ == "__main__":
    main()
