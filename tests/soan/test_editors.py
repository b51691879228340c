"""Editor support: the Pygments lexer (through its plugin entry point) and the TextMate grammar."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Error, Keyword, Name, String

from soan.pygments_lexer import SoanLexer, grammar_keywords, keyword_groups

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted((ROOT / "specs").glob("*.soan"))


def test_lexer_is_found_through_the_entry_point():
    """Pygments finds the lexer by the name soan and by the .soan file name, as an installed plugin."""
    assert isinstance(get_lexer_by_name("soan"), SoanLexer)
    assert isinstance(get_lexer_for_filename("kitano-20.soan"), SoanLexer)


def test_pygmentize_highlights_kitano():
    """`pygmentize -l soan specs/kitano-20.soan` marks keywords, strings, comments and declared names."""
    # the pygmentize script installed beside this Python (as in CI's venv), else the same program as a module
    script = Path(sys.executable).with_name("pygmentize")
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "pygments"]
    done = subprocess.run([*command, "-l", "soan", "-f", "html", str(ROOT / "specs" / "kitano-20.soan")],
                          capture_output=True, text=True, encoding="utf-8", check=True)
    html = done.stdout
    assert '<span class="kd">game</span>' in html
    assert '<span class="kd">ruling</span><span class="w"> </span><span class="nc">anger_shortage</span>' in html
    assert '<span class="s2">"名物カード"</span>' in html
    assert '<span class="c1"># ---- components (■ コンポーネント)' in html
    assert '<span class="err">' not in html


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.name)
def test_every_shipped_spec_lexes_without_errors(spec):
    """No Error token in any shipped spec, and the tokens give back the text unchanged."""
    text = spec.read_text(encoding="utf-8")
    tokens = list(SoanLexer().get_tokens(text))
    bad = [v for t, v in tokens if t in Error]
    assert bad == []
    assert "".join(v for _, v in tokens) == (text if text.endswith("\n") else text + "\n")
    kinds = {t for t, _ in tokens}
    assert {Keyword.Declaration, Comment.Single, String.Double, Name} <= kinds


def test_count_x_is_a_keyword_only_after_a_count():
    """`8 x each suit` reads x as the card list's keyword; a variable called x stays a name."""
    tokens = [(t, v) for t, v in SoanLexer().get_tokens("cards c in deck { 8 x each suit }\ndef f(x) = x + 1\n")
              if v.strip()]
    assert (Keyword, "x") in tokens
    assert tokens.count((Name, "x")) == 2


def test_keywords_come_from_the_grammar():
    """Every quoted word of dsl/soan.lark is highlighted, and every group holds only the grammar's words."""
    kw = set(grammar_keywords())
    assert {"setup", "choose", "award", "winner", "cite", "may"} <= kw
    groups = keyword_groups()
    grouped = [w for ws in groups.values() for w in ws]
    assert set(grouped) | {"x"} == kw
    assert len(grouped) == len(set(grouped))


def test_textmate_grammar_agrees_with_the_lexer():
    """editors/soan.tmLanguage.json is valid JSON whose keyword groups are the lexer's, and its regexes compile."""
    tm = json.loads((ROOT / "editors" / "soan.tmLanguage.json").read_text(encoding="utf-8"))
    assert tm["scopeName"] == "source.soan" and tm["fileTypes"] == ["soan"]
    by_scope = {p["name"]: p["match"] for p in tm["repository"]["keywords"]["patterns"]}
    words_of = lambda rx: set(re.fullmatch(r"\\b\(\?:(.*)\)\\b", rx).group(1).split("|"))  # noqa: E731
    groups = keyword_groups()
    assert words_of(by_scope["storage.type.soan"]) == set(groups["declaration"])
    assert words_of(by_scope["constant.language.soan"]) == set(groups["constant"])
    assert words_of(by_scope["support.type.soan"]) == set(groups["type"])
    assert words_of(by_scope["keyword.operator.word.soan"]) == set(groups["operator"])
    assert words_of(by_scope["keyword.control.soan"]) == set(groups["keyword"])

    def regexes(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("match", "begin", "end"):
                    yield v
                else:
                    yield from regexes(v)
        elif isinstance(node, list):
            for v in node:
                yield from regexes(v)

    for rx in regexes(tm):
        re.compile(rx)
