"""`soan init NAME`: start a new draft from a small, complete, commented game (soan/templates/draft.soan)
that `soan check`, `soan run` and `soan verify` accept as it stands, to be changed into the designer's own."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from .cmdline import EXIT_OK, UsageError
from .files import OutputError


def add_parser(sub, common=None) -> None:
    p = sub.add_parser("init", allow_abbrev=False,
                       help="start a new draft: NAME.soan, a small complete game with comments to change into yours")
    p.add_argument("name", metavar="NAME", help="the new spec's file name, e.g. my-game (becomes my-game.soan)")
    p.add_argument("--dir", default=".", metavar="DIR", help="the folder to write it in (default: here; made if need be)")
    p.add_argument("--title", metavar="TITLE", help="the game's name in the spec (default: from NAME, my-game -> My Game)")


def template() -> str:
    return resources.files("soan").joinpath("templates", "draft.soan").read_text(encoding="utf-8")


def title_from(name: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in re.split(r"[-_\s]+", name) if w) or name


def cmd_init(args, out, err) -> int:
    name = args.name.strip()
    if name.endswith(".soan"):
        name = name[: -len(".soan")]
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise UsageError(f"'{args.name}' is not a name for a spec file",
                         "give a plain name such as my-game; choose the folder with --dir")
    title = args.title if args.title is not None else title_from(name)
    if not title.strip() or '"' in title or "\n" in title:
        raise UsageError(f"the title '{title}' cannot stand in the spec's game line",
                         "give a title without double quotes, e.g. --title 'My Game'")
    folder = Path(args.dir)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--dir {args.dir} is a file, not a folder", "give a folder (it is made if need be)")
    path = folder / f"{name}.soan"
    if path.exists():
        raise UsageError(f"{path} already exists; soan init never overwrites a draft",
                         f"choose another name, or another folder with --dir (soan check {path} reads the one there)")
    text = template().replace("@TITLE@", title.strip()).replace("@FILE@", str(path))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as f:  # "x": never over a file that appeared meanwhile
            f.write(text)
    except FileExistsError:
        raise UsageError(f"{path} already exists; soan init never overwrites a draft", "choose another name") from None
    except OSError as e:
        raise OutputError(f"{path} could not be written: {e.strerror or e}", "choose a folder you can write to") from None
    out.print(f"wrote {path}: \"{title.strip()}\", draft 1, a small complete game to change into yours", markup=False)
    for cmd, what in (("check", "does it read? its assumptions and open rulings"),
                      ("run", "one game with bots, told round by round"),
                      ("play", "play it yourself against bots"),
                      ("verify", "what can happen: supplies, tie-breaks, score range, ..."),
                      ("rulebook", "the rules as a person reads them")):
        out.print(f"  soan {cmd} {path}".ljust(12 + len(str(path)) + 8) + f"  {what}", markup=False)
    return EXIT_OK
