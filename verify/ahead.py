"""Playing ahead: a sequential search (a climb) asks for one game at a time, and
which game it asks for next depends on the last one.  Most of its tries are
not kept, though, and then the next try is one its random stream already
fixes.  So while this process plays the game asked for, child processes
play the games the search would ask for next if that game is not kept,
forecast from a copy of its random stream.  A game asked for is taken from
the workers only when its course and seed are exactly the forecast one, and
a game is a function of its course and seed: the search plays the same games
in the same order, and finds the same, for any number of jobs."""

from __future__ import annotations

import itertools
import random
from typing import Callable, Iterator

from soan.interpreter.play import GameRecord, Workers, _run_chunk
from soan.interpreter.runtime import Tables


class Ahead:
    """Games of `play(tables, course, seed)` asked for one at a time, the next few forecast ones played
    meanwhile in `workers` (opened on a function of one (course, seed) item; see course_game)."""

    def __init__(self, tables: Tables, play: Callable[[Tables, list, int], GameRecord], workers: Workers):
        self.t = tables
        self.play_fn = play
        self.workers = workers
        self.ready: list[tuple[list, int, GameRecord | None]] = []  # forecast games played, in order
        self.forecast_games = 0  # games the workers played
        self.forecast_used = 0  # of them, asked for

    def play(self, course: list, seed: int, rng: random.Random | None = None,
             then: Callable[[random.Random], Iterator[tuple[list, int]]] | None = None) -> GameRecord | None:
        """The game of `course` and `seed` (None where the rules stop it with an error).  `then(r)`: the
        (course, seed) pairs asked for next should this game not be kept, drawn from `r`, a copy of
        `rng` as it stands now (after this game's seed was drawn)."""
        if self.ready:
            c, s, rec = self.ready.pop(0)
            if s == seed and c == course:
                self.forecast_used += 1
                return rec
            self.ready = []  # the search went another way: the rest of the forecast with it
        pool = self.workers.pool
        if pool is None or then is None or rng is None:
            return self._here(course, seed)
        r = random.Random()
        r.setstate(rng.getstate())
        upcoming = list(itertools.islice(then(r), self.workers.jobs - 1))
        pending = pool.map_async(_run_chunk, [[item] for item in upcoming]) if upcoming else None
        try:
            mine = self._here(course, seed)
        finally:
            done = pending.get() if pending is not None else []
        for (c, s), (out, error) in zip(upcoming, done):
            rec = out[0] if out and error is None else None
            if rec is not None:
                rec.state.t = self.t  # a record from another process comes back without the tables
            self.ready.append((c, s, rec))
            self.forecast_games += 1
        return mine

    def _here(self, course: list, seed: int) -> GameRecord | None:
        try:
            return self.play_fn(self.t, course, seed)
        except Exception:  # a spec error on this course: not a game, not a witness
            return None


def course_game(play: Callable[[Tables, list, int], GameRecord], tables: Tables, item: tuple) -> GameRecord | None:
    """A child process's game of one forecast (course, seed), or None where the rules stop it with an error."""
    try:
        return play(tables, *item)
    except Exception:
        return None
