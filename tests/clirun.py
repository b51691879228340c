"""Running the soan command in-process, as the CLI tests do."""

from __future__ import annotations

from soan.cli import main


def soan(capsys, *args) -> tuple[int, str, str]:
    """Run `soan ARGS` in-process and return (exit code, stdout, stderr)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def flat(text: str) -> str:
    """`text` with every run of whitespace made one space, so console line-wrapping does not matter."""
    return " ".join(text.split())
