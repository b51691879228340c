"""Small, self-contained SVG plots shared by every HTML report (diff, rulings, verify).

Each plot is inline SVG with no script and nothing fetched, so a report stays
one file a designer can mail.  Every plot has a title, labelled axes with
units, tick marks with numbers, gridlines and a legend drawn inside the SVG
(so a screenshot or a printout keeps it); every mark carries a tooltip with
its exact number.  Text uses a font stack that holds Japanese glyphs on
Linux, macOS and Windows, so a draft's Japanese titles never show as boxes.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from typing import Sequence

from .readable import num

# Japanese-capable faces first (Linux: fonts-noto-cjk; macOS: Hiragino; Windows: Yu Gothic, Meiryo),
# then the platform's own sans-serif for Latin text.
FONT_STACK = ("'Noto Sans CJK JP', 'Noto Sans JP', 'Hiragino Sans', 'Hiragino Kaku Gothic ProN', 'Yu Gothic', "
              "'Meiryo', system-ui, -apple-system, 'Segoe UI', sans-serif")

# Colour-blind-safe pairs (Okabe–Ito): the first two mark old/new or proved/witnessed everywhere.
BLUE, ORANGE, GREEN, VERMILION, GREY, SKY = "#0072b2", "#e69f00", "#009e73", "#d55e00", "#777777", "#56b4e9"

BASE_CSS = f"""
body{{font-family:{FONT_STACK};margin:2rem auto;max-width:72rem;color:#222;padding:0 1rem;line-height:1.45}}
h1{{font-size:1.6rem}}h2{{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd}}h3{{font-size:1.05rem}}
table{{border-collapse:collapse;margin:.5rem 0}}td,th{{padding:.25rem .6rem;border-bottom:1px solid #eee;text-align:left;
vertical-align:top}}th{{background:#f6f8fa}}
td.n{{text-align:right;font-variant-numeric:tabular-nums}}.change{{color:#b00020;font-weight:600}}.same{{color:#777}}
pre{{background:#f6f8fa;padding:.6rem;overflow-x:auto;font-size:.85rem}}pre.wrap{{white-space:pre-wrap}}.add{{color:#116611}}.del{{color:#b00020}}
.cols{{display:flex;gap:2rem;flex-wrap:wrap}}figure{{margin:1rem 0}}figcaption{{color:#555;font-size:.9rem;max-width:44rem}}
svg text{{font-family:{FONT_STACK}}}
"""

AXIS = "#444"
GRID = "#e3e3e3"
FONT = 12


def esc(x) -> str:
    return html.escape(str(x))


def text_width(s: str, size: int = FONT) -> float:
    """A rough width in pixels: wide (CJK) characters take about a full em, others about 0.6 of one."""
    return sum(size * (1.0 if ord(ch) >= 0x2E80 else 0.6) for ch in str(s))


def fit_text(s: str, room: float, size: int = FONT) -> str:
    """`s` cut at the end with an ellipsis so that its rough width is at most `room` pixels."""
    s = str(s)
    if text_width(s, size) <= room:
        return s
    while s and text_width(s + "…", size) > room:
        s = s[:-1]
    return s.rstrip() + "…"


def ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """Round tick values (1, 2, 2.5, 5 times a power of ten) covering lo..hi."""
    if hi <= lo:
        lo, hi = lo - 1, hi + 1
    raw = (hi - lo) / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start, end = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
    return [round(start + k * step, 10) for k in range(int(round((end - start) / step)) + 1)]


LEGEND_LINE = 18


def _legend(entries: Sequence[tuple[str, str, str]], x: float, y: float, width: float) -> tuple[str, float]:
    """Swatches (label, colour, shape: rect, line or dot) with their labels from (x, y), wrapped to a new line
    before an entry would pass `width`; returns the SVG and the height the legend takes."""
    out, left, lines = [], x, 1
    for label, colour, shape in entries:
        need = 22 + text_width(label) + 18
        if x > left and x + need - 18 > width:
            x, y, lines = left, y + LEGEND_LINE, lines + 1
        if shape == "line":
            out.append(f"<line x1='{x:.1f}' y1='{y - 4:.1f}' x2='{x + 18:.1f}' y2='{y - 4:.1f}' stroke='{colour}' "
                       "stroke-width='3'/>")
        elif shape == "dot":
            out.append(f"<circle cx='{x + 9:.1f}' cy='{y - 4:.1f}' r='4' fill='{colour}'/>")
        else:
            out.append(f"<rect x='{x:.1f}' y='{y - 10:.1f}' width='12' height='12' fill='{colour}'/>")
        out.append(f"<text x='{x + 22:.1f}' y='{y:.1f}' font-size='{FONT}'>{esc(label)}</text>")
        x += need
    return "".join(out), lines * LEGEND_LINE


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width:.0f}' height='{height:.0f}' "
            f"viewBox='0 0 {width:.0f} {height:.0f}' role='img' aria-label='{esc(title)}' "
            f"style='font-family:{esc(FONT_STACK)};background:#fff'><title>{esc(title)}</title>"
            + "".join(body) + "</svg>")


def _title(title: str, width: float) -> str:
    return f"<text x='{width / 2:.1f}' y='18' font-size='14' font-weight='600' text-anchor='middle'>{esc(title)}</text>"


def axis_title(name: str, unit: str | None) -> str:
    return f"{name} ({unit})" if unit else name


# ---- vertical bars: distributions ----------------------------------------------------------------------


def bar_chart(categories: Sequence[str], series: Sequence[tuple[str, str, Sequence[float]]], *, title: str,
              x_title: str, y_title: str, y_unit: str | None = None, width: int = 680, height: int = 320,
              tooltip_unit: str = "") -> str:
    """Grouped vertical bars: for each category one bar per series (label, colour, values)."""
    if not categories or not series:
        return ""
    top = max([v for _, _, vs in series for v in vs] + [0])
    ys = ticks(0, top or 1, 5)
    legend, legend_h = _legend([(label, colour, "rect") for label, colour, _ in series], 56, 38, width - 8)
    left, right, top_m, bottom = 56, 16, 34 + legend_h, 58
    pw, ph = width - left - right, height - top_m - bottom
    ymax = ys[-1] or 1
    y = lambda v: top_m + ph - v / ymax * ph  # noqa: E731
    body = [_title(title, width), legend]
    for t in ys:
        body.append(f"<line x1='{left}' y1='{y(t):.1f}' x2='{left + pw}' y2='{y(t):.1f}' stroke='{GRID}'/>")
        body.append(f"<text x='{left - 6}' y='{y(t) + 4:.1f}' font-size='11' text-anchor='end'>{num(t)}</text>")
    slot = pw / len(categories)
    bw = max(min(slot * 0.8 / len(series), 28), 1)
    label_every = max(1, math.ceil(len(categories) * max(text_width(c, 11) for c in categories) / (pw * 0.9)))
    for i, cat in enumerate(categories):
        x0 = left + i * slot + (slot - bw * len(series)) / 2
        for j, (label, colour, vs) in enumerate(series):
            v = vs[i]
            body.append(f"<rect x='{x0 + j * bw:.1f}' y='{y(v):.1f}' width='{max(bw - 1, 1):.1f}' "
                        f"height='{y(0) - y(v):.1f}' fill='{colour}'><title>{esc(label)}, {esc(cat)}: "
                        f"{num(v, 1)}{esc(tooltip_unit)}</title></rect>")
        cx = left + (i + 0.5) * slot
        body.append(f"<line x1='{cx:.1f}' y1='{top_m + ph}' x2='{cx:.1f}' y2='{top_m + ph + 4}' stroke='{AXIS}'/>")
        if i % label_every == 0:
            body.append(f"<text x='{cx:.1f}' y='{top_m + ph + 17}' font-size='11' text-anchor='middle'>{esc(cat)}</text>")
    body.append(f"<line x1='{left}' y1='{top_m + ph}' x2='{left + pw}' y2='{top_m + ph}' stroke='{AXIS}'/>")
    body.append(f"<line x1='{left}' y1='{top_m}' x2='{left}' y2='{top_m + ph}' stroke='{AXIS}'/>")
    body.append(f"<text x='{left + pw / 2:.1f}' y='{height - 10}' font-size='{FONT}' text-anchor='middle'>"
                f"{esc(x_title)}</text>")
    body.append(f"<text transform='translate(15 {top_m + ph / 2:.1f}) rotate(-90)' font-size='{FONT}' "
                f"text-anchor='middle'>{esc(axis_title(y_title, y_unit))}</text>")
    return _svg(width, height, title, body)


MAX_BINS = 30


def histogram(samples: Sequence[tuple[str, str, Sequence[int]]], *, title: str, x_title: str,
              y_title: str = "share of games", width: int = 680, height: int = 320) -> str:
    """The share of games at each whole-number value, one bar per sample (label, colour, values) and value;
    values are put in bins of equal width when there are more than MAX_BINS of them."""
    every = [v for _, _, vs in samples for v in vs]
    if not every:
        return ""
    lo, hi = min(every), max(every)
    size = max(1, math.ceil((hi - lo + 1) / MAX_BINS))
    starts = list(range(lo, hi + 1, size))
    cats = [str(s) if size == 1 else f"{s}–{s + size - 1}" for s in starts]
    series = []
    for label, colour, vs in samples:
        c = Counter((v - lo) // size for v in vs)
        n = max(len(vs), 1)
        series.append((label, colour, [100.0 * c[k] / n for k in range(len(starts))]))
    return bar_chart(cats, series, title=title, x_title=x_title + (f", bins of {size}" if size > 1 else ""),
                     y_title=y_title, y_unit="%", width=width, height=height, tooltip_unit="%")


# ---- horizontal marks: one row per label ---------------------------------------------------------------


def _rows_frame(labels: Sequence[str], lo: float, hi: float, *, title: str, x_title: str, x_unit: str | None,
                width: int, row: int, legend: Sequence[tuple[str, str, str]],
                gutter: float = 0) -> tuple[list[str], callable, float, float, float]:
    """The frame shared by the horizontal plots: returns (body, x(value), top of the rows, left, plot width).
    `gutter`: room kept between the labels and the plot, for numbers written left of a row's mark."""
    room = width * 0.45 - 16 - gutter
    shown = [fit_text(s, room) for s in labels]
    left = max(text_width(s) for s in shown) + 16 + gutter
    legend_svg, legend_h = _legend(legend, 10, 38, width - 8)
    right, top_m = 24, 34 + legend_h
    pw = width - left - right
    xs = ticks(lo, hi, 6)
    a, b = xs[0], xs[-1]
    x = lambda v: left + (v - a) / ((b - a) or 1) * pw  # noqa: E731
    ph = row * len(labels)
    body = [_title(title, width), legend_svg]
    for t in xs:
        body.append(f"<line x1='{x(t):.1f}' y1='{top_m}' x2='{x(t):.1f}' y2='{top_m + ph}' stroke='{GRID}'/>")
        body.append(f"<line x1='{x(t):.1f}' y1='{top_m + ph}' x2='{x(t):.1f}' y2='{top_m + ph + 4}' stroke='{AXIS}'/>")
        body.append(f"<text x='{x(t):.1f}' y='{top_m + ph + 17}' font-size='11' text-anchor='middle'>{num(t)}</text>")
    if a < 0 < b:
        body.append(f"<line x1='{x(0):.1f}' y1='{top_m}' x2='{x(0):.1f}' y2='{top_m + ph}' stroke='{AXIS}'/>")
    body.append(f"<line x1='{left}' y1='{top_m + ph}' x2='{left + pw}' y2='{top_m + ph}' stroke='{AXIS}'/>")
    body.append(f"<text x='{left + pw / 2:.1f}' y='{top_m + ph + 38}' font-size='{FONT}' text-anchor='middle'>"
                f"{esc(axis_title(x_title, x_unit))}</text>")
    for i, (label, short) in enumerate(zip(labels, shown)):
        # a label cut to fit keeps its whole text as the tooltip, so nothing runs off the picture's left edge
        tip = f"<title>{esc(label)}</title>" if short != label else ""
        body.append(f"<text x='{left - 8 - gutter:.1f}' y='{top_m + i * row + row / 2 + 4:.1f}' font-size='{FONT}' "
                    f"text-anchor='end'>{tip}{esc(short)}</text>")
    return body, x, top_m, left, pw


def hbar_chart(labels: Sequence[str], series: Sequence[tuple[str, str, Sequence[float | None]]], *, title: str,
               x_title: str, x_unit: str | None = None, width: int = 680) -> str:
    """Grouped horizontal bars from zero, one row per label and one bar per series; a None value draws nothing."""
    if not labels or not series:
        return ""
    vals = [v for _, _, vs in series for v in vs if v is not None]
    row = 12 * len(series) + 12
    legend = [(label, colour, "rect") for label, colour, _ in series]
    body, x, top, _left, _pw = _rows_frame(labels, min(vals + [0]), max(vals + [0]), title=title, x_title=x_title,
                                          x_unit=x_unit, width=width, row=row, legend=legend)
    for i, label in enumerate(labels):
        for j, (name, colour, vs) in enumerate(series):
            v = vs[i]
            if v is None:
                continue
            x1, x2 = sorted((x(0), x(v)))
            body.append(f"<rect x='{x1:.1f}' y='{top + i * row + 6 + j * 12:.1f}' width='{max(x2 - x1, 1):.1f}' "
                        f"height='11' fill='{colour}'><title>{esc(label)}, {esc(name)}: {num(v)}"
                        f"{' ' + esc(x_unit) if x_unit else ''}</title></rect>")
    height = top + row * len(labels) + 48
    return _svg(width, height, title, body)


def range_chart(labels: Sequence[str], series: Sequence[tuple[str, str, Sequence[tuple[float, float] | None]]], *,
                title: str, x_title: str, x_unit: str | None = None, width: int = 680) -> str:
    """Horizontal ranges lo..hi, one row per label and one band per series; a None range draws nothing."""
    ranges = [r for _, _, rs in series for r in rs if r is not None]
    if not labels or not ranges:
        return ""
    row = 16 * len(series) + 14
    legend = [(label, colour, "rect") for label, colour, _ in series]
    lo, hi = min(r[0] for r in ranges), max(r[1] for r in ranges)
    # the low end's number is written left of its range, so a range from the axis keeps it off the labels
    gutter = max(text_width(num(r[0]), 10) for r in ranges) + 6
    body, x, top, _left, _pw = _rows_frame(labels, min(lo, 0), max(hi, 0), title=title, x_title=x_title,
                                          x_unit=x_unit, width=width, row=row, legend=legend, gutter=gutter)
    for i, label in enumerate(labels):
        for j, (name, colour, rs) in enumerate(series):
            r = rs[i]
            if r is None:
                continue
            y0 = top + i * row + 7 + j * 16
            x1, x2 = x(r[0]), x(r[1])
            tip = f"<title>{esc(label)}, {esc(name)}: {num(r[0])} to {num(r[1])}{' ' + esc(x_unit) if x_unit else ''}</title>"
            body.append(f"<rect x='{x1 - 2:.1f}' y='{y0:.1f}' width='{max(x2 - x1, 0) + 4:.1f}' height='12' rx='2' "
                        f"fill='{colour}'>{tip}</rect>")
            body.append(f"<text x='{x1 - 5:.1f}' y='{y0 + 10:.1f}' font-size='10' text-anchor='end'>{num(r[0])}</text>")
            body.append(f"<text x='{x2 + 5:.1f}' y='{y0 + 10:.1f}' font-size='10'>{num(r[1])}</text>")
    height = top + row * len(labels) + 48
    return _svg(width, height, title, body)


def interval_chart(rows: Sequence[tuple[str, float, float, float]], *, title: str, x_title: str,
                   x_unit: str | None = None, width: int = 680) -> str:
    """Means with their intervals (label, mean, lo, hi) around zero: red where the interval leaves out zero."""
    if not rows:
        return ""
    span = max([1e-9] + [max(abs(lo), abs(hi), abs(m)) for _, m, lo, hi in rows])
    row = 22
    legend = [("mean", AXIS, "dot"), ("interval leaves out zero", VERMILION, "line"),
              ("interval holds zero", GREY, "line")]
    body, x, top, _left, _pw = _rows_frame([r[0] for r in rows], -span, span, title=title, x_title=x_title,
                                          x_unit=x_unit, width=width, row=row, legend=legend)
    for i, (label, m, lo, hi) in enumerate(rows):
        y0 = top + i * row + row / 2
        colour = VERMILION if lo > 0 or hi < 0 else GREY
        tip = f"<title>{esc(label)}: {num(m)} ({num(lo)} to {num(hi)}){' ' + esc(x_unit) if x_unit else ''}</title>"
        body.append(f"<line x1='{x(lo):.1f}' y1='{y0:.1f}' x2='{x(hi):.1f}' y2='{y0:.1f}' stroke='{colour}' "
                    f"stroke-width='3'>{tip}</line>")
        body.append(f"<circle cx='{x(m):.1f}' cy='{y0:.1f}' r='4' fill='{colour}'>{tip}</circle>")
    height = top + row * len(rows) + 48
    return _svg(width, height, title, body)


def figure(svg: str, caption: str | None = None) -> str:
    """A plot with its caption, as a report shows it."""
    if not svg:
        return ""
    return f"<figure>{svg}" + (f"<figcaption>{esc(caption)}</figcaption>" if caption else "") + "</figure>"
