"""The `soan` command line.

Exit codes: 0 ok; 1 failed examples, a replay that does not match, or
findings; 2 a bad command line or a bad spec (located, with a hint, never a
traceback).
"""

from __future__ import annotations

import argparse
import difflib
import math
import os
import sys
import threading


from soan.dsl.errors import SpecErrors
from soan.dsl.limits import RECURSION_LIMIT, STACK_BYTES

from . import api
from . import balance as balance_cmd
from . import check_cmd, compile_cmd, diff_cmd, lsp_cmd, prove_cmd, replay_cmd, run_cmd, simulate_cmd, test_cmd, verify_cmd
from . import completion as completion_cmd
from . import init_cmd, play_cmd
from . import record as record_cmd
from . import rulebook as rulebook_cmd
from . import rulings as rulings_cmd
from . import sweep as sweep_cmd
from .cmdline import (  # noqa: F401 - re-exported: commands and tests import these from soan.cli
    DEFAULT_VERIFY_GAMES, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, FAIL_ON, PROPERTY_NAMES, UsageError, _bots, _budget,
    _emit_json, _params, _players, _runtime_error)
from .console import PipeClosed, make_console, silence_stdout
from .files import OutputError

# Each command is a module with add_parser(sub, common) and its command function; this is the order of `soan --help`.
COMMAND_MODULES = {"check": check_cmd, "run": run_cmd, "simulate": simulate_cmd, "replay": replay_cmd, "diff": diff_cmd,
                   "verify": verify_cmd, "prove": prove_cmd, "record": record_cmd, "compile": compile_cmd,
                   "sweep": sweep_cmd, "rulings": rulings_cmd, "play": play_cmd, "rulebook": rulebook_cmd,
                   "init": init_cmd, "completion": completion_cmd, "lsp": lsp_cmd, "balance": balance_cmd,
                   "test": test_cmd}
COMMANDS = {name: getattr(m, f"cmd_{name}") for name, m in COMMAND_MODULES.items()}


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

    for module in COMMAND_MODULES.values():
        module.add_parser(sub, common)
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


























































if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
