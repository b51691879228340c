"""`soan balance`: a balance report for the designer, every figure with its
95% interval.

It plays `--games` games with strong bots in every seat (by default ISMCTS,
interpreter/mcts.py, whose work is a fixed number of playouts a decision) and
reports: the win rate by seat against the fair share; the points each scoring
item gives and how often it gives any at all (a mechanism nobody uses); the
spread of the final scores and how often the lead changes hands; the game's
length.  Then each strategy the spec declares (and any bot named with
`--strategies`) plays `--games` more games, one seat each (the seat going
round), against the strong bots: a strategy that wins more than its fair
share with the whole interval above it is dominant.

Budgets are work (games, playouts), never seconds, so the figures are the same
on any machine and for any number of processes.
"""

from __future__ import annotations

import html
import json
import math
import sys

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.evaluate import evaluator
from soan.interpreter.play import _can_fork, default_jobs, play_game
from soan.stats import pct, t_quantile, wilson

from . import api, plots

DEFAULT_GAMES = 30
# The default strong bot: ISMCTS whose playouts a decision are set so that one game's search plays about
# GAME_WORK decisions in all (playouts x depth x the game's decisions), the game's length read from a few
# random games on fixed seeds.  A long game gets fewer playouts a decision and the report stays affordable;
# all of it is work, never time, so the same spec gets the same bots everywhere.
GAME_WORK = 40_000
DEPTH = 10
PLAYOUTS = (6, 200)
LENGTH_GAMES = 3


def add_parser(sub, common) -> None:
    b = sub.add_parser("balance", allow_abbrev=False,
                       help="play many games with strong bots; win rate by seat, scoring items, strategies, with intervals")
    common(b)
    b.add_argument("-n", "--games", type=int, default=DEFAULT_GAMES, metavar="GAMES",
                   help=f"games for the seat figures, and again for each strategy (default {DEFAULT_GAMES})")
    b.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="first seed (default 0)")
    b.add_argument("--bots", "-b", default=None, metavar="B1,B2,...",
                   help=f"the strong bots: one per seat, the last fills the rest (default mcts:P:{DEPTH}, ISMCTS with "
                        f"P playouts a decision, each {DEPTH} decisions deep, P chosen so that a game's search plays "
                        f"about {GAME_WORK:,} decisions: the longer the game, the fewer playouts)")
    b.add_argument("--strategies", default="", metavar="S1,S2,...",
                   help="bots to test against the strong ones besides the spec's own strategies (e.g. greedy,random)")
    b.add_argument("--json", action="store_true", help="machine-readable output")
    b.add_argument("--html", metavar="FILE", help="also write the report as one self-contained HTML page with plots")
    b.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                   help="processes (default: all cores; the same report for any N)")


# ---- playing -----------------------------------------------------------------------------------


def _game(tables, seed: int, bots: list[str]) -> dict:
    """What the report keeps of one game."""
    ev = evaluator(tables)
    leader = [None, 0, -1]  # the seat leading alone, lead changes, the round last looked at

    def on_step(st):
        if st.round != leader[2] and not st.is_terminal():
            leader[2] = st.round
            place, _ = ev._places(st.clone())  # a copy: reading the keys must not count as the game reading a ruling
            first = [i for i, p in enumerate(place) if p == 0]
            if len(first) == 1 and first[0] != leader[0]:
                if leader[0] is not None:
                    leader[1] += 1
                leader[0] = first[0]

    rec = play_game(tables, seed, bots, on_step=on_step)
    res = rec.result
    return {"result": res, "decisions": sum(1 for s in rec.log["steps"] if "move" in s), "lead_changes": leader[1]}


_WORK = None


def _play(task):
    tables = _WORK
    seed, bots = task
    try:
        return _game(tables, seed, bots)
    except SpecRuntimeError as e:
        return {"error": (e.message, e.span, e.hint)}


def play_all(tables, tasks: list[tuple[int, list[str]]], jobs: int, progress=None) -> list[dict]:
    """Every (seed, bots) game's summary, in task order, in `jobs` processes."""
    global _WORK
    _WORK = tables
    out: list[dict] = []
    try:
        if jobs <= 1 or len(tasks) < 2 or not _can_fork():
            for task in tasks:
                out.append(_play(task))
                if progress:
                    progress(len(out))
        else:
            import multiprocessing

            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                for r in pool.imap(_play, tasks):  # in task order, whatever order they finish in
                    out.append(r)
                    if progress:
                        progress(len(out))
    finally:
        _WORK = None
    for r in out:
        if "error" in r:
            raise SpecRuntimeError(*r["error"])
    return out


# ---- figures ------------------------------------------------------------------------------------


def mean_interval(xs: list[float]) -> dict:
    """Mean and its 95% Student-t interval (not below 0 for values that never are)."""
    n = len(xs)
    m = sum(xs) / n if n else 0.0
    if n < 2:
        return {"mean": _r(m), "lo": _r(m), "hi": _r(m), "n": n}
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    half = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
    lo = m - half
    if lo < 0 <= min(xs):  # counts and lengths are never negative, whatever a few games' interval says
        lo = 0.0
    return {"mean": _r(m), "lo": _r(lo), "hi": _r(m + half), "n": n}


def share_interval(k: float, n: int) -> dict:
    """A share (k may be fractional: a shared win counts 1/k) and its 95% Wilson interval."""
    lo, hi = wilson(k, n)
    return {"rate": _r(k / n if n else 0.0), "lo": _r(lo), "hi": _r(hi), "n": n}


def _r(x: float) -> float:
    return round(x, 4)


def win_shares(res: dict, n: int) -> list[float]:
    """Each seat's share of one game's win: 1/k for each of k winners, nothing in a draw."""
    out = [0.0] * n
    if res["winners"] and not res["draw"]:
        for w in res["winners"]:
            out[int(w[1:]) - 1] += 1 / len(res["winners"])
    return out


def summarise(tables, games: list[dict], bots: list[str]) -> dict:
    n = tables.n
    g = len(games)
    fair = 1 / n
    wins = [0.0] * n
    for gm in games:
        for i, s in enumerate(win_shares(gm["result"], n)):
            wins[i] += s
    seats = []
    for i in range(n):
        w = share_interval(wins[i], g)
        seats.append({"seat": f"P{i + 1}", "bot": bots[i], "win": w,
                      "verdict": "above fair share" if w["lo"] > fair else "below fair share" if w["hi"] < fair else "fair"})
    items = {}
    for item in tables.scores:
        pts = [gm["result"]["breakdown"][f"P{i + 1}"][item] for gm in games for i in range(n)]
        items[item] = {"points": mean_interval(pts), "scores_at_all": share_interval(sum(1 for p in pts if p), len(pts)),
                       "min": min(pts, default=0), "max": max(pts, default=0)}
    spread = [max(gm["result"]["scores"].values()) - min(gm["result"]["scores"].values()) for gm in games]
    return {
        "games": g,
        "fair_share": _r(fair),
        "seats": seats,
        "draws": share_interval(sum(1 for gm in games if gm["result"]["draw"]), g),
        "no_winner": share_interval(sum(1 for gm in games if not gm["result"]["winners"]), g),
        "items": items,
        "score": mean_interval([v for gm in games for v in gm["result"]["scores"].values()]),
        "spread": mean_interval(spread),
        "lead_changes": mean_interval([gm["lead_changes"] for gm in games]),
        "length": {"rounds": mean_interval([gm["result"]["rounds"] for gm in games]),
                   "decisions": mean_interval([gm["decisions"] for gm in games])},
    }


def balance(tables, games: int, seed: int, bots: list[str], strategies: list[str], jobs: int = 1,
            progress=None) -> dict:
    """The whole report as data (what --json prints)."""
    n = tables.n
    tasks = [(seed + k, list(bots)) for k in range(games)]
    for s in strategies:  # seat k % n plays the strategy in game k, on the same seeds as the strong games
        for k in range(games):
            seat = k % n
            tasks.append((seed + k, [s if i == seat else bots[i] for i in range(n)]))
    results = play_all(tables, tasks, jobs, progress)
    main = summarise(tables, results[:games], bots)
    fair = 1 / n
    rows = []
    for j, s in enumerate(strategies):
        part = results[games * (j + 1):games * (j + 2)]
        won = sum(win_shares(gm["result"], n)[k % n] for k, gm in enumerate(part))
        w = share_interval(won, games)
        strong_won = sum(win_shares(gm["result"], n)[k % n] for k, gm in enumerate(results[:games]))
        rows.append({"strategy": s, "text": _strategy_text(tables.spec, s), "win": w,
                     "strong_in_same_seats": share_interval(strong_won, games),
                     "verdict": ("dominant: wins more than its fair share" if w["lo"] > fair else
                                 "weak: wins less than its fair share" if w["hi"] < fair else
                                 "no evidence either way")})
    spec = tables.spec
    return {"spec": spec.name, "draft": spec.draft, "players": n, "games": games, "seed": seed, "bots": bots,
            "budget": f"{games} games with {', '.join(dict.fromkeys(bots))}"
                      + (f", then {games} for each of {len(strategies)} strategies" if strategies else ""),
            **main, "strategies": rows}


def default_bot(tables) -> str:
    """The default strong bot for these tables (see GAME_WORK)."""
    decisions = [sum(1 for s in play_game(tables, 10_000 + k, ["random"] * tables.n).log["steps"] if "move" in s)
                 for k in range(LENGTH_GAMES)]
    per_game = max(1, sum(decisions) // len(decisions))
    playouts = max(PLAYOUTS[0], min(PLAYOUTS[1], GAME_WORK // (per_game * DEPTH)))
    return f"mcts:{playouts}:{DEPTH}"


def _strategy_text(spec, name: str) -> str:
    for st in getattr(spec, "strategies", ()):
        if st.name == name:
            return st.text
    return "a built-in bot"


# ---- the command ----------------------------------------------------------------------------------


def cmd_balance(args, out, err) -> int:
    from .cmdline import EXIT_OK, UsageError, _bots, _params, _players, _runtime_error  # the command line's shared checks
    from .files import check_output_file, write_text

    spec = api.load(args.spec)
    n = _players(spec, args)
    params = _params(spec, args)
    bots = _bots(args.bots, n, spec) if args.bots is not None else None
    if args.games < 1:
        raise UsageError(f"--games must be 1 or more, got {args.games}")
    declared = [st.name for st in getattr(spec, "strategies", ())]
    extra = [s.strip() for s in args.strategies.split(",") if s.strip()]
    for s in extra:
        problem = api.bot_problem(s, spec)
        if problem:
            raise UsageError(problem[0], problem[1])
    strategies = list(dict.fromkeys(declared + extra))
    if args.html:
        check_output_file(args.html, "--html")
    tables = api.tables(spec, n, params)
    if bots is None:
        try:
            bots = [default_bot(tables)] * n
        except SpecRuntimeError as e:
            return _runtime_error(spec, e, err)
    total = args.games * (1 + len(strategies))
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    try:
        with Progress(TextColumn("balance: games"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err, transient=True, disable=args.json and not err.is_terminal) as prog:
            task = prog.add_task("games", total=total)
            rep = balance(tables, args.games, args.seed, bots, strategies,
                          jobs=args.jobs if args.jobs > 0 else default_jobs(),
                          progress=lambda k: prog.update(task, completed=k))
    except SpecRuntimeError as e:
        return _runtime_error(spec, e, err)
    if args.html:
        write_text(args.html, to_html(rep), "--html")
    if args.json:
        sys.stdout.write(json.dumps(rep, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    print_report(rep, out)
    if args.html:
        out.print(f"HTML report: {args.html}", markup=False)
    return EXIT_OK


def _iv(d: dict, fmt=lambda x: f"{x:.1f}") -> str:
    return f"{fmt(d['mean'])} [{fmt(d['lo'])}, {fmt(d['hi'])}]"


def _range(item: dict) -> str:
    return f"{item['min']}..{item['max']}"


def _sh(d: dict) -> str:
    return f"{pct(d['rate'])} [{pct(d['lo'])}, {pct(d['hi'])}]"


def print_report(rep: dict, out) -> None:
    from rich.table import Table

    draft = f" draft {rep['draft']}" if rep["draft"] is not None else ""
    out.print(f"{rep['spec']}{draft} — {rep['players']} players; {rep['budget']}; seeds from {rep['seed']}", markup=False)
    out.print("Every figure: estimate [95% interval].", markup=False)
    t = Table(title=f"Win rate by seat (fair share {pct(rep['fair_share'])})", title_justify="left")
    for col in ("seat", "bot", "win rate", "verdict"):
        t.add_column(col)
    for s in rep["seats"]:
        t.add_row(s["seat"], s["bot"], _sh(s["win"]), s["verdict"])
    out.print(t)
    if rep["draws"]["rate"] or rep["no_winner"]["rate"]:
        out.print(f"draws {_sh(rep['draws'])}; games with no winner {_sh(rep['no_winner'])}", markup=False)
    t = Table(title="Scoring items (per player per game)", title_justify="left")
    for col in ("item", "mean points", "scores at all", "range"):
        t.add_column(col)
    for name, it in rep["items"].items():
        note = "  never" if it["scores_at_all"]["rate"] == 0 else ""
        t.add_row(name, _iv(it["points"], lambda x: f"{x:.2f}"), _sh(it["scores_at_all"]) + note, f"{it['min']}..{it['max']}")
    out.print(t)
    out.print(f"final score {_iv(rep['score'])}; spread (top minus bottom) {_iv(rep['spread'])}; "
              f"lead changes between rounds {_iv(rep['lead_changes'])}", markup=False)
    out.print(f"length: rounds {_iv(rep['length']['rounds'])}, decisions {_iv(rep['length']['decisions'])}", markup=False)
    if rep["strategies"]:
        t = Table(title="Strategies against the strong bots (one seat each, the seat going round)", title_justify="left")
        for col in ("strategy", "win rate", "strong bot, same seats", "verdict"):
            t.add_column(col)
        for s in rep["strategies"]:
            t.add_row(s["strategy"], _sh(s["win"]), _sh(s["strong_in_same_seats"]), s["verdict"])
        out.print(t)
    else:
        out.print("The spec declares no strategies (strategy NAME \"text\" { prefer ... }); --strategies greedy,random "
                  "tests built-in bots.", markup=False)


# ---- HTML ---------------------------------------------------------------------------------------------


def _bars(title: str, labels: list[str], values: list[float], los: list[float], his: list[float], axis: str,
          ref: float | None = None, ref_label: str = "", as_pct: bool = False) -> str:
    """A horizontal bar chart as inline SVG: a bar per label, its 95% interval as a whisker, axes and a title."""
    left, right, top, row = 170, 40, 40, 26
    width = 640
    height = top + row * len(labels) + 40
    hi = max([*his, *values, ref or 0, 1e-9])
    lo = min([*los, *values, 0])
    span = (hi - lo) or 1.0
    x = lambda v: left + (v - lo) / span * (width - left - right)  # noqa: E731
    fmt = (lambda v: f"{v:.0%}") if as_pct else (lambda v: f"{v:g}")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="{html.escape(title)}">',
             f'<text x="{width / 2}" y="18" text-anchor="middle" font-weight="bold">{html.escape(title)}</text>']
    for k, (lab, v, a, b) in enumerate(zip(labels, values, los, his)):
        y = top + k * row
        x0, x1 = x(min(0, v)), x(max(0, v))
        parts.append(f'<text x="{left - 6}" y="{y + 15}" text-anchor="end">{html.escape(lab)}</text>')
        parts.append(f'<rect x="{x0:.1f}" y="{y + 4}" width="{max(1.0, x1 - x0):.1f}" height="{row - 10}" fill="#7aa6c2"/>')
        parts.append(f'<line x1="{x(a):.1f}" x2="{x(b):.1f}" y1="{y + row / 2 - 1}" y2="{y + row / 2 - 1}" stroke="#222"/>')
        for e in (a, b):
            parts.append(f'<line x1="{x(e):.1f}" x2="{x(e):.1f}" y1="{y + 7}" y2="{y + row - 9}" stroke="#222"/>')
    base = top + row * len(labels)
    parts.append(f'<line x1="{left}" x2="{width - right}" y1="{base}" y2="{base}" stroke="#000"/>')
    parts.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{base}" stroke="#000"/>')
    if lo < 0 < hi:
        parts.append(f'<line x1="{x(0):.1f}" x2="{x(0):.1f}" y1="{top}" y2="{base}" stroke="#888"/>')
    for v in _ticks(lo, hi):
        parts.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{base}" y2="{base + 5}" stroke="#000"/>')
        parts.append(f'<text x="{x(v):.1f}" y="{base + 18}" text-anchor="middle" font-size="11">{fmt(v)}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{base + 34}" text-anchor="middle" font-size="12">'
                 f'{html.escape(axis)}</text>')
    if ref is not None:
        parts.append(f'<line x1="{x(ref):.1f}" x2="{x(ref):.1f}" y1="{top - 4}" y2="{base}" stroke="#c33" '
                     f'stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{x(ref) + 4:.1f}" y="{top - 6}" font-size="11" fill="#c33">{html.escape(ref_label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _ticks(lo: float, hi: float) -> list[float]:
    """Round tick values (steps of 1, 2 or 5 times a power of ten) from lo to hi, at most seven of them."""
    span = hi - lo
    if span <= 0:
        return [lo]
    mag = 10.0 ** (math.floor(math.log10(span)) - 1)
    step = next(m * mag for m in (1, 2, 5, 10, 20, 50, 100) if span / (m * mag) <= 6)
    first = math.ceil(lo / step - 1e-9) * step
    out, v = [], first
    while v <= hi + 1e-9:
        out.append(round(v, 10))
        v += step
    return out


def to_html(rep: dict) -> str:
    """The report as one page: tables and inline SVG plots, no scripts, nothing fetched."""
    e = html.escape
    draft = f" draft {rep['draft']}" if rep["draft"] is not None else ""
    title = f"soan balance: {rep['spec']}{draft}, {rep['players']} players"
    seats = rep["seats"]
    items = rep["items"]
    charts = [
        _bars("Win rate by seat", [f"{s['seat']} ({s['bot']})" for s in seats], [s["win"]["rate"] for s in seats],
              [s["win"]["lo"] for s in seats], [s["win"]["hi"] for s in seats], "share of games won (95% interval)",
              rep["fair_share"], "fair share", as_pct=True),
        _bars("Points per scoring item", list(items), [v["points"]["mean"] for v in items.values()],
              [v["points"]["lo"] for v in items.values()], [v["points"]["hi"] for v in items.values()],
              "mean points per player per game (95% interval)"),
        _bars("How often each item scores at all", list(items), [v["scores_at_all"]["rate"] for v in items.values()],
              [v["scores_at_all"]["lo"] for v in items.values()], [v["scores_at_all"]["hi"] for v in items.values()],
              "share of player-games with any points from it (95% interval)", as_pct=True),
    ]
    if rep["strategies"]:
        st = rep["strategies"]
        charts.append(_bars("Strategies against the strong bots", [s["strategy"] for s in st],
                            [s["win"]["rate"] for s in st], [s["win"]["lo"] for s in st], [s["win"]["hi"] for s in st],
                            "share of games won in one seat (95% interval)", rep["fair_share"], "fair share",
                            as_pct=True))
    rows = lambda cells: "".join(f"<td>{e(str(c))}</td>" for c in cells)  # noqa: E731
    seat_rows = "".join(f"<tr>{rows([s['seat'], s['bot'], _sh(s['win']), s['verdict']])}</tr>" for s in seats)
    item_rows = "".join(f"<tr>{rows([k, _iv(v['points'], lambda x: f'{x:.2f}'), _sh(v['scores_at_all']), _range(v)])}</tr>"
                        for k, v in items.items())
    strat_rows = "".join(f"<tr>{rows([s['strategy'], s['text'], _sh(s['win']), _sh(s['strong_in_same_seats']), s['verdict']])}</tr>"
                         for s in rep["strategies"])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>
<style>{plots.BASE_CSS}svg{{display:block;margin:1em 0}}</style></head>
<body><h1>{e(title)}</h1>
<p>{e(rep['budget'])}; seeds from {rep['seed']}. Every figure: estimate [95% interval].</p>
<h2>Seats</h2><table><tr><th>seat</th><th>bot</th><th>win rate</th><th>verdict</th></tr>{seat_rows}</table>
{charts[0]}
<h2>Scoring items</h2><table><tr><th>item</th><th>mean points</th><th>scores at all</th><th>range</th></tr>{item_rows}</table>
{charts[1]}
{charts[2]}
<h2>The game</h2><p>final score {e(_iv(rep['score']))}; spread (top minus bottom) {e(_iv(rep['spread']))};
lead changes between rounds {e(_iv(rep['lead_changes']))}; rounds {e(_iv(rep['length']['rounds']))};
decisions {e(_iv(rep['length']['decisions']))}</p>
<h2>Strategies</h2>{'<table><tr><th>strategy</th><th>what it does</th><th>win rate</th><th>strong bot, same seats</th><th>verdict</th></tr>' + strat_rows + '</table>' if rep['strategies'] else '<p>none declared</p>'}
{charts[3] if len(charts) > 3 else ''}
</body></html>
"""
