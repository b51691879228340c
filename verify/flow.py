"""Where cards can go: a sound over-approximation of the zones each card can
ever lie in, from a given placement of the cards onward.

Every statement that moves cards (move, draw, exchange) is read once from the
whole program, with what it moves resolved to the zones those cards can come
from (a choice from `p.hand`, a filter over `deck`, a def's body ...).  A
source that cannot be resolved counts as "any card", so the answer only ever
errs towards more places.  A zone no statement takes cards from (the box, for
most games) keeps what it holds: that is how a player count that removes a
suit shows up in the bounds.
"""

from __future__ import annotations

from collections import Counter

from soan.dsl import ir
from soan.dsl.analysis import conjuncts
from soan.interpreter.runtime import Tables

ANY = None  # an unresolved source or destination: every card, every zone


class Flow:
    def __init__(self, tables: Tables, locations: list[int] | None = None):
        t = self.t = tables
        self.spec = t.spec
        self.zone_names = {z.name for z, _ in t.zone_slots}
        slots = list(t.start_slot) if locations is None else list(locations)
        self.reach: list[set[str]] = [{t.zone_slots[s][0].name} for s in slots]
        self.moves: list[tuple[set[str] | None, set[str] | None, set[str] | None]] = []
        self._defs = {d.name: d for d in self.spec.defs}
        self._procs = {p.name: p for p in self.spec.procedures}
        self._stack: list[str] = []
        self._card_vars: dict[str, set[str] | None] = {}
        # procedure -> parameter -> the zones a card or list passed in it can be moved to there: the
        # caller's variable names those cards where they now lie too
        self._sent: dict[str, dict[str, set[str] | None]] = {}
        # (scope, variable) -> move site -> where that move put its cards (kept apart from the
        # variable's bindings so that a move does not count itself as a source: see _fresh_moves)
        self._moved: dict[tuple, dict[tuple, set[str] | None]] = {}
        self._fresh = _fresh_moves(self._roots())
        # statement site -> the zones the cards it moves can come from (None: any)
        self.taken_from: dict[tuple, set[str] | None] = {}
        self.kinds_moved: dict[tuple, set[str]] = {}  # a move's site -> the only kinds it can move, where known
        # how many cards lie in each zone at the placement given
        self.placed: dict[str, int] = {}
        for s_ in slots:
            name = t.zone_slots[s_][0].name
            self.placed[name] = self.placed.get(name, 0) + 1
        # One environment per running body, as in the interpreter: the setup and
        # scoring, the rounds, each procedure (its parameters the union of every
        # call's arguments, recursive calls included).  Locals are the resolver's
        # binding keys; what a local can hold is the union of everything assigned
        # to it anywhere in its body, so `set` in any branch or loop counts.
        self._envs: dict[str, dict[str, set[str] | None]] = {}
        called = {n.proc for root in self._roots() for n in ir.walk(root) if isinstance(n, ir.Do)}
        self._bound = {"main": _bindings(self.spec.setup) | _bindings(self.spec.scoring),
                       "rounds": _bindings(self.spec.rounds.body if self.spec.rounds else None)}
        for p in self.spec.procedures:
            self._bound["proc:" + p.name] = _bindings(p.body) | (set(p.params) if p.name in called else set())
        # Read the program until what every local and every card-holding variable
        # (`set p.played = c`) can hold settles, so a move sees every assignment,
        # even one written after it.
        while True:
            self._changed = False
            self.moves = []
            self._collect(self.spec.setup, "main")
            if self.spec.rounds is not None:
                self._collect(self.spec.rounds, "rounds")
            self._collect(self.spec.scoring, "main")
            for p in self.spec.procedures:
                self._collect(p.body, "proc:" + p.name)
            if not self._changed:
                break
        self._fixpoint(self.reach, self.moves)
        # Where cards can be while the setup's opening steps run (see `opening`): None when the
        # placement given is the start itself.
        self.early: list[set[str]] | None = None
        self.opening = False  # set by the reader of the setup's opening steps
        if locations is not None and list(locations) != list(t.start_slot):
            # Placed after the setup's opening steps, a card was elsewhere while those steps ran:
            # where it started, and wherever the setup's moves can take it from there, counts too
            # (without following the rest of the game from those places: it is no longer there).
            early = [{t.zone_slots[s][0].name} for s in t.start_slot]
            self._fixpoint(early, self._opening_moves())
            self.early = [zones | before for zones, before in zip(self.reach, early)]

    def _opening_moves(self) -> list:
        """The moves the setup can make before its first decision, roll or shuffle:
        its top-level steps up to the first that holds one (what it calls included)."""
        saved, self.moves = self.moves, []
        todo_procs: list[str] = []
        for st in opening_steps(self.spec.setup):
            self._collect(st, "main")
            todo_procs += [n.proc for n in ir.walk(st) if isinstance(n, ir.Do)]
            if pauses(st):
                break
        seen: set[str] = set()
        while todo_procs:
            name = todo_procs.pop()
            if name not in seen:
                seen.add(name)
                self._collect(self._procs[name].body, "proc:" + name)
                todo_procs += [n.proc for n in ir.walk(self._procs[name].body) if isinstance(n, ir.Do)]
        opening, self.moves = self.moves, saved
        return opening

    def _roots(self):
        return [x for x in (self.spec.setup, self.spec.rounds, self.spec.scoring) if x is not None] + \
            [p.body for p in self.spec.procedures]

    # ---- reading the program

    def _assign(self, table: dict, key: str, zones: set[str] | None) -> None:
        old = table.get(key, set())
        new = None if zones is None or old is None else old | zones
        if new != old:
            table[key] = new
            self._changed = True

    def _collect(self, node, scope: str) -> None:
        """Walk the statements of one running body, noting what each local and each move can hold."""
        if node is None:
            return
        env = self._envs.setdefault(scope, {})
        for n, facts in _statements_with_facts(node):
            match n:
                case ir.Let(name=name, value=value) | ir.Set(target=ir.Local(name=name), value=value):
                    self._assign(env, name, self.zones_of(value, scope))
                case ir.Set(target=ir.Attr(name=name) | ir.GlobalVar(name=name), value=value):
                    self._assign(self._card_vars, name, self.zones_of(value, scope))
                case ir.For(var=var, coll=coll):
                    self._assign(env, var, self.zones_of(coll, scope))
                case ir.Choose(var=var, source=src) if var is not None:
                    self._assign(env, var, self.zones_of(src, scope) if src is not None else ANY)
                case ir.Pick(var=var, source=src):
                    self._assign(env, var, self.zones_of(src, scope))
                case ir.Move(what=what, dest=dest):
                    kinds = _kinds(what) or self._kinds_known(what, facts)
                    self.moves.append((self._source(what, scope, n.span.site), self.zones_of(dest, scope), kinds))
                    self.taken_from[n.span.site] = self.moves[-1][0]
                    if kinds is not None:
                        self.kinds_moved[n.span.site] = kinds
                    self._moved_to(what, self.zones_of(dest, scope), scope, env, n.span.site)
                case ir.Draw(source=src, dest=dest):
                    self.moves.append((self.zones_of(src, scope), self.zones_of(dest, scope), None))
                    self.taken_from[n.span.site] = self.moves[-1][0]
                case ir.Exchange(a=a, b=b):
                    za, zb = self.zones_of(a, scope), self.zones_of(b, scope)
                    self.moves.append((za, zb, None))
                    self.moves.append((zb, za, None))
                    self.taken_from[n.span.site] = _union((za, zb))
                    self._moved_to(a, zb, scope, env, n.span.site)
                    self._moved_to(b, za, scope, env, n.span.site)
                case ir.Do(proc=proc, args=args):
                    target = self._envs.setdefault("proc:" + proc, {})
                    sent = self._sent.get(proc, {})
                    for name, a in zip(self._procs[proc].params, args):
                        self._assign(target, name, self.zones_of(a, scope))
                        if name in sent:
                            self._moved_to(a, sent[name], scope, env, n.span.site)

    def _moved_to(self, what, zones, scope: str, env: dict, site) -> None:
        """A card or list a variable names was moved to `zones`: the variable names cards there from now
        on (read flow-insensitively, as everything here: before the move too), so a later move of it is
        known to take from there, not only from where it was chosen."""
        match what:
            case ir.Local(name=name) if name in self._bound.get(scope, ()):
                self._assign(self._moved.setdefault((scope, name), {}), site, zones)
                if scope.startswith("proc:") and name in self._procs[scope[5:]].params:
                    self._assign(self._sent.setdefault(scope[5:], {}), name, zones)
            case ir.Attr(name=name) | ir.GlobalVar(name=name) if name in self._card_vars:
                self._assign(self._card_vars, name, zones)

    def _source(self, what, scope: str, site) -> set[str] | None:
        """Where the cards a move takes can lie: as zones_of, except that a variable bound afresh each
        time round (a choice's or loop's own variable, no loop between it and the move) cannot already
        lie where this same move puts it."""
        if isinstance(what, ir.Local) and (site, what.name) in self._fresh and what.name in self._bound.get(scope, ()):
            others = [z for k, z in self._moved.get((scope, what.name), {}).items() if k != site]
            return _union([self._envs.setdefault(scope, {}).get(what.name, set()), *others])
        return self.zones_of(what, scope)

    def _kinds_known(self, what, facts) -> set[str] | None:
        """The kinds a moved card can be, from the tests of the branches it is moved in:
        `if c.kind == K { move c ... }` moves only K; in a later `elif` or `else`, not K."""
        if not isinstance(what, ir.Local):
            return None
        v, only, besides = what.name, None, set()
        for test, holds, block in facts:
            if any(isinstance(n, ir.Set) and isinstance(n.target, ir.Local) and n.target.name == v
                   for n in ir.walk(block)):
                continue  # the local may name another card by the time it is moved
            for c in (conjuncts(test) if holds else [test]):
                match c:
                    case ir.BinOp(op="==", left=ir.Attr(obj=ir.Local(name=x), name="kind"), right=ir.Symbol(name=k)) \
                            if x == v:
                        if holds:
                            only = {k} if only is None else only & {k}
                        else:
                            besides.add(k)
        if only is not None:
            return only - besides
        if besides:
            return set(self.t.kind) - besides
        return None

    def zones_of(self, e, env) -> set[str] | None:
        """The zones the cards `e` denotes can lie in when it is read, or ANY."""
        match e:
            case ir.SharedZone(name=name):
                return {name}
            case ir.Attr(name=name) if name in self.zone_names:
                return {name}
            case ir.Attr(name=name) | ir.GlobalVar(name=name) if name in self._card_vars:
                return self._card_vars[name]
            case ir.Local(name=name):
                if isinstance(env, dict):  # a def's parameters
                    return env.get(name, ANY)
                if name not in self._bound.get(env, ()):
                    return ANY  # bound where this reading cannot follow it: any card
                return _union([self._envs.setdefault(env, {}).get(name, set()),
                               *self._moved.get((env, name), {}).values()])
            case ir.ListComp(coll=coll, value=None) | ir.Index(obj=coll) | ir.Ranking(coll=coll):
                return self.zones_of(coll, env)
            case ir.Call(func="take" | "first" | "last", args=(coll, *_)):
                return self.zones_of(coll, env)
            case ir.Call(func=func, args=args) if func in self._defs:
                if func in self._stack:  # a def that calls itself: any card
                    return ANY
                d = self._defs[func]
                self._stack.append(func)
                try:
                    return self.zones_of(d.body, {name: self.zones_of(a, env) for name, a in zip(d.params, args)})
                finally:
                    self._stack.pop()
            case ir.ListLit(items=items):
                return _union(self.zones_of(i, env) for i in items)
            case ir.BinOp(op="+", left=a, right=b):
                return _union((self.zones_of(a, env), self.zones_of(b, env)))
            case ir.Cond(then=a, orelse=b):
                return _union((self.zones_of(a, env), self.zones_of(b, env)))
            case ir.Int() | ir.Bool() | ir.Symbol() | ir.AllPlayers() | ir.PlayersFrom():
                return set()  # not cards
        return ANY

    def _fixpoint(self, reach: list[set[str]], moves: list) -> None:
        changed = True
        while changed:
            changed = False
            for src, dest, kinds in moves:
                for cid, zones in enumerate(reach):
                    if kinds is not None and self.t.kind[cid] not in kinds:
                        continue
                    if src is not ANY and not (zones & src):
                        continue
                    new = self.zone_names if dest is ANY else dest
                    if not new <= zones:
                        zones |= new
                        changed = True

    # ---- what the bounds ask

    def cards_in(self, zone: str) -> list[int]:
        """The cards that can ever lie in `zone` (during the setup's opening steps, when `opening`
        is set, also where cards were before those steps placed them)."""
        reach = self.early if self.opening and self.early is not None else self.reach
        return [cid for cid, zones in enumerate(reach) if zone in zones]

    def cards_of(self, e) -> list[int] | None:
        """The cards a collection expression can hold (static filters applied), or None."""
        match e:
            case ir.SharedZone(name=name):
                return self.cards_in(name)
            case ir.Attr(name=name) if name in self.zone_names:
                return self.cards_in(name)
            case ir.ListComp(var=var, coll=coll, where=where, value=None):
                base = self.cards_of(coll)
                if base is None:
                    return None
                return [c for c in base if all(self._may_pass(c, var, w) for w in conjuncts(where))]
        return None

    def _may_pass(self, cid: int, var: str, cond) -> bool:
        """False only when a fixed field or the kind rules the card out for certain."""
        match cond:
            case ir.BinOp(op="==", left=ir.Attr(obj=ir.Local(name=v), name=f), right=ir.Symbol(name=s)) if v == var:
                have = self.t.kind[cid] if f == "kind" else self.t.fields[cid].get(f, _MISSING)
                return have is _MISSING or have == s
        return True

    def most_alike(self, cards: list[int], var: str, where) -> int:
        """How many of `cards` can pass `where` at once when it demands a fixed
        field equal some one value (`c.suit == s`): the largest group."""
        for cond in conjuncts(where):
            match cond:
                case ir.BinOp(op="==", left=ir.Attr(obj=ir.Local(name=v), name=f), right=other) \
                        if v == var and not _mentions(other, var) and self._fixed(f, cards):
                    return max(Counter(self.t.fields[c][f] for c in cards).values(), default=0)
        return len(cards)

    def distinct_values(self, cards: list[int], f: str) -> int | None:
        if not self._fixed(f, cards):
            return None
        return len({self.t.fields[c][f] for c in cards})

    def _fixed(self, f: str, cards: list[int]) -> bool:
        return f != "kind" and all(f in self.t.fields[c] and f not in self.t.kind_states[self.t.kind[c]]
                                   for c in cards)


_MISSING = object()


def opening_steps(block):
    """The setup's top-level steps in order, phases opened up."""
    for st in (block.stmts if block is not None else ()):
        if isinstance(st, ir.Phase):
            yield from opening_steps(st.body)
        else:
            yield st


def pauses(st) -> bool:
    """Whether a step may stop for a decision, roll or shuffle (a procedure may)."""
    return any(isinstance(n, (ir.Roll, ir.Shuffle, ir.Choose, ir.Do)) for n in ir.walk(st))


def _fresh_moves(roots) -> set[tuple]:
    """(move site, variable) where the variable is bound by a choice, a pick or a for-loop over a zone
    around the move with no other loop in between: each run of the move sees a newly bound card."""
    out = set()

    def fresh(binders, var) -> bool:
        for name, loop in reversed(binders):
            if name == var:
                return True
            if loop:
                return False  # a loop in between: a card bound outside it may come round again
        return False

    def walk(node, binders):
        if isinstance(node, ir.Move) and isinstance(node.what, ir.Local) and fresh(binders, node.what.name):
            out.add((node.span.site, node.what.name))
        if isinstance(node, ir.Choose | ir.Pick) and node.var is not None:
            inner = binders + [(node.var, False)]
        elif isinstance(node, ir.For):  # over a zone (or a filter of one): every card once
            coll = node.coll.coll if isinstance(node.coll, ir.ListComp) and node.coll.value is None else node.coll
            inner = binders + [(node.var if isinstance(coll, ir.SharedZone | ir.Attr) else None, True)]
        elif isinstance(node, ir.While | ir.Repeat):
            inner = binders + [(None, True)]
        else:
            inner = binders
        for child in ir.children(node):
            walk(child, inner)

    for root in roots:
        walk(root, [])
    return out


def _statements_with_facts(node, facts=()):
    """Every statement under `node` (as _statements), each with the tests of the `if`
    branches it lies in: (test, True, block) for its own branch's test, (test, False,
    block) for the tests of the branches before it, which were false."""
    if node is None:
        return
    if isinstance(node, ir.Stmt):
        yield node, facts
    if isinstance(node, ir.If):
        before = []
        for test, block in node.branches:
            here = tuple((t, False, block) for t in before) + ((test, True, block),)
            yield from _statements_with_facts(block, facts + here)
            before.append(test)
        if node.orelse is not None:
            yield from _statements_with_facts(node.orelse, facts + tuple((t, False, node.orelse) for t in before))
        return
    for child in ir.children(node):
        yield from _statements_with_facts(child, facts)


def _statements(node):
    """Every statement under `node`, however deep in blocks, branches and loops (not into procedures)."""
    for n in ir.walk(node):
        if isinstance(n, ir.Stmt):
            yield n


def _bindings(node) -> set[str]:
    """The locals a running body binds: lets, sets of locals, loop, choice and pick variables."""
    out: set[str] = set()
    for n in _statements(node) if node is not None else ():
        match n:
            case ir.Let(name=name) | ir.Set(target=ir.Local(name=name)) | ir.For(var=name) | ir.Pick(var=name):
                out.add(name)
            case ir.Choose(var=name) if name is not None:
                out.add(name)
    return out


def _kinds(what) -> set[str] | None:
    """A filter `c.kind == K` on what a move takes narrows which cards it can move."""
    if isinstance(what, ir.ListComp) and what.value is None:
        for cond in conjuncts(what.where):
            match cond:
                case ir.BinOp(op="==", left=ir.Attr(obj=ir.Local(name=v), name="kind"), right=ir.Symbol(name=s)) \
                        if v == what.var:
                    return {s}
    return None


def _mentions(e, var: str) -> bool:
    return any(isinstance(n, ir.Local) and n.name == var for n in ir.walk(e))


def _union(parts) -> set[str] | None:
    out: set[str] = set()
    for p in parts:
        if p is ANY:
            return ANY
        out |= p
    return out


def setup_branches(tables: Tables, limit: int = 64) -> list[tuple[str, list[int]]]:
    """The card placements after the setup's opening random picks, one per
    outcome: the setup (only the setup) is run up to its first decision, roll
    or shuffle, or its end, and every pick on the way is enumerated (up to
    `limit` branches; past that, or with no picks, the single starting
    placement stands for them all)."""
    from soan.dsl.errors import SpecRuntimeError
    from soan.interpreter.state import Chance, Frame, State

    # An outcome whose setup stops at a rule error leaves no game to bound (the search reports
    # the error); if every way stops there, the starting placement stands for them all.
    start = State(tables)
    start.frames = [Frame(tables.rules.setup_ops, {})]
    try:
        start.run()
    except SpecRuntimeError:
        return [("", list(tables.start_slot))]
    frontier = [("", start)]
    done: list[tuple[str, list[int]]] = []
    while frontier:
        label, st = frontier.pop(0)
        c = st.pending
        if isinstance(c, Chance) and c.kind == "pick" and len(frontier) + len(done) + len(c.outcomes) <= limit:
            for i, (text, _) in enumerate(c.outcomes):
                s2 = st.clone()
                try:
                    s2.apply_chance(i)
                except SpecRuntimeError:
                    continue
                frontier.append(((label + ", " if label else "") + f"{c.text}: {text}", s2))
            continue
        done.append((label, list(st.loc)))
    if not done or (len(done) == 1 and not done[0][0]):
        return [("", list(tables.start_slot))]
    return done
