"""`soan balance`: a report with intervals, as text, JSON and a self-contained HTML page."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from clirun import soan

from soan import api
from soan.balance import balance, mean_interval, share_interval
from soan.dsl import compile_text

# The second seat has the edge: whoever makes the count exactly 3 wins, and each adds one or two.
RACE = """
game "Race to three" players 2..2
global { total: 0..3 = 0 }
score pts "points"
score unused "never scored"
rounds until total >= 3 cap 6 {
  for p in players {
    if total < 3 {
      choose by p "adds" {
        option one { set total += 1  award 1 to p for pts }
        option two when total <= 1 { set total += 2  award 2 to p for pts }
      }
      if total == 3 { win p }
    }
  }
}
winner among p in players by vp(p) desc else draw
strategy hasty "always adds two" else random { prefer option two }
"""


def _spec(tmp_path):
    path = tmp_path / "race.soan"
    path.write_text(RACE, encoding="utf-8")
    return path


def test_balance_finds_the_seat_that_wins_and_the_item_nobody_scores(tmp_path, capsys):
    """With strong bots the second seat always wins this race (a count of 3 from 0 is lost by the first mover); the
    report says so with an interval above the fair share, and lists the item that never scores."""
    code, out, err = soan(capsys, "balance", _spec(tmp_path), "-n", "12", "-b", "mcts:200", "-j", "1", "--json")
    assert code == 0, err
    rep = json.loads(out)
    p1, p2 = rep["seats"]
    assert p2["win"]["rate"] == 1.0 and p2["win"]["lo"] > 0.5 and p2["verdict"] == "above fair share"
    assert p1["win"]["rate"] == 0.0 and p1["verdict"] == "below fair share"
    assert rep["items"]["unused"]["scores_at_all"]["rate"] == 0.0
    assert rep["items"]["pts"]["scores_at_all"]["rate"] > 0
    hasty = rep["strategies"][0]
    assert hasty["strategy"] == "hasty" and hasty["win"]["n"] == 12


def test_balance_text_report_and_html_page(tmp_path, capsys):
    """The terminal report shows every table with intervals; the HTML page has titled SVG plots with axes, and no
    script or anything fetched from elsewhere."""
    page = tmp_path / "report.html"
    code, out, err = soan(capsys, "balance", _spec(tmp_path), "-n", "6", "-b", "mcts:30", "--strategies", "random",
                          "--html", page)
    assert code == 0, err
    for text in ("Win rate by seat", "Scoring items", "Strategies against the strong bots", "hasty", "random",
                 "lead changes", "decisions"):
        assert text in out
    assert re.search(r"\d+% \[\d+%, \d+%\]", out)
    html = page.read_text(encoding="utf-8")
    assert html.count("<svg") == 4 and "<script" not in html.lower()
    assert not re.search(r"(src|href)=", html)
    assert "Win rate by seat</text>" in html and "share of games won (95% interval)" in html


def test_balance_is_the_same_for_any_number_of_processes():
    """The report (its JSON) does not depend on how many processes play the games."""
    t = api.tables(compile_text(RACE, "race.soan"), 2)
    one = balance(t, 6, 3, ["mcts:20", "mcts:20"], ["hasty"], jobs=1)
    two = balance(t, 6, 3, ["mcts:20", "mcts:20"], ["hasty"], jobs=2)
    assert one == two


def test_balance_refuses_an_unknown_bot_with_a_hint(tmp_path, capsys):
    """A misspelt strategy exits 2 naming the nearest bot, and mcts with a bad budget says what it takes."""
    code, _, err = soan(capsys, "balance", _spec(tmp_path), "--strategies", "hastey")
    assert code == 2 and "did you mean 'hasty'?" in err and "Traceback" not in err
    code, _, err = soan(capsys, "balance", _spec(tmp_path), "-b", "mcts:lots")
    assert code == 2 and "e.g. mcts:2000" in err


def test_intervals():
    """A mean's interval holds the mean; a share's Wilson interval stays in 0..1 and is not empty at 0 or 1."""
    m = mean_interval([1, 2, 3, 4])
    assert m["lo"] < m["mean"] == 2.5 < m["hi"]
    s = share_interval(0, 10)
    assert s["lo"] == 0.0 and 0 < s["hi"] < 0.35
    assert share_interval(10, 10)["lo"] > 0.65


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs a headless chromium on PATH")
def test_the_html_report_renders_in_a_headless_browser(tmp_path, capsys):
    """Chromium, run headless, reads the page into a DOM holding the four plots and their titles, and draws it."""
    page = tmp_path / "report.html"
    code, _, err = soan(capsys, "balance", _spec(tmp_path), "-n", "4", "-b", "mcts:20", "--html", page)
    assert code == 0, err
    args = ["chromium", "--headless", "--no-sandbox", "--disable-gpu"]
    dom = subprocess.run(args + ["--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=300).stdout
    assert dom.count("<svg") == 4 and "Points per scoring item" in dom and "<script" not in dom
    shot = tmp_path / "report.png"
    subprocess.run(args + [f"--screenshot={shot}", "--window-size=900,1600", page.as_uri()], capture_output=True,
                   timeout=300)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
