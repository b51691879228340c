"""The diff report as one self-contained HTML file: inline CSS and SVG plots,
no scripts and nothing fetched, so a designer can mail it to a co-designer."""

from __future__ import annotations

import html
from collections import Counter

from soan.diff import metric_cells

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:70rem;color:#222;padding:0 1rem}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0}td,th{padding:.25rem .6rem;border-bottom:1px solid #eee;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.change{color:#b00020;font-weight:600}.same{color:#888}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;font-size:.85rem}.add{color:#116611}.del{color:#b00020}
.legend span{display:inline-block;width:.9rem;height:.9rem;margin:0 .3rem 0 1rem;vertical-align:middle}
.cols{display:flex;gap:2rem;flex-wrap:wrap}
"""
OLD, NEW = "#7a9cc6", "#e07b39"


def _e(x) -> str:
    return html.escape(str(x))


def histogram_svg(old: list[int], new: list[int], width: int = 640, height: int = 220) -> str:
    """Score distributions side by side: for each score, an old and a new bar."""
    if not old and not new:
        return ""
    lo, hi = min(old + new), max(old + new)
    co, cn = Counter(old), Counter(new)
    no, nn = max(len(old), 1), max(len(new), 1)
    top = max([co[v] / no for v in co] + [cn[v] / nn for v in cn] + [1e-9])
    span = hi - lo + 1
    slot = (width - 40) / span
    bars = []
    for i, v in enumerate(range(lo, hi + 1)):
        x = 30 + i * slot
        for j, (c, n, colour) in enumerate(((co, no, OLD), (cn, nn, NEW))):
            h = (c[v] / n) / top * (height - 40)
            bars.append(f'<rect x="{x + j * slot / 2:.1f}" y="{height - 20 - h:.1f}" width="{max(slot / 2 - 1, 1):.1f}" '
                        f'height="{h:.1f}" fill="{colour}"><title>{v}: {c[v]} of {n}</title></rect>')
    ticks = []
    step = max(1, span // 12)
    for v in range(lo, hi + 1, step):
        x = 30 + (v - lo) * slot + slot / 2
        ticks.append(f'<text x="{x:.1f}" y="{height - 5}" font-size="10" text-anchor="middle">{v}</text>')
    return (f'<svg width="{width}" height="{height}" role="img" aria-label="score distributions">'
            f'<line x1="30" y1="{height - 20}" x2="{width - 10}" y2="{height - 20}" stroke="#999"/>'
            + "".join(bars) + "".join(ticks) + "</svg>")


def items_svg(old: dict, new: dict, width: int = 640) -> str:
    """Mean points per player for each scoring item, old and new side by side."""
    names = list(dict.fromkeys(list(old) + list(new)))
    if not names:
        return ""
    vals = [v for d in (old, new) for v in d.values()] + [0]
    lo, hi = min(vals), max(vals)
    rng = (hi - lo) or 1
    row = 34
    height = row * len(names) + 20
    left, right = 170, width - 20
    zero = left + (0 - lo) / rng * (right - left)
    parts = [f'<line x1="{zero:.1f}" y1="0" x2="{zero:.1f}" y2="{height - 10}" stroke="#999"/>']
    for i, name in enumerate(names):
        y = i * row + 6
        parts.append(f'<text x="{left - 6}" y="{y + 16}" font-size="12" text-anchor="end">{_e(name)}</text>')
        for j, (d, colour) in enumerate(((old, OLD), (new, NEW))):
            if name not in d:
                continue
            v = d[name]
            x1 = left + (min(v, 0) - lo) / rng * (right - left)
            w = abs(v) / rng * (right - left)
            parts.append(f'<rect x="{x1:.1f}" y="{y + j * 13}" width="{max(w, 1):.1f}" height="12" fill="{colour}">'
                         f'<title>{_e(name)}: {v}</title></rect>')
    return f'<svg width="{width}" height="{height}" role="img" aria-label="points per scoring item">{"".join(parts)}</svg>'


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
    for r in rules:
        lines = []
        for line in r["diff"].splitlines():
            cls = "add" if line.startswith("+") and not line.startswith("+++") else \
                "del" if line.startswith("-") and not line.startswith("---") else ""
            lines.append(f"<span class='{cls}'>{_e(line)}</span>" if cls else _e(line))
        out.append(f"<h3>{_e(r['category'])} {_e(r['name'])} ({_e(r['status'])})</h3><pre>" + "\n".join(lines) + "</pre>")
    # static facts
    facts = result["facts"]
    out.append("<h2>Declared bounds</h2><table><tr><th>fact</th><th>old</th><th>new</th></tr>")
    for k in ("score_bound", "supplies", "rounds"):
        a, b = facts["old"].get(k), facts["new"].get(k)
        cls = "change" if a != b else "same"
        out.append(f"<tr><td>{_e(k)}</td><td>{_e(a)}</td><td class='{cls}'>{_e(b)}</td></tr>")
    out.append("</table>")
    # verification
    rows = result.get("verification")
    if rows is not None:
        changed = [r for r in rows if r["changed"]]
        out.append(f"<h2>Verification: {len(changed)} of {len(rows)} findings differ</h2>"
                   "<table><tr><th>property</th><th>subject</th><th>old</th><th>new</th></tr>")
        show = lambda s: "absent" if s is None else f"{s['verdict']} {s['bounds'] or ''}"  # noqa: E731
        for r in changed:
            out.append(f"<tr><td>{_e(r['property'])}</td><td>{_e(r['subject'])}</td><td>{_e(show(r['old']))}</td>"
                       f"<td class='change'>{_e(show(r['new']))}</td></tr>")
        out.append("</table>")
    # play
    play = result.get("play")
    if play:
        out.append(f"<h2>Play: {play['games']} games each, {play['players']} players, seeds {play['seed']}…, "
                   f"bots {_e(', '.join(play['bots']))}</h2>")
        out.append(f"<div class='legend'><span style='background:{OLD}'></span>old<span style='background:{NEW}'>"
                   f"</span>new</div><div class='cols'><div><h3>Final scores</h3>"
                   f"{histogram_svg(play['scores']['old'], play['scores']['new'])}</div>"
                   f"<div><h3>Points per scoring item (mean per player)</h3>"
                   f"{items_svg(play['items']['old'], play['items']['new'])}</div></div>")
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
                       + _e("\n".join(d["old"])) + f"\n\nscores {_e(d['old_result'])}</pre></div><div><h3>new</h3><pre>"
                       + _e("\n".join(d["new"])) + f"\n\nscores {_e(d['new_result'])}</pre></div></div>")
    out.append("<p class='same'>Made by soan diff.</p></body></html>\n")
    return "\n".join(out)
