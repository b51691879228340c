"""CPU time of greedy games on one spec: one warm-up game (seed 999), then `games` games of seeds 1000.. with every
seat greedy, timed with time.process_time; also how many endings ran for real (evaluate.finish_now or Evaluator._score calls) a game.
Run it with each version's Python, alternating, to compare two versions on a loaded machine:

    python benchmarks/greedy_cpu.py specs/pitmaster-20.soan 3 --games 3
"""

from __future__ import annotations

import argparse
import sys
import time

from soan import api
from soan.interpreter import evaluate


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="CPU ms per greedy game on one spec")
    ap.add_argument("spec")
    ap.add_argument("players", type=int)
    ap.add_argument("--games", type=int, default=3, help="timed games (default 3)")
    a = ap.parse_args(argv)
    t = api.tables(api.load(a.spec), a.players)
    bots = ["greedy"] * a.players
    api.play(t, 999, bots)
    calls = [0]
    real = evaluate.finish_now

    def counting(*args, **kw):
        calls[0] += 1
        return real(*args, **kw)

    evaluate.finish_now = counting
    # a scoring remembered a pass at a time (reads.scoring_plan) runs through Evaluator._score, not finish_now
    real_score = evaluate.Evaluator._score

    def counting_score(self, *args, **kw):
        calls[0] += 1
        return real_score(self, *args, **kw)

    evaluate.Evaluator._score = counting_score
    t0 = time.process_time()
    for seed in range(1000, 1000 + a.games):
        api.play(t, seed, bots)
    ms = (time.process_time() - t0) / a.games * 1000
    print(f"{a.spec} {a.players}p: {ms:.0f} ms CPU a greedy game over {a.games} games; "
          f"{calls[0] / a.games:.0f} endings run a game; ending analysed: {evaluate.evaluator(t).reads is not None}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
