"""`soan replay`: replay a game log and confirm the same course and outcome."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import LOG_FORMAT, in_force

from . import api

from .cmdline import (EXIT_FINDINGS, EXIT_OK, UsageError, _print_in_force,
                      _runtime_error)


def add_parser(sub, common) -> None:
    rp = sub.add_parser("replay", allow_abbrev=False, help="replay a game log and confirm the same outcome")
    rp.add_argument("log", metavar="LOG", help="a log written by soan run --log")
    rp.add_argument("--spec", metavar="SPEC", help="the spec to replay against (default: the path in the log)")
    rp.add_argument("--verbose", "-v", action="store_true", help="tell the game again")
    rp.add_argument("--allow-changed-spec", action="store_true",
                    help="replay even if the spec has changed since the log was written (otherwise exit 1)")


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
