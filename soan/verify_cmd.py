"""`soan verify`: prove or witness what can happen in every game of a draft."""

from __future__ import annotations

import difflib
from pathlib import Path

from rich.console import Console
from rich.table import Table

from soan.dsl import ir
from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import in_force

from . import api
from .files import OutputError, check_output_dir

from .cmdline import (DEFAULT_VERIFY_GAMES, EXIT_FINDINGS, EXIT_OK, FAIL_ON, PROPERTY_NAMES, VERDICT_STYLE,
                      UsageError, _emit_json, _NoStatus, _params, _players, _print_in_force,
                      _print_witness, _runtime_error)


def add_parser(sub, common) -> None:
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
