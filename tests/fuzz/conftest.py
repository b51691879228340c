"""Set-up for the fuzz harness: a plain console and no debug mode (SOAN_DEBUG would let a crash raise)."""

import pytest


@pytest.fixture(autouse=True)
def plain_console(monkeypatch):
    """Every fuzz case sees a colourless, non-debug console with no width set, as in a pipe."""
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "SOAN_DEBUG"):
        monkeypatch.delenv(name, raising=False)
