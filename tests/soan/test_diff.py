"""Drafts as variants (extend/remove) and soan diff, on small specs whose
differences are known by hand, and on Kitano draft 19 → 20."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soan import api
from soan import diff as sdiff
from soan.cli import main
from soan.dsl import SpecErrors, load_spec

ROOT = Path(__file__).resolve().parents[2]

BASE = """game "Tokens" draft 1 players 2..3
player { tokens: 0..20 = 0 }
score points "points"
def worth = 1
component die "die" {
  faces: 6..6 = 6
  state face: 1..6 = 1
}
cards die in dice { 1 x faces = 6 }
zone dice: shared public unordered
rounds 4 {
  for p in players { set p.tokens += 1 }
}
scoring {
  roll first(dice)
  for p in players { award p.tokens * worth + first(dice).face to p for points }
}
winner among p in players by vp(p) desc else draw
example "a token is worth one" {
  given { set p1.tokens = 3 }
  expect p1.tokens * worth == 3
}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_extend_replaces_same_named_declarations_and_keeps_the_rest(tmp_path):
    """A draft that extends another changes only what it restates; removed examples are gone."""
    write(tmp_path, "tokens-1.soan", BASE)
    child = write(tmp_path, "tokens-2.soan", 'extend "tokens-1.soan"\ngame "Tokens" draft 2 players 2..3\n'
                                            'def worth = 2\nremove example "a token is worth one"\n')
    spec = load_spec(child)
    assert spec.draft == 2
    assert [d.name for d in spec.defs] == ["worth"] and spec.defs[0].body.value == 2
    assert spec.examples == ()
    assert spec.rounds is not None and spec.extends.endswith("tokens-1.soan")


def test_problems_in_an_extended_spec_point_at_the_right_file(tmp_path):
    """A bad base spec is reported at the base file's line; a bad removal at the child's."""
    write(tmp_path, "base.soan", BASE.replace("set p.tokens += 1", "set p.tokenz += 1"))
    child = write(tmp_path, "child.soan", 'extend "base.soan"\nremove procedure nothing_here\n')
    with pytest.raises(SpecErrors) as e:
        load_spec(child)
    text = e.value.render()
    assert f"{tmp_path / 'base.soan'}:12:" in text and "set p.tokenz += 1" in text
    assert f"{tmp_path / 'child.soan'}:2:" in text and "no procedure 'nothing_here'" in text


def test_extend_cycles_and_missing_bases_are_located(tmp_path):
    """A spec extending itself, or a base that does not exist, is a located problem."""
    loop = write(tmp_path, "loop.soan", 'extend "loop.soan"\n' + BASE)
    with pytest.raises(SpecErrors, match="extends itself"):
        load_spec(loop)
    lost = write(tmp_path, "lost.soan", 'extend "nowhere.soan"\n')
    with pytest.raises(SpecErrors, match="cannot read the base spec 'nowhere.soan'"):
        load_spec(lost)


def test_rules_diff_finds_exactly_the_changed_declarations(tmp_path):
    """Moving declarations around changes nothing; a changed def and an added assumption are reported with both sides."""
    a = api.compile_text(BASE, "a.soan")
    moved = BASE.replace("def worth = 1\n", "") + "def worth = 1\n"
    assert sdiff.rules_diff(a, api.compile_text(moved, "moved.soan")) == []
    b = api.compile_text(BASE.replace("def worth = 1", "def worth = 2") + 'assume bigger "tokens matter more"\n', "b.soan")
    changes = {(c.category, c.name, c.status) for c in sdiff.rules_diff(a, b)}
    assert changes == {("def", "worth", "changed"), ("assumption", "bigger", "added")}
    worth = next(c for c in sdiff.rules_diff(a, b) if c.name == "worth")
    assert "-def worth = 1" in worth.unified() and "+def worth = 2" in worth.unified()


def test_one_more_point_per_token_shifts_the_mean_by_the_tokens_held():
    """Doubling a token's worth raises every player's score by exactly the 4 tokens they hold, so the change is called with a zero-width interval."""
    a = api.compile_text(BASE, "a.soan")
    b = api.compile_text(BASE.replace("def worth = 1", "def worth = 2"), "b.soan")
    play = sdiff.play_diff(api.tables(a, 3), api.tables(b, 3), 30, 0, ["random"] * 3)
    mean = next(m for m in play["metrics"] if m["metric"] == "mean score")
    assert mean["difference"] == 4.0 and mean["interval"] == [4.0, 4.0] and mean["change"]
    rounds = next(m for m in play["metrics"] if m["metric"] == "rounds")
    assert rounds["difference"] == 0 and not rounds["change"]


def test_first_divergence_is_where_the_accounts_part():
    """The first differing line of the two accounts is the changed award, after the same die roll."""
    a = api.compile_text(BASE, "a.soan")
    b = api.compile_text(BASE.replace("def worth = 1", "def worth = 2"), "b.soan")
    play = sdiff.play_diff(api.tables(a, 2), api.tables(b, 2), 3, 5, ["random"] * 2)
    d = play["first_divergence"]
    assert d is not None
    assert d["before"][-1].startswith("  · roll die")
    assert d["old"][0].startswith("  P1 +") and d["new"][0].startswith("  P1 +")
    assert d["old"][0] != d["new"][0]


def test_same_rules_give_no_divergence():
    """Two copies of one draft play identically on every seed."""
    a = api.compile_text(BASE, "a.soan")
    b = api.compile_text(BASE, "b.soan")
    play = sdiff.play_diff(api.tables(a, 2), api.tables(b, 2), 5, 0, ["random"] * 2)
    assert play["first_divergence"] is None
    assert not any(m["change"] for m in play["metrics"])


def test_kitano_19_to_20_shows_exactly_the_listed_changes(capsys, tmp_path):
    """The rebuilt draft 19 differs from draft 20 in the anger cost and the reconstruction's own notes, and play shows scores falling."""
    html = tmp_path / "k.html"
    code = main(["diff", str(ROOT / "specs/kitano-19.soan"), str(ROOT / "specs/kitano-20.soan"), "-n", "40", "--json",
                 "--html", str(html)])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    changes = {(r["category"], r["name"], r["status"]) for r in result["rules"]}
    assert ("def", "single_anger_cost", "changed") in changes
    assert ("game", "metadata", "changed") in changes
    assert {c for c in changes if c[0] not in ("example", "assumption")} == {
        ("def", "single_anger_cost", "changed"), ("game", "metadata", "changed")}
    anger = next(m for m in result["play"]["metrics"] if m["metric"] == "points: taiko_anger")
    assert anger["difference"] < 0 and anger["change"]
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and page.count("<svg") == 2 and "<script" not in page


def test_diff_refuses_drafts_with_no_common_player_count(tmp_path, capsys):
    """Two drafts for different player counts cannot be played against each other: exit 2 with a message."""
    a = write(tmp_path, "a.soan", BASE)
    b = write(tmp_path, "b.soan", BASE.replace("players 2..3", "players 4..5"))
    assert main(["diff", str(a), str(b)]) == 2
    assert "share no player count" in capsys.readouterr().err


def test_pitmaster_19_to_20_shows_exactly_the_listed_changes():
    """The rebuilt draft 19 differs from draft 20 in exactly the reversed changes of draft 20's list."""
    old = load_spec(ROOT / "specs/pitmaster-19.soan")
    new = load_spec(ROOT / "specs/pitmaster-20.soan")
    changes = {(c.category, c.name, c.status) for c in sdiff.rules_diff(old, new)
               if c.category not in ("example", "assumption")}
    assert changes == {
        ("game", "metadata", "changed"),
        ("score item", "idea_vp", "added"),          # 6: discard an idea card for 1 VP
        ("procedure", "turn", "changed"),            # 6: ... offered in the turn
        ("procedure", "side_work", "changed"),       # 2: growth moved to the side dish area
        ("procedure", "sauce_work", "changed"),      # 2: ... from the BBQ sauce area
        ("def", "max_roast", "changed"),             # 3: smoke's value token raises the max roast level
        ("def", "synergy_of", "changed"),            # 4: synergy bonus restored
    }


def test_a_full_rewrite_diff_stays_readable(capsys):
    """BBQP 9 → Pitmaster 20 (a full rewrite) summarises its changes by category and names added and removed parts without their text."""
    assert main(["diff", str(ROOT / "specs/bbqp-9.soan"), str(ROOT / "specs/pitmaster-20.soan"), "-n", "0"]) == 0
    out = capsys.readouterr().out
    assert "Rules:" in out and "removed" in out and "added" in out
    assert len(out.splitlines()) < 700


def test_verification_side_by_side_shows_the_moved_score_bound(capsys):
    """With --verify, Kitano 19 → 20 shows the proved lower bound of the anger item moving from -2 to -3."""
    code = main(["diff", str(ROOT / "specs/kitano-19.soan"), str(ROOT / "specs/kitano-20.soan"), "-n", "0",
                 "--verify", "--verify-games", "8", "--json"])
    assert code == 0
    rows = json.loads(capsys.readouterr().out)["verification"]
    anger = next(r for r in rows if r["property"] == "score" and r["subject"] == "item taiko_anger")
    assert anger["changed"]
    assert anger["old"]["bounds"]["proved"] == [-2, 0] and anger["new"]["bounds"]["proved"] == [-3, 0]
    same = next(r for r in rows if r["property"] == "termination")
    assert not same["changed"]


def test_diff_play_is_the_same_for_one_and_two_jobs(capsys):
    """'soan diff --jobs 2 --json' prints exactly what '--jobs 1' prints: seeds split over processes, merged in seed order."""
    outs = []
    for j in (1, 2):
        code = main(["diff", str(ROOT / "specs" / "kitano-19.soan"), str(ROOT / "specs" / "kitano-20.soan"),
                     "--players", "4", "-n", "12", "--json", "--jobs", str(j)])
        outs.append((code, capsys.readouterr().out))
    assert outs[0] == outs[1] and outs[0][0] == 0
    assert json.loads(outs[0][1])["play"]["first_divergence"] is not None


def test_diff_verify_plays_its_search_games_on_both_drafts():
    """`soan diff --verify` runs verify's fixed search on each draft (it once passed a wall-clock limit of 0 and
    searched nothing): a supply that only a game can show short is witnessed on both sides."""
    from soan import api
    from soan.diff import verification_diff

    text = """game "Chips" players 2..2
token chip supply 3 hold 0..9 when short partial
score pts "points"
rounds 5 { choose by player(1) "takes" { option take { give 1 chip to player(1) } } }
scoring { award 0 to player(1) for pts }
winner among p in players by vp(p) desc else draw
"""
    t = api.tables(api.compile_text(text, "a.soan"), 2)
    rows = verification_diff(t, t, games=4, seed=0)
    chip = next(r for r in rows if r["subject"] == "chip")
    assert chip["old"]["verdict"] == chip["new"]["verdict"] == "witnessed", chip
