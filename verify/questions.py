"""The designer's own `invariant` and `question` blocks, answered three ways.

* **proved**: z3 shows the answer for every game under the *declared domains*
  abstraction: every part of the expression that reads the state (a
  variable, a token holding, a count of cards, a score, the round) is an
  unknown number or truth anywhere in its declared domain, and the rest is
  translated exactly (comparisons, and/or/not, +, - and * by a constant,
  quantifiers over the players, defs).  What the translation does not model
  becomes a free truth, so the abstraction only ever allows more states than
  play reaches: "cannot happen" and "always so" proved this way hold in play.
* **witnessed**: a real game shows it (it happens, or it fails); the log is
  replayed and the expression worked out again at the step before it is
  reported.
* **unknown**: neither within the budget; never a pass.

A question is looked at in every state a game reaches (after the setup
starts: each state where the game waits for a decision or a chance event,
and the final state), or with `at end` in the final state only.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Iterable

import attrs

from soan.dsl import ir
from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.play import GameRecord, ReplayMismatch, play_game, replay
from soan.interpreter.runtime import Tables
from soan.interpreter.state import State

from . import solver
from .bounds import Bounds, Joined
from .findings import Finding
from .search import Witness, account_around, bots_for, confirm

PROPERTY = "questions"


# ---- working out a question on a state -------------------------------------------------------------


class Evaluator:
    """A question's expression on a state: True, False, or the reason it
    cannot be worked out there.  Reading a ruling or breaking a tie inside
    the question leaves no trace in the game (its log and marks stay as the
    rules made them)."""

    def __init__(self, tables: Tables, q: ir.Question):
        self.fn = tables.rules.x(q.expr)
        self.q = q

    def __call__(self, st: State) -> tuple[bool | None, str | None]:
        saved = (st.consulted, st.marks, st.first_marks, st.mark_events)
        st.consulted, st.marks = set(saved[0]), dict(saved[1])
        st.first_marks, st.mark_events = dict(saved[2]), dict(saved[3])
        try:
            return bool(self.fn(st, {})), None
        except SpecRuntimeError as e:
            return None, f"line {e.span.line}: {e.message}" if e.span.line else e.message
        except RecursionError:
            return None, "it cannot be worked out here: a def calls itself too deeply"
        except (AttributeError, TypeError) as e:  # e.g. vp(none): the question's own mistake, reported as such
            return None, f"it cannot be worked out here: a value is none or of the wrong kind ({e})"
        finally:
            st.consulted, st.marks, st.first_marks, st.mark_events = saved


# ---- watching games -------------------------------------------------------------------------------------


@attrs.define
class Observation:
    """What the games showed about one question."""

    question: ir.Question
    games: int = 0
    states: int = 0
    hit: Witness | None = None  # can: the shortest game where it holds; always/invariant: where it fails
    error: Witness | None = None  # the shortest game where it cannot be worked out
    error_message: str = ""
    error_states: int = 0
    steered: int = 0  # games steered towards the answer (verify/situations.py), apart from `games`
    steered_states: int = 0


@attrs.define
class Watch:
    observations: dict[str, Observation]
    games: int = 0
    seconds: float = 0.0
    stopped: int = 0  # games a rule error stopped (soan verify and soan run report those)
    stop_message: str = ""


def _keep(old: Witness | None, new: Witness) -> Witness:
    if old is None or (new.length, new.step) < (old.length, old.step):
        return new
    return old


def watch_games(tables: Tables, questions: Iterable[ir.Question], records: Iterable[GameRecord] = (),
                seconds: float = 10.0, seed: int = 0, max_games: int | None = None,
                progress: Callable[[int, float], None] | None = None, settle: set[str] | None = None) -> Watch:
    """Work the questions out on the states of games: first on `records`
    (games already played, e.g. by the verify search), then on seeded games
    (seed, seed+1, ...; random bots, greedy every sixteenth) until every question
    has its answer, `max_games` games are played (then the time does not
    matter: the same verdicts every run), or `seconds` are spent.  For each
    question the shortest game that answers it is kept, with the step."""
    questions = list(questions)
    evals = {q.name: Evaluator(tables, q) for q in questions}
    obs = {q.name: Observation(q) for q in questions}
    w = Watch(obs)
    start = time.perf_counter()

    def settled() -> bool:  # every question in `settle` (default: all) has its answer
        return all(o.hit is not None or (o.question.kind != "can" and o.error is not None)
                   for name, o in obs.items() if settle is None or name in settle)

    def one(play: Callable[[Callable[[State], None]], GameRecord | State], record: GameRecord | None) -> None:
        found: dict[tuple[str, str], tuple[int, str | None]] = {}  # (question, "hit" | "error") -> (step, why)
        done: set[str] = set()

        def on_step(st: State) -> None:
            for q in questions:
                if q.name in done or (q.at_end and not st.is_terminal()):
                    continue
                o = obs[q.name]
                o.states += 1
                value, err = evals[q.name](st)
                if err is not None:
                    o.error_states += 1
                    found.setdefault((q.name, "error"), (st.steps, err))
                    if q.kind != "can":  # a state where it cannot be worked out answers always/invariant
                        done.add(q.name)
                elif value == (q.kind == "can"):
                    found[(q.name, "hit")] = (st.steps, None)
                    done.add(q.name)

        try:
            out = play(on_step)
        except (SpecRuntimeError, ReplayMismatch, RuntimeError, ValueError, IndexError, KeyError) as e:
            w.stopped += 1  # a rule error (or a log that does not fit): soan verify and soan run report those
            w.stop_message = w.stop_message or (e.message if isinstance(e, SpecRuntimeError) else str(e))
            return
        rec = record if record is not None else out
        w.games += 1
        for o in obs.values():
            o.games += 1
        for (name, kind), (step, err) in found.items():
            o = obs[name]
            if kind == "hit":
                o.hit = _keep(o.hit, Witness(rec, step))
            else:
                new = _keep(o.error, Witness(rec, step))
                if new is not o.error:
                    o.error, o.error_message = new, err or ""

    seen = set()
    for rec in records:
        if settled() and settle is None:  # with `settle`, the others are watched on every record too
            break
        seen.add((rec.log["seed"], tuple(rec.log["bots"])))
        if all(q.at_end for q in questions):  # the final state is at hand: no need to play the game again
            one(lambda on_step, rec=rec: (on_step(rec.state), rec)[1], rec)
        else:
            one(lambda on_step, rec=rec: replay(tables, rec.log, on_step=on_step), rec)
    g = 0
    while not settled():
        if (max_games is not None and g >= max_games) or time.perf_counter() - start >= seconds:
            break  # with a number of games, the seconds are only the wall-clock limit
        bots = bots_for(g, tables.n)
        if (seed + g, tuple(bots)) not in seen:
            one(lambda on_step, s=seed + g, b=bots: play_game(tables, s, b, on_step=on_step), None)
        g += 1
        if progress:
            progress(w.games, time.perf_counter() - start)
    w.seconds = time.perf_counter() - start
    return w


def shows(tables: Tables, q: ir.Question, w: Witness, expect_error: bool = False) -> bool:
    """Replay a witness (same course, same result) and work the question out
    again at its step: it must show what it is reported to show."""
    if not confirm(tables, w):
        return False
    ev = Evaluator(tables, q)
    seen: list[tuple[bool | None, str | None]] = []

    def on_step(st: State) -> None:
        if st.steps == w.step and (not q.at_end or st.is_terminal()):
            seen.append(ev(st))

    try:
        replay(tables, w.record.log, on_step=on_step)
    except Exception:
        return False
    if not seen:
        return False
    value, err = seen[0]
    if expect_error:
        return err is not None
    return err is None and value == (q.kind == "can")


# ---- the abstraction for z3 ----------------------------------------------------------------------------


class _Opaque(Exception):
    """A part of the expression the abstraction does not model exactly."""


Term = tuple  # (kind, value): ("int", formula) ("bool", formula) ("player", seat index) ("sym", name) ("none", None)


class Abstraction:
    """An expression as a formula over unknowns, each within its declared
    domain.  Only over-approximates: every state of a real game gives the
    unknowns values that make the formula as true as the expression is."""

    def __init__(self, tables: Tables, bounds: "Bounds | Joined"):
        self.t, self.b, self.n = tables, bounds, tables.n
        self.ranges: dict[str, tuple[int | None, int | None]] = {}
        self._names: dict = {}
        self.may_fail = False  # some part might not be worked out in some state (a none compared, ...)
        self.free: list[ir.Node] = []  # parts modelled as free truths or numbers
        self.rulings: set[str] = set()
        self._zones = False
        self._tokens: set[str] = set()
        self._fresh = 0
        self._stack: list[str] = []

    # ---- unknowns

    def _var(self, kind: str, key, lo=None, hi=None) -> tuple:
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = f"{kind[0]}{len(self._names)}"
            if kind == "ivar":
                self.ranges[name] = (lo, hi)
        return (kind, name)

    def _key(self, node: ir.Node, env: dict) -> tuple:
        """Equal nodes with equal bindings of their free names have equal
        values in one state, so they may share an unknown; anything else gets
        its own."""
        names = {n.name for n in ir.walk(node) if isinstance(n, ir.Local)}
        bound = {getattr(n, "var", None) for n in ir.walk(node) if isinstance(n, ir.Agg | ir.ListComp | ir.Ranking)}
        if any(x not in env and x not in bound for x in names):
            self._fresh += 1
            return ("fresh", self._fresh)
        return (node, tuple(sorted((k, env[k]) for k in names if k in env)))

    def _free_truth(self, e: ir.Expr, env: dict) -> tuple:
        self.may_fail = True
        self.free.append(e)
        return self._var("bvar", ("truth",) + self._key(e, env))

    # ---- truths

    def truth(self, e: ir.Expr, env: dict) -> tuple:
        """The formula for 'e counts as true'."""
        if isinstance(e, ir.Call) and e.func in self.t.rules.defs_ir:
            return self._inline(e, env, self.truth, lambda: self._free_truth(e, env))
        match e:
            case ir.BinOp(op="and" | "or", left=a, right=b):
                return (e.op, self.truth(a, env), self.truth(b, env))
            case ir.Not(operand=o):
                return ("not", self.truth(o, env))
            case ir.Cond(test=c, then=a, orelse=b):
                return ("ite", self.truth(c, env), self.truth(a, env), self.truth(b, env))
            case ir.Agg(func="all" | "any") if self._players(e.coll, env) is not None:
                return self._quantify(e, env)
        try:
            kind, v = self.term(e, env)
        except _Opaque:
            return self._free_truth(e, env)
        return _truthy(kind, v)

    def _players(self, coll: ir.Expr, env: dict) -> int | None:
        """How many players a collection holds, when it is every player (in some order)."""
        match coll:
            case ir.AllPlayers():
                return self.n
            case ir.PlayersFrom(start=s):
                try:
                    kind, _ = self.term(s, env)
                except _Opaque:
                    return None
                return self.n if kind == "player" else None
        return None

    def _each(self, var: str, where: ir.Expr | None, env: dict):
        for i in range(self.n):
            inner = {**env, var: ("player", i)}
            yield inner, (self.truth(where, inner) if where is not None else ("bool", True))

    def _quantify(self, e: ir.Agg, env: dict) -> tuple:
        where, value = e.where, e.value
        if value is None and where is not None:  # all/any(x in C where P): P for every/some x
            where, value = None, where
        parts = []
        for inner, keep in self._each(e.var, where, env):
            holds = self.truth(value, inner) if value is not None else ("bool", True)  # a player counts as true
            parts.append(("and", keep, holds) if e.func == "any" else ("implies", keep, holds))
        return _fold("or" if e.func == "any" else "and", parts, ("bool", e.func == "all"))

    def _inline(self, e: ir.Call, env: dict, how, otherwise):
        """A def's body in place of the call, its parameters bound to the
        arguments (a def sees nothing of its caller's names)."""
        d = self.t.rules.defs_ir[e.func]
        if e.func in self._stack:  # recursion is not unfolded
            return otherwise()
        inner = {}
        for name, a in zip(d.params, e.args):
            try:
                inner[name] = self.term(a, env)
            except _Opaque:
                return otherwise()
        self._stack.append(e.func)
        try:
            return how(d.body, inner)
        finally:
            self._stack.pop()

    def _raise(self):
        raise _Opaque

    # ---- values

    def term(self, e: ir.Expr, env: dict) -> Term:
        t = self.t
        if isinstance(e, ir.Call) and e.func in t.rules.defs_ir:
            return self._inline(e, env, self.term, self._raise)
        match e:
            case ir.Int(value=v):
                return ("int", ("int", v))
            case ir.Bool(value=v):
                return ("bool", ("bool", v))
            case ir.NoneLit():
                return ("none", None)
            case ir.Symbol(name=name):
                return ("sym", name)
            case ir.Builtin(name="player_count"):
                return ("int", ("int", self.n))
            case ir.Builtin(name="round"):
                iv = self.b.interval(e) or (0, None)
                return ("int", self._var("ivar", ("round",), *iv))
            case ir.Param(name=name):
                v = t.params[name]
                if t.param_kind.get(name) == "ruling":
                    self.rulings.add(name)
                if isinstance(v, bool):
                    return ("bool", ("bool", v))
                if isinstance(v, int):
                    return ("int", ("int", v))
                if isinstance(v, str):
                    return ("sym", v)
            case ir.GlobalVar(name=name):
                d = t.global_vars[name].domain
                if isinstance(d, ir.IntDomain):
                    return ("int", self._var("ivar", ("gv", name), d.lo, d.hi))
                if isinstance(d, ir.BoolDomain):
                    return ("bool", self._var("bvar", ("gv", name)))
            case ir.Local(name=name) if name in env:
                return env[name]
            case ir.Call(func="player", args=(a,)):
                kind, v = self.term(a, env)
                if kind == "int" and v[0] == "int" and 1 <= v[1] <= self.n:
                    return ("player", v[1] - 1)
            case ir.Call(func="next", args=(a,)):
                kind, v = self.term(a, env)
                if kind == "player":
                    return ("player", (v + 1) % self.n)
            case ir.Attr(obj=obj, name=name):
                return self._attr(e, obj, name, env)
            case ir.Call(func="vp", args=args):
                return self._vp(args, env)
            case ir.Call(func="supply", args=(ir.Symbol(name=tok),)):
                self._tokens.add(tok)
                return ("int", self._var("ivar", ("supply", tok), 0, self._supply_cap(tok)))
            case ir.Call(func="count" | "size", args=(coll,)):
                return self._count(e, coll, None, None, env)
            case ir.Agg(func="count" | "size"):
                return self._count(e, e.coll, e.var, e.where, env)
            case ir.Agg(func="sum", value=value) if value is not None and self._players(e.coll, env) is not None:
                total = ("int", 0)
                for inner, keep in self._each(e.var, e.where, env):
                    kind, v = self.term(value, inner)
                    if kind != "int":
                        raise _Opaque
                    total = ("add", total, ("ite", keep, v, ("int", 0)))
                return ("int", total)
            case ir.Agg(func="all" | "any") if self._players(e.coll, env) is not None:
                return ("bool", self._quantify(e, env))
            case ir.Agg(func="max" | "min", where=None, value=value) if value is not None \
                    and self._players(e.coll, env) is not None:
                # over every player (never empty): the largest or smallest of their values
                vs = []
                for inner, _ in self._each(e.var, None, env):
                    kind, v = self.term(value, inner)
                    if kind != "int":
                        raise _Opaque
                    vs.append(v)
                out = vs[0]
                for v in vs[1:]:
                    out = ("ite", ("lt", v, out) if e.func == "min" else ("lt", out, v), v, out)
                return ("int", out)
            case ir.Call(func="abs", args=(a,)):
                v = self._int(a, env)
                return ("int", ("ite", ("lt", v, ("int", 0)), ("neg", v), v))
            case ir.Call(func="min" | "max", args=args) if len(args) > 1:
                vs = [self._int(a, env) for a in args]
                out = vs[0]
                for v in vs[1:]:
                    better = ("lt", v, out) if e.func == "min" else ("lt", out, v)
                    out = ("ite", better, v, out)
                return ("int", out)
            case ir.BinOp(op="+" | "-", left=a, right=b):
                return ("int", ("add" if e.op == "+" else "sub", self._int(a, env), self._int(b, env)))
            case ir.BinOp(op="*", left=a, right=b):
                x, y = self._int(a, env), self._int(b, env)
                if x[0] != "int" and y[0] != "int":
                    raise _Opaque  # a product of two unknowns is left to the interval of the whole
                return ("int", ("mul", x, y))
            case ir.Neg(operand=o):
                return ("int", ("neg", self._int(o, env)))
            case ir.Cond(test=c, then=a, orelse=b):
                ka, va = self.term(a, env)
                kb, vb = self.term(b, env)
                if ka == kb and ka in ("int", "bool"):
                    return (ka, ("ite", self.truth(c, env), va, vb))
            case ir.BinOp(op="==" | "!=", left=a, right=b):
                same = self._same(a, b, env)
                return ("bool", same if e.op == "==" else ("not", same))
            case ir.BinOp(op="<" | "<=" | ">" | ">=", left=a, right=b):
                x, y = self._ordered(a, env), self._ordered(b, env)
                if e.op in (">", ">="):
                    x, y = y, x
                return ("bool", ("lt" if e.op in ("<", ">") else "le", x, y))
            case ir.BinOp(op="and" | "or") | ir.Not():
                return ("bool", self.truth(e, env))
        raise _Opaque

    def _int(self, e: ir.Expr, env: dict) -> tuple:
        kind, v = self.term(e, env)
        if kind != "int":
            raise _Opaque
        return v

    def _ordered(self, e: ir.Expr, env: dict) -> tuple:
        """A side of <, <=, >, >=.  A part that is not modelled exactly but has
        a bound may stand as a number within it: were it none or not a
        number, the comparison could not be worked out, which never makes
        it true (and is noted as a possible failure)."""
        try:
            return self._int(e, env)
        except _Opaque:
            iv = self.b.interval(e)
            if iv is None:
                raise
            self.may_fail = True
            self.free.append(e)
            return self._var("ivar", ("num",) + self._key(e, env), *iv)

    def _same(self, a: ir.Expr, b: ir.Expr, env: dict) -> tuple:
        ka, va = self.term(a, env)
        kb, vb = self.term(b, env)
        if ka != kb:
            return ("bool", False)  # true is never 1, a player never a number, none only none
        if ka == "int":
            return ("eq", va, vb)
        if ka == "bool":
            return ("iff", va, vb)
        return ("bool", va == vb)

    def _attr(self, e: ir.Attr, obj: ir.Expr, name: str, env: dict) -> Term:
        t = self.t
        kind, i = self.term(obj, env)
        if kind == "none":
            return ("none", None)  # an attribute of none is none
        if kind != "player":
            raise _Opaque
        if name == "seat":
            return ("int", ("int", i + 1))
        if name == "eliminated":
            return ("bool", self._var("bvar", ("eliminated", i)))
        if name in t.tokens:
            self._tokens.add(name)
            return ("int", self._holding(name, i))
        if name in t.player_vars:
            d = t.player_vars[name].domain
            if isinstance(d, ir.IntDomain):
                return ("int", self._var("ivar", ("pv", name, i), d.lo, d.hi))
            if isinstance(d, ir.BoolDomain):
                return ("bool", self._var("bvar", ("pv", name, i)))
        raise _Opaque

    def _holding(self, tok: str, i: int) -> tuple:
        d = self.t.tokens[tok].hold
        # every holding starts at 0, whatever the hold domain, and a return never takes it below
        hi = max(d.hi, 0) if isinstance(d, ir.IntDomain) else None
        return self._var("ivar", ("pv", tok, i), 0, hi)

    def _vp(self, args, env: dict) -> Term:
        kind, i = self.term(args[0], env)
        if kind != "player":
            raise _Opaque
        doms = self.t.score_domains
        if len(args) == 2:
            if not isinstance(args[1], ir.Symbol):
                raise _Opaque
            item = args[1].name
            d = doms.get(item)
            # every item starts at 0, even one whose domain leaves 0 out; awards keep it in the domain after
            lo, hi = (min(d.lo, 0), max(d.hi, 0)) if isinstance(d, ir.IntDomain) else (None, None)
            lo, hi = _meet((lo, hi), self.b.interval(ir.Call("vp", (args[0], args[1]))))
            return ("int", self._var("ivar", ("vp", i, item), lo, hi))
        # the score range soan verify proves holds at every moment of every game
        proved = self.b.interval(ir.Call("vp", (args[0],)))
        if proved is not None:
            return ("int", self._var("ivar", ("vp", i, "total"), *proved))
        # a running total must stay in its item's domain, so a player's total lies in their sum
        items = [self._vp((args[0], ir.Symbol(s)), env)[1] for s in self.t.scores]
        return ("int", _fold("add", items, ("int", 0)))

    def _supply_cap(self, tok: str) -> int | None:
        return self.t.supply_size(tok) if self._partial(tok) else None

    def _partial(self, tok: str) -> bool:
        """A supply that never gives more than it holds: tokens are only moved
        between it and the players, so their sum stays the starting supply."""
        token = self.t.tokens[tok]
        if token.when_short == "ruling":
            self.rulings.add(token.short_ruling)
            return self.t.params[token.short_ruling] == "partial"
        return token.when_short == "partial"

    def _count(self, e: ir.Expr, coll: ir.Expr, var: str | None, where: ir.Expr | None, env: dict) -> Term:
        if isinstance(coll, ir.ListComp) and var is None and coll.value is None:
            var, where, coll = coll.var, coll.where, coll.coll  # count([x in C where P]) is count(x in C where P)
        if self._players(coll, env) is not None:
            if isinstance(e, ir.Agg) and e.value is not None:
                self.may_fail = True  # the values are worked out (and may fail) though only counted
            if where is None:
                return ("int", ("int", self.n))
            parts = [("ite", keep, ("int", 1), ("int", 0)) for _, keep in self._each(var, where, env)]
            return ("int", _fold("add", parts, ("int", 0)))
        if where is None:
            slot = self._zone_slot(coll, env)
            if slot is not None:
                self._zones = True
                return ("int", self._var("ivar", ("zone", slot), 0, self.t.n_cards))
        size = self.b.size(coll)
        self.may_fail = True  # the collection or its filter may not be worked out everywhere
        self.free.append(e)
        return ("int", self._var("ivar", ("count",) + self._key(e, env), 0, size))

    def _zone_slot(self, coll: ir.Expr, env: dict) -> int | None:
        match coll:
            case ir.SharedZone(name=name):
                return self.t.slot_of[(name, -1)]
            case ir.Attr(obj=obj, name=name) if name in self.t.player_zone_names:
                try:
                    kind, i = self.term(obj, env)
                except _Opaque:
                    return None
                return self.t.slot_of[(name, i)] if kind == "player" else None
        return None

    # ---- facts that hold in every state

    def facts(self) -> list[tuple]:
        out = []
        if self._zones:  # every card lies in exactly one zone
            slots = [self._var("ivar", ("zone", s), 0, self.t.n_cards) for s in range(len(self.t.zone_slots))]
            out.append(("eq", _fold("add", slots, ("int", 0)), ("int", self.t.n_cards)))
        for tok in sorted(self._tokens):
            if self._partial(tok):
                parts = [self._var("ivar", ("supply", tok), 0, self.t.supply_size(tok))]
                parts += [self._holding(tok, i) for i in range(self.n)]
                out.append(("eq", _fold("add", parts, ("int", 0)), ("int", self.t.supply_size(tok))))
        return out


def _truthy(kind: str, v) -> tuple:
    if kind == "int":
        return ("not", ("eq", v, ("int", 0)))
    if kind == "bool":
        return v
    return ("bool", kind != "none")  # players and symbols count as true, none as false


def _fold(op: str, parts: list, empty: tuple) -> tuple:
    if not parts:
        return empty
    out = parts[0]
    for p in parts[1:]:
        out = (op, out, p)
    return out


@attrs.frozen
class Proof:
    status: str  # "proved" | "unknown"
    reason: str = ""
    rulings: tuple[str, ...] = ()


def prove(tables: Tables, q: ir.Question, bounds: Bounds | None = None) -> Proof:
    """Try to answer a question for every game under the declared-domains
    abstraction: `can E` proved impossible when no values make E true;
    `always E` and invariants proved when none make it false."""
    a = Abstraction(tables, bounds or bounds_of(tables))
    formula = a.truth(q.expr, {})
    facts = a.facts()
    goal = formula if q.kind == "can" else ("not", formula)
    status, why = solver.satisfiable(_fold("and", [goal] + facts, ("bool", True)), a.ranges)
    rulings = tuple(sorted(a.rulings))
    if status == "unsat":
        if q.kind != "can" and a.may_fail:
            return Proof("unknown", "z3 finds no values that make it false, but some part of it might not be "
                                    "worked out in some state (a none compared, a missing field)", rulings)
        return Proof("proved", "", rulings)
    if status == "sat":
        what = "true" if q.kind == "can" else "false"
        free = f" ({len(a.free)} part{'s' if len(a.free) != 1 else ''} left free)" if a.free else ""
        return Proof("unknown", f"the declared domains allow values that make it {what}{free}", rulings)
    return Proof("unknown", why, rulings)


# ---- findings -----------------------------------------------------------------------------------------


def _rulings_read(tables: Tables, e: ir.Expr) -> set[str]:
    out, seen, todo = set(), set(), [e]
    while todo:
        for n in ir.walk(todo.pop()):
            if isinstance(n, ir.Param) and tables.param_kind.get(n.name) == "ruling":
                out.add(n.name)
            elif isinstance(n, ir.Call) and n.func in tables.rules.defs_ir and n.func not in seen:
                seen.add(n.func)
                todo.append(tables.rules.defs_ir[n.func].body)
    return out


def question_text(spec: ir.Spec, q: ir.Question) -> str:
    """What a question asks: its own words, else the expression as written."""
    if q.text:
        return q.text
    sp = q.expr.span
    lines = spec.text_of(sp.path).splitlines()
    if 0 < sp.line <= sp.end_line <= len(lines):
        part = lines[sp.line - 1: sp.end_line]
        part[-1] = part[-1][: sp.end_col - 1]
        part[0] = part[0][sp.col - 1:]
        written = " ".join(x.strip() for x in part)
        head = {"can": "can ", "always": "always ", "invariant": ""}[q.kind]
        return head + written + (" at end" if q.at_end else "")
    return q.name


def _where(q: ir.Question) -> str:
    return "at the end of a game" if q.at_end else "in a state of a game"


def _meet(a: tuple, b: tuple | None) -> tuple:
    """The tighter of two ranges (None on a side: no bound there)."""
    if b is None:
        return a
    lo = b[0] if a[0] is None else a[0] if b[0] is None else max(a[0], b[0])
    hi = b[1] if a[1] is None else a[1] if b[1] is None else min(a[1], b[1])
    return (lo, hi)


def bounds_of(tables: Tables) -> "Joined":
    """The same abstraction `soan verify` reads: one Bounds per outcome of the setup's opening picks."""
    from .flow import setup_branches

    return Joined([Bounds(tables, loc) for _, loc in setup_branches(tables)])


def check_questions(tables: Tables, questions: Iterable[ir.Question], records: Iterable[GameRecord] = (),
                    budget_left: float = 10.0, *, seed: int = 0, max_games: int | None = None,
                    witness_dir: Path | None = None, bounds: "Bounds | Joined | None" = None,
                    progress: Callable[[str], None] | None = None) -> list:
    """One finding (property "questions") per question or invariant, in order.

    z3 is tried first; the questions it does not settle are worked out on the
    states of `records` and then of seeded games (`watch_games`) for at most
    `budget_left` seconds, or exactly `max_games` games.  Witnesses are
    replayed before they are reported and written to `witness_dir`."""
    questions = list(questions)
    say = progress or (lambda msg: None)
    bounds = bounds or bounds_of(tables)
    proofs = {}
    for q in questions:
        say(f"proving question {q.name}")
        proofs[q.name] = prove(tables, q, bounds)
    open_qs = [q for q in questions if proofs[q.name].status != "proved"]
    say("playing games for the questions")
    # Proved questions are watched too, on every game: a proof a game contradicts is a bug in soan.
    watch = watch_games(tables, questions, records, budget_left if open_qs else 0.0, seed,
                        max_games if open_qs else 0,
                        progress=lambda g, sec: say(f"questions: {g} games, {sec:.0f}s"),
                        settle={q.name for q in open_qs})
    may_play = max_games != 0 and (max_games is not None or budget_left > 0)
    for q in open_qs if may_play else []:
        o = watch.observations[q.name]
        if o.hit is None and not (q.kind != "can" and o.error is not None):
            _steer(tables, q, o, seed, say)
    for q in questions:
        o = watch.observations[q.name]
        if proofs[q.name].status == "proved" and o.hit is not None and shows(tables, q, o.hit):
            from .crosscheck import UnsoundProof

            path, _ = _save(tables, q, o.hit, witness_dir)
            raise UnsoundProof(f"soan proved the answer to question '{q.name}', but a game shows otherwise; "
                               f"the game is saved at {path}")
    return [_finding(tables, q, proofs[q.name], watch, witness_dir) for q in questions]


def _steer(tables: Tables, q: ir.Question, o: Observation, seed: int, say: Callable[[str], None]) -> None:
    """A question no game answered: a few games steered towards its answer (verify/situations.py),
    watched like the others and counted into `o`."""
    from . import situations

    say(f"questions: games steered towards {q.name}")
    found = None
    if q.at_end:  # the final state is at hand: stop at the first game that answers it
        ev, want = Evaluator(tables, q), q.kind == "can"

        def found(rec: GameRecord) -> bool:
            return ev(rec.state)[0] is want
    recs = situations.steered_games(tables, situations.question_steer(tables, q), seed, found=found)
    m = watch_games(tables, [q], recs, 0.0, seed, 0).observations[q.name]
    o.steered, o.steered_states, o.error_states = m.games, m.states, o.error_states + m.error_states
    if m.hit is not None:
        o.hit = _keep(o.hit, m.hit)
    if m.error is not None:
        new = _keep(o.error, m.error)
        if new is not o.error:
            o.error, o.error_message = new, m.error_message


def _finding(tables: Tables, q: ir.Question, proof: Proof, watch: Watch | None, witness_dir: Path | None):
    text = question_text(tables.spec, q)
    depends = sorted(_rulings_read(tables, q.expr) | set(proof.rulings))
    bounds = {"kind": q.kind, "at_end": q.at_end, "answer": None, "games": 0, "states": 0, "step": None}
    if proof.status == "proved":
        if q.kind == "can":
            bounds["answer"] = "no"
            return Finding(PROPERTY, q.name, "proved", f"{text} — no: it cannot happen",
                           "no values within the declared domains make it true (z3); every variable, holding, "
                           "count and score is taken anywhere in its domain", bounds=bounds, depends_on=depends)
        bounds["answer"] = "yes"
        claim = f"{text} — holds in every state" if q.kind == "invariant" else f"{text} — yes: always"
        return Finding(PROPERTY, q.name, "proved", claim,
                       f"no values within the declared domains make it false {_where(q)} (z3)",
                       bounds=bounds, depends_on=depends)
    o = watch.observations[q.name]
    bounds.update(games=o.games, states=o.states)
    played = f"{o.games} game{'s' if o.games != 1 else ''} ({o.states} state{'s' if o.states != 1 else ''} looked at)"
    if watch.stopped:
        played += f"; {watch.stopped} more stopped at a rule error ({watch.stop_message})"
    if o.hit is not None and shows(tables, q, o.hit):
        path, moves = _save(tables, q, o.hit, witness_dir)
        log = o.hit.record.log
        bounds["step"] = o.hit.step
        seats = ("every seat steered towards it" if set(log["bots"]) == {"directed"}  # search.directed_games' games
                 else f"bots {', '.join(log['bots'])}")
        where = f"at step {o.hit.step} of {len(log['steps'])} (seed {log['seed']}, {seats})"
        deps = sorted(set(depends) | set(log["consulted_rulings"]))
        if q.kind == "can":
            bounds["answer"] = "yes"
            return Finding(PROPERTY, q.name, "witnessed", f"{text} — yes: it can happen",
                           f"a game reaches it {where}; replayed", witness=path, moves=moves, depends_on=deps,
                           bounds=bounds)
        bounds["answer"] = "no"
        claim = f"{text} — broken: it can fail" if q.kind == "invariant" else f"{text} — no: it can fail"
        return Finding(PROPERTY, q.name, "witnessed", claim, f"a game where it is false {where}; replayed",
                       problem=True, witness=path, moves=moves, depends_on=deps, bounds=bounds)
    if q.kind != "can" and o.error is not None and shows(tables, q, o.error, expect_error=True):
        path, moves = _save(tables, q, o.error, witness_dir)
        log = o.error.record.log
        bounds["step"] = o.error.step
        return Finding(PROPERTY, q.name, "witnessed", f"{text} — cannot be worked out in every state",
                       f"at step {o.error.step} (seed {log['seed']}): {o.error_message}", problem=True,
                       witness=path, moves=moves, depends_on=sorted(set(depends) | set(log["consulted_rulings"])),
                       bounds=bounds)
    if o.steered:
        played += f", nor in {o.steered} game{'s' if o.steered != 1 else ''} steered towards it ({o.steered_states} states)"
    seen = ("never true" if q.kind == "can" else "never false") + f" {_where(q)} in {played}"
    if o.error_states:
        seen += f"; could not be worked out in {o.error_states} state(s): {o.error_message}"
    return Finding(PROPERTY, q.name, "unknown", text, f"{seen}; no proof: {proof.reason}",
                   bounds=bounds, depends_on=depends)


def _save(tables: Tables, q: ir.Question, w: Witness, witness_dir: Path | None) -> tuple[str | None, list[str]]:
    path = None
    if witness_dir is not None:
        witness_dir.mkdir(parents=True, exist_ok=True)
        p = witness_dir / f"question-{q.name}.json"  # its own file: a search witness of the same seed may differ
        p.write_text(w.record.to_json_anywhere(), encoding="utf-8")
        path = str(p)
    return path, account(tables, q, w)


def account(tables: Tables, q: ir.Question, w: Witness, lines: int = 7) -> list[str]:
    """The account lines that show the answer: around the step, or for a
    question about the end, the end of the game (the final scoring)."""
    if not q.at_end:
        return account_around(tables, w)
    from soan.api import narrate
    from soan.interpreter.play import replay

    return narrate(replay(tables, w.record.log, narrate=True))[-lines:]


__all__ = ["check_questions", "watch_games", "prove", "Abstraction", "Evaluator", "Observation", "Watch", "PROPERTY"]
