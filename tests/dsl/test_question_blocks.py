"""`question` and `invariant` blocks in the rules language: how they parse into
IR, how their names and mistakes are checked and reported, how they travel
through `extend`/`remove` and `soan diff`, and ad hoc questions as typed on a
command line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from soan.diff import rules_diff
from soan.dsl import SpecErrors, compile_text, ir, load_spec
from soan.dsl.compiler import compile_question

MINI = '''game "Mini" players 2..4
score pts "Points" 0..5
token chip supply 6 hold 0..6 when short partial
player { coins: 0..20 = 0 }
zone deck: shared hidden stack
rounds 1 {
  for p in players { award 1 to p for pts }
}
winner among p in players by vp(p) desc else draw
'''

QUESTIONS = '''invariant coins_ok "Coins stay under 21" : all(p.coins <= 20 for p in players)
question everyone_scores "Can everyone score?" : can all(vp(p) > 0 for p in players) at end
question deck_kept : always count(deck) >= 0
'''


def errors_of(text: str, path: str = "q.soan") -> SpecErrors:
    """Compile `text`, which must be wrong, and return the SpecErrors raised."""
    with pytest.raises(SpecErrors) as info:
        compile_text(text, path)
    return info.value


def test_questions_parse_into_ir_with_kind_text_and_span():
    """Each block becomes a Question node in written order, with its kind, words, `at end` and the name's line."""
    spec = compile_text(MINI + QUESTIONS, "q.soan")
    assert [(q.kind, q.name, q.text, q.at_end) for q in spec.questions] == [
        ("invariant", "coins_ok", "Coins stay under 21", False),
        ("can", "everyone_scores", "Can everyone score?", True),
        ("always", "deck_kept", None, False),
    ]
    first = MINI.count("\n") + 1
    assert [q.span.line for q in spec.questions] == [first, first + 1, first + 2]
    assert all(q.expr.span.line == q.span.line for q in spec.questions)


def test_question_expressions_resolve_like_a_def_body():
    """Names inside a question resolve to declarations, quantified names to locals, and the generic walk reaches them."""
    spec = compile_text(MINI + QUESTIONS, "q.soan")
    nodes = list(ir.walk(spec))
    assert any(isinstance(n, ir.Question) for n in nodes)
    inv = spec.questions[0].expr
    assert isinstance(inv, ir.Agg) and inv.func == "all"
    assert any(isinstance(n, ir.Local) and n.name == "p" for n in ir.walk(inv))
    assert any(isinstance(n, ir.SharedZone) and n.name == "deck" for n in ir.walk(spec.questions[2].expr))
    assert not any(isinstance(n, ir.Name) for n in nodes)


def test_a_question_may_span_several_lines():
    """A question's expression may continue on indented lines, like any declaration."""
    spec = compile_text(MINI + 'question late "Is it late?" :\n  can round >= 1\n    and count(deck) == 0 at end\n',
                        "q.soan")
    q = spec.questions[0]
    assert q.kind == "can" and q.at_end and isinstance(q.expr, ir.BinOp) and q.expr.op == "and"


def test_unknown_names_in_a_question_are_located_with_the_nearest_name():
    """A misspelt attribute or name in a question points at it with a caret and a 'did you mean' hint."""
    text = MINI + 'question q1 "?" : can any(p.coinz > 3 for p in players) and cout(deck) == 0\n'
    err = errors_of(text)
    rendered = err.render()
    line = text.count("\n")
    assert f"q.soan:{line}:" in rendered
    assert "nothing is called '.coinz'" in rendered and "did you mean 'coins'?" in rendered
    assert "unknown function 'cout'" in rendered and "did you mean 'count'?" in rendered
    assert re.search(r"^\s+\^{7}$", rendered, re.M)  # under p.coinz


def test_a_free_player_name_is_an_unknown_name():
    """A question has no names of its own: a bare `p` is an unknown name, located."""
    err = errors_of(MINI + "question q2 : always p.coins >= 0\n")
    assert any(p.message == "unknown name 'p'" for p in err.problems)


def test_question_names_are_unique_among_declarations():
    """Two questions, or a question and a def, with one name are reported at the second."""
    err = errors_of(MINI + "def twice = 1\nquestion twice : can true\ninvariant twice : true\n")
    messages = [p.message for p in err.problems]
    assert any("'twice' is declared twice: as a def" in m and "as a question" in m for m in messages)
    assert any("as an invariant" in m for m in messages)


def test_syntax_errors_in_questions_are_located():
    """A question without 'can' or 'always', and an invariant with 'at end', are syntax errors at the right place."""
    err = errors_of(MINI + "question q3 : count(deck) == 0\n")
    p = err.problems[0]
    assert p.message.startswith("syntax error") and p.span.line == MINI.count("\n") + 1 and p.span.col == 15
    assert "'always'" in p.hint and "'can'" in p.hint
    err = errors_of(MINI + "invariant i1 : count(deck) >= 0 at end\n")
    assert err.problems[0].message.startswith("syntax error")


def test_questions_follow_extend_and_remove(tmp_path: Path):
    """A draft keeps its base's questions, replaces one it restates and drops one it removes."""
    (tmp_path / "base.soan").write_text(MINI + QUESTIONS, encoding="utf-8")
    (tmp_path / "next.soan").write_text(
        'extend "base.soan"\ngame "Mini" draft 2 players 2..4\n'
        'question everyone_scores "Can everyone score twice?" : can all(vp(p) > 1 for p in players) at end\n'
        "remove invariant coins_ok\n", encoding="utf-8")
    spec = load_spec(tmp_path / "next.soan")
    assert [q.name for q in spec.questions] == ["everyone_scores", "deck_kept"]
    assert spec.questions[0].text == "Can everyone score twice?"
    (tmp_path / "bad.soan").write_text('extend "base.soan"\nremove question coins_okk\n', encoding="utf-8")
    with pytest.raises(SpecErrors) as info:
        load_spec(tmp_path / "bad.soan")
    assert "did you mean" in info.value.render()


def test_rules_diff_lists_added_removed_and_changed_questions():
    """soan diff matches questions by name: an added, a removed and a changed one are each named."""
    old = compile_text(MINI + QUESTIONS, "old.soan")
    new = compile_text(MINI + QUESTIONS.replace("coins <= 20", "coins <= 19").replace(
        "question deck_kept : always count(deck) >= 0\n", "question fresh : can round == 1\n"), "new.soan")
    changes = {(c.category, c.name, c.status) for c in rules_diff(old, new)}
    assert changes == {("question", "coins_ok", "changed"), ("question", "deck_kept", "removed"),
                       ("question", "fresh", "added")}


def test_an_ad_hoc_question_resolves_against_the_spec():
    """A question typed on a command line is read with the spec's names, its spans pointing into the typed text."""
    spec = compile_text(MINI, "q.soan")
    q = compile_question(spec, "always all(p.chip <= 6 for p in players) at end")
    assert q.kind == "always" and q.at_end and q.text.startswith("always all(")
    assert q.expr.span.line == 1 and q.expr.span.col == 8


@pytest.mark.parametrize("text,col,message,hint", [
    ("can any(p.coin == 0 for p in players)", 9, "nothing is called '.coin'", "did you mean 'coins'?"),
    ("can count(dek) == 0", 11, "unknown name 'dek'", "did you mean 'deck'?"),
    ("always coins > 0", 8, "unknown name 'coins'", "'coins' belongs to a player: write p.coins"),
    ("will it rain", 1, "syntax error, unexpected 'will'", "a question starts with 'can'"),
    ("can count(deck) >", 18, "syntax error, unexpected the end of the question", "expected"),
])
def test_a_bad_ad_hoc_question_points_into_the_typed_text(text, col, message, hint):
    """Mistakes in a typed question are shown at line 1 of that text with a caret and a hint."""
    spec = compile_text(MINI, "q.soan")
    with pytest.raises(SpecErrors) as info:
        compile_question(spec, text)
    rendered = info.value.render()
    assert f"<question>:1:{col}: error: {message}" in rendered, rendered
    assert f"    {text}" in rendered and "    " + " " * (col - 1) + "^" in rendered
    assert hint in rendered
