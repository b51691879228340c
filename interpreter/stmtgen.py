"""Straight runs of statements written out as Python source (the compiled engine).

A run of statements that can never stop the machine (compile.py's `runs_through`: no choice, chance,
break, end or win inside, nor in a procedure it calls) used to run as a tree of closures: one op per
statement, a sequence wrapper per block, a call per loop pass.  Here the run becomes one generated
function `(state, frame)`: its loops are Python `for` loops, its `if`s Python `if`s, a procedure it calls
is written out in place (its arguments put in a new env, as the call would), `let` stores into the env at
once, and each expression is a call of its generated function (codegen.py).  Every other statement is a
call of the statement's own op, the closure that runs it anywhere else, so what it does (its checks, its
located errors, its events) is the same code.  `soan compile SPEC --show` prints these functions too, each
statement under a comment with its spec line.

Same games, bit for bit: each statement does what its closure does, in the same order, on the same env;
nothing can copy the state in the middle of a run (a copy is only taken at a decision or chance event).
The source is made only from the checked IR: names enter it as `repr` of a spec identifier, everything else
(expressions, ops, spans) as constants of the generated module's namespace, so a spec cannot put code in.
"""

from __future__ import annotations

import re

from soan.dsl import ir
from soan.dsl.limits import MAX_LOOP_PASSES

from .codegen import _CODE_CACHE, _CODE_CACHE_MAX
from soan.dsl.errors import SpecRuntimeError

from .runtime import ZoneRef, fmt, int_fits
from .state import Frame, _over_budget, player_index

# Python refuses more than 20 statically nested loops (and a parser has its depth): a run nested deeper than
# this goes on as closures from there
MAX_NESTED_LOOPS = 12
MAX_INLINED = 40  # procedures written out inside one another, at most (deeper: the call's op)


class _Site:
    """A generated loop, named for the step budget's message as a frame's loop would be."""

    __slots__ = ("what", "span")

    def __init__(self, what, span):
        self.what, self.span = what, span


def _cannot_set(name, o, span):
    raise SpecRuntimeError(f"cannot set '{name}' of {fmt(o)}", span)


def _bad_award(v, span):
    raise SpecRuntimeError(f"an award must be a number, got {fmt(v)}", span)


def _score_check(st, domain, new, i, item, span):
    """compile.py's s_Award check of a score with a declared domain, as its op makes it."""
    if not int_fits(domain, new):
        st.t.check_domain(domain, new, f"P{i + 1}'s {item} score", span)


class StmtCodegen:
    """Straight runs of statements -> one generated function each (see the module's docstring)."""

    def __init__(self, rules, x):
        self.rules = rules
        self.x = x  # the expression codegen: its namespace, constants, spec-line comments and cache key
        x.ns.setdefault("_Frame", Frame)
        x.ns.setdefault("_over_budget", _over_budget)
        x.ns.setdefault("_MAX_PASSES", MAX_LOOP_PASSES)
        x.ns.setdefault("enumerate", enumerate)
        x.ns.setdefault("int", int)
        x.ns.setdefault("_ZoneRef", ZoneRef)
        x.ns.setdefault("_cannot_set", _cannot_set)
        x.ns.setdefault("_bad_award", _bad_award)
        x.ns.setdefault("_score_check", _score_check)
        x.ns.setdefault("_player_index", player_index)
        x.ns.setdefault("isinstance", isinstance)
        self._n = 0

    def run(self, stmts, sim: bool):
        """One op(st, f) that carries out `stmts` (each of which runs through) in order."""
        self._n += 1
        name = f"r{self._n}"
        self._names = 0
        lines: list[str] = []
        self._block(stmts, sim, "env", "f", 1, 0, 0, lines)
        where = self.x._where(getattr(stmts[0], "span", None))
        src = (f"def {name}(st, f):\n"
               f"    # {where}\n"
               f"    # ({len(stmts)} statement{'s' if len(stmts) > 1 else ''} run straight: nothing in {'them' if len(stmts) > 1 else 'it'} can stop)\n"
               f"    env = f.env\n" + "".join(lines))
        key = (self.x.key, src)
        code = _CODE_CACHE.get(key)
        if code is None:
            if len(_CODE_CACHE) > _CODE_CACHE_MAX:
                _CODE_CACHE.clear()
            try:
                code = _CODE_CACHE[key] = compile(src, f"<soan {self.x.t.spec.path} {name}>", "exec")
            except (SyntaxError, RecursionError, MemoryError):  # too deep for Python's compiler: the closures
                return self.rules.closure_run(stmts, sim)
        exec(code, self.x.ns)  # generated from IR nodes only (see the module's docstring)
        self.x.sources.append(src)
        return self.x.ns[name]

    # ---- writing statements ---------------------------------------------------------------

    def _fresh(self, prefix: str) -> str:
        self._names += 1
        return f"_L{prefix}{self._names}"  # _L: no constant of the namespace starts so

    def _k(self, value, hint: str) -> str:
        return self.x._const(value, hint)

    def _e(self, e, env: str) -> str:
        """Code for expression `e`'s value: a call of its generated function, or for a plain local its read from
        the env (a local with no value still goes to the function, whose closure raises the located error)."""
        fn = self._k(self.x(e), "e")
        if isinstance(e, ir.Local):
            return f"({env}[{e.name!r}] if {e.name!r} in {env} else {fn}(st, {env}))"
        return f"{fn}(st, {env})"

    def _block(self, stmts, sim, env, fr, depth, loops, inlined, out) -> None:
        if not stmts:
            out.append("    " * depth + "pass\n")
            return
        for s in stmts:
            self._stmt(s, sim, env, fr, depth, loops, inlined, out)

    def _stmt(self, s, sim, env, fr, depth, loops, inlined, out) -> None:
        pad = "    " * depth
        out.append(f"{pad}# {self.x._where(getattr(s, 'span', None))}\n")
        if isinstance(s, ir.Let):
            out.append(f"{pad}{env}[{s.name!r}] = {self._e(s.value, env)}\n")
        elif isinstance(s, ir.If):
            for k, (test, body) in enumerate(s.branches):
                out.append(f"{pad}{'if' if k == 0 else 'elif'} {self._e(test, env)}:\n")
                self._block(body.stmts if body is not None else (), sim, env, fr, depth + 1, loops, inlined, out)
            if s.orelse is not None:
                out.append(f"{pad}else:\n")
                self._block(s.orelse.stmts, sim, env, fr, depth + 1, loops, inlined, out)
        elif isinstance(s, ir.For) and loops < MAX_NESTED_LOOPS:
            items_of = self._k(self.x.binder(s.var, s.coll, s.where), "b")
            site = self._k(_Site("for loop", s.span), "site")
            k, x, items = self._fresh("k"), self._fresh("x"), self._fresh("items")
            out.append(f"{pad}{items}, _ = {items_of}(st, {env})\n"
                       f"{pad}for {k}, {x} in enumerate({items}):\n"
                       f"{pad}    if {k}:  # a pass counts towards the game's step budget\n"
                       f"{pad}        st.passes += 1\n"
                       f"{pad}        if st.passes > _MAX_PASSES:\n"
                       f"{pad}            raise _over_budget({site})\n"
                       f"{pad}    {env}[{s.var!r}] = {x}\n")
            if s.body is not None:
                self._block(s.body.stmts, sim, env, fr, depth + 1, loops + 1, inlined, out)
        elif isinstance(s, ir.Set) and s.op == "=" and isinstance(s.target, ir.Attr):
            self._set_attr(s, env, pad, out)
        elif isinstance(s, ir.Move):
            # compile.py's s_Move op: one card moved without a list of cards made by cards_of
            w, c, d, span = self._fresh("w"), self._fresh("c"), self._fresh("d"), self._k(s.span, "span")
            out.append(f"{pad}{w} = {self._e(s.what, env)}\n"
                       f"{pad}{c} = [{w}.id] if type({w}) is _CardRef else st.cards_of({w}, {span})\n"
                       f"{pad}{d} = {self._e(s.dest, env)}\n"
                       f"{pad}st.move_cards({c}, {d}.slot if type({d}) is _ZoneRef else st.zone_of({d}, {span}), "
                       f"{s.at_top!r}, {self._k(s.face, 'k')}, {span})\n")
        elif isinstance(s, ir.Award):
            self._award(s, env, pad, out)
        elif isinstance(s, ir.Say):  # its op does nothing unless the game is narrated
            out.append(f"{pad}if st.narrate:\n{pad}    {self._k(self.rules.fused(s, sim), 'op')}(st, {fr})\n")
        elif isinstance(s, ir.Phase):
            out.append(f"{pad}st.event('phase', {self._k(s.name, 'k')}, {self._k(s.title, 'k')})\n")
            if s.body is not None:
                self._block(s.body.stmts, sim, env, fr, depth, loops, inlined, out)
        elif isinstance(s, ir.Do) and inlined < MAX_INLINED:
            proc = self.rules.procs_ir[s.proc]
            env2, fr2 = self._fresh("env"), self._fresh("f")
            pairs = ", ".join(f"{p!r}: {self._e(a, env)}" for p, a in zip(proc.params, s.args))
            out.append(f"{pad}{env2} = {{{pairs}}}  # do {s.proc}\n")
            if proc.body is not None:
                body: list[str] = []
                self._block(proc.body.stmts, sim, env2, fr2, depth, loops, inlined + 1, body)
                if re.search(rf"\b{fr2}\b", "".join(body)):  # a frame only for the ops in the body that take one
                    out.append(f"{pad}{fr2} = _Frame((), {env2})\n")
                out.extend(body)
        else:  # any other statement: its own op, the closure that runs it everywhere else
            out.append(f"{pad}{self._k(self.rules.fused(s, sim), 'op')}(st, {fr})\n")

    def _set_attr(self, s, env, pad, out) -> None:
        """`set OBJ.NAME = VALUE`, as compile.py's s_Set op for `=` on an attribute: a value that needs no check
        (a whole number inside the declared range, a card or player or none into a variable of that kind)
        stored at once, anything else through set_player_var / set_card_state and their located errors."""
        name, span = s.target.name, self._k(s.span, "span")
        obj, value = self._e(s.target.obj, env), self._e(s.value, env)
        pv_range, cs_ranges = self.rules._int_ranges(name)
        pv_ref = self.rules._ref_type(name)
        o, v = self._fresh("o"), self._fresh("v")
        out.append(f"{pad}{o} = {obj}\n"
                   f"{pad}if type({o}) is _PlayerRef:\n"
                   f"{pad}    {v} = {value}\n")
        tests = []
        if pv_range is not None:
            tests.append(f"type({v}) is int and {pv_range[0]!r} <= {v} <= {pv_range[1]!r}")
        if pv_ref is not None:
            tests.append(f"{v} is None or type({v}) is {'_CardRef' if pv_ref.__name__ == 'CardRef' else '_PlayerRef'}")
        for k, test in enumerate(tests):
            out.append(f"{pad}    {'if' if k == 0 else 'elif'} {test}:\n"
                       f"{pad}        st.pv[{name!r}][{o}.i] = {v}\n")
        general = f"st.set_player_var({name!r}, {o}.i, {v}, {span})\n"
        out.append(f"{pad}    else:\n{pad}        {general}" if tests else f"{pad}    {general}")
        out.append(f"{pad}elif type({o}) is _CardRef:\n"
                   f"{pad}    {v} = {value}\n")
        general = f"st.set_card_state({o}.id, {name!r}, {v}, {span})\n"
        if any(r is not None for r in cs_ranges):
            r = self._fresh("r")
            out.append(f"{pad}    {r} = {self._k(cs_ranges, 'ranges')}[{o}.id]\n"
                       f"{pad}    if {r} is not None and type({v}) is int and {r}[0] <= {v} <= {r}[1]:\n"
                       f"{pad}        st.cs[{name!r}][{o}.id] = {v}\n"
                       f"{pad}    else:\n"
                       f"{pad}        {general}")
        else:
            out.append(f"{pad}    {general}")
        out.append(f"{pad}else:\n"
                   f"{pad}    _cannot_set({name!r}, {o}, {span})\n")

    def _award(self, s, env, pad, out) -> None:
        """`award AMOUNT to WHO for ITEM`, as compile.py's s_Award op: a number checked, then added to each
        player's score (its declared domain checked, if it has one), an event when narrating."""
        span = self._k(s.span, "span")
        amount = self._k(self.x(s.amount), "e")
        domain = self.rules.t.score_domains.get(s.item)
        v, w, col, p, i, new = (self._fresh(k) for k in ("v", "w", "col", "p", "i", "new"))
        out.append(f"{pad}{v} = {amount}(st, {env})\n"
                   f"{pad}if not isinstance({v}, int) or isinstance({v}, bool):\n"
                   f"{pad}    _bad_award({v}, {span})\n"
                   f"{pad}{w} = {self._e(s.player, env)}\n"
                   f"{pad}{col} = st.vp[{s.item!r}]\n"
                   f"{pad}for {p} in (({w},) if type({w}) is _PlayerRef else as_list(st, {w})):\n"
                   f"{pad}    {i} = {p}.i if type({p}) is _PlayerRef else _player_index({p}, {span})\n"
                   f"{pad}    {new} = {col}[{i}] + {v}\n")
        if type(domain) is ir.IntDomain:  # int_fits inline; anything else (outside, or not a number) is checked
            out.append(f"{pad}    if type({new}) is not int or not {domain.lo!r} <= {new} <= {domain.hi!r}:\n"
                       f"{pad}        _score_check(st, {self._k(domain, 'domain')}, {new}, {i}, {s.item!r}, {span})\n")
        elif domain is not None:
            out.append(f"{pad}    _score_check(st, {self._k(domain, 'domain')}, {new}, {i}, {s.item!r}, {span})\n")
        out.append(f"{pad}    {col}[{i}] = {new}\n"
                   f"{pad}    if {v} and st.narrate:\n"
                   f"{pad}        st.events.append(('award', {i}, {s.item!r}, {v}))\n")
