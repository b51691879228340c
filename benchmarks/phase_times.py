"""Where a `soan verify` run spends its CPU, phase by phase.

    python benchmarks/phase_times.py specs/pitmaster-20.soan --players 4 [--games 120] [--seed 0] [--jobs 2]
                                     [--json OUT]

Runs the same verification as `soan verify SPEC --players N --games G` (the
same work, so the same findings) with the Verifier's phases wrapped: each
phase's CPU seconds in this process (time.process_time) and in the child
processes it started and reaped (resource.getrusage(RUSAGE_CHILDREN): the
climbs' look-ahead workers, the seeded games' workers, the rulings study once
its result is taken), printed as a tree (a phase's time includes the phases
listed under it), with the engine steps where a phase counts them.  The
default output of `soan verify` is untouched: the wrapping lives here only.
`--json OUT` also writes the verify result, to compare findings with a plain
run's.
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import verify_run  # (this folder's: a script's own folder is on the path)



def _children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Phases:
    def __init__(self):
        self.stack: list[str] = []
        self.rows: dict[tuple, list] = {}  # path -> [calls, own cpu, children cpu]
        self.order: list[tuple] = []
        self.last_progress = ""

    def wrap(self, owner, attr: str, label, games: bool = False):
        """`games`: count the games the call reports through its on_game keyword, and note what it returned."""
        fn = getattr(owner, attr)
        phases = self

        def wrapped(*args, **kwargs):
            name = label(args, kwargs) if callable(label) else label
            phases.stack.append(name)
            path = tuple(phases.stack)
            if path not in phases.rows:
                phases.rows[path] = [0, 0.0, 0.0, 0, []]
                phases.order.append(path)
            row = phases.rows[path]
            raised = []  # for a climb (its value function second): the game that last raised the value's first part
            if games and kwargs.get("on_game") is not None:
                inner = kwargs["on_game"]
                value = args[1] if attr == "climb" and len(args) > 1 and callable(args[1]) else None
                best = [None, 0]

                def counted(rec):
                    row[3] += 1
                    best[1] += 1
                    if value is not None:
                        v = value(rec)
                        if v is not None and (best[0] is None or v[0] > best[0]):
                            best[0] = v[0]
                            raised[:] = [best[1]]
                    inner(rec)
                kwargs["on_game"] = counted
            c0, k0 = time.process_time(), _children()
            out = None
            try:
                out = fn(*args, **kwargs)
                return out
            finally:
                row[0] += 1
                row[1] += time.process_time() - c0
                row[2] += _children() - k0
                if games:
                    got = out[0] if isinstance(out, tuple) and out else out
                    row[4].append(got if not raised else f"{got}@{raised[0]}")
                phases.stack.pop()

        setattr(owner, attr, wrapped)

    def report(self, total_own: float, total_children: float, out=sys.stdout) -> None:
        print(f"{'phase':70s} {'calls':>5s} {'own s':>7s} {'child s':>7s} {'sum s':>7s}  games, reached", file=out)
        for path in self.order:
            calls, own, kids, games, got = self.rows[path]
            name = "  " * (len(path) - 1) + path[-1]
            note = f"  {games} {got}" if got else ""
            print(f"{name[:70]:70s} {calls:5d} {own:7.1f} {kids:7.1f} {own + kids:7.1f}{note}", file=out)
        print(f"{'whole run':70s} {'':5s} {total_own:7.1f} {total_children:7.1f} {total_own + total_children:7.1f}",
              file=out)


def main(argv=None) -> None:
    args = verify_run.parser(__doc__.splitlines()[0], 180.0, "write the verify result here").parse_args(argv)

    from soan import api
    from soan.verify import climb as coop, crosscheck, item_plan, item_witness, seat_plan, supplies
    from soan.verify import properties as P

    ph = Phases()
    V = P.Verifier
    msg = lambda prefix: (lambda a, k: f"{prefix}: {ph.last_progress}")  # noqa: E731
    ph.wrap(P, "setup_branches", "bounds: setup branches")
    ph.wrap(P, "search", "seeded and targeted games")
    ph.wrap(P, "more_games", "more seeded games")
    ph.wrap(V, "p_score", "score")
    ph.wrap(V, "_item_bounds", "score: item bounds")
    ph.wrap(P, "climb", msg("climb"), games=True)
    ph.wrap(V, "_cooperative", "cooperative search for the total")
    ph.wrap(V, "_item_climbs", "cooperative item climbs")
    ph.wrap(V, "_witness_items", "item witness climbs (item_witness)")
    ph.wrap(V, "_plan_items", "item plans")
    ph.wrap(item_plan, "plan_loose", "every-seat plans (item_plan)")
    ph.wrap(seat_plan, "plan_focused", "one-seat plans (seat_plan)")
    ph.wrap(coop, "reach", msg("cooperative reach"), games=True)
    ph.wrap(item_witness, "climb_loose", "item_witness.climb_loose")
    for name in P.PROPERTIES:
        if name != "score":
            ph.wrap(V, "p_" + name, name)
    ph.wrap(V, "_push", msg("push"))
    ph.wrap(supplies, "_planned_short", lambda a, k: f"turn-planned shortage search: {a[1]}")
    ph.wrap(supplies, "_cooperative_short", lambda a, k: f"cooperative shortage search: {a[1]}")
    ph.wrap(supplies, "_stepwise_short", lambda a, k: f"stepwise shortage search: {a[1]}")
    ph.wrap(V, "_witness", "confirm and save witnesses")
    ph.wrap(crosscheck, "check", "crosscheck")

    spec = api.load(args.spec)
    tables = api.tables(spec, args.players, {})

    def progress(m: str) -> None:
        ph.last_progress = m.split(":")[0] if m.startswith("searching:") else m

    c0, k0 = time.process_time(), _children()
    result = verify_run.verify(tables, args, progress)
    own, kids = time.process_time() - c0, _children() - k0
    ph.report(own, kids)
    verify_run.print_summary(result)
    if args.json:
        Path(args.json).write_text(P.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    main()
