"""The `soan` command line.

Exit codes: 0 ok; 1 failed examples, a replay that does not match, or
findings; 2 a bad command line or a bad spec (located, with a hint, never a
traceback).
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import sys
import threading
from pathlib import Path

import attrs
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from soan.dsl import ir
from soan.dsl.errors import Problem, SpecErrors, SpecRuntimeError
from soan.dsl.limits import RECURSION_LIMIT, STACK_BYTES
from soan.interpreter.play import LOG_FORMAT, in_force
from soan.stats import pct

from . import api
from . import balance as balance_cmd
from . import compile_cmd
from . import record as record_cmd
from . import rulings as rulings_cmd
from . import sweep as sweep_cmd
from .console import PipeClosed, make_console, silence_stdout
from .files import OutputError, check_output_dir, check_output_file, write_text

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
DIFF_LINES = 24  # lines of one declaration's diff shown in the terminal
PROPERTY_NAMES = ["supplies", "tiebreaks", "score", "termination", "conservation", "dead", "rulings", "questions"]


class UsageError(Exception):
    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message, self.hint = message, hint


class _Parser(argparse.ArgumentParser):
    """argparse with a hint (the nearest command or option) on every error."""

    def error(self, message):  # noqa: D401 - argparse's name
        hint = None
        if "invalid choice" in message and "'" in message:
            bad = message.split("invalid choice: '")[1].split("'")[0]
            choices = [a for a in self._subparser_choices()]
            near = difflib.get_close_matches(bad, choices, n=1)
            hint = f"did you mean '{near[0]}'?" if near else "commands: " + ", ".join(choices)
        elif message.startswith("unrecognized arguments"):
            words = message.split(":", 1)[1].split()
            if not words:  # an empty argument ('')
                raise UsageError(message.rstrip(": ") + ": an empty argument ('')", f"see '{self.prog} --help'")
            bad = words[0]
            opts = [o for a in self._actions for o in a.option_strings]
            for a in self._actions:  # the commands' own options too: argparse reports them from the top
                if isinstance(a, argparse._SubParsersAction):
                    for sp in a.choices.values():
                        opts += [o for sa in sp._actions for o in sa.option_strings]
            near = difflib.get_close_matches(bad, opts, n=1)
            hint = f"did you mean '{near[0]}'?" if near else f"see '{self.prog} --help'"
        raise UsageError(message, hint or f"see '{self.prog} --help'")

    def _subparser_choices(self):
        for a in self._actions:
            if isinstance(a, argparse._SubParsersAction):
                return list(a.choices)
        return []


DEFAULT_VERIFY_GAMES = 120
FAIL_ON = ("problems", "unknown", "witnessed")


def build_parser() -> _Parser:
    p = _Parser(prog="soan", description="soan (草案): write board-game drafts as specs; check, play and test them.",
                allow_abbrev=False)
    p.add_argument("--version", action="version", version=f"soan {api.__version__}")
    p.add_argument("--width", type=_width, default=None, metavar="COLUMNS", help=WIDTH_HELP)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def common(sp, players=True):
        sp.add_argument("spec", metavar="SPEC", help="a .soan spec file")
        if players:
            sp.add_argument("--players", "-p", type=int, metavar="N", help="number of players (default: the fewest the spec allows)")
        sp.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                        help="resolve an open ruling or assumption another way (repeatable)")
        sp.add_argument("--option", action="append", default=[], metavar="NAME", help="switch on an optional rule (repeatable)")

    c = sub.add_parser("check", allow_abbrev=False, help="parse and check specs; list assumptions and open rulings")
    c.add_argument("specs", nargs="+", metavar="SPEC")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.add_argument("--brief", action="store_true", help="list rulings and assumptions by name only, grouped by the draft section")

    r = sub.add_parser("run", allow_abbrev=False, help="play one game with bots and tell what happened")
    common(r)
    r.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="random seed (default 0)")
    r.add_argument("--bots", "-b", default="random", metavar="B1,B2,...",
                   help="bot per seat: random, greedy, rollout, mcts[:PLAYOUTS[:DEPTH]] or a strategy the spec declares; "
                   "the last fills the rest (default random)")
    r.add_argument("--log", metavar="FILE", help="write the game log (JSON) here, for soan replay")
    r.add_argument("--json", action="store_true", help="print the game log instead of the account")
    r.add_argument("--quiet", "-q", action="store_true", help="only the final scores")

    s = sub.add_parser("simulate", allow_abbrev=False, help="play many games and summarise them")
    common(s)
    s.add_argument("-n", "--games", type=int, default=100, metavar="GAMES", help="number of games (default 100)")
    s.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="first seed (default 0)")
    s.add_argument("--bots", "-b", default="random", metavar="B1,B2,...", help="bot per seat (default random)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.add_argument("--jobs", "-j", type=int, default=0, metavar="N", help="processes (default: all cores; same output for any N)")

    rp = sub.add_parser("replay", allow_abbrev=False, help="replay a game log and confirm the same outcome")
    rp.add_argument("log", metavar="LOG", help="a log written by soan run --log")
    rp.add_argument("--spec", metavar="SPEC", help="the spec to replay against (default: the path in the log)")
    rp.add_argument("--verbose", "-v", action="store_true", help="tell the game again")
    rp.add_argument("--allow-changed-spec", action="store_true",
                    help="replay even if the spec has changed since the log was written (otherwise exit 1)")

    d = sub.add_parser("diff", allow_abbrev=False, help="compare two drafts: rules, declared bounds, play, first divergence")
    d.add_argument("old", metavar="OLD", help="the earlier draft's spec")
    d.add_argument("new", metavar="NEW", help="the later draft's spec")
    d.add_argument("--players", "-p", type=int, metavar="N", help="player count for play (default: the fewest both allow)")
    d.add_argument("--games", "-n", type=int, default=200, metavar="N", help="games per draft (default 200; 0: rules only)")
    d.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="first seed (default 0)")
    d.add_argument("--bots", "-b", default="random", metavar="B1,B2,...", help="bot per seat (default random)")
    d.add_argument("--json", action="store_true", help="machine-readable output")
    d.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report with plots")
    d.add_argument("--verify", action="store_true",
                   help="also run soan verify on both drafts (a fixed search) and compare verdicts and bounds")
    d.add_argument("--verify-games", type=int, default=None, metavar="N",
                   help="search games per draft for --verify (default 40)")

    v = sub.add_parser("verify", allow_abbrev=False,
                       help="prove or witness what can happen: supplies, tie-breaks, score range, termination, ...")
    common(v)
    v.add_argument("--only", action="append", default=[], metavar="PROPERTY",
                   help="check only this property (repeatable): " + ", ".join(PROPERTY_NAMES))
    v.add_argument("--budget", type=float, default=180.0, metavar="SECONDS",
                   help="wall-clock limit (default 180): work left when it runs out is cut short, and the "
                        "output says so, since verdicts may then depend on the machine's speed")
    v.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="first seed of the search (default 0)")
    v.add_argument("--games", type=int, default=DEFAULT_VERIFY_GAMES, metavar="N",
                   help=f"the search's work: N seeded games, N/4 targeted ones and 10 N steps of each climb "
                        f"(default {DEFAULT_VERIFY_GAMES}); the same N and seed give the same verdicts on any machine")
    v.add_argument("--fail-on", action="append", default=[], metavar="WHAT",
                   help="what makes the exit code 1 (repeatable): problems (a witnessed flaw the spec does not "
                        "handle), unknown (a claim neither proved nor witnessed), witnessed (anything a game "
                        "showed, handled or not); default: problems and unknown")
    v.add_argument("--witness-dir", default="soan-witnesses", metavar="DIR",
                   help="where witness game logs are written (default soan-witnesses/)")
    v.add_argument("--json", action="store_true", help="machine-readable output (schema in docs/verify.md)")

    pr = sub.add_parser("prove", allow_abbrev=False,
                        help="answer a question about every game: can EXPR [at end], or always EXPR [at end]")
    pr.add_argument("spec", metavar="SPEC", help="a .soan spec file")
    pr.add_argument("question", nargs="?", metavar="QUESTION",
                    help="'can EXPR [at end]' or 'always EXPR [at end]' in the spec's expression language "
                         "(default: the spec's own questions and invariants)")
    pr.add_argument("--players", "-p", type=int, metavar="N", help="only this player count (default: every one)")
    pr.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                    help="resolve an open ruling or assumption another way (repeatable)")
    pr.add_argument("--option", action="append", default=[], metavar="NAME", help="switch on an optional rule (repeatable)")
    pr.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                    help="seconds of games per player count when z3 does not settle it (default 10)")
    pr.add_argument("--games", type=int, metavar="N",
                    help="play exactly N seeded games per player count instead of a time budget (the same verdicts every run)")
    pr.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="first seed of the games (default 0)")
    pr.add_argument("--witness-dir", default="soan-witnesses", metavar="DIR",
                    help="where witness game logs are written (default soan-witnesses/)")
    pr.add_argument("--json", action="store_true", help="machine-readable output")

    record_cmd.add_parser(sub, common)
    compile_cmd.add_parser(sub, common)
    balance_cmd.add_parser(sub, common)
    sweep_cmd.add_parser(sub)
    rulings_cmd.add_parser(sub, common)

    t = sub.add_parser("test", allow_abbrev=False,
                       help="run the examples written in specs, and their playthroughs (tests/playthroughs/, next to the spec)")
    t.add_argument("specs", nargs="+", metavar="SPEC", help="a .soan spec, or a .playthrough file")
    t.add_argument("--json", action="store_true", help="machine-readable output")
    for sp in sub.choices.values():  # `soan diff A B --width 100` as well as `soan --width 100 diff A B`
        sp.add_argument("--width", type=_width, default=argparse.SUPPRESS, metavar="COLUMNS", help=WIDTH_HELP)
    return p


WIDTH_HELP = ("wrap output at this many columns (default: the terminal's width; "
              "in a pipe or file, COLUMNS if set, else no wrapping)")


def _width(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of columns, not '{text}'") from None
    if not 20 <= n <= 100_000:
        raise argparse.ArgumentTypeError(f"between 20 and 100000 columns, not {n}")
    return n


def main(argv: list[str] | None = None) -> int:
    """Run one soan command; returns its exit code.

    The command runs in a thread with a deep stack, so a spec nested up to
    MAX_NESTING levels is read, checked and played without a RecursionError."""
    outcome: list = []

    def work():
        try:
            outcome.append(("code", _main(argv)))
        except BaseException as e:  # SystemExit from --help and --version, re-raised where the caller expects it
            outcome.append(("raise", e))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    previous = threading.stack_size()
    runner = threading.Thread(target=work, name="soan", daemon=True)
    try:
        threading.stack_size(STACK_BYTES)  # read when the thread starts
        runner.start()
    finally:
        threading.stack_size(previous)
    try:
        while runner.is_alive():
            runner.join(0.2)
    except KeyboardInterrupt:
        sys.stderr.write("soan: interrupted\n")
        return 130
    kind, value = outcome[0]
    if kind == "raise":
        raise value
    return value


def _main(argv: list[str] | None) -> int:
    out, err = make_console(), make_console(stderr=True)
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "width", None) is not None:
            out, err = make_console(width=args.width), make_console(stderr=True, width=args.width)
        if args.command is None:
            build_parser().print_help()
            raise UsageError("give a command", "commands: " + ", ".join(COMMANDS) + "; see 'soan --help'")
        _no_empty_paths(args)
        _no_odd_numbers(args)
        if sys.stdout is None:  # started with stdout closed (`soan check spec >&-`): the output would be lost
            raise UsageError("standard output is closed, so soan has nowhere to print",
                             "send it somewhere, e.g. > /dev/null to discard it")
        code = COMMANDS[args.command](args, out, err)
        sys.stdout.flush()  # a full disk must be found now, not at exit
        return code
    except UsageError as e:
        err.print(f"soan: error: {e.message}", markup=False)
        if e.hint:
            err.print(f"  hint: {e.hint}", markup=False)
        return EXIT_USAGE
    except OutputError as e:
        err.print(f"soan: error: {e.message}", markup=False)
        if e.hint:
            err.print(f"  hint: {e.hint}", markup=False)
        return EXIT_USAGE
    except SpecErrors as e:
        err.print(e.render(), markup=False)
        return EXIT_USAGE
    except KeyboardInterrupt:
        err.print("soan: interrupted")
        return 130
    except (BrokenPipeError, PipeClosed):  # the reader left (`| head`): stop quietly, as other command-line tools do
        silence_stdout()
        return EXIT_OK
    except OSError as e:  # writing the output failed (a full disk): the system's error, not soan's
        err.print(f"soan: error: cannot write the output: {e.strerror or e}", markup=False)
        err.print("  hint: is the disk full, or the output closed?", markup=False)
        silence_stdout()
        return EXIT_USAGE
    except Exception as e:  # the last guard: a designer never sees a traceback
        if os.environ.get("SOAN_DEBUG"):
            raise
        err.print(f"soan: internal error: {type(e).__name__}: {e}", markup=False)
        err.print("  hint: this is a bug in soan, not in your spec; SOAN_DEBUG=1 shows the details", markup=False)
        return 3


# ---- helpers ------------------------------------------------------------------------------------


def _no_odd_numbers(args) -> None:
    """Seconds are finite (nan and inf are no budget), and a search's game count is not negative."""
    budget = getattr(args, "budget", None)
    if budget is not None and not math.isfinite(budget):
        raise UsageError(f"--budget must be a finite number of seconds, got {budget}",
                         "give seconds such as --budget 60, or --games N for a fixed amount of work")
    if args.command in ("verify", "prove") and getattr(args, "games", None) is not None and args.games < 0:
        raise UsageError(f"--games must be 0 or more, got {args.games}", "--games 0 searches no games")


def _no_empty_paths(args) -> None:
    """An empty path would silently mean the current folder, or (for --log) no log at all."""
    names = {"spec": "SPEC", "specs": "SPEC", "old": "OLD", "new": "NEW", "log": "LOG", "html": "--html",
             "witness_dir": "--witness-dir"}
    if args.command == "run":
        names["log"] = "--log"
    if args.command == "replay":
        names["spec"] = "--spec"
    for dest, shown in names.items():
        value = getattr(args, dest, None)
        for v in value if isinstance(value, list) else [value]:
            if v is not None and not str(v).strip():
                what = f"option {shown}" if shown.startswith("--") else f"argument {shown}"
                raise UsageError(f"the {what} is an empty path", "give a file or folder name")



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


def cmd_check(args, out: Console, err: Console) -> int:
    reports, failed = [], False
    for path in args.specs:
        try:
            spec = api.load(path)
        except SpecErrors as e:
            failed = True
            if args.json:  # the problems in the JSON for a script, and located on stderr for a person
                reports.append({"path": path, "ok": False, "problems": [
                    {"file": p.path, "line": p.span.line, "col": p.span.col, "message": p.message, "hint": p.hint}
                    for p in e.problems]})
            err.print(e.render(), markup=False)
            continue
        report = api.check_report(spec)
        reports.append({"path": path, "ok": True, **report})
        if not args.json:
            _print_check(spec, report, out, brief=args.brief)
    if args.json:
        _emit_json(reports if len(reports) > 1 else reports[0])
    return EXIT_USAGE if failed else EXIT_OK


def _print_check(spec: ir.Spec, report: dict, out: Console, brief: bool = False) -> None:
    s = report["summary"]
    draft = f", draft {s['draft']}" if s["draft"] is not None else ""
    out.print(f"[bold]{spec.path}[/bold]: {s['name']}{draft}, {s['players'][0]}–{s['players'][1]} players — ok")
    out.print(f"  {s['cards']} cards/pieces of {s['components']} kinds, {s['zones']} zones, {s['tokens']} token supplies, "
              f"{s['procedures']} procedures, {s['examples']} examples; scoring items: {', '.join(s['score_items']) or 'none'}")
    if s["options"]:
        out.print(f"  optional rules: {', '.join(s['options'])}")
    if s["questions"]:
        out.print(f"  questions and invariants (soan prove answers them): {', '.join(s['questions'])}")
    from rich.padding import Padding

    sections = (("Open rulings", "rulings", "each runs at its provisional resolution; try another with --rule NAME=VALUE"),
                ("Assumptions", "assumptions", "what the spec supplies that the draft does not say"))
    for title, key, blurb in sections:
        rows = report[key]
        if not rows:
            continue
        out.print(f"\n[bold]{title} ({len(rows)})[/bold] — {blurb}")
        groups: dict[str, list[dict]] = {}  # by the draft section cited first, in the order the spec meets them
        for r in rows:
            groups.setdefault(r["section"], []).append(r)
        for section, members in groups.items():
            if brief:
                names = [r["name"] + (f"={r['provisional']}" if key == "rulings" else
                                      f"={r['value']}" if r.get("value") is not None else "") for r in members]
                out.print(Padding(f"{section}: " + ", ".join(names), (0, 0, 0, 2)), markup=False)
                continue
            out.print(Padding(section, (0, 0, 0, 2)), style="underline", markup=False)
            for r in members:
                head = f"    [bold]{escape(r['name'])}[/bold] (line {r['line']})"
                if key == "rulings":
                    head += f" = {escape(r['provisional'])}   [dim]of {escape(r['domain'])}[/dim]"
                elif r.get("value") is not None:
                    head += f" = {escape(r['value'])}"
                out.print(head)
                out.print(Padding(r["text"], (0, 0, 0, 8)), markup=False)
                extra = []
                if r["cite"]:
                    extra.append(f"cites: {r['cite']}")
                if r["affects"]:
                    extra.append("affects: " + ", ".join(r["affects"]))
                elif r.get("embodied"):
                    extra.append("embodied in the rules (no expression reads it: the rules are written this way)")
                else:
                    extra.append("affects: nothing the engine runs (it documents the spec)")
                out.print(Padding("; ".join(extra), (0, 0, 0, 8)), style="dim", markup=False)
    for note in report["notes"]:
        out.print(Padding(f"note: {note}", (0, 0, 0, 2), expand=False), markup=False)
    out.print()


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


def cmd_simulate(args, out: Console, err: Console) -> int:
    spec = api.load(args.spec)
    n = _players(spec, args)
    params = _params(spec, args)
    bots = _bots(args.bots, n, spec)
    if args.games < 1:
        raise UsageError(f"-n must be at least 1, got {args.games}")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    tables = api.tables(spec, n, params)
    try:
        with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err, transient=True, disable=args.json and not err.is_terminal) as prog:
            task = prog.add_task("games", total=args.games)
            stats = api.simulate(tables, args.games, args.seed, bots, progress=lambda k: prog.update(task, completed=k),
                                 jobs=args.jobs if args.jobs > 0 else api.default_jobs())
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


def cmd_replay(args, out: Console, err: Console) -> int:
    from soan.interpreter.logschema import LogProblem, validate_log

    try:
        log = api.load_log(args.log)
    except FileNotFoundError:
        raise UsageError(f"no such log file: {args.log}") from None
    except (OSError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise UsageError(f"{args.log} is not a soan game log: {reason}", LOG_HINT) from None
    try:
        validate_log(log)
    except LogProblem as e:
        raise UsageError(f"{args.log} is not a valid soan game log: field {e.field}: {e.message}", LOG_HINT) from None
    spec_path = args.spec or log["spec"]["path"]
    if not Path(spec_path).exists() and not Path(spec_path).is_absolute():
        candidate = Path(args.log).parent / spec_path
        spec_path = str(candidate) if candidate.exists() else spec_path
    if not Path(spec_path).exists():
        if args.spec:
            raise UsageError(f"no such spec file: {args.spec}", "give the spec the log was written from: --spec SPEC")
        raise UsageError(f"the spec this log was written from is not at '{spec_path}' (from here or next to the log)",
                         f"give it with --spec: soan replay {args.log} --spec PATH/TO/{Path(spec_path).name}")
    spec = api.load(spec_path)
    changed = None
    if spec.name != log["spec"]["name"]:
        changed = f"{spec_path} is {spec.name}, but the log is a game of {log['spec']['name']}"
    elif api.spec_digest(spec) != log["spec"]["sha256"]:
        changed = f"{spec_path} has changed since the log was written (field spec.sha256)"
    if changed and not args.allow_changed_spec:
        out.print(f"replay refused: {changed}", markup=False)
        err.print("  hint: --allow-changed-spec replays it against the current text anyway", markup=False)
        return EXIT_FINDINGS
    if changed:
        err.print(f"note: {changed}; replaying against the current text (--allow-changed-spec)", markup=False)
    if not spec.min_players <= log["players"] <= spec.max_players:
        raise UsageError(f"{args.log}: field players: {log['players']} players, but {spec.name} is for "
                         f"{spec.min_players} to {spec.max_players}", LOG_HINT)
    try:
        params = api.parse_params(spec, {k: str(v).lower() if isinstance(v, bool) else str(v)
                                         for k, v in log["params"].items()})
    except ValueError as e:
        raise UsageError(f"{args.log}: field params: {str(e).partition('|')[0]}", LOG_HINT) from None
    tables = api.tables(spec, log["players"], params)
    if "in_force" in log and not changed:
        now = in_force(tables)
        for name in sorted(set(now) | set(log["in_force"])):
            if now.get(name) != log["in_force"].get(name):
                raise UsageError(f"{args.log}: field in_force.{name}: the log says {log['in_force'].get(name)!r}, "
                                 f"but the spec and the log's params give {now.get(name)!r}", LOG_HINT)
    try:
        st = api.replay(tables, log, narrate=args.verbose)
        problem = None if changed else _replay_disagreement(tables, log, st)
    except api.ReplayMismatch as e:
        problem = str(e)
    except SpecRuntimeError as e:
        return _runtime_error(spec, e, err)
    if problem:
        out.print(f"replay differs: {problem}", markup=False)
        return EXIT_FINDINGS
    _print_in_force(out, spec, in_force(tables), params)
    if args.verbose:
        for line in api.narrate(st):
            out.print(line, markup=False)
    res = st.result
    who = ("draw between " if res["draw"] else "winner ") + ", ".join(res["winners"]) if res["winners"] else "no winner"
    out.print(f"replayed {len(log['steps'])} steps of {spec.name} (seed {log['seed']}, bots {', '.join(log['bots'])}"
              + _in_force_text(log) + f"): same course and result — {who}; scores "
              + ", ".join(f"{k} {v}" for k, v in res["scores"].items()), markup=False)
    return EXIT_OK


LOG_HINT = "logs are written by soan run --log; their format is in docs/log-format.md"


def _in_force_text(log: dict) -> str:
    return "; set: " + ", ".join(f"{k}={v}" for k, v in log["params"].items()) if log["params"] else ""


def _replay_disagreement(tables, log: dict, st) -> str | None:
    """What the replayed game says that the log does not: the rulings it read, and (for games played by
    soan's bots) the moves and chance its seed and bots give."""
    read = sorted(r for r in st.consulted if tables.param_kind.get(r) == "ruling")
    if read != sorted(log["consulted_rulings"]):
        return (f"field consulted_rulings: the game read {', '.join(read) or 'no open ruling'}, "
                f"the log says {', '.join(log['consulted_rulings']) or 'none'}")
    if any(api.bot_problem(b, tables.spec) for b in log["bots"]):
        return None  # a searched or constructed game (soan verify's witnesses): its moves are its own
    if log["soan_log"] != LOG_FORMAT:
        return None  # written with an earlier version's random streams: its seed plays another game today
    again = api.play(tables, log["seed"], log["bots"])
    if again.log["steps"] == log["steps"]:
        return None
    k = next((i for i, (a, b) in enumerate(zip(again.log["steps"], log["steps"])) if a != b),
             min(len(again.log["steps"]), len(log["steps"])))
    return (f"fields seed and bots: seed {log['seed']} with bots {', '.join(log['bots'])} play another game "
            f"(from step {k + 1}), so the log's seed or bots are not the ones its moves were played with")


def cmd_test(args, out: Console, err: Console) -> int:
    all_results, failed, bad_spec = [], 0, False
    for path in args.specs:
        if path.endswith(record_cmd.SUFFIX):
            continue
        try:
            spec = api.load(path)
        except SpecErrors as e:
            err.print(e.render(), markup=False)
            bad_spec = True
            continue
        results = api.run_examples(spec)
        for r in results:
            where = r.span.path or path  # an example may come from the spec this one extends
            all_results.append({"spec": path, "file": where, "example": r.title, "passed": r.passed,
                                "line": r.span.line, "failures": list(r.failures),
                                "problems": [{"file": p.path, "line": p.span.line, "col": p.span.col,
                                              "message": p.message, "hint": p.hint} for p in r.problems]})
            if not args.json:
                mark = "[green]PASS[/green]" if r.passed else "[red]FAIL[/red]"
                out.print(f"{mark} {where}:{r.span.line} {escape(r.title)}", highlight=False)
                for line in r.render(spec).splitlines():
                    out.print(f"     {line}", markup=False)
            failed += not r.passed
        if not results and not args.json:
            out.print(f"{path}: no examples", markup=False)
    playthroughs = [p for p in args.specs if p.endswith(record_cmd.SUFFIX)]
    for p in playthroughs:
        if not Path(p).is_file():
            raise UsageError(f"no such playthrough: {p}", "soan record SPEC --out FILE writes one")
    playthroughs += [str(p) for s in args.specs if not s.endswith(record_cmd.SUFFIX)
                     for p in record_cmd.playthroughs_for(s)]
    for r in map(record_cmd.rerun, dict.fromkeys(playthroughs)):
        all_results.append({"spec": r.spec_path, "file": r.path, "playthrough": r.path, "passed": r.passed,
                            "failures": [r.message] if r.message else []})
        if not args.json:
            out.print(f"{'[green]PASS[/green]' if r.passed else '[red]FAIL[/red]'} playthrough {r.path}", highlight=False)
            for line in r.message.splitlines():
                out.print(f"     {line}", markup=False)
        failed += not r.passed
    passed = sum(r["passed"] for r in all_results)
    if args.json:
        _emit_json({"passed": passed, "failed": failed, "examples": all_results})
    else:
        out.print(f"{passed} passed, {failed} failed")
    if bad_spec:
        return EXIT_USAGE
    return EXIT_FINDINGS if failed else EXIT_OK


def cmd_verify(args, out: Console, err: Console) -> int:
    from soan.verify.properties import verify

    spec = api.load(args.spec)
    n = _players(spec, args)
    params = _params(spec, args)
    for o in args.only:
        if o not in PROPERTY_NAMES:
            near = difflib.get_close_matches(o, PROPERTY_NAMES, n=1)
            raise UsageError(f"unknown property '{o}'", f"did you mean '{near[0]}'?" if near else
                             "properties: " + ", ".join(PROPERTY_NAMES))
    if args.budget < 0:
        raise UsageError(f"--budget must be 0 or more seconds, got {args.budget}")
    for w in args.fail_on:
        if w not in FAIL_ON:
            near = difflib.get_close_matches(w, FAIL_ON, n=1)
            raise UsageError(f"--fail-on takes {', '.join(FAIL_ON)}, not '{w}'",
                             f"did you mean '{near[0]}'?" if near else None)
    stem = Path(spec.path).stem
    check_output_dir(args.witness_dir, "--witness-dir")
    wdir = Path(args.witness_dir) / f"{stem}-p{n}"
    from rich.status import Status

    tables = api.tables(spec, n, params)
    try:
        with Status("verifying", console=err, spinner="dots") if err.is_terminal else _NoStatus() as status:
            result = verify(tables, args.budget, args.seed, set(args.only) or None, wdir,
                            progress=lambda msg: status.update(f"verifying: {msg}"), max_games=args.games)
    except SpecRuntimeError as e:
        return _runtime_error(spec, e, err)
    except OSError as e:
        raise OutputError(f"--witness-dir {args.witness_dir}: a witness could not be written: {e.strerror or e}") from None
    result["in_force"] = in_force(tables)
    if args.json:
        _emit_json(result)
    else:
        _print_verify(spec, result, out, params)
    fail_on = set(args.fail_on) or {"problems", "unknown"}
    counts = {"problems": result["summary"]["problems"], "unknown": result["summary"]["unknown"],
              "witnessed": result["summary"]["witnessed"]}
    return EXIT_FINDINGS if any(counts[k] for k in fail_on) else EXIT_OK


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


def _print_verify(spec: ir.Spec, result: dict, out: Console, params: dict) -> None:
    s = result["search"]
    out.print(f"[bold]{spec.name}[/bold]" + (f", draft {spec.draft}" if spec.draft is not None else "")
              + f" — {result['players']} players; searched {s['games']} games in {s['seconds']:.1f}s from seed {s['seed']}")
    if s.get("stopped_by_wall_clock"):
        out.print(f"[bold yellow]note:[/bold yellow] the wall-clock limit of {result['budget_seconds']:.0f}s cut the "
                  f"search short: these verdicts may differ on a faster or less busy machine "
                  f"(raise --budget, or lower --games)")
    _print_in_force(out, spec, result["in_force"], params)
    t = Table(show_lines=False)
    t.add_column("property")
    t.add_column("subject")
    t.add_column("verdict")
    t.add_column("what")
    for f in result["findings"]:
        verdict = f"[{VERDICT_STYLE[f['verdict']]}]{f['verdict']}[/]" + (" [red](problem)[/red]" if f["problem"] else "")
        t.add_row(f["property"], f["subject"], verdict, f"{f['claim']}\n[dim]{f['detail']}[/dim]")
    out.print(t)
    for f in result["findings"]:
        if f["witness"] or f["moves"]:
            _print_witness(out, f"{f['property']}: {f['subject']}", f)
            if f["depends_on"]:
                out.print(f"  depends on: {', '.join(f['depends_on'])}", markup=False)
    sm = result["summary"]
    out.print(f"\n{sm['proved']} proved, {sm['witnessed']} witnessed ({sm['problems']} problems), {sm['unknown']} unknown"
              + ("" if not sm["unknown"] else " — unknown is not a pass: raise --budget or read the details"))


def cmd_prove(args, out: Console, err: Console) -> int:
    from rich.status import Status

    from soan.dsl.compiler import compile_question
    from soan.verify.questions import check_questions

    spec = api.load(args.spec)
    if args.question is not None:
        questions = [compile_question(spec, args.question)]
    elif spec.questions:
        questions = list(spec.questions)
    else:
        raise UsageError(f"{args.spec} asks no questions and none was given",
                         f'ask one: soan prove {args.spec} "can EXPR at end", or write question blocks in the spec')
    counts = [_players(spec, args)] if args.players is not None else list(range(spec.min_players, spec.max_players + 1))
    params = _params(spec, args)
    _budget(args, default=10.0)
    stem = Path(spec.path).stem
    check_output_dir(args.witness_dir, "--witness-dir")
    results = []
    try:
        with Status("proving", console=err, spinner="dots") if err.is_terminal else _NoStatus() as status:
            for n in counts:
                findings = check_questions(api.tables(spec, n, params), questions, (), args.budget, seed=args.seed,
                                           max_games=args.games, witness_dir=Path(args.witness_dir) / f"{stem}-p{n}",
                                           progress=lambda msg, n=n: status.update(f"{n} players: {msg}"))
                results.append({"players": n, "findings": [f.to_json() for f in findings]})
    except SpecRuntimeError as e:
        return _runtime_error(spec, e, err)
    except OSError as e:
        raise OutputError(f"--witness-dir {args.witness_dir}: a witness could not be written: {e.strerror or e}") from None
    every = [f for r in results for f in r["findings"]]
    summary = {k: sum(1 for f in every if f["verdict"] == k) for k in ("proved", "witnessed", "unknown")}
    summary["problems"] = sum(1 for f in every if f["problem"])
    forced = in_force(api.tables(spec, counts[0], params))  # the same at every player count
    if args.json:
        _emit_json({"soan_prove": 1, "spec": {"name": spec.name, "draft": spec.draft, "path": spec.path},
                    "question": args.question, "budget_seconds": args.budget, "games": args.games, "seed": args.seed,
                    "in_force": forced, "results": results, "summary": summary})
    else:
        _print_prove(spec, results, summary, out, forced, params)
    return EXIT_FINDINGS if summary["unknown"] else EXIT_OK


def _print_prove(spec: ir.Spec, results: list[dict], summary: dict, out: Console, forced: dict, params: dict) -> None:
    out.print(f"[bold]{spec.name}[/bold]" + (f", draft {spec.draft}" if spec.draft is not None else ""))
    _print_in_force(out, spec, forced, params)
    t = Table(show_lines=False)
    t.add_column("players", justify="right")
    t.add_column("question")
    t.add_column("verdict")
    t.add_column("answer")
    for r in results:
        for f in r["findings"]:
            verdict = f"[{VERDICT_STYLE[f['verdict']]}]{f['verdict']}[/]" + (" [red](problem)[/red]" if f["problem"] else "")
            t.add_row(str(r["players"]), f["subject"], verdict, f"{f['claim']}\n[dim]{f['detail']}[/dim]")
    out.print(t)
    for r in results:
        for f in r["findings"]:
            if f["witness"] or f["moves"]:
                _print_witness(out, f"{r['players']} players: {f['subject']}", f)
            if f["depends_on"] and f["verdict"] != "unknown":
                out.print(f"  {r['players']} players, {f['subject']}: depends on {', '.join(f['depends_on'])}",
                          style="dim", markup=False)
    out.print(f"\n{summary['proved']} proved, {summary['witnessed']} witnessed ({summary['problems']} problems), "
              f"{summary['unknown']} unknown"
              + ("" if not summary["unknown"] else " — unknown is not a pass: raise --budget or --games"))


def cmd_diff(args, out: Console, err: Console) -> int:
    from soan import diff as sdiff
    from soan.report import diff_html

    old, new = api.load(args.old), api.load(args.new)
    lo, hi = max(old.min_players, new.min_players), min(old.max_players, new.max_players)
    if lo > hi:
        raise UsageError(f"the drafts share no player count ({old.min_players}..{old.max_players} and "
                         f"{new.min_players}..{new.max_players})")
    n = args.players if args.players is not None else lo
    if not lo <= n <= hi:
        raise UsageError(f"--players {n} is not a count both drafts allow ({lo}..{hi})", f"try --players {lo}")
    if args.games < 0:
        raise UsageError(f"--games must be 0 or more, got {args.games}")
    if args.verify_games is not None and not args.verify:
        raise UsageError("--verify-games sets the search of --verify, which is not given", "add --verify")
    if args.verify_games is None:
        args.verify_games = 40
    if args.verify_games < 1:
        raise UsageError(f"--verify-games must be 1 or more, got {args.verify_games}")
    bots = _bots(args.bots, n)
    if args.html:
        check_output_file(args.html, "--html")
    label = lambda s: s.name + (f" draft {s.draft}" if s.draft is not None else "")  # noqa: E731
    rules = sdiff.rules_diff(old, new)
    result = {
        "soan_diff": 2,  # 2: metrics carry Holm-adjusted intervals (interval, level, p, detectable)
        "old": {"path": old.path, "label": label(old)}, "new": {"path": new.path, "label": label(new)},
        "rules": [{**attrs.asdict(r), "diff": r.unified()} for r in rules],
        "facts": {"old": sdiff.static_facts(old, n), "new": sdiff.static_facts(new, n)},
        "in_force": {"old": in_force(api.tables(old, n)), "new": in_force(api.tables(new, n))},
        "play": None,
    }
    if args.games:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        try:
            with Progress(TextColumn("playing both drafts"), BarColumn(), MofNCompleteColumn(), console=err,
                          transient=True, disable=not err.is_terminal) as prog:
                task = prog.add_task("games", total=args.games)
                result["play"] = sdiff.play_diff(api.tables(old, n), api.tables(new, n), args.games, args.seed, bots,
                                                 progress=lambda k: prog.update(task, completed=k))
        except SpecRuntimeError as e:
            return _runtime_error(new, e, err)
    result["verification"] = None
    if args.verify:
        try:
            result["verification"] = sdiff.verification_diff(api.tables(old, n), api.tables(new, n),
                                                              args.verify_games, args.seed)
        except SpecRuntimeError as e:
            return _runtime_error(new, e, err)
    if args.html:
        write_text(args.html, diff_html(result), "--html")
    if args.json:
        _emit_json(result)
        return EXIT_OK
    _print_diff(result, out, old, new)
    _print_verification_diff(result["verification"], out)
    if args.html:
        out.print(f"HTML report written to {args.html}", markup=False)
    return EXIT_OK


def _print_verification_diff(rows, out: Console) -> None:
    if rows is None:
        return
    changed = [r for r in rows if r["changed"]]
    out.print(f"\n[bold]Verification[/bold]: {len(rows)} findings, {len(changed)} differ "
              "(the same fixed search on both drafts)")
    for r in changed:
        show = lambda s: "absent" if s is None else f"{s['verdict']} {s['bounds'] or ''}".strip()  # noqa: E731
        out.print(f"  {r['property']}: {r['subject']}: {show(r['old'])} → {show(r['new'])}", markup=False)
        if r["new"] is not None:
            out.print(f"      {r['new']['claim']}", style="dim", markup=False)


def _print_diff(result: dict, out: Console, old: ir.Spec, new: ir.Spec) -> None:
    out.print(f"[bold]{result['old']['label']} → {result['new']['label']}[/bold]")
    for side, spec in (("old", old), ("new", new)):
        out.print(f"{side}: ", end="", style="dim", markup=False)
        _print_in_force(out, spec, result["in_force"][side], {})
    rules = result["rules"]
    out.print(f"\n[bold]Rules[/bold]: {len(rules)} change{'s' if len(rules) != 1 else ''}"
              + (" (the rules are the same)" if not rules else ""))
    if rules:
        by_cat: dict[str, dict[str, int]] = {}
        for r in rules:
            by_cat.setdefault(r["category"], {}).setdefault(r["status"], 0)
            by_cat[r["category"]][r["status"]] += 1
        out.print("  " + "; ".join(f"{cat}: " + ", ".join(f"{n} {st}" for st, n in sts.items())
                                   for cat, sts in by_cat.items()), markup=False)
    for r in rules:
        mark = {"added": "+", "removed": "-", "changed": "~"}[r["status"]]
        out.print(f"  {mark} {r['category']} [bold]{r['name']}[/bold] {r['status']}"
                  f"  [dim]{r['old_where'] or ''}{' → ' if r['old_where'] and r['new_where'] else ''}{r['new_where'] or ''}[/dim]")
        if r["status"] != "changed":
            continue  # added and removed declarations are named; their text is in --json and --html
        lines = r["diff"].splitlines()[2:]
        for line in lines[:DIFF_LINES]:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
            out.print(f"      {line}", style=style, markup=False)
        if len(lines) > DIFF_LINES:
            out.print(f"      ... {len(lines) - DIFF_LINES} more lines (see --html or --json)", style="dim", markup=False)
    fo, fn = result["facts"]["old"], result["facts"]["new"]
    out.print("\n[bold]Declared bounds[/bold]")
    for k, title in (("score_bound", "score range the items' domains allow"), ("supplies", "token supplies"),
                     ("rounds", "game length")):
        same = fo[k] == fn[k]
        out.print(f"  {title}: {fo[k]}" + ("" if same else f" → {fn[k]}"), markup=False)
    play = result["play"]
    if not play:
        return
    out.print(f"\n[bold]Play[/bold]: {play['games']} games each on seeds {play['seed']}.., {play['players']} players, "
              f"bots {', '.join(play['bots'])}; differences paired by seed on common random numbers")
    out.print(f"  {play['method']}: a change is called only where its interval leaves out zero; intervals are "
              "adjusted for the whole table; 'detectable' is the smallest difference this run would have "
              "caught (80% power)", style="dim", markup=False)
    t = Table()
    for col in ("metric", "old", "new", "difference", "adjusted interval", "", "detectable"):
        t.add_column(col, justify="left" if col in ("metric", "") else "right")
    for m in play["metrics"]:
        verdict = ("[bold red]change[/bold red]" if m["change"] else
                   "[dim]same in every game[/dim]" if m["identical"] else "[dim]no evidence[/dim]")
        t.add_row(m["metric"], f"{m['old']:.3f}", f"{m['new']:.3f}", f"{m['difference']:+.3f}",
                  f"{m['interval'][0]:+.2f}…{m['interval'][1]:+.2f}", verdict,
                  "" if m["detectable"] is None else f"±{m['detectable']:.2f}")
    out.print(t)
    if play["items"]["only_old"] or play["items"]["only_new"]:
        out.print(f"  scoring items only in the old draft: {play['items']['only_old'] or 'none'}; "
                  f"only in the new: {play['items']['only_new'] or 'none'}", markup=False)
    d = play["first_divergence"]
    out.print("\n[bold]First divergence[/bold]")
    if d is None:
        out.print("  no game on these seeds took another course or ended otherwise")
        return
    out.print(f"  seed {d['seed']} ({d['steps']} steps): the accounts part at line {d['event']}", markup=False)
    for line in d["before"]:
        out.print(f"    {line}", style="dim", markup=False)
    out.print("  old:", markup=False)
    for line in d["old"]:
        out.print(f"    {line}", markup=False)
    out.print(f"    scores {d['old_result']}, winners {d['old_winners']}", markup=False)
    out.print("  new:", markup=False)
    for line in d["new"]:
        out.print(f"    {line}", markup=False)
    out.print(f"    scores {d['new_result']}, winners {d['new_winners']}", markup=False)


COMMANDS = {"record": record_cmd.cmd_record, "check": cmd_check, "run": cmd_run, "simulate": cmd_simulate, "replay": cmd_replay, "test": cmd_test,
            "diff": cmd_diff, "verify": cmd_verify, "prove": cmd_prove, "compile": compile_cmd.cmd_compile,
            "sweep": sweep_cmd.cmd_sweep, "rulings": rulings_cmd.cmd_rulings,
            "balance": balance_cmd.cmd_balance}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
