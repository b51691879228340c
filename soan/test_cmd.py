"""`soan test`: run the examples written in specs, and their playthroughs."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from soan.dsl.errors import SpecErrors

from . import api
from . import record as record_cmd

from .cmdline import (EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError, _emit_json)


def add_parser(sub, common) -> None:
    t = sub.add_parser("test", allow_abbrev=False,
                       help="run the examples written in specs, and their playthroughs (tests/playthroughs/, next to the spec)")
    t.add_argument("specs", nargs="+", metavar="SPEC", help="a .soan spec, or a .playthrough file")
    t.add_argument("--json", action="store_true", help="machine-readable output")


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
