"""When each climb of a `soan verify` run last gained anything (branch s12-pittime, issue #10).

    python benchmarks/climb_gains.py specs/pitmaster-20.soan --players 3 [--games 120] [--budget 1000]
                                     [--json OUT]

Runs the same verification as `soan verify SPEC --players N --games G` (the same work and findings) with
every climb of verify/search.climb that the Verifier starts (the climbs towards proved bounds, the loose
items' climbs of verify/item_witness.py, the pushes) watched: how many games it played, the games after
which anything the run keeps changed (a best or worst game of any score or item, a mark's or a ruling's
shortest witness, the longest game, a loop's peak; what changed is in the JSON) and the games that raised
the climb's own value (its first `raise_parts` parts, as the climb counts them).  A climb that stops N games
after the later of its last change and its last raise plays the same games up to there and leaves the run
as it was: that is how TIGHT_QUIET_PER_GAME in verify/properties.py was chosen.  `--json OUT` writes the
per-climb record; OUT.result.json the verify result, to compare findings with a plain run's.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import verify_run  # (this folder's: a script's own folder is on the path)


def _kept(res) -> dict:
    """What a SearchResult keeps, each entry by its value and witness object."""
    d = {}
    for cat in ("marks", "consulted", "longest", "loop_peak"):
        for k, w in getattr(res, cat).items():
            d[(cat, str(k))] = id(w[1] if isinstance(w, tuple) else w)
    for cat in ("best", "worst"):
        for k, (v, w) in getattr(res, cat).items():
            d[(cat, k)] = (v, id(w))
    return d


def main(argv=None) -> None:
    args = verify_run.parser(__doc__.splitlines()[0], 1000.0,
                             "write the per-climb record here (and the verify result to OUT.result.json)").parse_args(argv)

    from soan import api
    from soan.verify import item_witness
    from soan.verify import properties as P

    state = {"label": "", "climb": None}
    log: list[dict] = []
    observe, climb, item_value = P.observe, P.climb, item_witness.item_value

    def watched_observe(res, rec, tables):
        c = state["climb"]
        if c is None:
            return observe(res, rec, tables)
        before = _kept(res)
        out = observe(res, rec, tables)
        after = _kept(res)
        c["games"] += 1
        if c["value"] is not None:
            v = c["value"](rec)
            if v is not None and (c["best"] is None or v > c["best"]):
                if c["best"] is None or v[:c["raise_parts"]] > c["best"][:c["raise_parts"]]:
                    c["raises"].append(c["games"])
                c["best"] = v
        changed = [f"{cat}:{k}" + (f"={after[(cat, k)][0]}" if cat in ("best", "worst") else "")
                   for (cat, k) in after if before.get((cat, k)) != after[(cat, k)]]
        if changed:
            c["changes"].append((c["games"], changed))
        return out

    def watched_climb(*a, **k):
        value, starts = a[1], a[2]
        vals = [x for x in (value(r) for r in starts) if x is not None]
        c = {"label": state["label"], "games": 0, "changes": [], "raises": [], "value": value,
             "best": max(vals) if vals else None, "raise_parts": k.get("raise_parts", 1),
             "patience": k.get("patience"), "quiet": k.get("quiet")}
        prev, state["climb"] = state["climb"], c
        c0 = time.process_time()
        try:
            return climb(*a, **k)
        finally:
            c["cpu_main"] = round(time.process_time() - c0, 2)
            c["value"] = c["best"] = None
            state["climb"] = prev
            log.append(c)

    def named_value(tables, name, sign):
        state["label"] = f"loose item climb: {name} ({'max' if sign > 0 else 'min'})"
        return item_value(tables, name, sign)

    P.observe, P.climb, item_witness.item_value = watched_observe, watched_climb, named_value

    def progress(m: str) -> None:
        state["label"] = m

    tables = api.tables(api.load(args.spec), args.players, {})
    result = verify_run.verify(tables, args, progress)
    for c in log:
        last = max([g for g, _ in c["changes"]] + c["raises"] + [0])
        print(f"{c['label'][:64]:64s} games {c['games']:5d}  last change or raise after game {last:4d}  "
              f"changes {[g for g, _ in c['changes']]}  raises {c['raises']}")
    verify_run.print_summary(result)
    if args.json:
        for c in log:
            c.pop("value"), c.pop("best")
        Path(args.json).write_text(json.dumps(log, indent=1), encoding="utf-8")
        Path(args.json + ".result.json").write_text(P.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    main()
