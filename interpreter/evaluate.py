"""What a position is worth to each seat, read from the spec's own winner line.

Every bot values positions the same way: by how the game would end for the
seat, never by raw score.  A finished game is worth its result: a win alone
is 1, a win shared or drawn among k seats 1/k, anything else 0.  A game still running is scored as if its end-of-game
scoring and winner line ran now, and that result counts the same way; so
"lowest wins" (`by vp(p) asc`), tie-break keys, a `where` on who may win, an
immediate `win`, an elimination and a draw all weigh exactly as the rules say.

A winner line with a `payoff` (chips in poker) says the players play for
that number, not for the win alone: a finished game is then worth the seat's
payoff, scaled from its declared range to 0..1, in place of its share of the
win; so a bot maximises its expected payoff.

Two finer readings break ties between positions that result in the same
outcome (a bot that will lose either way should still lose by less): the
seat's place in the winner line's order (how many candidates rank ahead of
it), and its margin on the line's first numeric key to the best other
candidate, signed by the key's direction.
"""

from __future__ import annotations

import math
import random

from soan.dsl.errors import SpecRuntimeError
from soan.dsl.limits import MAX_LOOP_PASSES

from .compile import key_values
from .reads import Added, ending_reads, scoring_plan
from .runtime import PlayerRef, rank_by, rank_groups
from .state import CHANCE, Frame, State, _over_budget

SCORING_STEPS = 10_000  # choices inside the end-of-game scoring taken as the first legal one, at most this many
MEMO_SIZE = 4096  # outcomes remembered by what the ending reads (reads.py); all forgotten when full
PASS_MEMO_SIZE = 16384  # scoring loop passes remembered (reads.scoring_plan); all forgotten when full


class Outcome:
    """How a game ended (or would end now) for every seat: `share[i]` the
    seat's share of the win (0..1), `place[i]` how many candidates rank ahead
    of it (n for a seat that cannot win), `margin[i]` its signed lead on the
    first numeric key."""

    __slots__ = ("share", "place", "margin", "payoff")

    def __init__(self, share: list[float], place: list[int], margin: list[float],
                 payoff: list[float] | None = None):
        self.share, self.place, self.margin = share, place, margin
        self.payoff = payoff  # each seat's payoff scaled to 0..1, where the winner line declares one

    def key(self, seat: int) -> tuple:
        """A value to maximise: the win (or the payoff) first, then the place, then the margin."""
        first = self.share[seat] if self.payoff is None else self.payoff[seat]
        return (first, -self.place[seat], self.margin[seat])

    def soft(self, seat: int, n: int) -> float:
        """One number in 0..1 for search: the share of the win, with a small
        part (a tenth) for the place among the others, so a lost position is
        still ordered by how far behind it is; or, where the line declares a
        payoff, the scaled payoff alone (its expectation is what the players play for)."""
        if self.payoff is not None:
            return self.payoff[seat]
        placed = 1.0 - self.place[seat] / max(1, n - 1) if n > 1 else 1.0
        return 0.9 * self.share[seat] + 0.1 * max(0.0, placed)


class Evaluator:
    """The winner line of one game's tables, compiled once; values states."""

    def __init__(self, tables):
        self.t = tables
        w = tables.spec.winner
        self.n = tables.n
        # what ending a game reads (None: the ending may stop, or is not analysed): an outcome is remembered under
        # the values of those parts of the state, and a state that agrees on them ends the same
        self.reads = ending_reads(tables)
        self.memo: dict[tuple, tuple[Outcome, int]] = {}
        # the scoring statement by statement, its loops' passes remembered by what each reads (reads.scoring_plan):
        # only where the ending's reads are known (no chance, nothing that stops)
        self.plan = self._plan(tables) if self.reads is not None else None
        if w is None:
            self.candidates = None
            return
        x = tables.rules.x  # the engine's own expressions: generated code on the compiled engine
        self.candidates = x.binder(w.var, w.coll, w.where)
        self.everyone = x.binder(w.var, w.coll, None) if w.where is not None else None
        self.var = w.var
        self.keys = tuple((x(k.expr), k.descending) for k in w.keys)
        # the keys' generated values function on the compiled engine (runtime.rank_by), else None (rank_groups)
        self.ranker = key_values(x, w.var, w.keys, self.keys, w.span)
        self.descs = tuple(d for _, d in self.keys)
        self.span = w.span
        self.fallback = w.fallback
        self.payoff = None
        if w.payoff is not None:
            self.payoff = (x(w.payoff.expr), w.payoff.lo, w.payoff.hi, w.payoff.span)

    # ---- outcomes ----------------------------------------------------------------------------

    def outcome(self, state: State, rng: random.Random | None = None, spare: bool = False,
                drawn: list | None = None) -> Outcome:
        """The outcome of `state`, finished or as if it ended now.  With
        `spare`, the caller will not use `state` again, so the ending runs on
        it in place instead of on a copy.  With `drawn`, the chance events the
        ending sampled are counted in drawn[0] (none: the outcome is a function
        of the position alone, and ending it again would draw nothing).

        Where the ending's reads are known (reads.py: then it draws nothing, and a choice in it takes the first legal
        move, a function of what it reads), the outcome is
        remembered under their values, and a state that agrees with one ended before gets the same outcome
        without ending it again: the same scoring run on the same values, in the same number of loop passes,
        which is checked against the game's step budget as the run would be."""
        if state.is_terminal():
            return self._outcome(state)
        reads = self.reads
        if reads is None or state.ending:
            return self._outcome(finish_now(state, rng or random.Random(0), spare, drawn))
        key = reads.key(state)
        try:
            known = self.memo.get(key)
        except TypeError:  # a variable holding something unhashable: not remembered
            return self._outcome(finish_now(state, rng or random.Random(0), spare, drawn))
        passes = state.passes
        if known is not None and passes + known[1] <= MAX_LOOP_PASSES:
            return known[0]
        if self.plan is not None:
            s = state if spare else state.clone()
            s.memo = {}
            self._score(s)
        else:
            s = finish_now(state, rng or random.Random(0), spare, drawn, memo=True, winner=False)
        # a scoring cut short by SCORING_STEPS choices (still pending) is valued as it stands, as without the memo
        o = self._outcome(s) if s.result is not None or s.pending is not None else self._decided(s)
        s.memo = None
        if len(self.memo) >= MEMO_SIZE:
            self.memo.clear()
        self.memo[key] = (o, s.passes - passes)
        return o

    # ---- the scoring, a loop pass at a time -----------------------------------------------------------------

    @staticmethod
    def _plan(tables) -> list | None:
        """reads.scoring_plan with its statements' ops: ("op", op), ("phase", name, title) or ("passes", memo,
        items of the loop, its body's ops, its site for the step budget's message, the passes remembered)."""
        plan = scoring_plan(tables)
        if plan is None:
            return None
        from .stmtgen import _Site

        rules = tables.rules
        out = []
        for kind, x in plan:
            if kind == "op":
                out.append(("op", rules.stmt(x, False)))
            elif kind == "phase":
                out.append(("phase", x.name, x.title))
            else:
                s = x.stmt
                body = rules.block(s.body)
                if len(body) != 1:  # a body that runs through is one op (compile.block)
                    return None
                out.append(("passes", x, rules.x.binder(s.var, s.coll, s.where), body, _Site("for loop", s.span), {}))
        return out

    def _score(self, s: State) -> None:
        """The scoring run on `s` (a bot's copy, not ending yet: its marks and the rulings it consults are no
        one's record) as finish_now(winner=False) runs it, statement by statement: a remembered loop pass whose
        key (reads.PassMemo) matches one run before writes what that one wrote and counts its loop passes (it
        runs for real where those would pass the step budget, to fail where the run fails)."""
        s.pending = None
        s.frames = []
        s.ending = True
        env: dict = {}
        f = Frame((), env)
        for step in self.plan:
            kind = step[0]
            if kind == "op":
                step[1](s, f)
                continue
            if kind == "phase":
                s.event("phase", step[1], step[2])
                continue
            _, pm, items_of, body, site, memo = step
            var, key_of, op, added = pm.stmt.var, pm.key, body[0], pm.added
            items, _ = items_of(s, env)
            try:
                groups = pm.prepare(s)
            except TypeError:  # a field value that cannot be hashed: these passes are not remembered
                groups = None
            for k, x in enumerate(items):
                if k:  # a pass counts towards the game's step budget
                    s.passes += 1
                    if s.passes > MAX_LOOP_PASSES:
                        raise _over_budget(site)
                env[var] = x
                key = known = None
                if groups is not None:
                    try:
                        key = key_of(s, env, groups)
                        known = memo.get(key)
                    except KeyError:  # a local without a value: the run fails where it reads it
                        key = None
                    except TypeError:  # a value that cannot be hashed: this pass is not remembered
                        key = None
                if known is not None:
                    values, dp, binds, changes = known
                    if s.passes + dp <= MAX_LOOP_PASSES and (not changes or _added(s, changes)):
                        pm.replay(s, values)
                        s.passes += dp
                        if binds:
                            env.update(binds)
                        continue
                before = s.passes
                if key is None or not added:
                    op(s, Frame(body, env))
                    changes = ()
                else:
                    changes = _run_added(s, op, body, env, added)
                    if changes is None:
                        key = None
                if key is not None:
                    if len(memo) >= PASS_MEMO_SIZE:
                        memo.clear()
                    memo[key] = (pm.capture(s), s.passes - before, tuple((n, env[n]) for n in pm.binds if n in env),
                                 changes)

    def _outcome(self, s: State) -> Outcome:
        """The outcome of the finished state `s`."""
        n = self.n
        share = [0.0] * n
        res = s.result
        if res is not None and res["winners"]:
            winners = [int(w[1:]) - 1 for w in res["winners"]]
            for i in winners:  # the rules say who wins (an elimination counts only as far as they say)
                share[i] = 1.0 / len(winners)
        place, margin = self._places(s)
        return Outcome(share, place, margin, self._payoffs(s) if self.payoff is not None else None)

    def _decided(self, s: State) -> Outcome:
        """The outcome of `s`, whose scoring has run but not its winner line (finish_now(winner=False)): the winners
        are the first group of the line's full ranking (_ranked), which is the group the winner line's own ranking
        (top_only: later keys part only the first group) finds, taken as it takes it; where that ranking fails, or
        finds what is not a player, the winner line itself runs, as it would have."""
        place, margin, top = self._ranked(s)
        if top is None or any(type(p) is not PlayerRef for p in top):
            s.t.rules.winner_ops[0](s, None)
            return self._outcome(s)
        share = [0.0] * self.n
        winners = top[:1] if len(top) > 1 and self.fallback == "stable" else top
        for p in winners:
            share[p.i] = 1.0 / len(winners)
        return Outcome(share, place, margin, self._payoffs(s) if self.payoff is not None else None)

    def _payoffs(self, s: State) -> list[float]:
        """Each seat's payoff scaled from the declared range to 0..1; one outside the range is the spec's error."""
        fn, lo, hi, span = self.payoff
        env = {}
        out = []
        for p in s.t.P[:self.n]:
            env[self.var] = p
            v = fn(s, env)
            if type(v) is not int or not lo <= v <= hi:
                raise SpecRuntimeError(f"{p} has a payoff of {v}, outside the declared {lo}..{hi}", span,
                                       "widen the payoff's range in the winner line, or check how it is computed")
            out.append((v - lo) / (hi - lo))
        return out

    def _places(self, s: State) -> tuple[list[int], list[float]]:
        """_ranked's places and margins."""
        place, margin, _ = self._ranked(s)
        return place, margin

    def _ranked(self, s: State) -> tuple[list[int], list[float], list | None]:
        """The first group of the winner line's ranking of its candidates (None where it cannot be made; [] for no
        candidate or no winner line), and each seat's place (how many rank ahead of it) and its lead on the first numeric key.  Seats the line's
        `where` leaves out rank behind every candidate, among themselves by the same keys, so a seat still short
        of what it takes to be a candidate (a count the line asks a candidate to reach) is told nearer from further."""
        n = self.n
        place = [n] * n
        margin = [0.0] * n
        if self.candidates is None:
            return place, margin, []
        try:
            items, env = self.candidates(s, {})
            groups = self._rank(s, list(items), env)
            rest: list = []
            if self.everyone is not None:
                every, _ = self.everyone(s, {})
                if all(type(p) is PlayerRef for p in every):  # a player is equal only to itself: kept by identity
                    kept = set(map(id, items))
                    left = [p for p in every if id(p) not in kept]
                else:
                    kept = set(items)
                    left = [p for p in every if p not in kept]
                rest = self._rank(s, left, env)
                every = list(every)
            else:
                every = list(items)
        except Exception:  # a key the game cannot compute (none for a seat): no finer reading
            return place, margin, None
        ahead = 0
        for g in groups + rest:
            for p in g:
                if type(p) is PlayerRef:
                    place[p.i] = ahead
            ahead += len(g)
        if self.keys:
            fn, desc = self.keys[0]
            inner = dict(env)
            values = {}
            for p in every:
                if type(p) is not PlayerRef:
                    continue
                inner[self.var] = p
                try:
                    v = fn(s, inner)
                except Exception:
                    v = None
                if type(v) is int:
                    values[p.i] = v if desc else -v
            if len(values) > 1:
                # each seat's lead over the best of the others: the top value's, unless the seat alone holds it (then
                # the best of the rest)
                vals = list(values.values())
                top = max(vals)
                second = top if vals.count(top) > 1 else max(u for u in vals if u != top)
                for i, v in values.items():
                    margin[i] = float(v - (second if v == top else top))
        return place, margin, (groups[0] if groups else [])

    def _rank(self, s: State, items: list, env: dict) -> list[list]:
        """The winner line's full ranking of `items` (every group parted by every key)."""
        if self.ranker is None:
            return rank_groups(s, items, dict(env), self.var, self.keys, self.span)
        return rank_by(s, items, env, self.ranker, self.descs)

    def values(self, state: State, rng: random.Random | None = None, spare: bool = False) -> list[float]:
        """Every seat's value of `state` in 0..1 (see Outcome.soft)."""
        o = self.outcome(state, rng, spare)
        return [o.soft(i, self.n) for i in range(self.n)]


def _run_added(s: State, op, body, env: dict, added: tuple) -> tuple | None:
    """Run a pass's body with the columns it only adds to (PassMemo.added) watched: for each, (player, change,
    lowest, highest) per player written; None where one cannot be replayed (written other than one player at a
    time, or a give found the supply short)."""
    cols = []
    for name, _, token in added:
        table = s.pv if token else s.vp
        col = table[name]
        cols.append((table, name, col, Added(col), s.supply[name] if token else 0))
        table[name] = cols[-1][3]
    short = _shorts(s, added)
    try:
        op(s, Frame(body, env))
    finally:
        for table, name, col, watched, _ in cols:
            col[:] = watched
            table[name] = col
    if _shorts(s, added) != short:
        return None
    out = []
    for (_, name, _, watched, start), (_, dom, token) in zip(cols, added):
        entries = watched.record()
        if entries is None:
            return None
        if not entries:
            continue
        total = 0
        for _, d, _, _ in entries:
            total += d
        if token and s.supply[name] != start - total:
            return None
        # per player: the change, and the values it may start from so that every running total stays in range
        lo, hi = (-math.inf, math.inf) if dom is None else (dom.lo, dom.hi)
        out.append((name, token, total, tuple((i, d, lo - low, hi - high) for i, d, low, high in entries)))
    return tuple(out)


def _shorts(s: State, added: tuple) -> int:
    """How many gives of the watched tokens have found their supply short so far (State.mark's count)."""
    tokens = {name for name, _, token in added if token}
    if not tokens:
        return 0
    return sum(n for (kind, site), n in s.marks.items() if kind == "short_supply" and site[0] in tokens)


def _added(s: State, changes: tuple) -> bool:
    """Add a remembered pass's changes to the scores and tokens it adds to (PassMemo.added; _run_added's
    record: name, whether a token, the total, and per player the change and the range of values it may start
    from) where each player's value lies in that range, so that every running total stays in its declared range
    as each award or give checks it, and each token's supply covers all that was given (so that no give is
    short); False (nothing added) where not."""
    vp, pv, supply = s.vp, s.pv, s.supply
    for name, token, total, entries in changes:
        if token:
            if supply[name] < total:
                return False
            col = pv[name]
        else:
            col = vp[name]
        for i, _, least, most in entries:
            if not least <= col[i] <= most:
                return False
    for name, token, total, entries in changes:
        col = (pv if token else vp)[name]
        for i, d, _, _ in entries:
            col[i] += d
        if token:
            supply[name] -= total
    return True


def finish_now(state: State, rng: random.Random, spare: bool = False, drawn: list | None = None,
               memo: bool = False, winner: bool = True) -> State:
    """`state` (or a copy) with the end-of-game scoring and winner line run now
    (or, if they are running, run on to their end).  Choices inside the
    scoring take the first legal move; chance is sampled (and counted in
    drawn[0] where given).  With `memo` (a bot's copy, whose marks no one reads), the defs that cannot change
    while the game ends (reads.steady_defs) are worked out once per arguments: a ranking inside one counts the
    ties it settles once, not at every call, so the copy's marks may differ; nothing else does.  The memo stays
    on the state returned until the caller drops it.  Without `winner`, an ending begun here runs its scoring but
    not the winner line (unless the scoring ends the game itself): the caller decides the winners (Evaluator._decided)."""
    s = state if spare else state.clone()
    if memo:
        s.memo = {}
    if not s.ending:  # already in the end-of-game scoring: carry on with it rather than score twice
        s.pending = None
        s.frames = [Frame(s.t.rules.end_ops if winner else s.t.rules.scoring_ops, {})]
        s.run()
    steps = 0
    while not s.is_terminal() and steps < SCORING_STEPS:
        if s.current_player() == CHANCE:
            if drawn is not None:
                drawn[0] += 1
            s.apply_chance(s.sample_chance(rng))
        else:
            s.apply(0)
        steps += 1
    return s


def evaluator(tables) -> Evaluator:
    """The tables' evaluator, built once per tables."""
    ev = getattr(tables, "_evaluator", None)
    if ev is None:
        ev = tables._evaluator = Evaluator(tables)
    return ev
