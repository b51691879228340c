"""What every command of the `soan` command line shares: exit codes, the
usage error, reading --rule/--option/--players/--bots, JSON output and the
lines several commands print alike."""

from __future__ import annotations

import json
import sys

from rich.console import Console

from soan.dsl import ir
from soan.dsl.errors import Problem, SpecRuntimeError

from . import api

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
PROPERTY_NAMES = ["supplies", "tiebreaks", "score", "termination", "conservation", "dead", "rulings", "questions"]
DEFAULT_VERIFY_GAMES = 120
FAIL_ON = ("problems", "unknown", "witnessed")


class UsageError(Exception):
    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message, self.hint = message, hint


def _emit_json(obj) -> None:
    """JSON goes straight to stdout: a terminal's width must never wrap it."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


def _runtime_error(spec: ir.Spec, e: SpecRuntimeError, err: Console) -> int:
    err.print("the rules could not be carried out:", markup=False)
    path = e.span.path or spec.path
    err.print(Problem(path, e.span, e.message, e.hint).render(spec.text_of(path)), markup=False)
    return EXIT_USAGE


def _params(spec: ir.Spec, args) -> dict:
    params, given = {}, {}
    for item in args.rule:
        if "=" not in item:
            raise UsageError(f"--rule takes NAME=VALUE, got '{item}'", "e.g. --rule pardon_threshold=4")
        name, raw = (x.strip() for x in item.split("=", 1))
        if not name or not raw:
            raise UsageError(f"--rule takes NAME=VALUE, got '{item}'", "e.g. --rule pardon_threshold=4")
        if name in given:
            raise UsageError(f"--rule {name} is given twice ({given[name]} and --rule {item})", "give each ruling once")
        params[name], given[name] = raw, f"--rule {item}"
    for name in args.option:
        if name in given:
            raise UsageError(f"{name} is given twice ({given[name]} and --option {name})", "give each option once")
        params[name], given[name] = "true", f"--option {name}"
    for name, raw in params.items():  # one at a time, so the error names the option it came from
        try:
            api.parse_params(spec, {name: raw})
        except ValueError as e:
            msg, _, hint = str(e).partition("|")
            raise UsageError(f"{given[name]}: {msg}", hint or None) from None
    return api.parse_params(spec, params)


def _players(spec: ir.Spec, args) -> int:
    n = args.players if args.players is not None else spec.min_players
    if not spec.min_players <= n <= spec.max_players:
        raise UsageError(f"{spec.name} is for {spec.min_players} to {spec.max_players} players; --players {n} is outside that",
                         f"try --players {spec.min_players}")
    return n


def _budget(args, default: float) -> None:
    """prove's --budget (seconds) is not given with --games, which replaces it."""
    if args.budget is None:
        args.budget = default
        return
    if args.budget < 0:
        raise UsageError(f"--budget must be 0 or more seconds, got {args.budget}")
    if args.games is not None:
        raise UsageError("--budget and --games both say how long to search; give one",
                         "--games N searches N games (the same verdicts every run); --budget S searches for S seconds")


def _add_jobs(parser, what: str) -> None:
    parser.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                        help=f"processes for {what} (default 0: all cores; the same output for any N)")


def _jobs(args) -> int:
    """--jobs: how many processes; 0 (the default) is every core this process may use."""
    if args.jobs < 0:
        raise UsageError(f"--jobs must be 1 or more (or 0: all cores), got {args.jobs}", "try --jobs 2")
    return args.jobs or api.default_jobs()


def _bots(text: str, n: int, spec=None) -> list[str]:
    """One bot name per seat, each checked (with the spec, its strategies are bot names too)."""
    parts = [b.strip() for b in text.split(",")]
    if not text.strip() or any(not b for b in parts):
        raise UsageError(f"--bots takes bot names separated by commas, got '{text}'",
                         "e.g. --bots random,greedy (the last fills the remaining seats); bots: " + ", ".join(api.BOT_NAMES))
    if len(parts) > n:
        raise UsageError(f"--bots names {len(parts)} bots for {n} players",
                         f"give at most {n}, or more players with --players")
    names = api.bot_names(text, n)
    for b in names:
        problem = api.bot_problem(b, spec)
        if problem:
            raise UsageError(*problem)
    return names


# ---- commands -------------------------------------------------------------------------------------


class _NoStatus:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, msg):
        pass


def _print_witness(out, heading: str, f: dict) -> None:
    """A witnessed finding's heading, its replayable log and the account lines around the moment."""
    out.print(f"\n[bold]{heading}[/bold] — {f['claim']}")
    if f["witness"]:
        out.print(f"  witness: {f['witness']} (soan replay {f['witness']})", markup=False)
    for line in f["moves"]:
        out.print(f"    {line}", markup=False)


VERDICT_STYLE = {"proved": "bold green", "witnessed": "bold yellow", "unknown": "bold red"}


def _print_in_force(out: Console, spec: ir.Spec, forced: dict, params: dict) -> None:
    """One line under a playing command's header: every open ruling's value and the options switched on."""
    show = lambda v: str(v).lower() if isinstance(v, bool) else str(v)  # noqa: E731
    rulings = [f"{r.name}={show(forced[r.name])}" + ("*" if r.name in params else "") for r in spec.rulings
               if r.name in forced]
    options = [o.name for o in spec.options if forced.get(o.name)]
    assumed = [f"{k}={show(params[k])}*" for k in params if k in {a.name for a in spec.assumptions}]
    line = ("rulings in force: " + (", ".join(rulings) or "none") + "; options on: " + (", ".join(options) or "none")
            + ("; assumptions set: " + ", ".join(assumed) if assumed else "")
            + ("  (* set on the command line)" if params else ""))
    out.print(line, style="dim", markup=False)
