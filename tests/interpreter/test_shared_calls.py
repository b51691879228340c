"""The compiled engine works a def call out once where the same call on the same locals always ran earlier in the
same expression (codegen._shared), and its rankings' keys are generated inline (codegen.key_values): the games,
marks and errors are the closure interpreter's."""

from __future__ import annotations

import re

import pytest

from soan import api
from soan.dsl import compile_text
from soan.dsl.errors import SpecRuntimeError

SHARED = """
game "Shared calls" players 3..3
component chip { worth: 1..3 }
cards chip in pile {
  2 x worth = 1
  2 x worth = 2
  2 x worth = 3
}
zone pile: shared public unordered
zone kept: per_player public unordered
score s
score t
score u
def worth_of(p) = sum(c.worth for c in p.kept)
def leaders(p) = best q in players by worth_of(q) desc else shared
rounds 2 {
  for p in players {
    choose c from pile by p "takes" {
      move c to p.kept
    }
  }
}
scoring {
  for p in players {
    if worth_of(p) >= 3 and (worth_of(p) > 4 or worth_of(p) == 3) { award worth_of(p) to p for s }
    if count(p.kept) > 5 or worth_of(p) >= 4 { award 1 to p for t }
    if (count(p.kept) > 5 or worth_of(p) > 2) == (worth_of(p) >= 3) { award 1 to p for t }
    if (if count(p.kept) > 1 then worth_of(p) else 0) >= 0 and worth_of(p) >= 0 { award 1 to p for u }
    if count(leaders(p)) >= 1 and count(leaders(p)) <= 2 { award 1 to p for u }
  }
}
winner among p in players by vp(p) desc, worth_of(p) asc else shared
"""


def _both(text):
    spec = compile_text(text, "shared.soan")
    return api.tables(spec, 3, engine="compiled"), api.tables(spec, 3, engine="closures")


def _source(tables, line: str) -> str:
    """The generated function for the expression on `line` of the spec (its comment names the line)."""
    src = tables.rules.x.source()
    for fn in src.split("\ndef "):
        if line in fn.splitlines()[1]:
            return fn
    raise AssertionError(f"no generated function for {line!r}")


def test_a_repeated_def_call_is_shared_only_where_its_first_call_always_runs():
    """`worth_of(p) >= 3 and (worth_of(p) > 4 or ...)` calls the def once (its first call always runs); a first call
    on the right of `or`, or in a branch of `if`, is called where it stands and shares nothing."""
    compiled, _ = _both(SHARED)
    first = _source(compiled, "if worth_of(p) >= 3 and")
    assert len(re.findall(r"_A_worth_of\(", first)) == 1 and ":= _A_worth_of" in first
    right_of_or = _source(compiled, "if count(p.kept) > 5 or worth_of(p) >= 4")
    assert ":=" not in right_of_or and len(re.findall(r"_A_worth_of\(", right_of_or)) == 1
    # the call inside `or` runs only sometimes, so the one after it (always run) is a call of its own
    both = _source(compiled, "if (count(p.kept) > 5 or worth_of(p) > 2) ==")
    assert len(re.findall(r"_A_worth_of\(", both)) == 2 and ":=" not in both
    # the `then` branch is generated before the test but runs after it: the call after the whole `if` is its own
    branch = _source(compiled, "if (if count(p.kept) > 1 then worth_of(p)")
    assert len(re.findall(r"_A_worth_of\(", branch)) == 2 and ":=" not in branch


def test_a_def_with_a_ranking_is_called_every_time_so_its_ties_are_counted_every_time():
    """`leaders(p)` settles a tie by its fallback at each call (a mark each time): both calls stay (a def that can
    run a ranking is never shared, and this one is called through its env function), and the tie marks equal the
    closure interpreter's."""
    compiled, closures = _both(SHARED)
    twice = _source(compiled, "if count(leaders(p)) >= 1")
    assert len(re.findall(r"_A_leaders\(|_D_leaders\(", twice)) == 2 and ":=" not in twice
    ties = 0
    for seed in range(12):
        a, b = api.play(compiled, seed, ["random"] * 3), api.play(closures, seed, ["random"] * 3)
        assert a.log == b.log
        assert a.state.marks == b.state.marks
        ties += sum(n for (kind, _), n in a.state.marks.items() if kind == "tie_fallback")
    assert ties > 0  # some games did tie, so the counts compared above are not all zero


@pytest.mark.parametrize("bots", [["random"] * 3, ["greedy"] * 3])
def test_shared_calls_and_generated_keys_play_the_closure_interpreters_games(bots):
    """Every scoring condition above, both winner-line keys and the ranking def, over 12 seeds: the same log,
    scores and marks on both engines (random seats, and greedy ones, whose copies end the game at every move)."""
    compiled, closures = _both(SHARED)
    scored = set()
    for seed in range(12):
        a, b = api.play(compiled, seed, bots), api.play(closures, seed, bots)
        assert a.log == b.log
        assert a.state.vp == b.state.vp and a.state.marks == b.state.marks
        scored |= {k for k, col in a.state.vp.items() if any(col)}
    assert scored == {"s", "t", "u"}  # every condition's award was reached in some game


def test_a_ranking_key_without_a_value_is_the_same_located_error_on_both_engines():
    """A key that is none for an element stops the game with the ranking's line on either engine (the generated
    values raise it at that element, before a later one is looked at)."""
    bad = SHARED.replace("def leaders(p) = best q in players by worth_of(q) desc else shared",
                         "def leaders(p) = best q in players by (if worth_of(q) > 100 then worth_of(q) else none) desc "
                         "else shared")
    compiled, closures = _both(bad)
    errors = []
    for tables in (compiled, closures):
        with pytest.raises(SpecRuntimeError) as e:
            api.play(tables, 0, ["random"] * 3)
        errors.append((e.value.message, e.value.span.line))
    assert errors[0] == errors[1]
    assert "a ranking key is none" in errors[0][0]
