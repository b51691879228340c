"""Comparing two drafts: in the rules (declarations matched by name), in play
(the same seeds and bots on both, differences with confidence intervals), in
static facts, and the first game that takes another course.

Numbers in play are compared game by game on the same seed (paired), and
both drafts draw from the same per-purpose random streams (common random
numbers: the same shuffles, rolls and bot choices wherever the change does not
reach), so the luck of the deal cancels.  All the metrics of one diff are one
family: Holm's step-down method keeps the chance of any false "change" among
them at 5% or less, and each interval is drawn at the level its metric was
tested at.  Where there is no evidence, the smallest effect the run could have
detected says how much "no evidence" is worth.
"""

from __future__ import annotations

import difflib
import functools
from typing import Callable

import attrs

from soan import stats
from soan.dsl import ir
from soan.dsl.parser import split_top_level
from soan.interpreter.play import parallel_map, play_game
from soan.interpreter.runtime import Tables

# ---- rules ---------------------------------------------------------------------------------------

CATEGORIES = [
    ("enum", "enums"), ("component", "components"), ("cards", "card_sets"), ("zone", "zones"), ("variable", "vars"),
    ("token", "tokens"), ("score item", "scores"), ("option", "options"), ("assumption", "assumptions"),
    ("open ruling", "rulings"), ("def", "defs"), ("procedure", "procedures"), ("example", "examples"),
    ("question", "questions"),  # invariants too: both are the designer's questions, matched by name
]
SECTIONS = ["setup", "rounds", "scoring", "winner"]


@attrs.frozen
class RuleChange:
    category: str
    name: str
    status: str  # added | removed | changed
    old_where: str | None
    new_where: str | None
    old_text: str
    new_text: str

    def unified(self) -> str:
        return "".join(difflib.unified_diff(self.old_text.splitlines(keepends=True), self.new_text.splitlines(keepends=True),
                                            fromfile=self.old_where or "(none)", tofile=self.new_where or "(none)", n=2))


def _key(node) -> str:
    if isinstance(node, ir.CardSet):
        return node.kind
    return node.name  # an example's name is its title, with its resolutions (`with`) when it has any


def _declaration_text(spec: ir.Spec, node: ir.Node) -> tuple[str, str]:
    """The whole top-level declaration a node stands in, and where."""
    span = node.span
    path = span.path or spec.path
    text = spec.text_of(path)
    best = None
    for start, chunk in split_top_level(text):
        if start <= span.line:
            best = (start, chunk)
    if best is None:
        return "", f"{path}:{span.line}"
    start, chunk = best
    # a declaration's text ends at its last line of code: comments and blank lines after it belong to the next one
    lines = chunk.rstrip().splitlines()
    while lines and lines[-1].lstrip().startswith("#"):
        lines.pop()
    return "\n".join(lines) + "\n", f"{path}:{start}"


def _var_text(spec: ir.Spec, v: ir.Var) -> tuple[str, str]:
    path = v.span.path or spec.path
    lines = spec.text_of(path).splitlines()
    line = lines[v.span.line - 1] if 0 < v.span.line <= len(lines) else v.name
    return ("player " if v.per_player else "global ") + line.strip() + "\n", f"{path}:{v.span.line}"


def rules_diff(old: ir.Spec, new: ir.Spec) -> list[RuleChange]:
    changes: list[RuleChange] = []
    meta_old = (old.name, old.draft, old.min_players, old.max_players)
    meta_new = (new.name, new.draft, new.min_players, new.max_players)
    if meta_old != meta_new:
        fmt = lambda m: f'game "{m[0]}" draft {m[1]} players {m[2]}..{m[3]}\n'  # noqa: E731
        changes.append(RuleChange("game", "metadata", "changed", old.path, new.path, fmt(meta_old), fmt(meta_new)))
    for category, field in CATEGORIES:
        olds = {_key(n): n for n in getattr(old, field)}
        news = {_key(n): n for n in getattr(new, field)}
        text = _var_text if field == "vars" else _declaration_text
        for name in list(olds) + [n for n in news if n not in olds]:
            a, b = olds.get(name), news.get(name)
            if a is not None and b is not None and a == b:
                continue
            ta, wa = text(old, a) if a is not None else ("", None)
            tb, wb = text(new, b) if b is not None else ("", None)
            status = "added" if a is None else "removed" if b is None else "changed"
            changes.append(RuleChange(category, name, status, wa, wb, ta, tb))
    for section in SECTIONS:
        a, b = getattr(old, section), getattr(new, section)
        if a == b:
            continue
        ta, wa = _declaration_text(old, a) if a is not None else ("", None)
        tb, wb = _declaration_text(new, b) if b is not None else ("", None)
        status = "added" if a is None else "removed" if b is None else "changed"
        changes.append(RuleChange("section", section, status, wa, wb, ta, tb))
    return changes


# ---- static facts ----------------------------------------------------------------------------------


def static_facts(spec: ir.Spec, players: int) -> dict:
    """Bounds the spec declares, worked out for a player count: the highest
    and lowest total its score items' domains allow, each token supply, and
    every ranking with its tie fallback."""
    tables = Tables(spec, players)
    hi = lo = 0
    bounded = True
    for s in spec.scores:
        if isinstance(s.domain, ir.IntDomain):
            hi += s.domain.hi
            lo += s.domain.lo
        else:
            bounded = False
    supplies = {name: tables.supply_size(name) for name in tables.tokens}
    rankings = sorted({f"{n.kind} … else {n.fallback} (line {n.span.line})" for n in _all_nodes(spec)
                       if isinstance(n, ir.Ranking)})
    if spec.winner is not None:
        rankings.append(f"winner … else {spec.winner.fallback} (line {spec.winner.span.line})")
    return {"score_bound": [lo, hi] if bounded else None, "supplies": supplies, "rankings": rankings,
            "rounds": _rounds_text(spec)}


def _rounds_text(spec: ir.Spec) -> str:
    r = spec.rounds
    if r is None:
        return "none"
    if r.count is not None:
        return f"fixed: {_show(r.count)} rounds"
    return f"until a condition, capped at {_show(r.cap)} rounds"


def _show(e) -> str:
    return str(e.value) if isinstance(e, ir.Int) else "an expression"


def _all_nodes(spec: ir.Spec):
    roots = [d.body for d in spec.defs] + [p.body for p in spec.procedures]
    roots += [x for x in (spec.setup, spec.rounds, spec.scoring) if x is not None]
    for root in roots:
        yield from ir.walk(root)


# ---- verification -------------------------------------------------------------------------------


VERIFY_WALL_CLOCK = 180.0  # seconds per draft, soan verify's default --budget


def verification_diff(old_t: Tables, new_t: Tables, games: int, seed: int, jobs: int = 1) -> list[dict]:
    """soan verify on both drafts with the same fixed search, matched by
    property and subject: each verdict and its bounds side by side."""
    from soan.verify.properties import verify

    # the work is `games`; the wall clock only an outer limit, as in soan verify (0 seconds would search nothing)
    a = verify(old_t, VERIFY_WALL_CLOCK, seed, max_games=games, jobs=jobs)
    b = verify(new_t, VERIFY_WALL_CLOCK, seed, max_games=games, jobs=jobs)
    key = lambda f: (f["property"], f["subject"])  # noqa: E731
    olds = {key(f): f for f in a["findings"]}
    news = {key(f): f for f in b["findings"]}
    rows = []
    for k in list(olds) + [k for k in news if k not in olds]:
        fa, fb = olds.get(k), news.get(k)
        side = lambda f: None if f is None else {"verdict": f["verdict"], "claim": f["claim"],  # noqa: E731
                                                  "bounds": f["bounds"], "problem": f["problem"]}
        sa, sb = side(fa), side(fb)
        changed = sa is None or sb is None or (sa["verdict"], sa["bounds"], sa["claim"]) != (
            sb["verdict"], sb["bounds"], sb["claim"])
        rows.append({"property": k[0], "subject": k[1], "old": sa, "new": sb, "changed": changed})
    return rows


# ---- play --------------------------------------------------------------------------------------------


def _game_metrics(rec, scores: list[str]) -> dict:
    res = rec.result
    n = rec.log["players"]
    seats = [f"P{i + 1}" for i in range(n)]
    m = {"mean score": sum(res["scores"].values()) / n,
         "decisions": float(sum(1 for s in rec.log["steps"] if "move" in s)),
         "rounds": float(res["rounds"]),
         "draw": 1.0 if res["draw"] else 0.0,
         "eliminations": float(len(res["eliminated"]))}
    for s in seats:
        m[f"win rate {s}"] = (1.0 / len(res["winners"])) if (s in res["winners"] and not res["draw"]) else 0.0
    for item in scores:
        m[f"points: {item}"] = sum(res["breakdown"][s][item] for s in seats) / n
    return m


def play_diff(old_t: Tables, new_t: Tables, games: int, seed: int, bots: list[str],
              progress: Callable[[int], None] | None = None, jobs: int = 1) -> dict:
    """Both drafts on seeds seed..seed+games-1 with the same bots; paired
    differences per metric; the first game whose course or outcome differs.
    With `jobs` > 1 the seeds are played in that many processes and taken in
    seed order, so the result is the same for any number of jobs."""
    items = [s for s in old_t.scores if s in new_t.scores]
    only_old = [s for s in old_t.scores if s not in new_t.scores]
    only_new = [s for s in new_t.scores if s not in old_t.scores]
    per_metric: dict[str, list[tuple[float, float]]] = {}
    old_scores, new_scores = [], []
    old_items_all = {s: 0.0 for s in old_t.scores}
    new_items_all = {s: 0.0 for s in new_t.scores}
    divergence = None
    pair = functools.partial(_paired_game, old_t, new_t, bots, items)
    for s, (ma, mb, scores_a, scores_b, items_a, items_b, d, steps) in zip(
            range(seed, seed + games), parallel_map(pair, range(seed, seed + games), jobs, progress)):
        for k in ma:
            per_metric.setdefault(k, []).append((ma[k], mb[k]))
        old_scores.extend(scores_a)
        new_scores.extend(scores_b)
        for it in old_t.scores:
            old_items_all[it] += items_a[it]
        for it in new_t.scores:
            new_items_all[it] += items_b[it]
        if d is not None and (divergence is None or steps < divergence["steps"]):
            divergence = {**d, "seed": s, "steps": steps}
    metrics = compare_metrics(per_metric)
    return {
        "games": games, "seed": seed, "bots": bots, "players": old_t.n,
        "method": f"{stats.HOLM}: family-wise error {stats.ALPHA:.0%} over {len(metrics)} metrics",
        "metrics": metrics,
        "scores": {"old": old_scores, "new": new_scores},
        "items": {"old": {k: round(v / games, 3) for k, v in old_items_all.items()},
                  "new": {k: round(v / games, 3) for k, v in new_items_all.items()},
                  "only_old": only_old, "only_new": only_new},
        "first_divergence": divergence,
        "differing_games": sum(1 for k, pairs in per_metric.items() if k == "mean score" for p in pairs if p[0] != p[1]),
    }


def is_share(metric: str) -> bool:
    """A metric that is a share of games (a draw, a seat's wins): printed as a percentage."""
    return metric == "draw" or metric.startswith("win rate ")


def _paired_game(old_t: Tables, new_t: Tables, bots: list[str], items: list[str], s: int) -> tuple:
    """One seed played on both drafts, reduced to what play_diff sums up (small enough to send between
    processes): each side's metrics, scores and items per player, where the accounts part (or None),
    and the old game's length in steps."""
    a = play_game(old_t, s, bots, narrate=True)
    b = play_game(new_t, s, bots, narrate=True)
    items_a = {it: sum(a.result["breakdown"][p][it] for p in a.result["breakdown"]) / old_t.n for it in old_t.scores}
    items_b = {it: sum(b.result["breakdown"][p][it] for p in b.result["breakdown"]) / new_t.n for it in new_t.scores}
    d = None if _course(a) == _course(b) and a.result == b.result else first_divergence(a, b)
    return (_game_metrics(a, items), _game_metrics(b, items), list(a.result["scores"].values()),
            list(b.result["scores"].values()), items_a, items_b, d, len(a.log["steps"]))


def compare_metrics(per_metric: dict[str, list[tuple[float, float]]], alpha: float = stats.ALPHA) -> list[dict]:
    """Paired tests of every metric as one family (Holm): each metric's means,
    difference, interval at its Holm level, whether it is a change, and, where
    it is not, the smallest difference the run would have detected (80% power).
    A share keeps six decimals, so one game in thousands never reads 0."""
    tests = {k: stats.paired([b - a for a, b in pairs]) for k, pairs in per_metric.items()}
    verdicts = stats.holm([t["p"] for t in tests.values()], alpha)
    out = []
    for (k, pairs), (change, level) in zip(per_metric.items(), verdicts):
        t = tests[k]
        lo, hi = stats.interval(t, level)
        identical = all(a == b for a, b in pairs)
        d = 6 if is_share(k) else 3
        out.append({"metric": k, "old": round(sum(p[0] for p in pairs) / len(pairs), d),
                    "new": round(sum(p[1] for p in pairs) / len(pairs), d), "difference": round(t["mean"], d),
                    "interval": [round(lo, d), round(hi, d)], "level": level, "p": t["p"], "change": change,
                    "identical": identical, "share": is_share(k),
                    "detectable": None if change or identical else round(stats.detectable(t, level), d)})
    return out


def metric_cells(m: dict) -> tuple[str, str, str, str, str]:
    """A metric's old, new, difference, interval and detectable difference as printed: a share as a
    percentage (never "0%" for what happened) and its differences in percentage points."""
    if m.get("share"):
        def pts(x: float) -> str:
            if 0 < abs(x) < 0.0005:  # would round to 0.0
                return f"{'+' if x > 0 else '-'}<0.1 pt"
            return f"{100 * x:+.1f} pt"

        return (stats.pct(m["old"], 1), stats.pct(m["new"], 1), pts(m["difference"]),
                f"{pts(m['interval'][0])}…{pts(m['interval'][1])}",
                "" if m["detectable"] is None else f"±{100 * m['detectable']:.1f} pt")
    return (f"{m['old']:.3f}", f"{m['new']:.3f}", f"{m['difference']:+.3f}",
            f"{m['interval'][0]:+.2f}…{m['interval'][1]:+.2f}",
            "" if m["detectable"] is None else f"±{m['detectable']:.2f}")


def _course(rec) -> list:
    """A game's course: its decisions and chance outcomes, less shuffles that left a zone as it lay (a
    shuffle of a zone untouched since its last shuffle reuses the same draw: soan/interpreter/streams.py)."""
    return [s for s in rec.log["steps"]
            if not ("chance" in s and isinstance(s["outcome"], list) and s["outcome"] == sorted(s["outcome"]))]


def first_divergence(a, b) -> dict | None:
    """Where two narrated games of the same seed and bots part: the first
    event (a move, a chance outcome, a score, a token, an elimination) that
    differs, with a little of what came before and each side's next events."""
    ea, eb = a.state.events, b.state.events
    from soan.api import narrate  # the account a designer reads

    la, lb = narrate(a.state), narrate(b.state)
    if ea == eb and a.result == b.result:
        return None
    k = 0
    while k < min(len(la), len(lb)) and la[k] == lb[k]:
        k += 1
    return {"event": k, "before": la[max(0, k - 4):k], "old": la[k:k + 6], "new": lb[k:k + 6],
            "old_result": a.result["scores"], "new_result": b.result["scores"],
            "old_winners": a.result["winners"], "new_winners": b.result["winners"]}
