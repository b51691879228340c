"""The rules language: the grammar, the compiler's checks and name resolution,
the IR it builds, and how problems in a spec are reported to a designer."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soan import api
from soan.dsl import SpecErrors, compile_text, ir, load_spec
from soan.interpreter.state import State

ROOT = Path(__file__).resolve().parents[2]
KITANO = ROOT / "specs" / "kitano-20.soan"
KITANO_TEXT = KITANO.read_text(encoding="utf-8")

# The smallest spec the compiler accepts, plus room for a few declarations.
MINI = '''game "Mini" players 2..4
score pts "Points"
player { coins: 0..20 = 0 }
rounds 1 {
  for p in players { award 1 to p for pts }
}
winner among p in players by vp(p) desc else draw
'''

# A spec with cards, zones and a procedure, for the name-resolution tests.
CARDS = MINI + '''enum suit "Suits" = red, blue
component tile "Tile" {
  suit: suit
  value: 1..5 = 1
}
zone deck "Deck": shared hidden stack
zone hand "Hand": per_player owner unordered
cards tile in deck { 2 x each suit }
procedure deal(p) { draw 1 from deck to p.hand }
'''


@functools.lru_cache(maxsize=1)
def kitano() -> ir.Spec:
    """The shipped spec, compiled once (IR nodes are frozen, so sharing it is safe)."""
    return load_spec(KITANO)


def problems_of(text: str, path: str = "spec.soan") -> SpecErrors:
    """Compile `text`, which must be wrong, and return the SpecErrors raised."""
    with pytest.raises(SpecErrors) as info:
        compile_text(text, path)
    return info.value


def line_of(text: str, pattern: str) -> int:
    """The 1-based number of the first line of `text` matching the regex `pattern`."""
    for n, line in enumerate(text.splitlines(), start=1):
        if re.search(pattern, line):
            return n
    raise AssertionError(f"no line matches {pattern!r}")


def assert_located(err: SpecErrors, path: str, line: int) -> str:
    """The rendered errors name `path:line:col`, show that source line with a caret, and give a hint."""
    text = err.render()
    assert re.search(rf"{re.escape(path)}:{line}:\d+: error: ", text), text
    src = err.source.splitlines()[line - 1].rstrip()
    assert f"    {src}" in text, text
    assert re.search(r"^\s+\^+$", text, re.M), text
    assert "  hint: " in text, text
    return text


def run_expects(expects: list[str], defs: str = "", given_block: str = "", players: int = 3):
    """Compile MINI plus `defs` with one example holding `expects`, run it, and return its result."""
    body = " ".join(f"expect {e}" for e in expects)
    text = MINI + defs + f'\nexample "semantics" {{ players {players} given {{ {given_block} }} {body} }}\n'
    results = api.run_examples(compile_text(text, "sem.soan"))
    assert len(results) == 1
    return results[0]


# ---- the shipped spec ----------------------------------------------------------------------------


def test_shipped_spec_compiles():
    """The shipped Kitano spec compiles into a Spec with its name, player range, rounds and winner line."""
    spec = kitano()
    assert isinstance(spec, ir.Spec)
    assert spec.name == "Kitano Grand Tea Party"
    assert (spec.min_players, spec.max_players) == (3, 4)
    assert spec.rounds is not None and spec.winner is not None
    assert spec.path == str(KITANO)


def test_shipped_spec_lists_rulings_and_assumptions_with_citations():
    """The Kitano spec's open rulings and assumptions carry their names, questions and draft citations."""
    spec = kitano()
    rulings = {r.name: r for r in spec.rulings}
    assumptions = {a.name: a for a in spec.assumptions}
    assert "pardon_threshold" in rulings
    assert "popularity_layout" in assumptions
    pt = rulings["pardon_threshold"]
    assert isinstance(pt.domain, ir.IntDomain) and isinstance(pt.provisional, ir.Int)
    assert pt.domain.lo <= pt.provisional.value <= pt.domain.hi
    assert "■ 茶会" in pt.cite
    assert all(r.cite and r.question for r in spec.rulings)
    assert all(a.text for a in spec.assumptions)
    report = api.check_report(spec)
    assert {r["name"] for r in report["rulings"]} == set(rulings)
    assert {a["name"] for a in report["assumptions"]} == set(assumptions)


def test_ir_spans_point_at_the_declaring_line():
    """Spans of a ruling, a procedure, a nested award statement and the winner line point at their lines in the file."""
    spec = kitano()
    ruling = next(r for r in spec.rulings if r.name == "pardon_threshold")
    assert ruling.span.line == line_of(KITANO_TEXT, r"^ruling pardon_threshold\b")
    assert ruling.span.col == len("ruling ") + 1
    proc = next(p for p in spec.procedures if p.name == "hold_majority")
    assert proc.span.line == line_of(KITANO_TEXT, r"^procedure hold_majority\b")
    awards = [n for n in ir.walk(proc) if isinstance(n, ir.Award)]
    assert len(awards) == 1
    award_line = line_of(KITANO_TEXT, r"^\s+award bonus\(s\) // n")
    assert awards[0].span.line == award_line
    assert awards[0].span.col == KITANO_TEXT.splitlines()[award_line - 1].index("award") + 1
    assert spec.winner.span.line == line_of(KITANO_TEXT, r"^winner among\b")


def test_ir_nodes_are_frozen():
    """IR nodes are frozen attrs classes: assigning a field raises, attrs.evolve makes a changed copy."""
    spec = kitano()
    ruling = spec.rulings[0]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        ruling.name = "renamed"
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        spec.name = "Another game"
    changed = attrs.evolve(ruling, name="renamed")
    assert changed.name == "renamed" and ruling.name != "renamed"


def test_ir_equality_ignores_spans():
    """The same rules at different lines (and in different files) compile to equal specs; other rules do not."""
    a = compile_text(MINI, "a.soan")
    b = compile_text("# a comment\n\n\n" + MINI.replace("award 1 to", "award   1   to"), "b.soan")
    assert a.rounds.span.line != b.rounds.span.line
    assert a == b
    c = compile_text(MINI.replace("award 1 to", "award 2 to"), "a.soan")
    assert a != c
    assert ir.Int(1, span=ir.Span(1, 1, 1, 2)) == ir.Int(1, span=ir.Span(40, 7, 40, 8))


def test_ir_validators_reject_wrong_field_types():
    """IR node constructors reject values of the wrong type or outside the allowed operators."""
    with pytest.raises(TypeError):
        ir.Int("3")
    with pytest.raises(ValueError):
        ir.BinOp("=", ir.Int(1), ir.Int(2))


def test_walk_and_children_visit_nested_nodes():
    """ir.children yields direct children in field order and ir.walk reaches statements nested in for/if blocks."""
    text = MINI.replace("for p in players { award 1 to p for pts }",
                        "for p in players { if p.coins > 2 { award p.coins // 2 to p for pts } }")
    spec = compile_text(text, "w.soan")
    body = spec.rounds.body
    assert isinstance(body, ir.Block)
    loop = body.stmts[0]
    assert isinstance(loop, ir.For)
    assert list(ir.children(loop))[0] is loop.coll
    nodes = list(ir.walk(spec))
    assert nodes[0] is spec
    awards = [n for n in nodes if isinstance(n, ir.Award)]
    assert len(awards) == 1 and awards[0].item == "pts"
    div = awards[0].amount
    assert isinstance(div, ir.BinOp) and div.op == "//"
    assert list(ir.children(div)) == [div.left, div.right]
    assert div in nodes and div.left in nodes and div.right in nodes


def test_walk_finds_every_award_of_the_shipped_spec():
    """Walking the Kitano spec finds exactly the award statements written in its text, each naming a declared score item."""
    spec = kitano()
    awards = [n for n in ir.walk(spec) if isinstance(n, ir.Award)]
    lines = {n for n, line in enumerate(KITANO_TEXT.splitlines(), 1) if re.match(r"\s*award\b", line)}
    assert {a.span.line for a in awards} == lines
    assert {a.item for a in awards} <= {s.name for s in spec.scores}


def test_names_resolve_to_their_declarations():
    """The compiler turns bare names into locals, enum symbols, shared zones, parameters and builtins."""
    text = CARDS + '''ruling limit: 1..3 = 2 "How many?" cite "p. 1"
def f(x) = [c in deck where c.suit == red and x < limit and round >= 0]
'''
    spec = compile_text(text, "r.soan")
    body = next(d for d in spec.defs if d.name == "f").body
    kinds = {(type(n).__name__, getattr(n, "name", None)) for n in ir.walk(body)}
    assert ("SharedZone", "deck") in kinds
    assert ("Symbol", "red") in kinds
    assert ("Local", "x") in kinds and ("Local", "c") in kinds
    assert ("Param", "limit") in kinds
    assert ("Builtin", "round") in kinds
    assert not any(isinstance(n, ir.Name) for n in ir.walk(spec))


# ---- syntax errors -------------------------------------------------------------------------------


def test_missing_closing_brace_is_located():
    """A block left open is reported with file:line:col, the source line, a caret and the expected tokens."""
    text = MINI + "setup { let a = 1\n"
    err = problems_of(text, "brace.soan")
    out = assert_located(err, "brace.soan", line_of(text, r"^setup"))
    assert "missing its closing '}'" in out
    assert "hint: expected " in out


def test_single_equals_in_a_comparison_is_named():
    """Writing '=' where '==' is meant is a located syntax error that says to write '=='."""
    text = MINI + "setup { if player_count = 3 { } }\n"
    err = problems_of(text, "eq.soan")
    out = assert_located(err, "eq.soan", line_of(text, r"^setup"))
    assert "write '=='" in out
    assert "hint: expected '{'" in out
    (p,) = err.problems
    assert p.span.col == text.splitlines()[p.span.line - 1].index("= 3") + 1


def test_statement_without_keyword_is_named():
    """A statement that does not start with a keyword is reported with a message naming the statement keywords."""
    text = MINI.replace("for p in players { award 1 to p for pts }", "x = 1")
    err = problems_of(text, "kw.soan")
    out = assert_located(err, "kw.soan", line_of(text, r"^\s+x = 1"))
    assert "a statement must start with a keyword" in out
    assert "hint: expected 'award'" in out


def test_unknown_character_is_located():
    """An '@' in an expression is an unexpected character, shown with a caret under it and a list of expected tokens."""
    text = MINI + "def f = 1 @ 2\n"
    err = problems_of(text, "at.soan")
    out = assert_located(err, "at.soan", line_of(text, r"^def f"))
    assert "unexpected character '@'" in out
    assert "hint: expected " in out
    (p,) = err.problems
    assert p.span.col == len("def f = 1 ") + 1
    assert "    " + " " * len("def f = 1 ") + "^" in out


def test_truncated_shipped_spec_is_located():
    """The Kitano spec cut off in the middle of a procedure reports where the declaration ends too early."""
    cut = KITANO_TEXT.index("procedure settle_majority")
    text = KITANO_TEXT[: cut + 60]
    err = problems_of(text, "kitano-cut.soan")
    syntax = [p for p in err.problems if p.message.startswith("syntax error")]
    assert len(syntax) == 1
    assert syntax[0].span.line == len(text.rstrip().splitlines())
    out = assert_located(err, "kitano-cut.soan", syntax[0].span.line)
    assert "hint: expected " in out


def test_unterminated_string_is_located():
    """A string with no closing quote is an unexpected '\"' with the expected tokens as a hint."""
    text = MINI + 'note "unfinished\n'
    err = problems_of(text, "str.soan")
    out = assert_located(err, "str.soan", line_of(text, r"^note"))
    assert "unexpected character '\"'" in out
    assert "hint: expected " in out


def test_syntax_error_does_not_hide_problems_in_other_declarations():
    """A syntax error, an unknown function, an unknown procedure and a misspelled field in four declarations are all reported, in line order."""
    text = CARDS + '''def f = 1 @ 2
def g = cout(deck)
setup { do nope }
def h = count(c in deck where c.sute == red)
'''
    err = problems_of(text, "many.soan")
    assert len(err.problems) == 4
    lines = [p.span.line for p in err.problems]
    assert lines == sorted(lines) and len(set(lines)) == 4
    out = err.render()
    assert out.endswith("4 problems found.")
    for needle in ("unexpected character '@'", "unknown function 'cout'", "unknown procedure 'nope'",
                   "nothing is called '.sute'"):
        assert needle in out


# ---- misspelled names ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra, message, hint",
    [
        ("setup { move [c in dek where c.suit == red] to box }", "unknown name 'dek'", "did you mean 'deck'?"),
        ("def f = count(c in deck where c.sute == red)", "nothing is called '.sute'", "did you mean 'suit'?"),
        ("setup { for p in players { do dael(p) } }", "unknown procedure 'dael'", "did you mean 'deal'?"),
        ("setup { for p in players { award 1 to p for ptss } }", "unknown score item 'ptss'", "did you mean 'pts'?"),
        ("global { colour: siut = red }", "unknown domain 'siut'", "did you mean 'suit'?"),
        ("def f = cout(deck)", "unknown function 'cout'", "did you mean 'count'?"),
        ("def f = cnt(c in deck)", "is not an aggregate", "did you mean 'count'?"),
        ("cards tile in dek { 1 x each suit }", "unknown zone 'dek'", "did you mean 'deck'?"),
        ("cards tiel in deck { 1 x each suit }", "unknown component 'tiel'", "did you mean 'tile'?"),
        ("def f = best p in players by p.coins desc else shard", "not a tie fallback", "did you mean 'shared'?"),
        ("token chip supply 5 hold 0..5 when short parital", "unknown shortage rule 'parital'",
         "did you mean 'partial'?"),
    ],
    ids=["zone", "field", "procedure", "score", "domain", "function", "aggregate", "cards-zone", "component",
         "fallback", "shortage"],
)
def test_misspelled_name_gives_nearest_name(extra, message, hint):
    """A misspelled name is reported at its line with a hint naming the nearest declared name."""
    text = CARDS + extra + "\n"
    err = problems_of(text, "typo.soan")
    (p,) = err.problems
    assert message in p.message
    assert p.hint == hint
    assert p.span.line == len(text.splitlines())
    assert f"hint: {hint}" in err.render()


def test_field_typo_caret_underlines_the_field():
    """The caret under a misspelled '.sute' spans exactly the attribute access."""
    text = CARDS + "def f = count(c in deck where c.sute == red)\n"
    err = problems_of(text, "sute.soan")
    rendered = err.render().splitlines()
    i = rendered.index("    def f = count(c in deck where c.sute == red)")
    caret = rendered[i + 1]
    start = caret.index("^")
    assert rendered[i][start:start + len("c.sute")] == "c.sute"
    assert caret.strip() == "^" * len("c.sute")


@pytest.mark.parametrize(
    "extra, message",
    [
        ("def f = take(deck)", "'take' takes 2 argument(s), given 1"),
        ("setup { for p in players { do deal(p, 1) } }", "procedure 'deal' takes 1 argument(s), given 2"),
        ("def g(a, b) = a\ndef f = g(1)", "'g' takes 2 argument(s), given 1"),
        ("def f = vp(1, 2, 3)", "'vp' takes 1 to 2 argument(s), given 3"),
    ],
    ids=["builtin", "procedure", "def", "range"],
)
def test_wrong_arity_is_reported(extra, message):
    """Calling a builtin, a def or a procedure with the wrong number of arguments is a located problem."""
    err = problems_of(CARDS + extra + "\n", "arity.soan")
    assert [p.message for p in err.problems] == [message]


# ---- declarations --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra, message",
    [
        ('enum suit = a, b', "'suit' is declared twice"),
        ('zone deck: shared public row', "'deck' is declared twice"),
        ('score pts "again"', "'pts' is declared twice"),
        ('game "Again" players 2..3', "a spec has one 'game' line"),
        ('winner among p in players by vp(p) desc else draw', "a spec has one 'winner' section"),
        ('example "e" { expect 1 == 1 }\nexample "e" { expect 2 == 2 }', "two examples are called 'e'"),
    ],
    ids=["enum", "zone", "score", "game", "winner", "example"],
)
def test_duplicate_declarations_are_reported(extra, message):
    """Declaring a name, a section or an example title twice is reported at the second declaration."""
    text = CARDS + extra + "\n"
    err = problems_of(text, "dup.soan")
    (p,) = err.problems
    assert message in p.message
    assert p.span.line == len(text.splitlines())


def test_ruling_provisional_outside_domain():
    """A ruling whose provisional resolution lies outside its declared domain is reported at the value."""
    text = MINI + 'ruling line: 3..8 = 9 "Which line?" cite "p. 2"\n'
    err = problems_of(text, "ruling.soan")
    (p,) = err.problems
    assert p.message == "provisional resolution of ruling 'line' is 9, outside its domain 3..8"
    assert p.span.col == text.splitlines()[-1].index("9") + 1


def test_token_without_shortage_rule():
    """A token that does not say what happens when its supply runs short is an error with a hint listing the choices."""
    err = problems_of(MINI + 'token chip "Chip" supply 5 hold 0..5\n', "token.soan")
    (p,) = err.problems
    assert "does not say what happens when its supply runs short" in p.message
    assert "when short partial" in p.hint


def test_token_with_shortage_rule_compiles():
    """A token with 'when short partial' compiles into a Token with that rule."""
    spec = compile_text(MINI + 'token chip "Chip" supply 5 hold 0..5 when short partial\n', "token.soan")
    (tok,) = spec.tokens
    assert (tok.name, tok.when_short, tok.supply) == ("chip", "partial", ir.Int(5))


def test_zone_with_unknown_property_word():
    """A zone property word the language does not know is reported, with the properties listed or the nearest one."""
    err = problems_of(MINI + "zone pile: shared bogus\n", "zone.soan")
    (p,) = err.problems
    assert p.message == "'bogus' is not a zone property"
    assert "per_player" in p.hint
    err = problems_of(MINI + "zone pile: shared hiden\n", "zone.soan")
    assert err.problems[0].hint == "did you mean 'hidden'?"


def test_card_row_leaving_a_field_without_value():
    """A cards row that neither sets nor enumerates a field without default is reported with a hint."""
    text = CARDS.replace("cards tile in deck { 2 x each suit }", "cards tile in deck { 2 x value = 2 }")
    err = problems_of(text, "row.soan")
    (p,) = err.problems
    assert p.message == "these 'tile' cards leave field 'suit' without a value"
    assert "each suit" in p.hint


@pytest.mark.parametrize("name", ["kind", "owner"])
def test_field_named_like_an_engine_card_attribute_is_rejected(name):
    """A component field called kind or owner would be hidden by the engine's own attribute, so check rejects it at the field (facedown and zone are keywords already)."""
    text = CARDS.replace("  value: 1..5 = 1\n", f"  value: 1..5 = 1\n  {name}: 1..3 = 1\n")
    err = problems_of(text, "attr.soan")
    (p,) = err.problems
    assert f"'{name}' is an attribute every card already has" in p.message
    assert p.span.line == line_of(text, rf"^\s+{name}: 1\.\.3")


def test_an_assumption_sizing_a_token_supply_is_listed_as_affecting_that_token():
    """An assumption read only by a token's supply expression (directly or through a def) affects that token, not 'nothing'."""
    text = MINI + '''assume chips: 5..50 = 20 "How many chips there are."
def chip_count = chips * 2
token chip supply chip_count hold 0..100 when short partial
'''
    report = api.check_report(compile_text(text, "chips.soan"))
    (a,) = report["assumptions"]
    assert a["affects"] == ["token chip"]


def test_example_without_expect():
    """An example that expects nothing is an error telling the designer to add an expect."""
    err = problems_of(MINI + 'example "nothing" { players 2 run { } }\n', "ex.soan")
    (p,) = err.problems
    assert p.message == "example 'nothing' expects nothing"
    assert p.hint == "add: expect CONDITION"


@pytest.mark.parametrize(
    "extra, message",
    [
        ("enum colour = red, green\nzone red: shared public row", "'red' is both declared here and a value of colour"),
        ("enum stage = round, turn", "'round' is a name the engine already uses"),
        ("enum colour = red, green\nenum mood = red, calm", "'red' names two things"),
    ],
    ids=["declaration", "builtin", "two-enums"],
)
def test_value_names_that_clash(extra, message):
    """An enum value that is also a declared name, an engine name or another enum's value is reported."""
    err = problems_of(MINI + extra + "\n", "clash.soan")
    assert any(message in p.message for p in err.problems), err.render()


def test_missing_sections_are_reported():
    """A spec with no game line, no rounds or no winner line says which is missing and how to add it."""
    err = problems_of('rounds 1 { }\n', "nogame.soan")
    msgs = {p.message: p.hint for p in err.problems}
    assert "start the spec with" in msgs["the spec has no 'game' line"]
    assert "winner among" in msgs["the spec has no 'winner' line"]
    err = problems_of('game "G" players 2..3\n', "norounds.soan")
    assert [p.message for p in err.problems] == ["the spec has no 'rounds' section"]


def test_score_item_with_unknown_domain():
    """A score item declared with an unknown domain name is reported like any other unknown domain."""
    err = problems_of(MINI.replace('score pts "Points"', 'score pts "Points" colr'), "score.soan")
    assert any("unknown domain 'colr'" in p.message for p in err.problems)


def test_spec_file_with_byte_order_mark_loads(tmp_path):
    """A spec file saved with a UTF-8 byte-order mark loads like the same file without one."""
    path = tmp_path / "bom.soan"
    path.write_text("\ufeff" + MINI, encoding="utf-8")
    assert load_spec(path) == compile_text(MINI)


def test_windows_line_endings_keep_lines_right():
    """A spec with CRLF line endings compiles, and its problems are reported at the right line."""
    text = (CARDS + "def f = cout(deck)\n").replace("\n", "\r\n")
    err = problems_of(text, "crlf.soan")
    (p,) = err.problems
    assert p.span.line == len(CARDS.splitlines()) + 1
    assert "    def f = cout(deck)\n" in err.render()


def test_missing_spec_file_is_a_spec_error(tmp_path):
    """Loading a spec file that does not exist raises SpecErrors naming the file, not an OSError."""
    with pytest.raises(SpecErrors) as info:
        load_spec(tmp_path / "nothere.soan")
    assert "no such spec file" in info.value.render()


# ---- robustness ----------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=300))
def test_garbage_raises_only_spec_errors(text):
    """compile_text on arbitrary text either compiles or raises SpecErrors whose every problem is rendered."""
    try:
        compile_text(text, "garbage.soan")
    except SpecErrors as e:
        assert e.problems
        assert e.render().endswith("found.")


_WORDS = ["game", '"G"', "players", "2..3", "rounds", "1", "{", "}", "winner", "among", "p", "in", "by", "vp(p)",
          "desc", "else", "draw", "\n", "=", "==", "set", "let", "def", "f", "(", ")", "[", "]", ",", "best",
          "order", "zone", ":", "token", "supply", "hold", "when", "short", "ruling", "enum", "cards", "each",
          "example", "expect", '"', "#", "-", ".."]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_WORDS), max_size=40).map(" ".join))
def test_keyword_soup_raises_only_spec_errors(text):
    """compile_text on random sequences of the language's own words raises nothing but SpecErrors."""
    try:
        compile_text(text, "soup.soan")
    except SpecErrors as e:
        assert all(p.span.line >= 0 for p in e.problems)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, len(KITANO_TEXT) - 1), st.integers(1, 120))
def test_kitano_with_a_slice_deleted_raises_only_spec_errors(start, length):
    """Deleting any slice of the Kitano spec gives either a spec or located SpecErrors, never another exception."""
    text = KITANO_TEXT[:start] + KITANO_TEXT[start + length:]
    try:
        compile_text(text, "kitano-cut.soan")
    except SpecErrors as e:
        assert e.problems
        assert all(p.path == "kitano-cut.soan" for p in e.problems)


# ---- semantics through the interpreter -----------------------------------------------------------


def test_floor_division_and_modulo():
    """'//' rounds toward minus infinity and '%' is the matching remainder."""
    r = run_expects(["7 // 2 == 3", "-7 // 2 == -4", "7 % 3 == 1", "3 * 4 - 2 == 10"])
    assert r.passed, r.failures


def test_best_else_shared_returns_all_tied():
    """'best ... else shared' returns every element tied at the top, in collection order."""
    r = run_expects(["top == [p1, p2]", "count(top) == 2"],
                    defs="def top = best p in players by p.coins desc else shared\n",
                    given_block="set p1.coins = 4 set p2.coins = 4 set p3.coins = 1")
    assert r.passed, r.failures


def test_best_else_none_and_else_stable():
    """On a tie at the top, 'else none' returns nobody and 'else stable' the first tied in collection order."""
    defs = ("def nobody = best p in players by p.coins desc else none\n"
            "def first_tied = best p in players by p.coins desc else stable\n"
            "def clear = best p in players by p.coins asc else none\n")
    r = run_expects(["nobody == []", "first_tied == [p2]", "clear == [p1]"], defs=defs,
                    given_block="set p1.coins = 1 set p2.coins = 4 set p3.coins = 4")
    assert r.passed, r.failures


def test_order_else_stable_keeps_collection_order_in_ties():
    """'order ... else stable' sorts by the keys and keeps tied elements in the collection's order."""
    r = run_expects(["ranked == [p2, p3, p1]", "by_seat == [p3, p2, p1]"],
                    defs=("def ranked = order p in players by p.coins desc else stable\n"
                          "def by_seat = order p in players by p.coins desc, p.seat desc else stable\n"),
                    given_block="set p1.coins = 1 set p2.coins = 4 set p3.coins = 4")
    assert r.passed, r.failures


def test_list_filter_and_map_comprehensions():
    """List comprehensions filter with 'where' and map with 'for'."""
    r = run_expects(["[x in nums where x > 3] == [5, 8]", "[x * 2 for x in nums where x != 8] == [10, 6, 6]",
                     "[x for x in 1..3] == [1, 2, 3]", "nums[1] == 3", "nums has 8 and not (nums has 4)"],
                    defs="def nums = [5, 3, 8, 3]\n")
    assert r.passed, r.failures


def test_aggregates():
    """count, sum, max, min, any, all, distinct, first and last compute what their names say."""
    r = run_expects(["count(nums) == 4", "sum(nums) == 19", "max(nums) == 8", "min(nums) == 3", "max(2, 9, 4) == 9",
                     "any(x in nums where x > 7)", "not all(x in nums where x > 3)", "all(x in nums where x > 2)",
                     "distinct(nums) == 3", "first(nums) == 5", "last(nums) == 3",
                     "sum(x for x in nums where x > 4) == 13", "count(p in players where p.coins == 0) == 3",
                     "first([]) == none", "count([]) == 0"],
                    defs="def nums = [5, 3, 8, 3]\n")
    assert r.passed, r.failures


def test_if_then_else_expression_and_defs_with_parameters():
    """An 'if ... then ... else' expression picks a branch, and a def with parameters evaluates its body."""
    r = run_expects(["sign(5) == 1", "sign(0) == 0", "sign(-2) == -1", "(if player_count > 2 then 10 else 20) == 10"],
                    defs="def sign(x) = if x > 0 then 1 else if x < 0 then -1 else 0\n")
    assert r.passed, r.failures


def test_failing_example_reports_the_actual_value():
    """An example whose expectation fails is reported as failed, with its line and the actual value."""
    text = MINI + 'example "arithmetic" { players 2 expect 2 + 2 == 5 }\nexample "fine" { expect 1 == 1 }\n'
    bad, good = api.run_examples(compile_text(text, "ex.soan"))
    assert not bad.passed and good.passed
    (msg,) = bad.failures
    assert msg == f"line {len(text.splitlines()) - 1}: expected 2 + 2 == 5, but it was 4 (against 5)"


def test_shipped_examples_pass():
    """Every example written in the Kitano spec passes."""
    results = api.run_examples(kitano())
    assert results
    assert [r.title for r in results if not r.passed] == []


def test_game_with_no_decisions_runs_to_the_end():
    """A spec without choices or chance runs from start() to a terminal state with the scores its rules award."""
    text = MINI.replace("rounds 1 {", "rounds 3 {").replace(
        "award 1 to p for pts", "award p.seat to p for pts")
    st_ = State(api.tables(compile_text(text, "det.soan"), 3)).start()
    assert st_.is_terminal()
    assert st_.result["scores"] == {"P1": 3, "P2": 6, "P3": 9}
    assert st_.result["winners"] == ["P3"] and not st_.result["draw"]


def test_tied_game_is_a_draw():
    """With every player on equal points and 'else draw', the result is a draw between all of them."""
    st_ = State(api.tables(compile_text(MINI, "draw.soan"), 2)).start()
    assert st_.is_terminal()
    assert st_.result["draw"] is True
    assert sorted(st_.result["winners"]) == ["P1", "P2"]


def test_a_hold_or_score_range_without_zero_is_a_located_error():
    """Holdings and scores start at 0, so a hold of 2..5 or a score range of 1..9 is rejected where it is written."""
    from soan.dsl import compile_text
    from soan.dsl.errors import SpecErrors

    text = """game "Zero" players 2..2
token chip "Chips" supply 10 hold 2..5 when short partial
score pts "Points" 1..9
rounds 1 { award 1 to player(1) for pts }
winner among p in players by vp(p) desc else shared
"""
    with pytest.raises(SpecErrors) as e:
        compile_text(text, "z.soan")
    lines = sorted(p.span.line for p in e.value.problems)
    assert lines == [2, 3]
    assert "outside its hold 2..5" in e.value.render()


# Two invented card tables, chosen like a ruling (section 4.3 of the reference).
TABLES = CARDS.replace("cards tile in deck { 2 x each suit }", '''assume tile_table: {low, high} = low "Invented." cite "Components"
cards tile in deck assumed tile_table {
  1 x each suit
  low: 2 x suit = red, value = 1
  high: 1 x suit = blue, value = 5
}''')


def test_card_rows_marked_with_a_table_exist_only_under_that_reading():
    """A row marked `VALUE:` makes cards only when the cards' assumption has that value; unmarked rows always do."""
    spec = compile_text(TABLES, "tables.soan")
    low = api.tables(spec, 2)
    high = api.tables(spec, 2, api.parse_params(spec, {"tile_table": "high"}))
    assert sorted((f["suit"], f["value"]) for f in low.fields) == [("blue", 1), ("red", 1), ("red", 1), ("red", 1)]
    assert sorted((f["suit"], f["value"]) for f in high.fields) == [("blue", 1), ("blue", 5), ("red", 1)]
    assert api.check_report(spec)["summary"]["cards"] == 4


def test_a_row_marked_with_an_unknown_table_is_located_with_a_hint():
    """A row's mark that is not a value of the assumption is an error at the row, naming the nearest value."""
    err = problems_of(TABLES.replace("high: 1 x", "hihg: 1 x"))
    (p,) = err.problems
    assert "'hihg' is not a value of assumption 'tile_table'" in p.message and p.hint == "did you mean 'high'?"
    err = problems_of(CARDS.replace("{ 2 x each suit }", "{ low: 2 x each suit }"))
    assert "needs the cards to be 'assumed NAME'" in err.problems[0].message


def test_let_inside_an_expression_says_let_is_a_statement():
    """`def f = let n = 3 in ...` is reported as 'let' being a statement, not an expression, with a hint."""
    (p,) = problems_of(MINI + "def f(m) = let n = 3 in n + m\n").problems
    assert "'let' is a statement, not an expression" in p.message
    assert "def n = 3" in p.hint


def test_an_if_after_an_operator_asks_for_parentheses():
    """`award 1 + if ... to p` is reported at the `if` with a hint to put the `if` in parentheses."""
    text = MINI.replace("award 1 to p for pts", "award 1 + if round == 1 then 2 else 0 to p for pts")
    (p,) = problems_of(text).problems
    assert "an 'if' expression after an operator needs parentheses" in p.message
    assert p.hint == "write it in parentheses: 1 + (if COND then A else B)"


def test_an_unknown_function_with_no_close_name_lists_near_names():
    """An unknown function whose name is close to nothing still gets a hint naming the nearest functions there are."""
    text = MINI.replace("award 1 to p for pts", "award count(others(p)) to p for pts")
    (p,) = problems_of(text).problems
    assert p.message == "unknown function 'others'" and p.hint and ("nearest:" in p.hint or "known functions:" in p.hint)


def test_free_locals_binds_a_ranking_and_a_comprehension_variable_but_not_the_callers_local():
    """A ranking's and a comprehension's own variables are bound inside them, so only a local from outside is free."""
    spec = compile_text(MINI.replace(
        "winner among",
        "def richer(p) = count(q in players where q.coins > p.coins)\n"
        "def top = best q in players by q.coins desc else none\n"
        "winner among"), "mini.soan")
    defs = {d.name: d.body for d in spec.defs}
    richer, top = defs["richer"], defs["top"]
    assert ir.free_locals(richer) == {"p"}
    assert any(isinstance(n, ir.Ranking) for n in ir.walk(top))
    assert ir.free_locals(top) == set()
