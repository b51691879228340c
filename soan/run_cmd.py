"""`soan run`: play one game with bots and tell what happened."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import in_force

from . import api
from .files import check_output_file, write_text

from .cmdline import (EXIT_OK, UsageError, _bots, _params, _players, _print_in_force,
                      _runtime_error)


def add_parser(sub, common) -> None:
    r = sub.add_parser("run", allow_abbrev=False, help="play one game with bots and tell what happened")
    common(r)
    r.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="random seed (default 0)")
    r.add_argument("--bots", "-b", default="random", metavar="B1,B2,...",
                   help="bot per seat: random, greedy, rollout, mcts[:PLAYOUTS[:DEPTH[:random|greedy]]] "
                   "or a strategy the spec declares; "
                   "the last fills the rest (default random)")
    r.add_argument("--log", metavar="FILE", help="write the game log (JSON) here, for soan replay")
    r.add_argument("--json", action="store_true", help="print the game log instead of the account")
    r.add_argument("--quiet", "-q", action="store_true", help="only the final scores")


def cmd_run(args, out: Console, err: Console) -> int:
    spec = api.load(args.spec)
    n = _players(spec, args)
    params = _params(spec, args)
    bots = _bots(args.bots, n, spec)
    if args.json and args.quiet:
        raise UsageError("--json and --quiet both say what to print; give one",
                         "--json prints the game log, --quiet only the final scores")
    if args.log:
        check_output_file(args.log, "--log")
    try:
        tables = api.tables(spec, n, params)
        rec = api.play(tables, args.seed, bots, narrate=not args.json and not args.quiet)
    except SpecRuntimeError as e:
        return _runtime_error(spec, e, err)
    if args.log:
        write_text(args.log, rec.to_json(), "--log")
    if args.json:
        sys.stdout.write(rec.to_json())
        return EXIT_OK
    if not args.quiet:
        out.print(f"[bold]{spec.name}[/bold]" + (f", draft {spec.draft}" if spec.draft is not None else "")
                  + f" — {n} players, seed {args.seed}, bots {', '.join(bots)}")
        _print_in_force(out, spec, in_force(tables), params)
        for line in api.narrate(rec.state):
            out.print(line, markup=False)
    _print_result(rec, tables, out)
    if args.log:
        out.print(f"log written to {args.log} (replay it with: soan replay {args.log})", markup=False)
    return EXIT_OK


def _print_result(rec, tables, out: Console) -> None:
    res = rec.result
    t = Table(title="Final scores", title_justify="left")
    t.add_column("player", style="bold")
    for s in tables.spec.scores:
        t.add_column(s.title or s.name, justify="right")
    t.add_column("total", justify="right", style="bold")
    t.add_column("")
    for i in range(tables.n):
        key = f"P{i + 1}"
        note = []
        if key in res["winners"]:
            note.append("draw" if res["draw"] else "winner")
        if key in res["eliminated"]:
            note.append("eliminated")
        t.add_row(key, *[str(res["breakdown"][key][s]) for s in tables.scores], str(res["scores"][key]), ", ".join(note))
    out.print(t)
    if res["draw"]:
        out.print(f"Result: a draw between {', '.join(res['winners'])}.")
    elif res["winners"]:
        out.print(f"Winner: {', '.join(res['winners'])} ({res['reason']}).")
    else:
        out.print(f"No winner: {res['reason']}.")
    if rec.log["consulted_rulings"]:
        out.print("Open rulings this game read: " + ", ".join(rec.log["consulted_rulings"]), markup=False)
