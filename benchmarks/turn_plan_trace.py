"""The turn-planned supply search (verify/turn_plan.py) round by round, as `soan verify` runs it.

    python benchmarks/turn_plan_trace.py specs/pitmaster-19.soan --players 4 --token roast_token [--seed 0]
                                         [--games 120] [--no-pace] [--chosen K]

Prints each try of each round (the round it starts at, its engine steps, the objective where it ends,
the tokens out), then the value kept, the steps spent and the CPU seconds (time.process_time).  With
the pace rule (verify/supplies.py: out_of_pace) unless --no-pace: the trace shows where it gives up.
"""

from __future__ import annotations

import argparse
import time

from soan import api
from soan.verify import stepwise, supplies, turn_plan
from soan.verify.bounds import Bounds


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec")
    ap.add_argument("--players", "-p", type=int, required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", type=int, default=120)
    ap.add_argument("--no-pace", action="store_true")
    ap.add_argument("--chosen", type=int, default=None, help="courses a round with chosen luck (default: verify's)")
    args = ap.parse_args(argv)
    t = api.tables(api.load(args.spec), args.players, {})
    supply = t.supply_size(args.token)
    objective = stepwise.potential_objective(t, args.token, supply)
    rounds = Bounds(t).round_bound
    plain = turn_plan._round

    def traced(start, objective, rng, work, max_steps, *a, **k):
        before = work.spent
        got = plain(start, objective, rng, work, max_steps, *a, **k)
        end = got[0]
        luck = "chosen" if len(a) > 2 and a[2] is not None else "drawn"
        print(f"round {start.round} ({luck}): {work.spent - before} steps (total {work.spent}), value {objective(end)}, "
              f"{supply - end.supply[args.token]} of {supply} out", flush=True)
        return got
    turn_plan._round = traced
    spent = [0]
    c = time.process_time()
    got = turn_plan.plan(t, objective, args.seed, args.games * supplies.PLANNED_STEPS_PER_GAME,
                         settled=lambda v: v[0] == 1, spent=spent,
                         hopeless=None if args.no_pace else supplies.out_of_pace(supply, rounds),
                         chosen=supplies.PLANNED_CHOSEN if args.chosen is None else args.chosen)
    print(f"kept {got[0] if got else None}, {spent[0]} steps, {time.process_time() - c:.2f} s CPU")


if __name__ == "__main__":
    main()
