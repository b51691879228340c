"""`soan diff`: compare two drafts in rules, declared bounds and play."""

from __future__ import annotations


import attrs
from rich.console import Console
from rich.table import Table

from soan.dsl import ir
from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import in_force

from . import api
from .files import check_output_file, write_text

from .cmdline import (EXIT_OK, UsageError, _bots, _emit_json, _print_in_force,
                      _runtime_error)


def add_parser(sub, common) -> None:
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


DIFF_LINES = 24  # lines of one declaration's diff shown in the terminal


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
    from soan.diff import metric_cells

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
        old_v, new_v, diff, interval, det = metric_cells(m)
        t.add_row(m["metric"], old_v, new_v, diff, interval, verdict, det)
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
