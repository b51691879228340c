"""Bot strength, measured: a tournament per shipped spec.

Each match puts a challenger in one seat (the seat going round from game to
game) against the opponent bot in every other seat, on the seeds 0, 1, ... (or from --first-seed);
the challenger's share of the wins (a shared win counts 1/k, a draw nothing)
is printed with its 95% Wilson interval next to the fair share 1/n.  The
challenger is stronger where the whole interval lies above the fair share.

    python benchmarks/tournament.py                          # every shipped spec, its fewest players, 40 games a match
    python benchmarks/tournament.py specs/kitano-20.soan --games 100
    python benchmarks/tournament.py --matches greedy/random,mcts:100:10/greedy --json
    python benchmarks/tournament.py specs/kitano-20.soan --games 60 --first-seed 60   # seeds 60..119

The budgets are work (games, playouts a decision), never time; the script prints
the wall and CPU seconds (all its processes) each match took, for the record only.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from soan import api
from soan.balance import play_all, share_interval, win_shares
from soan.interpreter.play import default_jobs
from soan.stats import pct

ROOT = Path(__file__).resolve().parents[1]
MATCHES = "greedy/random,mcts:25:10/greedy,mcts:100:10/greedy,mcts:100:0/greedy"


def cpu_seconds() -> float:
    """CPU of this process and of its child processes that have ended (a pool's workers, once joined)."""
    return sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def match(tables, challenger: str, opponent: str, games: int, jobs: int, first_seed: int = 0) -> dict:
    n = tables.n
    seeds = range(first_seed, first_seed + games)
    tasks = [(k, [challenger if i == k % n else opponent for i in range(n)]) for k in seeds]
    t0 = cpu_seconds()
    results = play_all(tables, tasks, jobs)
    cpu = cpu_seconds() - t0
    won = sum(win_shares(r["result"], n)[k % n] for k, r in zip(seeds, results))
    w = share_interval(won, games)
    fair = 1 / n
    return {"challenger": challenger, "opponent": opponent, "games": games, "first_seed": first_seed, "won": round(won, 3), "win": w, "fair_share": round(fair, 4),
            "verdict": "stronger" if w["lo"] > fair else "weaker" if w["hi"] < fair else "not told apart",
            "cpu_seconds": round(cpu, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="*", help="specs (default: every spec in specs/)")
    ap.add_argument("--players", type=int, help="players (default: each spec's fewest)")
    ap.add_argument("--games", type=int, default=40, help="games a match (default 40)")
    ap.add_argument("--first-seed", type=int, default=0, help="the first game's seed (default 0; games on seeds from it)")
    ap.add_argument("--matches", default=MATCHES, help=f"challenger/opponent pairs (default {MATCHES})")
    ap.add_argument("--jobs", type=int, default=0, help="processes (default all cores)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    specs = args.specs or sorted(str(p) for p in (ROOT / "specs").glob("*.soan"))
    pairs = [m.split("/") for m in args.matches.split(",")]
    jobs = args.jobs or default_jobs()
    out = []
    for path in specs:
        spec = api.load(path)
        n = args.players or spec.min_players
        tables = api.tables(spec, n)
        for challenger, opponent in pairs:
            t0 = time.perf_counter()
            r = match(tables, challenger, opponent, args.games, jobs, args.first_seed)
            r.update(spec=Path(path).name, players=n, wall_seconds=round(time.perf_counter() - t0, 1))
            out.append(r)
            if not args.json:
                print(f"{r['spec']:<20} p{n}  {challenger:>13} vs {opponent:<13} {args.games:>4} games  "
                      f"wins {pct(r['win']['rate']):>4} [{pct(r['win']['lo'])}, {pct(r['win']['hi'])}]  "
                      f"fair {pct(r['fair_share'])}  {r['verdict']:<15} ({r['wall_seconds']} s wall, {r['cpu_seconds']} s CPU)", flush=True)
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
