"""`soan compile`: the generated Python of a spec, readable and tied to spec lines."""

from __future__ import annotations

from pathlib import Path

from clirun import soan

KITANO = Path(__file__).resolve().parents[2] / "specs" / "kitano-20.soan"


def test_compile_show_prints_functions_headed_by_spec_lines(capsys):
    """'soan compile SPEC --players 4 --show' exits 0 and prints Python whose functions name the spec line they come from."""
    code, out, err = soan(capsys, "compile", KITANO, "--players", 4, "--show")
    assert code == 0, err
    assert "4 players, provisional rulings" in out
    line = next(k for k, text in enumerate(KITANO.read_text(encoding="utf-8").splitlines(), 1)
                if text.startswith("def held(p, s)"))
    assert f"kitano-20.soan:{line}: def held(p, s) = count(c in p.storehouse where c.suit == s)" in out
    assert "def resolve_action" not in out  # a procedure is no function of its own
    # straight runs of statements are generated functions, a procedure they call written out in place
    assert "one per straight run of statements" in out and "\ndef r1(st, f):\n" in out
    assert "# do settle_majority" in out
    compile(out, "shown", "exec")  # what is shown is Python source as it runs


def test_compile_summary_and_rulings(capsys):
    """Without --show it says how many functions it built; a --rule setting is named in the head."""
    code, out, _ = soan(capsys, "compile", KITANO, "-p", 3, "--rule", "pardon_threshold=4")
    assert code == 0
    assert "3 players, pardon_threshold=4" in out and "functions" in out


def test_compile_bad_player_count_is_a_usage_error(capsys):
    """A player count outside the spec's range exits 2 with a hint, no traceback."""
    code, _, err = soan(capsys, "compile", KITANO, "-p", 9)
    assert code == 2 and "hint" in err and "Traceback" not in err
