"""`soan sweep`: simulate a grid of settings (player counts x values of open
rulings) and compare them in one table.

    soan sweep SPEC --players 3,4 --rule NAME=V1,V2 -n 500

Every cell plays the same seeds (seed, seed+1, ...) with the same bots, so
two cells differ only by their settings.  Cells run one after another, each
split over local processes by seed (--jobs); with --ray [ADDRESS] each cell is
a Ray task instead (Ray is an optional extra: pip install "soan[ray]").  The
numbers are the same either way: a cell's games depend only on its settings
and seeds.

Columns: mean/min/max score over every seat, draws, no win (games nobody
won), elim/g (players eliminated per game), dec/g (decisions per game).
"""

from __future__ import annotations

import itertools
import sys

from . import api, stats


def add_parser(sub, common=None) -> None:
    s = sub.add_parser("sweep", allow_abbrev=False,
                       help="simulate a grid of player counts and ruling values; one comparison table")
    s.add_argument("spec", metavar="SPEC", help="a .soan spec file")
    s.add_argument("--players", "-p", default=None, metavar="N1,N2,...",
                   help="player counts (default: every count the spec allows)")
    s.add_argument("--rule", action="append", default=[], metavar="NAME=V1,V2,...",
                   help="an open ruling or assumption and the values to try (repeatable: the grid is every combination)")
    s.add_argument("--option", action="append", default=[], metavar="NAME",
                   help="switch on an optional rule in every cell (repeatable)")
    s.add_argument("--bots", "-b", default="random", metavar="B1,B2,...", help="bot per seat (default random)")
    s.add_argument("-n", "--games", type=int, default=200, metavar="GAMES", help="games per cell (default 200)")
    s.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="first seed of every cell (default 0)")
    s.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                   help="local processes per cell (default: all cores; same output for any N)")
    s.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run the cells as Ray tasks: a local Ray instance, or the cluster at ADDRESS")
    s.add_argument("--json", action="store_true", help="machine-readable output")


def grid(spec, players_text: str | None, rules: list[str], options: list[str]) -> list[tuple[int, dict, dict]]:
    """[(players, raw settings, checked params)] for every cell, in the order given.
    Errors are UsageErrors naming the bad piece."""
    from .cli import UsageError

    if players_text is None:
        counts = list(range(spec.min_players, spec.max_players + 1))
    else:
        try:
            counts = [int(x) for x in players_text.split(",") if x.strip()]
        except ValueError:
            raise UsageError(f"--players takes numbers separated by commas, got '{players_text}'") from None
        for n in counts:
            if not spec.min_players <= n <= spec.max_players:
                raise UsageError(f"{spec.name} is for {spec.min_players} to {spec.max_players} players; "
                                 f"--players {n} is outside that", f"try --players {spec.min_players}")
    axes = []
    for item in rules:
        if "=" not in item:
            raise UsageError(f"--rule takes NAME=V1,V2,..., got '{item}'")
        name, raw = item.split("=", 1)
        values = [v.strip() for v in raw.split(",") if v.strip()]
        if not values:
            raise UsageError(f"--rule {name.strip()}= names no value to try")
        axes.append([(name.strip(), v) for v in values])
    cells = []
    for n in counts:
        for combo in itertools.product(*axes) if axes else [()]:
            raw = dict(combo)
            try:
                params = api.parse_params(spec, {**raw, **{o: "true" for o in options}})
            except ValueError as e:
                msg, _, hint = str(e).partition("|")
                raise UsageError(msg, hint or None) from None
            cells.append((n, raw, params))
    return cells


def run_cell(spec, n: int, params: dict, games: int, seed: int, bots_text: str, jobs: int) -> dict:
    """One cell's simulate summary.  `spec` is a loaded spec, or its path (what a Ray task is given)."""
    if isinstance(spec, str):
        spec = api.load(spec)
    tables = api.tables(spec, n, params)
    return api.simulate(tables, games, seed, api.bot_names(bots_text, n), jobs=jobs)


def run_grid(spec, cells, games: int, seed: int, bots_text: str, jobs: int, ray_address: str | None,
             progress=None) -> list[dict]:
    if ray_address is None:
        out = []
        for k, (n, _raw, params) in enumerate(cells):
            out.append(run_cell(spec, n, params, games, seed, bots_text, jobs))
            if progress:
                progress(k + 1)
        return out
    from .cli import UsageError

    try:
        import ray
    except ImportError:
        raise UsageError("--ray needs Ray, which is not installed", 'pip install "soan[ray]"') from None
    started = False
    if not ray.is_initialized():
        ray.init(address=None if ray_address == "local" else ray_address, include_dashboard=False,
                 log_to_driver=False)
        started = True
    try:
        task = ray.remote(run_cell)
        refs = [task.remote(spec.path, n, params, games, seed, bots_text, 1) for n, _raw, params in cells]
        out = []
        for k, ref in enumerate(refs):  # in cell order, whatever order they finish in
            out.append(ray.get(ref))
            if progress:
                progress(k + 1)
        return out
    finally:
        if started:
            ray.shutdown()


def rows(cells, results) -> list[dict]:
    out = []
    for (n, raw, _params), r in zip(cells, results):
        elim = sum(s["eliminated_rate"] for s in r["seats"])
        out.append({"players": n, "settings": raw, "games": r["games"], "mean_score": r["score"]["mean"],
                    "min_score": r["score"]["min"], "max_score": r["score"]["max"], "draw_rate": r["draw_rate"],
                    "no_winner_rate": r["no_winner_rate"], "eliminations_per_game": round(elim, 3),
                    "decisions_mean": r["length"]["decisions_mean"], "win_rates": [s["win_rate"] for s in r["seats"]],
                    "summary": r})
    return out


def cmd_sweep(args, out, err) -> int:
    from rich import box
    from rich.table import Table

    from .cli import EXIT_OK, UsageError, _bots, _emit_json, _runtime_error
    from soan.dsl.errors import SpecRuntimeError

    spec = api.load(args.spec)
    if args.games < 1:
        raise UsageError(f"-n must be at least 1, got {args.games}")
    cells = grid(spec, args.players, args.rule, args.option)
    for n, _raw, _params in cells:
        _bots(args.bots, n)
    jobs = args.jobs if args.jobs > 0 else api.default_jobs()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    try:
        with Progress(TextColumn("sweeping"), BarColumn(), MofNCompleteColumn(), console=err, transient=True,
                      disable=args.json and not err.is_terminal) as prog:
            task = prog.add_task("cells", total=len(cells))
            results = run_grid(spec, cells, args.games, args.seed, args.bots, jobs, args.ray,
                               progress=lambda k: prog.update(task, completed=k))
    except SpecRuntimeError as e:
        return _runtime_error(spec, e, err)
    table = rows(cells, results)
    if args.json:
        _emit_json({"spec": spec.name, "draft": spec.draft, "games": args.games, "seed": args.seed,
                    "bots": args.bots, "cells": table})
        return EXIT_OK
    names = list(dict.fromkeys(k for row in table for k in row["settings"]))
    t = Table(title=f"{spec.name} draft {spec.draft}: {args.games} games per cell from seed {args.seed}, "
                    f"bots {args.bots}", title_justify="left", box=box.SIMPLE, pad_edge=False)
    t.add_column("players", justify="right")
    for k in names:  # a ruling's values are what the designer compares: never cut them
        t.add_column(k, no_wrap=True, min_width=max(len(r["settings"].get(k, "")) for r in table))
    for col in ("mean", "min", "max", "draws", "no win", "elim/g", "dec/g"):
        t.add_column(col, justify="right")
    for row in table:
        t.add_row(str(row["players"]), *[row["settings"].get(k, "") for k in names], *measure_cells(row))
    out.print(t)
    return EXIT_OK


def measure_cells(row: dict) -> list[str]:
    """A cell's measures as printed: shares as percentages that never read 0% for what happened."""
    return [f"{row['mean_score']:.2f}", str(row["min_score"]), str(row["max_score"]), stats.pct(row["draw_rate"], 1),
            stats.pct(row["no_winner_rate"], 1), f"{row['eliminations_per_game']:.2f}", f"{row['decisions_mean']:.1f}"]


if __name__ == "__main__":  # pragma: no cover
    from .cli import main

    sys.exit(main(["sweep", *sys.argv[1:]]))
