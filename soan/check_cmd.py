"""`soan check`: parse and check specs; list their assumptions and open rulings."""

from __future__ import annotations


from rich.console import Console
from rich.markup import escape

from soan.dsl import ir
from soan.dsl.errors import SpecErrors

from . import api

from .cmdline import (EXIT_OK, EXIT_USAGE, _emit_json)


def add_parser(sub, common) -> None:
    c = sub.add_parser("check", allow_abbrev=False, help="parse and check specs; list assumptions and open rulings")
    c.add_argument("specs", nargs="+", metavar="SPEC")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.add_argument("--brief", action="store_true", help="list rulings and assumptions by name only, grouped by the draft section")


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
