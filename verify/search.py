"""Searching real games for witnesses: seeded games with bots, within a time
budget, keeping for every kind of event the shortest game that shows it.
A witness is a real game log; it is replayed before it is reported."""

from __future__ import annotations

import functools
import random
import time
from collections import Counter
from typing import Callable

import attrs

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import GameRecord, Workers, play_game, record_game, replay
from soan.interpreter.runtime import Tables
from soan.interpreter.state import CHANCE, ShuffleOutcomes, State

from .ahead import Ahead, course_game


@attrs.define
class Witness:
    record: GameRecord
    step: int  # the step at which it first happened
    key: tuple | None = None  # the mark it witnesses, if any

    @property
    def length(self) -> int:
        return len(self.record.log["steps"])


@attrs.define
class SearchResult:
    games: int = 0
    seconds: float = 0.0
    marks: dict = attrs.field(factory=dict)  # (kind, site) -> Witness
    consulted: dict = attrs.field(factory=dict)  # ruling -> Witness
    best: dict = attrs.field(factory=dict)  # "total"/item -> (value, Witness)
    worst: dict = attrs.field(factory=dict)
    invariant_steps: int = 0
    counts: Counter = attrs.field(factory=Counter)
    seeded: int = 0  # seeded games played: the next one is seed + seeded
    # the most rounds and decisions any game took: "rounds"/"decisions" -> (value, Witness)
    longest: dict = attrs.field(factory=dict)
    # seeded games that stopped with a rule error: (seed, bots, the error)
    errors: list = attrs.field(factory=list)
    # a work budget (games, evaluations) cut short by the wall-clock limit: verdicts may then
    # depend on the machine's speed, and the output says so
    cut_short: bool = False
    # while loop site -> (the most passes one run of it made in any game, that game)
    loop_peak: dict = attrs.field(factory=dict)


def bots_for(g: int, n: int) -> list[str]:
    # Mostly random playouts; every sixteenth game greedy bots, which reach higher scores (since greedy
    # plays a move the rules split into several decisions through, a greedy game can cost as much as
    # a hundred random ones: every eighth made verify's search most of a minute on the larger drafts).
    return ["greedy"] * n if g % 16 == 15 else ["random"] * n


def _check_invariants(st: State) -> None:
    t = st.t
    seen = [0] * t.n_cards
    for slot, zone in enumerate(st.zones):
        for c in zone:
            seen[c] += 1
            assert st.loc[c] == slot, f"card {c} is in zone {slot} but indexed at {st.loc[c]}"
    assert all(k == 1 for k in seen), "a card is missing or in two places"
    for name, left in st.supply.items():
        assert left >= 0, f"supply {name} went below zero"


def search(tables: Tables, budget: float, seed: int = 0, max_games: int | None = None,
           progress: Callable[[int, float], None] | None = None, check_steps_games: int = 20,
           jobs: int = 1) -> SearchResult:
    """Seeded games for 70% of the budget (in `jobs` processes), then hypothesis's targeted search
    pushing the highest score up for the rest."""
    res = SearchResult()
    start = time.perf_counter()
    # with a number of games, `budget` is only the wall-clock limit that may cut the work short
    more_games(tables, res, budget * 0.7 if max_games is None else budget, seed, progress, max_games,
               check_steps_games, jobs)
    left = budget - (time.perf_counter() - start)
    examples = None if max_games is None else max_games // 4
    if (max_games is None and left > 0.5) or examples:
        found = targeted(tables, seed, left, examples)
        if examples and len(found) < 1 and left <= 0:
            res.cut_short = True
        for rec in found:
            _absorb(res, rec, tables)
            res.games += 1
    res.seconds = time.perf_counter() - start
    return res


def more_games(tables: Tables, res: SearchResult, seconds: float, seed: int = 0,
               progress: Callable[[int, float], None] | None = None, max_games: int | None = None,
               check_steps_games: int = 0, jobs: int = 1) -> None:
    """Seeded games into `res`, continuing after the seeds already played:
    for `seconds`, or exactly up to `max_games` seeded games (then the same
    verdicts every run).  The first `check_steps_games` games have the
    engine's invariants checked at every step.  With `jobs` > 1 the games are
    played in that many processes and taken in seed order, so `res` is the same
    for any number of jobs (unless the wall clock cuts the work short)."""
    start = time.perf_counter()
    g = res.seeded
    with Workers(functools.partial(_seeded_game, tables, seed, check_steps_games), jobs) as workers:
        while (max_games is None or g < max_games) and time.perf_counter() - start < seconds:
            # one game at a time in this process (the clock read before each game); in workers, every game
            # left at once (or a batch, when only the clock bounds the search) and the clock read per game
            batch = 1 if workers.pool is None else (workers.jobs * 8 if max_games is None else max_games - g)
            for rec, bots, error, steps_checked in workers.imap(range(g, g + batch)):
                res.invariant_steps += steps_checked
                if error is not None:  # a finding about the spec, not the end of the search
                    res.errors.append((seed + g, bots, SpecRuntimeError(*error)))
                else:
                    rec.state.t = tables  # a record from another process comes back without the tables
                    _absorb(res, rec, tables)
                g += 1
                res.games += 1
                if progress:
                    progress(res.games, time.perf_counter() - start)
                if time.perf_counter() - start >= seconds:
                    break
    if max_games is not None and g < max_games:
        res.cut_short = True
    res.seeded = g
    res.seconds += time.perf_counter() - start


def _seeded_game(tables: Tables, seed: int, check_steps_games: int, g: int) -> tuple:
    """Seeded game number g of the search: (its record or None, the bots, the rule error as (message, span,
    hint) or None, steps whose invariants were checked); all of it can be sent between processes."""
    bots = bots_for(g, tables.n)
    checked = [0]
    on_step = None
    if g < check_steps_games:
        def on_step(st):
            _check_invariants(st)
            checked[0] += 1
    try:
        return play_game(tables, seed + g, bots, on_step=on_step), bots, None, checked[0]
    except SpecRuntimeError as e:
        return None, bots, (e.message, e.span, e.hint), checked[0]


def play_choices(tables: Tables, seed: int, choices: list[int]) -> GameRecord:
    """A game whose decisions follow `choices` (each taken modulo the number of
    legal moves; 0 once they run out) and whose chance follows `seed`."""
    taken = iter(choices)

    def choose(st, p, moves) -> int:
        return next(taken, 0) % len(moves)

    return record_game(tables, seed, choose, ["targeted"] * tables.n)


def targeted(tables: Tables, seed: int, seconds: float, examples: int | None = None) -> list[GameRecord]:
    """hypothesis's targeted search (target()) for games with a high score:
    it generates decision lists, keeps those that push the best score up, and
    mutates them.  Derandomised, so the same seed finds the same games."""
    from hypothesis import HealthCheck, Phase, given, settings, target
    from hypothesis import strategies as st

    found: list[GameRecord] = []
    best = [None]
    deadline = time.perf_counter() + seconds

    @settings(max_examples=examples or 10_000, deadline=None, database=None, derandomize=True,
              phases=[Phase.generate, Phase.target], suppress_health_check=list(HealthCheck))
    @given(st.integers(0, 2**16), st.lists(st.integers(0, 2**16), max_size=400))
    def run(chance_seed, choices):
        if time.perf_counter() > deadline:
            raise _OutOfTime  # ends the search at once: no shrinking phase runs
        rec = play_choices(tables, seed * 100_003 + chance_seed, choices)
        top = max(rec.result["scores"].values())
        target(float(top), label="highest score")
        if best[0] is None or top > best[0]:
            best[0] = top
            found.append(rec)

    try:
        run()
    except Exception:  # out of time, or a spec error (which the seeded games report, not this search)
        pass
    return found


class _OutOfTime(Exception):
    pass


# ---- constructed witnesses: climbing towards a proved bound

def course_of(rec: GameRecord) -> list:
    """A game as the list of what happened at each step: a decision by its
    move's label (so the same card is laid even when a hand's order shifts),
    a chance event by its outcome (an index, or a shuffle's order)."""
    return [step["move"] if "move" in step else step["outcome"] for step in rec.log["steps"]]


def play_course(tables: Tables, course: list, seed: int) -> GameRecord:
    """A game following `course` as far as it fits: a decision takes the move
    with the recorded label, or the index modulo the moves; a chance event the
    recorded outcome when it is possible there.  Past the course, or where it
    does not fit, decisions and chance are drawn from `seed`.  Every outcome
    taken is one the game could draw, so the record is a real, replayable game."""
    rng = random.Random(f"soan/{seed}/course")
    k = [0]
    widths: list[int] = []  # what widths_of would find by replaying the game, noted as it is played

    def wanted():
        i = k[0]
        k[0] += 1
        return course[i] if i < len(course) else None

    def choose(st, p, moves):
        widths.append(len(moves))
        w = wanted()
        if isinstance(w, str):
            for i, m in enumerate(moves):
                if m.label == w:
                    return i
        if isinstance(w, int) and not isinstance(w, bool):
            return w % len(moves)
        return rng.randrange(len(moves))

    def chance(st, chance_rng):
        w = wanted()
        outcomes = st.chance_outcomes()
        widths.append(0 if isinstance(outcomes, ShuffleOutcomes) else len(outcomes or ()))
        if isinstance(outcomes, ShuffleOutcomes):  # a shuffle: any order of the right length
            n = outcomes.n
            if isinstance(w, list) and sorted(w) == list(range(n)):
                return list(w)
            return st.sample_chance(rng)
        possible = [i for i, (_, prob) in enumerate(outcomes) if prob > 0]
        if isinstance(w, int) and not isinstance(w, bool) and possible:
            return possible[w % len(possible)] if w not in possible else w
        return st.sample_chance(rng)

    rec = record_game(tables, seed, choose, ["search"] * tables.n, chance=chance)
    rec.widths = widths
    return rec


def climb(tables: Tables, value: Callable[[GameRecord], tuple[int, float] | None], starts: list[GameRecord],
          seed: int, seconds: float | None = None, max_evals: int | None = None,
          goal: int | None = None, on_game: Callable[[GameRecord], object] | None = None,
          max_steps: int | None = None, jobs: int = 1, patience: int | None = None, drift: float = 0.5,
          raise_parts: int = 1, quiet: int | None = None) -> tuple[int, GameRecord] | None:
    """Hill-climb over whole games towards a higher `value(record)` (its first
    part is what is reported; the second only steers).  Two kinds of step,
    each kept when the game is no worse: random changes to one to three
    steps of the course (another move, another roll, two cards of a shuffle
    transposed), and, once those stall, a sweep trying every other move or
    outcome at every step in turn.  When a sweep finds nothing the climb
    starts again from the next start.  Stops at `goal`, or when time,
    evaluations or steps (`max_steps`: the steps of every game it plays, so a
    spec of long games gets fewer of them) run out; deterministic for a given
    `max_evals` and `max_steps`.  `patience`: stop after that many games in a row that raise
    nothing (the value's first `raise_parts` parts); `quiet`: stop after that many games in a
    row that raise nothing and for which `on_game` returned nothing true (the caller's way of
    saying a game added nothing it keeps: no best game, no witness).  With `jobs` > 1 the games
    the climb would try next, should the current one not be kept, are played meanwhile in child
    processes (verify/ahead.py): the same games in the same order, and the same result, for any
    number of jobs."""
    with Workers(functools.partial(course_game, play_course, tables), jobs) as workers:
        return _climb(tables, value, starts, seed, seconds, max_evals, goal, on_game, max_steps,
                      Ahead(tables, play_course, workers), patience, drift, raise_parts, quiet)


def _climb(tables, value, starts, seed, seconds, max_evals, goal, on_game, max_steps, ahead: Ahead, patience=None,
           drift=0.5, raise_parts=1, quiet=None):
    rng = random.Random(f"soan/{seed}/climb")
    deadline = None if seconds is None else time.perf_counter() + seconds
    evals = [0]
    steps = [0]
    scored = [(v, r) for v, r in ((value(r), r) for r in starts) if v is not None]
    scored.sort(key=lambda x: x[0], reverse=True)
    if not scored:
        return None
    best = list(scored[0])
    raised = [0]  # the evaluation that last raised the best game's first part
    fresh = [0]  # the evaluation that last raised the value or added something on_game keeps (`quiet`)

    def out_of_budget() -> bool:
        return ((deadline is not None and time.perf_counter() > deadline)
                or (max_evals is not None and evals[0] >= max_evals) or (goal is not None and best[0][0] >= goal)
                or (max_steps is not None and steps[0] >= max_steps)
                or (patience is not None and evals[0] - raised[0] >= patience)
                or (quiet is not None and evals[0] - fresh[0] >= quiet))

    def attempt(course, then=None):
        # then(r): what the climb tries next should this course not be kept, drawn from r (see Ahead.play)
        evals[0] += 1
        steps[0] += len(course)
        rec = ahead.play(course, rng.randrange(2**31), rng, then)
        if rec is None:  # a spec error on this course: not a game, not a witness
            return None, None
        if on_game is not None and on_game(rec):
            fresh[0] = evals[0]
        v = value(rec)
        if v is not None and v > best[0]:
            if v[:raise_parts] > best[0][:raise_parts]:
                raised[0] = fresh[0] = evals[0]
            best[:] = [v, rec]
        return v, rec

    restart = 0
    if not any(course_of(r) for _, r in scored):  # games with no decision and no chance: nothing to change
        return best[0][0], best[1]
    while not out_of_budget():
        cur_v, cur = scored[restart % len(scored)]
        course, widths = course_of(cur), widths_of(tables, cur)
        if not course:
            restart += 1
            continue
        stall = 0
        while not out_of_budget():
            if stall < STALL:  # random changes
                v, rec = attempt(_changed(course, widths, rng),
                                 lambda r, c=course, w=widths, n=STALL - 1 - stall: _more_changes(c, w, n, r))
                # the same score with a worse steer is still taken now and then, to drift across plateaus
                if v is None or v[0] < cur_v[0] or (v < cur_v and rng.random() < 1 - drift):
                    stall += 1
                    continue
                stall = 0 if v > cur_v else stall + 1
                cur_v, course, widths = v, course_of(rec), widths_of(tables, rec)
                continue
            improved = False  # a sweep: every other choice at every step
            for k in range(len(course)):
                if out_of_budget() or k >= len(course):
                    break
                alts = _sweep_alternatives(widths, k, rng)
                for i, a in enumerate(alts):
                    v, rec = attempt(_swept(course, widths, k, a, rng),
                                     lambda r, c=course, w=widths, k=k, rest=alts[i + 1:]: _sweep_rest(c, w, k, rest, r))
                    if v is not None and v > cur_v:
                        cur_v, course, widths = v, course_of(rec), widths_of(tables, rec)
                        improved = True
                        break
            if not improved:
                break
            stall = 0
        # stuck: kick the best game found so far (several random changes) and climb again;
        # every other time, start afresh from the next of the given games instead
        restart += 1
        if restart % 2:
            kicked = course_of(best[1])
            for _ in range(rng.randint(4, 10)):
                k = rng.randrange(len(kicked))
                kicked[k] = _neighbour(kicked[k], 0 if isinstance(kicked[k], list) else 64, rng)
            v, rec = attempt(kicked)
            if v is not None:
                scored.append((v, rec))
                restart = len(scored) - 1
    return best[0][0], best[1]


# random changes tried in a row without a better game before a climb sweeps instead
STALL = 300


def _changed(course: list, widths: list[int], rng: random.Random) -> list:
    """A random change to one to three steps of a course."""
    cand = list(course)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        k = rng.randrange(len(cand))
        cand[k] = _neighbour(cand[k], widths[k], rng)
    return cand


def _more_changes(course: list, widths: list[int], n: int, r: random.Random):
    """The next `n` random changes a climb tries (with their games' seeds) while none is kept."""
    for _ in range(n):
        cand = _changed(course, widths, r)
        yield cand, r.randrange(2**31)


def _sweep_alternatives(widths: list[int], k: int, rng: random.Random) -> list:
    alts = list(range(widths[k])) if widths[k] > 0 else [0] * 4
    if len(alts) > 12:  # a wide choice (which three of ten cards): a sample of it
        alts = rng.sample(alts, 12)
    return alts


def _swept(course: list, widths: list[int], k: int, a, rng: random.Random) -> list:
    """The course with step k made alternative `a` (a step with no count of outcomes: a random neighbour)."""
    cand = list(course)
    cand[k] = a if widths[k] > 0 else _neighbour(cand[k], 0, rng)
    return cand


def _sweep_rest(course: list, widths: list[int], k: int, rest: list, r: random.Random):
    """What a sweep tries after step k's alternative (with the games' seeds) while none is better:
    the `rest` of step k's alternatives, then every later step's."""
    for a in rest:
        cand = _swept(course, widths, k, a, r)
        yield cand, r.randrange(2**31)
    for j in range(k + 1, len(course)):
        for a in _sweep_alternatives(widths, j, r):
            cand = _swept(course, widths, j, a, r)
            yield cand, r.randrange(2**31)


def _neighbour(step, width: int, rng: random.Random):
    if isinstance(step, list) and len(step) > 1:  # a shuffle: transpose two cards
        perm = list(step)
        a, b = rng.sample(range(len(perm)), 2)
        perm[a], perm[b] = perm[b], perm[a]
        return perm
    return rng.randrange(width if width > 0 else 64)


def widths_of(tables: Tables, rec: GameRecord) -> list[int]:
    """How many moves or outcomes each step of a game had (0 for a shuffle).  A game play_course
    played carries them already: no replay then."""
    if getattr(rec, "widths", None) is not None:
        return rec.widths
    out: list[int] = []

    def width(st: State) -> None:
        if not st.is_terminal():
            oc = st.chance_outcomes()
            out.append(len(st.legal_moves()) if st.current_player() >= 0 else 0 if isinstance(oc, ShuffleOutcomes) else len(oc or ()))

    replay(tables, rec.log, on_step=width)
    return out


def _keep(table: dict, key, w: Witness) -> bool:
    old = table.get(key)
    if old is None or w.length < old.length:
        table[key] = w
        return True
    return False


def _absorb(res: SearchResult, rec: GameRecord, tables: Tables) -> None:
    """A game of the search: counted, and observed."""
    for key in rec.state.first_marks:
        res.counts[key] += 1
    observe(res, rec, tables)


def observe(res: SearchResult, rec: GameRecord, tables: Tables) -> bool:
    """Keep what a game shows (marks, rulings read, extreme scores, its length)
    as witnesses, and for checking every proof against it.  Every game a
    verify run plays comes through here, constructed ones too.  Returns whether
    the game changed anything kept (a new or shorter witness, a new extreme)."""
    st = rec.state
    changed = False
    for key, first in st.first_marks.items():
        changed |= _keep(res.marks, key, Witness(rec, first, key))
    length = {"rounds": rec.result.get("rounds", 0),
              "decisions": sum(1 for step in rec.log["steps"] if "move" in step)}
    for k, v in length.items():
        if k not in res.longest or v > res.longest[k][0]:
            res.longest[k] = (v, Witness(rec, len(rec.log["steps"])))
            changed = True
    for site, passes in st.loop_peak.items():
        if site not in res.loop_peak or passes > res.loop_peak[site][0]:
            res.loop_peak[site] = (passes, Witness(rec, len(rec.log["steps"])))
            changed = True
    for r in rec.log["consulted_rulings"]:
        changed |= _keep(res.consulted, r, Witness(rec, 0))
    result = rec.result
    for i in range(tables.n):
        p = f"P{i + 1}"
        values = {"total": result["scores"][p], **{f"item:{k}": v for k, v in result["breakdown"][p].items()}}
        for k, v in values.items():
            if k not in res.best or v > res.best[k][0]:
                res.best[k] = (v, Witness(rec, len(rec.log["steps"])))
                changed = True
            if k not in res.worst or v < res.worst[k][0]:
                res.worst[k] = (v, Witness(rec, len(rec.log["steps"])))
                changed = True
    return changed


def loop_passes(site: tuple):
    """A game's value when pushing a while loop towards its cap: the most passes one run of
    the loop at `site` made, one more once the cap stopped it."""
    def value(rec):
        st = rec.state
        return (st.loop_peak.get(site, 0) + int(("while_limit", site) in st.first_marks), 0)
    return value


def rounds_played(rec: GameRecord):
    """A game's value when pushing a `rounds until ... cap` game towards its cap: its rounds, one
    more once the cap stopped it (steered by its decisions)."""
    capped = any(k == "round_cap" for k, _ in rec.state.first_marks)
    return (rec.result.get("rounds", 0) + int(capped), sum(1 for step in rec.log["steps"] if "move" in step))


def game_goes_on(st: State) -> float:
    """A state's value when steering a game away from every way it can end (see directed_games'
    `avoid`): the rounds played; once the game is over (but for its round cap stopping it), far
    below anything, the less so the later it ended."""
    if st.is_terminal() and not any(k == "round_cap" for k, _ in st.first_marks):
        return -1e9 + st.steps
    return st.round


def confirm(tables: Tables, w: Witness) -> bool:
    """Re-run a witness in the real interpreter: the same course and result."""
    try:
        st = replay(tables, w.record.log)
    except Exception:
        return False
    return st.result == w.record.result


def account_around(tables: Tables, w: Witness, before: int = 4, after: int = 2) -> list[str]:
    """The few lines of the game's account around the step that matters."""
    from soan.api import narrate

    st = replay(tables, w.record.log, narrate=True)
    lines = narrate(st)
    if w.key is not None and w.key in st.mark_events:
        k = st.mark_events[w.key]  # events before the mark; narrate() puts a heading first
        return lines[max(0, k + 1 - before - 2): k + 1 + after]
    # narrate() gives one line per event after its "Setup" heading; decisions and chance events are the steps.
    k, step = len(st.events) - 1, 0
    for idx, e in enumerate(st.events):
        if e[0] in ("move", "chance"):
            step += 1
        if step >= w.step:
            k = idx
            break
    k = min(k + 1, len(lines) - 1)
    return lines[max(0, k - before): k + after + 1]


__all__ = ["search", "confirm", "account_around", "Witness", "SearchResult", "CHANCE"]


# ---- directed games: every decision steered towards an objective

def directed_games(tables: Tables, objective: Callable[[State], float], seed: int, games: int,
                   depth: int = 6, explore: float = 0.15, max_moves: int = 24,
                   on_game: Callable[[GameRecord], None] | None = None, avoid: bool = False,
                   until: Callable[[], bool] | None = None, first: int = 0,
                   steer_chance: bool = False, last: bool = False) -> list[GameRecord]:
    """Games in which every seat works together towards a higher `objective(state)`
    (tokens out of a supply, cards out of a pile, one seat's score): at each
    decision every move (at most `max_moves`, drawn evenly) is tried on a copy and
    played on at random for `depth` steps, the same luck for every move, and the
    move whose path reaches the highest objective is taken; now and then
    (`explore`) a random move instead, so the games differ.  A random walk
    seldom finds the corner a shortage or a top score needs; a climb from these
    games starts near it.  Work is fixed (games x moves x depth), never timed;
    chance is drawn as in any game, so each record is a real, replayable game.
    `avoid`: a path counts by the lowest objective on it, not the highest (to steer
    away from what the objective marks low, such as the game ending); `until`: no
    more games once it says so (asked after each game).  `steer_chance`: a roll or a random
    pick (not a shuffle) is steered like a decision, among the outcomes it can have (at most
    `max_moves` of them, each with some chance), so the game is as lucky as the objective
    wants and still one that could be drawn: its record replays.  `last`: a path counts by the
    objective where it ends, not the best on the way (a state passed through in the middle of a
    rule, such as a pile drawn from and filled again, is no place to steer to)."""
    out = []
    for g in range(first, first + games):  # game g is the same game whichever call plays it
        if until is not None and until():
            break
        rng = random.Random(f"soan/{seed}/directed/{g}")

        def peak(s: State, luck: int) -> float:
            r = random.Random(luck)
            best = objective(s)
            for _ in range(depth):
                if s.is_terminal():
                    break
                if s.current_player() == CHANCE:
                    s.apply_chance(s.sample_chance(r))
                else:
                    s.apply(r.randrange(len(s.legal_moves())))
                if not last:
                    best = min(best, objective(s)) if avoid else max(best, objective(s))
            return objective(s) if last else best

        def best_of(st: State, tried, apply) -> list:
            luck = rng.getrandbits(32)
            best, best_value = [], None
            for i in tried:
                s = st.clone()
                try:
                    apply(s, i)
                    value = peak(s, luck)
                except SpecRuntimeError:  # a rule error down this path: not a way forward
                    continue
                if best_value is None or value > best_value:
                    best, best_value = [i], value
                elif value == best_value:
                    best.append(i)
            return best

        def choose(st: State, p: int, moves: list) -> int:
            if len(moves) == 1:
                return 0
            if rng.random() < explore:
                return rng.randrange(len(moves))
            tried = range(len(moves)) if len(moves) <= max_moves else sorted(rng.sample(range(len(moves)), max_moves))
            best = best_of(st, tried, State.apply)
            return rng.choice(best) if best else rng.randrange(len(moves))

        def chance(st: State, chance_rng: random.Random):
            outcomes = st.chance_outcomes()
            if isinstance(outcomes, ShuffleOutcomes):
                return st.sample_chance(chance_rng)
            possible = [i for i, (_, prob) in enumerate(outcomes) if prob > 0]
            if len(possible) < 2 or len(possible) > max_moves or rng.random() < explore:
                return st.sample_chance(chance_rng)
            best = best_of(st, possible, State.apply_chance)
            return rng.choice(best) if best else st.sample_chance(chance_rng)

        try:
            rec = record_game(tables, seed * 7919 + g, choose, ["directed"] * tables.n,
                              chance=chance if steer_chance else None)
        except SpecRuntimeError:  # the seeded games report rule errors; this search only looks for witnesses
            continue
        if on_game is not None:
            on_game(rec)
        out.append(rec)
    return out


def tokens_out(token: str, supply: int) -> Callable[[State], float]:
    """How many of a token's `supply` are out of it, and one more once a give found it short."""
    def value(st: State) -> float:
        short = any(k == "short_supply" and site[0] == token for k, site in st.first_marks)
        return supply - st.supply[token] + int(short)
    return value


def pile_drawn(tables: Tables, pile: str, sites: set) -> Callable[[State], float] | None:
    """How few cards a shared pile holds, and far more once a draw at one of `sites` found it short."""
    slot = tables.slot_of.get((pile, -1))
    if slot is None:
        return None

    def value(st: State) -> float:
        short = any(k == "short_draw" and site in sites for k, site in st.first_marks)
        return -len(st.zones[slot]) + 1000 * int(short)
    return value
