"""`soan lsp`: the language server for editors (diagnostics, hover, go to definition) over stdio."""

from __future__ import annotations

import logging

from rich.console import Console

from .cmdline import EXIT_FINDINGS, EXIT_OK


def add_parser(sub, common) -> None:
    sub.add_parser("lsp", allow_abbrev=False,
                   help="a language server for editors over stdio: problems while typing, hover, go to definition",
                   description="Speaks the Language Server Protocol on standard input and output; an editor starts "
                               "it (see editors/README.md). It shows soan check's located problems and hints as "
                               "diagnostics, a name's declaration and draft citation on hover, and goes to a "
                               "name's definition.")


def cmd_lsp(args, out: Console, err: Console) -> int:
    import os
    import sys

    from .langserver import make_server

    # stdout carries the protocol: anything else written there would corrupt it, so the log goes to stderr,
    # one line per event (a malformed message from the editor is logged and skipped, never a traceback)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("soan lsp: %(levelname)s: %(message)s") if os.environ.get("SOAN_DEBUG")
                         else _OneLine("soan lsp: %(levelname)s: %(message)s"))
    logging.basicConfig(handlers=[handler], level=logging.WARNING, force=True)
    server = make_server()
    # the server closes its output on `exit`; a copy of the descriptor keeps soan's own stdout open after it
    with os.fdopen(os.dup(sys.stdout.fileno()), "wb") as wire:
        server.start_io(sys.stdin.buffer, wire)
    # the protocol's rule: exit after a shutdown request is a clean stop, exit without one is not
    return EXIT_OK if server.protocol._shutdown else EXIT_FINDINGS


class _OneLine(logging.Formatter):
    """A log line without the traceback (SOAN_DEBUG=1 shows it)."""

    def formatException(self, ei) -> str:  # noqa: N802 - logging's name
        return ""

    def formatStack(self, stack_info) -> str:  # noqa: N802 - logging's name
        return ""
