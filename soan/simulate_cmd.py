"""`soan simulate`: play many games and summarise them."""

from __future__ import annotations


from rich.console import Console
from rich.table import Table

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import in_force
from soan.stats import pct

from . import api

from .cmdline import (EXIT_OK, UsageError, _add_jobs, _bots, _jobs, _emit_json, _params, _players, _print_in_force,
                      _runtime_error)


def add_parser(sub, common) -> None:
    s = sub.add_parser("simulate", allow_abbrev=False, help="play many games and summarise them")
    common(s)
    s.add_argument("-n", "--games", type=int, default=100, metavar="GAMES", help="number of games (default 100)")
    s.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="first seed (default 0)")
    s.add_argument("--bots", "-b", default="random", metavar="B1,B2,...", help="bot per seat (default random)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    _add_jobs(s, "the games")


def cmd_simulate(args, out: Console, err: Console) -> int:
    spec = api.load(args.spec)
    n = _players(spec, args)
    params = _params(spec, args)
    bots = _bots(args.bots, n, spec)
    if args.games < 1:
        raise UsageError(f"-n must be at least 1, got {args.games}")
    jobs = _jobs(args)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    tables = api.tables(spec, n, params)
    try:
        with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err, transient=True, disable=args.json and not err.is_terminal) as prog:
            task = prog.add_task("games", total=args.games)
            stats = api.simulate(tables, args.games, args.seed, bots, progress=lambda k: prog.update(task, completed=k),
                                 jobs=jobs)
    except SpecRuntimeError as e:
        return _runtime_error(spec, e, err)
    stats["in_force"] = in_force(tables)
    if args.json:
        _emit_json(stats)
        return EXIT_OK
    out.print(f"[bold]{spec.name}[/bold] — {n} players, {args.games} games from seed {args.seed}, bots {', '.join(bots)}")
    _print_in_force(out, spec, stats["in_force"], params)
    t = Table(title="By seat", title_justify="left")
    for col in ("seat", "bot", "mean", "min", "max", "win rate", "eliminated"):
        t.add_column(col, justify="right" if col not in ("seat", "bot") else "left")
    for s in stats["seats"]:
        t.add_row(s["seat"], s["bot"], f"{s['mean']:.2f}", str(s["min"]), str(s["max"]), pct(s['win_rate'], 1),
                  pct(s['eliminated_rate'], 1))
    out.print(t)
    sc = stats["score"]
    out.print(f"Score: mean {sc['mean']:.2f}, min {sc['min']}, max {sc['max']}.  Draws {pct(stats['draw_rate'], 1)}, "
              f"no winner {pct(stats['no_winner_rate'], 1)}.")
    ln = stats["length"]
    out.print(f"Game length: {ln['rounds_mean']:.2f} rounds, {ln['decisions_mean']:.1f} decisions "
              f"(min {ln['decisions_min']}, max {ln['decisions_max']}).")
    t = Table(title="Mean points per scoring item (per player)", title_justify="left")
    t.add_column("item")
    t.add_column("mean", justify="right")
    for s in spec.scores:
        t.add_row(s.title or s.name, f"{stats['items'][s.name]:.2f}")
    out.print(t)
    if stats["rulings_consulted"]:
        out.print("Share of games that read each open ruling: " + ", ".join(
            f"{k} {pct(v)}" for k, v in stats["rulings_consulted"].items()), markup=False)
    if stats["games_with"]:
        out.print("Share of games with: " + ", ".join(f"{api.MARK_NAMES.get(k, k)} {pct(v)}"
                                                     for k, v in stats["games_with"].items()), markup=False)
    tables_used = api.assumed_card_tables(spec, params)
    if tables_used:
        out.print("These results depend on card contents the spec assumes: " + ", ".join(tables_used)
                  + " (an assumption with values can be tried another way with --rule NAME=VALUE)", markup=False)
    return EXIT_OK
