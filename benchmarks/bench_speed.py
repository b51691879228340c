"""The speed figures of issue 12, measured side by side in one run.

  1. random playouts of Kitano draft 20 at 4 and 3 players: soan and the
     hand-written yardstick (benchmarks/reference/kitano.py) in the same
     process, and the ratio soan / yardstick;
  2. a greedy game at 4 players: milliseconds per game;
  3. look-ahead: copying a state (State.clone) against replaying the game's
     log up to the same point, microseconds each;
  4. `simulate --jobs 2` against `--jobs 1` on the same games (wall clock).

Games are on fixed seeds after a short warm-up; time is time.perf_counter.
What is compared is interleaved (soan and the hand-written game seed by seed,
the two engines' greedy games game by game), so a change of load on a shared
machine falls on both sides alike.
Nothing is asserted: the numbers are only printed (and with --json, dumped).

    python benchmarks/bench_speed.py                   # defaults: 500 random, 10 greedy, 400 for jobs
    python benchmarks/bench_speed.py --engine closures # the closure interpreter alone
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "reference"))

import kitano  # noqa: E402

from soan import api  # noqa: E402
from soan.interpreter import play as playmod  # noqa: E402

SPEC = HERE.parent / "specs" / "kitano-20.soan"
SEED = 1000


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": cpu, "cpu_count": os.cpu_count(),
            "python": platform.python_version()}


def _tables(spec, n, engine):
    try:
        return api.tables(spec, n, engine=engine)
    except TypeError:  # before the compiled backend existed
        return api.tables(spec, n)


def random_ratio(spec, n: int, games: int, engines: tuple[str, ...]) -> dict:
    """Each engine of soan and the hand-written game take turns seed by seed,
    so a change of load on a shared machine falls on all of them alike."""
    tables = {e: _tables(spec, n, e) for e in engines}
    for k in range(5):
        for e in engines:
            api.play(tables[e], SEED - 10 + k, ["random"] * n)
        kitano.play(n, SEED - 10 + k)
    spent = dict.fromkeys(engines, 0.0)
    ref_s = 0.0
    clock = time.perf_counter
    for k in range(games):
        for e in engines:
            t0 = clock()
            api.play(tables[e], SEED + k, ["random"] * n)
            spent[e] += clock() - t0
        t0 = clock()
        kitano.play(n, SEED + k)
        ref_s += clock() - t0
    ref_gps = games / ref_s
    out = {"players": n, "games": games, "reference_games_per_second": ref_gps}
    for e in engines:
        out[e] = {"soan_games_per_second": games / spent[e], "ratio": games / spent[e] / ref_gps}
    first = out[engines[0]]
    out["soan_games_per_second"], out["ratio"] = first["soan_games_per_second"], first["ratio"]
    return out


def greedy(spec, games: int, engines: tuple[str, ...]) -> dict:
    """Greedy games at 4 players, the engines alternating game by game."""
    tables = {e: _tables(spec, 4, e) for e in engines}
    total = dict.fromkeys(engines, 0.0)
    for e in engines:
        api.play(tables[e], SEED - 1, ["greedy"] * 4)
    for k in range(games):
        for e in engines:
            t0 = time.perf_counter()
            api.play(tables[e], SEED + k, ["greedy"] * 4)
            total[e] += time.perf_counter() - t0
    return {e: {"players": 4, "games": games, "ms_per_game": total[e] / games * 1000} for e in engines}


def greedy_breakdown(spec, engine: str, games: int = 3) -> dict:
    """Where a greedy game's time goes: its bots' sampling of hidden cards (determinize, a copy and a
    re-deal), copying the sample once per move, playing the move, and scoring the copy as if the game
    ended there (the spec's own end-of-game rules); the rest is the game itself.  CPU seconds
    (time.process_time), so the split does not move with the machine's load."""
    from soan.interpreter import evaluate as evalmod
    from soan.interpreter.state import State

    tables = _tables(spec, 4, engine)
    spent = {"sample": 0.0, "copy": 0.0, "score": 0.0}
    clock = time.process_time
    orig = playmod.determinize, State.clone, evalmod.finish_now
    depth = [0]

    def timed(name, fn):
        def wrapper(*a, **k):
            if depth[0]:  # a copy made inside sampling or scoring is counted there
                return fn(*a, **k)
            depth[0] += 1
            t0 = clock()
            try:
                return fn(*a, **k)
            finally:
                spent[name] += clock() - t0
                depth[0] -= 1
        return wrapper

    playmod.determinize = timed("sample", orig[0])  # play_game's bots sample through this name
    State.clone = timed("copy", orig[1])
    evalmod.finish_now = timed("score", orig[2])  # the winner-aware evaluation scores through this name
    try:
        t0 = clock()
        for k in range(games):
            api.play(tables, SEED + k, ["greedy"] * 4)
        total = clock() - t0
    finally:
        playmod.determinize, State.clone, evalmod.finish_now = orig
    out = {"games": games, "cpu_ms_per_game": total / games * 1000}
    for k, v in spent.items():
        out[f"{k}_share"] = v / total
    out["rest_share"] = 1 - sum(spent.values()) / total
    return out


def copy_vs_replay(spec, engine: str, reps: int = 200) -> dict:
    """At every decision of one random game: clone the state, and rebuild it by
    replaying the log's steps so far; the mean cost of each."""
    tables = _tables(spec, 4, engine)
    rec = api.play(tables, SEED, ["random"] * 4)
    steps = rec.log["steps"]
    # the states at a spread of points through the game
    points = sorted({int(len(steps) * f) for f in (0.1, 0.3, 0.5, 0.7, 0.9)})
    states = {}

    def keep(st, count=[0]):
        if count[0] in points:
            states[count[0]] = st.clone()
        count[0] += 1

    playmod.replay(tables, rec.log, on_step=keep)
    t0 = time.perf_counter()
    for _ in range(reps):
        for k in points:
            states[k].clone()
    clone_us = (time.perf_counter() - t0) / (reps * len(points)) * 1e6
    t0 = time.perf_counter()
    r = max(1, reps // 20)
    for _ in range(r):
        for k in points:
            _replay_prefix(tables, steps[:k])
    replay_us = (time.perf_counter() - t0) / (r * len(points)) * 1e6
    return {"points": points, "clone_us": clone_us, "replay_us": replay_us, "replay_over_clone": replay_us / clone_us}


def _replay_prefix(tables, steps):
    from soan.interpreter.state import State
    st = State(tables).start()
    for step in steps:
        if "chance" in step:
            o = step["outcome"]
            st.apply_chance(list(o) if isinstance(o, list) else o)
        else:
            st.apply(step["index"])
    return st


def jobs(spec, games: int, engine: str) -> dict:
    tables = _tables(spec, 4, engine)
    out = {}
    results = {}
    import resource

    def cpu() -> float:  # this process and its finished child processes
        return sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
                   for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))

    for j in (1, 2):
        t0, c0 = time.perf_counter(), cpu()
        try:
            results[j] = api.simulate(tables, games, SEED, ["random"] * 4, jobs=j)
        except TypeError:
            if j == 2:
                return {"games": games, "unavailable": "simulate takes no jobs here"}
            results[j] = api.simulate(tables, games, SEED, ["random"] * 4)
        out[f"jobs{j}_seconds"] = time.perf_counter() - t0
        out[f"jobs{j}_cpu_seconds"] = cpu() - c0
    out["load_average"] = os.getloadavg()[0]
    out["machine_two_process_speedup"] = _two_process_ceiling()
    out["games"] = games
    out["speedup"] = out["jobs1_seconds"] / out["jobs2_seconds"]
    out["identical"] = results[1] == results[2]
    return out


def _burn(n: int) -> int:
    s = 0
    for i in range(n):
        s += i * i
    return s


def _two_process_ceiling(n: int = 3_000_000) -> float:
    """What the machine gives two processes right now: two independent plain-Python loops in two processes
    against both in one (about 2x on an idle 2-core machine; about 1x when its cores are busy)."""
    import multiprocessing

    t0 = time.perf_counter()
    _burn(n)
    _burn(n)
    one = time.perf_counter() - t0
    t0 = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(_burn, [n, n])
    return one / (time.perf_counter() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="issue 12's speed figures, side by side")
    ap.add_argument("--games", type=int, default=500, help="random games per player count (default 500)")
    ap.add_argument("--greedy-games", type=int, default=10)
    ap.add_argument("--jobs-games", type=int, default=400)
    ap.add_argument("--engine", default="compiled", choices=("compiled", "closures"))
    ap.add_argument("--skip", default="",
                    help="comma-separated parts to leave out: random,greedy,copy,breakdown,jobs,closures")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    skip = set(a.skip.split(",")) - {""}
    spec = api.load(str(SPEC))
    report = {"machine": machine(), "engine": a.engine}
    compare = (a.engine,) if a.engine == "closures" or "closures" in skip else (a.engine, "closures")
    if "random" not in skip:
        report["random"] = [random_ratio(spec, n, a.games, compare) for n in (4, 3)]
    if "greedy" not in skip:
        g = greedy(spec, a.greedy_games, compare)
        report["greedy"] = g[a.engine]
        if "closures" in g and a.engine != "closures":
            report["greedy_closures"] = g["closures"]
    if "copy" not in skip:
        report["copy"] = copy_vs_replay(spec, a.engine)
    if "breakdown" not in skip:
        report["greedy_breakdown"] = greedy_breakdown(spec, a.engine)
    if "jobs" not in skip:
        report["jobs"] = jobs(spec, a.jobs_games, a.engine)
    if a.json:
        print(json.dumps(report, indent=1))
        return 0
    m = report["machine"]
    print(f"machine: {m['platform']}, {m['cpu']}, os.cpu_count() = {m['cpu_count']}, Python {m['python']}; "
          f"engine: {a.engine}")
    for r in report.get("random", []):
        print(f"random playouts, {r['players']} players, {r['games']} games: soan {r['soan_games_per_second']:.0f} "
              f"games/s, hand-written {r['reference_games_per_second']:.0f} games/s, ratio {r['ratio']:.3f}")
        if "closures" in r and a.engine != "closures":
            c = r["closures"]
            print(f"  closure interpreter, same games, taking turns: {c['soan_games_per_second']:.0f} games/s, "
                  f"ratio {c['ratio']:.3f}")
    if "greedy" in report:
        g = report["greedy"]
        print(f"greedy game, 4 players, {g['games']} games: {g['ms_per_game']:.0f} ms per game")
    if "copy" in report:
        c = report["copy"]
        print(f"look-ahead: clone a state {c['clone_us']:.1f} us, replay to it {c['replay_us']:.0f} us "
              f"(replay / clone {c['replay_over_clone']:.0f}x)")
    if "greedy_breakdown" in report:
        b = report["greedy_breakdown"]
        print(f"greedy game, where the CPU time goes ({b['games']} games, {b['cpu_ms_per_game']:.0f} ms CPU each): "
              f"sampling hidden cards {b['sample_share']:.0%}, copying the sample per move {b['copy_share']:.0%}, "
              f"scoring each move's copy {b['score_share']:.0%}, the rest (playing the moves, the game) "
              f"{b['rest_share']:.0%}")
    if "jobs" in report:
        j = report["jobs"]
        if "unavailable" in j:
            print(f"simulate --jobs: {j['unavailable']}")
        else:
            print(f"simulate -n {j['games']}: --jobs 1 {j['jobs1_seconds']:.2f} s, --jobs 2 {j['jobs2_seconds']:.2f} s, "
                  f"speedup {j['speedup']:.2f}x, same statistics: {'yes' if j['identical'] else 'NO'}; CPU seconds "
                  f"(all processes) {j['jobs1_cpu_seconds']:.2f} and {j['jobs2_cpu_seconds']:.2f}; load average "
                  f"{j['load_average']:.1f} on {os.cpu_count()} cores; two plain busy loops in two processes vs one: "
                  f"{j['machine_two_process_speedup']:.2f}x (what the machine gives a second process now)")
    if "greedy_closures" in report:
        print(f"greedy game on the closure interpreter, alternating with the above: "
              f"{report['greedy_closures']['ms_per_game']:.0f} ms per game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
