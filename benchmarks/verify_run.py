"""A `soan verify` run as the benchmark scripts that watch one make it (phase_times.py, climb_gains.py): the
same arguments and defaults as the command line's, the same work and findings, and the verdicts' summary."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path


def parser(description: str, budget: float, json_help: str) -> argparse.ArgumentParser:
    """The arguments of a watched verify run (`budget`: the wall-clock outer limit's default)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("spec")
    ap.add_argument("--players", "-p", type=int, required=True)
    ap.add_argument("--games", type=int, default=120)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=0, help="0: every core, as soan verify's default")
    ap.add_argument("--budget", type=float, default=budget)
    ap.add_argument("--json", help=json_help)
    return ap


def verify(tables, args, progress) -> dict:
    """soan verify's result for `tables` with the parsed `args`, its witnesses written to a folder thrown away."""
    from soan.interpreter.play import default_jobs
    from soan.verify import properties as P

    with tempfile.TemporaryDirectory() as wd:
        return P.verify(tables, args.budget, args.seed, None, Path(wd), progress, args.games,
                        args.jobs or default_jobs())


def print_summary(result: dict) -> None:
    print("verdicts:", json.dumps(result["summary"]), "stopped by wall clock:",
          result["search"]["stopped_by_wall_clock"], file=sys.stderr)
