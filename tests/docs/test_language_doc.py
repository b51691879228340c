"""Every ```soan example in docs/language.md is valid: whole specs check, pass
their examples and play; fragments of declarations and statements do the same
inside the reference's sample game ("Spice Market")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from soan import api
from soan.dsl.errors import SpecErrors, SpecRuntimeError
from soan.dsl.parser import TOP_KEYWORDS, split_top_level

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
BLOCKS = [(DOC[: m.start()].count("\n") + 1, m.group(1)) for m in re.finditer(r"```soan\n(.*?)```", DOC, re.S)]
UNIQUE = {"game", "setup", "rounds", "scoring", "winner"}


def _first_word(text: str) -> str:
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            return s.split()[0].split("{")[0]
    return ""


def _key(chunk: str):
    code = "\n".join(l for l in chunk.splitlines() if not l.strip().startswith("#"))
    words = [w for w in re.split(r"[\s:{(=]+", code) if w]
    if not words or words[0] in ("note", "example"):
        return None
    if words[0] in UNIQUE:
        return (words[0],)
    return (words[0], words[1] if len(words) > 1 else "")


def _chunks(text: str) -> list[str]:
    return [c for _, c in split_top_level(text)
            if c.strip() and not all(l.strip().startswith("#") or not l.strip() for l in c.splitlines())]


def _compose(base: list[str], extra: list[str]) -> str:
    """The sample game with the fragment's declarations replacing the sample's own of the same name."""
    result = list(base)
    for c in extra:
        k = _key(c)
        idx = [i for i, b in enumerate(result) if k is not None and _key(b) == k]
        if idx:
            result[idx[0]] = c
            for i in reversed(idx[1:]):
                del result[i]
        else:
            result.append(c)
    return "".join(x if x.endswith("\n") else x + "\n" for x in result)


def _spec_text(block: str) -> str:
    sample = next(b for _, b in BLOCKS if re.search(r'^game "Spice Market"', b, re.M))
    base = _chunks(sample)
    if re.search(r'^game "', block, re.M) and re.search(r"^rounds", block, re.M):
        return block
    if _first_word(block) in TOP_KEYWORDS:
        return _compose(base, _chunks(block))
    body = "\n".join("  " + l for l in block.splitlines())
    return _compose(base, _chunks(f"procedure __doc(p) {{\n{body}\n}}\n") + ["rounds 1 { do __doc(player(1)) }\n"])


def test_the_reference_has_examples():
    """The reference carries many checked examples, among them the sample game."""
    assert len(BLOCKS) > 40


@pytest.mark.parametrize("line,block", BLOCKS, ids=[f"line{l}" for l, _ in BLOCKS])
def test_doc_example_is_valid(line, block, tmp_path):
    """This example checks, its spec examples pass, and three seeded games play at both ends of the player range."""
    path = tmp_path / f"doc{line}.soan"
    path.write_text(_spec_text(block), encoding="utf-8")
    try:
        spec = api.load(path)
    except SpecErrors as e:
        pytest.fail(e.render())
    failed = [f"{r.title}: {r.failures}" for r in api.run_examples(spec) if not r.passed]
    assert not failed
    for players in sorted({spec.min_players, spec.max_players}):
        for seed in (0, 1, 2):
            try:
                rec = api.play(api.tables(spec, players), seed, ["random"] * players)
            except SpecRuntimeError as e:
                pytest.fail(f"line {e.span.line}: {e.message}")
            assert rec.result is not None
