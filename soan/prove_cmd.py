"""`soan prove`: answer one question about every game (can / always)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from soan.dsl import ir
from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import in_force

from . import api
from .files import OutputError, check_output_dir

from .cmdline import (EXIT_FINDINGS, EXIT_OK, VERDICT_STYLE,
                      UsageError, _budget, _emit_json, _NoStatus, _params, _players, _print_in_force,
                      _print_witness, _runtime_error)


def add_parser(sub, common) -> None:
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
