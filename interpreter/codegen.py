"""The compiled backend for expressions: each expression of the checked IR
becomes one plain Python function `(state, env) -> value`, written out as
source, `compile()`d once and cached by spec digest (the way attrs builds its
methods from generated source).

Why: the closure interpreter (runtime.ExprCompiler) calls one closure per IR
node, so `count(c in p.hand where c.colour == k)` costs a dozen Python
calls per card.  Here the whole expression is one function; a comprehension's
variable is a Python local, not a key of a copied dict.

What is compiled: every expression node (a ranking's keys as one function
giving each key's values for a group, key_values; its tie-grouping is
runtime.rank_by), except
the rarer builtins (sees, reverse, take, abs, next, distance, player, supply,
aggregates over several arguments), which call the closure interpreter's own
code for that node.  Statements stay closures (interpreter/compile.py); they
call these functions.  A function reads each env local it needs once, at its
start; a count, sum, min, max or filter over a zone's cards that only reads
the cards' attributes loops over the zone's card ids and reads columns (the
general expression beside it, for an object that is not a player).

Safety: the source is produced only from IR nodes.  Every value from a spec
(a name, a string, a number) enters it as a Python literal made by `repr` of
an int, bool, None or str, or as a constant of the module's namespace; a spec
cannot put code into it.

Same games, bit for bit: every function evaluates what the closure would, in
the same order (list comprehensions, never lazy generators, so a ruling read
or a tie mark happens exactly as often), and reports errors with the node's
span.  The one exception, _shared: a def called again in one expression on
the same locals, after an identical call that always runs first, takes that
call's value (an expression writes nothing, a ruling read is remembered as a
set, and a def in which a ranking, and so a tie mark, can run is never shared).  A local with no value (the checker bypassed) falls back to the closure,
which raises the located error.
"""

from __future__ import annotations

import hashlib
import re

from soan.dsl import ir
from soan.dsl.errors import SpecRuntimeError

from .runtime import (_AGGS, CardRef, ExprCompiler, PlayerRef, _compare, _num, attr_reader, _same, as_list, call_def_fn, count_of, fmt,
                      key_none, make_range, ranking, ranking_by)

# (spec path, function source) -> code object (the file name compile() is given is made of the two)
_CODE_CACHE: dict[tuple, object] = {}
_CODE_CACHE_MAX = 20_000


def _lt(st, a, b, span):
    if type(a) is int and type(b) is int:
        return a < b
    return _compare(st, a, b, span, lambda x, y: x < y)


def _le(st, a, b, span):
    if type(a) is int and type(b) is int:
        return a <= b
    return _compare(st, a, b, span, lambda x, y: x <= y)


def _gt(st, a, b, span):
    if type(a) is int and type(b) is int:
        return a > b
    return _compare(st, a, b, span, lambda x, y: x > y)


def _ge(st, a, b, span):
    if type(a) is int and type(b) is int:
        return a >= b
    return _compare(st, a, b, span, lambda x, y: x >= y)


def _sub(a, b, span):
    if type(a) is int and type(b) is int:
        return a - b
    return _num(a, span) - _num(b, span)


def _mul(a, b, span):
    if type(a) is int and type(b) is int:
        return a * b
    return _num(a, span) * _num(b, span)


def _floordiv(a, b, span):
    a, b = _num(a, span), _num(b, span)
    if b == 0:
        raise SpecRuntimeError("division by zero", span)
    return a // b


def _mod(a, b, span):
    a, b = _num(a, span), _num(b, span)
    if b == 0:
        raise SpecRuntimeError("division by zero", span)
    return a % b


def _add(st, a, b, span):
    if type(a) is int and type(b) is int:
        return a + b
    if type(a) is tuple or type(b) is tuple:
        return as_list(st, a) + as_list(st, b)
    return _num(a, span) + _num(b, span)


def _neg(a, span):
    return -_num(a, span)


def _index(st, obj, k, span):
    seq = as_list(st, obj)
    if not isinstance(k, int) or not -len(seq) <= k < len(seq):
        raise SpecRuntimeError(f"index {fmt(k)} is outside a list of {len(seq)}", span)
    return seq[k]


def _position(st, c, span):
    if type(c) is not CardRef:
        raise SpecRuntimeError(f"position() needs a card, got {fmt(c)}", span)
    return st.zones[st.loc[c.id]].index(c.id)


_ranking = ranking


def _players_from_fn(P):
    n = len(P)
    rings = tuple(tuple(P[(i + k) % n] for k in range(n)) for i in range(n))

    def players_from(s, span):
        if type(s) is not PlayerRef:
            raise SpecRuntimeError(f"'players from' needs a player, got {fmt(s)}", span)
        return rings[s.i]

    return players_from


_LITERAL_TYPES = (int, bool, str, type(None))
_CARD_SPECIAL = ("kind", "facedown", "owner", "zone")


def _STATIC_NAMES(t) -> set:
    return {f for fields in t.fields for f in fields}


class ExprCodegen:
    """IR expression -> a generated function (state, env) -> value.  Same
    interface as runtime.ExprCompiler, so the statement compiler and every
    other caller (examples, verify's questions) use either."""

    def __init__(self, tables, rules):
        self.t = tables
        self.rules = rules
        self.closures = ExprCompiler(tables, rules)
        # a code object is a function of its source and file name alone (the constants it names are looked up
        # in this namespace when run), so tables of other player counts or rulings share what they generate alike
        self.key = tables.spec.path
        self._lines: dict = {}  # a source file's lines, for the comment naming each function's rule line
        self.ns: dict = {
            "as_list": as_list, "_count": count_of, "_same": _same, "_lt": _lt, "_le": _le, "_gt": _gt, "_ge": _ge, "_sub": _sub,
            "_mul": _mul, "_floordiv": _floordiv, "_mod": _mod, "_add": _add, "_neg": _neg, "_index": _index,
            "_position": _position, "_ranking": _ranking, "_ranking_by": ranking_by, "_key_none": key_none,
            "_P": tables.P, "_AGGS": _AGGS,
            "_players_from": _players_from_fn(tables.P), "_range": make_range, "_call_def": call_def_fn, "_CardRef": CardRef, "_PlayerRef": PlayerRef, "_C": tables.C, "_kind": tuple(tables.kind), "_fields": tables.fields,
            "SpecRuntimeError": SpecRuntimeError, "__builtins__": {"len": len, "tuple": tuple, "range": range,
                                                                   "any": any, "all": all, "bool": bool,
                                                                   "KeyError": KeyError, "dict": dict, "type": type},
        }
        self.sources: list[str] = []  # every generated function, in the order made (for `soan compile --show`)
        self._consts: dict[int, str] = {}
        self._n = 0
        self._defs_started: set[str] = set()
        self._slow: dict[str, object] = {}
        self._names: set | None = None
        self._reads: dict | None = None  # env locals read by the function being generated -> Python local
        self._ids: set[str] = set()  # comprehension variables that hold card ids, not cards (_zone_ids)
        self._columns: dict[str, str] = {}
        self._no_fast = False  # generating the general branch of a zone fast path
        self._recursive: set[str] | None = None  # defs that can call themselves (_recursive_defs)
        self._positionals: dict[str, str | None] = {}  # def -> its function of arguments (_positional)
        self._steady: frozenset[str] | None = None  # defs a bot's ending copy may remember (reads.steady_defs)
        # the function being generated: its repeated def calls worked out once (_shared): call -> Python local
        self._cse: dict[str, str] | None = None
        self._uncond = True  # generating code the function's expression always evaluates, in the order written
        self._marking: dict[str, bool] = {}  # def -> a ranking (which counts its ties) can run in it

    # ---- the public interface ---------------------------------------------------------------

    def __call__(self, e: ir.Expr | None):
        if e is None:
            return None
        name = self._fresh("e")
        saved, self._reads = self._reads, {}
        shared = self._own_cse()
        try:
            code = self._unshared(self.gen(e, {}))
            return self._define(name, e, self._hoisted() + f"return {code}")
        finally:
            self._reads = saved
            self._cse, self._uncond = shared

    def binder(self, var, coll, where):
        """`var in coll where cond` -> fn(state, env) -> (items kept, env), as runtime's binder."""
        name = self._fresh("b")
        saved, self._reads = self._reads, {}
        shared = self._own_cse(uncond=False)  # a filter: its condition runs per element
        try:
            seq = self._filtered(var, coll, where, {})
            node = where if where is not None else coll
            return self._define(name, node, self._hoisted() + f"return ({seq}, env)", as_tuple=True,
                                fallback=self.closures.binder(var, coll, where))
        finally:
            self._reads = saved
            self._cse, self._uncond = shared

    def _hoisted(self) -> str:
        """The env's locals the function reads, each read once at its start into a Python local (a read in a
        comprehension's condition would otherwise look the key up once per element).  Reading a local has
        no effect, and one without a value raises KeyError here as it would later: the closure then runs
        the expression as written (and raises the located error where the expression reaches it)."""
        return "".join(f"{py} = env[{key!r}]\n        " for key, py in self._reads.items())

    def source(self) -> str:
        return "\n".join(self.sources)

    # ---- building functions -------------------------------------------------------------------

    def _fresh(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def _define(self, name, node, body, as_tuple=False, fallback=None):
        span = getattr(node, "span", None)
        where = self._where(span)
        slow = self._const(fallback if fallback is not None else _LazyClosure(self.closures, node), "closure")
        src = (f"def {name}(st, env):\n"
               f"    # {where}\n"
               f"    try:\n"
               f"        {body}\n"
               f"    except KeyError:  # a local without a value: the closure raises the located error\n"
               f"        return {slow}(st, env)\n")
        code = self._compiled(src, name)
        if code is None:
            # nested deeper than Python's parser takes (a sum of hundreds of terms): the closure runs it
            src = f"def {name}(st, env):\n    # {where}: too deeply nested to compile\n    return {slow}(st, env)\n"
            code = self._compiled(src, name)
        exec(code, self.ns)  # generated from IR nodes only (see the module's docstring)
        self.sources.append(src)
        return self.ns[name]

    def _compiled(self, src: str, name: str):
        """The code object of the generated `src`, cached by the spec's key and the source; None where
        Python cannot compile it (nested deeper than its parser takes)."""
        key = (self.key, src)
        code = _CODE_CACHE.get(key)
        if code is None:
            if len(_CODE_CACHE) > _CODE_CACHE_MAX:  # many specs in one process (a fuzz run): start afresh
                _CODE_CACHE.clear()
            try:
                code = _CODE_CACHE[key] = compile(src, f"<soan {self.t.spec.path} {name}>", "exec")
            except (SyntaxError, RecursionError, MemoryError):
                return None
        return code

    def _where(self, span) -> str:
        if span is None or not span.line:
            return "(no source line)"
        path = span.path or self.t.spec.path
        lines = self._lines.get(span.path)
        if lines is None:  # each source file split once, not once per generated function
            lines = self._lines[span.path] = self.t.spec.text_of(span.path).splitlines()
        text = lines[span.line - 1].strip() if 0 < span.line <= len(lines) else ""
        # a comment ends at a line break: splitlines() left none, and nothing unprintable goes in either
        text = "".join(ch if ch.isprintable() else "?" for ch in f"{path}:{span.line}: {text}")
        return text

    def _const(self, value, hint: str = "k") -> str:
        if type(value) in _LITERAL_TYPES:
            return repr(value)
        k = self._consts.get(id(value))
        if k is None:
            name = f"_{hint}{len(self._consts)}"
            self._consts[id(value)] = name
            self.ns[name] = value
            self.ns.setdefault("_keep", []).append(value)  # ids stay unique while referenced
            k = name
        return k

    def _env(self, scope) -> str:
        """The env a closure or key function needs here: the comprehension locals folded in."""
        if not scope:
            return "env"
        return "{**env, " + ", ".join(f"{k!r}: {v}" for k, v in scope.items()) + "}"

    def _fallback(self, e, scope) -> str:
        fn = self.closures(e)
        return f"{self._const(fn, 'closure')}(st, {self._env(scope)})"

    def _filtered(self, var, coll, where, scope, as_tuple=True) -> str:
        """The elements of `coll` that satisfy `where`, as a tuple (or a list, for an aggregate)."""
        if isinstance(coll, (ir.AllPlayers, ir.PlayersFrom, ir.RangeExpr, ir.ListComp)):
            src = self.gen(coll, scope)  # always a tuple already: as_list would give it back as it is
        else:
            src = f"as_list(st, {self.gen(coll, scope)})"
        if where is None:
            return src
        zone = None if self._no_fast else self._zone_ids(coll, scope)
        if zone is None or not self._only_card_attrs(where, var):
            return self._kept(src, var, where, scope, as_tuple)
        # the zone's cards whose attributes pass: tested by card id, the kept ones made cards (the same
        # card objects as_list gives)
        ids, guard = zone
        i = self._fresh("i")
        self._ids.add(i)
        fast = f"[_C[{i}] for {i} in {ids} if {self.gen(where, {**scope, var: i})}]"
        if as_tuple:
            fast = f"tuple({fast})"
        if guard is None:
            return fast
        return f"({fast} if {guard} else {self._general(self._kept, src, var, where, scope, as_tuple)})"

    def _kept(self, src, var, where, scope, as_tuple) -> str:
        v = self._fresh("v")
        comp = f"[{v} for {v} in {src} if {self.gen(where, {**scope, var: v})}]"
        return f"tuple({comp})" if as_tuple else comp

    # ---- expressions --------------------------------------------------------------------------

    def gen(self, e, scope) -> str:
        m = getattr(self, "g_" + type(e).__name__, None)
        if m is None:
            return self._fallback(e, scope)
        if self._uncond and isinstance(e, _PER_ELEMENT):
            return self._cond(m, e, scope)
        return m(e, scope)

    def _cond(self, m, *args) -> str:
        """`m(*args)`, generating code that may not run (or runs per element, or before code generated ahead of
        it): a def call in it is not worked out there for later calls to share (_shared)."""
        saved, self._uncond = self._uncond, False
        try:
            return m(*args)
        finally:
            self._uncond = saved

    def _own_cse(self, uncond: bool = True) -> tuple:
        """Start a generated function's own shared calls (_shared); gives what to restore after it."""
        saved = (self._cse, self._uncond)
        self._cse, self._uncond = {}, uncond
        return saved

    def _shared(self, call: str, func: str, args: list[str]) -> str:
        """A call `call` of def `func` on `args`, worked out once per evaluation of the function being generated:
        where an earlier call of the same def on the same locals or literals always runs before this one (in code
        the expression always evaluates, in the order written), this one takes its value instead of calling again.
        Sound because an expression writes nothing: the state is the same at both calls, so the def gives the same
        value, and skipping the second call skips nothing but the same reads (a ruling read again is read already).
        Only defs in which no ranking can run: a ranking counts the ties it settles (the game's marks) at every call."""
        cse = self._cse
        if cse is None or not all(_SIMPLE_ARG.match(a) for a in args) or self._marks(func):
            return call
        name = cse.get(call)
        if name is not None:
            return name
        if not self._uncond:
            return call
        name = cse[call] = "_c" + self._fresh("")
        return f"({name} := {call})"

    def _unshared(self, code: str) -> str:
        """`code` with the calls _shared kept that no later call took: a plain call again."""
        for call, name in self._cse.items():
            if len(re.findall(rf"\b{name}\b", code)) == 1:
                code = code.replace(f"({name} := {call})", call)
        return code

    def _marks(self, func: str) -> bool:
        """A ranking can run in def `func` (in its body or a def it calls)."""
        known = self._marking.get(func)
        if known is None:
            defs = self.rules.defs_ir
            seen, todo, known = {func}, [defs[func].body], False
            while todo:
                n = todo.pop()
                if isinstance(n, ir.Ranking):
                    known = True
                    break
                if isinstance(n, ir.Call) and n.func in defs and n.func not in seen:
                    seen.add(n.func)
                    todo.append(defs[n.func].body)
                todo.extend(ir.children(n))
            self._marking[func] = known
        return known

    def g_Int(self, e, scope):
        return repr(e.value)

    g_Bool = g_Str = g_Int

    def g_NoneLit(self, e, scope):
        return "None"

    def g_Symbol(self, e, scope):
        return repr(e.name)

    def g_Local(self, e, scope):
        if e.name in scope:
            return scope[e.name]
        if self._reads is None:
            return f"env[{e.name!r}]"
        py = self._reads.get(e.name)
        if py is None:
            py = self._reads[e.name] = f"_l{len(self._reads)}"
        return py

    def g_GlobalVar(self, e, scope):
        return f"st.gv[{e.name!r}]"

    def g_SharedZone(self, e, scope):
        return self._const(self.t.Z[self.t.slot_of[(e.name, -1)]])

    def g_Param(self, e, scope):
        value = self._const(self.t.params[e.name])
        if self.t.param_kind[e.name] in ("ruling", "assume"):
            # read in play: an open ruling (and an assumption, for soan rulings) counts as consulted, as in
            # the closure interpreter; add() gives None, so the value is the result
            return f"(st.consulted.add({e.name!r}) or {value})"
        return value

    def g_Builtin(self, e, scope):
        if e.name == "round":
            return "st.round"
        return repr(self.t.n)

    def g_Attr(self, e, scope):
        getter = self._const(attr_reader(self.t, e.name, e.span), f"get_{e.name}_")
        obj = self.gen(e.obj, scope)
        if obj in self._ids:  # a card id of _zone_agg's loop
            return self._card_column(e.name).format(i=obj)
        if isinstance(e.obj, ir.Local):
            fast = self._attr_fast(e.name, obj)
            if fast is not None:  # the object is a name: reading it twice costs nothing and changes nothing
                return fast.format(get=getter)
        return f"{getter}(st, {obj})"

    def _attr_fast(self, name: str, o: str) -> str | None:
        """`o.name` inline for the object type the name usually belongs to, the general getter for
        anything else; the same value the getter gives in every case."""
        t = self.t
        if name in t.player_zone_names:
            zones = self._const(tuple(t.Z[t.slot_of[(name, p.i)]] for p in t.P), f"zones_{name}_")
            return f"({zones}[{o}.i] if type({o}) is _PlayerRef else {{get}}(st, {o}))"
        if name in t.player_vars or name in t.tokens:
            if name in t.state_default or name in _CARD_SPECIAL or name in _STATIC_NAMES(t):
                return None
            return f"(st.pv[{name!r}][{o}.i] if type({o}) is _PlayerRef else {{get}}(st, {o}))"
        if name in t.state_default:
            has = self._const(tuple(name in t.kind_states[k] for k in t.kind), f"has_{name}_")
            return f"(st.cs[{name!r}][{o}.id] if type({o}) is _CardRef and {has}[{o}.id] else {{get}}(st, {o}))"
        if name == "kind":
            return f"(_kind[{o}.id] if type({o}) is _CardRef else {{get}}(st, {o}))"
        if name == "facedown":
            return f"(st.facedown[{o}.id] if type({o}) is _CardRef else {{get}}(st, {o}))"
        if name in _CARD_SPECIAL:
            return None
        if name == "eliminated" and name not in _STATIC_NAMES(t):  # a player's, read where the object is one
            return f"(st.elim[{o}.i] if type({o}) is _PlayerRef else {{get}}(st, {o}))"
        return f"(_fields[{o}.id].get({name!r}) if type({o}) is _CardRef else {{get}}(st, {o}))"

    def g_Index(self, e, scope):
        return f"_index(st, {self.gen(e.obj, scope)}, {self.gen(e.key, scope)}, {self._const(e.span, 'span')})"

    def g_ListLit(self, e, scope):
        items = [self.gen(i, scope) for i in e.items]
        if not items:
            return "()"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"

    def g_RangeExpr(self, e, scope):
        return f"_range({self.gen(e.lo, scope)}, {self.gen(e.hi, scope)}, {self._const(e.span, 'span')})"

    def g_AllPlayers(self, e, scope):
        return "_P"

    def g_PlayersFrom(self, e, scope):
        return f"_players_from({self.gen(e.start, scope)}, {self._const(e.span, 'span')})"

    def g_ListComp(self, e, scope):
        seq = self._filtered(e.var, e.coll, e.where, scope)
        if e.value is None:
            return seq
        v = self._fresh("v")
        return f"tuple([{self.gen(e.value, {**scope, e.var: v})} for {v} in {seq}])"

    def g_Agg(self, e, scope):
        if e.func in ("all", "any") and e.value is None and e.where is not None:
            return self.g_Agg(ir.Agg(e.func, e.var, e.coll, None, e.where, span=e.span), scope)
        fast = self._zone_agg(e, scope)
        if fast is not None:
            return fast
        return self._agg(e, scope)

    def _zone_agg(self, e, scope) -> str | None:
        """count/size, or sum/max/min/distinct/first/last of a value, over a zone's cards where every use of the
        card is one of its attributes: looped over the zone's card ids, each attribute read from a column, instead
        of making a card per id and reading it through the general getter (the same values, in the same order, to
        the same aggregate).  Guarded by the zone really being one (the object a player); anything else runs the
        general expression."""
        if e.func in ("count", "size"):
            if e.value is not None:
                return None
        elif e.func not in ("sum", "max", "min", "distinct", "first", "last") or e.value is None:
            return None
        zone = None if self._no_fast else self._zone_ids(e.coll, scope)
        if zone is None:
            return None
        ids, guard = zone
        if not all(self._only_card_attrs(x, e.var) for x in (e.where, e.value) if x is not None):
            return None
        v = self._fresh("i")
        self._ids.add(v)
        inner = {**scope, e.var: v}
        seq = f"[{v} for {v} in {ids} if {self.gen(e.where, inner)}]" if e.where is not None else ids
        if e.value is None:
            fast = f"len({seq})"
        else:  # every condition first, then every value, as the general expression evaluates them
            fast = (f"_AGGS[{e.func!r}](tuple([{self.gen(e.value, inner)} for {v} in {seq}]), "
                    f"{self._const(e.span, 'span')})")
        if guard is None:
            return fast
        return f"({fast} if {guard} else {self._general(self._agg, e, scope)})"

    def _general(self, fn, *args) -> str:
        """`fn(*args)` generated without the zone fast paths (the branch a guard sends anything but a zone to)."""
        saved, self._no_fast = self._no_fast, True
        try:
            return fn(*args)
        finally:
            self._no_fast = saved

    def _zone_ids(self, coll, scope) -> tuple[str, str | None] | None:
        """(the list of card ids in the zone `coll` names, the test that it names one) for a shared zone or
        a player's zone read off a local; None for any other collection."""
        t = self.t
        if isinstance(coll, ir.SharedZone):
            return f"st.zones[{t.slot_of[(coll.name, -1)]}]", None
        if isinstance(coll, ir.Attr) and isinstance(coll.obj, ir.Local) and coll.name in t.player_zone_names:
            o = self.gen(coll.obj, scope)
            if o in self._ids:
                return None
            slots = self._const(tuple(t.slot_of[(coll.name, p.i)] for p in t.P), f"slots_{coll.name}_")
            return f"st.zones[{slots}[{o}.i]]", f"type({o}) is _PlayerRef"
        return None

    def _card_column(self, name: str) -> str | None:
        """How to read attribute `name` of the card whose id is `{i}`, exactly as _attr_getter reads a card's,
        or None for an attribute this does not read by id."""
        t = self.t
        if name in t.player_zone_names or name in t.player_vars or name in t.tokens or name in ("eliminated", "seat"):
            return None
        if name == "kind":
            return "_kind[{i}]"
        if name == "facedown":
            return "st.facedown[{i}]"
        if name in _CARD_SPECIAL:
            return None
        if name in t.state_default:
            has = self._const(tuple(name in t.kind_states[k] for k in t.kind), f"has_{name}_")
            # a card without the state: the general getter (the state's column, then the card's fields)
            get = self._const(attr_reader(t, name, None), f"get_{name}_")
            return f"(st.cs[{name!r}][{{i}}] if {has}[{{i}}] else {get}(st, _C[{{i}}]))"
        col = self._columns.get(name)
        if col is None:
            col = self._columns[name] = self._const(tuple(f.get(name) for f in t.fields), f"col_{name}_")
        return f"{col}[{{i}}]"

    def _only_card_attrs(self, e, var) -> bool:
        """Every use of local `var` in `e` is an attribute _card_column reads, and nothing in `e` binds `var`."""
        if isinstance(e, ir.Attr) and isinstance(e.obj, ir.Local) and e.obj.name == var:
            return self._card_column(e.name) is not None
        if isinstance(e, ir.Local):
            return e.name != var
        if getattr(e, "var", None) == var:
            return False
        return all(self._only_card_attrs(c, var) for c in ir.children(e))

    def _agg(self, e, scope):
        seq = self._filtered(e.var, e.coll, e.where, scope, as_tuple=e.func not in ("count", "size", "any", "all"))
        if e.value is not None:
            v = self._fresh("v")
            seq = f"[{self.gen(e.value, {**scope, e.var: v})} for {v} in {seq}]"
            if e.func not in ("count", "size", "any", "all"):
                seq = f"tuple({seq})"
        if e.func in ("count", "size"):
            return f"len({seq})"
        if e.func in ("any", "all"):
            return f"{e.func}({seq})"
        return f"_AGGS[{e.func!r}]({seq}, {self._const(e.span, 'span')})"

    def _recursive_defs(self) -> set[str]:
        """The defs that can call themselves, directly or through other defs."""
        if self._recursive is None:
            defs = self.rules.defs_ir
            calls: dict[str, set[str]] = {}
            for name, d in defs.items():
                found, todo = set(), [d.body]
                while todo:
                    n = todo.pop()
                    if isinstance(n, ir.Call) and n.func in defs:
                        found.add(n.func)
                    todo.extend(ir.children(n))
                calls[name] = found
            recursive = set()
            for name in defs:
                seen, todo = set(), list(calls[name])
                while todo:
                    c = todo.pop()
                    if c == name:
                        recursive.add(name)
                        break
                    if c not in seen:
                        seen.add(c)
                        todo.extend(calls[c])
            self._recursive = recursive
        return self._recursive

    def _positional(self, name: str) -> str | None:
        """A def that never reaches itself as a function of its arguments, `_A_name(st, a0, a1, ...)`: no env
        dict made per call, each parameter a Python argument.  None when its body needs an env (a closure's
        fallback inside it) or a parameter name twice.  A KeyError inside it (a local with no value cannot
        be one: it reads only its parameters) calls the def's own function, as the call always did."""
        if name in self._positionals:
            return self._positionals[name]
        self._positionals[name] = None  # while it is made
        d = self.rules.defs_ir[name]
        if len(set(d.params)) != len(d.params):
            return None
        py = {p: f"_a{k}" for k, p in enumerate(d.params)}
        saved, self._reads = self._reads, {}
        shared = self._own_cse()
        try:
            code = self._unshared(self.gen(d.body, py))
            reads = self._reads
        finally:
            self._reads = saved
            self._cse, self._uncond = shared
        if reads or re.search(r"\benv\b", code):
            return None
        fname = "_A_" + name
        env = "{" + ", ".join(f"{p!r}: {a}" for p, a in py.items()) + "}"
        args = "".join(f", {a}" for a in py.values())
        if self._steady is None:
            from .reads import steady_defs
            self._steady = steady_defs(self.t)
        if name in self._steady and not d.params:
            # a def without parameters whose value cannot change while the game ends (reads.steady_defs): a bot's
            # copy ending the game gives it a memo (State.memo) and it is worked out once there.  (With
            # parameters, looking the arguments up costs about what most such defs cost to work out: measured
            # on a shipped spec, more Python calls, not fewer.)
            src = (f"def {fname}(st{args}):\n"
                   f"    # {self._where(d.body.span if getattr(d.body, 'span', None) else None)}\n"
                   f"    _m = st.memo\n"
                   f"    if _m is not None:\n"
                   f"        _v = _m.get({name!r}, _m)\n"
                   f"        if _v is not _m:\n"
                   f"            return _v\n"
                   f"    try:\n"
                   f"        _v = {code}\n"
                   f"    except KeyError:  # the def's own function, as a call with an env runs it\n"
                   f"        return _D_{name}(st, {env})\n"
                   f"    if _m is not None:\n"
                   f"        _m[{name!r}] = _v\n"
                   f"    return _v\n")
        else:
            src = (f"def {fname}(st{args}):\n"
                   f"    # {self._where(d.body.span if getattr(d.body, 'span', None) else None)}\n"
                   f"    try:\n"
                   f"        return {code}\n"
                   f"    except KeyError:  # the def's own function, as a call with an env runs it\n"
                   f"        return _D_{name}(st, {env})\n")
        compiled = self._compiled(src, fname)
        if compiled is None:
            return None
        if name not in self._defs_started:
            self._defs_started.add(name)
            self.ns["_D_" + name] = self.rules.def_fn(name)
        exec(compiled, self.ns)  # generated from IR nodes only (see the module's docstring)
        self.sources.append(src)
        self._positionals[name] = fname
        return fname

    def g_Call(self, e, scope):
        if e.func in self.rules.defs_ir:
            d = self.rules.defs_ir[e.func]
            fname = "_D_" + e.func
            if e.func not in self._defs_started:
                self._defs_started.add(e.func)
                self.ns[fname] = self.rules.def_fn(e.func)
            codes = [self.gen(a, scope) for a in e.args]  # each argument generated once (a shared call in it defined there)
            args = ", ".join(f"{p!r}: {c}" for p, c in zip(d.params, codes))
            if e.func not in self._recursive_defs():
                # a def that can never reach itself is called at once: a chain of calls too deep to follow
                # runs through a def that calls itself, whose call_def names it
                positional = self._positional(e.func)
                if positional is not None and len(e.args) == len(d.params):
                    return self._shared(f"{positional}(st, {', '.join(codes)})", e.func, codes)
                return f"{fname}(st, {{{args}}})"
            # through call_def: a chain of calls too deep to follow names the def, as in the closures
            return f"_call_def({fname}, st, {{{args}}}, {e.func!r}, {self._const(e.span, 'span')})"
        if e.func in ("count", "size", "sum", "max", "min", "any", "all", "distinct", "first", "last") \
                and len(e.args) == 1:
            if e.func in ("count", "size"):
                return f"_count(st, {self.gen(e.args[0], scope)})"
            seq = f"as_list(st, {self.gen(e.args[0], scope)})"
            if e.func in ("any", "all"):
                return f"{e.func}({seq})"
            return f"_AGGS[{e.func!r}]({seq}, {self._const(e.span, 'span')})"
        if e.func == "vp":
            p = self.gen(e.args[0], scope)
            if len(e.args) == 1:
                if self.t.scores and p not in self._ids and re.fullmatch(r"[A-Za-z_]\w*", p):
                    # a player held in a name: State.total_vp's sum inline, its columns in the same order (whole
                    # numbers, so the same total), without a call
                    return "(" + " + ".join(f"st.vp[{name!r}][{p}.i]" for name in self.t.scores) + ")"
                return f"st.total_vp(({p}).i)"
            return f"st.vp[{self.gen(e.args[1], scope)}][({p}).i]"
        if e.func == "position":
            return f"_position(st, {self.gen(e.args[0], scope)}, {self._const(e.span, 'span')})"
        return self._fallback(e, scope)

    _COMPARE = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}
    _ARITH = {"-": "_sub", "*": "_mul", "//": "_floordiv", "%": "_mod"}

    def g_BinOp(self, e, scope):
        op = e.op
        if op in ("and", "or"):
            a, b = self.gen(e.left, scope), self._cond(self.gen, e.right, scope)  # the right side may not run
        elif op == "has":
            # `b in as_list(st, a)`: b runs first, so nothing in a (generated first) is shared with it
            a, b = self._cond(self.gen, e.left, scope), self.gen(e.right, scope)
        else:
            a, b = self.gen(e.left, scope), self.gen(e.right, scope)
        if op in ("and", "or"):
            # bool() only around a side that may be something other than true or false
            a = a if self._static_bool(e.left) else f"bool({a})"
            b = b if self._static_bool(e.right) else f"bool({b})"
            return f"({a} {op} {b})"
        if op in ("==", "!="):
            lit = self._plain(e.left) or self._plain(e.right)
            test = f"({a} == {b})" if lit else f"_same({a}, {b})"
            return test if op == "==" else f"(not {test})"
        if op == "has":
            return f"({b} in as_list(st, {a}))"
        if op in ("+", "-", "*", "<", "<=", ">", ">=") and self._static_int(e.left) and self._static_int(e.right):
            # two whole numbers whatever the state: what _add, _sub, _mul and the comparisons do with
            # two numbers, without the call and its checks
            return f"({a} {op} {b})"
        if op == "+":
            return f"_add(st, {a}, {b}, {self._const(e.span, 'span')})"
        if op in self._COMPARE:
            return f"{self._COMPARE[op]}(st, {a}, {b}, {self._const(e.span, 'span')})"
        return f"{self._ARITH[op]}({a}, {b}, {self._const(e.span, 'span')})"

    def _static_bool(self, e) -> bool:
        """`e`'s generated code always gives true or false: a comparison, `has`, `not`, and/or."""
        if isinstance(e, ir.BinOp):
            return e.op in ("and", "or", "==", "!=", "<", "<=", ">", ">=", "has")
        return isinstance(e, ir.Not)

    def _static_int(self, e, calling: frozenset = frozenset()) -> bool:
        """`e` is a whole number (never true/false or none) whenever it has a value: a number, a count or
        size, a def whose body is one, or +, -, * or a choice of two such."""
        if isinstance(e, ir.Int):
            return type(e.value) is int
        if isinstance(e, ir.Agg):
            return e.func in ("count", "size")
        if isinstance(e, ir.Call):
            if e.func in self.rules.defs_ir:
                if e.func in calling:
                    return False
                return self._static_int(self.rules.defs_ir[e.func].body, calling | {e.func})
            return e.func in ("count", "size") and len(e.args) == 1
        if isinstance(e, ir.BinOp):
            return e.op in ("+", "-", "*") and self._static_int(e.left, calling) and self._static_int(e.right, calling)
        if isinstance(e, ir.Cond):
            return self._static_int(e.then, calling) and self._static_int(e.orelse, calling)
        return False

    def _plain(self, e) -> bool:
        """A name or string literal, or a card field that only ever holds names (or none): `==` with it
        cannot confuse true with 1, so plain == is _same."""
        if isinstance(e, (ir.Symbol, ir.Str)):
            return True
        return isinstance(e, ir.Attr) and e.name in self._name_fields()

    def _name_fields(self) -> set:
        """Static card fields whose every value is a name or none, and which no player reads under the same
        name (an object that is not a card then gives none or an error, never a number or a truth value)."""
        if self._names is None:
            t = self.t
            names = {f for fields in t.fields for f in fields}
            taken = set(t.player_zone_names) | set(t.player_vars) | set(t.tokens) | set(t.state_default) \
                | set(_CARD_SPECIAL) | {"eliminated", "seat"}
            self._names = {f for f in names - taken
                           if all(type(fields.get(f)) in (str, type(None)) for fields in t.fields)}
        return self._names

    def g_Not(self, e, scope):
        return f"(not {self.gen(e.operand, scope)})"

    def g_Neg(self, e, scope):
        return f"_neg({self.gen(e.operand, scope)}, {self._const(e.span, 'span')})"

    def g_Cond(self, e, scope):
        # generated then, test, else; run test first, then one branch: only the test's calls are shared after it
        then = self._cond(self.gen, e.then, scope)
        test = self.gen(e.test, scope)
        return f"({then} if {test} else {self._cond(self.gen, e.orelse, scope)})"

    def g_Ranking(self, e, scope):
        seq = self._filtered(e.var, e.coll, e.where, scope)
        keys = tuple((self(k.expr), k.descending) for k in e.keys)  # key functions read the env rank_groups binds
        values = self.key_values(e.var, [k.expr for k in e.keys], keys, e.span) if keys else None
        if values is not None:
            return (f"_ranking_by(st, {seq}, {self._env(scope)}, {self._const(values, 'kv')}, "
                    f"{tuple(k.descending for k in e.keys)!r}, {e.kind!r}, {e.fallback!r}, "
                    f"{self._const(e.span.site, 'site')})")
        return (f"_ranking(st, {seq}, {self._env(scope)}, {e.var!r}, {self._const(keys)}, {e.kind!r}, "
                f"{e.fallback!r}, {self._const(e.span, 'span')}, {self._const(e.span.site, 'site')})")

    def key_values(self, var: str, exprs: list, keys: tuple, span):
        """A ranking's keys as one generated function `values(st, env, k, group)`: key k of each element of `group`
        in turn, `var` a Python local bound to the element (no env copied and set per element, no key function
        called per element), the first none raising the spec's error before a later element is looked at, as
        runtime.rank_groups evaluates them (runtime.rank_by parts the groups).  The env's locals the keys read are
        read once, at its start; one without a value sends the call to the key functions `keys`, element by element
        (whose closures raise the located error).  None where a key cannot be generated."""
        name = self._fresh("kv")
        x = "_x"
        saved, self._reads = self._reads, {}
        shared = self._own_cse(uncond=False)  # each key runs per element
        try:
            codes = [self.gen(k, {var: x}) for k in exprs]
            hoisted = self._hoisted()
        finally:
            self._reads = saved
            self._cse, self._uncond = shared
        none = self._const(span, "span")
        lines = []
        for k, code in enumerate(codes):
            test = f"if k == {k}:\n            " if k < len(codes) - 1 else ""
            lines.append(f"{test}return [(_v if (_v := {code}) is not None else _key_none({x}, {none})) "
                         f"for {x} in group]")
        slow = self._const(_SlowValues(var, keys, span), "kvslow")
        src = (f"def {name}(st, env, k, group):\n"
               f"    # {self._where(span)}\n"
               f"    try:\n"
               f"        {hoisted}" + "\n        ".join(lines) + "\n"
               f"    except KeyError:  # a local without a value: the key functions, whose closures raise the error\n"
               f"        return {slow}(st, env, k, group)\n")
        code = self._compiled(src, name)
        if code is None:
            return None
        exec(code, self.ns)  # generated from IR nodes only (see the module's docstring)
        self.sources.append(src)
        return self.ns[name]


# nodes whose parts run once per element (or only behind a test of the value): no call in them is shared after them
_PER_ELEMENT = (ir.ListComp, ir.Agg, ir.Ranking)
# a def call's argument that _shared compares by its code: a Python local (an env local read at the start, a
# parameter, a comprehension's variable) or a literal
_SIMPLE_ARG = re.compile(r"^(?:_l\d+|_a\d+|v\d+|_x|-?\d+|'[A-Za-z0-9_ ]*'|None|True|False)$")


class _SlowValues:
    """A ranking's key values as runtime.rank_groups works them out: each key function called on a copy of the env
    with the element bound (the generated values function's way out where a local has no value)."""

    __slots__ = ("var", "keys", "span")

    def __init__(self, var, keys, span):
        self.var, self.keys, self.span = var, keys, span

    def __call__(self, st, env, k, group):
        inner = dict(env)
        fn = self.keys[k][0]
        out = []
        for x in group:
            inner[self.var] = x
            v = fn(st, inner)
            if v is None:
                key_none(x, self.span)
            out.append(v)
        return out


class _LazyClosure:
    """The closure interpreter's function for a node, built the first time it is needed."""

    __slots__ = ("closures", "node", "fn")

    def __init__(self, closures, node):
        self.closures, self.node, self.fn = closures, node, None

    def __call__(self, st, env):
        if self.fn is None:
            self.fn = self.closures(self.node)
        return self.fn(st, env)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
