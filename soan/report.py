"""The diff report as one self-contained HTML file: inline CSS and SVG plots,
no scripts and nothing fetched, so a designer can mail it to a co-designer."""

from __future__ import annotations

import html

from soan.diff import metric_cells

from . import plots
from .readable import bounds as bounds_text, show, span

CSS = plots.BASE_CSS
OLD, NEW = plots.BLUE, plots.ORANGE


def _e(x) -> str:
    return html.escape(str(x))


def histogram_svg(old: list[int], new: list[int], old_label: str = "old", new_label: str = "new") -> str:
    """Final scores of every player in every game, old and new side by side, as shares of games."""
    return plots.histogram([(old_label, OLD, old), (new_label, NEW, new)], title="Final scores",
                           x_title="final score of a player (points)", y_title="share of players' results",
                           width=560)


def items_svg(old: dict, new: dict, old_label: str = "old", new_label: str = "new",
              titles: dict[str, str] | None = None) -> str:
    """Mean points per player for each scoring item, old and new side by side (an item a draft lacks has no bar)."""
    names = list(dict.fromkeys(list(old) + list(new)))
    titles = titles or {}
    labels = [n + (f" · {titles[n]}" if titles.get(n) else "") for n in names]
    return plots.hbar_chart(labels, [(old_label, OLD, [old.get(n) for n in names]),
                                    (new_label, NEW, [new.get(n) for n in names])],
                            title="Points per scoring item", x_title="mean points per player per game",
                            x_unit="points", width=560)


FACTS = (("score_bound", "score range the items' domains allow",
          lambda b: span(b) if b else "no bound (a scoring item declares no range)"), ("supplies", "token supplies", show),
         ("rounds", "game length", show))


def diff_html(result: dict) -> str:
    old, new = result["old"], result["new"]
    out = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>soan diff: {_e(old['label'])} → "
           f"{_e(new['label'])}</title><style>{CSS}</style></head><body>",
           f"<h1>{_e(old['label'])} → {_e(new['label'])}</h1>",
           f"<p>{_e(old['path'])} → {_e(new['path'])}</p>"]
    # rules
    rules = result["rules"]
    out.append(f"<h2>Rules: {len(rules)} change{'s' if len(rules) != 1 else ''}</h2>")
    if not rules:
        out.append("<p class='same'>The two drafts have the same rules.</p>")
    out.append("<table><tr><th>what</th><th>name</th><th>change</th><th>old</th><th>new</th></tr>")
    for r in rules:
        out.append(f"<tr><td>{_e(r['category'])}</td><td><b>{_e(r['name'])}</b></td><td>{_e(r['status'])}</td>"
                   f"<td>{_e(r['old_where'] or '—')}</td><td>{_e(r['new_where'] or '—')}</td></tr>")
    out.append("</table>")
    if rules:
        out.append("<p class='same'><a href='#rules-in-full'>Each change in full</a> is at the end of the page.</p>")
    # play
    play = result.get("play")
    if play:
        out.append(f"<h2>Play: {play['games']} games each, {play['players']} players, seeds {play['seed']}…, "
                   f"bots {_e(', '.join(play['bots']))}</h2>")
        ol, nl = f"old: {old['label']}", f"new: {new['label']}"
        out.append("<div class='cols'>"
                   + plots.figure(histogram_svg(play['scores']['old'], play['scores']['new'], ol, nl),
                                  f"Every player's final score in {play['games']} games per draft, as a share of "
                                  "all players' results.")
                   + plots.figure(items_svg(play['items']['old'], play['items']['new'], ol, nl,
                                            result.get("item_titles")),
                                  "Mean points per player per game from each scoring item.") + "</div>")
        out.append(f"<p class='same'>{_e(play['method'])}; intervals adjusted for the whole table; 'detectable' is "
                   "the smallest difference this run would have caught (80% power).</p>")
        out.append("<table><tr><th>metric</th><th>old</th><th>new</th><th>difference</th><th>adjusted interval</th>"
                   "<th></th><th>detectable</th></tr>")
        for m in play["metrics"]:
            verdict = ("<span class='change'>change</span>" if m["change"] else
                       "<span class='same'>same in every game</span>" if m["identical"] else
                       "<span class='same'>no evidence</span>")
            old_v, new_v, diff, interval, det = metric_cells(m)
            out.append(f"<tr><td>{_e(m['metric'])}</td><td class='n'>{_e(old_v)}</td><td class='n'>{_e(new_v)}</td>"
                       f"<td class='n'>{_e(diff)}</td><td class='n'>{_e(interval)}</td><td>{verdict}</td>"
                       f"<td class='n'>{_e(det)}</td></tr>")
        out.append("</table>")
        d = play.get("first_divergence")
        out.append("<h2>First divergence</h2>")
        if d is None:
            out.append("<p class='same'>No game on these seeds took another course or ended otherwise.</p>")
        else:
            out.append(f"<p>Seed {d['seed']} ({d['steps']} steps), at event {d['event']} of the account.</p>"
                       "<pre>" + _e("\n".join(d["before"])) + "</pre><div class='cols'><div><h3>old</h3><pre>"
                       + _e("\n".join(d["old"])) + f"\n\nscores {_e(show(d['old_result']))}; winners "
                       f"{_e(show(d['old_winners']))}</pre></div><div><h3>new</h3><pre>"
                       + _e("\n".join(d["new"])) + f"\n\nscores {_e(show(d['new_result']))}; winners "
                       f"{_e(show(d['new_winners']))}</pre></div></div>")
    # verification
    rows = result.get("verification")
    if rows is not None:
        changed = [r for r in rows if r["changed"]]
        out.append(f"<h2>Verification: {len(changed)} of {len(rows)} findings differ</h2>"
                   "<table><tr><th>property</th><th>subject</th><th>old</th><th>new</th></tr>")
        show_v = lambda s: "absent" if s is None else f"{s['verdict']} {bounds_text(s['bounds'])}".strip()  # noqa: E731
        for r in changed:
            out.append(f"<tr><td>{_e(r['property'])}</td><td>{_e(r['subject'])}</td><td>{_e(show_v(r['old']))}</td>"
                       f"<td class='change'>{_e(show_v(r['new']))}</td></tr>")
        out.append("</table>")
    # static facts
    facts = result["facts"]
    out.append("<h2>Declared bounds</h2><table><tr><th>fact</th><th>old</th><th>new</th></tr>")
    for k, title, fmt in FACTS:
        a, b = facts["old"].get(k), facts["new"].get(k)
        cls = "change" if a != b else "same"
        out.append(f"<tr><td>{_e(title)}</td><td>{_e(fmt(a))}</td><td class='{cls}'>{_e(fmt(b))}</td></tr>")
    out.append("</table>")
    # the declarations' own text last: long, and read after the summary above
    if rules:
        out.append("<h2 id='rules-in-full'>Rule changes in full</h2>")
    for r in rules:
        lines = []
        for line in r["diff"].splitlines():
            cls = "add" if line.startswith("+") and not line.startswith("+++") else \
                "del" if line.startswith("-") and not line.startswith("---") else ""
            lines.append(f"<span class='{cls}'>{_e(line)}</span>" if cls else _e(line))
        out.append(f"<h3>{_e(r['category'])} {_e(r['name'])} ({_e(r['status'])})</h3><pre class='wrap'>"
                   + "\n".join(lines) + "</pre>")
    out.append("<p class='same'>Made by soan diff.</p></body></html>\n")
    return "\n".join(out)
