"""How a `soan verify` run keeps the cores busy: every process's CPU over time, by what it does.

    python benchmarks/core_use.py specs/pitmaster-19.soan --players 4 [--games 120] [--seed 0] [--jobs 0]
                                  [--budget 180] [--json OUT] [--every 2] [--save SAMPLES]
    python benchmarks/core_use.py SAMPLES --load --players 0

Runs the same verification as `soan verify SPEC --players N --games G` (the same work and findings, as
phase_times.py does) while a sampler process reads /proc every 0.1 s: the CPU of this process and of every
process it forks, each named by what forked it (the seeded games' pool, a climb's look-ahead pool, the
rulings study, the turn-planned searches: see `roles` below).  Prints

- each role's CPU and when it ran (seconds of wall clock from the start);
- the main process's phases (its progress messages): wall, its own CPU, and the CPU of the others meanwhile;
- a timeline: cores used per `--every` seconds, by role;
- the measures that do not depend on the machine's load: the main process's own CPU, the CPU of the work it
  waits for, every process's CPU; and two floors for the wall clock on an idle machine of 2 cores: the
  whole CPU over 2, and the main process's CPU plus its waits for pools as if each pool process had a core.

Wall-clock figures are only meaningful on an idle machine; on a shared one read the CPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import verify_run  # (this folder's: a script's own folder is on the path)

TICK = os.sysconf("SC_CLK_TCK")

SAMPLER = r"""
import os, sys, time
root, out, me = int(sys.argv[1]), sys.argv[2], os.getpid()
with open(out, "w") as f:
    while True:
        t = time.perf_counter()
        kids, cpu = {}, {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat") as s:
                    x = s.read()
            except OSError:
                continue
            rest = x[x.rindex(")") + 2:].split()
            kids.setdefault(int(rest[1]), []).append(int(d))
            cpu[int(d)] = int(rest[11]) + int(rest[12])
        if root not in cpu:
            break
        todo, seen = [root], []
        while todo:
            p = todo.pop()
            if p != me:
                seen.append(p)
                todo += kids.get(p, [])
        f.write(f"{t} " + " ".join(f"{p}:{cpu[p]}" for p in seen if p in cpu) + "\n")
        f.flush()
        time.sleep(0.1)
"""


def main(argv=None) -> None:
    ap = verify_run.parser(__doc__.splitlines()[0], 180.0, "write the verify result here")
    ap.add_argument("--every", type=float, default=2.0, help="seconds per line of the timeline")
    ap.add_argument("--save", help="also write the samples here (JSON), to report on again with --load")
    ap.add_argument("--load", action="store_true", help="report on the samples saved in SPEC (no run)")
    args = ap.parse_args(argv)
    if args.load:
        x = json.loads(Path(args.spec).read_text(encoding="utf-8"))
        series = [(t, {int(p): c for p, c in cpus.items()}) for t, cpus in x["series"]]
        report(series, {int(p): r for p, r in x["roles"].items()}, [tuple(m) for m in x["marks"]], x["wall"],
               args.every, x["main_end"])
        return

    from soan import api
    from soan.interpreter import play
    from soan.verify import background

    roles: dict[int, str] = {os.getpid(): "main"}
    phase = ["start"]
    marks: list[tuple[float, float, str]] = []  # (wall, main's cpu, progress message)

    init = background.Background.__init__

    def bg_init(self, fn, enabled=True):
        init(self, fn, enabled)
        if self.proc is not None:
            name = getattr(fn, "__qualname__", "")
            roles[self.proc.pid] = "rulings study" if "rulings" in name else "turn-planned searches"
    background.Background.__init__ = bg_init

    result_of = background.Background.result

    def bg_result(self, here=None):
        role = roles.get(self.proc.pid) if self.proc is not None else None
        if role is None:
            return result_of(self, here)
        before = phase[0]
        progress(f"waiting for the {role}")
        try:
            return result_of(self, here)
        finally:
            progress(before)
    background.Background.result = bg_result

    enter = play.Workers.__enter__

    def workers_enter(self):
        out = enter(self)
        if self.pool is not None:
            what = "seeded games" if phase[0].startswith("searching") else "look-ahead pools (climbs)"
            for p in self.pool._pool:
                roles[p.pid] = what
        return out
    play.Workers.__enter__ = workers_enter

    spec = api.load(args.spec)
    tables = api.tables(spec, args.players, {})
    t0 = time.perf_counter()

    def progress(m: str) -> None:
        m = "searching" if m.startswith("searching:") else m.split(" 1/")[0] if m.startswith("rulings:") else m
        if m != phase[0]:
            phase[0] = m
            marks.append((time.perf_counter() - t0, time.process_time(), m))

    with tempfile.TemporaryDirectory() as wd:
        samples = Path(wd) / "samples"
        sampler = subprocess.Popen([sys.executable, "-c", SAMPLER, str(os.getpid()), str(samples)])
        time.sleep(0.3)
        try:
            result = verify_run.verify(tables, args, progress)
        finally:
            wall = time.perf_counter() - t0
            main_end = time.process_time()
            sampler.terminate()
            sampler.wait()
        lines = samples.read_text().splitlines()
    series = []  # (wall from t0, {pid: cpu seconds})
    for line in lines:
        t, *rest = line.split()
        series.append((float(t) - t0, {int(p): int(c) / TICK for p, c in (x.split(":") for x in rest)}))
    if args.save:
        Path(args.save).write_text(json.dumps({"series": series, "roles": roles, "marks": marks, "wall": wall,
                                               "main_end": main_end}), encoding="utf-8")
    report(series, roles, marks, wall, args.every, main_end)
    verify_run.print_summary(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, ensure_ascii=False, indent=2), encoding="utf-8")


def report(series, roles: dict, marks: list, wall: float, every: float, main_end: float) -> None:
    first_cpu: dict[int, float] = {}
    last: dict[int, tuple[float, float]] = {}  # pid -> (wall last seen, cpu then)
    start: dict[int, float] = {}
    per_role_t: list[tuple[float, dict]] = []  # (wall, role -> cpu spent since the previous sample)
    prev: dict[int, float] = {}
    for t, cpus in series:
        spent: dict[str, float] = defaultdict(float)
        for p, c in cpus.items():
            if p not in first_cpu:
                first_cpu[p] = c if roles.get(p) == "main" else 0.0  # a fork starts at 0 CPU of its own
                start[p] = t
            spent[roles.get(p, "other")] += c - prev.get(p, first_cpu[p])
            prev[p] = c
            last[p] = (t, c)
        per_role_t.append((t, spent))
    by_role: dict[str, list] = defaultdict(lambda: [0.0, None, 0.0, 0])  # cpu, first seen, last seen, processes
    for p, (t, c) in last.items():
        r = by_role[roles.get(p, "other")]
        r[0] += c - first_cpu[p]
        r[1] = start[p] if r[1] is None else min(r[1], start[p])
        r[2] = max(r[2], t)
        r[3] += 1
    total = sum(r[0] for r in by_role.values())
    print(f"{'role':44s} {'procs':>5s} {'cpu s':>7s} {'from':>6s} {'to':>6s}")
    for name, (cpu, a, b, n) in sorted(by_role.items(), key=lambda x: x[1][1]):
        print(f"{name[:44]:44s} {n:5d} {cpu:7.1f} {a:6.1f} {b:6.1f}")
    print(f"{'every process':44s} {'':5s} {total:7.1f} {0:6.1f} {wall:6.1f}")

    print(f"\n{'main process phase':60s} {'wall':>6s} {'main':>6s} {'others':>6s} {'cores':>5s}")
    bounds = [(a, b, m) for (a, _, m), (b, _, _) in zip(marks, marks[1:] + [(wall, 0, "")])]
    for a, b, m in bounds:
        own = others = 0.0
        for t, spent in per_role_t:
            if a < t <= b:
                own += spent.get("main", 0.0)
                others += sum(v for k, v in spent.items() if k != "main")
        if b - a >= 0.5:
            print(f"{m[:60]:60s} {b - a:6.1f} {own:6.1f} {others:6.1f} {(own + others) / (b - a):5.2f}")

    names = sorted(by_role, key=lambda r: by_role[r][1])
    print(f"\ntimeline, cores used per {every:g} s:  " + "  ".join(f"{k}={n}" for k, n in enumerate(names)))
    k, edge, acc = 0, every, defaultdict(float)
    for t, spent in per_role_t + [(float("inf"), {})]:
        while t > edge:
            if acc or edge <= wall:
                cells = " ".join(f"{acc.get(n, 0.0) / every:4.2f}" for n in names)
                print(f"{edge - every:6.0f}s  {sum(acc.values()) / every:4.2f} | {cells}")
            acc = defaultdict(float)
            edge += every
            if edge > wall + every:
                break
        for n, v in spent.items():
            acc[n] += v
    segments = []  # (label, main's cpu, role -> others' cpu) per phase, for the model below
    for (a, ca, m), (b, cb, _) in zip(marks, marks[1:] + [(wall, None, "")]):
        others: dict[str, float] = defaultdict(float)
        for t, spent in per_role_t:
            if a < t <= b:
                for k, v in spent.items():
                    if k != "main":
                        others[k] += v
        segments.append((m, (cb if cb is not None else main_end) - ca, others))
    background = {r: (v[0], v[1]) for r, v in by_role.items() if r in BACKGROUND}
    main_cpu = by_role["main"][0]
    seeded = by_role.get("seeded games", [0.0])[0]
    print(f"\nwall {wall:.1f} s (meaningful on an idle machine only); every process's CPU {total:.1f} s, "
          f"main's own {main_cpu:.1f} s, the seeded games' pool {seeded:.1f} s")
    print(f"floors for an idle 2-core machine: every process's CPU / 2 = {total / 2:.1f} s; main's own + the "
          f"seeded games' pool / 2 = {main_cpu + seeded / 2:.1f} s")
    for policy in ("fair", "background last", "held in seeded games", "held in pools",
                   "held in pools, one at a time"):
        waits: dict = {}
        est = simulate(segments, background, marks, policy, waits=waits)
        print(f"model of an idle 2-core machine, {policy}: {est:.1f} s"
              + "".join(f"; {w:.1f} s of it {label}" for label, w in waits.items()))


BACKGROUND = ("rulings study", "turn-planned searches")


def simulate(segments: list, background: dict, marks: list, policy: str, cores: int = 2, dt: float = 0.002,
             waits: dict | None = None) -> float:
    """The wall clock of this run's work on an idle machine of `cores` cores, from the CPU each process spent
    in each of the main process's phases (the same on a loaded machine): in each phase the main process does
    its own work while the pools it opened do theirs (the seeded games' two workers splitting theirs, a
    look-ahead worker alongside the main process), and the phase ends when all of it is done; a background
    process works from the phase it was forked in until done, and a phase "waiting for" it waits for that.
    `policy`: "fair" shares the cores equally among whatever is runnable (every process at the same
    priority); "background last" gives the background processes only what the others leave idle.  A model:
    it leaves out what a pool's worker waits for within a phase (a look-ahead game asked for only once the
    main process has played its own), so it is a floor for both policies alike.  `waits`: filled with the
    time spent in each phase waiting for a background process."""
    starts = {}
    for role, (_, first) in background.items():
        starts[role] = max([k for k, (t, _, _) in enumerate(marks) if t <= first] or [0])
    left_bg = {role: cpu for role, (cpu, _) in background.items()}
    t = 0.0
    for k, (label, own, others) in enumerate(segments):
        began = t
        waiting = next((r for r in BACKGROUND if label == f"waiting for the {r}"), None)
        fg = [] if waiting else [max(0.0, own)]
        if not waiting:
            if others.get("seeded games", 0.0) > 0:
                fg += [others["seeded games"] / 2] * 2
            if others.get("look-ahead pools (climbs)", 0.0) > 0:
                fg.append(others["look-ahead pools (climbs)"])
        while True:
            busy = [i for i, w in enumerate(fg) if w > 1e-9]
            bg = [r for r in left_bg if left_bg[r] > 1e-9 and starts[r] <= k]
            seeded, ahead = others.get("seeded games", 0.0) > 0, others.get("look-ahead pools (climbs)", 0.0) > 0
            if not waiting and (policy == "held in seeded games" and seeded
                                or policy.startswith("held in pools") and (seeded or ahead)):
                bg = []
            if not waiting and policy == "held in pools, one at a time":
                bg = sorted(bg, key=lambda r: r != "turn-planned searches")[:1]
            if waiting and left_bg.get(waiting, 0.0) <= 1e-9 or not waiting and not busy:
                break
            if policy != "background last":
                share = min(1.0, cores / max(1, len(busy) + len(bg)))
                fg_share = bg_share = share
            else:
                fg_share = min(1.0, cores / len(busy)) if busy else 0.0
                spare = cores - fg_share * len(busy)
                bg_share = min(1.0, spare / len(bg)) if bg else 0.0
            for i in busy:
                fg[i] -= fg_share * dt
            for r in bg:
                left_bg[r] -= bg_share * dt
            t += dt
        if waiting and waits is not None:
            waits[label] = waits.get(label, 0.0) + t - began
    return t


if __name__ == "__main__":
    main()
