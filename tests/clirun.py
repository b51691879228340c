"""Running the soan command in-process, as the CLI tests do."""

from __future__ import annotations

from pathlib import Path

from soan.cli import main

ROOT = Path(__file__).resolve().parents[1]
KITANO = str(ROOT / "specs" / "kitano-20.soan")
# a whole game in five lines, for command-line tests that need any valid spec
TINY = '''game "Tiny" players 2..3
score pts "Points"
rounds 1 {
  for p in players { award 1 to p for pts }
}
winner among p in players by vp(p) desc else draw
'''


def soan(capsys, *args) -> tuple[int, str, str]:
    """Run `soan ARGS` in-process and return (exit code, stdout, stderr)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def flat(text: str) -> str:
    """`text` with every run of whitespace made one space, so console line-wrapping does not matter."""
    return " ".join(text.split())
