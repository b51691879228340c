"""CPU time per Kitano draft 20 game, for comparing two versions of soan on a
busy machine: random playouts taking turns seed by seed with the hand-written
yardstick (benchmarks/reference/kitano.py), and greedy games.

CPU seconds (time.process_time) of this process only, so other work on the
machine slows the wall clock but moves these figures far less; what is
compared is still best run back to back, a few times, reading the spread.
Only api.load, api.tables and api.play are used, so the script runs against
an older soan as well: install that version in its own virtual environment
(`git archive COMMIT | tar -x -C DIR && pip install DIR`) and run this file
with its Python.

    python benchmarks/cpu_per_game.py                     # 400 random games at 4 and 3 players, 5 greedy
    python benchmarks/cpu_per_game.py --games 1000 --greedy-games 0
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "reference"))

import kitano  # noqa: E402

from soan import api  # noqa: E402

SPEC = HERE.parent / "specs" / "kitano-20.soan"
SEED = 1000


def random_cpu(spec, n: int, games: int) -> tuple[float, float]:
    """(soan, hand-written) CPU milliseconds per random game at n players, taking turns seed by seed."""
    tables = api.tables(spec, n)
    for k in range(5):
        api.play(tables, SEED - 10 + k, ["random"] * n)
        kitano.play(n, SEED - 10 + k)
    clock = time.process_time
    soan_s = ref_s = 0.0
    for k in range(games):
        t0 = clock()
        api.play(tables, SEED + k, ["random"] * n)
        t1 = clock()
        kitano.play(n, SEED + k)
        ref_s += clock() - t1
        soan_s += t1 - t0
    return soan_s / games * 1000, ref_s / games * 1000


def greedy_cpu(spec, games: int) -> float:
    """CPU milliseconds per greedy game at 4 players."""
    tables = api.tables(spec, 4)
    api.play(tables, SEED - 1, ["greedy"] * 4)
    t0 = time.process_time()
    for k in range(games):
        api.play(tables, SEED + k, ["greedy"] * 4)
    return (time.process_time() - t0) / games * 1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="CPU time per Kitano game (random vs hand-written, greedy)")
    ap.add_argument("--games", type=int, default=400, help="random games per player count (default 400)")
    ap.add_argument("--greedy-games", type=int, default=5, help="greedy games at 4 players (default 5; 0: none)")
    a = ap.parse_args(argv)
    spec = api.load(str(SPEC))
    for n in (4, 3):
        s, r = random_cpu(spec, n, a.games)
        print(f"random, {n} players, {a.games} games: soan {s:.3f} ms CPU/game, hand-written {r:.3f} ms, "
              f"ratio {r / s:.3f}")
    if a.greedy_games:
        print(f"greedy, 4 players, {a.greedy_games} games: {greedy_cpu(spec, a.greedy_games):.1f} ms CPU/game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
