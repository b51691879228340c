"""A sound over-approximation of a spec for a player count: how often each
statement can fire in one game, and how large the numbers it uses can be.

Firing counts multiply down the program: a `for` over the players fires its
body at most n times per firing of the loop, over a zone at most once per card
of the game, a `repeat N` N times, a `while ... max N` N times, the rounds
their count (or cap).  A value's bound comes from the declared domains
(variables, card states, die faces) and interval arithmetic.  `None` means
"no finite bound known", and any claim built on it is not made.
"""

from __future__ import annotations

import attrs

from soan.dsl import ir
from soan.interpreter.runtime import Tables

from .flow import Flow

Interval = tuple[int, int] | None


@attrs.define
class Site:
    node: ir.Stmt
    firings: int | None
    # For an award or give to a loop's player: how often one player can be
    # the one it fires for (a player appears once in a loop over players).
    per_player: int | None = None
    env: dict = attrs.field(factory=dict, repr=False)  # what the locals in scope are known to be there


class Bounds:
    def __init__(self, tables: Tables, locations: list[int] | None = None):
        self.t = tables
        self.flow = Flow(tables, locations)
        self.spec = tables.spec
        self.n = tables.n
        self.cards = tables.n_cards
        self.sites: list[Site] = []
        self._lets: list[dict[str, int | None]] = [{}]
        # local -> size of the loop of distinct players it runs over
        self._pvars: list[dict[str, int]] = [{}]
        self._stack: list[str] = []
        spec = self.spec
        self.round_bound: int | None = None
        if spec.rounds is not None:
            r = spec.rounds
            self.round_bound = self.int_max(r.count) if r.count is not None else self.int_max(r.cap)
        self.block(spec.setup, 1)
        if spec.rounds is not None:
            self.block(spec.rounds.body, self.round_bound)
            if spec.rounds.until is not None:
                self.expr_sites(spec.rounds.until, self.round_bound)
        self.block(spec.scoring, 1)

    # ---- firings

    def block(self, b: ir.Block | None, mult: int | None) -> None:
        if b is None:
            return
        self._lets.append(dict(self._lets[-1]))
        self._pvars.append(dict(self._pvars[-1]))
        for s in b.stmts:
            self.stmt(s, mult)
        self._lets.pop()
        self._pvars.pop()

    def stmt(self, s: ir.Stmt, mult: int | None) -> None:
        site = Site(s, mult, env=dict(self._lets[-1]))
        self.sites.append(site)
        match s:
            case ir.Award(player=ir.Local(name=v)) | ir.Give(player=ir.Local(name=v)) if v in self._pvars[-1]:
                k = self._pvars[-1][v]
                site.per_player = None if mult is None else mult // k if k else 0
            case ir.Award() | ir.Give():
                site.per_player = mult
            case ir.Let(name=name, value=value):
                self._lets[-1][name] = self.size(value)
                self._lets[-1]["#iv:" + name] = self.interval(value)
                self._lets[-1]["#distinct:" + name] = self._distinct_players(value)
            case ir.For(var=var, coll=coll, body=body):
                size = self.size(coll)
                if size and self._distinct_players(coll):
                    self._pvars.append({**self._pvars[-1], var: size})
                    self.block(body, _mul(mult, size))
                    self._pvars.pop()
                else:
                    self._pvars.append({k: v for k, v in self._pvars[-1].items() if k != var})
                    self.block(body, _mul(mult, size))
                    self._pvars.pop()
            case ir.Repeat(count=count, body=body):
                self.block(body, _mul(mult, self.int_max(count)))
            case ir.While(limit=limit, body=body):
                self.block(body, _mul(mult, self.int_max(limit)))
            case ir.If(branches=branches, orelse=orelse):
                for _, b in branches:
                    self.block(b, mult)
                self.block(orelse, mult)
            case ir.Choose(options=options, body=body, orelse=orelse, var=var, count_kind=kind, source=src):
                for o in options:
                    self.block(o.body, mult)
                if var is not None:
                    self._lets[-1][var] = self.size(src) if kind is not None else None
                self.block(body, mult)
                self.block(orelse, mult)
            case ir.Pick(body=body) | ir.Phase(body=body):
                self.block(body, mult)
            case ir.Do(proc=proc):
                if proc in self._stack:  # recursion: no finite bound from here
                    self._poison(proc)
                    return
                p = next(p for p in self.spec.procedures if p.name == proc)
                self._stack.append(proc)
                self._lets.append({})
                # a parameter given a loop's player still names one player per iteration
                outer = self._pvars[-1]
                self._pvars.append({name: outer[a.name] for name, a in zip(p.params, s.args)
                                    if isinstance(a, ir.Local) and a.name in outer})
                self.block(p.body, mult)
                self._pvars.pop()
                self._lets.pop()
                self._stack.pop()

    def _poison(self, proc: str) -> None:
        p = next(p for p in self.spec.procedures if p.name == proc)
        for n in ir.walk(p.body):
            if isinstance(n, ir.Stmt):
                self.sites.append(Site(n, None))

    def _distinct_players(self, e) -> bool:
        """Whether `e` is a collection of players in which no player appears twice."""
        match e:
            case ir.AllPlayers() | ir.PlayersFrom():
                return True
            case ir.Ranking(coll=coll) | ir.ListComp(coll=coll, value=None):
                return self._distinct_players(coll)
            case ir.Local(name=name):
                return bool(self._lets[-1].get("#distinct:" + name))
        return False

    def expr_sites(self, e, mult) -> None:  # conditions fire no statements
        return None

    def value_at(self, site: Site, e) -> Interval:
        """The interval of `e` as read at `site`, its locals as they were there."""
        self._lets.append(site.env)
        try:
            return self.interval(e)
        finally:
            self._lets.pop()

    # ---- sizes of collections

    def size(self, e: ir.Expr | None) -> int | None:
        match e:
            case None:
                return 0
            case ir.AllPlayers() | ir.PlayersFrom():
                return self.n
            case ir.SharedZone(name=name) | ir.Attr(name=name) if name in self.flow.zone_names:
                return len(self.flow.cards_in(name))  # the cards that can ever lie there
            case ir.SharedZone() | ir.Attr():
                return self.cards
            case ir.ListLit(items=items):
                return len(items)
            case ir.ListComp(var=var, coll=coll, where=where):
                cards = self.flow.cards_of(ir.ListComp(var, coll, where, None))
                if cards is not None:
                    return self.flow.most_alike(cards, var, where)
                return self.size(coll)
            case ir.Ranking(coll=coll):
                return self.size(coll)
            case ir.RangeExpr(lo=lo, hi=hi):
                a, b = self.int_min(lo), self.int_max(hi)
                return None if a is None or b is None else max(0, b - a + 1)
            case ir.Local(name=name):
                return self._lets[-1].get(name)
            case ir.Call(func="take", args=(_, n)):
                return self.int_max(n)
            case ir.Call(func=func, args=args) if func in self.t.rules.defs_ir:
                return self.size(self.t.rules.defs_ir[func].body)
            case ir.Cond(then=a, orelse=b):
                x, y = self.size(a), self.size(b)
                return None if x is None or y is None else max(x, y)
            case ir.BinOp(op="+", left=a, right=b):
                x, y = self.size(a), self.size(b)
                return None if x is None or y is None else x + y
        return None

    # ---- bounds of numbers

    def int_max(self, e) -> int | None:
        iv = self.interval(e)
        return None if iv is None else iv[1]

    def int_min(self, e) -> int | None:
        iv = self.interval(e)
        return None if iv is None else iv[0]

    def interval(self, e) -> Interval:
        t = self.t
        match e:
            case None:
                return None
            case ir.Int(value=v):
                return (v, v)
            case ir.Bool(value=v):
                return (int(v), int(v))
            case ir.Builtin(name="player_count"):
                return (self.n, self.n)
            case ir.Builtin(name="round"):
                return (0, self.round_bound) if self.round_bound is not None else None
            case ir.Param(name=name):
                v = t.params.get(name)
                return (v, v) if isinstance(v, int) and not isinstance(v, bool) else None
            case ir.GlobalVar(name=name):
                return _domain_interval(t.global_vars[name].domain)
            case ir.Attr(name=name):
                if name == "seat":
                    return (1, self.n)
                domains = [t.player_vars[name].domain] if name in t.player_vars else []
                domains += [t.tokens[name].hold] if name in t.tokens else []
                domains += [d for (_, f), d in t.state_domain.items() if f == name]
                domains += [f.domain for c in self.spec.components for f in c.fields if f.name == name and not f.is_state]
                ivs = [_domain_interval(d) for d in domains]
                if not ivs or any(iv is None for iv in ivs):
                    return None
                return (min(iv[0] for iv in ivs), max(iv[1] for iv in ivs))
            case ir.Neg(operand=o):
                iv = self.interval(o)
                return None if iv is None else (-iv[1], -iv[0])
            case ir.BinOp(op=op, left=a, right=b) if op in ("+", "-", "*", "//"):
                x, y = self.interval(a), self.interval(b)
                if x is None or y is None:
                    return None
                if op == "+":
                    return (x[0] + y[0], x[1] + y[1])
                if op == "-":
                    return (x[0] - y[1], x[1] - y[0])
                if op == "*":
                    prods = [p * q for p in x for q in y]
                    return (min(prods), max(prods))
                if y[1] >= 1 and y[0] >= 0:
                    # dividing by zero stops the game with an error, so every value it gives had a divisor >= 1
                    y = (max(y[0], 1), y[1])
                    quots = [p // q for p in x for q in y]
                    return (min(quots), max(quots))
                return None
            case ir.Cond(then=a, orelse=b):
                x, y = self.interval(a), self.interval(b)
                return None if x is None or y is None else (min(x[0], y[0]), max(x[1], y[1]))
            case ir.Agg(func="count") | ir.Call(func="count") | ir.Call(func="size"):
                coll = ir.ListComp(e.var, e.coll, e.where, None) if isinstance(e, ir.Agg) else e.args[0]
                s = self.size(coll)
                return None if s is None else (0, s)
            case ir.Agg(func="distinct", var=var, coll=coll, where=where, value=value):
                s = self.size(ir.ListComp(var, coll, where, None))
                cards = self.flow.cards_of(ir.ListComp(var, coll, where, None))
                match value:
                    case ir.Attr(obj=ir.Local(name=v), name=f) if v == var and cards is not None:
                        d = self.flow.distinct_values(cards, f)
                        if d is not None:
                            s = d if s is None else min(s, d)
                return None if s is None else (0, s)
            case ir.Agg(func="sum", var=var, coll=coll, where=where, value=value) if value is not None:
                s, iv = self.size(ir.ListComp(var, coll, where, None)), self.interval(value)
                return None if s is None or iv is None else (min(0, s * iv[0]), max(0, s * iv[1]))
            case ir.Agg(func="max" | "min", value=value) if value is not None:
                return self.interval(value)
            case ir.Call(func="min" | "max", args=args) if len(args) > 1:
                ivs = [self.interval(a) for a in args]
                if e.func == "min":
                    known = [iv for iv in ivs if iv is not None]
                    if not known:
                        return None
                    lo = None if any(iv is None for iv in ivs) else min(iv[0] for iv in ivs)
                    hi = min(iv[1] for iv in known)
                    return (lo if lo is not None else -10**9, hi) if lo is not None else None
                if any(iv is None for iv in ivs):
                    return None
                return (max(iv[0] for iv in ivs), max(iv[1] for iv in ivs))
            case ir.Call(func="abs", args=(a,)):
                iv = self.interval(a)
                return None if iv is None else (0, max(abs(iv[0]), abs(iv[1])))
            case ir.Local(name=name):
                return self._lets[-1].get("#iv:" + name)
            case ir.Call(func=func) if func in self.t.rules.defs_ir:
                # a def's parameters are unknown here: only what its body bounds by itself counts
                if func in self._stack:
                    return None
                self._stack.append(func)
                try:
                    return self.interval(self.t.rules.defs_ir[func].body)
                finally:
                    self._stack.pop()
        return None


def _domain_interval(d) -> Interval:
    if isinstance(d, ir.IntDomain):
        return (d.lo, d.hi)
    if isinstance(d, ir.BoolDomain):
        return (0, 1)
    return None


def _mul(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a * b
