"""Which open rulings matter: every open ruling and valued assumption played
both ways on common random numbers.

For a spec and a player count, games are played on seeds seed, seed+1, ...
at the spec's resolutions.  A game *reads* a ruling when play consults it (a
tie-break ruling only where it orders players tied for first, see
runtime.rank_groups).  Every game that read a subject is played again under
each alternative resolution on the same seed: the per-purpose random streams
(interpreter/streams.py) give the same shuffles, rolls and picks, and the
bots the same choices wherever they are still legal, so the two games differ
only by what the ruling causes.  A game that did not read the subject would
play exactly the same under any resolution, so it counts as an unchanged
pair without being played again (with random bots: a bot that looks ahead
reads rules on copies of the game, so with one every game is played again).

A subject no rule reads is proved moot (the static analysis of the spec shows
nothing can consult it).  A subject read by a declaration (a card list, a
token supply, a zone's capacity) is read in every game.

Work is counted in engine steps, never seconds: `budget` caps the steps all
games are planned to take, base games and replays together (a replay is
planned at its base game's length); base games stop where the next one's
planned work would not fit, so every subject is measured on the same games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from soan import stats
from soan.dsl import ir
from soan.dsl.analysis import parameter_uses
from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import GameRecord, Workers, play_game, record_game, replay
from soan.interpreter.runtime import Tables

MAX_ALTERNATIVES = 4  # more than this: a numeric domain's neighbours of the current value and its ends
SECTIONS = ("setup", "rounds", "scoring", "winner")


def subjects(spec: ir.Spec, tables: Tables) -> list[dict]:
    """The open rulings and valued assumptions, with the alternatives to try
    and how the spec's rules can read each one."""
    uses = parameter_uses(spec, tables.n)
    anywhere = parameter_uses(spec)
    out = []
    rows = [("open ruling", r.name, r.question, r.cite, r.domain) for r in spec.rulings]
    rows += [("assumption", a.name, a.text, a.cite, a.domain) for a in spec.assumptions if a.domain is not None]
    for kind, name, text, cite, domain in rows:
        current = tables.params[name]
        values = [v for v in tables.domain_values(domain) if v != current]
        values = _pick_alternatives(values, current)
        read_by = uses.get(name, {"read_by": []})["read_by"]
        short_of = {t.name for t in spec.tokens if t.short_ruling == name}
        # read when the game starts: a card list, a supply's size, a capacity or a default
        static = [u for u in read_by if not u.startswith(("def ", "procedure ")) and u not in SECTIONS
                  and not (u.startswith("token ") and u[6:] in short_of)]
        out.append({"name": name, "kind": kind, "text": text, "cite": cite, "current": current,
                    "alternatives": values, "read_by": read_by, "read_at_start": bool(static),
                    "moot": not read_by, "moot_reason": moot_reason(anywhere.get(name, {"read_by": []})["read_by"],
                                                                    read_by, tables.n)})
    return out


def moot_reason(read_anywhere: list, read_here: list, players: int) -> str | None:
    """Why a subject is moot, or None when a rule reads it at this count."""
    if read_here:
        return None
    if read_anywhere:
        return (f"no rule reads it at {players} players: every read ({', '.join(read_anywhere)}) lies under a "
                f"branch for a seat that is not at the table")
    return "no rule reads it"


def _pick_alternatives(values: list, current) -> list:
    """Every other value of a small domain; of a numeric one with more than
    four others, the neighbours of the current value and the two ends (only
    the ends past ten values: a neighbour of 150 rounds tells little)."""
    if len(values) <= MAX_ALTERNATIVES:
        return values
    if all(isinstance(v, int) for v in values) and isinstance(current, int):
        below = [v for v in values if v < current]
        above = [v for v in values if v > current]
        keep = below[:1] + above[-1:]
        if len(values) < 10:
            keep += below[-1:] + above[:1]
        return sorted(dict.fromkeys(keep))
    return values[:MAX_ALTERNATIVES]


def _winners(res: dict) -> tuple:
    return tuple(sorted(res["winners"])), bool(res["draw"])


def _decisions(log: dict) -> int:
    return sum(1 for s in log["steps"] if "move" in s)


def analyse(spec: ir.Spec, players: int, games: int = 200, seed: int = 0, bots: list[str] | None = None,
            params: dict | None = None, budget: int = 300_000, logs_dir: Path | None = None,
            progress: Callable[[str, int, int], None] | None = None,
            on_game: Callable[[GameRecord], None] | None = None, jobs: int = 1) -> dict:
    """The whole study: subjects, base games, paired alternatives, ranked.  `on_game` sees every game
    kept at the spec's resolutions (verify checks its proofs against them).  With `jobs` > 1 games are
    played in that many processes and taken in seed order: the same study for any number of jobs."""
    bots = bots or ["random"] * players
    params = dict(params or {})
    base_t = Tables(spec, players, params)
    subs = subjects(spec, base_t)
    live = [s for s in subs if not s["moot"]]
    # a bot that looks ahead plays rules on copies of the game: a ruling read there (and so able to change
    # its choice) is not consulted by the game itself, so with such bots every game is played again
    looks_ahead = any(b != "random" for b in bots)
    # phase 1: base games while the work they plan fits the budget: a game costs its own steps and, for
    # each subject it read, as many again per alternative (a replay takes about as long); every subject is
    # then measured on the same games
    base: list[GameRecord] = []
    reads: list[set[str]] = []
    planned = 0
    g = 0
    spent = False
    with Workers(lambda s: play_game(base_t, s, bots), jobs) as workers:
        while g < games and not spent:
            # in workers, a batch of games at a time: the budget may stop the base games at any one
            batch = 1 if workers.pool is None else workers.jobs * 8
            for rec in workers.imap(range(seed + g, seed + min(games, g + batch))):
                rec.state.t = base_t  # a record from another process comes back without the tables
                read = _read_set(rec, live)
                replay_for = {s["name"] for s in live} if looks_ahead else read
                cost = rec.state.steps * (1 + sum(len(s["alternatives"]) for s in live if s["name"] in replay_for))
                if base and planned + cost > budget:
                    spent = True
                    break
                base.append(rec)
                reads.append(read)
                if on_game:
                    on_game(rec)
                planned += cost
                g += 1
                if progress:
                    progress("games at the spec's resolutions", g, games)
    alt_tables: dict = {}
    for s in live:
        for v in s["alternatives"]:
            try:
                alt_tables[(s["name"], _key(v))] = Tables(spec, players, {**params, s["name"]: v})
            except (SpecRuntimeError, ValueError) as e:  # the resolution makes a declaration impossible
                alt_tables[(s["name"], _key(v))] = e
    replays = [{s["name"] for s in live} if looks_ahead else r for r in reads]
    total = sum(len(s["alternatives"]) for s in live for r in replays if s["name"] in r)
    steps_used = sum(rec.state.steps for rec in base)
    results: list[dict] = []
    # opened once alt_tables is complete: the workers inherit it
    with Workers(lambda item: _replay(alt_tables[item[0]], item[1], bots), jobs) as workers:
        steps_used += _paired(subs, base, reads, replays, alt_tables, base_t, spec, seed, logs_dir, progress, total,
                              results, workers)
    ranked = sorted((r for r in results if not r["moot"]), key=_rank_key)
    return {"soan_rulings": 1, "spec": {"name": spec.name, "draft": spec.draft, "path": spec.path},
            "players": players, "seed": seed, "bots": bots, "params": params, "games": len(base),
            "games_asked": games, "budget_steps": budget,
            "steps": steps_used,
            "ranked": ranked, "moot": [r for r in results if r["moot"]]}


def _replay(tables, seed: int, bots: list[str]):
    """A base game's seed played under another resolution: its record, or the rule error's message."""
    try:
        return play_game(tables, seed, bots)
    except SpecRuntimeError as e:
        return _message(e)


def _paired(subs, base, reads, replays, alt_tables, base_t, spec, seed, logs_dir, progress, total, results,
            workers) -> int:
    """Each subject's alternatives played on the games that read it (in `workers`), compared pair by pair,
    into `results`; the engine steps those games took."""
    done = steps_used = 0
    for s in subs:
        if s["moot"]:
            results.append({**_public(s), "games": len(base), "read": 0, "read_share": 0.0,
                            "read_interval": [0.0, 0.0], "alternatives": [], "matters": 0,
                            "results_changed": 0, "witness_seed": None, "witness": None})
            continue
        read_games = [i for i, r in enumerate(reads) if s["name"] in r]
        replay_games = [i for i, r in enumerate(replays) if s["name"] in r]
        alts = []
        matters: set[int] = set()
        results_changed: dict[int, object] = {}  # game -> an alternative that changes its scores or winner
        course_changed: dict[int, object] = {}
        for v in s["alternatives"]:
            key = (s["name"], _key(v))
            t = alt_tables[key]
            pairs = []
            failure = None if isinstance(t, Tables) else _message(t)
            played = workers.imap([(key, base[i].log["seed"]) for i in replay_games] if failure is None else [])
            for i in replay_games:
                if failure is None:
                    b = next(played)
                    if isinstance(b, str):
                        failure = f"seed {base[i].log['seed']}: {b}"
                    else:
                        b.state.t = t  # a record from another process comes back without the tables
                        steps_used += b.state.steps
                        pairs.append((i, b))
                done += 1
                if progress:
                    progress("games under other resolutions", done, total)
            if failure is not None:
                alts.append({"value": shown(v), "games": len(base), "played": len(pairs), "failure": failure,
                             "flips": 0, "flip_share": 0.0, "flip_interval": [0.0, 1.0], "changed_games": 0,
                             "score_shift": {}, "item_shift": {}, "rounds_shift": {"mean": 0.0, "interval": [0, 0]},
                             "decisions_shift": {"mean": 0.0, "interval": [0, 0]},
                             "verdict": "the rules cannot be carried out"})
                continue
            alt = _compare(base, pairs, base_t, s, v)
            changed = alt.pop("_changed")
            matters |= changed
            for i in sorted(alt.pop("_result_changed")):
                results_changed.setdefault(i, v)
            for i in sorted(changed):
                course_changed.setdefault(i, v)
            first = alt.pop("_first_flip")
            if first is not None:
                alt["first_flip"] = _save_pair(spec, base_t, t, base[first[0]], first[1], s["name"], v, logs_dir)
            alts.append(alt)
        k, n = len(read_games), len(base)
        lo, hi = stats.wilson(k, n)
        results.append({**_public(s), "games": n, "read": k, "read_share": k / n if n else 0.0,
                        "read_interval": [lo, hi], "replayed": len(replay_games), "alternatives": alts,
                        "matters": len(matters), "results_changed": len(results_changed),
                        "witness_seed": (min(matters, key=lambda i: (base[i].state.steps, i)) + seed)
                        if matters else None,
                        "witness": _witness(base, read_games, results_changed, course_changed)})
    return steps_used


def _witness(base: list[GameRecord], read_games: list[int], results_changed: dict, course_changed: dict) -> dict | None:
    """The shortest game that shows the subject matters: one whose scores or winner another resolution
    changes, else one whose course it changes, else one that merely read it."""
    for shows, games in (("result", results_changed), ("course", course_changed), ("read", read_games)):
        if games:
            i = min(games, key=lambda i: (base[i].state.steps, i))
            value = games[i] if isinstance(games, dict) else None
            return {"seed": base[i].log["seed"], "shows": shows, "value": None if value is None else shown(value)}
    return None


def _message(e: Exception) -> str:
    return getattr(e, "message", None) or str(e).split("|")[0]


def _key(v):
    return repr(v)


def _public(s: dict) -> dict:
    return {"name": s["name"], "kind": s["kind"], "text": s["text"], "cite": s["cite"],
            "current": shown(s["current"]), "read_by": s["read_by"], "read_at_start": s["read_at_start"],
            "moot": s["moot"], "moot_reason": s["moot_reason"]}


def shown(v) -> str:
    """A resolution's value as a designer writes it (an enum's name, true/false)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(getattr(v, "name", v))


def _read_set(rec: GameRecord, live: list[dict]) -> set[str]:
    read = set(rec.state.consulted)
    return {s["name"] for s in live if s["read_at_start"] or s["name"] in read}


def _rank_key(r: dict):
    best_flip = max((a["flip_share"] for a in r["alternatives"] if "failure" not in a), default=0.0)
    best_shift = max((abs(x["mean"]) for a in r["alternatives"] for x in a["score_shift"].values()), default=0.0)
    return (-best_flip, -best_shift, -r["read_share"], r["name"])


def _compare(base: list[GameRecord], pairs: list, base_t: Tables, s: dict, value) -> dict:
    """Paired differences over all base games (games that did not read the subject are unchanged pairs)."""
    n_games = len(base)
    n = base_t.n
    seats = [f"P{i + 1}" for i in range(n)]
    items = list(base_t.scores)
    by_game = dict(pairs)
    score_d = {p: [] for p in seats}
    item_d = {it: [] for it in items}
    rounds_d, dec_d = [], []
    flips, changed, result_changed, first_flip = 0, set(), set(), None
    for i, a in enumerate(base):
        b = by_game.get(i)
        if b is None:
            for p in seats:
                score_d[p].append(0.0)
            for it in items:
                item_d[it].append(0.0)
            rounds_d.append(0.0)
            dec_d.append(0.0)
            continue
        ra, rb = a.result, b.result
        for p in seats:
            score_d[p].append(float(rb["scores"][p] - ra["scores"][p]))
        for it in items:
            item_d[it].append(sum(rb["breakdown"][p].get(it, 0) - ra["breakdown"][p][it] for p in seats) / n)
        rounds_d.append(float(rb["rounds"] - ra["rounds"]))
        dec_d.append(float(_decisions(b.log) - _decisions(a.log)))
        if a.log["steps"] != b.log["steps"] or ra != rb:
            changed.add(i)
        if ra["scores"] != rb["scores"] or _winners(ra) != _winners(rb):
            result_changed.add(i)
        if _winners(ra) != _winners(rb):
            flips += 1
            if first_flip is None or (a.state.steps, i) < (base[first_flip[0]].state.steps, first_flip[0]):
                first_flip = (i, b)
    lo, hi = stats.wilson(flips, n_games)

    def summary(ds: list[float]) -> dict:
        t = stats.paired(ds)
        a, b = stats.interval(t, stats.ALPHA)
        return {"mean": round(t["mean"], 3), "interval": [round(a, 3), round(b, 3)],
                "evidence": bool(a > 0 or b < 0)}

    out = {"value": shown(value), "games": n_games, "played": len(pairs), "flips": flips,
           "flip_share": flips / n_games if n_games else 0.0, "flip_interval": [lo, hi],
           "changed_games": len(changed),
           "score_shift": {p: summary(score_d[p]) for p in seats},
           "item_shift": {it: summary(item_d[it]) for it in items},
           "rounds_shift": summary(rounds_d), "decisions_shift": summary(dec_d),
           "_changed": changed, "_result_changed": result_changed, "_first_flip": first_flip}
    out["verdict"] = _verdict(out)
    return out


def _verdict(a: dict) -> str:
    if a["flips"]:
        return "flips the winner"
    if any(x["evidence"] for x in a["score_shift"].values()) or any(x["evidence"] for x in a["item_shift"].values()):
        return "shifts scores"
    if a["changed_games"]:
        return "no evidence"  # games change course, but no shift the interval can tell from zero
    return "no game changed" if a["played"] else "not read"  # of these games: an observation, not a proof


def _save_pair(spec: ir.Spec, base_t: Tables, alt_t: Tables, a: GameRecord, b: GameRecord, name: str, value,
               logs_dir: Path | None) -> dict:
    """The first (shortest) game whose winner flips: both logs, replayable, and where their accounts part."""
    from soan.diff import first_divergence

    seed = a.log["seed"]
    na = GameRecord(a.log, replay(base_t, a.log, narrate=True))
    nb = GameRecord(b.log, replay(alt_t, b.log, narrate=True))
    d = first_divergence(na, nb) or {}
    out = {"seed": seed, "steps": len(a.log["steps"]), "winners": [a.result["winners"], b.result["winners"]],
           "scores": [a.result["scores"], b.result["scores"]],
           "part_at": d.get("event"), "before": d.get("before", []), "current_lines": d.get("old", []),
           "alternative_lines": d.get("new", []), "logs": None}
    if logs_dir is not None:
        logs_dir.mkdir(parents=True, exist_ok=True)
        stem = f"{Path(spec.path).stem}-p{base_t.n}-s{seed}-{name}"
        pa = logs_dir / f"{stem}-current.json"
        pb = logs_dir / f"{stem}-{shown(value)}.json"
        pa.write_text(a.to_json(), encoding="utf-8")
        pb.write_text(b.to_json(), encoding="utf-8")
        out["logs"] = [str(pa), str(pb)]
    return out


def replay_under(tables: Tables, log: dict) -> GameRecord:
    """The game of `log` played again under other rules (another resolution of
    a ruling): each player's k-th decision takes the move the log took at that
    player's k-th decision while it is still legal, else the random bot's
    keyed choice; each chance event takes the log's outcome at the same event
    while it is still possible, else the seed's own stream.  For logs whose
    moves came from a search rather than a bot, this is the paired game."""
    from soan.interpreter.streams import Streams, keyed_choice

    seed = log["seed"]
    streams = Streams(seed)
    moves: dict[int, list[str]] = {}
    chances: list[dict] = []
    for step in log["steps"]:
        if "move" in step:
            moves.setdefault(step["player"] - 1, []).append(step["move"])
        else:
            chances.append(step)
    taken = {p: 0 for p in moves}
    drawn = [0]

    def choose(st, p, legal) -> int:
        labels = [m.label for m in legal]
        k = taken.get(p, 0)
        taken[p] = k + 1
        if k < len(moves.get(p, [])) and moves[p][k] in labels:
            return labels.index(moves[p][k])
        stream, _ = streams.decision(st, p)
        return keyed_choice(stream, labels) if len(labels) > 1 else 0

    def chance(st, _rng):
        k = drawn[0]
        drawn[0] = k + 1
        c = st.pending
        if k < len(chances):
            out = chances[k]["outcome"]
            if c.kind == "shuffle":
                if isinstance(out, list) and len(out) == c.outcomes:
                    return list(out)
            elif isinstance(out, int) and out < len(c.outcomes) and c.describe(out) == chances[k]["chance"]:
                return out
        return streams.chance(st)

    return record_game(tables, seed, choose, list(log["bots"]), chance=chance)
