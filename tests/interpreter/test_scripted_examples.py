"""Examples that play parts of the game and answer its decisions from a script."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from soan import api
from soan.dsl import compile_text
from soan.dsl.errors import SpecErrors
from soan.interpreter.examples import run_example

ROOT = Path(__file__).resolve().parents[2]
WALK = Path(__file__).resolve().parent / "specs" / "walk-1.soan"
WALK_TEXT = WALK.read_text(encoding="utf-8")


def grammar_statement_kinds() -> set[str]:
    """The statement kinds the grammar declares: the aliases of `?stmt`, `choose_stmt` and `if_stmt`."""
    text = (ROOT / "dsl" / "soan.lark").read_text(encoding="utf-8")
    stmt = re.search(r"^\?stmt:(.*?)^\n", text, re.S | re.M).group(1)
    choose = re.search(r"^choose_stmt:(.*?)^MAY", text, re.S | re.M).group(1)
    kinds = set(re.findall(r"->\s*(\w+)", stmt)) | set(re.findall(r"->\s*(\w+)", choose))
    if re.search(r"^\s*\|\s*if_stmt\s*$", stmt, re.M):
        kinds.add("if_stmt")
    return kinds


def grammar_decision_kinds() -> set[str]:
    """The kinds of decision the grammar allows: one item, each count of items (`?count`), a named option,
    a pass (`may` / `pass if`), and a choice made inside `simultaneous`."""
    text = (ROOT / "dsl" / "soan.lark").read_text(encoding="utf-8")
    counts = re.search(r"^\?count:(.*?)^pass_if", text, re.S | re.M).group(1)
    kinds = {"one"} | set(re.findall(r"->\s*(\w+)", counts))
    if "option_branch" in text:
        kinds.add("option")
    if re.search(r"^pass_if:", text, re.M) and re.search(r'^MAY: "may"', text, re.M):
        kinds.add("pass")
    if '"simultaneous" "for"' in text:
        kinds.add("simultaneous")
    return kinds


def one(example_text: str, title: str | None = None):
    """Compile the walk spec with one more example and run that example."""
    spec = compile_text(WALK_TEXT + "\n" + example_text, str(WALK))
    ex = spec.examples[-1] if title is None else next(e for e in spec.examples if e.name == title)
    return spec, run_example(spec, ex)


def test_examples_reach_every_statement_and_decision_kind():
    """Between them, the walk spec's examples reach every statement kind of the grammar and every kind of decision."""
    spec = api.load(WALK)
    reached: dict[tuple[str, str], list[str]] = {}
    for ex in spec.examples:
        r = run_example(spec, ex, trace=True)
        assert r.passed, r.render(spec)
        for what in r.reached:
            reached.setdefault(what, []).append(ex.name)
    kinds = grammar_statement_kinds()
    assert {"let_stmt", "choose_items", "choose_option", "simultaneous_stmt", "if_stmt", "end_stmt"} <= kinds
    missing = sorted(k for k in kinds if ("statement", k) not in reached)
    assert not missing, f"no example reaches {missing}"
    decisions = grammar_decision_kinds()
    assert decisions == {"one", "up_to", "exactly", "between", "option", "pass", "simultaneous"}
    missing = sorted(k for k in decisions if ("decision", k) not in reached)
    assert not missing, f"no example reaches a decision of kind {missing}"


def test_an_unanswered_decision_names_decision_player_prompt_and_moves():
    """A decision the script leaves unanswered fails the example, located at the play line, naming who decides what and the legal moves."""
    spec, r = one('example "short script" {\n  players 2\n  play game { shuffle unchanged }\n  expect winner p1\n}\n')
    assert not r.passed
    (p,) = r.problems
    assert p.message == ("P1's decision 'shows a chip' (line 31) is not answered: "
                         "the script of this game has no line for it")
    assert "legal moves: chip(blue, 1), chip(red, 1)" in p.hint
    text = r.render(spec)
    assert text.splitlines()[0].startswith(f"{WALK}:{p.span.line}:3: error:")
    assert "    play game { shuffle unchanged }" in text and "    ^^^^" in text


def test_an_illegal_move_says_why_and_lists_the_legal_ones():
    """A scripted move that matches no legal move is reported at its line with the legal moves."""
    _, r = one('example "wrong card" {\n  players 2\n  play game {\n    shuffle unchanged\n'
               '    p1 shows chip where value == 2\n  }\n  expect winner p1\n}\n')
    (p,) = r.problems
    assert p.message == ("'p1 shows chip where value == 2' is not a legal move at P1's decision 'shows a chip' (line 31) "
                         "('chip where value == 2' lies in P2.hand)")
    assert p.hint == "legal moves: chip(blue, 1), chip(red, 1)"
    assert p.span.col == 5
    _, r = one('example "an item for an option" {\n  players 2\n  play game {\n    shuffle unchanged\n'
               '    p1 shows chip where colour == red  p2 shows chip where colour == red\n    p1 acts chip\n  }\n'
               '  expect winner p1\n}\n')
    assert r.problems[0].message.endswith("(it is a choice between named options)")
    assert r.problems[0].hint == "legal moves: gain"


def test_a_move_for_the_wrong_player_or_an_ambiguous_move_is_an_error():
    """A line for another player than the one deciding, or one matching two moves, says so."""
    _, r = one('example "wrong seat" {\n  players 2\n  play game {\n    shuffle unchanged\n'
               '    p2 shows chip\n  }\n  expect winner p1\n}\n')
    assert r.problems[0].message.startswith("'p2 shows chip' is for P2, but the game is at P1's decision 'shows a chip'")
    _, r = one('example "which" {\n  players 2\n  play game {\n    shuffle unchanged\n'
               '    p1 shows chip\n  }\n  expect winner p1\n}\n')
    assert "matches 2 legal moves" in r.problems[0].message


def test_chance_needs_a_fixed_outcome_or_a_seed():
    """A chance event with no line to fix it and no seed is an error with a hint; a seed draws it instead."""
    _, r = one('example "roll unfixed" {\n  players 2\n  play do chance_things { }\n  expect true\n}\n')
    (p,) = r.problems
    assert p.message == "chance event 'roll die' is not fixed and the example has no seed"
    assert p.hint == "fix it with a line: roll N (1..6), or give the example a seed"
    _, r = one('example "roll seeded" {\n  players 2\n  seed 5\n  play do chance_things { }\n'
               '  expect first(tray).face >= 1\n}\n')
    assert r.passed, r.failures
    _, r = one('example "roll too high" {\n  players 2\n  play do chance_things { roll 7 }\n  expect true\n}\n')
    assert r.problems[0].message == "roll die cannot show 7: its faces are 1..6"


def test_offered_checks_the_exact_set_of_moves():
    """'is offered' fails when a listed move is not offered, or when more moves are offered than listed."""
    _, r = one('example "more offered" {\n  players 2\n  play game {\n    shuffle unchanged\n'
               '    p1 is offered { chip where colour == red }\n  }\n  expect winner p1\n}\n')
    assert r.problems[0].message == "P1's decision 'shows a chip' (line 31) offers more than the script lists: chip(blue, 1)"
    _, r = one('example "not offered" {\n  players 2\n  play game {\n    shuffle unchanged\n'
               '    p1 is offered { chip where value == 2 }\n  }\n  expect winner p1\n}\n')
    assert r.problems[0].message == "P1's decision 'shows a chip' (line 31) does not offer 'chip where value == 2'"


def test_a_script_line_with_nothing_left_to_answer_is_an_error():
    """Script lines after the part has ended are reported: they answer nothing."""
    _, r = one('example "too long" {\n  players 2\n  play do out(p1) { p1 acts gain }\n  expect eliminated p1\n}\n')
    assert r.problems[0].message == ("the script goes on after the procedure 'out' ends: "
                                     "no decision or chance event is left for 'p1 acts gain'")


def test_outcome_expectations_fail_with_what_happened():
    """Winner, draw and elimination expectations report how the game really ended."""
    _, r = one('example "who won" {\n  players 3\n  play do winning(p3) { }\n  expect winner p1\n'
               '  expect draw\n  expect no winner\n  expect eliminated p2\n  expect account "nobody said this"\n}\n')
    msgs = [p.message for p in r.problems]
    assert msgs == ["expected P1 to win, but the game ended with won by P3",
                    "expected a draw, but the game ended with won by P3",
                    "expected no winner, but the game ended with won by P3",
                    "expected P2 eliminated, but nobody was",
                    "expected the account to say 'nobody said this', but no line does"]
    _, r = one('example "not over" {\n  players 2\n  expect winner p1\n}\n')
    assert r.problems[0].message == "expected how the game ends, but it has not ended"


def test_with_resolves_a_ruling_for_one_example():
    """The same example under another resolution has its own name and its own expectations; without `with` the second fails."""
    spec = api.load(WALK)
    names = [e.name for e in spec.examples]
    title = "A whole game from the setup: simultaneous choices and named options"
    assert title in names and f"{title} [bonus_points=3]" in names
    assert all(r.passed for r in api.run_examples(spec))
    text = WALK_TEXT.replace("  with bonus_points = 3\n", "", 1)
    with pytest.raises(SpecErrors, match="two examples are called"):
        compile_text(text, str(WALK))
    text = text.replace(f'example "{title}" {{\n  players 2\n  play game {{\n    shuffle unchanged\n'
                        f'    p1 shows chip where colour == red  p2', f'example "default bonus" {{\n  players 2\n'
                        f'  play game {{\n    shuffle unchanged\n    p1 shows chip where colour == red  p2', 1)
    results = {r.title: r for r in api.run_examples(compile_text(text, str(WALK)))}
    assert not results["default bonus"].passed
    assert results["default bonus"].problems[0].message == "expected P1 to win, but the game ended with won by P2"


@pytest.mark.parametrize("example, message", [
    ('example "x" {\n  players 2\n  play game { p3 shows chip }\n  expect true\n}\n', "'p3' is not a player of this example"),
    ('example "x" {\n  players 2\n  play phase plya { }\n  expect true\n}\n', "the game has no phase 'plya'"),
    ('example "x" {\n  with bonus_point = 2\n  expect true\n}\n',
     "no open ruling, assumption or option is called 'bonus_point'"),
    ('example "x" {\n  with bonus_points = 9\n  expect true\n}\n', "'bonus_points' is 9, outside its domain 0..3"),
    ('example "x" {\n  play do tool(p1, p2) { }\n  expect true\n}\n', "unknown procedure 'tool'"),
    ('example "x" {\n  play game { p1 shows colour where value == 1 }\n  expect true\n}\n',
     "'where' follows a kind of card in a script"),
    ('example "x" {\n  players 2\n  expect winner p3\n}\n', "'p3' is not a player of this example"),
], ids=["seat", "phase", "with-name", "with-domain", "procedure", "where", "outcome-seat"])
def test_script_mistakes_are_located_spec_errors(example, message):
    """Mistakes in an example's parts, script or `with` are spec errors with a place and a hint, found before anything runs."""
    with pytest.raises(SpecErrors) as e:
        compile_text(WALK_TEXT + "\n" + example, str(WALK))
    (p,) = e.value.problems
    assert p.message == message
    assert p.span.line > WALK_TEXT.count("\n")


def test_an_expect_between_parts_checks_the_state_between_them():
    """An expectation written between two parts sees the game as it stood there, not at the end."""
    _, r = one('example "between" {\n  players 2\n  given { set p1.coins = 2 }\n  expect p1.coins == 2\n'
               '  run { set p1.coins += 2 }\n  expect p1.coins == 4\n}\n')
    assert r.passed, r.failures
    _, r = one('example "between, failing" {\n  players 2\n  given { set p1.coins = 2 }\n  expect p1.coins == 4\n'
               '  run { set p1.coins += 2 }\n  expect p1.coins == 2\n}\n')
    assert [p.message for p in r.problems] == ["expected p1.coins == 4, but it was 2 (against 4)",
                                               "expected p1.coins == 2, but it was 4 (against 2)"]
