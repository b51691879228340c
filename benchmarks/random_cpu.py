"""CPU time (or, under callgrind, machine instructions) of random games on one spec: a few warm-up games
(seeds 900..904), then `games` games of seeds 1000.. with every seat the random bot, timed with
time.process_time; also a digest of every game's log, so two versions can be checked to play the same games.
Only api.load, api.tables and api.play are used, so the script runs against an older soan as well.

    python benchmarks/random_cpu.py specs/kitano-20.soan 4 --games 400
    python benchmarks/random_cpu.py specs/pitmaster-20.soan 3 --games 50
    valgrind --tool=callgrind python benchmarks/random_cpu.py specs/kitano-20.soan 4 --games 50 --warmup 5
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import sys
import time

from soan import api


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="CPU ms per random game on one spec")
    ap.add_argument("spec")
    ap.add_argument("players", type=int)
    ap.add_argument("--games", type=int, default=200, help="timed games (default 200)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed games first (default 5)")
    ap.add_argument("--only-warmup", action="store_true",
                    help="play the warm-up games alone (to subtract from an instruction count)")
    ap.add_argument("--no-digest", action="store_true", help="no digest of the logs (for instruction counts)")
    a = ap.parse_args(argv)
    t = api.tables(api.load(a.spec), a.players)
    bots = ["random"] * a.players
    for k in range(a.warmup):
        api.play(t, 900 + k, bots)
    if a.only_warmup:
        return 0
    h = hashlib.sha256()
    clock = time.process_time
    spent = 0.0
    collected = [g["collections"] for g in gc.get_stats()]
    for seed in range(1000, 1000 + a.games):
        t0 = clock()
        g = api.play(t, seed, bots)
        spent += clock() - t0
        if not a.no_digest:
            h.update(json.dumps(g.log, sort_keys=True, default=str).encode())
    ms = spent / a.games * 1000
    digest = "" if a.no_digest else f"; logs {h.hexdigest()[:16]}"
    # full collections walk every object the tables hold: a few of them more or fewer move an instruction count
    gcs = "/".join(str(g["collections"] - c) for g, c in zip(gc.get_stats(), collected))
    print(f"{a.spec} {a.players}p: {ms:.3f} ms CPU a random game over {a.games} games{digest}; "
          f"garbage collections (by generation) {gcs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
