"""soan rulings: which open rulings (and valued assumptions) matter, ranked.

Each game that reads a ruling is played again under every other resolution on
common random numbers (soan/impact.py); the table ranks the rulings by how
often the winner flips, then by how far scores move.
"""

from __future__ import annotations

import html
from pathlib import Path

from soan import api, plots, stats
from soan.dsl.errors import SpecRuntimeError
from soan.console import stage_progress

DEFAULT_GAMES = 200
DEFAULT_BUDGET = 300_000  # engine steps, base games and replays together: within 90 s per spec and count here


def add_parser(sub, common) -> None:
    r = sub.add_parser("rulings", allow_abbrev=False,
                       help="which open rulings matter: each one's other resolutions played on the same games, ranked")
    common(r)
    r.add_argument("--games", "-n", type=int, default=DEFAULT_GAMES, metavar="N",
                   help=f"games at the spec's resolutions (default {DEFAULT_GAMES}; fewer if the budget runs out)")
    r.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="STEPS",
                   help=f"engine steps for all games, replays included (default {DEFAULT_BUDGET:,})")
    r.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="first seed (default 0)")
    r.add_argument("--bots", "-b", default="random", metavar="B1,B2,...", help="bot per seat (default random)")
    r.add_argument("--logs", default="soan-rulings", metavar="DIR",
                   help="where the two logs of each first winner flip are written (default soan-rulings/)")
    r.add_argument("--json", action="store_true", help="machine-readable output")
    r.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page with a plot per ruling")
    from .cmdline import _add_jobs

    _add_jobs(r, "the games")


def cmd_rulings(args, out, err) -> int:
    from soan import impact

    from .cli import EXIT_OK, UsageError, _bots, _params, _players, _runtime_error
    from .cmdline import _jobs

    spec = api.load(args.spec)
    n = _players(spec, args)
    params = _params(spec, args)
    bots = _bots(args.bots, n, spec)
    if args.games < 1:
        raise UsageError(f"--games must be 1 or more, got {args.games}")
    if args.budget < 1:
        raise UsageError(f"--budget must be 1 or more engine steps, got {args.budget}")
    jobs = _jobs(args)
    try:
        with stage_progress(err) as progress:
            result = impact.analyse(spec, n, args.games, args.seed, bots, params, args.budget,
                                    Path(args.logs), progress, jobs=jobs)
    except SpecRuntimeError as e:
        return _runtime_error(spec, e, err)
    if args.html:
        Path(args.html).write_text(rulings_html(result), encoding="utf-8")
    if args.json:
        from .cli import _emit_json

        _emit_json(result)
        return EXIT_OK
    for line in table_lines(result):
        out.print(line, markup=False, soft_wrap=True)
    if args.html:
        out.print(f"HTML page written to {args.html}", markup=False)
    return EXIT_OK


def _share(x: float, interval) -> str:
    return f"{stats.pct(x)} ({stats.pct(interval[0])}–{stats.pct(interval[1])})"


def _largest_shift(a: dict) -> str:
    if not a["score_shift"]:
        return ""
    seat, s = max(a["score_shift"].items(), key=lambda kv: (abs(kv[1]["mean"]), kv[0]))
    return f"{seat} {s['mean']:+.2f} ({s['interval'][0]:+.2f}…{s['interval'][1]:+.2f})"


def table_lines(result: dict) -> list[str]:
    """The ranked table as plain text lines, with what it means."""
    spec = result["spec"]
    title = spec["name"] + (f" draft {spec['draft']}" if spec["draft"] is not None else "")
    lines = [f"Open rulings and valued assumptions of {title}, {result['players']} players: "
             f"{result['games']} games on seeds {result['seed']}.., bots {', '.join(result['bots'])}"]
    if result["games"] < result["games_asked"]:
        lines.append(f"  (the budget of {result['budget_steps']:,} engine steps allowed {result['games']} of the "
                     f"{result['games_asked']} games asked for; raise it with --budget)")
    lines.append("  every game that read a ruling was played again under each other resolution on the same seed: "
                 "the same shuffles, rolls and bot choices wherever still legal")
    head, rows = table_rows(result)
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head)]
    fmt = lambda cells: "  " + "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    lines.append(fmt(head))
    lines.append(fmt(["-" * w for w in widths]))
    lines.extend(fmt(row) for row in rows)
    return lines + notes_lines(result)


TABLE_HEAD = ["#", "ruling", "read (95%)", "changed", "alternative", "winner flips (95%)", "largest score shift (95%)",
              "rounds", "verdict"]


def table_rows(result: dict) -> tuple[list[str], list[list[str]]]:
    """The ranked table's heading and rows: one row per other resolution, the ruling named on its first."""
    head = TABLE_HEAD
    rows = []
    for k, r in enumerate(result["ranked"], start=1):
        first = True
        alts = r["alternatives"] or [None]
        for a in alts:
            subject = [str(k), r["name"] + (" (assumption)" if r["kind"] == "assumption" else ""),
                       _share(r["read_share"], r["read_interval"]),
                       stats.pct(r["matters"] / r["games"]) if r["games"] else "—"] if first else ["", "", "", ""]
            if a is None:
                rows.append(subject + ["(no other value)", "", "", "", ""])
            elif "failure" in a:
                rows.append(subject + [f"= {a['value']}", "", "", "", f"the rules fail: {a['failure']}"])
            else:
                flips = _share(a["flip_share"], a["flip_interval"]) if r["replayed"] else "—"
                rows.append(subject + [f"= {a['value']}", flips, _largest_shift(a) if r["replayed"] else "—",
                                       f"{a['rounds_shift']['mean']:+.2f}", a["verdict"]])
            first = False
    return head, rows


def notes_lines(result: dict) -> list[str]:
    """What follows the table: moot and unread rulings, the first flipped games, how to read it."""
    lines = []
    if result["moot"]:
        lines.append("Proved moot (no rule of the spec reads them; no resolution can change a game):")
        for r in result["moot"]:
            lines.append(f"  {r['name']}" + (" (assumption)" if r["kind"] == "assumption" else ""))
    unread = [r for r in result["ranked"] if r["read"] == 0]
    if unread:
        lines.append("Never read in these games (not proved moot: the rules can read them):")
        for r in unread:
            lines.append(f"  {r['name']}: read in at most {stats.pct(r['read_interval'][1])} of games (95%)")
    shown = [r for r in result["ranked"] if r.get("witness") and r["witness"]["shows"] != "read"]
    if shown:
        lines.append("Where each one matters: the shortest game whose scores or winner (else course) another "
                     "resolution changes; play it both ways with soan run:")
        from soan.impact import shown as value

        rules = "".join(f" --rule {k}={value(v)}" for k, v in result["params"].items())
        for r in shown:
            w = r["witness"]
            lines.append(f"  {r['name']} = {w['value']}: seed {w['seed']} changes its "
                         f"{'scores or winner' if w['shows'] == 'result' else 'course only'}: soan run "
                         f"{result['spec']['path']} --players {result['players']} --seed {w['seed']} "
                         f"--bots {','.join(result['bots'])}{rules} --rule {r['name']}={w['value']}")
    flips = [(r, a) for r in result["ranked"] for a in r["alternatives"] if a.get("first_flip")]
    if flips:
        lines.append("First (shortest) game where the winner flips, and where the two accounts part:")
        for r, a in flips:
            f = a["first_flip"]
            lines.append(f"  {r['name']} = {a['value']}: seed {f['seed']} ({f['steps']} steps): winners "
                         f"{', '.join(f['winners'][0]) or 'none'} → {', '.join(f['winners'][1]) or 'none'}"
                         + (f"; accounts part at line {f['part_at']}" if f["part_at"] is not None else ""))
            for line in f["current_lines"][:3]:
                lines.append(f"      now:         {line.strip()}")
            for line in f["alternative_lines"][:3]:
                lines.append(f"      alternative: {line.strip()}")
            if f["logs"]:
                lines.append(f"      logs: {f['logs'][0]}  {f['logs'][1]}  (soan replay LOG)")
    lines.append("How to read it: 'read' is the share of games whose course consulted the ruling (a tie-break "
                 "only when it orders players tied for first); 'changed' the share of games some other resolution "
                 "changes (course or result): read and mattering; 'winner flips' is the share of all games whose "
                 "winner changes under that resolution; shifts are paired means with 95% intervals; "
                 "'no evidence' means games changed but no shift the intervals can tell from zero; a ruling never "
                 "read says nothing about its impact.")
    return lines


# ---- HTML ---------------------------------------------------------------------------------------------


def _e(x) -> str:
    return html.escape(str(x))


def overview_svg(result: dict) -> str:
    """For each ruling's other resolution: the share of games whose winner flips and of games that change at all."""
    rows = [(f"{r['name']} = {a['value']}", a) for r in result["ranked"] for a in r["alternatives"]
            if "failure" not in a]
    if not rows:
        return ""
    n = max(result["games"], 1)
    svg = plots.hbar_chart([label for label, _ in rows],
                           [("winner flips", plots.VERMILION, [100 * a["flip_share"] for _, a in rows]),
                            ("game changes (course or result)", plots.BLUE,
                             [100 * a["changed_games"] / n for _, a in rows])],
                           title="What each other resolution does to the same games",
                           x_title="share of all games played", x_unit="%")
    return plots.figure(svg, f"Each bar is measured on the same {result['games']} seeds as the spec's own "
                             "resolutions; the table below gives the 95% intervals.")


def _table_html(result: dict) -> str:
    head, rows = table_rows(result)
    numeric = {0, 2, 3, 5, 6, 7}
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td class='n'>{_e(c)}</td>" if i in numeric else f"<td>{_e(c)}</td>"
                                    for i, c in enumerate(row)) + "</tr>")
    return "".join(out) + "</table>"


def rulings_html(result: dict) -> str:
    spec = result["spec"]
    title = spec["name"] + (f" draft {spec['draft']}" if spec["draft"] is not None else "")
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>Open rulings of {_e(title)}</title><style>{plots.BASE_CSS}.flip{{color:#b00020;font-weight:600}}"
           "</style></head><body>",
           f"<h1>Which open rulings matter: {_e(title)}, {result['players']} players</h1>",
           f"<p>{result['games']} games on seeds {result['seed']}…, bots {_e(', '.join(result['bots']))}. Each game "
           "that read a ruling was played again under every other resolution on the same seed (the same shuffles, "
           "rolls and bot choices wherever still legal). Plots: each seat's score shift and each scoring item's "
           "shift per player, mean and 95% interval; red where the interval leaves out zero.</p>",
           (f"<p>The budget of {result['budget_steps']:,} engine steps allowed {result['games']} of the "
            f"{result['games_asked']} games asked for; raise it with --budget.</p>"
            if result["games"] < result["games_asked"] else ""),
           overview_svg(result), _table_html(result),
           "<pre class='wrap'>" + _e("\n".join(notes_lines(result))) + "</pre>"]
    for k, r in enumerate(result["ranked"], start=1):
        out.append(f"<h2>{k}. {_e(r['name'])} <small>({_e(r['kind'])}, now {_e(r['current'])})</small></h2>")
        out.append(f"<p>{_e(r['text'])}" + (f" <i>({_e(r['cite'])})</i>" if r["cite"] else "") + "</p>")
        out.append(f"<p>Read in {_share(r['read_share'], r['read_interval'])} of games.</p>")
        for a in r["alternatives"]:
            if "failure" in a:
                out.append(f"<h3>= {_e(a['value'])}: the rules cannot be carried out ({_e(a['failure'])})</h3>")
                continue
            cls = " class='flip'" if a["flips"] else ""
            out.append(f"<h3>= {_e(a['value'])}: <span{cls}>{_e(a['verdict'])}</span>, winner flips in "
                       f"{_share(a['flip_share'], a['flip_interval'])}</h3>")
            rows = [(f"score of {p}", s["mean"], *s["interval"]) for p, s in a["score_shift"].items()]
            rows += [(f"item {it} (per player)", s["mean"], *s["interval"]) for it, s in a["item_shift"].items()]
            rs = a["rounds_shift"]
            out.append(plots.figure(
                plots.interval_chart(rows, title=f"{r['name']} = {a['value']}: shift against {r['current']}",
                                     x_title="mean shift per game, 95% interval", x_unit="points"),
                f"Paired on the same {a['games']} seeds. Game length shifts by {rs['mean']:+.2f} rounds "
                f"({rs['interval'][0]:+.2f} to {rs['interval'][1]:+.2f})."))
    if result["moot"]:
        out.append("<h2>Proved moot</h2><ul>" + "".join(f"<li>{_e(r['name'])}: {_e(r['moot_reason'])}</li>"
                                                       for r in result["moot"]) + "</ul>")
    out.append("</body></html>\n")
    return "\n".join(out)
