"""A load-free measure of greedy games: Python bytecode instructions executed and Python calls made a game (all seats
greedy, seeds 1000.. after a warm-up game), counted with sys.settrace (opcode events), and the code objects that run
the most.  Unlike CPU time it does not move with the machine's load, so two versions compare on any machine state;
it does not count the work done inside C (copying a list, hashing a key), so confirm a change with CPU time or an
instruction count (`valgrind --tool=cachegrind --cache-sim=no python benchmarks/greedy_cpu.py ...`) as well.
About 20x slower than the games themselves.

    python benchmarks/greedy_opcodes.py specs/kitano-20.soan 4 --games 3 --top 20
    python benchmarks/greedy_opcodes.py specs/pitmaster-20.soan 3 --bot random --games 30   # random playouts
"""

from __future__ import annotations

import argparse
import collections
import sys

from soan import api


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="opcodes and Python calls per greedy game on one spec")
    ap.add_argument("spec")
    ap.add_argument("players", type=int)
    ap.add_argument("--games", type=int, default=3, help="games counted (seeds 1000..; default 3)")
    ap.add_argument("--top", type=int, default=20, help="code objects listed by opcodes (default 20)")
    ap.add_argument("--bot", default="greedy", help="the bot every seat plays (default greedy; random for playouts)")
    a = ap.parse_args(argv)
    t = api.tables(api.load(a.spec), a.players)
    bots = [a.bot] * a.players
    api.play(t, 999, bots)  # warm-up: the tables' generated code and the ending memo's first use
    ops: collections.Counter = collections.Counter()
    calls: collections.Counter = collections.Counter()

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        code = frame.f_code
        calls[code] += 1

        def local(frame, event, arg):
            if event == "opcode":
                ops[code] += 1
            return local

        return local

    sys.settrace(tracer)
    try:
        for seed in range(1000, 1000 + a.games):
            api.play(t, seed, bots)
    finally:
        sys.settrace(None)
    total, g = sum(ops.values()), a.games
    print(f"{a.spec} {a.players}p: {total / g / 1e6:.2f} M opcodes and {sum(calls.values()) / g:,.0f} Python calls "
          f"a {a.bot} game over {g} games")
    for code, n in ops.most_common(a.top):
        print(f"{n / total:6.1%} {n / g:11,.0f} opcodes {calls[code] / g:9,.0f} calls  {code.co_name} "
              f"({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
