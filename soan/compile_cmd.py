"""`soan compile`: build a spec's compiled backend for a player count and
rulings, and show the generated Python source (each function headed by the
spec line it comes from)."""

from __future__ import annotations

import sys

from soan.interpreter.play import spec_digest

from . import api
from .readable import spec_title


def add_parser(sub, common) -> None:
    c = sub.add_parser("compile", allow_abbrev=False,
                       help="compile a spec to Python for one player count; --show prints the generated source")
    common(c)
    c.add_argument("--show", action="store_true", help="print the generated source")


def compiled_tables(spec, n: int, params: dict):
    """Tables on the compiled engine with every def and procedure built, not
    only those the setup reaches before play."""
    tables = api.tables(spec, n, params, engine="compiled")
    rules = tables.rules
    for d in spec.defs:
        rules.def_fn(d.name)
    for p in spec.procedures:
        rules.proc_ops(p.name)
    return tables


def cmd_compile(args, out, err) -> int:
    from .cli import EXIT_OK, _params, _players  # the command line's shared checks

    spec = api.load(args.spec)
    n = _players(spec, args)
    params = _params(spec, args)
    tables = compiled_tables(spec, n, params)
    gen = tables.rules.x
    runs = sum(1 for src in gen.sources if src.startswith("def r"))
    positional = sum(1 for src in gen.sources if src.startswith("def _A_"))
    settings = ", ".join(f"{k}={v}" for k, v in sorted(params.items())) or "provisional rulings"
    head = (f"# soan compile {args.spec}: {spec_title(spec.name, spec.draft)}, {n} players, {settings}\n"
            f"# spec sha256 {spec_digest(spec)}\n"
            f"# {len(gen.sources) - runs - positional} functions (state, env) -> value, one per expression of the "
            f"checked IR, and {positional} defs as functions of their arguments (state, a0, a1, ...);\n"
            f"# {runs} functions (state, frame), one per straight run of statements (nothing in it can stop: "
            f"interpreter/stmtgen.py);\n"
            f"# the statements that can stop (choices, chance, while, break, end) run as ops over them "
            f"(interpreter/compile.py).\n")
    if args.show:
        sys.stdout.write(head + "\n" + gen.source())
        return EXIT_OK
    lines = sum(s.count("\n") for s in gen.sources)
    sys.stdout.write(head.replace("# ", "")
                     + f"{lines} lines of Python; soan compile {args.spec} --players {n} --show prints them\n")
    return EXIT_OK
