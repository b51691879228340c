"""soan rulings on small specs whose answers are known by hand: a moot
ruling, one read but never changing a game, one flipping the winner in a
known share of games, and a tie-break read only on ties for first."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from soan import api, impact
from soan import stats
from soan.cli import main

from dice_duel import dice_spec, dice_text

ROOT = Path(__file__).resolve().parents[2]
TIE_KEY = ", (if tie_rule == low_seat then 0 - p.seat else p.seat) desc"


@pytest.fixture(scope="module")
def duel():
    return impact.analyse(dice_spec(), 2, games=400, seed=0)


def row(result, name):
    return next(r for r in result["ranked"] + result["moot"] if r["name"] == name)


def test_a_ruling_no_rule_reads_is_proved_moot(duel):
    """A ruling nothing reads is listed as proved moot, apart from the ranked table."""
    assert [r["name"] for r in duel["moot"]] == ["unused"]
    assert row(duel, "unused")["moot_reason"] == "no rule reads it"
    assert "unused" not in [r["name"] for r in duel["ranked"]]


def test_a_ruling_read_in_every_game_that_never_changes_one(duel):
    """A ruling read in every game whose answers do the same is read 100% and changes none of them."""
    r = row(duel, "cosmetic")
    assert r["read"] == r["games"] == 400 and r["matters"] == 0
    (alt,) = r["alternatives"]
    assert alt["flips"] == 0 and alt["changed_games"] == 0 and alt["verdict"] == "no game changed"
    assert all(s["interval"] == [0.0, 0.0] for s in alt["score_shift"].values())


def test_a_ruling_that_flips_the_winner_in_a_known_share(duel):
    """six_is_zero is read in 11/36 of games and flips the winner in 10/36: both inside their intervals, ranked first."""
    r = row(duel, "six_is_zero")
    lo, hi = r["read_interval"]
    assert lo <= 11 / 36 <= hi
    (alt,) = r["alternatives"]
    lo, hi = alt["flip_interval"]
    assert lo <= 10 / 36 <= hi and alt["verdict"] == "flips the winner"
    assert alt["flips"] <= r["read"]
    # a six is worth 6 less: each seat loses 6 points in a sixth of games
    for s in alt["score_shift"].values():
        assert s["interval"][0] <= -1.0 <= s["interval"][1] and s["evidence"]
    assert duel["ranked"][0]["name"] == "six_is_zero"


def test_the_first_flip_is_saved_as_two_replayable_logs(tmp_path):
    """The shortest game whose winner flips is written twice, once per resolution; both replay, and the accounts part at the six."""
    spec = dice_spec()
    res = impact.analyse(spec, 2, games=30, seed=0, logs_dir=tmp_path)
    alt = row(res, "six_is_zero")["alternatives"][0]
    f = alt["first_flip"]
    assert f["winners"][0] != f["winners"][1]
    for path, params in zip(f["logs"], [{}, {"six_is_zero": "yes"}]):
        log = api.load_log(path)
        tables = api.tables(spec, 2, api.parse_params(spec, params))
        assert api.replay(tables, log).result == log["result"]
    assert any("points" in line for line in f["current_lines"] + f["alternative_lines"])


def test_a_tie_break_ruling_is_read_only_on_ties_for_first():
    """With three players, the tie-break key is read exactly in the games whose top score is shared (hand count over all 216 rolls)."""
    spec = dice_spec(TIE_KEY)
    tables = api.tables(spec, 3)
    rolls = list(itertools.product(range(1, 7), repeat=3))  # six_is_zero is "no": each player scores the face
    tied_top = sum(1 for r in rolls if sorted(r)[-1] == sorted(r)[-2])
    ties_below_only = sum(1 for r in rolls if len(set(r)) < 3) - tied_top
    assert ties_below_only > 0, "the test needs games tied below first only"
    read = tied = 0
    for seed in range(300):
        rec = api.play(tables, seed, ["random"] * 3)
        scores = sorted(rec.result["scores"].values())
        top_tied = scores[-1] == scores[-2]
        tied += top_tied
        read += "tie_rule" in rec.log["consulted_rulings"]
        assert ("tie_rule" in rec.log["consulted_rulings"]) == top_tied, rec.result
    lo, hi = stats.wilson(tied, 300)
    assert lo <= tied_top / 216 <= hi
    res = impact.analyse(spec, 3, games=120, seed=0)
    r = row(res, "tie_rule")
    assert r["read"] == sum(1 for s in range(120)
                            if (lambda sc: sc[-1] == sc[-2])(sorted(api.play(tables, s, ["random"] * 3)
                                                                    .result["scores"].values())))
    (alt,) = r["alternatives"]
    assert alt["flips"] == r["read"], "every tie for first is given to another seat by the other order"


def test_percentages_never_print_zero_for_what_happened():
    """A share of 1 in 300 prints as <1%, an exact zero as 0%, and almost all as >99%."""
    assert stats.pct(1 / 300) == "<1%" and stats.pct(0.0) == "0%" and stats.pct(299 / 300) == ">99%"
    assert stats.pct(0.25) == "25%" and stats.pct(1.0) == "100%"
    assert stats.pct(1 / 3000, 1) == "<0.1%" and stats.pct(1 / 300, 1) == "0.3%" and stats.pct(0.9999, 1) == ">99.9%"


def test_simulate_prints_a_rare_event_as_under_one_percent(tmp_path, capsys):
    """soan simulate prints a ruling read in under 1% of 350 games (but read) as <1%, never 0%."""
    path = tmp_path / "dice.soan"
    # read only when all three players roll a six: 1 game in 216
    rare = ("if p == player(3) { if vp(player(1)) == 6 { if vp(player(2)) == 6 { if first(dice).face == 6 {\n"
            "      if cosmetic == yes { set p.tokens += 1 } } } } }")
    path.write_text(dice_text().replace("if cosmetic == yes { set p.tokens += 1 } else { set p.tokens += 1 }", rare),
                    encoding="utf-8")
    tables = api.tables(api.load(path), 3)
    reads = sum("cosmetic" in api.play(tables, s, ["random"] * 3).log["consulted_rulings"] for s in range(350))
    assert 0 < reads < 3.5, "these seeds must read the ruling in under 1% of games, at least once"
    assert main(["simulate", str(path), "--players", "3", "-n", "350"]) == 0
    assert "cosmetic <1%" in capsys.readouterr().out


def test_soan_rulings_prints_the_ranked_table_json_and_html(tmp_path, capsys):
    """The command prints the ranked table with moot rulings apart; --json and --html give the same study."""
    path = tmp_path / "dice.soan"
    path.write_text(dice_text(), encoding="utf-8")
    page = tmp_path / "r.html"
    code = main(["rulings", str(path), "--games", "60", "--logs", str(tmp_path / "logs"), "--html", str(page)])
    out = capsys.readouterr().out
    assert code == 0
    assert "six_is_zero" in out and "flips the winner" in out and "Proved moot" in out and "unused" in out
    assert out.index("six_is_zero") < out.index("cosmetic")
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and "<script" not in html and html.count("<svg") == 2
    code = main(["rulings", str(path), "--games", "20", "--logs", str(tmp_path / "logs"), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["games"] == 20 and [r["name"] for r in data["moot"]] == ["unused"]


def test_soan_rulings_refuses_a_bad_command_line(tmp_path, capsys):
    """A player count the spec does not allow and a zero game count are usage errors (exit 2)."""
    path = tmp_path / "dice.soan"
    path.write_text(dice_text(), encoding="utf-8")
    assert main(["rulings", str(path), "--players", "5"]) == 2
    assert main(["rulings", str(path), "--games", "0"]) == 2
    assert "--games" in capsys.readouterr().err


def test_a_budget_in_steps_cuts_the_games_for_every_ruling_alike():
    """A small step budget plays fewer games, and every ruling is measured on the same games."""
    res = impact.analyse(dice_spec(), 2, games=400, seed=0, budget=400)
    assert 0 < res["games"] < 400
    assert {r["games"] for r in res["ranked"]} == {res["games"]}


def test_a_resolution_the_rules_cannot_carry_out_is_reported_not_a_crash():
    """A resolution under which a rule fails (a division by zero) is reported with the seed and the message; the rest is measured."""
    text = dice_text().replace('ruling unused: answer = yes "Nothing reads this (test)" cite "none"',
                               'ruling divisor: 0..1 = 1 "Divide by what? (test)" cite "none"')
    text = text.replace("award first(dice).face to p for pts", "award first(dice).face // divisor to p for pts")
    res = impact.analyse(api.compile_text(text, "x.soan"), 2, games=20)
    (alt,) = row(res, "divisor")["alternatives"]
    assert alt["verdict"] == "the rules cannot be carried out" and "division by zero" in alt["failure"]
    assert row(res, "cosmetic")["alternatives"][0]["verdict"] == "no game changed"


def test_with_bots_that_look_ahead_every_game_is_played_again():
    """A greedy bot reads rules on copies of the game, so every game is replayed, not only those the game itself read."""
    res = impact.analyse(dice_spec(), 2, games=30, seed=0, bots=["greedy", "greedy"])
    r = row(res, "six_is_zero")
    assert r["replayed"] == 30 and r["read"] < 30
    lo, hi = r["alternatives"][0]["flip_interval"]
    assert r["alternatives"][0]["flips"] > 0 and lo <= 10 / 36 <= hi


def test_a_log_played_again_under_another_resolution_keeps_its_moves_and_draws():
    """Replaying a log under the same rules gives the same game; under another resolution the draws and moves stay and only the ruling's effect differs."""
    spec = dice_spec()
    base = api.tables(spec, 2)
    for seed in range(40):
        log = api.play(base, seed, ["random"] * 2).log
        same = impact.replay_under(base, log).log
        assert same["steps"] == log["steps"] and same["result"] == log["result"]
        other = impact.replay_under(api.tables(spec, 2, api.parse_params(spec, {"six_is_zero": "yes"})), log).log
        assert other["steps"] == log["steps"]
        if "six_is_zero" in log["consulted_rulings"]:
            sixes = sum(1 for s in log["steps"] if s.get("chance") == "roll die: 6")
            assert sum(log["result"]["scores"].values()) - sum(other["result"]["scores"].values()) == 6 * sixes


TIE_EXAMPLES = '''
example "Both roll a six: the low seat takes the tie" with six_is_zero = no {
  players 2
  play game { roll 6  roll 6 }
  expect winner p1
}

example "Both roll a six: the high seat takes the tie" with tie_rule = high_seat {
  players 2
  play game { roll 6  roll 6 }
  expect winner p2
}

example "Sixes score nothing: nought against nought, the high seat takes the tie" with tie_rule = high_seat, six_is_zero = yes {
  players 2
  play game { roll 6  roll 6 }
  expect vp(p1) == 0 and vp(p2) == 0
  expect winner p2
}
'''


def test_examples_set_a_ruling_in_their_title_line():
    """`example "..." with NAME = VALUE, ... { }` runs the example under those resolutions, as `with` lines in its body do."""
    spec = api.compile_text(dice_text(TIE_KEY) + TIE_EXAMPLES, "dice.soan")
    results = {r.title: r for r in api.run_examples(spec)}
    assert all(r.passed for r in results.values()), [r.problems for r in results.values() if not r.passed]
    assert set(results) == {"Both roll a six: the low seat takes the tie [six_is_zero=no]",
                            "Both roll a six: the high seat takes the tie [tie_rule=high_seat]",
                            "Sixes score nothing: nought against nought, the high seat takes the tie "
                            "[tie_rule=high_seat, six_is_zero=yes]"}
    body = TIE_EXAMPLES.replace(' with tie_rule = high_seat {\n  players 2', ' {\n  players 2\n  with tie_rule = high_seat', 1)
    results = {r.title: r for r in api.run_examples(api.compile_text(dice_text(TIE_KEY) + body, "dice.soan"))}
    assert results["Both roll a six: the high seat takes the tie [tie_rule=high_seat]"].passed
    # the other resolution gives the other seat: the example under it fails with the real outcome
    wrong = TIE_EXAMPLES.replace("with tie_rule = high_seat {", "{", 1)
    results = {r.title: r for r in api.run_examples(api.compile_text(dice_text(TIE_KEY) + wrong, "dice.soan"))}
    (bad,) = [r for r in results.values() if not r.passed]
    assert bad.problems[0].message == "expected P2 to win, but the game ended with won by P1"


def test_a_setting_in_an_example_title_line_is_checked_like_any_other():
    """An unknown name or a value outside the domain in the title line is a located spec error with a hint."""
    from soan.dsl.errors import SpecErrors

    text = dice_text(TIE_KEY) + 'example "x" with tie_rul = high_seat {\n  players 2\n  expect true\n}\n'
    with pytest.raises(SpecErrors) as e:
        api.compile_text(text, "dice.soan")
    (p,) = e.value.problems
    assert "tie_rul" in p.message and p.span.line == text.count("\n") - 3 and "tie_rule" in (p.hint or "")


def test_diff_and_sweep_print_a_rare_share_as_under_a_tenth_of_a_percent():
    """A draw in 1 of 3000 games prints as <0.1% in soan diff's table and soan sweep's, never 0.0%; JSON keeps it non-zero."""
    from soan import diff as sdiff
    from soan.sweep import measure_cells

    (m,) = sdiff.compare_metrics({"draw": [(0.0, 0.0)] * 2999 + [(1.0, 0.0)]})
    assert m["share"] and m["old"] > 0 and m["new"] == 0
    old, new, difference, _, _ = sdiff.metric_cells(m)
    assert (old, new) == ("<0.1%", "0%") and difference == "-<0.1 pt"
    (m,) = sdiff.compare_metrics({"points: sets": [(1.0, 1.5)] * 10})
    assert not m["share"] and sdiff.metric_cells(m)[2] == "+0.500"
    row = {"mean_score": 3.0, "min_score": 0, "max_score": 6, "draw_rate": 1 / 3000, "no_winner_rate": 0.0,
           "eliminations_per_game": 0.0, "decisions_mean": 2.0}
    assert measure_cells(row)[3:5] == ["<0.1%", "0%"]


def test_diff_prints_shares_as_percentages(tmp_path, capsys):
    """soan diff's play table prints the draw rate and each seat's wins as percentages, other metrics as numbers."""
    old, new = tmp_path / "old.soan", tmp_path / "new.soan"
    old.write_text(dice_text(), encoding="utf-8")
    new.write_text(dice_text().replace('six_is_zero: answer = no', 'six_is_zero: answer = yes'), encoding="utf-8")
    assert main(["diff", str(old), str(new), "--games", "60"]) == 0
    out = capsys.readouterr().out
    draw = next(line for line in out.splitlines() if line.strip("│ ").startswith("draw"))
    assert draw.count("%") == 2 and " pt" in draw
    points = next(line for line in out.splitlines() if "points: pts" in line)
    assert "%" not in points


def test_soan_rulings_names_the_shortest_game_where_each_ruling_matters(tmp_path, capsys):
    """Each ruling that changed a game is given the shortest such game as a soan run command; run both ways, its scores differ."""
    path = tmp_path / "dice.soan"
    path.write_text(dice_text(), encoding="utf-8")
    assert main(["rulings", str(path), "--games", "40", "--logs", str(tmp_path / "logs")]) == 0
    out = capsys.readouterr().out
    matters = out.split("Where each one matters")[1].split("First (shortest)")[0]
    (line,) = [x for x in matters.splitlines() if x.startswith("  six_is_zero = yes: seed ")]
    assert "changes its scores or winner" in line and "cosmetic" not in matters
    command = line.split(": soan ", 1)[1].split()
    assert main(command + ["--json"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert main([c for c in command if c != "--rule" and not c.startswith("six_is_zero=")] + ["--json"]) == 0
    now = json.loads(capsys.readouterr().out)
    assert other["result"]["scores"] != now["result"]["scores"]
