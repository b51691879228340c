"""`soan verify --html FILE`: the verdicts as one self-contained HTML page.

The page holds the verdict table (every finding, its claim and why), the
proved score ranges beside the ranges games reached, one bar per score item,
and each witness: the command that replays it and the account lines around
the moment it shows.  Inline CSS and SVG only, no scripts.
"""

from __future__ import annotations

import html

from . import plots
from .readable import bounds, show

VERDICT_COLOUR = {"proved": "#1a7f37", "witnessed": "#9a6700", "unknown": "#b00020"}
CSS = plots.BASE_CSS + """
.badge{display:inline-block;padding:0 .45rem;border-radius:.6rem;color:#fff;font-size:.85rem;font-weight:600}
.problem{color:#b00020;font-weight:600}.detail{color:#555;font-size:.9rem}
.summary span{margin-right:1.2rem}
"""


def _e(x) -> str:
    return html.escape(str(x))


def _badge(verdict: str) -> str:
    return f"<span class='badge' style='background:{VERDICT_COLOUR.get(verdict, '#555')}'>{_e(verdict)}</span>"


def score_ranges_svg(result: dict, titles: dict[str, str] | None = None) -> str:
    """Proved against witnessed ranges of a player's final score: the total and each score item."""
    titles = titles or {}
    rows = [f for f in result["findings"] if f["property"] == "score" and f["bounds"]
            and "proved" in f["bounds"]]
    if not rows:
        return ""

    def pair(v):
        return None if v is None or v[0] is None or v[1] is None else (v[0], v[1])

    def label(subject: str) -> str:
        if subject == "total":
            return "total score"
        item = subject.removeprefix("item ")
        return subject + (f" · {titles[item]}" if titles.get(item) else "")

    labels = [label(f["subject"]) for f in rows]
    return plots.range_chart(labels, [("proved (every game lies inside)", plots.BLUE,
                                       [pair(f["bounds"]["proved"]) for f in rows]),
                                      ("witnessed (the searched games reached)", plots.ORANGE,
                                       [pair(f["bounds"].get("witnessed")) for f in rows])],
                             title="Final score of one player: proved against witnessed",
                             x_title="final score of one player", x_unit="points", width=760)


def game_moves(log: dict) -> list[str]:
    """A game log's steps as lines: each decision as 'P2: the move', each chance event as the log words it."""
    return [f"P{step['player']}: {step['move']}" if "move" in step else str(step.get("chance", ""))
            for step in log.get("steps", [])]


def verify_html(result: dict, titles: dict[str, str] | None = None, games: dict[str, list[str]] | None = None) -> str:
    """The whole page for one verify result (the --json dict, with in_force).  `titles` gives score items'
    titles; `games` each witness log's moves (game_moves), by the witness's path."""
    games = games or {}
    spec, s, sm = result["spec"], result["search"], result["summary"]
    name = spec["name"] + (f", draft {spec['draft']}" if spec["draft"] is not None else "")
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>soan verify: {_e(name)}, {result['players']} players</title><style>{CSS}</style></head><body>",
           f"<h1>What can happen in {_e(name)}: {result['players']} players</h1>",
           f"<p>{_e(spec['path'])}: searched {s['games']} games from seed {s['seed']} in {s['seconds']:.1f} s.</p>"]
    if s.get("stopped_by_wall_clock"):
        out.append(f"<p class='problem'>The wall-clock limit of {result['budget_seconds']:.0f} s cut the search short: "
                   "these verdicts may differ on a faster or less busy machine.</p>")
    forced = result.get("in_force") or {}
    if forced:
        out.append("<p class='detail'>In force: " + _e(", ".join(f"{k} = {show(v)}" for k, v in forced.items()))
                   + "</p>")
    out.append(f"<p class='summary'><span>{_badge('proved')} {sm['proved']}</span>"
               f"<span>{_badge('witnessed')} {sm['witnessed']} ({sm['problems']} problem"
               f"{'s' if sm['problems'] != 1 else ''})</span><span>{_badge('unknown')} {sm['unknown']}</span></p>")
    if sm["unknown"]:
        out.append("<p class='problem'>Unknown is not a pass: raise --games or --budget, or read the details.</p>")
    plot = score_ranges_svg(result, titles)
    if plot:
        out.append("<h2>Score ranges</h2>")
        out.append(plots.figure(plot, "Blue: the range z3 proves for every game at this player count (a bound may "
                                      "lie above what play can reach). Orange: the lowest and highest score the "
                                      "searched games reached. A gap between them is reported, never hidden."))
    out.append("<h2>Verdicts</h2><table><tr><th>property</th><th>subject</th><th>verdict</th><th>claim and why</th>"
               "<th>depends on</th></tr>")
    for k, f in enumerate(result["findings"]):
        why = f"<div class='detail'>{_e(f['detail'])}</div>" if f["detail"] else ""
        nums = bounds(f["bounds"])
        if nums:
            why += f"<div class='detail'>{_e(nums)}</div>"
        if f["witness"] or f["moves"]:
            why += f"<div class='detail'><a href='#w{k}'>the witness</a></div>"
        out.append(f"<tr><td>{_e(f['property'])}</td><td>{_e(f['subject'])}</td><td>{_badge(f['verdict'])}"
                   + (" <span class='problem'>problem</span>" if f["problem"] else "")
                   + f"</td><td>{_e(f['claim'])}{why}</td><td>{_e(show(f['depends_on'], ''))}</td></tr>")
    out.append("</table>")
    witnessed = [(k, f) for k, f in enumerate(result["findings"]) if f["witness"] or f["moves"]]
    if witnessed:
        out.append("<h2>Witnesses</h2><p>Each is a real game, replayed before it was reported; the command "
                   "replays it again.</p>")
    for k, f in witnessed:
        out.append(f"<h3 id='w{k}'>{_e(f['property'])}: {_e(f['subject'])} {_badge(f['verdict'])}"
                   + (" <span class='problem'>problem</span>" if f["problem"] else "") + "</h3>")
        out.append(f"<p>{_e(f['claim'])}</p>")
        if f["witness"]:
            out.append(f"<pre>soan replay {_e(f['witness'])}</pre>")
        if f["moves"]:
            out.append("<p>Around the moment:</p><pre>" + _e("\n".join(f["moves"])) + "</pre>")
        steps = games.get(f["witness"]) if f["witness"] else None
        if steps:
            out.append(f"<details><summary>Every step of the game ({len(steps)}: decisions and chance events)"
                       "</summary><ol>" + "".join(f"<li>{_e(line)}</li>" for line in steps) + "</ol></details>")
    out.append("<p class='same'>Made by soan verify.</p></body></html>\n")
    return "\n".join(out)
