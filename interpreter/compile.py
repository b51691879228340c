"""Statements to ops.

Each statement is compiled once into an op `op(state, frame)`.  An op either
does its work at once, pushes a frame (a block, a loop, a procedure), or stops
the machine at a decision or a chance event by setting `state.pending`.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from operator import attrgetter, itemgetter

from soan.dsl import ir
from soan.dsl.errors import SpecRuntimeError

from .runtime import (CardRef, ExprCompiler, PlayerRef, Tables, ZoneRef, as_list, fmt, int_fits, rank_by,
                      rank_groups)
from soan.dsl.limits import MAX_LOOP_PASSES

from .state import PASS, Chance, Decision, Frame, LabelView, LazyChance, LazyDecision, Move, Straight, _over_budget, player_index

_SORT_KEY = attrgetter("sort_key")
_new = object.__new__
_CLASS_KEY = itemgetter(1)  # a class's sort key (item_classes)
MAX_SUBSETS = 20000
MAX_DEPTH = 2000


class _LoopSite:
    """A fused loop, named for the step budget's message as a frame's loop would be."""

    __slots__ = ("what", "span")

    def __init__(self, what, span):
        self.what, self.span = what, span


def _count_pass(st, loop) -> None:
    """A fused loop's pass counts towards the game's step budget, as a frame loop's does."""
    st.passes += 1
    if st.passes > MAX_LOOP_PASSES:
        raise _over_budget(loop)


def _sequence(runs: tuple):
    """One op(st, f) running `runs` in order; two or three without a loop (most fused blocks are short)."""
    if len(runs) == 1:
        return runs[0]
    if len(runs) == 2:
        a, b = runs

        def seq2(st, f):
            a(st, f)
            b(st, f)

        return seq2
    if len(runs) == 3:
        a, b, c = runs

        def seq3(st, f):
            a(st, f)
            b(st, f)
            c(st, f)

        return seq3

    def seq(st, f):
        for r in runs:
            r(st, f)

    return seq


def _binder(params: tuple, args: tuple):
    """bind(st, env) -> a procedure call's env, {param: arg(st, env)} in order; one or two parameters written
    out (most calls), without a comprehension's own call."""
    if len(params) == len(args) == 1:
        (p0,), (a0,) = params, args
        return lambda st, env: {p0: a0(st, env)}
    if len(params) == len(args) == 2:
        (p0, p1), (a0, a1) = params, args
        return lambda st, env: {p0: a0(st, env), p1: a1(st, env)}
    pairs = tuple(zip(params, args))
    return lambda st, env: {p: a(st, env) for p, a in pairs}


def _begin_ending(st, f):
    st.ending = True


class ForLoop:
    __slots__ = ("items", "idx", "var", "span")
    what = "for loop"

    def __init__(self, items, var, span=None):
        self.items, self.idx, self.var, self.span = items, 0, var, span

    def next(self, st, f):
        self.idx += 1
        if self.idx < len(self.items):
            f.env[self.var] = self.items[self.idx]
            return True
        return False

    def copy(self):
        c = ForLoop(self.items, self.var, self.span)
        c.idx = self.idx
        return c


class RepeatLoop:
    __slots__ = ("left", "span")
    what = "repeat loop"

    def __init__(self, left, span=None):
        self.left, self.span = left, span

    def next(self, st, f):
        self.left -= 1
        return self.left > 0

    def copy(self):
        return RepeatLoop(self.left, self.span)


class WhileLoop:
    __slots__ = ("test", "limit", "count", "site", "span")
    what = "while loop"

    def __init__(self, test, limit, site, span=None):
        self.test, self.limit, self.count, self.site, self.span = test, limit, 1, site, span

    def next(self, st, f):
        if self.count > st.loop_peak.get(self.site, 0):  # the most passes one run of this loop made: verify pushes it
            st.loop_peak[self.site] = self.count
        if not self.test(st, f.env):
            return False
        if self.count >= self.limit:
            st.mark("while_limit", self.site)
            return False
        self.count += 1
        return True

    def copy(self):
        c = WhileLoop(self.test, self.limit, self.site, self.span)
        c.count = self.count
        return c


class RoundsLoop:
    __slots__ = ("total", "until", "cap", "site", "span")
    what = "rounds"

    def __init__(self, total, until, cap, site, span=None):
        self.total, self.until, self.cap, self.site, self.span = total, until, cap, site, span

    def next(self, st, f):
        if st.on_round_end is not None:
            st.on_round_end(st)
        if self.until is not None:
            if self.until(st, f.env):
                return False
            if st.round >= self.cap:
                st.mark("round_cap", self.site)
                return False
        elif st.round >= self.total:
            return False
        st.round += 1
        st.event("round", st.round)
        return True

    def copy(self):
        return self


class RuleCompiler:
    def __init__(self, tables: Tables):
        self.t = tables
        spec = tables.spec
        self.defs_ir = {d.name: d for d in spec.defs}
        self.procs_ir = {p.name: p for p in spec.procedures}
        self._def_fns: dict = {}
        self._proc_ops: dict = {}
        self._consts: dict = {}
        self.fuse = tables.engine == "compiled" and not tables.trace
        self._runs_through: dict = {}
        self._stmtgen = None  # straight runs as generated source (stmtgen.py), made when the first one is
        if tables.engine == "compiled":
            from .codegen import ExprCodegen
            self.x = ExprCodegen(tables, self)
        else:
            self.x = ExprCompiler(tables, self)
        self.winner_ops = (self.winner_op(spec.winner),)
        self.end_ops = (_begin_ending,)  # set before the scoring block compiles: `end game` may sit inside it
        scoring = self.block(spec.scoring) if spec.scoring else ()
        self.scoring_ops = (_begin_ending,) + scoring  # the ending without its winner line (bots' copies: evaluate.py)
        self.end_ops = self.scoring_ops + self.winner_ops
        setup = self.setup_ops = self.block(spec.setup) if spec.setup else ()
        self.main_ops = setup + (self.rounds_op(spec.rounds),) + self.end_ops

    def def_fn(self, name):
        fn = self._def_fns.get(name)
        if fn is None:
            fn = self._def_fns[name] = self.x(self.defs_ir[name].body)
        return fn

    def proc_ops(self, name):
        ops = self._proc_ops.get(name)
        if ops is None:
            self._proc_ops[name] = ()  # a recursive call sees an empty body while compiling
            ops = self._proc_ops[name] = self.block(self.procs_ir[name].body)
        return ops

    def eval_const(self, e, st):
        fn = self._consts.get(id(e))
        if fn is None:
            fn = self._consts[id(e)] = self.x(e)
        return fn(st, {})

    def block(self, b: ir.Block | None, sim: bool = False) -> tuple:
        if b is None:
            return ()
        if not self.fuse:
            return tuple(self.stmt(s, sim) for s in b.stmts)
        # Consecutive statements that never stop run as one op, also in a block that stops elsewhere
        # (a choice between them): a state is only copied at a decision or chance event, so never
        # between the statements of such a run, and each frame's ops are made once, the same way for
        # every state, so a frame's position means the same op in any copy.
        ops: list = []
        run: list = []
        for s in b.stmts:
            if self.runs_through(s):
                run.append(s)
                continue
            if run:
                ops.append(self.fused_block(run, sim) if len(run) > 1 else self.stmt(run[0], sim))
                run = []
            ops.append(self.stmt(s, sim))
        if run:
            ops.append(self.fused_block(run, sim) if len(run) > 1 else self.stmt(run[0], sim))
            if len(ops) == 1:  # the whole block never stops: State.apply runs it without a frame
                return Straight(ops)
        return tuple(ops)

    def stmt(self, s: ir.Stmt, sim: bool):
        if self.fuse and isinstance(s, _FUSED_COMPOUNDS) and self.runs_through(s):
            return self.fused_block([s], sim)
        op = getattr(self, "s_" + type(s).__name__)(s, sim)
        if self.t.trace:
            op = _traced(op, s, sim, self.t.reached)
        return op

    # ---- runs that never stop: fused into one op ----------------------------------------
    #
    # A statement that can never stop the machine (no choice, chance, break, end or win inside,
    # nor in a procedure it calls, and no procedure calling itself) runs from start to end in
    # one op: loops as Python loops, blocks as sequences, instead of a frame per block and a
    # trip round State.run per statement.  It does exactly what the frames would, in the same
    # order, on the same env; nothing can copy the state in the middle of it, since a copy is
    # only taken at a decision or chance event.  The compiled engine only (the closure engine
    # stays the frame-by-frame reference), and never when tracing what examples reach.

    def runs_through(self, s: ir.Stmt, calling: frozenset = frozenset()) -> bool:
        key = (id(s), calling)
        hit = self._runs_through.get(key)
        if hit is not None and hit[0] is s:  # the node is kept in the entry, so its id is never reused
            return hit[1]
        if isinstance(s, _LEAVES):
            ok = True
        elif isinstance(s, ir.If):
            ok = all(self._block_runs(b, calling) for _, b in s.branches) and self._block_runs(s.orelse, calling)
        elif isinstance(s, (ir.For, ir.Repeat, ir.Phase)):
            ok = self._block_runs(s.body, calling)
        elif isinstance(s, ir.Do):
            ok = s.proc not in calling and self._block_runs(self.procs_ir[s.proc].body, calling | {s.proc})
        else:
            ok = False
        self._runs_through[key] = (s, ok)
        return ok

    def _block_runs(self, b, calling) -> bool:
        return b is None or all(self.runs_through(s, calling) for s in b.stmts)

    def fused_block(self, stmts, sim):
        # written out as one generated function (stmtgen.py); the closures below stay its fallback
        if self._stmtgen is None:
            from .stmtgen import StmtCodegen
            self._stmtgen = StmtCodegen(self, self.x)
        return self._stmtgen.run(stmts, sim)

    def closure_run(self, stmts, sim):
        return _sequence(tuple(self.fused(s, sim) for s in stmts))

    def fused(self, s: ir.Stmt, sim: bool):
        """An op(st, f) that carries out `s` to its end at once (see runs_through)."""
        if isinstance(s, _LEAVES):
            return getattr(self, "s_" + type(s).__name__)(s, sim)

        def body_of(b):
            if b is None:
                return None
            return _sequence(tuple(self.fused(x, sim) for x in b.stmts))

        if isinstance(s, ir.If):
            branches = tuple((self.x(t), body_of(b)) for t, b in s.branches)
            orelse = body_of(s.orelse)
            if len(branches) == 1 and orelse is None:  # `if` alone, the commonest: no loop over branches
                test1, body1 = branches[0]

                def op(st, f):
                    if test1(st, f.env) and body1 is not None:
                        body1(st, f)

                return op

            def op(st, f):
                for test, body in branches:
                    if test(st, f.env):
                        if body is not None:
                            body(st, f)
                        return
                if orelse is not None:
                    orelse(st, f)

            return op
        if isinstance(s, ir.For):
            items_of, var, body = self.x.binder(s.var, s.coll, s.where), s.var, body_of(s.body)

            where = _LoopSite("for loop", s.span)

            def op(st, f):
                env = f.env
                items, _ = items_of(st, env)
                for k, x in enumerate(items):
                    if k:  # _count_pass, inline
                        st.passes += 1
                        if st.passes > MAX_LOOP_PASSES:
                            raise _over_budget(where)
                    env[var] = x
                    if body is not None:
                        body(st, f)

            return op
        if isinstance(s, ir.Repeat):
            count, span, body = self.x(s.count), s.span, body_of(s.body)
            where = _LoopSite("repeat loop", span)

            def op(st, f):
                n = count(st, f.env)
                if not isinstance(n, int) or isinstance(n, bool):
                    raise SpecRuntimeError(f"repeat needs a number, got {fmt(n)}", span)
                if body is not None:
                    for k in range(n):
                        if k:
                            _count_pass(st, where)
                        body(st, f)

            return op
        if isinstance(s, ir.Phase):
            body, name, title = body_of(s.body), s.name, s.title

            def op(st, f):
                st.event("phase", name, title)
                if body is not None:
                    body(st, f)

            return op
        if isinstance(s, ir.Do):
            args, name = tuple(self.x(a) for a in s.args), s.proc
            params = self.procs_ir[name].params
            body = body_of(self.procs_ir[name].body)

            bind = _binder(params, args)

            def op(st, f):
                env = bind(st, f.env)
                if body is not None:
                    body(st, Frame((), env))

            return op
        raise AssertionError(f"cannot fuse {type(s).__name__}")

    # ---- statements -----------------------------------------------------------------

    def s_Let(self, s, sim):
        name, value = s.name, self.x(s.value)

        def op(st, f):
            f.env[name] = value(st, f.env)

        return op

    def s_Set(self, s, sim):
        value, span, opname = self.x(s.value), s.span, s.op
        t = s.target

        def combine(old, new):
            if opname == "=":
                return new
            if not isinstance(old, int) or not isinstance(new, int):
                raise SpecRuntimeError(f"'{opname}' needs numbers, got {fmt(old)} and {fmt(new)}", span)
            return old + new if opname == "+=" else old - new

        match t:
            case ir.Local(name=name):
                def op(st, f):
                    f.env[name] = combine(f.env.get(name), value(st, f.env))
            case ir.GlobalVar(name=name):
                domain = self.t.global_vars[name].domain

                def op(st, f):
                    v = combine(st.gv[name], value(st, f.env))
                    self.t.check_domain(domain, v, name, span)
                    st.gv[name] = v
            case ir.Attr(obj=obj, name=name) if opname == "=":
                objf = self.x(obj)
                pv_range, cs_ranges = self._int_ranges(name)
                pv_ref = self._ref_type(name)

                def op(st, f):  # a plain `=` never reads the old value: no combine() per set
                    o = objf(st, f.env)
                    if type(o) is PlayerRef:
                        v = value(st, f.env)
                        # a whole number inside the variable's declared range, or a card (a player) or none
                        # into a card (player) variable, is stored at once; anything else goes through
                        # set_player_var, which checks it (and raises the located error)
                        if pv_range is not None and type(v) is int and pv_range[0] <= v <= pv_range[1]:
                            st.pv[name][o.i] = v
                        elif pv_ref is not None and (v is None or type(v) is pv_ref):
                            st.pv[name][o.i] = v
                        else:
                            st.set_player_var(name, o.i, v, span)
                    elif type(o) is CardRef:
                        v = value(st, f.env)
                        r = cs_ranges[o.id]
                        if r is not None and type(v) is int and r[0] <= v <= r[1]:
                            st.cs[name][o.id] = v
                        else:
                            st.set_card_state(o.id, name, v, span)
                    else:
                        raise SpecRuntimeError(f"cannot set '{name}' of {fmt(o)}", span)
            case ir.Attr(obj=obj, name=name):
                objf = self.x(obj)
                pv_range, cs_ranges = self._int_ranges(name)
                sign = 1 if opname == "+=" else -1

                def op(st, f):
                    o = objf(st, f.env)
                    if type(o) is PlayerRef:
                        old = st.pv[name][o.i] if name in st.pv else None
                        new = value(st, f.env)
                        # numbers into a number variable's range: combine() and set_player_var, inline
                        if pv_range is not None and type(old) is int and type(new) is int:
                            v = old + sign * new
                            if pv_range[0] <= v <= pv_range[1]:
                                st.pv[name][o.i] = v
                                return
                        st.set_player_var(name, o.i, combine(old, new), span)
                    elif type(o) is CardRef:
                        old = st.cs[name][o.id] if name in st.cs else None
                        st.set_card_state(o.id, name, combine(old, value(st, f.env)), span)
                    else:
                        raise SpecRuntimeError(f"cannot set '{name}' of {fmt(o)}", span)
            case _:
                raise SpecRuntimeError("this cannot be set", span)
        return op

    def _ref_type(self, name: str):
        """CardRef if player variable `name` holds a card (or none), PlayerRef if it holds a player, else None:
        a value of that type, or none, is in its domain (runtime.in_domain) with no other check."""
        var = self.t.player_vars.get(name)
        if var is None:
            return None
        return {ir.CardDomain: CardRef, ir.PlayerDomain: PlayerRef}.get(type(var.domain))

    def _int_ranges(self, name: str):
        """(lo, hi) of player variable `name` if it is a number variable (else None), and for each card id
        (lo, hi) of its state `name` if it is a number state (else None): the sets that need no other check."""
        t = self.t
        var = t.player_vars.get(name)
        pv_range = (var.domain.lo, var.domain.hi) if var is not None and type(var.domain) is ir.IntDomain else None
        cs_ranges = []
        for k in t.kind:
            d = t.state_domain.get((k, name))
            cs_ranges.append((d.lo, d.hi) if type(d) is ir.IntDomain else None)
        return pv_range, tuple(cs_ranges)

    def s_Move(self, s, sim):
        what, dest, span, at_top, face = self.x(s.what), self.x(s.dest), s.span, s.at_top, s.face

        def op(st, f):
            w = what(st, f.env)
            cids = [w.id] if type(w) is CardRef else st.cards_of(w, span)  # one card: no as_list
            d = dest(st, f.env)
            st.move_cards(cids, d.slot if type(d) is ZoneRef else st.zone_of(d, span), at_top, face, span)

        return op

    def s_Draw(self, s, sim):
        count, src, dest, span = self.x(s.count), self.x(s.source), self.x(s.dest), s.span
        at_top, face, site = s.at_top, s.face, s.span.site

        def op(st, f):
            n = count(st, f.env)
            if not isinstance(n, int) or n < 0:
                raise SpecRuntimeError(f"cannot draw {fmt(n)} cards", span)
            pile = st.zones[st.zone_of(src(st, f.env), span)]
            if len(pile) < n:
                st.mark("short_draw", site)
            st.move_cards(list(pile[:n]), st.zone_of(dest(st, f.env), span), at_top, face, span)

        return op

    def s_Exchange(self, s, sim):
        a, b, span = self.x(s.a), self.x(s.b), s.span

        def op(st, f):
            ca, cb = a(st, f.env), b(st, f.env)
            if type(ca) is not CardRef or type(cb) is not CardRef:
                raise SpecRuntimeError(f"exchange needs two cards, got {fmt(ca)} and {fmt(cb)}", span)
            x, y = ca.id, cb.id
            sx, sy = st.loc[x], st.loc[y]
            ix, iy = st.zones[sx].index(x), st.zones[sy].index(y)
            st.known[x] |= st.viewers(x)
            st.known[y] |= st.viewers(y)
            st.zones[sx][ix], st.zones[sy][iy] = y, x
            st.loc[x], st.loc[y] = sy, sx

        return op

    def s_Shuffle(self, s, sim):
        zone, span = self.x(s.zone), s.span

        def op(st, f):
            slot = st.zone_of(zone(st, f.env), span)
            n = len(st.zones[slot])
            if n > 1:
                st.pending = Chance("shuffle", n, target=slot, text=f"shuffle {st.t.zone_label(slot)}")
            else:
                for cid in st.zones[slot]:
                    st.known[cid] = 0

        return op

    def s_Roll(self, s, sim):
        what, span = self.x(s.what), s.span

        def op(st, f):
            d = what(st, f.env)
            if type(d) is not CardRef:
                raise SpecRuntimeError(f"roll needs one die, got {fmt(d)}", span, "roll dice one at a time: for d in ... { roll d }")
            faces = st.t.fields[d.id].get("faces")
            if not isinstance(faces, int) or "face" not in st.t.kind_states[st.t.kind[d.id]]:
                raise SpecRuntimeError(f"{st.t.card_labels[d.id]} is not a die",
                                       span, "a die is a component with a field 'faces' and a state 'face'")
            st.pending = Chance("roll", _roll_outcomes(faces), target=d.id, text=f"roll {st.t.card_labels[d.id]}")

        return op

    def s_Flip(self, s, sim):
        what, span, down = self.x(s.what), s.span, s.face == "facedown"

        def op(st, f):
            for cid in st.cards_of(what(st, f.env), span):
                if down and not st.facedown[cid]:
                    st.known[cid] = st.viewers(cid)
                st.facedown[cid] = down

        return op

    def s_Look(self, s, sim):
        who, what, span = self.x(s.who), self.x(s.what), s.span

        def op(st, f):
            bits = 0
            for p in as_list(st, who(st, f.env)):
                bits |= 1 << player_index(p, span)
            for cid in st.cards_of(what(st, f.env), span):
                st.known[cid] |= bits

        return op

    def s_Choose(self, s, sim):
        player, span, site = self.x(s.player), s.span, s.span.site
        pass_if = self.x(s.pass_if)
        orelse = self.block(s.orelse, sim) if s.orelse else None
        prompt = s.prompt

        def decide(st, f, p, moves, var, body, bodies, in_order=False):
            env = f.env
            if not moves:
                st.mark("no_choice", site)
                if orelse:
                    st.frames.append(Frame(orelse, env))
                return
            if pass_if is not None and pass_if(st, env):
                moves.append(Move("pass", PASS, (9, "pass")))
                # selections come sorted and their keys are not comparable with the pass's: the pass goes
                # last, where a sort put it whenever it could compare them (fewer than 9 items)
                in_order = in_order and bodies is None
            if bodies is None and not in_order:
                moves.sort(key=_SORT_KEY)
            st.pending = Decision(p, tuple(moves), var, env, body, orelse, bodies, prompt, sim, site)

        if s.options:
            bodies = tuple(self.block(o.body, sim) for o in s.options)
            # each option's move made once (moves are never changed), offered where its condition holds
            options = tuple((self.x(o.when), Move(o.name, i)) for i, o in enumerate(s.options))

            def op(st, f):
                env = f.env
                p = player_index(player(st, env), span)
                moves = [m for when, m in options if when is None or when(st, env)]
                decide(st, f, p, moves, None, None, bodies)

            return op

        candidates, var = self.x.binder(s.var, s.source, s.where), s.var
        body = self.block(s.body, sim)
        lo_f, hi_f, kind = self.x(s.count_lo), self.x(s.count_hi), s.count_kind

        def op(st, f):
            env = f.env
            p = player_index(player(st, env), span)
            items, _ = candidates(st, env)
            if kind is None:
                if st.lazy_moves and items and pass_if is None:  # a bot's copy: the moves made when read
                    st.pending = LazyDecision(p, sorted_item_moves, (LabelView(st), items, p), var, env, body, orelse,
                                              prompt, sim, site)
                    return
                moves = item_moves(st, items, p)
                if moves and pass_if is None:  # decide(), inline: the commonest choice, one item and no pass
                    moves.sort(key=_SORT_KEY)
                    st.pending = Decision(p, tuple(moves), var, env, body, orelse, None, prompt, sim, site)
                    return
            else:
                # a bot's copy choosing among cards: the items' classes (their labels) made only when the moves are
                # read, where subset_plan's checks can be made now without them (_deferred_plan); elsewhere made
                # before the bounds are read, as always (on cards item_classes raises nothing, so there they wait)
                lazy_cards = st.lazy_moves and pass_if is None and _all_cards(items)
                classes = None if lazy_cards else item_classes(st, items, p)
                lo = 0 if lo_f is None else lo_f(st, env)
                hi = hi_f(st, env)
                if lazy_cards:
                    deferred = _deferred_plan(len(items), lo, hi, span)
                    if deferred is not None:
                        if deferred:
                            st.pending = LazyDecision(p, classed_selections, (LabelView(st), items, p, lo, hi, span),
                                                      var, env, body, orelse, prompt, sim, site)
                            return
                        decide(st, f, p, [], var, body, None, True)
                        return
                    classes = item_classes(st, items, p)
                if st.lazy_moves and pass_if is None:  # a bot's copy: the selections made when read
                    plan = subset_plan(classes, lo, hi, span)  # the bounds checked, and emptiness known, at once
                    if plan is not None:
                        st.pending = LazyDecision(p, planned_selections, (plan,), var, env, body, orelse, prompt, sim,
                                                  site)
                        return
                    moves = []
                else:
                    moves = subset_moves(classes, lo, hi, span)
            # selections come sorted by their keys, each its own (_selections): a sort would leave them be
            decide(st, f, p, moves, var, body, None, kind is not None)

        return op

    def s_Pick(self, s, sim):
        src, weight, var, span = self.x(s.source), self.x(s.weight), s.var, s.span
        body = self.block(s.body, sim)

        def op(st, f):
            env = f.env
            items = as_list(st, src(st, env))
            if weight is not None:
                inner = dict(env)
                ws = []
                for x in items:
                    inner[var] = x
                    w = weight(st, inner)
                    if not isinstance(w, int) or w < 0:
                        raise SpecRuntimeError(f"a weight must be a whole number of 0 or more, got {fmt(w)}", span)
                    ws.append(w)
            else:
                ws = [1] * len(items)
            pairs = [(x, w) for x, w in zip(items, ws) if w > 0]
            if not pairs:
                st.mark("empty_pick", span.site)
                return
            if len(pairs) == 1:
                env[var] = pairs[0][0]
                st.frames.append(Frame(body, env))
                return
            if st.lazy_moves:  # a bot's copy: the outcomes made when read
                st.pending = LazyChance("pick", pick_outcomes, (LabelView(st), pairs), var, env, body, text)
                return
            outcomes, values = pick_outcomes(st, pairs)
            st.pending = Chance("pick", outcomes, values, var, env, body, text=text)

        text = f"random {ir.shown(var)}"
        return op

    def s_For(self, s, sim):
        items_of, var, span = self.x.binder(s.var, s.coll, s.where), s.var, s.span
        inner_sim = sim or s.simultaneous
        body = self.block(s.body, inner_sim)

        def op(st, f):
            env = f.env
            items, _ = items_of(st, env)
            if items:
                env[var] = items[0]
                st.frames.append(Frame(body, env, ForLoop(items, var, span)))

        return op

    def s_Repeat(self, s, sim):
        count, span, body = self.x(s.count), s.span, self.block(s.body, sim)

        def op(st, f):
            n = count(st, f.env)
            if not isinstance(n, int) or isinstance(n, bool):
                raise SpecRuntimeError(f"repeat needs a number, got {fmt(n)}", span)
            if n > 0:
                st.frames.append(Frame(body, f.env, RepeatLoop(n, span)))

        return op

    def s_While(self, s, sim):
        test, limit, span, body = self.x(s.test), self.x(s.limit), s.span, self.block(s.body, sim)
        site = span.site

        def op(st, f):
            lim = limit(st, f.env)
            if not isinstance(lim, int) or lim < 1:
                raise SpecRuntimeError(f"a while loop needs a limit of at least 1, got {fmt(lim)}", span)
            if test(st, f.env):
                st.frames.append(Frame(body, f.env, WhileLoop(test, lim, site, span)))

        return op

    def s_Break(self, s, sim):
        def op(st, f):
            while st.frames:
                g = st.frames.pop()
                if g.loop is not None:
                    return

        return op

    def s_If(self, s, sim):
        # a branch that can never stop (Straight: one fused op) runs at once, as State.apply runs such a body,
        # without a frame pushed and popped round State.run; the others as a frame
        branches = tuple((self.x(t), b, b[0] if type(b) is Straight else None)
                         for t, b in ((t, self.block(b, sim)) for t, b in s.branches))
        if s.orelse:
            orelse = self.block(s.orelse, sim)
            branches += ((None, orelse, orelse[0] if type(orelse) is Straight else None),)

        def op(st, f):
            env = f.env
            for test, body, now in branches:
                if test is None or test(st, env):
                    if now is not None:
                        now(st, Frame(body, env))
                    else:
                        st.frames.append(Frame(body, env))
                    return

        return op

    def s_Do(self, s, sim):
        args, name, span = tuple(self.x(a) for a in s.args), s.proc, s.span
        params = self.procs_ir[name].params

        bind = _binder(params, args)

        def op(st, f):
            env = bind(st, f.env)
            if len(st.frames) > MAX_DEPTH:
                raise SpecRuntimeError(f"the rules nest more than {MAX_DEPTH} deep here", span,
                                       f"does procedure '{name}' call itself without end?")
            st.frames.append(Frame(self.proc_ops(name), env))

        return op

    def s_Award(self, s, sim):
        amount, player, item, span = self.x(s.amount), self.x(s.player), s.item, s.span
        domain = self.t.score_domains.get(item)

        def op(st, f):
            v = amount(st, f.env)
            if not isinstance(v, int) or isinstance(v, bool):
                raise SpecRuntimeError(f"an award must be a number, got {fmt(v)}", span)
            who = player(st, f.env)
            col = st.vp[item]
            for p in ((who,) if type(who) is PlayerRef else as_list(st, who)):  # one player: no as_list
                i = player_index(p, span)
                new = col[i] + v
                if domain is not None and not int_fits(domain, new):
                    st.t.check_domain(domain, new, f"P{i + 1}'s {item} score", span)
                col[i] = new
                if v and st.narrate:  # State.event, inline
                    st.events.append(("award", i, item, v))

        return op

    def s_Give(self, s, sim):
        amount, player, token, span = self.x(s.amount), self.x(s.player), s.token, s.span
        tok = self.t.tokens[token]
        site = span.site

        def op(st, f):
            n = amount(st, f.env)
            i = player_index(player(st, f.env), span)
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise SpecRuntimeError(f"cannot give {fmt(n)} {token}", span)
            have = st.supply[token]
            given = n
            if n > have:
                st.mark("short_supply", (token, site))
                rule = tok.when_short
                if rule == "ruling":
                    st.consulted.add(tok.short_ruling)
                    rule = st.t.params[tok.short_ruling]
                given = have if rule == "partial" else n
            st.supply[token] = max(0, have - given)
            new = st.pv[token][i] + given
            if not int_fits(tok.hold, new):
                st.t.check_domain(tok.hold, new, f"P{i + 1}'s {token}", span)
            st.pv[token][i] = new
            if given:
                st.event("token", i, token, given)

        return op

    def s_Return(self, s, sim):
        amount, player, token, span = self.x(s.amount), self.x(s.player), s.token, s.span
        tok = self.t.tokens[token]

        def op(st, f):
            n = amount(st, f.env)
            i = player_index(player(st, f.env), span)
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise SpecRuntimeError(f"cannot return {fmt(n)} {token}", span)
            back = min(n, st.pv[token][i])
            # the holding keeps its declared domain, as after a give (conservation relies on it)
            st.t.check_domain(tok.hold, st.pv[token][i] - back, f"P{i + 1}'s {token}", span)
            st.pv[token][i] -= back
            st.supply[token] += back

        return op

    def s_Eliminate(self, s, sim):
        player, reason, span = self.x(s.player), s.reason, s.span

        def op(st, f):
            i = player_index(player(st, f.env), span)
            st.elim[i] = True
            st.event("eliminate", i, reason or "")

        return op

    def s_Win(self, s, sim):
        player, span = self.x(s.player), s.span

        def op(st, f):
            st.finish([player_index(player(st, f.env), span)], False, "immediate win")

        return op

    def s_EndGame(self, s, sim):
        def op(st, f):
            # During the final scoring, `end game` ends the scoring itself.
            ops = self.winner_ops if st.ending else self.end_ops
            st.frames.clear()
            st.frames.append(Frame(ops, {}))

        return op

    def s_Phase(self, s, sim):
        body, name, title = self.block(s.body, sim), s.name, s.title

        def op(st, f):
            st.event("phase", name, title)
            st.frames.append(Frame(body, f.env))

        return op

    def s_Check(self, s, sim):
        test, msg, span = self.x(s.test), s.message, s.span

        def op(st, f):
            if not test(st, f.env):
                raise SpecRuntimeError(f"check failed: {msg or 'condition is false'}", span)

        return op

    def s_Say(self, s, sim):
        text = s.text
        names = tuple(re.findall(r"\{([a-z_][a-z0-9_]*(?:~[0-9]+)?)\}", text, flags=re.I))

        def op(st, f):
            if st.narrate:
                out = text
                for name in names:
                    if name in f.env:
                        out = out.replace("{" + name + "}", value_label(st, f.env[name]))
                st.event("say", out)

        return op

    # ---- the game's frame -----------------------------------------------------------------

    def rounds_op(self, r: ir.Rounds | None):
        if r is None:
            return lambda st, f: None
        body = self.block(r.body)
        total = self.x(r.count)
        until = self.x(r.until)
        cap = self.x(r.cap)
        site = r.span.site

        def op(st, f):
            n = total(st, f.env) if total is not None else None
            c = cap(st, f.env) if cap is not None else None
            if n is not None and n <= 0:
                return
            st.round = 1
            st.event("round", 1)
            st.frames.append(Frame(body, {}, RoundsLoop(n, until, c, site, r.span)))

        return op

    def winner_op(self, w: ir.Winner | None):
        if w is None:
            return lambda st, f: st.finish([], False, "the spec names no winner")
        candidates, var = self.x.binder(w.var, w.coll, w.where), w.var
        keys = tuple((self.x(k.expr), k.descending) for k in w.keys)
        fallback, span = w.fallback, w.span
        site = span.site
        values = key_values(self.x, var, w.keys, keys, span)
        descs = tuple(d for _, d in keys)

        def op(st, f):
            items, _ = candidates(st, {})
            groups = (rank_groups(st, items, {}, var, keys, span, top_only=True) if values is None
                      else rank_by(st, items, {}, values, descs, top_only=True))
            if not groups:
                st.finish([], False, "no player is left to win")
                return
            top = groups[0]
            if len(top) == 1:
                st.finish([top[0].i], False, "highest ranking")
                return
            st.mark("tie_fallback", site)
            if fallback == "stable":
                st.finish([top[0].i], False, "tie left to seat order")
            else:
                st.finish([p.i for p in top], fallback == "draw", "draw" if fallback == "draw" else "shared win")

        return op


def key_values(x, var: str, keys_ir, keys: tuple, span):
    """The compiled engine's generated values function for a ranking's keys (codegen.ExprCodegen.key_values, for
    runtime.rank_by), or None: on the closure interpreter, or for a ranking without keys (runtime.rank_groups then)."""
    make = getattr(x, "key_values", None)
    if make is None or not keys:
        return None
    return make(var, [k.expr for k in keys_ir], keys, span)


_LEAVES = (ir.Let, ir.Set, ir.Move, ir.Draw, ir.Exchange, ir.Flip, ir.Look, ir.Award, ir.Give, ir.Return,
           ir.Eliminate, ir.Say, ir.Check)
_FUSED_COMPOUNDS = (ir.If, ir.For, ir.Repeat, ir.Phase, ir.Do)


# ---- what an example reaches -------------------------------------------------------------------

_KIND_NAMES = {"EndGame": "end_stmt", "If": "if_stmt"}
_SET_KINDS = {"=": "set_assign", "+=": "set_add", "-=": "set_sub"}


def stmt_kind(s: ir.Stmt) -> str:
    """The grammar's name for a statement's kind (its alias in soan.lark)."""
    name = type(s).__name__
    if isinstance(s, ir.Set):
        return _SET_KINDS[s.op]
    if isinstance(s, ir.For):
        return "simultaneous_stmt" if s.simultaneous else "for_stmt"
    if isinstance(s, ir.Choose):
        return "choose_option" if s.options else "choose_items"
    return _KIND_NAMES.get(name) or re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower() + "_stmt"


def decision_kinds(s: ir.Choose, sim: bool, d: Decision) -> set[str]:
    """The kinds of decision a choice offers: one item, up to / exactly /
    between N items, a named option; with a pass; made simultaneously."""
    kinds = {"option" if s.options else (s.count_kind or "one")}
    if any(m.value is PASS for m in d.moves):
        kinds.add("pass")
    if sim:
        kinds.add("simultaneous")
    return kinds


def _traced(op, s, sim, reached: set):
    kind = stmt_kind(s)

    def traced(st, f):
        reached.add(("statement", kind))
        before = st.pending
        op(st, f)
        if isinstance(s, ir.Choose) and st.pending is not before and isinstance(st.pending, Decision):
            reached.update(("decision", k) for k in decision_kinds(s, sim, st.pending))

    return traced


@lru_cache(maxsize=64)
def _roll_outcomes(faces: int) -> tuple:
    """A die's outcomes, ("1", 1/faces) ... ("faces", 1/faces): made once per number of faces (a tuple of Fractions,
    never changed), not at every roll."""
    p = Fraction(1, faces)
    return tuple((str(k), p) for k in range(1, faces + 1))


# ---- choices over items ------------------------------------------------------------------------


def pick_outcomes(st, pairs) -> tuple[tuple, tuple]:
    """A random pick's outcomes ((label, chance) for each (item, weight) of `pairs`) and its values (the items)."""
    total = sum(w for _, w in pairs)
    return tuple((value_label(st, x), Fraction(w, total)) for x, w in pairs), tuple(x for x, _ in pairs)


def value_label(st, x) -> str:
    if type(x) is CardRef:
        return st.card_text(x.id)
    return fmt(x)


def item_classes(st, items, chooser: int) -> list[tuple[str, tuple, list]]:
    """Group the items the chooser cannot tell apart (same card text, same
    zone): choosing any of them is the same move.  A card hidden from the
    chooser is named only by where it lies, never by what it is.
    [(label, sort key, members)]."""
    classes: dict = {}  # label -> (label, key, members), in the order first met
    t = st.t
    loc = st.loc
    cids = [x.id for x in items if type(x) is CardRef]
    # the cards' labels made in one pass (_card_labels), taken in turn as the cards come
    card_labels = iter(_card_labels(st, cids, 1 << chooser, len({loc[c] for c in cids}) > 1))
    get = classes.get
    rank = t.symbol_ranks.get
    for x in items:
        if type(x) is CardRef:
            label = next(card_labels)
            c = get(label)
            if c is None:
                classes[label] = (label, (0, label), [x])  # the key made only for a new class
            else:
                c[2].append(x)
            continue
        if type(x) is str:  # a symbol: fmt and Tables.symbol_rank, inline (choices among a spec's words are common)
            label, key = x, (2, (rank(x, -1), x))
        elif type(x) is PlayerRef:
            label, key = fmt(x), (4, x.i)
        elif isinstance(x, bool):
            label, key = fmt(x), (3, int(x))
        elif isinstance(x, int):
            label, key = fmt(x), (1, x)
        else:
            label, key = fmt(x), (2, t.symbol_rank(x))
        c = get(label)
        if c is None:
            c = classes[label] = (label, key, [])
        c[2].append(x)
    return list(classes.values())


def _card_labels(st, cids, bit: int, several_zones: bool) -> list[str]:
    """Cards as the chooser (`bit`) names them in a choice: each its label (with its state when off the
    default or face down, as State.card_text gives it, and its zone when the items lie in several), or which
    hidden card of its zone it is.  State.viewers and card_text, inline, and the state's columns read once
    for all the cards: it runs per item of every choice."""
    t = st.t
    loc, known, facedown, cs = st.loc, st.known, st.facedown, st.cs
    sees, names, card_states, defaults = t.slot_sees, t.card_labels, t.card_states, t.state_default
    if len(cids) > 1 and not several_zones and sees[loc[cids[0]]] & bit:
        # The commonest choice (a hand): every card face up in one zone the chooser sees, so each is named by its
        # label unless a state of its is off its default.  The cards' entries of whole columns compared in C (an
        # itemgetter of their ids gives a tuple): equal entries mean no card's own states are off (a state a card
        # lacks only adds columns that must be equal); any difference, and each card is looked at below.
        take = itemgetter(*cids)
        if not any(take(facedown)):
            for name, col in cs.items():
                if take(col) != take(defaults[name]):
                    break
            else:
                return list(take(names))
    out = []
    append = out.append
    for cid in cids:
        slot = loc[cid]
        down = facedown[cid]
        if (known[cid] if down else sees[slot] | known[cid]) & bit:
            if down:
                label = st.card_text(cid)
            else:
                label = names[cid]
                for name in card_states[cid]:
                    if cs[name][cid] != defaults[name][cid]:
                        label = st.card_text(cid)
                        break
            append(f"{label} in {t.zone_label(slot)}" if several_zones else label)
        else:
            append(f"hidden card {st.zones[slot].index(cid) + 1} in {t.zone_label(slot)}")
    return out


def item_moves(st, items, chooser: int) -> list[Move]:
    """The moves of a choice of one item: [Move(label, members[0], key) for label, key, members in
    item_classes(st, items, chooser)], the same moves in the same order, made in one pass (a random
    playout makes this list at most of its decisions) without the classes' member lists."""
    cids = None
    if not items or type(items[0]) is CardRef:  # (no exception raised and caught where the first is no card)
        try:  # only a card has an `id` (CardRef, which has no subclass)
            cids = [x.id for x in items]
        except AttributeError:
            pass
    if cids is None:  # not only cards: the general classes
        return [Move(label, members[0], key) for label, key, members in item_classes(st, items, chooser)]
    loc = st.loc
    moves: dict = {}  # label -> its move, in the order first met
    for label, x in zip(_card_labels(st, cids, 1 << chooser, len({loc[c] for c in cids}) > 1), items):
        if label not in moves:
            m = moves[label] = _new(Move)  # Move(label, x, (0, label)), without a call of __init__ per move
            m.label, m.value, m.sort_key = label, x, (0, label)
    return list(moves.values())


def sorted_item_moves(st, items, chooser: int) -> tuple:
    """The moves of a choice of one item (at least one item, no pass) as the choice op makes them: item_moves sorted."""
    moves = item_moves(st, items, chooser)
    moves.sort(key=_SORT_KEY)
    return tuple(moves)


def subset_moves(classes, lo, hi, span) -> list[Move]:
    """Every choice of between lo and hi items, items alike counted once,
    ordered by (how many, then more of the earlier classes first)."""
    plan = subset_plan(classes, lo, hi, span)
    return [] if plan is None else _planned(plan)


def subset_plan(classes, lo, hi, span) -> tuple | None:
    """subset_moves' checks: its located errors, None where no selection is possible, else what its moves are made
    from (planned_selections makes them)."""
    if not isinstance(lo, int) or not isinstance(hi, int):
        raise SpecRuntimeError(f"a choice needs whole-number bounds, got {fmt(lo)} and {fmt(hi)}", span)
    classes = sorted(classes, key=_CLASS_KEY)
    sizes = tuple(len(c[2]) for c in classes)
    hi = min(hi, sum(sizes))
    if hi < lo:
        return None
    # The limit as the first enumeration applied it: it stopped once more than the limit were
    # listed and anything was left to visit; the empty selection, when allowed, is visited last.
    if _count_selections(sizes, lo, hi) > MAX_SUBSETS + (1 if lo <= 0 else 0):
        raise SpecRuntimeError(f"this choice has more than {MAX_SUBSETS} possible selections", span,
                               "split it into several smaller choices")
    return [c[2] for c in classes], tuple(c[0] for c in classes), sizes, lo, hi


def _planned(plan) -> list[Move]:
    members, labels, sizes, lo, hi = plan
    moves = []
    append = moves.append
    for label, taken, key in _labelled(labels, sizes, lo, hi):
        m = _new(_Selection)  # _Selection(label, key, members, taken), without a call of __init__ per selection
        m.label, m.sort_key, m._members, m._taken, m._items = label, key, members, taken, None
        append(m)
    return moves


def _all_cards(items) -> bool:
    """Whether every item is a card (item_classes then only reads what a LabelView holds, and raises nothing)."""
    for x in items:
        if type(x) is not CardRef:
            return False
    return True


def _deferred_plan(n: int, lo, hi, span) -> bool | None:
    """What subset_plan would decide for n cards without their classes, where it can: its bounds' error, False where
    no selection is possible (hi, cut to n, below lo), True where some is and the selections cannot pass
    MAX_SUBSETS (counted as if no two cards were alike: cards alike only make fewer), None where they might (then
    the classes are needed now, to raise the error where subset_plan raises it)."""
    if not isinstance(lo, int) or not isinstance(hi, int):
        raise SpecRuntimeError(f"a choice needs whole-number bounds, got {fmt(lo)} and {fmt(hi)}", span)
    hi = min(hi, n)
    if hi < lo:
        return False
    limit, most = MAX_SUBSETS + (1 if lo <= 0 else 0), 0
    for k in range(max(lo, 0), hi + 1):
        most += math.comb(n, k)
        if most > limit:  # (the count only grows: the rest need not be added)
            return None
    return True


def classed_selections(view, items, chooser: int, lo: int, hi: int, span) -> tuple:
    """planned_selections of the items' classes, made from a LabelView of the state the choice was made in (the
    choice op's lazy path for cards, _deferred_plan: the plan is known to exist and its checks to pass)."""
    return tuple(_planned(subset_plan(item_classes(view, items, chooser), lo, hi, span)))


def planned_selections(plan) -> tuple:
    """The moves of a choice of several items (no pass) as the choice op makes them, from subset_plan's plan."""
    return tuple(_planned(plan))


class _Selection(Move):
    """A move that takes several items: its value (the items, in class order) is only put together when
    read, since of a hand's many selections a game takes one."""

    __slots__ = ("_members", "_taken", "_items")

    def __init__(self, label, sort_key, members, taken):
        self.label, self.sort_key = label, sort_key
        self._members, self._taken, self._items = members, taken, None

    @property
    def value(self) -> tuple:
        if self._items is None:
            items: list = []
            for k, m in self._taken:
                items.extend(self._members[k][:m])
            self._items = tuple(items)
        return self._items


class _Kept:
    """Results kept by key while they hold at most `most` items in all (then the store starts again),
    and only results of at most `largest` items: hands of the same cards (or the same shape) recur all
    game long and from game to game, so a choice's selections are made once, with memory bounded."""

    __slots__ = ("kept", "items", "most", "largest")

    def __init__(self, most: int, largest: int | None = None):
        self.kept: dict = {}
        self.items = 0
        self.most, self.largest = most, largest

    def get(self, key, make):
        out = self.kept.get(key)
        if out is None:
            out = make(*key)
            if self.largest is None or len(out) <= self.largest:
                if self.items + len(out) > self.most:
                    self.kept.clear()
                    self.items = 0
                self.kept[key] = out
                self.items += len(out)
        return out


# a few kilobytes a hand: 100,000 selections in all, each of at most 500 selections kept
_LABELLED = _Kept(100_000, largest=500)


def _labelled(labels: tuple, sizes: tuple, lo: int, hi: int) -> tuple:
    """(move label, (class, how many) taken, sort key) for every selection of _selections, labelled
    with the classes' labels (kept: see _Kept)."""
    return _LABELLED.get((labels, sizes, lo, hi), _label_selections)


def _label_selections(labels: tuple, sizes: tuple, lo: int, hi: int) -> tuple:
    out = []
    for taken, key in _selections(sizes, lo, hi):
        if not taken:
            out.append(("nothing", (), key))
            continue
        names = [labels[k] if m == 1 else f"{labels[k]} x{m}" for k, m in taken]
        out.append(("{" + ", ".join(names) + "}", taken, key))
    return tuple(out)


@lru_cache(maxsize=1024)
def _count_selections(sizes: tuple, lo: int, hi: int) -> int:
    """How many ways to take between lo and hi items from classes of these sizes."""
    ways = [1] + [0] * hi  # ways[t]: selections of exactly t items from the classes so far
    for size in sizes:
        new = [0] * (hi + 1)
        for t, w in enumerate(ways):
            if w:
                for m in range(min(size, hi - t) + 1):
                    new[t + m] += w
        ways = new
    return sum(ways[max(lo, 0):])


# an entry may hold up to MAX_SUBSETS selections; a game can have a few hundred hand shapes
_SELECTIONS = _Kept(200_000)


def _selections(sizes: tuple, lo: int, hi: int) -> tuple:
    """((class, how many) for each class taken, sort key) for every selection, sorted by the key;
    computed once per hand shape (kept: see _Kept)."""
    return _SELECTIONS.get((sizes, lo, hi), _make_selections)


def _make_selections(sizes: tuple, lo: int, hi: int) -> tuple:
    out = []
    n = len(sizes)
    picked: list[int] = []

    def rec(k, left):
        if k == n:
            total = sum(picked)
            if lo <= total:
                out.append((tuple((k, m) for k, m in enumerate(picked) if m), (total, tuple(-m for m in picked))))
            return
        for m in range(min(sizes[k], left), -1, -1):
            picked.append(m)
            rec(k + 1, left - m)
            picked.pop()

    rec(0, hi)
    rec = None  # it refers to itself through its closure: a reference cycle the garbage collector would have to free
    out.sort(key=lambda s: s[1])
    return tuple(out)


__all__ = ["RuleCompiler", "combinations"]
