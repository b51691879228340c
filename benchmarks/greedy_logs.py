"""Digests of greedy games on every shipped spec, to compare two versions of soan byte for byte.

For each spec in SPECS_DIR, each player count and each seed, one game with every seat greedy and one with greedy
and random seats alternating; prints one line per game: spec, players, bots, seed, sha256 of the log's JSON,
the narrated account and the marks (tests/interpreter/log_corpus.py's digest).  Run it with each version's
Python and diff the outputs:

    /path/to/base/python benchmarks/greedy_logs.py --seeds 4 > base.txt
    python benchmarks/greedy_logs.py --seeds 4 > branch.txt && diff base.txt branch.txt
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from soan import api

# the digest is the recorded corpus's own, so the two can never drift apart
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "interpreter"))
from log_corpus import game_digest  # noqa: E402

SPECS = Path(__file__).resolve().parents[1] / "specs"


def digest(rec) -> str:
    """The recorded corpus's digest of one game (the log, the narrated account and the marks)."""
    return game_digest(rec)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="digests of greedy games on every shipped spec")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per spec, count and line-up (default 3)")
    ap.add_argument("--only", default=None, help="one spec's stem")
    a = ap.parse_args(argv)
    for path in sorted(SPECS.glob("*.soan")):
        if a.only and path.stem != a.only:
            continue
        spec = api.load(str(path))
        for n in range(spec.min_players, spec.max_players + 1):
            tables = api.tables(spec, n)
            for bots in (["greedy"] * n, [("greedy", "random")[i % 2] for i in range(n)]):
                for seed in range(a.seeds):
                    rec = api.play(tables, seed, bots, narrate=True)
                    print(path.stem, n, ",".join(bots), seed, digest(rec), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
