"""A/A and A/B tests of soan diff: every shipped spec against an equivalent
rewrite shows no change; a known effect shows exactly that change; the
family of metrics is controlled as a whole."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from soan import api
from soan import diff as sdiff
from soan import stats

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
import aa_rewrites  # noqa: E402

SPECS = ["bbqp-9", "hibachi", "kitano-19", "kitano-20", "pitmaster-19", "pitmaster-20"]


def rewritten(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """The shipped spec (with the specs it extends) and its rewrite with every draw-for-draw equivalent edit at once."""
    folder = tmp_path / "specs"
    shutil.copytree(ROOT / "specs", folder)
    text = (folder / f"{name}.soan").read_text(encoding="utf-8")
    for edit in (aa_rewrites.with_comment, aa_rewrites.with_reordered_declaration,
                 aa_rewrites.with_duplicated_shuffle, aa_rewrites.with_renamed_local):
        text = edit(text) or text
    new = folder / f"{name}-aa.soan"
    new.write_text(text, encoding="utf-8")
    return folder / f"{name}.soan", new


@pytest.mark.parametrize("name", SPECS)
def test_an_equivalent_rewrite_plays_the_same_games_and_shows_no_change(tmp_path, name):
    """A comment, a reordered def, a duplicated shuffle and a renamed local change no game: no metric is called a change."""
    old_path, new_path = rewritten(tmp_path, name)
    old, new = api.load(old_path), api.load(new_path)
    n = old.min_players
    play = sdiff.play_diff(api.tables(old, n), api.tables(new, n), 8, 100, ["random"] * n)
    assert [m["metric"] for m in play["metrics"] if m["change"]] == []
    assert all(m["identical"] for m in play["metrics"])
    assert play["first_divergence"] is None, "a second shuffle of an untouched zone is not another course"


BASE = """game "Dice" draft 1 players 2..3
player { tokens: 0..20 = 0 }
score points "points"
def bonus = 0
component die "die" {
  faces: 6..6 = 6
  state face: 1..6 = 1
}
cards die in dice { 1 x faces = 6 }
zone dice: shared public unordered
rounds 3 {
  for p in players {
    roll first(dice)
    if first(dice).face >= 4 { set p.tokens += 1 }
  }
}
scoring {
  for p in players { award p.tokens + bonus to p for points }
}
winner among p in players by vp(p) desc else draw
"""


def test_a_score_constant_raised_by_one_shows_exactly_that():
    """Raising a constant every player scores by one shifts mean score and the item by exactly +1; nothing else is called a change."""
    a = api.compile_text(BASE, "a.soan")
    b = api.compile_text(BASE.replace("def bonus = 0", "def bonus = 1"), "b.soan")
    play = sdiff.play_diff(api.tables(a, 3), api.tables(b, 3), 40, 0, ["random"] * 3)
    changed = {m["metric"]: m for m in play["metrics"] if m["change"]}
    assert set(changed) == {"mean score", "points: points"}
    assert all(m["difference"] == 1.0 and m["interval"] == [1.0, 1.0] for m in changed.values())
    assert all(m["identical"] for m in play["metrics"] if m["metric"] not in changed), \
        "on common random numbers every roll and so every winner stays the same"
    assert play["method"].startswith(stats.HOLM)


def test_holm_calls_fewer_changes_than_unadjusted_tests_and_its_intervals_agree():
    """Holm's step-down calls a p-value a change only at its rank's level, and each interval leaves out zero exactly when called."""
    per_metric = {}
    for k, shift in enumerate([0.0, 0.0, 0.0, 0.3, 1.0]):
        per_metric[f"m{k}"] = [(0.0, shift + ((g * 7919 + k * 104729) % 13 - 6) / 6) for g in range(60)]
    rows = sdiff.compare_metrics(per_metric)
    for r in rows:
        assert r["change"] == (r["interval"][0] > 0 or r["interval"][1] < 0), r
        assert (r["detectable"] is None) == r["change"]
    assert rows[-1]["change"] and not rows[0]["change"]
    levels = sorted(r["level"] for r in rows)
    assert levels[0] == pytest.approx(0.05 / 5)


def test_holm_levels_follow_the_ranks():
    """Holm tests the smallest p at alpha/m, the next at alpha/(m-1), and stops at the first not called."""
    out = stats.holm([0.001, 0.02, 0.011, 0.5, 0.03])
    assert out[0] == (True, 0.05 / 5)
    assert out[2] == (True, 0.05 / 4)
    assert out[1] == (False, 0.05 / 3)
    assert out[4] == (False, 0.05 / 3) and out[3] == (False, 0.05 / 3)


def test_no_evidence_says_what_the_run_could_have_detected():
    """A metric with no evidence carries the smallest detectable difference; more games make it smaller."""
    noisy = lambda games: {"m": [(0.0, ((g * 7919) % 11 - 5) / 5) for g in range(games)]}  # noqa: E731
    few, many = sdiff.compare_metrics(noisy(40))[0], sdiff.compare_metrics(noisy(400))[0]
    assert not few["change"] and not many["change"]
    assert 0 < many["detectable"] < few["detectable"]
    t = stats.paired([b - a for a, b in noisy(40)["m"]])
    assert stats.games_needed(t, few["detectable"] / 2, 0.05) > 40


@pytest.mark.slow
def test_fifty_aa_diffs_of_kitano_call_a_change_at_most_five_percent_of_the_time(tmp_path):
    """Over 50 A/A diffs (Kitano 20 against a copy that reshuffles the undealt deck: same game, other draws), at most 5% print any change."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import aa_diffs

    result = aa_diffs.run(diffs=50, games=100, players=3)
    assert result["diverging_games"] > 0, "the rewrite must really play other games, or the test tests nothing"
    assert result["diffs_with_a_change"] <= 2
