"""`soan record` writes playthroughs; `soan test` re-runs them and shows the first difference."""

from __future__ import annotations

import shutil
from pathlib import Path

from clirun import flat, soan

from soan import api

ROOT = Path(__file__).resolve().parents[2]
KITANO = ROOT / "specs" / "kitano-20.soan"
PLAYTHROUGHS = ROOT / "tests" / "playthroughs"


def test_record_writes_a_readable_playthrough(capsys, tmp_path):
    """A playthrough names its spec, seed and bots, lists each decision's legal moves and the move, chance outcomes, round summaries and the result."""
    out_file = tmp_path / "k.playthrough"
    code, out, _ = soan(capsys, "record", KITANO, "--players", 3, "--seed", 1, "--out", out_file)
    assert code == 0 and f"wrote {out_file}" in flat(out)
    text = out_file.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[2].startswith("spec: ") and (out_file.parent / lines[2][6:]).resolve() == KITANO
    assert "players: 3" in lines and "seed: 1" in lines and "bots: random,random,random" in lines
    assert any(l.startswith("  P1 lays a card face down — legal (") for l in lines)
    assert any(l.startswith("    → ") for l in lines)
    assert any(l.startswith("  · roll popularity_die(") for l in lines)
    assert "── End of round 7 ──" in lines and "── Result ──" in lines
    summary = lines[lines.index("── End of round 1 ──") + 1]
    assert summary.startswith("  P1: ") and " vp" in summary and "cards: " in summary
    code, out, _ = soan(capsys, "test", out_file)
    assert code == 0 and f"PASS playthrough {out_file}" in flat(out)


def test_a_changed_rule_shows_the_first_difference(capsys, tmp_path):
    """After a rule changes, re-running the playthrough fails at the first line that differs, recorded against now."""
    # seed 9 at 3 players has a shared majority under the per-purpose streams (log format 2)
    spec = tmp_path / "kitano-20.soan"
    shutil.copy(KITANO, spec)
    code, _, _ = soan(capsys, "record", spec, "--players", 3, "--seed", 9, "--out", tmp_path / "k.playthrough")
    assert code == 0
    code, out, _ = soan(capsys, "test", spec)
    assert code == 0 and "PASS playthrough" in out
    spec.write_text(KITANO.read_text(encoding="utf-8").replace("award bonus(s) // n to p for majority",
                                                              "award bonus(s) to p for majority"), encoding="utf-8")
    code, out, _ = soan(capsys, "test", spec)
    assert code == 1
    text = flat(out)
    assert "FAIL playthrough" in text and "the game takes another course than the playthrough" in text
    assert "recorded:" in text and "now:" in text and "Majorities" in text


def test_record_prints_with_a_dash_and_checks_the_command_line(capsys):
    """--out - prints the playthrough; a bad player count is a usage error with a hint."""
    code, out, _ = soan(capsys, "record", KITANO, "--players", 4, "--seed", 2, "--out", "-")
    assert code == 0 and out.startswith("# soan playthrough of Kitano Grand Tea Party, draft 20")
    code, _, err = soan(capsys, "record", KITANO, "--players", 9)
    assert code == 2 and "hint:" in err


def test_every_shipped_spec_has_a_playthrough_per_player_count():
    """tests/playthroughs holds a playthrough of every shipped spec at every player count it allows."""
    have = {}
    for p in PLAYTHROUGHS.glob("*.playthrough"):
        head = p.read_text(encoding="utf-8").splitlines()
        spec = next(l for l in head if l.startswith("spec: "))[6:]
        players = int(next(l for l in head if l.startswith("players: "))[9:])
        have.setdefault((PLAYTHROUGHS / spec).resolve(), set()).add(players)
    for path in sorted((ROOT / "specs").glob("*.soan")):
        spec = api.load(path)
        assert have.get(path.resolve()) == set(range(spec.min_players, spec.max_players + 1)), path.name
