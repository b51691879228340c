"""Set-up shared by the CLI tests."""

import pytest


@pytest.fixture(autouse=True)
def plain_console(monkeypatch):
    """Every test sees an 80-column, colourless, non-debug console, as in a pipe."""
    monkeypatch.setenv("COLUMNS", "80")
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "SOAN_DEBUG"):
        monkeypatch.delenv(name, raising=False)
