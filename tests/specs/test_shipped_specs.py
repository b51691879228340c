"""Every shipped spec checks, passes its examples and plays at every player
count; and engine code knows no word of any spec's game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from soan import api

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted((ROOT / "specs").glob("*.soan"))
ENGINE = [ROOT / d for d in ("soan", "dsl", "interpreter", "verify")]
# Words a game may use that are also the engine's own vocabulary.
GENERIC = {"action", "card", "round", "player", "score", "die", "token", "effect",
           "game", "partial", "unlimited",  # the language's own words (`game "..."`, `when short partial`)
           "fish"}  # the shell soan completion writes a script for (and a food of Hibachi's)


def test_there_are_shipped_specs():
    """specs/ holds at least the foundation's spec, named <game>-<draft>.soan."""
    names = [p.name for p in SPECS]
    assert "kitano-20.soan" in names
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*-\d+\.soan|[a-z0-9-]+\.soan", n) for n in names)


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_spec_checks_and_its_examples_pass(path):
    """The spec compiles without problems, lists its rulings, and every example in it passes."""
    spec = api.load(path)
    report = api.check_report(spec)
    assert report["summary"]["name"]
    for r in report["rulings"]:
        assert r["cite"], f"ruling {r['name']} cites no section of the draft"
    results = api.run_examples(spec)
    assert results, "a spec should carry the draft's worked examples"
    failed = [f"{r.title}: {r.failures}" for r in results if not r.passed]
    assert not failed


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_spec_plays_at_every_player_count(path):
    """Ten seeded games at each allowed player count end with a result and replay exactly."""
    spec = api.load(path)
    for n in range(spec.min_players, spec.max_players + 1):
        tables = api.tables(spec, n)
        for seed in range(10):
            rec = api.play(tables, seed, ["random"] * n)
            assert rec.result is not None
            assert api.replay(tables, rec.log).result == rec.result


def _game_words() -> set[str]:
    words = set()
    for path in SPECS:
        spec = api.load(path)
        for e in spec.enums:
            words |= set(e.values)
        words |= {c.name for c in spec.components}
        words |= {t.name for t in spec.tokens}
    # the game's own nouns: suits, card kinds, tokens (score items, rulings and assumptions are
    # named in plain English, where words like "completed" are everybody's)
    return {w for w in words if len(w) > 3} - GENERIC


def test_engine_code_knows_no_game_vocabulary():
    """No suit, value, component or token name of a shipped spec appears in engine code."""
    words = _game_words()
    assert words
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")\b", re.I)
    hits = []
    for folder in ENGINE:
        for f in folder.rglob("*"):
            if f.suffix in (".py", ".lark") and f.is_file():
                for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
                    m = pattern.search(line)
                    if m:
                        hits.append(f"{f.relative_to(ROOT)}:{n}: {m.group(0)}")
    assert not hits, "\n".join(hits)


# A share typed into a text (76%, 7 in 100 games): a result of runs, stale as soon as the rules change.
RUN_FIGURE = re.compile(r"\d+(\.\d+)?\s*%|\b\d+ (of|in) \d+ (random )?games\b")


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_spec_texts_quote_no_figures_from_runs(path):
    """Rulings, assumptions and notes quote no share of games: they name the command that computes it instead."""
    spec = api.load(path)
    texts = [(r.name, r.question) for r in spec.rulings] + [(a.name, a.text) for a in spec.assumptions]
    texts += [("note", n) for n in spec.notes]
    quoted = [(name, m.group(0)) for name, text in texts for m in [RUN_FIGURE.search(text)] if m]
    assert not quoted, f"figures from runs typed into the spec (name the soan command instead): {quoted}"


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_spec_cites_its_draft_by_file_name_only(path):
    """A spec names its draft by the file's name, never by a path outside the repository."""
    text = path.read_text(encoding="utf-8")
    assert "../" not in text and "shared/seeds" not in text
