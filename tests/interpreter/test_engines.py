"""The compiled backend (interpreter/codegen.py) against the closure
interpreter: on every shipped spec and player count, the same seeds and bots
give byte-identical logs, the same account of events and the same marks."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import json

import pytest

import log_corpus
from soan import api

SPECS = sorted((Path(__file__).resolve().parents[2] / "specs").glob("*.soan"))


@lru_cache(maxsize=None)
def _spec(path: Path):
    return api.load(str(path))


def _cases():
    for path in SPECS:
        spec = _spec(path)
        for n in range(spec.min_players, spec.max_players + 1):
            yield pytest.param(path, n, id=f"{path.stem}-p{n}")


def assert_same_games(path: Path, n: int, seeds, bots: str = "random") -> None:
    spec = _spec(path)
    closures = api.tables(spec, n, engine="closures")
    compiled = api.tables(spec, n, engine="compiled")
    for seed in seeds:
        a = api.play(closures, seed, [bots] * n, narrate=True)
        b = api.play(compiled, seed, [bots] * n, narrate=True)
        assert b.to_json() == a.to_json(), f"{path.name} {n} players seed {seed}: the logs differ"
        assert b.state.events == a.state.events, f"{path.name} {n} players seed {seed}: the accounts differ"
        assert b.state.marks == a.state.marks, f"{path.name} {n} players seed {seed}: the marks differ"
        assert b.state.consulted == a.state.consulted


@pytest.mark.parametrize("path,n", list(_cases()))
def test_compiled_games_match_the_closure_interpreter_on_a_sample(path, n):
    """A seeded random game per shipped spec and player count is byte-identical under both engines."""
    assert_same_games(path, n, range(1))


def test_compiled_greedy_games_match_the_recorded_corpus_on_kitano():
    """Greedy games (bots that sample and look ahead) on Kitano 20 at 3 players are byte-identical to those
    recorded before the compiled backend existed."""
    path = SPECS[[p.stem for p in SPECS].index("kitano-20")]
    recorded = json.loads(log_corpus.CORPUS.read_text(encoding="utf-8"))
    assert log_corpus.digests(_spec(path), 3, "compiled", log_corpus.GREEDY, "greedy") == recorded["greedy:kitano-20-p3"]


@pytest.mark.slow
@pytest.mark.parametrize("path,n", list(_cases()))
def test_compiled_games_match_the_recorded_corpus_on_200_seeds(path, n):
    """Two hundred seeded random games per shipped spec and count under the compiled engine are byte-identical
    (log, account, marks) to those the closure interpreter recorded before the compiled backend existed."""
    recorded = json.loads(log_corpus.CORPUS.read_text(encoding="utf-8"))
    assert log_corpus.digests(_spec(path), n, "compiled") == recorded[f"{path.stem}-p{n}"]


def test_the_corpus_covers_every_shipped_spec_and_count():
    """The recorded corpus has an entry for every shipped spec and player count, so none is left unchecked."""
    recorded = json.loads(log_corpus.CORPUS.read_text(encoding="utf-8"))
    cases = sorted(f"{p.stem}-p{n}" for p in SPECS for n in range(_spec(p).min_players, _spec(p).max_players + 1))
    assert sorted(k for k in recorded if ":" not in k) == cases
    for kind in ("sample", "greedy"):
        assert sorted(k[len(kind) + 1:] for k in recorded if k.startswith(kind + ":")) == cases


@pytest.mark.parametrize("path,n", list(_cases()))
def test_compiled_games_match_the_recorded_corpus_on_a_sample(path, n):
    """Three seeded random games per shipped spec and count under the compiled engine are byte-identical to those
    the closure interpreter recorded before the compiled backend existed."""
    recorded = json.loads(log_corpus.CORPUS.read_text(encoding="utf-8"))
    assert log_corpus.digests(_spec(path), n, "compiled", log_corpus.SAMPLE) == recorded[f"sample:{path.stem}-p{n}"]


@pytest.mark.slow
@pytest.mark.parametrize("path,n", list(_cases()))
def test_compiled_greedy_games_match_the_recorded_corpus(path, n):
    """Greedy games per shipped spec and count under the compiled engine are byte-identical to those recorded
    before the compiled backend existed."""
    recorded = json.loads(log_corpus.CORPUS.read_text(encoding="utf-8"))
    assert log_corpus.digests(_spec(path), n, "compiled", log_corpus.GREEDY, "greedy") == recorded[f"greedy:{path.stem}-p{n}"]


def test_compiled_source_names_the_spec_lines():
    """The generated source of a spec says which spec line each function comes from."""
    path = SPECS[[p.stem for p in SPECS].index("kitano-20")]
    tables = api.tables(_spec(path), 4, engine="compiled")
    src = tables.rules.x.source()
    line = next(k for k, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if text.startswith("def held(p, s)"))
    assert f"# specs/kitano-20.soan:{line}: def held(p, s) = count(c in p.storehouse where c.suit == s)" in src.replace(
        str(path.parent.parent) + "/", "")


def test_compiled_runtime_errors_point_at_the_spec_line():
    """A runtime error inside a compiled expression carries the expression's spec line."""
    text = """game "T" draft 1 players 2..2
player { n: 0..5 = 0 "n" }
rounds 1 { phase main "m" { for p in players { set p.n = 10 // (p.n - p.n) } } }
winner among p in players by vp(p) desc else draw
"""
    spec = api.compile_text(text, "t.soan")
    for engine in ("closures", "compiled"):
        tables = api.tables(spec, 2, engine=engine)
        with pytest.raises(Exception) as info:
            api.play(tables, 1, ["random", "random"])
        assert "division by zero" in str(info.value)
        assert getattr(info.value, "span", None) is not None and info.value.span.line == 3


def test_a_spec_string_enters_the_generated_source_only_as_a_literal():
    """A string in a spec that looks like Python code is compared as a string: the generated source holds it as a
    literal, and both engines play the same game with it."""
    code = "x'); import os; os.system('exit 7'); ('"
    text = f"""game "T" draft 1 players 2..2
player {{ n: 0..5 = 0 "n" }}
rounds 1 {{ phase main "m" {{ for p in players {{ if "{code}" == "y" {{ set p.n = 1 }} }} }} }}
winner among p in players by vp(p) desc else draw
"""
    spec = api.compile_text(text, "t.soan")
    compiled = api.tables(spec, 2, engine="compiled")
    a = api.play(compiled, 1, ["random"] * 2, narrate=True)
    b = api.play(api.tables(spec, 2, engine="closures"), 1, ["random"] * 2, narrate=True)
    assert a.to_json() == b.to_json() and a.result["draw"]
    body = [line for src in compiled.rules.x.sources for line in src.splitlines() if not line.strip().startswith("#")]
    assert any(repr(code) in line for line in body)


def test_zone_aggregates_and_filters_by_card_id_match_the_closure_interpreter():
    """Counts, sums, minimums and filters over a zone's cards by their fields and states (the compiled engine's
    card-id loops), and a zone read off a card instead of a player, play byte-identical games on both engines."""
    path = Path(__file__).resolve().parent / "specs" / "zones-1.soan"
    for n in (2, 3):
        assert_same_games(path, n, range(30))
        assert_same_games(path, n, range(3), bots="greedy")
    from soan.compile_cmd import compiled_tables

    assert "in st.zones[" in compiled_tables(_spec(path), 2, {}).rules.x.source()  # the id loops were generated


def test_zone_distinct_first_and_last_by_card_id_match_the_closure_interpreter():
    """distinct, first and last of a card attribute over a zone's cards (the compiled engine's card-id loops, also
    over an empty zone and with none among the values) play byte-identical games on both engines, random and greedy."""
    path = Path(__file__).resolve().parent / "specs" / "zones-2.soan"
    for n in (2, 3):
        assert_same_games(path, n, range(30))
        assert_same_games(path, n, range(3), bots="greedy")
    from soan.compile_cmd import compiled_tables

    source = compiled_tables(_spec(path), 2, {}).rules.x.source()
    for func in ("distinct", "first", "last"):  # each aggregate's id loop was generated
        assert any(f"_AGGS[{func!r}](tuple([_col_" in line and "in st.zones[" in line for line in source.splitlines())


def test_a_players_total_score_read_inline_matches_the_closure_interpreter():
    """vp(p) of a player held in a name is its score columns summed inline (no State.total_vp call) and of any other
    expression still through total_vp; both give the closure interpreter's games, with scores that go negative."""
    text = """game "T" draft 1 players 2..3
player { n: 0..9 = 0 "n" }
score gain "gain" 0..20
score loss "loss" -20..0
rounds 3 { phase main "m" { for p in players {
  choose x from [0, 1, 2] by p "takes" { award x to p for gain  award 0 - (x * x) // 2 to p for loss }
  set p.n = if vp(p) > vp(first(players)) then 1 else 0
} } }
winner among p in players by vp(p) desc, p.n desc else draw
"""
    spec = api.compile_text(text, "t.soan")
    for n in (2, 3):
        compiled = api.tables(spec, n, engine="compiled")
        closures = api.tables(spec, n, engine="closures")
        for seed in range(12):
            for bots in ("random", "greedy"):
                a = api.play(compiled, seed, [bots] * n, narrate=True)
                b = api.play(closures, seed, [bots] * n, narrate=True)
                assert a.to_json() == b.to_json(), (n, seed, bots)
    source = api.tables(spec, 2, engine="compiled").rules.x.source()
    assert "st.vp['gain'][_l0.i] + st.vp['loss'][_l0.i]" in source  # vp(p): inline
    assert "st.total_vp((" in source  # vp(first(players)): not a name, through total_vp
