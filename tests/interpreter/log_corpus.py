"""A recorded corpus of games: for every shipped spec and player count, the
sha256 of 200 seeded random games (the log's JSON, the account of events and
the marks), recorded with the closure interpreter before the compiled backend
and its speed-ups.  The slow tier replays the corpus with today's engine.

    python tests/interpreter/log_corpus.py --write     # re-record (only when a change of streams is intended)
    python tests/interpreter/log_corpus.py --sample    # re-record only the fast tier's 3-seed sample
    python tests/interpreter/log_corpus.py --greedy    # re-record only the greedy games (2 seeds)
    python tests/interpreter/log_corpus.py --write --only hibachi   # one spec (its text changed, not its games)
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "corpus" / "random-200.json"
SEEDS = range(200)


def game_digest(rec) -> str:
    # the log names the spec by the path it was loaded from: keep only the file's name, so the
    # corpus holds on any checkout
    # corpus holds on any checkout (marks are keyed by sites, which name the file too)
    path = rec.log["spec"]["path"]
    folder = str(Path(path).parent) + "/"
    text = rec.to_json().replace(json.dumps(path), json.dumps(Path(path).name))
    h = hashlib.sha256(text.encode("utf-8"))
    h.update(repr(rec.state.events).replace(folder, "").encode("utf-8"))
    h.update(repr(sorted(rec.state.marks.items())).replace(folder, "").encode("utf-8"))
    return h.hexdigest()


def digests(spec, n: int, engine: str | None = None, seeds=SEEDS, bot: str = "random") -> str:
    """One digest over the games of `seeds` (a change anywhere changes it)."""
    from soan import api

    tables = api.tables(spec, n, engine=engine)
    h = hashlib.sha256()
    for seed in seeds:
        h.update(game_digest(api.play(tables, seed, [bot] * n, narrate=True)).encode("ascii"))
    return h.hexdigest()


SAMPLE = range(3)  # the fast tier's sample: keys "sample:SPEC-pN"
GREEDY = range(2)  # greedy games: keys "greedy:SPEC-pN"


def main(argv) -> int:
    from soan import api

    if not {"--write", "--sample", "--greedy"} & set(argv):
        print(__doc__)
        return 2
    engine = "closures"
    out = json.loads(CORPUS.read_text(encoding="utf-8")) if CORPUS.exists() else {}
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    for path in sorted((ROOT / "specs").glob("*.soan")):
        if only is not None and path.stem != only:
            continue
        spec = api.load(str(path))
        for n in range(spec.min_players, spec.max_players + 1):
            if "--write" in argv:
                out[f"{path.stem}-p{n}"] = digests(spec, n, engine)
            if "--write" in argv or "--sample" in argv:
                out[f"sample:{path.stem}-p{n}"] = digests(spec, n, engine, SAMPLE)
            if "--write" in argv or "--greedy" in argv:
                out[f"greedy:{path.stem}-p{n}"] = digests(spec, n, engine, GREEDY, "greedy")
            print(path.stem, n, out[f"{path.stem}-p{n}"], flush=True)
    CORPUS.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
