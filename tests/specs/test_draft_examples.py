"""The drafts' worked examples that play the game check what they claim: each
fails when the rule it checks is changed, and draft 19's fail against draft 20."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from soan import api
from soan.dsl import compile_text
from soan.dsl.parser import split_top_level
from soan.interpreter.examples import run_example

SPECS = Path(__file__).resolve().parents[2] / "specs"


def example_chunk(path: Path, title: str) -> str:
    """The source text of the example called `title` in the spec at `path`."""
    for _, chunk in split_top_level(path.read_text(encoding="utf-8")):
        if chunk.startswith(f'example "{title}"'):
            return chunk
    raise AssertionError(f"no example '{title}' in {path.name}")


def run_titled(spec, name: str):
    ex = next(e for e in spec.examples if e.name == name)
    return run_example(spec, ex)


# (spec, example, the rule's text, the changed rule)
MUTATIONS = [
    ("kitano-20.soan", "A clash: two audience cards turn face down and do nothing; the third card is stored (バッティング)",
     "        flip p.played facedown\n", "        say \"no clash\"\n"),
    ("pitmaster-20.soan", "Smoke: the placed worker may grow, then a value token goes on the main dish the player chooses (・【スモーク】)",
     "      if p.value_token > before { set c.valued = true }",
     "      if p.value_token > before { set first(mains(p)).valued = true }"),
    ("bbqp-9.soan", "Passing sets the next round's order: the first to pass plays first, and a player who works on passes last "
                    "(◎パス, ３：エンドフェイズ)",
     "        set p.order = p.next_slot\n", "        set p.order = p.order\n"),
    ("hibachi.soan", "A whole round for two: eight tosses, the action spaces, a plate bought twice, chilis for void chips, the "
                     "bottle passed (ラウンドの流れ)",
     "  set head = next(head)", "  set head = head"),
]


@pytest.mark.parametrize("spec_name, title, rule, mutant", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_changed_rule_fails_the_example_that_checks_it(spec_name, title, rule, mutant):
    """The example passes against the draft as written and fails once the rule it checks is changed."""
    path = SPECS / spec_name
    text = path.read_text(encoding="utf-8")
    assert run_titled(api.load(path), title).passed
    assert text.count(rule) == 1
    result = run_titled(compile_text(text.replace(rule, mutant), str(path)), title)
    assert not result.passed and result.problems


def test_kitano_clash_mutant_fails_at_the_effect_it_would_offer():
    """Without the clash, P1's audience card acts, and the example's script has no answer for its effect."""
    spec_name, title, rule, mutant = MUTATIONS[0]
    path = SPECS / spec_name
    r = run_titled(compile_text(path.read_text(encoding="utf-8").replace(rule, mutant), str(path)), title)
    assert r.problems[0].message.startswith("P1's decision 'applies an effect'")


DRAFT_19_OWN = [
    ("pitmaster-19.soan", "pitmaster-20.soan", "Draft 19 (reconstructed): the draft 20 synergy example's dishes give no synergy bonus"),
    ("pitmaster-19.soan", "pitmaster-20.soan", "Draft 19 (reconstructed): a smoke value token adds a flame but no roast level past the gauge"),
    ("pitmaster-19.soan", "pitmaster-20.soan", "Draft 19 (reconstructed): BBQ sauce gives the worker's largest face ÷ 2 and then offers growth"),
    ("pitmaster-19.soan", "pitmaster-20.soan", "Draft 19 (reconstructed): the side dish area gives a value token on the character card and offers no growth"),
    ("kitano-19.soan", "kitano-20.soan", "One anger token costs 2; two lose the game; three are pardoned (draft 19, reconstructed)"),
    ("pitmaster-20.soan", "pitmaster-19.soan", "Side dish: the placed worker grows to the next size, and a value token goes on the character card (・【サイドディッシュ】)"),
    ("pitmaster-20.soan", "pitmaster-19.soan", "BBQ sauce: an idea card and the worker's largest face ÷ 2, with no growth offered (・【ＢＢＱソース】)"),
]


@pytest.mark.parametrize("own, other, title", DRAFT_19_OWN, ids=[f"{o}:{t[:30]}" for o, _, t in DRAFT_19_OWN])
def test_an_example_of_one_draft_fails_against_the_other(own, other, title):
    """An example that tells drafts 19 and 20 apart passes in its own draft and fails when run against the other."""
    assert run_titled(api.load(SPECS / own), title).passed
    other_path = SPECS / other
    spec = compile_text(other_path.read_text(encoding="utf-8") + "\n" + example_chunk(SPECS / own, title), str(other_path))
    assert not run_titled(spec, title).passed


def test_every_draft_19_example_of_its_own_tells_the_drafts_apart():
    """Every example written in a draft-19 spec (not inherited from draft 20) is among those shown to fail against draft 20
    (a `with NAME = VALUE` copy of one counts as that example: the name it resolves may exist only in draft 19)."""
    checked = {t for own, _, t in DRAFT_19_OWN if own.endswith("-19.soan")}
    for name in ("kitano-19.soan", "pitmaster-19.soan"):
        spec = api.load(SPECS / name)
        own = {re.sub(r" \[[^\]]*=[^\]]*\]$", "", e.name) for e in spec.examples
               if Path(e.span.path or spec.path).name == name}
        assert own and own <= checked, own - checked
