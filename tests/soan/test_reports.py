"""The reports a designer reads: shared SVG plots with axes, units and legends, `soan verify --html`,
and no Python repr anywhere in the commands' text or HTML output."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from clirun import soan
from soan import plots
from soan.readable import bounds, show, span

ROOT = Path(__file__).resolve().parents[2]
KITANO = ROOT / "specs" / "kitano-20.soan"
KITANO_19 = ROOT / "specs" / "kitano-19.soan"

# What a Python value looks like when printed raw: a dict or list of strings, None/True/False, an object's
# default repr, an attrs or namedtuple repr (Span(line=...)), a set or Counter.
REPR = re.compile(r"\{'|\['|\[None|\bNone\b|\bTrue\b|\bFalse\b|<[\w.]+ object at|\b[A-Z]\w*\(\w+=|"
                  r"\bCounter\(|\bdefaultdict\(|\bset\(\)|\bdict_(keys|values|items)\(")


def reprs_in(text: str) -> list[str]:
    """Each line of output (HTML unescaped) that shows a Python repr."""
    return [line.strip() for line in html.unescape(text).splitlines() if REPR.search(line)]


def _svg_ok(svg: str) -> ET.Element:
    """The plot is well-formed XML with a title (for screen readers and tooltips)."""
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and root.get("role") == "img" and root.get("aria-label")
    return root


def _texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter() if t.tag.endswith("text")]


# ---- the plots -----------------------------------------------------------------------------------------


def test_ticks_are_round_numbers_covering_the_range():
    """Ticks step by 1, 2, 2.5 or 5 times a power of ten and cover the data's range."""
    assert plots.ticks(0, 35) == [0, 10, 20, 30, 40]
    assert plots.ticks(-3, 35)[0] <= -3 and plots.ticks(-3, 35)[-1] >= 35
    assert plots.ticks(0, 0.9) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    flat = plots.ticks(5, 5)  # one value: a range around it, never a single tick
    assert len(flat) > 1 and flat[0] < 5 < flat[-1]


def test_histogram_has_axes_units_legend_and_readable_bins():
    """A score histogram names both axes with units, shows a legend entry per sample, and bins a wide range."""
    narrow = _svg_ok(plots.histogram([("old", plots.BLUE, [1, 2, 2, 3]), ("new", plots.ORANGE, [2, 3, 3, 4])],
                                     title="Final scores", x_title="final score (points)"))
    texts = _texts(narrow)
    assert "Final scores" in texts and "final score (points)" in texts and "share of games (%)" in texts
    assert "old" in texts and "new" in texts
    assert {"1", "2", "3", "4"} <= set(texts)
    wide = _svg_ok(plots.histogram([("all", plots.BLUE, list(range(-20, 100)))], title="t", x_title="score"))
    labels = [t for t in _texts(wide) if "–" in t]
    assert labels and labels[0] == "-20–-17"  # 120 values in bins of 4: at most 30 bars
    assert len([r for r in wide.iter() if r.tag.endswith("rect") and r.find("{*}title") is not None]) <= plots.MAX_BINS


def test_range_and_interval_charts_keep_japanese_and_their_numbers():
    """Row labels keep Japanese text as written, the font stack asks for a CJK face first, and each mark has its number."""
    svg = plots.range_chart(["variety · スート数"], [("proved", plots.BLUE, [(0, 6)]), ("witnessed", plots.ORANGE, [(1, 5)])],
                            title="ranges", x_title="score", x_unit="points")
    root = _svg_ok(svg)
    assert "variety · スート数" in _texts(root) and "score (points)" in _texts(root)
    assert "Noto Sans CJK JP" in root.get("style")
    tips = ["".join(t.itertext()) for t in root.iter() if t.tag.endswith("title")]
    assert "variety · スート数, proved: 0 to 6 points" in tips
    forest = _svg_ok(plots.interval_chart([("score of P1", 1.5, 0.5, 2.5), ("rounds", 0.0, -0.1, 0.1)],
                                          title="shift", x_title="mean shift", x_unit="points"))
    colours = [c.get("fill") for c in forest.iter() if c.tag.endswith("circle")]
    assert colours[1:] == [plots.VERMILION, plots.GREY]  # the first circle is the legend's
    assert plots.bar_chart([], [], title="t", x_title="x", y_title="y") == ""


def test_long_row_labels_are_cut_to_fit_and_keep_their_text_as_a_tooltip():
    """A row label too long for the left column ends in an ellipsis inside the picture, and the low end's number sits between it and the plot."""
    long = "item a_very_long_scoring_item_name · " + "とても長い説明" * 8
    root = _svg_ok(plots.range_chart([long, "total score"], [("proved", plots.BLUE, [(0, 60), (0, 240)])],
                                     title="ranges", x_title="score", width=760))
    texts = [t for t in root.iter() if t.tag.endswith("text")]
    row = next(t for t in texts if "".join(t.itertext()).startswith("item a_very"))
    shown = row.find("{*}title").tail  # the text drawn, after the tooltip
    assert shown.endswith("…") and long.startswith(shown[:-1].rstrip())
    assert "".join(row.find("{*}title").itertext()) == long
    # anchored at its end: its start stays right of the picture's left edge
    assert float(row.get("x")) - plots.text_width(shown) >= 0
    zero = next(t for t in texts if t.text == "0" and t.get("font-size") == "10")
    assert float(row.get("x")) < float(zero.get("x")) - plots.text_width("0", 10)


def test_values_read_as_words():
    """Mappings, lists, booleans, none and ranges read as a designer writes them."""
    assert show({"anger": 8}) == "anger 8"
    assert show(["P1", "P3"]) == "P1, P3" and show([]) == "none" and show(None) == "none"
    assert show(True) == "true" and show(2.50) == "2.5"
    assert span([-3, 35]) == "-3..35" and span([4, 4]) == "4" and span(None) == "none"
    assert bounds({"proved": [-3, 35], "witnessed": [None, None], "supply": 8}) == \
        "proved -3..35, witnessed not seen, supply 8"


# ---- soan verify --html ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def verified(tmp_path_factory):
    """One small verify run of Kitano, as text, JSON and HTML (shared by the tests below)."""
    from soan.cli import main

    tmp = tmp_path_factory.mktemp("verify")
    page = tmp / "verify.html"
    import contextlib
    import io

    text, js = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(text):
        code = main(["--width", "2000", "verify", str(KITANO), "--games", "8", "--witness-dir", str(tmp / "w"), "--html", str(page)])
    with contextlib.redirect_stdout(js):
        main(["verify", str(KITANO), "--games", "8", "--witness-dir", str(tmp / "w"), "--json"])
    return code, text.getvalue(), json.loads(js.getvalue()), page.read_text(encoding="utf-8")


def test_verify_html_has_verdicts_score_bars_and_witness_moves(verified):
    """The page lists every finding with its verdict, plots proved against witnessed ranges per score item
    (with the items' Japanese titles), and shows each witness's replay command and moves."""
    code, text, result, page = verified
    assert code in (0, 1)
    assert "HTML page written to" in text
    for f in result["findings"]:
        assert html.escape(f["claim"]) in page
    svg = re.search(r"<svg.*?</svg>", page, re.S).group(0)
    root = _svg_ok(svg)
    labels = _texts(root)
    assert "final score of one player (points)" in labels
    assert any("スート数" in t for t in labels)  # the score item's title from the spec
    assert "proved (every game lies inside)" in labels and "witnessed (the searched games reached)" in labels
    score = [f for f in result["findings"] if f["property"] == "score"]
    assert len([t for t in labels if t.startswith(("total score", "item "))]) == len(score)
    witnessed = [f for f in result["findings"] if f["witness"]]
    assert witnessed
    for f in witnessed:
        assert f"soan replay {f['witness']}".replace("'", "&#x27;") in page
    assert "<details><summary>Every step of the game" in page and "<li>P1: " in page
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")


def test_verify_html_path_is_checked_before_the_search(capsys, tmp_path):
    """An --html path in a missing folder is a usage error (exit 2) before any game is played."""
    code, _, err = soan(capsys, "verify", KITANO, "--games", "1", "--html", tmp_path / "no" / "v.html",
                        "--witness-dir", tmp_path / "w")
    assert code == 2 and "--html" in err and "does not exist" in err
    assert not (tmp_path / "w").exists()


# ---- no Python reprs in any output -----------------------------------------------------------------------


def test_verify_text_and_html_show_no_reprs(verified):
    """verify's table and page show values in words."""
    _code, text, _result, page = verified
    assert reprs_in(text) == [] and reprs_in(page) == []


@pytest.mark.parametrize("args", [
    ["check", KITANO],
    ["check", KITANO, "--brief"],
    ["run", KITANO, "--seed", "3"],
    ["simulate", KITANO, "-n", "12", "--jobs", "1"],
    ["prove", KITANO, "--games", "4"],
    ["sweep", KITANO, "-n", "4", "--jobs", "1", "--rule", "pardon_threshold=3,4"],
    ["test", KITANO],
], ids=lambda a: " ".join(str(x) for x in a[:1] + a[2:]))
def test_text_output_shows_no_reprs(capsys, tmp_path, monkeypatch, args):
    """The main commands' text output on a shipped spec holds no Python repr."""
    monkeypatch.chdir(tmp_path)  # witnesses and logs land here
    code, out, err = soan(capsys, *args)
    assert code in (0, 1), err
    assert out.strip()
    assert reprs_in(out) == [] and reprs_in(err) == []


def test_replay_shows_no_reprs(capsys, tmp_path):
    """A replayed game's account holds no Python repr."""
    log = tmp_path / "g.json"
    assert soan(capsys, "run", KITANO, "--seed", "5", "--log", log, "--quiet")[0] == 0
    code, out, err = soan(capsys, "replay", log)
    assert code == 0 and reprs_in(out + err) == []


def test_diff_text_and_html_show_no_reprs(capsys, tmp_path):
    """diff's text and page (rules, bounds, verification, play and the first divergence) show values in words."""
    page = tmp_path / "diff.html"
    code, out, err = soan(capsys, "diff", KITANO_19, KITANO, "-n", "20", "--verify", "--verify-games", "3",
                          "--html", page)
    assert code == 0, err
    text = page.read_text(encoding="utf-8")
    assert reprs_in(out) == [] and reprs_in(text) == []
    assert "token supplies: anger 8" in out
    for svg in re.findall(r"<svg.*?</svg>", text, re.S):
        labels = _texts(_svg_ok(svg))
        assert any("(points)" in t for t in labels)  # an axis with its unit
        assert "old: Kitano Grand Tea Party draft 19" in labels  # the legend names the drafts


def test_rulings_text_and_html_show_no_reprs(capsys, tmp_path):
    """rulings' table and page show values in words, and the page's plots have axes with units."""
    page = tmp_path / "rulings.html"
    code, out, err = soan(capsys, "rulings", KITANO, "-n", "10", "--html", page, "--logs", tmp_path / "logs")
    assert code == 0, err
    text = page.read_text(encoding="utf-8")
    assert reprs_in(out) == [] and reprs_in(text) == []
    svgs = re.findall(r"<svg.*?</svg>", text, re.S)
    assert svgs
    assert "share of all games played (%)" in _texts(_svg_ok(svgs[0]))
    assert all("mean shift per game, 95% interval (points)" in _texts(_svg_ok(s)) for s in svgs[1:])


def test_repr_pattern_catches_what_it_is_for():
    """The check itself finds a dict, a list of nones, a boolean and an attrs repr, and passes words."""
    assert reprs_in("supplies {'anger': 8}\nseats [None, None]\nflag True\nat Span(line=3)")
    assert len(reprs_in("supplies {'anger': 8}\nseats [None, None]\nflag True\nat Span(line=3)")) == 4
    assert reprs_in("token supplies: anger 8; winners P1, P3; rulings in force: pass_first=true") == []


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed (docs/screenshots.py needs it)")
def test_screenshot_script_renders_a_report(tmp_path):
    """docs/screenshots.py's browser call turns a report into a PNG (only where Chromium is installed)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "docs" / "screenshots.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    page = tmp_path / "p.html"
    page.write_text("<!doctype html><meta charset='utf-8'><body>" + plots.histogram(
        [("草案", plots.BLUE, [1, 2, 2])], title="得点", x_title="score") + "</body>", encoding="utf-8")
    png = tmp_path / "p.png"
    try:
        mod.shoot(mod.chromium(), page, png, 400)
    except subprocess.TimeoutExpired:
        pytest.fail("Chromium did not finish its screenshot")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
