"""soan rulebook: the rules in words from the spec, every declaration in it, rulings marked where they apply,
and an appendix of soan's verdicts whose witness commands show what they say."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from clirun import soan
from soan import api

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted((ROOT / "specs").glob("*.soan"))
KITANO = ROOT / "specs" / "kitano-20.soan"
# The draft's own sections, in its order (004_1ca86766ab817d6e.txt: ■ コンポーネント, ■ ゲームの準備,
# ■ ゲームの進行, １：メインフェイズ, ■ 茶会); the rulebook of Kitano follows them.
KITANO_SECTIONS = ["■ コンポーネント", "■ ゲームの準備", "■ ゲームの進行", "１：メインフェイズ", "■ 茶会"]
REPRS = re.compile(r"\{'|\[None|\bNone\b|object at 0x|\b(Local|Symbol|Attr|BinOp|Call|Agg|ListComp|Param)\(|"
                   r"\b(Let|Set|Move|Choose|Ranking|ListLit|Cond)\b(?!\w)(?= *$)")


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_every_shipped_spec_renders_without_reprs(capsys, tmp_path, path):
    """Every shipped spec renders to Markdown and HTML; no Python repr or unknown node name shows anywhere, and
    every italic name is closed on its line."""
    md, page = tmp_path / "r.md", tmp_path / "r.html"
    code, out, err = soan(capsys, "rulebook", path, "--games", 0, "--md", md)
    assert code == 0, err
    code, _, err = soan(capsys, "rulebook", path, "--games", 0, "--html", page)
    assert code == 0, err
    text = md.read_text(encoding="utf-8")
    for n, line in enumerate(text.splitlines(), 1):
        assert not REPRS.search(line), f"{path.name} line {n}: {line}"
        assert line.replace("**", "").count("*") % 2 == 0, f"{path.name} line {n}: unbalanced italics: {line}"
    for name in re.findall(r"<i>(.*?)</i>", page.read_text(encoding="utf-8")):
        assert re.fullmatch(r"\w+(\([\w, ]*\))?", name), f"{path.name}: an italic span that is not a name: {name}"
    for heading in ("## 1. Components", "## 6. End of the game and the winner"):
        assert heading in text


def _kitano_rulebook(capsys, tmp_path, games: int = 8) -> str:
    md = tmp_path / "kitano.md"
    code, out, err = soan(capsys, "rulebook", KITANO, "--players", 3, "--games", games, "--md", md)
    assert code == 0, err
    assert f"rulebook written to {md}" in out
    return md.read_text(encoding="utf-8")


def test_every_kitano_declaration_appears_in_its_rulebook(capsys, tmp_path):
    """Every card kind, zone, token, action, scoring item, term, kind of value, assumption and open ruling of
    Kitano appears in its rulebook, with its title where it has one."""
    text = _kitano_rulebook(capsys, tmp_path, games=0)
    spec = api.load(KITANO)
    names = [c.name for c in spec.components] + [c.title for c in spec.components]
    names += [z.name for z in spec.zones] + [z.title for z in spec.zones if z.title]
    names += [t.name for t in spec.tokens] + [t.title for t in spec.tokens if t.title]
    names += [s.title for s in spec.scores if s.title]
    names += [p.name for p in spec.procedures] + [d.name for d in spec.defs]
    names += [v for e in spec.enums for v in e.values] + [e.title for e in spec.enums if e.title]
    names += [v.name for v in spec.vars] + [q.text for q in spec.questions if q.text]
    names += [ex.name for ex in spec.examples]
    missing = [n for n in names if n not in text]
    assert not missing
    for r in spec.rulings:
        assert f"⚑ **Open ruling {r.name}: played as" in text and r.question in text
        assert f"| ⚑{r.name} |" in text.split("Appendix B")[1], f"{r.name} is not in the rulings appendix"
    for a in spec.assumptions:
        assert f"◇ **Assumption {a.name}" in text and a.text in text
    for note in spec.notes:
        assert note in text


def test_kitano_rulebook_follows_the_drafts_sections(capsys, tmp_path):
    """The draft's sections come in the draft's order, each named as the draft names it (the spec's titles)."""
    text = _kitano_rulebook(capsys, tmp_path, games=0)
    headings = "\n".join(ln for ln in text.splitlines() if ln.startswith("#"))
    at = [headings.find(s) for s in KITANO_SECTIONS]
    assert all(k >= 0 for k in at), dict(zip(KITANO_SECTIONS, at))
    assert at == sorted(at)
    headings = [ln for ln in text.splitlines() if ln.startswith("## ")]
    assert headings[:6] == ["## 1. Components (■ コンポーネント)", "## 2. Setup (■ ゲームの準備)",
                            "## 3. Play (■ ゲームの進行)", "## 4. Actions", "## 5. Scoring (■ 茶会)",
                            "## 6. End of the game and the winner"]


def test_rulings_are_marked_where_the_rules_read_them(capsys, tmp_path):
    """A ruling read in one action is marked under that action (pardon_threshold under the sentence), and the
    sections that depend on it through terms and actions say so."""
    text = _kitano_rulebook(capsys, tmp_path, games=0)
    sentence = text.split("### 4.5 sentence")[1].split("## 5.")[0]
    assert "⚑pardon_threshold" in sentence and "⚑ **Open ruling pardon_threshold" in sentence
    scoring = text.split("## 5. Scoring")[1].split("## 6.")[0]
    assert "also depends on" in scoring and "⚑taiko_count" in scoring
    winner = text.split("## 6. End of the game")[1].split("## 7.")[0]
    assert "⚑ **Open ruling final_tiebreak" in winner
    setup = text.split("## 2. Setup")[1].split("## 3.")[0]
    assert "◇ **Assumption head_seat_by_lot" in setup, "an assumption no rule reads is placed by its cited section"


def test_the_rulings_appendix_gives_verdicts_whose_witnesses_flip_the_winner(capsys, tmp_path):
    """With games to play, the appendix gives each ruling's provisional answer and verdict; where it says
    another answer changes the winner, the two soan run commands it names end with different winners."""
    text = _kitano_rulebook(capsys, tmp_path, games=8)
    appendix = text.split("## Appendix B. Rulings before printing")[1]
    assert "from 8 seeded games at 3 players" in appendix
    rows = [ln for ln in appendix.splitlines() if ln.startswith("| ⚑") or ln.startswith("| ◇")]
    assert len(rows) == len(api.load(KITANO).rulings) + 2  # and the two assumptions with values
    flips = [r for r in rows if "changes the winner in" in r]
    assert flips, "some ruling of Kitano changes the winner in 8 games"
    first, second = flips[0].rstrip(" |").split("|")[-1].strip().split("  and  ")
    winners = []
    for command in (first, second):
        words = shlex.split(command)
        assert words[:2] == ["soan", "run"]
        code, out, err = soan(capsys, *words[1:], "--quiet")
        assert code == 0, err
        winners.append(re.search(r"(Winner: .*|Result: .*|No winner.*)", out).group(0))
    assert winners[0] != winners[1]


def test_html_is_self_contained_with_a_cjk_font_stack(capsys, tmp_path):
    """The HTML page has no script and loads nothing from elsewhere; its fonts can show Japanese titles."""
    page = tmp_path / "k.html"
    code, _, err = soan(capsys, "rulebook", KITANO, "--games", 0, "--html", page)
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html.lower() and "http://" not in html and "https://" not in html
    assert "<meta charset='utf-8'>" in html and "Noto Sans CJK JP" in html and "Hiragino" in html
    assert "【太閤殿下】" in html and "<nav>" in html


@pytest.mark.parametrize("args, message", [
    (("--md", "a.md", "--html", "b.html"), "not allowed with argument"),
    (("--games", -1), "--games must be 0 or more"),
    (("--budget", 0), "--budget must be 1 or more"),
])
def test_bad_command_lines_are_plain_errors(capsys, args, message):
    """Both outputs at once, or a negative amount of work: exit 2 with a message."""
    code, _, err = soan(capsys, "rulebook", KITANO, *args)
    assert code == 2 and message in err
