"""Set-up shared by the CLI tests."""

import pytest


@pytest.fixture(autouse=True)
def plain_console(monkeypatch):
    """Every test sees a colourless, non-debug console with no width set, as in a pipe."""
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "SOAN_DEBUG"):
        monkeypatch.delenv(name, raising=False)
