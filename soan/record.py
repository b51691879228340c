"""`soan record`: write a playthrough of one seeded game; and re-running
playthroughs for `soan test` and the pytest plugin."""

from __future__ import annotations

from pathlib import Path

import attrs

from soan.dsl.errors import SpecErrors
from soan.interpreter.playthrough import (SUFFIX, Head, first_difference, head_lines, playthrough_text, read_head,
                                          relative_spec)

from . import api


def add_parser(sub, common) -> None:
    r = sub.add_parser("record", allow_abbrev=False,
                       help="write a readable playthrough of one seeded game, for soan test to re-run")
    common(r)
    r.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="random seed (default 0)")
    r.add_argument("--bots", "-b", default="random", metavar="B1,B2,...",
                   help="bot per seat: random or greedy; the last fills the rest (default random)")
    r.add_argument("--out", "-o", metavar="FILE",
                   help="where to write it (default tests/playthroughs/SPEC-pN-sS.playthrough); '-' prints it")


def cmd_record(args, out, err) -> int:
    from .cli import EXIT_OK, _bots, _params, _players  # the command line's shared checks

    spec = api.load(args.spec)
    n = _players(spec, args)
    params = _params(spec, args)
    bots = _bots(args.bots, n, spec)
    target = args.out or str(Path("tests/playthroughs") / f"{Path(args.spec).stem}-p{n}-s{args.seed}{SUFFIX}")
    where = Path(target) if target != "-" else Path.cwd() / "stdout"
    rules = tuple((r.split("=", 1)[0].strip(), r.split("=", 1)[1].strip()) for r in args.rule if "=" in r)
    rules += tuple((o, "true") for o in args.option)
    head = Head(relative_spec(args.spec, where), n, args.seed, tuple(bots), rules)
    text = playthrough_text(api.tables(spec, n, params), args.seed, bots, head_lines(head, _title(spec)))
    if target == "-":
        out.file.write(text)
        return EXIT_OK
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(text, encoding="utf-8")
    steps = sum(1 for line in text.splitlines() if line.startswith("    → "))
    out.print(f"wrote {where}: {steps} decisions of {_title(spec)}, {n} players, seed {args.seed}", markup=False)
    return EXIT_OK


def _title(spec) -> str:
    return spec.name + (f", draft {spec.draft}" if spec.draft is not None else "")


@attrs.frozen
class Rerun:
    path: str
    passed: bool
    message: str = ""
    spec_path: str | None = None


def rerun(path: str | Path) -> Rerun:
    """Play a playthrough's game again and compare it line by line with the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        head = read_head(text)
    except (OSError, ValueError) as e:
        return Rerun(str(path), False, f"{path}: not a playthrough ({e})")
    spec_path = path.parent / head.spec
    try:
        spec = api.load(spec_path)
        params = api.parse_params(spec, dict(head.rules))
        bots = api.bot_names(",".join(head.bots), head.players)
        tables = api.tables(spec, head.players, params)
    except SpecErrors as e:
        return Rerun(str(path), False, e.render(), str(spec_path))
    except ValueError as e:
        return Rerun(str(path), False, f"{path}: {str(e).split('|')[0]}", str(spec_path))
    got = playthrough_text(tables, head.seed, bots, head_lines(head, _title(spec)))
    diff = first_difference(text, got)
    if diff is None:
        return Rerun(str(path), True, "", str(spec_path))
    line, want, have = diff
    message = (f"{path}:{line}: the game takes another course than the playthrough\n"
               f"    recorded: {want.strip()}\n    now:      {have.strip()}\n"
               f"  hint: if the change is intended, write it again: "
               f"{head_lines(head, '')[1].split(': ', 1)[1]} --out {path.name} (from {path.parent})")
    return Rerun(str(path), False, message, str(spec_path))


def playthroughs_for(spec_path: str | Path, folders=("tests/playthroughs",)) -> list[Path]:
    """The playthroughs of a spec: in the given folders and next to the spec."""
    spec = Path(spec_path).resolve()
    found = []
    for folder in (*map(Path, folders), spec.parent):
        for p in sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []:
            try:
                head = read_head(p.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if (p.parent / head.spec).resolve() == spec and p.resolve() not in found:
                found.append(p.resolve())
    return [Path(p) for p in found]
