"""Playing games: one seeded game with bots and its log, replaying a log, and
many games for statistics.

Determinism: every chance outcome and every bot decision is drawn from its
own per-purpose stream derived from the game's seed (streams.py: common random
numbers), so the same spec, seed and bots give the same log byte for byte.  A
log records every decision and chance outcome, so `replay` never needs the
streams at all: logs of format 1 (one chance generator per game, one per
seat) replay as they always did.
"""

from __future__ import annotations

import gc
import hashlib
import json
import random
from operator import attrgetter
from pathlib import Path
from typing import Callable, Iterable

from soan.dsl import ir
from soan.dsl.errors import SpecRuntimeError
from soan.dsl.limits import MAX_DECISIONS

from .bots import FROM_STREAM, BotInput, RandomBot, bot_problem, determinize, make_bot
from .runtime import Tables
from .state import CHANCE, Chance, Decision, State
from .streams import Streams, keyed_choice

# 3: per-purpose random streams and the rulings in force; 2: the streams (issue 20's first logs, some with
# in_force); 1: one chance generator, one per seat.  The schema: interpreter/logschema.py, docs/log-format.md
LOG_FORMAT = 3
LOG_FORMATS_READ = (1, 2, 3)
MAX_STEPS = MAX_DECISIONS


def spec_digest(spec: ir.Spec) -> str:
    """A fingerprint of every file the spec was built from (its base too)."""
    h = hashlib.sha256(spec.source_text.encode("utf-8"))
    for path in sorted(spec.sources):
        if path != spec.path:
            h.update(b"\0" + spec.sources[path].encode("utf-8"))
    return h.hexdigest()


def _tables_digest(tables: Tables) -> str:
    """The spec's digest, computed once per tables rather than once per game."""
    d = getattr(tables, "_spec_digest", None)
    if d is None:
        d = tables._spec_digest = spec_digest(tables.spec)
    return d


class GameRecord:
    def __init__(self, log: dict, state: State):
        self.log = log
        self.state = state

    @property
    def result(self) -> dict:
        return self.log["result"]

    def to_json(self) -> str:
        return json.dumps(self.log, ensure_ascii=False, sort_keys=True, indent=1) + "\n"

    def to_json_anywhere(self) -> str:
        """The log with the spec's path made absolute: a witness file written by verify or prove then
        replays from any directory, not only from the one the command ran in."""
        log = dict(self.log, spec=dict(self.log["spec"]))
        if log["spec"].get("path"):
            log["spec"]["path"] = str(Path(log["spec"]["path"]).resolve())
        return json.dumps(log, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def bot_names(spec_text: str | None, n: int) -> list[str]:
    """'random,greedy' -> one bot name per seat; the last one fills the rest."""
    names = [b.strip() for b in (spec_text or "random").split(",") if b.strip()] or ["random"]
    if len(names) < n:
        names += [names[-1]] * (n - len(names))
    return names[:n]


def play_game(tables: Tables, seed: int, bots: list[str], narrate: bool = False,
              on_step: Callable[[State], None] | None = None) -> GameRecord:
    """Play one game with bots.  `on_step` (for tests) is called on every state reached."""
    streams = Streams(seed)
    return record_game(tables, seed, bot_chooser(seed, bots, streams, tables), list(bots), narrate, on_step,
                       streams=streams)


def bot_chooser(seed: int, bots: list[str], streams: Streams, tables: Tables | None = None
                ) -> Callable[[State, int, list], int]:
    """The `choose` of record_game for seats played by bots (`bots[seat]` a bot's name: built-in, mcts or a
    strategy of `tables`' spec; a seat whose name is no bot's, a person's, is never asked): each decision
    drawn from its own stream of `streams`."""
    spec = tables.spec if tables is not None else None
    # A random seat here always has its decision's stream, so it never uses a generator of its own: its
    # choice is keyed_choice, made without a bot, a BotInput or a seeded generator (RandomBot.choose given
    # a stream, the same move), since random playouts make this choice at every decision.
    players = [_KEYED if name == RandomBot.name else
               make_bot(name, seat, random.Random(f"soan/{seed}/bot/{seat}"), tables)
               if bot_problem(name, spec) is None else None for seat, name in enumerate(bots)]

    def choose(st: State, p: int, moves) -> int:
        if len(moves) < 2:
            return 0  # no bot is asked about a forced move
        stream = streams.decision_name(st, p)
        bot = players[p]
        if bot is _KEYED:
            return keyed_choice(stream, list(map(_LABEL, moves)))  # (in C: no comprehension's call per decision)
        info = BotInput(p, (lambda s=st, q=p: s.view(q)), [m.label for m in moves],
                        (lambda rng, s=st, q=p: determinize(s, q, rng)), stream, FROM_STREAM)
        return bot.choose(info)

    return choose


_KEYED = object()  # bot_chooser's random seat
_LABEL = attrgetter("label")


def record_game(tables: Tables, seed: int, choose: Callable[[State, int, list], int], bots: list[str],
                narrate: bool = False, on_step: Callable[[State], None] | None = None,
                chance: Callable[[State, random.Random], object] | None = None,
                streams: Streams | None = None, steps: list[dict] | None = None) -> GameRecord:
    """Play one game to its end, chance drawn from `seed` and each decision
    taken by `choose(state, player, moves) -> index`, and log every step.
    `chance(state, rng) -> outcome` (for search) picks chance outcomes instead;
    any outcome it gives is one the game could have drawn; without it chance
    comes from the per-purpose streams of `seed`.  `steps`, if given, is the list the steps are logged in,
    so a caller whose `choose` stops the game early (a person who quits) keeps the game so far."""
    # seeded only where `chance` draws from it (seeding one from its name costs about as much as a random
    # playout's shuffles): the same generator whenever it is made
    chance_rng = random.Random(f"soan/{seed}/chance") if chance is not None else None
    streams = streams or Streams(seed)
    st = State(tables, narrate=narrate).start()
    steps = [] if steps is None else steps
    if on_step:
        on_step(st)
    while st.result is None:
        pending = st.pending  # State.current_player, inline: the loop runs once per step of every game
        if isinstance(pending, Decision):
            p = pending.player
        elif isinstance(pending, Chance):
            p = CHANCE
        else:
            break
        if len(steps) >= MAX_STEPS:
            rounds = tables.spec.rounds
            raise SpecRuntimeError(f"the game did not end within {MAX_STEPS:,} decisions and chance events",
                                   rounds.span if rounds is not None else None,
                                   "does the game have a way to end? every game stops after this many steps")
        if p == CHANCE:
            outcome = streams.chance(st) if chance is None else chance(st, chance_rng)
            text = st.pending.describe(outcome)
            st.apply_chance(outcome)
            steps.append({"chance": text, "outcome": outcome})
        else:
            moves = list(pending.moves)  # State.legal_moves, inline
            i = choose(st, p, moves)
            label = moves[i].label
            st.apply(i)
            steps.append({"player": p + 1, "move": label, "index": i})
        if on_step:
            on_step(st)
    return GameRecord(game_log(tables, seed, bots, steps, st), st)


def game_log(tables: Tables, seed: int, bots: list[str], steps: list[dict], st: State) -> dict:
    """The log of a game played to `st` in `steps`; its result is None while the game is unfinished."""
    return {
        "soan_log": LOG_FORMAT,
        "spec": {"name": tables.spec.name, "draft": tables.spec.draft, "path": tables.spec.path,
                 "sha256": _tables_digest(tables)},
        "players": tables.n,
        "seed": seed,
        "bots": bots,
        "params": dict(sorted(tables.overrides.items())),
        "steps": steps,
        "result": st.result,
        "consulted_rulings": sorted(r for r in st.consulted if tables.param_kind.get(r) == "ruling"),
        "in_force": _tables_in_force(tables),
    }


def _tables_in_force(tables: Tables) -> dict:
    """in_force(tables), worked out once per tables (the rulings in force never change during play), a copy
    per game's log."""
    d = getattr(tables, "_in_force", None)
    if d is None:
        d = tables._in_force = in_force(tables)
    return dict(d)


def in_force(tables: Tables) -> dict:
    """Every open ruling, assumption and option with the value this game ran it at."""
    valueless = {a.name for a in tables.spec.assumptions if a.value is None}  # these only document the spec
    return {k: v for k, v in sorted(tables.params.items()) if k not in valueless}


class ReplayMismatch(Exception):
    pass


def replay(tables: Tables, log: dict, narrate: bool = False,
           on_step: Callable[[State], None] | None = None) -> State:
    """Re-run a log's decisions and chance outcomes; raise ReplayMismatch where
    the game takes another course, or ends with another result.  `on_step` is
    called on every state reached, as in play_game."""
    st = State(tables, narrate=narrate).start()
    if on_step:
        on_step(st)
    for k, step in enumerate(log["steps"], start=1):
        p = st.current_player()
        if "chance" in step:
            if p != CHANCE:
                raise ReplayMismatch(f"step {k}: the log has a chance event ({step['chance']}), the game a decision")
            outcome = step["outcome"]
            possible = st.pending.outcomes
            if isinstance(possible, int):  # a shuffle: the outcome orders the zone's cards
                if not isinstance(outcome, list) or sorted(outcome) != list(range(possible)):
                    raise ReplayMismatch(f"step {k}: the log's shuffle ({step['chance']}) is not an ordering of the "
                                         f"{possible} cards the game shuffles here")
                outcome = list(outcome)
            elif not isinstance(outcome, int) or isinstance(outcome, bool) or not 0 <= outcome < len(possible):
                raise ReplayMismatch(f"step {k}: the log's outcome {outcome!r} ({step['chance']}) is not one of the "
                                     f"{len(possible)} this chance event has")
            st.apply_chance(outcome)
        else:
            if p != step["player"] - 1:
                raise ReplayMismatch(f"step {k}: the log has P{step['player']} deciding, the game "
                                     + ("a chance event" if p == CHANCE else "has ended" if p < 0 else f"P{p + 1}"))
            labels = [m.label for m in st.legal_moves()]
            i = step["index"]
            if not isinstance(i, int) or not 0 <= i < len(labels) or labels[i] != step["move"]:
                raise ReplayMismatch(f"step {k}: P{step['player']}'s move '{step['move']}' is not legal move {i} here")
            st.apply(i)
        if on_step:
            on_step(st)
    if not st.is_terminal():
        raise ReplayMismatch("the log ends before the game does")
    if st.result != log["result"]:
        raise ReplayMismatch(f"the game ends with {st.result}, the log with {log['result']}")
    return st


MAX_LOG_BYTES = 64_000_000  # far above the largest game MAX_DECISIONS allows


def load_log(path: str | Path) -> dict:
    """The parsed JSON of a log file (its schema is checked by logschema.validate_log).  Raises OSError or
    ValueError, with a plain reason."""
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(21, "it is a folder, not a log file", str(p))
    with open(p, "rb") as f:
        data = f.read(MAX_LOG_BYTES + 1)
    if len(data) > MAX_LOG_BYTES:
        raise ValueError(f"it is larger than {MAX_LOG_BYTES:,} bytes, more than any game's log")
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("it is not UTF-8 text") from None
    except RecursionError:
        raise ValueError("its JSON nests too deeply to be a game log") from None


def simulate(tables: Tables, games: int, seed: int, bots: list[str],
             progress: Callable[[int], None] | None = None, jobs: int = 1) -> dict:
    """Play `games` games on seeds seed, seed+1, ... and summarise them.

    `jobs` > 1 plays them in that many processes, split by seed and summed up
    in seed order, so the summary is the same for any number of jobs."""
    summaries = game_summaries(tables, games, seed, bots, progress, jobs)
    n = tables.n
    scores = [[] for _ in range(n)]
    wins = [0.0] * n
    draws = 0
    no_winner = 0
    lengths, decisions = [], []
    items = {s: [0] * n for s in tables.scores}
    eliminated = [0] * n
    consulted: dict[str, int] = {}
    marks: dict[str, int] = {}
    for res, n_decisions, game_consulted, mark_kinds in summaries:
        for i in range(n):
            key = f"P{i + 1}"
            scores[i].append(res["scores"][key])
            for s in tables.scores:
                items[s][i] += res["breakdown"][key][s]
            if key in res["eliminated"]:
                eliminated[i] += 1
        if res["draw"]:
            draws += 1
        if not res["winners"]:
            no_winner += 1
        for w in res["winners"]:
            if not res["draw"]:
                wins[int(w[1:]) - 1] += 1 / len(res["winners"])
        lengths.append(res["rounds"])
        decisions.append(n_decisions)
        for r in game_consulted:
            consulted[r] = consulted.get(r, 0) + 1
        for kind in mark_kinds:  # once per game, however many sites
            marks[kind] = marks.get(kind, 0) + 1
    all_scores = [s for col in scores for s in col]
    return {
        "spec": tables.spec.name, "draft": tables.spec.draft, "players": n, "games": games, "seed": seed,
        "bots": bots,
        "score": {"mean": _mean(all_scores), "min": min(all_scores, default=0), "max": max(all_scores, default=0)},
        "seats": [{"seat": f"P{i + 1}", "bot": bots[i], "mean": _mean(scores[i]), "min": min(scores[i], default=0),
                   "max": max(scores[i], default=0), "win_rate": wins[i] / games if games else 0.0,
                   "eliminated_rate": eliminated[i] / games if games else 0.0} for i in range(n)],
        "draw_rate": draws / games if games else 0.0,
        "no_winner_rate": no_winner / games if games else 0.0,
        "length": {"rounds_mean": _mean(lengths), "decisions_mean": _mean(decisions),
                   "decisions_min": min(decisions, default=0), "decisions_max": max(decisions, default=0)},
        "items": {s: _round(sum(items[s]) / (games * n)) if games else 0.0 for s in tables.scores},
        "rulings_consulted": {k: v / games for k, v in sorted(consulted.items())},
        "games_with": {k: v / games for k, v in sorted(marks.items())},
    }


def _summary(rec: GameRecord) -> tuple:
    """What simulate keeps of one game: small enough to send between processes."""
    return (rec.result, sum(1 for s in rec.log["steps"] if "move" in s), tuple(rec.log["consulted_rulings"]),
            tuple(sorted({kind for kind, _site in rec.state.marks})))


def game_summaries(tables: Tables, games: int, seed: int, bots: list[str],
                   progress: Callable[[int], None] | None = None, jobs: int = 1) -> list[tuple]:
    """The summary of every game, in seed order, played in `jobs` processes.  An
    error raises the one the lowest failing seed raises, as one process would."""
    return parallel_map(lambda s: _summary(play_game(tables, s, bots)), range(seed, seed + games), jobs, progress)


def parallel_map(fn: Callable, items: Iterable, jobs: int = 1, progress: Callable[[int], None] | None = None) -> list:
    """[fn(x) for x in items], worked out in `jobs` forked processes and returned in the order of `items`.

    Each item (a seed, or a small tuple naming a game) is sent to a child process and its result sent back, so
    both must pickle; `fn` itself, and the tables it closes over, the workers inherit by fork.  Work is
    handed out in chunks of consecutive items, several per process so that the processes finish
    together, and taken back chunk by chunk in order: the output never depends on `jobs`.  A rule error
    raises the error of the first failing item with its span, as one process would; `progress(k)` is
    called with the number of items done so far, in order."""
    items = list(items)
    with Workers(fn, min(jobs, len(items))) as w:
        return w.map(items, progress)


class Workers:
    """A pool of forked processes running one function over work items (see parallel_map).  Kept open
    across several calls of map(), for work given out a batch at a time (a search that stops when its
    wall-clock limit is reached)."""

    def __init__(self, fn: Callable, jobs: int = 1):
        self.fn = fn
        self.jobs = max(1, jobs)
        self.pool = None

    def __enter__(self) -> "Workers":
        global _WORK
        if self.jobs > 1 and _can_fork():
            import multiprocessing

            if _WORK is not None:  # already in a child process (or another pool is open): work in this process
                self.jobs = 1
                return self
            _WORK = self.fn
            # everything made so far (the tables, the generated code) the children only read: out of the
            # collector's reach, so their collections neither scan it nor copy its pages
            gc.freeze()
            try:
                self.pool = multiprocessing.get_context("fork").Pool(self.jobs)
            except BaseException:
                _WORK = None
                gc.unfreeze()
                raise
        return self

    def __exit__(self, *exc) -> None:
        global _WORK
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None
            _WORK = None
            gc.unfreeze()

    def map(self, items: Iterable, progress: Callable[[int], None] | None = None) -> list:
        return list(self.imap(items, progress))

    def imap(self, items: Iterable, progress: Callable[[int], None] | None = None):
        """The results one by one, in order (a caller may stop taking them at any point)."""
        items = list(items)
        done = 0
        if self.pool is None or len(items) < 2:
            for x in items:
                yield self.fn(x)
                done += 1
                if progress:
                    progress(done)
            return
        size = max(1, min(50, -(-len(items) // (self.jobs * 4))))
        chunks = [items[lo:lo + size] for lo in range(0, len(items), size)]
        for part, error in self.pool.imap(_run_chunk, chunks):  # in chunk order, whatever order they finish in
            for r in part:
                yield r
                done += 1
            if progress:
                progress(done)
            if error is not None:  # a rule failed at the item after these: its error, rebuilt with its span
                raise SpecRuntimeError(*error)


_WORK = None  # the function the workers run, inherited by fork


def _run_chunk(chunk: list) -> tuple[list, tuple | None]:
    """The results of a chunk's items up to the first that fails, and that one's rule error (or None): a
    caller that stops taking results before it never sees the error, as in one process."""
    fn = _WORK
    out = []
    try:
        for x in chunk:
            out.append(fn(x))
    except SpecRuntimeError as e:  # pickling the exception would lose its span
        return out, (e.message, e.span, e.hint)
    return out, None


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def default_jobs() -> int:
    """All the cores this process may use."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _mean(xs: Iterable[float]) -> float:
    xs = list(xs)
    return _round(sum(xs) / len(xs)) if xs else 0.0


def _round(x: float) -> float:
    return round(x, 3)
