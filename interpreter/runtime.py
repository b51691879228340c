"""Runtime values, the per-game tables built from a spec, and the expression
compiler.

Expressions are compiled once into Python closures `f(state, env) -> value`,
built by the engine from IR nodes (a spec never runs host code).  Values are:
int, bool, str (an enum value or component kind), None, tuple (a list),
and the interned references `PlayerRef`, `CardRef` and `ZoneRef`.
"""

from __future__ import annotations

import itertools
from operator import itemgetter
from typing import Any, Callable

from soan.dsl import ir
from soan.dsl.errors import SpecRuntimeError
from soan.dsl.limits import MAX_RANGE

Fn = Callable[[Any, dict], Any]

ENGINES = ("compiled", "closures")
DEFAULT_ENGINE = "compiled"


class PlayerRef:
    __slots__ = ("i",)

    def __init__(self, i: int):
        self.i = i

    def __hash__(self):
        return hash(("P", self.i))

    def __lt__(self, other):
        return self.i < other.i

    def __repr__(self):
        return f"P{self.i + 1}"


class CardRef:
    __slots__ = ("id",)

    def __init__(self, cid: int):
        self.id = cid

    def __hash__(self):
        return hash(("C", self.id))

    def __lt__(self, other):
        return self.id < other.id

    def __repr__(self):
        return f"#{self.id}"


class ZoneRef:
    __slots__ = ("slot", "label")

    def __init__(self, slot: int, label: str = ""):
        self.slot = slot
        self.label = label or f"zone {slot}"

    def __hash__(self):
        return hash(("Z", self.slot))

    def __repr__(self):
        return f"zone {self.label}"


def fmt(value) -> str:
    """A value as a designer reads it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(fmt(v) for v in value) + "]"
    return str(value)


def int_fits(domain, value) -> bool:
    """A whole number inside a number domain: the common case, checked without the general match."""
    return type(domain) is ir.IntDomain and type(value) is int and domain.lo <= value <= domain.hi


def in_domain(domain, value) -> bool:
    match domain:
        case ir.IntDomain(lo=lo, hi=hi):
            return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
        case ir.BoolDomain():
            return isinstance(value, bool)
        case ir.CardDomain():
            return value is None or isinstance(value, CardRef)
        case ir.PlayerDomain():
            return value is None or isinstance(value, PlayerRef)
        case ir.EnumDomain():
            return True  # checked against the enum's values by Tables.domain_values
    return True


class Tables:
    """Everything about one game of a spec that does not change during play:
    the cards and their fixed fields, the zones and their slots, the values of
    rulings, assumptions and options, and the compiled rules."""

    def __init__(self, spec: ir.Spec, n_players: int, params: dict[str, Any] | None = None, trace: bool = False,
                 engine: str | None = None):
        if not spec.min_players <= n_players <= spec.max_players:
            raise ValueError(f"{spec.name} is for {spec.min_players}..{spec.max_players} players, not {n_players}")
        self.spec = spec
        # How expressions run: "compiled" (generated Python source, interpreter/codegen.py) or "closures".
        self.engine = engine or DEFAULT_ENGINE
        if self.engine not in ENGINES:
            raise ValueError(f"unknown engine '{self.engine}' (known: {', '.join(ENGINES)})")
        # With trace, every statement kind and decision kind the rules reach is noted here (examples' coverage).
        self.trace = trace
        self.reached: set[tuple[str, str]] = set()
        self.n = n_players
        self.P = tuple(PlayerRef(i) for i in range(n_players))
        self.enum_values = {e.name: e.values for e in spec.enums}
        # Enum values compare in their declared order (a suit listed first is the smallest).
        self.symbol_ranks = {v: i for e in spec.enums for i, v in enumerate(e.values)}
        self.components = {c.name: c for c in spec.components}
        self.scores = tuple(s.name for s in spec.scores)
        self.score_domains = {s.name: s.domain for s in spec.scores}
        self.tokens = {t.name: t for t in spec.tokens}

        # Zones: a slot per shared zone, one per player for per-player zones.
        self.zone_slots: list[tuple[ir.Zone, PlayerRef | None]] = []
        self.slot_of: dict[tuple[str, int], int] = {}
        box = ir.Zone("box", "out of the game", False, "hidden", "unordered", None)
        for z in (box, *spec.zones):
            owners = self.P if z.per_player else (None,)
            for o in owners:
                self.slot_of[(z.name, -1 if o is None else o.i)] = len(self.zone_slots)
                self.zone_slots.append((z, o))
        self.Z = tuple(ZoneRef(s, self.zone_label(s)) for s in range(len(self.zone_slots)))
        # Who sees a face-up card in each slot: everyone (public), the slot's owner (owner), or nobody.
        everyone = (1 << n_players) - 1
        self.slot_sees = tuple(everyone if z.visibility == "public" else
                               (1 << o.i) if z.visibility == "owner" and o is not None else 0
                               for z, o in self.zone_slots)
        self.player_zone_names = {z.name for z in spec.zones if z.per_player}
        # per slot: does a card put there go on top by default (a stack), and has the zone a capacity to check
        self.slot_stack = tuple(z.order == "stack" for z, _ in self.zone_slots)
        self.slot_capped = tuple(z.capacity is not None for z, _ in self.zone_slots)

        # Parameters: rulings at their provisional resolution, assumptions at their value, options off.
        self.params: dict[str, Any] = {}
        self.param_kind: dict[str, str] = {}
        consts = _ConstEval(self)
        for r in spec.rulings:
            self.params[r.name] = consts(r.provisional)
            self.param_kind[r.name] = "ruling"
        for a in spec.assumptions:
            self.params[a.name] = consts(a.value) if a.value is not None else True
            self.param_kind[a.name] = "assume"
        for o in spec.options:
            self.params[o.name] = False
            self.param_kind[o.name] = "option"
        self.overrides = dict(params or {})
        for k, v in self.overrides.items():
            if k not in self.params:
                raise ValueError(f"unknown ruling, assumption or option '{k}'")
            self.params[k] = v

        # Cards.
        self.kind: list[str] = []
        self.fields: list[dict[str, Any]] = []
        self.owner: list[PlayerRef | None] = []
        self.start_slot: list[int] = []
        self.state_fields: dict[str, list[Any]] = {}
        self.state_domain: dict[tuple[str, str], Any] = {}
        for c in spec.components:
            for f in c.fields:
                if f.is_state:
                    self.state_domain[(c.name, f.name)] = f.domain
        for cs in spec.card_sets:
            comp = self.components[cs.kind]
            owners = tuple(PlayerRef(i) for i in range(spec.max_players)) if cs.per_player else (None,)
            for o in owners:
                absent = o is not None and o.i >= n_players
                owner = None if (o is None or absent) else self.P[o.i]
                slot = 0 if absent else self.slot_of[(cs.zone, -1 if owner is None else owner.i)] if cs.zone != "box" else 0
                for row in cs.rows:
                    if row.when is not None and self.params.get(cs.assumed) != row.when:
                        continue
                    for combo in self._row_values(comp, row, consts):
                        for _ in range(row.count):
                            self.kind.append(cs.kind)
                            self.fields.append(combo)
                            self.owner.append(owner)
                            self.start_slot.append(slot)
        self.n_cards = len(self.kind)
        # each zone's cards at the start, in card order (a new game copies these lists)
        self.start_zones: list[list[int]] = [[] for _ in self.zone_slots]
        for cid, slot in enumerate(self.start_slot):
            self.start_zones[slot].append(cid)
        self.C = tuple(CardRef(i) for i in range(self.n_cards))
        self.state_names = sorted({f.name for c in spec.components for f in c.fields if f.is_state})
        self.state_default: dict[str, list[Any]] = {}
        for name in self.state_names:
            col = []
            for cid in range(self.n_cards):
                comp = self.components[self.kind[cid]]
                f = next((f for f in comp.fields if f.name == name and f.is_state), None)
                col.append(None if f is None else (consts(f.default) if f.default is not None else _domain_default(f.domain)))
            self.state_default[name] = col
        self.kind_states = {c.name: tuple(f.name for f in c.fields if f.is_state) for c in spec.components}
        self.card_states = tuple(self.kind_states[k] for k in self.kind)  # a card's state names, by card id
        self.static_fields = {c.name: tuple(f.name for f in c.fields if not f.is_state
                                            and not (isinstance(f.domain, ir.IntDomain) and f.domain.lo == f.domain.hi))
                              for c in spec.components}
        self.card_labels = [self._label(cid) for cid in range(self.n_cards)]

        self.player_vars = {v.name: v for v in spec.vars if v.per_player}
        self.global_vars = {v.name: v for v in spec.vars if not v.per_player}
        self.var_default = {v.name: (consts(v.default) if v.default is not None else _domain_default(v.domain))
                            for v in spec.vars}

        from .compile import RuleCompiler  # the statement compiler needs these tables
        self.rules = RuleCompiler(self)

    def _row_values(self, comp: ir.Component, row: ir.CardRow, consts) -> list[dict]:
        fixed = {name: consts(e) for name, e in row.fixed}
        axes = []
        for fname in row.each:
            f = next(f for f in comp.fields if f.name == fname)
            axes.append([(fname, v) for v in self.domain_values(f.domain)])
        combos = []
        for combo in itertools.product(*axes) if axes else [()]:
            values = {}
            for f in comp.fields:
                if not f.is_state and f.default is not None:
                    values[f.name] = consts(f.default)
            values.update(fixed)
            values.update(dict(combo))
            combos.append(values)
        return combos

    def domain_values(self, d) -> tuple:
        match d:
            case ir.IntDomain(lo=lo, hi=hi):
                return tuple(range(lo, hi + 1))
            case ir.BoolDomain():
                return (False, True)
            case ir.EnumDomain(values=vals) if vals:
                return vals
            case ir.EnumDomain(name=name):
                return self.enum_values[name]
        return ()

    def check_domain(self, domain, value, what: str, span) -> None:
        if type(domain) is ir.IntDomain and type(value) is int and domain.lo <= value <= domain.hi:
            return  # the common case, without the general match below
        ok = in_domain(domain, value)
        if ok and isinstance(domain, ir.EnumDomain):
            ok = value is None or value in self.domain_values(domain)
        if not ok:
            raise SpecRuntimeError(f"{what} would become {fmt(value)}, outside its domain {domain}", span,
                                   "widen the declared domain, or add a rule that keeps the value inside it")

    def supply_size(self, token: str) -> int:
        """A token's starting supply for this player count (its expression may
        read player_count and parameters, nothing of a game in progress)."""
        tok = self.tokens[token]
        n = self.rules.eval_const(tok.supply, _StaticState(self))
        if isinstance(n, int) and not isinstance(n, bool) and n < 0:
            raise SpecRuntimeError(f"the supply of token '{token}' comes to {n} at {self.n} players; a supply is 0 or more",
                                   tok.supply.span if tok.supply.span.line else tok.span)
        return n

    def symbol_rank(self, v) -> tuple:
        return (self.symbol_ranks.get(v, -1), str(v))

    def _label(self, cid: int) -> str:
        kind = self.kind[cid]
        vals = [fmt(self.fields[cid].get(f)) for f in self.static_fields[kind]]
        return kind + ("(" + ", ".join(vals) + ")" if vals else "")

    def zone_label(self, slot: int) -> str:
        z, owner = self.zone_slots[slot]
        return z.name if owner is None else f"{owner}.{z.name}"


class _StaticState:
    """Just enough of a state to evaluate declarations' constant expressions."""

    memo = None  # no bot's ending copy: a steady def (reads.steady_defs) read here is worked out, not remembered

    def __init__(self, tables: Tables):
        self.t = tables
        self.consulted: set[str] = set()


def _domain_default(d):
    match d:
        case ir.IntDomain(lo=lo, hi=hi):
            return 0 if lo <= 0 <= hi else lo
        case ir.BoolDomain():
            return False
    return None


class _ConstEval:
    """Evaluates the constant expressions of declarations (defaults, rows, rulings)."""

    def __init__(self, tables: Tables):
        self.t = tables

    def __call__(self, e):
        match e:
            case None:
                return None
            case ir.Int(value=v) | ir.Bool(value=v) | ir.Str(value=v):
                return v
            case ir.Symbol(name=n) | ir.Name(name=n):
                return n
            case ir.NoneLit():
                return None
            case ir.Neg(operand=o):
                return -self(o)
            case ir.Builtin(name="player_count"):
                return self.t.n
        raise SpecRuntimeError("this value must be a constant (a number, true/false or a name)", e.span)


# ---- the expression compiler ----------------------------------------------------------------


def _seat(x, what: str, span) -> int:
    """A player's seat index, or a located rule error for anything else."""
    if type(x) is not PlayerRef:
        raise SpecRuntimeError(f"{what}() needs a player, got {fmt(x)}", span)
    return x.i


def ranking(st, seq, env, var, keys, kind, fallback, span, site) -> tuple:
    """`best`/`order` of `seq` by `keys` (both engines use this): a tie left after every key is
    marked at `site` and settled by the fallback."""
    return _settle(st, rank_groups(st, seq, env, var, keys, span), kind, fallback, site)


def ranking_by(st, seq, env, values, descs, kind, fallback, site) -> tuple:
    """ranking, over rank_by's compiled key values (codegen)."""
    return _settle(st, rank_by(st, seq, env, values, descs), kind, fallback, site)


def _settle(st, groups, kind, fallback, site) -> tuple:
    """The ranking's answer from its groups of equal keys: every tie marked at `site`, a tie for
    `best` settled by the fallback."""
    if kind == "order":
        out = []
        for g in groups:
            if len(g) > 1:
                st.mark("tie_fallback", site)
            out.extend(g)
        return tuple(out)
    if not groups:
        return ()
    top = groups[0]
    if len(top) > 1:
        st.mark("tie_fallback", site)
        if fallback == "none":
            return ()
        if fallback == "stable":
            return (top[0],)
    return tuple(top)


def make_range(a, b, span) -> tuple:
    """`a..b` as a game computes it: a located error past MAX_RANGE values (both engines use this)."""
    if isinstance(a, int) and isinstance(b, int) and b - a >= MAX_RANGE:
        raise SpecRuntimeError(f"the range {a}..{b} has more than {MAX_RANGE:,} values", span,
                               "soan keeps every range a game computes below this size")
    return tuple(range(a, b + 1))


def call_def(body, env, name: str, span):
    """A def's body on its arguments; a call chain too deep to follow names the def (both engines use this)."""
    try:
        return body(env)
    except RecursionError:  # the innermost call names itself; the calls around it pass that on
        raise SpecRuntimeError(f"def '{name}' calls itself without end, or too deeply to follow", span,
                               "does every chain of calls reach a case that stops?") from None


def call_def_fn(fn, st, env, name: str, span):
    """call_def for generated code: `fn(st, env)` without a closure made per call."""
    try:
        return fn(st, env)
    except RecursionError:  # the innermost call names itself; the calls around it pass that on
        raise SpecRuntimeError(f"def '{name}' calls itself without end, or too deeply to follow", span,
                               "does every chain of calls reach a case that stops?") from None


def as_list(st, v) -> tuple:
    """A value used as a collection: a zone's cards, a list, or a single item."""
    if type(v) is tuple:
        return v
    if type(v) is ZoneRef:
        ids = st.zones[v.slot]
        if len(ids) > 1:  # an itemgetter of the ids gives their cards as a tuple, in C (cheaper than map over C)
            return itemgetter(*ids)(st.t.C)
        return (st.t.C[ids[0]],) if ids else ()
    if v is None:
        return ()
    if isinstance(v, list):
        return tuple(v)
    return (v,)


def count_of(st, v) -> int:
    """len(as_list(st, v)), a zone counted by its ids without making its cards (the generated count and size)."""
    if type(v) is ZoneRef:
        return len(st.zones[v.slot])
    return len(as_list(st, v))


def _cmp_key(v):
    if isinstance(v, (PlayerRef,)):
        return v.i
    if isinstance(v, CardRef):
        return v.id
    if isinstance(v, tuple):
        return tuple(_cmp_key(x) for x in v)
    return v


def _compare(st, a, b, span, fn):
    """An ordering comparison `fn` of two values (numbers, symbols by their declared order, cards, players), as
    both engines make it; none or values of different kinds are a located rule error."""
    if a is None or b is None:
        raise SpecRuntimeError(f"cannot compare {fmt(a)} with {fmt(b)}", span)
    try:
        return fn(_order_key(st, a), _order_key(st, b))
    except TypeError:
        raise SpecRuntimeError(f"cannot compare {fmt(a)} with {fmt(b)}", span) from None


def attr_reader(t: "Tables", name: str, span) -> Callable:
    """`obj.name` of a value already worked out: a card's field or state, a player's zone, variable or
    token, `seat`, `eliminated`; the one reading both engines share (ExprCompiler.x_Attr, codegen)."""
    pzone = name in t.player_zone_names
    pvar = name in t.player_vars or name in t.tokens
    slot_of, Z, kind_states, kind, fields, owner = t.slot_of, t.Z, t.kind_states, t.kind, t.fields, t.owner
    is_state = name in t.state_default

    def get(st, o):
        if type(o) is CardRef:
            cid = o.id
            if is_state:
                v = st.cs[name][cid]
                if v is not None or name in kind_states[kind[cid]]:
                    return v
            if name == "kind":
                return kind[cid]
            if name == "facedown":
                return st.facedown[cid]
            if name == "owner":
                return owner[cid]
            if name == "zone":
                return Z[st.loc[cid]]
            return fields[cid].get(name)
        if type(o) is PlayerRef:
            if pzone:
                return Z[slot_of[(name, o.i)]]
            if pvar:
                return st.pv[name][o.i]
            if name == "eliminated":
                return st.elim[o.i]
            if name == "seat":
                return o.i + 1
            raise SpecRuntimeError(f"a player has no '{name}'", span)
        if o is None:
            return None
        raise SpecRuntimeError(f"{fmt(o)} has no '{name}'", span)

    return get


class ExprCompiler:
    """IR expression -> closure(state, env)."""

    def __init__(self, tables: Tables, rules):
        self.t = tables
        self.rules = rules

    def __call__(self, e: ir.Expr | None) -> Fn | None:
        if e is None:
            return None
        return getattr(self, "x_" + type(e).__name__)(e)

    # literals and names
    def x_Int(self, e):
        v = e.value
        return lambda st, env: v

    x_Bool = x_Str = x_Int

    def x_NoneLit(self, e):
        return lambda st, env: None

    def x_Symbol(self, e):
        v = e.name
        return lambda st, env: v

    def x_Local(self, e):
        name, span = e.name, e.span

        def f(st, env):
            try:
                return env[name]
            except KeyError:
                raise SpecRuntimeError(f"'{name}' has no value here", span) from None

        return f

    def x_GlobalVar(self, e):
        name = e.name
        return lambda st, env: st.gv[name]

    def x_SharedZone(self, e):
        z = self.t.Z[self.t.slot_of[(e.name, -1)]]
        return lambda st, env: z

    def x_Param(self, e):
        name = e.name
        value = self.t.params[name]
        if self.t.param_kind[name] in ("ruling", "assume"):
            # read in play: an open ruling (and an assumption, for soan rulings) counts as consulted
            def f(st, env):
                st.consulted.add(name)
                return value
            return f
        return lambda st, env: value

    def x_Builtin(self, e):
        if e.name == "round":
            return lambda st, env: st.round
        n = self.t.n
        return lambda st, env: n

    def x_Name(self, e):  # only reached when the checker was bypassed
        raise SpecRuntimeError(f"unknown name '{e.name}'", e.span)

    # structure
    def x_Attr(self, e):
        obj, get = self(e.obj), attr_reader(self.t, e.name, e.span)
        return lambda st, env: get(st, obj(st, env))

    def x_Index(self, e):
        obj, key, span = self(e.obj), self(e.key), e.span

        def f(st, env):
            seq = as_list(st, obj(st, env))
            k = key(st, env)
            if not isinstance(k, int) or not -len(seq) <= k < len(seq):
                raise SpecRuntimeError(f"index {fmt(k)} is outside a list of {len(seq)}", span)
            return seq[k]

        return f

    def x_ListLit(self, e):
        items = tuple(self(i) for i in e.items)
        return lambda st, env: tuple(i(st, env) for i in items)

    def x_RangeExpr(self, e):
        lo, hi, span = self(e.lo), self(e.hi), e.span
        return lambda st, env: make_range(lo(st, env), hi(st, env), span)

    def x_AllPlayers(self, e):
        P = self.t.P
        return lambda st, env: P

    def x_PlayersFrom(self, e):
        start, P, n, span = self(e.start), self.t.P, self.t.n, e.span

        def f(st, env):
            s = start(st, env)
            if type(s) is not PlayerRef:
                raise SpecRuntimeError(f"'players from' needs a player, got {fmt(s)}", span)
            return tuple(P[(s.i + k) % n] for k in range(n))

        return f

    def binder(self, var, coll, where):
        """`var in coll where cond`, compiled: fn(state, env) -> (the items
        kept, an env in which `var` can be bound).  Every filtering rule
        (comprehensions, rankings, choices, loops, the winner) uses it."""
        c, w = self(coll), self(where)

        def items(st, env):
            seq = as_list(st, c(st, env))
            if w is None:
                return seq, env
            inner = dict(env)
            out = []
            for x in seq:
                inner[var] = x
                if w(st, inner):
                    out.append(x)
            return tuple(out), inner

        return items

    def x_ListComp(self, e):
        items, var = self.binder(e.var, e.coll, e.where), e.var
        if e.value is None:
            return lambda st, env: items(st, env)[0]
        val = self(e.value)

        def f(st, env):
            seq, inner = items(st, env)
            inner = dict(inner)
            out = []
            for x in seq:
                inner[var] = x
                out.append(val(st, inner))
            return tuple(out)

        return f

    def x_Agg(self, e):
        if e.func in ("all", "any") and e.value is None and e.where is not None:
            # all/any(x in C where P): every/some x in C satisfies P
            return self.x_Agg(ir.Agg(e.func, e.var, e.coll, None, e.where, span=e.span))
        items, var, span = self.binder(e.var, e.coll, e.where), e.var, e.span
        val = self(e.value)
        agg = _AGGS[e.func]

        def f(st, env):
            seq, inner = items(st, env)
            if val is not None:
                inner = dict(inner)
                vals = []
                for x in seq:
                    inner[var] = x
                    vals.append(val(st, inner))
                seq = tuple(vals)
            return agg(seq, span)

        return f

    def x_Call(self, e):
        args = tuple(self(a) for a in e.args)
        name, span = e.func, e.span
        if name in self.rules.defs_ir:
            d = self.rules.defs_ir[name]
            params = d.params
            rules = self.rules

            def f(st, env):
                body = rules.def_fn(name)
                return call_def(lambda inner: body(st, inner), {p: a(st, env) for p, a in zip(params, args)}, name, span)

            return f
        impl = getattr(self, "b_" + name)
        return impl(args, span)

    def x_BinOp(self, e):
        l, r, op, span = self(e.left), self(e.right), e.op, e.span
        if op == "and":
            return lambda st, env: bool(l(st, env)) and bool(r(st, env))
        if op == "or":
            return lambda st, env: bool(l(st, env)) or bool(r(st, env))
        if op == "==":
            return lambda st, env: _same(l(st, env), r(st, env))
        if op == "!=":
            return lambda st, env: not _same(l(st, env), r(st, env))
        if op == "has":
            return lambda st, env: r(st, env) in as_list(st, l(st, env))
        if op == "+":
            def add(st, env):
                a, b = l(st, env), r(st, env)
                if type(a) is tuple or type(b) is tuple:
                    return as_list(st, a) + as_list(st, b)
                return _num(a, span) + _num(b, span)
            return add
        fn = _ARITH[op]

        def f(st, env):
            a, b = l(st, env), r(st, env)
            if op in ("<", "<=", ">", ">="):
                return _compare(st, a, b, span, fn)
            a, b = _num(a, span), _num(b, span)
            if op in ("//", "%") and b == 0:
                raise SpecRuntimeError("division by zero", span)
            return fn(a, b)

        return f

    def x_Not(self, e):
        o = self(e.operand)
        return lambda st, env: not o(st, env)

    def x_Neg(self, e):
        o, span = self(e.operand), e.span
        return lambda st, env: -_num(o(st, env), span)

    def x_Cond(self, e):
        t, a, b = self(e.test), self(e.then), self(e.orelse)
        return lambda st, env: a(st, env) if t(st, env) else b(st, env)

    def x_Ranking(self, e):
        items, var = self.binder(e.var, e.coll, e.where), e.var
        keys = tuple((self(k.expr), k.descending) for k in e.keys)
        kind, fallback, span = e.kind, e.fallback, e.span
        site = span.site

        def f(st, env):
            seq, inner = items(st, env)
            return ranking(st, seq, inner, var, keys, kind, fallback, span, site)

        return f

    # builtin functions
    def b_vp(self, args, span):
        p = args[0]
        if len(args) == 1:
            return lambda st, env: st.total_vp(p(st, env).i)
        item = args[1]
        return lambda st, env: st.vp[item(st, env)][p(st, env).i]

    def _agg1(name):  # noqa: N805
        def b(self, args, span):
            agg = _AGGS[name]
            if len(args) > 1:
                return lambda st, env: agg(tuple(a(st, env) for a in args), span)
            a = args[0]
            return lambda st, env: agg(as_list(st, a(st, env)), span)

        return b

    b_count = _agg1("count")
    b_size = _agg1("count")
    b_sum = _agg1("sum")
    b_max = _agg1("max")
    b_min = _agg1("min")
    b_any = _agg1("any")
    b_all = _agg1("all")
    b_distinct = _agg1("distinct")
    b_first = _agg1("first")
    b_last = _agg1("last")

    def b_sees(self, args, span):
        """sees(p, c): player p can see card c now (it is face up where p may look, or p has looked at it)."""
        pf, cf = args

        def f(st, env):
            p, c = pf(st, env), cf(st, env)
            if type(p) is not PlayerRef or type(c) is not CardRef:
                raise SpecRuntimeError(f"sees(p, c) needs a player and a card, got {fmt(p)} and {fmt(c)}", span)
            return bool(st.viewers(c.id) >> p.i & 1)

        return f

    def b_reverse(self, args, span):
        a = args[0]
        return lambda st, env: tuple(reversed(as_list(st, a(st, env))))

    def b_take(self, args, span):
        a, n = args
        return lambda st, env: as_list(st, a(st, env))[: max(0, _num(n(st, env), span))]

    def b_abs(self, args, span):
        a = args[0]
        return lambda st, env: abs(_num(a(st, env), span))

    def b_position(self, args, span):
        a = args[0]

        def f(st, env):
            c = a(st, env)
            if type(c) is not CardRef:
                raise SpecRuntimeError(f"position() needs a card, got {fmt(c)}", span)
            return st.zones[st.loc[c.id]].index(c.id)

        return f

    def b_next(self, args, span):
        a, P, n = args[0], self.t.P, self.t.n
        return lambda st, env: P[(_seat(a(st, env), "next", span) + 1) % n]

    def b_distance(self, args, span):
        a, b, n = args[0], args[1], self.t.n
        return lambda st, env: (_seat(b(st, env), "distance", span) - _seat(a(st, env), "distance", span)) % n

    def b_player(self, args, span):
        a, P = args[0], self.t.P

        def f(st, env):
            i = a(st, env)
            if not isinstance(i, int) or not 1 <= i <= len(P):
                raise SpecRuntimeError(f"there is no player {fmt(i)}", span)
            return P[i - 1]

        return f

    def b_supply(self, args, span):
        a = args[0]
        return lambda st, env: st.supply[a(st, env)]


def rank_groups(st, seq, env, var, keys, span, top_only: bool = False) -> list[list]:
    """Sort `seq` by the keys and group the elements no key separates, keeping
    the collection's order inside a group.  A key is only evaluated for the
    elements the earlier keys left tied, so a rule (or ruling) read by a later
    key counts as consulted only when it decides something.  With `top_only`
    (the winner line, which only needs the first group) later keys only part
    the elements tied for first: ties further down decide nothing."""
    if len(seq) < 2 or not keys:  # nothing to part, or nothing to part it by: no key is evaluated
        return [list(seq)] if seq else []
    inner = dict(env)

    def values(st, env, k, group):
        # key k of each element in turn, var bound in a copy of the env; the first none is the spec's error
        fn = keys[k][0]
        out = []
        for x in group:
            inner[var] = x
            v = fn(st, inner)
            if v is None:
                key_none(x, span)
            out.append(v)
        return out

    # `values` refers to itself nowhere: no reference cycle holds the state
    return _split_by(st, list(seq), 0, True, env, values, tuple(d for _, d in keys), top_only)


def rank_by(st, seq, env, values, descs, top_only: bool = False) -> list[list]:
    """rank_groups, with each key's values for a group of elements given by `values(st, env, k, group)` (the
    compiled engine generates it per ranking: each key an inline expression of the element, no env copied per
    element) and `descs` the keys' directions: the same keys evaluated for the same elements in the same order."""
    if len(seq) < 2 or not descs:
        return [list(seq)] if seq else []
    return _split_by(st, list(seq), 0, True, env, values, descs, top_only)


def key_none(x, span):
    """A ranking key with no value for `x`: the spec's error."""
    raise SpecRuntimeError(f"a ranking key is none for {fmt(x)}", span,
                           "filter those out with 'where', or give the key a value")


def _split_by(st, group: list, k: int, top: bool, env, values_of, descs, top_only) -> list[list]:
    """`group` (two elements or more, not yet parted by key k, and worth parting: not top_only below the first
    group) parted by key k and, where still tied, the keys after it."""
    n = len(group)
    values = values_of(st, env, k, group)
    last = k + 1 == len(descs)
    if n == 2:  # two elements (the commonest group): what the general code below gives, without it
        a, b = values
        if type(a) is int and type(b) is int:
            if descs[k]:  # descending: -a < -b is b < a
                a, b = b, a
            if a < b:
                return [[group[0]], [group[1]]]
            if b < a:
                return [[group[1]], [group[0]]]
            return [group] if last else _split_by(st, group, k + 1, top, env, values_of, descs, top_only)
    for v in values:
        if type(v) is not int:
            ints = False
            break
    else:
        ints = True
    if ints:
        # plain numbers (the usual key): negating orders them as _Desc would, without a wrapper
        kvs = [-v for v in values] if descs[k] else values
        # positions sorted by key: the sort is stable, so equal keys keep the collection's order, as
        # sorting (key, position) pairs would, and the items themselves are never compared
        order = sorted(range(n), key=kvs.__getitem__)
        if len(set(kvs)) == n:
            return [[group[i]] for i in order]  # no two alike: every element its own group
    else:
        desc = descs[k]
        kvs = [_Desc(_order_key(st, v)) if desc else _order_key(st, v) for v in values]
        order = sorted(range(n), key=kvs.__getitem__)
    out: list[list] = []
    sub: list = []
    prev = None
    for i in order:
        kv = kvs[i]
        if sub and kv == prev:
            sub.append(group[i])
        else:
            if sub:
                # a group no later key can part (or, top_only, one below the first) is kept as it is
                if len(sub) < 2 or last or (top_only and not (top and not out)):
                    out.append(sub)
                else:
                    out.extend(_split_by(st, sub, k + 1, top and not out, env, values_of, descs, top_only))
            sub = [group[i]]
        prev = kv
    if sub:
        if len(sub) < 2 or last or (top_only and not (top and not out)):
            out.append(sub)
        else:
            out.extend(_split_by(st, sub, k + 1, top and not out, env, values_of, descs, top_only))
    return out


class _Desc:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return other.v < self.v

    def __eq__(self, other):
        return self.v == other.v

    def __hash__(self):
        return hash(self.v)


def _same(a, b) -> bool:
    """Equality that keeps true apart from 1 and false apart from 0."""
    return a == b and (type(a) is bool) == (type(b) is bool)


def _order_key(st, v):
    if type(v) is str:
        return st.t.symbol_rank(v)
    if type(v) is tuple:
        return tuple(_order_key(st, x) for x in v)
    return _cmp_key(v)


def _num(v, span):
    if isinstance(v, bool) or not isinstance(v, int):
        raise SpecRuntimeError(f"expected a number, got {fmt(v)}", span)
    return v


def _sum(seq, span):
    """sum(_num(v) for v in seq): whole numbers added as they come, anything else through _num (its error)."""
    total = 0
    for v in seq:
        total += v if type(v) is int else _num(v, span)
    return total


def _extreme(fn):
    """max or min by _cmp_key; over plain whole numbers (where _cmp_key is each number itself) without it."""
    def agg(seq, span):
        if not seq:
            return None
        for v in seq:
            if type(v) is not int:
                return fn(seq, key=_cmp_key)
        return fn(seq)
    return agg


_PLAIN = frozenset({str, int, bool, float})  # values that are their own _cmp_key

_AGGS: dict[str, Callable] = {
    "count": lambda seq, span: len(seq),
    "size": lambda seq, span: len(seq),
    "sum": _sum,
    "max": _extreme(max),
    "min": _extreme(min),
    "any": lambda seq, span: any(seq),
    "all": lambda seq, span: all(seq),
    # _cmp_key gives a name, number or truth value itself: only other values go through it
    "distinct": lambda seq, span: len({v if type(v) in _PLAIN else _cmp_key(v) for v in seq if v is not None}),
    "first": lambda seq, span: seq[0] if seq else None,
    "last": lambda seq, span: seq[-1] if seq else None,
}

_ARITH = {
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
