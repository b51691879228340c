"""Why a `while COND max N` loop never reaches its cap: a measure read from
its condition.

The interpreter stops a while loop at its cap when COND still holds after N
passes (it marks `while_limit`).  A cap is an assumption that ends play the
rules did not end, so a proof here must show that the rules themselves end
the loop first.  The measure is a number of cards in a set of zones Z, read
from a conjunct of COND:

- *draining*: `count(E) > c` (or `>= c`, `!= 0`), E all the cards of some
  zones.  Z is those zones together with every zone from which a rule the
  body can run (through the procedures it calls) moves cards into Z, so no
  pass adds to Z.  Each pass either moves a card out of Z or ends the loop,
  and Z holds at most M cards at the loop's start (every card that can ever
  lie there), so at most M - c passes run;
- *filling*: `count(Z) < k`, Z one shared zone.  No rule the body can run
  takes a card out of Z, and each pass puts one into Z or ends the loop:
  at most k passes run.

"Each pass moves a card" is read from the body's control flow, every path:
a `choose x from L` runs its body when L is known not to be empty (a test of
L's count around it, the loop's own condition included, with nothing changed
since), a choice of options offers at least one (z3 checks that the options'
conditions cover what is known), `may choose ... else { break }` runs its body
or leaves the loop, and `set done = true` for a loop whose condition says
`not done` ends it (when the loop sets `done` to nothing else).  Procedures
are followed with their arguments; a procedure already being followed is
not.  Everything unsure counts as "no card moved": the answer only ever errs
towards unknown.
"""

from __future__ import annotations

import attrs

from soan.dsl import ir

from . import solver
from .bounds import Bounds
from .flow import ANY


@attrs.frozen
class CapProof:
    passes: int  # the most passes the loop can make
    cap: int  # the smallest cap it can have
    why: str  # the measure, in the designer's words


@attrs.frozen
class Measure:
    kind: str  # "drain" | "fill"
    expr: ir.Expr  # the counted collection, as the condition writes it
    zones: frozenset  # Z
    bound: int  # c for drain (count > c), k for fill (count < k)


def loop_scopes(spec: ir.Spec) -> dict[tuple, tuple[ir.While, str]]:
    """Every while loop of the rules, by site, with the running body it lies in (flow's scopes)."""
    out: dict[tuple, tuple[ir.While, str]] = {}
    roots = [(x, "main") for x in (spec.setup, spec.scoring) if x is not None]
    if spec.rounds is not None:
        roots.append((spec.rounds.body, "rounds"))
    roots += [(p.body, "proc:" + p.name) for p in spec.procedures]
    for root, scope in roots:
        for n in ir.walk(root):
            if isinstance(n, ir.While):
                out[n.span.site] = (n, scope)
    return out


def prove_cap(bs: list[Bounds], node: ir.While, scope: str, reaches: list | None = None) -> CapProof | str:
    """A proof that the loop's cap is never reached, in every branch of the setup, or why not.
    `reaches`: a CallReach for each of `bs` (None: flow's answer alone)."""
    reasons = []
    if isinstance(node.test, ir.Agg) and node.test.func == "any":
        proofs = [_Prover(b, node, scope, reaches[k] if reaches else None).prove_per_player()
                  for k, b in enumerate(bs)]
        bad = next((p for p in proofs if isinstance(p, str)), None)
        if bad is None:
            worst = max(proofs, key=lambda p: (p.passes - p.cap, p.passes))
            if worst.passes <= worst.cap:
                return worst
            reasons.append(f"{worst.why}: up to {worst.passes} passes, and the cap is {worst.cap}")
        else:
            reasons.append(bad)
    for m_expr, kind, bound in dict.fromkeys(_candidates(node.test)):
        proofs = []
        for k, b in enumerate(bs):
            p = _Prover(b, node, scope, reaches[k] if reaches else None).prove(m_expr, kind, bound)
            if isinstance(p, str):
                reasons.append(p)
                break
            proofs.append(p)
        else:
            worst = max(proofs, key=lambda p: (p.passes - p.cap, p.passes))
            if worst.passes <= worst.cap:
                return worst
            reasons.append(f"{worst.why}: up to {worst.passes} passes, and the cap is {worst.cap}")
    if not reasons:
        return "its condition names no count of cards that each pass could lower or raise"
    return "; ".join(dict.fromkeys(reasons))


def _candidates(test: ir.Expr):
    """(collection, 'drain' | 'fill', c or k) for each conjunct of the condition that counts cards."""
    for c in _conjuncts(test):
        match c:
            case ir.BinOp(op=">" | ">=" | "!=", left=l, right=ir.Int(value=v)) if _counted(l) is not None:
                yield _counted(l), "drain", v if c.op == ">" else v - 1 if c.op == ">=" else (0 if v == 0 else None)
            case ir.BinOp(op="<" | "<=", left=ir.Int(value=v), right=r) if _counted(r) is not None:
                yield _counted(r), "drain", v if c.op == "<" else v - 1
            case ir.BinOp(op="<" | "<=", left=l, right=ir.Int(value=v)) if _counted(l) is not None:
                yield _counted(l), "fill", v if c.op == "<" else v + 1
        match c:
            case ir.BinOp(op=">" | ">=" | "!=", left=l, right=ir.Int(value=v)) if _counted(l) is not None and \
                    not (c.op == "!=" and v != 0):
                yield _counted(l), "unset", v if c.op == ">" else v - 1 if c.op == ">=" else 0
    # a count anywhere else in the condition (under an `or`): cards leaving it still bound the passes
    # that do not end the loop, by every card it can hold
    for n in ir.walk(test):
        if _counted(n) is not None:
            yield _counted(n), "drain", -1


def _counted(e) -> ir.Expr | None:
    match e:
        case ir.Call(func="count" | "size", args=(x,)):
            return x
        case ir.Agg(func="count", coll=x, where=None):
            return x
    return None


def _conjuncts(e) -> list:
    if isinstance(e, ir.BinOp) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _hold(zones) -> str:
    return "holds" if len(zones) == 1 else "hold"


def _zone_word(zones) -> str:
    names = sorted(zones)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# Statements after which every fact still holds (nothing they do is read by a condition).
_KEEPS_FACTS = (ir.Say, ir.Check, ir.Look)
_MOVES_CARDS = (ir.Move, ir.Draw, ir.Exchange, ir.Do, ir.Shuffle)


_FRAME = "\0frame"


class _Prover:
    def __init__(self, b: Bounds, node: ir.While, scope: str, reach=None):
        self.b = b
        self.call_reach = reach
        self.flow = b.flow
        self.node = node
        self.scope = scope
        self.procs = {p.name: p for p in b.spec.procedures}
        self.chosen_from: dict = {}  # a chosen card (loop body's terms) -> the zones it was chosen from
        self.chosen_src: dict = {}  # ... -> the collection it was chosen from (loop body's terms)
        self.sticky: tuple = ()  # facts that hold all through a pass (see _prove_per_player)
        self.nested = 0  # while loops inside the pass being read
        # every statement the body can run, with the running body it lies in
        self.reach: list[tuple[ir.Stmt, str]] = []
        seen_procs: set[str] = set()
        todo = [(node.body, scope)]
        while todo:
            root, sc = todo.pop()
            for n in ir.walk(root):
                if isinstance(n, ir.Stmt):
                    self.reach.append((n, sc))
                if isinstance(n, ir.Do) and n.proc not in seen_procs:
                    seen_procs.add(n.proc)
                    todo.append((self.procs[n.proc].body, "proc:" + n.proc))
        self.exit_flags = self._exit_flags()

    # ---- what moves where

    def _moves(self):
        """(source zones, destination zones, statement) of every card move the body can run (ANY: unknown);
        an exchange of two single cards leaves every zone's count as it was and is left out."""
        for s, sc in self.reach:
            match s:
                case ir.Move(what=what, dest=dest):
                    yield self.flow.zones_of(what, sc), self.flow.zones_of(dest, sc), s
                case ir.Draw(source=src, dest=dest):
                    yield self.flow.zones_of(src, sc), self.flow.zones_of(dest, sc), s
                case ir.Exchange(a=a, b=b_):
                    if self._single_everywhere(s, a) and self._single_everywhere(s, b_):
                        continue
                    za, zb = self.flow.zones_of(a, sc), self.flow.zones_of(b_, sc)
                    yield za, zb, s
                    yield zb, za, s

    def _single_everywhere(self, s, e) -> bool:
        """Whether `e` is a single card wherever the bounds read the statement `s`."""
        sites = [site for site in self.b.sites if site.node is s]
        if not sites:
            return False
        for site in sites:
            saved, self.b.env = self.b.env, site.env
            try:
                if not self.b.val(e).one:
                    return False
            finally:
                self.b.env = saved
        return True

    def _exit_flags(self) -> dict[str, bool]:
        """Locals whose setting ends the loop: a conjunct `not X` (the body sets X only to true)
        or `X` (only to false).  Locals live in their own running body, so only the loop's own
        statements can set them."""
        out = {}
        for c in _conjuncts(self.node.test):
            match c:
                case ir.Not(operand=ir.Local(name=x)):
                    want = True
                case ir.Local(name=x):
                    want = False
                case _:
                    continue
            sets = [s for s in ir.walk(self.node.body)
                    if (isinstance(s, ir.Set) and isinstance(s.target, ir.Local) and s.target.name == x)
                    or (isinstance(s, ir.Let) and s.name == x)]
            if sets and all(isinstance(s, ir.Set) and s.op == "=" and s.value == ir.Bool(want) for s in sets):
                out[x] = want
        return out

    # ---- the proof

    def prove(self, m_expr: ir.Expr, kind: str, bound: int | None) -> CapProof | str:
        line = self.node.span.line
        if bound is None:
            return f"the loop at line {line} compares a count with a number other than 0 by '!='"
        z0 = self.flow.zones_of(m_expr, self.scope)
        if z0 is ANY or not z0:
            return f"the count in the condition at line {line} is not known to be of cards in some zones"
        if kind == "fill" and not _plain_zones(m_expr):
            return f"the count in the condition at line {line} is not of whole zones"
        cap = self.b.int_min(self.node.limit)
        if cap is None:
            return f"the cap at line {line} has no known least value"
        moves = list(self._moves())
        if kind == "drain":
            zones = set(z0)
            changed = True
            while changed:  # every zone that feeds Z joins it
                changed = False
                for src, dest, s in moves:
                    if dest is ANY or dest & zones:
                        if src is ANY:
                            return (f"a rule at line {s.span.line} can put cards of unknown origin into "
                                    f"{_zone_word(zones)}")
                        if not src <= zones:
                            zones |= src
                            changed = True
            self.m = Measure("drain", m_expr, frozenset(zones), bound)
            most = len({c for z in zones for c in self.flow.cards_in(z)})
            if self.call_reach is not None and self.call_reach.most_in(zones) is not None:
                most = min(most, self.call_reach.most_in(zones))
            what = _zone_word(zones)
            if not self._every_pass(self.node.body.stmts, self._start_facts(), 0, None):
                return f"not every pass is known to move a card out of {what} or to end the loop"
            why = (f"each pass moves a card out of {what} or ends the loop, nothing the loop runs puts one back, "
                   f"and {what} {_hold(zones)} at most {most} cards" + (f" (the loop needs more than {bound})" if bound > 0 else
                                                              " (the loop needs one)" if bound == 0 else ""))
            return CapProof(max(0, most - bound), cap, why)
        if kind == "unset":
            return self._prove_unset(m_expr, bound, cap, moves)
        # fill: one shared zone that nothing the loop runs takes cards out of
        if not isinstance(m_expr, ir.SharedZone):
            return f"the count kept below {bound} at line {line} is not of one shared zone"
        for src, dest, s in moves:
            if src is ANY or (src & z0 and (dest is ANY or not dest <= z0)):
                return f"a rule at line {s.span.line} may take cards out of {m_expr.name}"
        self.m = Measure("fill", m_expr, frozenset(z0), bound)
        if not self._every_pass(self.node.body.stmts, self._start_facts(), 0, None):
            return f"not every pass is known to put a card into {m_expr.name} or to end the loop"
        return CapProof(max(0, bound), cap, f"each pass puts a card into {m_expr.name}, nothing the loop runs takes "
                                            f"one out, and the loop runs only while it holds fewer than {bound}")

    def _prove_unset(self, m_expr, bound: int, cap: int, moves) -> CapProof | str:
        """A count of the cards of some zones whose field f is none (`[g in p.grills where g.dish == none]`):
        no card enters those zones, nothing the loop runs sets f to what may be none, and each pass
        sets f of one of those cards to a card (or ends the loop)."""
        line = self.node.span.line
        comp = _inline(self.b.spec, m_expr)
        field = None
        if isinstance(comp, ir.ListComp) and comp.value is None:
            for c in _conjuncts(comp.where) if comp.where is not None else []:
                match c:
                    case ir.BinOp(op="==", left=ir.Attr(obj=ir.Local(name=v), name=f), right=ir.NoneLit()) \
                            if v == comp.var:
                        field = f
        if field is None:
            return f"the count in the condition at line {line} is not of cards whose field is none"
        zones = self.flow.zones_of(comp.coll, self.scope)
        if zones is ANY or not zones:
            return f"the cards counted at line {line} are not known to lie in some zones"
        for src, dest, s in moves:
            if dest is ANY or dest & zones:
                return f"a rule at line {s.span.line} may put cards into {_zone_word(zones)}"
        for s, sc in self.reach:
            if isinstance(s, ir.Exchange) and (self.flow.zones_of(s.a, sc) is ANY or self.flow.zones_of(s.b, sc) is ANY
                                               or self.flow.zones_of(s.a, sc) & zones
                                               or self.flow.zones_of(s.b, sc) & zones):
                return f"an exchange at line {s.span.line} may put cards into {_zone_word(zones)}"
            if isinstance(s, ir.Set) and isinstance(s.target, ir.Attr) and s.target.name == field \
                    and not self._a_card(s.value, sc):
                return f"the rule at line {s.span.line} may set {field} to none"
        self.m = Measure("unset", m_expr, frozenset(zones), bound)
        self.m_field = field
        most = len({c for z in zones for c in self.flow.cards_in(z)})
        if self.call_reach is not None and self.call_reach.most_in(zones) is not None:
            most = min(most, self.call_reach.most_in(zones))
        what = _zone_word(zones)
        if not self._every_pass(self.node.body.stmts, self._start_facts(), 0, None):
            return f"not every pass is known to give a card of {what} a {field} or to end the loop"
        return CapProof(max(0, most - bound), cap,
                        f"each pass sets the {field} of one of the cards of {what} whose {field} is none, or ends the "
                        f"loop, "
                        f"nothing the loop runs sets a {field} back to none or brings a card in, and {what} {_hold(zones)} at most "
                        f"{most} cards")

    def _a_card(self, e, scope) -> bool:
        """Whether `e` is surely a card, never none: a variable chosen (one item) from cards of known zones."""
        if not isinstance(e, ir.Local):
            return False
        procs = {p.name: p.body for p in self.b.spec.procedures}
        body = procs[scope[5:]] if scope.startswith("proc:") else None
        if body is not None and any(  # bound only by the choice (a `set` could make it none)
                (isinstance(n, ir.Let) and n.name == e.name) or (isinstance(n, ir.Set) and n.target == e)
                or (isinstance(n, ir.For | ir.Pick) and n.var == e.name) for n in ir.walk(body)):
            return False
        if body is None and any((isinstance(n, ir.Let) and n.name == e.name) or (isinstance(n, ir.Set) and n.target == e)
                                for n, sc in self.reach if sc == scope):
            return False
        for s, sc in self.reach:
            if sc == scope and isinstance(s, ir.Choose) and s.var == e.name and s.count_kind is None \
                    and s.source is not None:
                z = self.flow.zones_of(s.source, sc)
                return z is not ANY and bool(z)
        return False

    def _inner_loop(self, w: ir.While, facts, args, calling) -> bool:
        """A while loop inside the pass makes the pass's progress when it is sure to run, it ends only
        by its flag (`set done = true` for `while not done ...`, its other conditions always true
        here, its own cap proved out of reach, no break), and each setting of the flag comes after
        a statement that makes the progress."""
        if self.nested >= 2:
            return False
        scope = "proc:" + calling[-1] if calling else self.scope
        inner = _Prover(self.b, w, scope, self.call_reach)
        if not inner.exit_flags or isinstance(prove_cap([self.b], w, scope, [self.call_reach] if self.call_reach
                                                        else None), str):
            return False
        for c in _conjuncts(w.test):
            flag = c.operand if isinstance(c, ir.Not) else c
            if isinstance(flag, ir.Local) and flag.name in inner.exit_flags:
                continue
            if not _implies((), self._to_loop(c, args)):
                return False
        if not _implies(facts, self._to_loop(w.test, args)):
            return False
        if any(isinstance(n, ir.Break) for n, _ in inner.reach):
            return False
        self.nested += 1
        try:
            for stmts in self._live_blocks(w.body, args):
                for i, st in enumerate(stmts):
                    if isinstance(st, ir.Set) and isinstance(st.target, ir.Local) and st.target.name in inner.exit_flags:
                        if not any(self._stmt(x, self.sticky, 1, args, frozenset(), calling) for x in stmts[:i]):
                            return False
        finally:
            self.nested -= 1
        return True

    def _live_blocks(self, block: ir.Block, args):
        """Every statement list under a block, but an option's body that is never offered here."""
        yield block.stmts
        for st in block.stmts:
            for n in ir.children(st):
                if isinstance(n, ir.Block):
                    yield from self._live_blocks(n, args)
                elif isinstance(n, ir.OptionBranch):
                    if n.when is not None and _implies((), ir.Not(self._to_loop(n.when, args))):
                        continue
                    yield from self._live_blocks(n.body, args)

    def prove_per_player(self) -> CapProof | str:
        """`while any(q in players where count(q.Z) > 0) max N { for p in players { ... } }`: each pass
        visits every player, and the visit of a player who still holds cards in Z moves one of them
        out; nothing the loop runs puts a card into any Z.  So a player who holds a card in Z when the
        cap would stop play held one all along and lost one in every pass: the passes are at most the
        cards one player's Z can hold (each player's own cards only ever lie in that player's zones)."""
        line = self.node.span.line
        t = self.node.test
        match t:
            case ir.Agg(func="any", var=q, coll=ir.AllPlayers(), where=ir.BinOp(
                    op=">", left=ir.Call(func="count", args=(ir.Attr(obj=ir.Local(name=q2), name=zone),)),
                    right=ir.Int(value=0)), value=None) if q2 == q and zone in self.flow.zone_names:
                pass
            case _:
                return f"the condition at line {line} is not a count of each player's cards in one zone"
        stmts = self.node.body.stmts
        if len(stmts) != 1 or not isinstance(stmts[0], ir.For):
            return f"the loop at line {line} is not one pass over the players"
        loop = stmts[0]
        if not (self.b._distinct_players(loop.coll) and self.b.size(loop.coll) == self.b.n):
            return f"the loop at line {line} does not visit every player once"
        mine = ir.Attr(ir.Local(loop.var), zone)
        holds = ir.BinOp(">", ir.Call("count", (mine,)), ir.Int(0))
        if loop.where is not None and not _implies((holds,), loop.where):
            return f"the players the loop at line {line} visits may leave out one who holds cards in {zone}"
        for src, dest, st in self._moves():
            if dest is ANY or zone in dest:
                return f"a rule at line {st.span.line} may put cards into {zone}"
        if any(isinstance(n, ir.Break) for n, _ in self.reach):
            return f"a break in the loop at line {line} may end a pass before it visits every player"
        most = _most_per_player(self.b, zone)
        if most is None:
            return f"one player's {zone} is not known to hold only that player's own cards"
        cap = self.b.int_min(self.node.limit)
        if cap is None:
            return f"the cap at line {line} has no known least value"
        self.m = Measure("player", mine, frozenset({zone}), 0)
        self.sticky = (holds,)
        if not self._every_pass(loop.body.stmts, self.sticky, 1, None):
            return f"not every visit of a player who holds cards in {zone} is known to move one out"
        return CapProof(most, cap, f"each pass visits every player, and the visit of a player who still holds "
                                   f"cards in {zone} moves one out; nothing the loop runs puts one in, and one "
                                   f"player's {zone} holds at most {most} cards")

    def _start_facts(self) -> tuple:
        return tuple(_conjuncts(self.node.test))

    # ---- every path of a pass: a card moved (as the measure needs) or the loop ended

    def _every_pass(self, stmts, facts: tuple, depth: int, args: dict | None, fresh: frozenset = frozenset(),
                    calling: tuple = ()) -> bool:
        """Whether every run of `stmts` moves a card as the measure needs or ends the loop.
        `facts`: conditions known to hold (in the loop body's terms); `args`: what each local of the
        running procedure stands for in the loop body's terms (None: the loop's own body);
        `depth`: loops entered since the loop's body (a break there ends only them);
        `fresh`: chosen cards (in the loop body's terms) not moved since they were chosen."""
        for s in stmts:
            if self._stmt(s, facts, depth, args, fresh, calling):
                return True
            if not isinstance(s, _KEEPS_FACTS):
                facts = self.sticky  # a count, field, holding or local a condition reads may have changed
                if isinstance(s, ir.Let) and isinstance(s.value, ir.Bool):  # a flag just set: known
                    flag = self._to_loop(ir.Local(s.name), args)
                    facts += (flag if s.value.value else ir.Not(flag),)
            if any(isinstance(n, _MOVES_CARDS) or (isinstance(n, ir.Set) and isinstance(n.target, ir.Local))
                   for n in ir.walk(s)) or (
                    self.m.kind == "unset" and any(isinstance(n, ir.Set) and isinstance(n.target, ir.Attr)
                                                   and n.target.name == self.m_field for n in ir.walk(s))):
                fresh = frozenset()  # a chosen card may have moved, or its field changed
        return False

    def _stmt(self, s, facts, depth, args, fresh, calling) -> bool:
        match s:
            case ir.Break():
                return depth == 0
            case ir.Set(target=ir.Local(name=x), op="=", value=ir.Bool(value=v)) if not calling:
                return self.exit_flags.get(x) == v
            case ir.Set(target=ir.Attr(obj=obj, name=f), op="=", value=value) if self.m.kind == "unset":
                card = self._to_loop(obj, args)
                return f == self.m_field and card in fresh and self.chosen_src.get(card) == self.m.expr \
                    and self._a_card(value, "proc:" + calling[-1] if calling else self.scope)
            case ir.Phase(body=body):
                return self._every_pass(body.stmts, facts, depth, args, fresh, calling)
            case ir.If(branches=bs, orelse=orelse):
                for k, (t, b) in enumerate(bs):  # a branch the facts say is taken, the ones before it too
                    if _implies(facts, self._to_loop(t, args)):
                        return all(self._every_pass(b2.stmts, facts + (self._to_loop(t2, args),), depth, args, fresh,
                                                    calling) for t2, b2 in bs[:k + 1])
                if orelse is None:
                    return False
                return all(self._every_pass(b.stmts, facts + (self._to_loop(t, args),), depth, args, fresh, calling)
                           for t, b in bs) and self._every_pass(orelse.stmts, facts, depth, args, fresh, calling)
            case ir.Repeat(count=ir.Int(value=v), body=body) if v >= 1:
                return self._every_pass(body.stmts, facts, depth + 1, args, fresh, calling)
            case ir.While():
                return self._inner_loop(s, facts, args, calling)
            case ir.Choose():
                return self._choose(s, facts, depth, args, fresh, calling)
            case ir.Do(proc=proc, args=call_args):
                if proc in calling or len(calling) > 8:
                    return False
                p = self.procs[proc]
                # a parameter the procedure sets anew stands for nothing of the caller's
                reset = {n.target.name for n in ir.walk(p.body) if isinstance(n, ir.Set) and isinstance(n.target, ir.Local)}
                inner = {name: None if name in reset else self._to_loop(a, args) for name, a in zip(p.params, call_args)}
                inner[_FRAME] = proc  # names the procedure's own locals apart from every other body's
                return self._every_pass(p.body.stmts, facts, depth, inner, fresh, calling + (proc,))
            case ir.Move(what=what, dest=dest):
                return self._moves_one(what, dest, None, facts, args, fresh, calling)
            case ir.Draw(count=count, source=src, dest=dest):
                return self._moves_one(src, dest, count, facts, args, fresh, calling)
        return False

    def _choose(self, s: ir.Choose, facts, depth, args, fresh, calling) -> bool:
        may_pass = s.pass_if is not None and s.pass_if != ir.Bool(False)
        orelse_ok = s.orelse is not None and self._every_pass(s.orelse.stmts, facts, depth, args, fresh, calling)
        if may_pass and not orelse_ok:
            return False
        if s.options:
            offered = [o for o in s.options if o.when != ir.Bool(False)]
            for o in offered:
                extra = () if o.when is None else (self._to_loop(o.when, args),)
                if not self._every_pass(o.body.stmts, facts + extra, depth, args, fresh, calling):
                    return False
            if orelse_ok:
                return True
            whens = [o.when for o in offered]
            if not whens:
                return False
            if any(w is None for w in whens):
                return True
            # no option offered would run the orelse (or nothing): the options must cover what is known
            return _implies(facts, _disjunction([self._to_loop(w, args) for w in whens]))
        if s.var is None or s.body is None or s.count_kind is not None:
            return False
        src_zones = self._zones(s.source, calling)
        if src_zones is ANY:
            return False
        chosen = ir.Local(s.var) if args is None else ir.Local(f"\1{calling[-1]}:{s.var}")
        body_args = None if args is None else {**args, s.var: chosen}
        self.chosen_from[chosen] = src_zones
        self.chosen_src[chosen] = self._to_loop(s.source, args)
        if not self._every_pass(s.body.stmts, facts, depth, body_args, fresh | {chosen}, calling):
            return False
        if orelse_ok:
            return True
        # the body runs only when the choice has something to choose from
        return s.where is None and self._nonempty(self._to_loop(s.source, args), facts)

    def _zones(self, e, calling):
        return self.flow.zones_of(e, "proc:" + calling[-1] if calling else self.scope)

    def _moves_one(self, what, dest, count, facts, args, fresh, calling) -> bool:
        """Whether this move or draw surely moves at least one card as the measure needs."""
        zd = self._zones(dest, calling)
        if zd is ANY:
            return False
        if count is None:  # a move: of a card chosen from known zones, not moved since
            card = self._to_loop(what, args)
            if card not in fresh:
                return False
            zs = self.chosen_from.get(card)
        else:  # a draw: of at least one card, from a pile known not to be empty
            if not (isinstance(count, ir.Int) and count.value >= 1) or \
                    not self._nonempty(self._to_loop(what, args), facts):
                return False
            zs = self._zones(what, calling)
        if zs is ANY or not zs:
            return False
        m = self.m
        if m.kind == "unset":
            return False
        if m.kind == "player":
            return count is None and self.chosen_src.get(self._to_loop(what, args)) == m.expr and not (zd & m.zones)
        if m.kind == "drain":
            return zs <= m.zones and not (zd & m.zones)
        return not (zs & m.zones) and self._to_loop(dest, args) == m.expr

    def _nonempty(self, coll, facts) -> bool:
        """Whether `coll` is known to hold at least one item: the facts count it above 0."""
        if coll is None:
            return False
        return _implies(facts, ir.BinOp(">", ir.Call("count", (coll,)), ir.Int(0)))

    def _to_loop(self, e, args: dict | None):
        """`e` in the loop body's terms: a procedure's locals replaced by what its call passed."""
        if args is None or e is None:
            return e

        def sub(n):
            if isinstance(n, ir.Local):
                v = args.get(n.name)
                # a local of the procedure's own: equal to nothing of another body
                return ir.Local(f"\0{args.get(_FRAME)}:{n.name}") if v is None else v
            return ir.map_children(n, sub)

        return sub(e)


def _inline(spec: ir.Spec, e):
    """A call of a def with its body, the parameters replaced by the arguments (one level)."""
    if isinstance(e, ir.Call):
        d = next((d for d in spec.defs if d.name == e.func), None)
        if d is not None and len(d.params) == len(e.args):
            table = dict(zip(d.params, e.args))

            def sub(n):
                if isinstance(n, ir.Local) and n.name in table:
                    return table[n.name]
                return ir.map_children(n, sub)

            return sub(d.body)
    return e


def _most_per_player(b: Bounds, zone: str) -> int | None:
    """The most cards one player's `zone` can hold: the cards of a set dealt per player lie only in
    their owner's zones (see _owners_kept) and the others anywhere.  None when that is not known."""
    t = b.t
    if not _owners_kept(b):
        return None
    cards = b.flow.cards_in(zone)
    shared = sum(1 for c in cards if t.owner[c] is None)
    per: dict = {}
    for c in cards:
        if t.owner[c] is not None:
            per[t.owner[c].i] = per.get(t.owner[c].i, 0) + 1
    return shared + max(per.values(), default=0)


def _owners_kept(b: Bounds) -> bool:
    """Whether every rule that puts cards into a player's zone puts there only that player's own
    cards of the sets dealt per player: from that player's zones, filtered by `owner`, chosen from
    such, passed down as a procedure's arguments from such, or from zones such cards never reach.
    The cards start in their owner's zones, so then they only ever lie in their owner's zones or in
    shared ones."""
    t, flow, spec = b.t, b.flow, b.spec
    if any(f.name == "owner" for c in spec.components for f in c.fields):
        return False  # a field of that name would hide the card's owner
    owned = {c for c in range(t.n_cards) if t.owner[c] is not None}
    if not owned:
        return True
    o = _Owners(spec, {z.name for z in spec.zones if z.per_player}, b.truth)
    per_player = o.per_player

    def free_of_owned(e, scope) -> bool:
        zs = flow.zones_of(e, scope)
        return zs is not ANY and not any(set(flow.cards_in(z)) & owned for z in zs)

    for root, scope in o.roots:
        for n in ir.walk(root):
            match n:
                case ir.Move(what=src, dest=dest) | ir.Draw(source=src, dest=dest):
                    zd = flow.zones_of(dest, scope)
                    if (zd is not ANY and not (zd & per_player)) or free_of_owned(src, scope):
                        continue
                    if not (isinstance(dest, ir.Attr) and dest.name in per_player
                            and o.owned_by(src, dest.obj, scope, 0)):
                        return False
                case ir.Exchange(a=a, b=b_):
                    if free_of_owned(a, scope) and free_of_owned(b_, scope):
                        continue
                    owners = [w for w in (o.zone_owner(a, scope, 0), o.zone_owner(b_, scope, 0)) if w is not None]
                    if not any(o.owned_by(b_, w, scope, 0) and o.owned_by(a, w, scope, 0) for w in owners):
                        return False
    return True


class _Owners:
    """Whose cards an expression denotes, read through choices, lets and procedure arguments."""

    def __init__(self, spec: ir.Spec, per_player: set[str], truth=lambda e: None):
        self.per_player = per_player
        self.spec = spec
        self.truth = truth  # a condition known true or false (a ruling's value), else None
        self.procs = {p.name: p for p in spec.procedures}
        self.roots = [(x, "main") for x in (spec.setup, spec.scoring) if x is not None]
        if spec.rounds is not None:
            self.roots.append((spec.rounds.body, "rounds"))
        self.roots += [(p.body, "proc:" + p.name) for p in spec.procedures]
        self.binders: dict[str, dict] = {}
        self.calls: dict[str, list] = {}  # procedure -> (its call's arguments, the caller's scope)
        for root, scope in self.roots:
            table = self.binders.setdefault(scope, {})
            for n in ir.walk(root):
                if isinstance(n, ir.Choose) and n.var is not None and n.source is not None:
                    table.setdefault(n.var, []).append(n.source)
                elif isinstance(n, ir.Let):
                    table.setdefault(n.name, []).append(n.value)
                elif isinstance(n, (ir.For, ir.Pick)):
                    table.setdefault(n.var, []).append(n.coll if isinstance(n, ir.For) else n.source)
                elif isinstance(n, ir.Set) and isinstance(n.target, ir.Local):
                    table.setdefault(n.target.name, []).append(None)  # reassigned: not followed
                elif isinstance(n, ir.Do):
                    self.calls.setdefault(n.proc, []).append((n.args, scope))

    def _binder(self, name: str, scope: str):
        xs = self.binders.get(scope, {}).get(name, ())
        return xs[0] if len(xs) == 1 else None

    def _param(self, name: str, scope: str) -> int | None:
        if not scope.startswith("proc:") or name in self.binders.get(scope, {}):
            return None
        params = self.procs[scope[5:]].params
        return params.index(name) if name in params else None

    def zone_owner(self, e, scope, depth):
        """The player expression whose zones `e`'s cards lie in (`first(p.stock)`, a card chosen from `p.hand`)."""
        if depth > 6:
            return None
        match e:
            case ir.Attr(obj=o, name=z) if z in self.per_player:
                return o
            case ir.ListComp(coll=c) | ir.Call(func="take" | "first" | "last", args=(c, *_)):
                return self.zone_owner(c, scope, depth + 1)
            case ir.Local(name=x) if self._binder(x, scope) is not None:
                return self.zone_owner(self._binder(x, scope), scope, depth + 1)
            case ir.Call() if _inline(self.spec, e) is not e:
                return self.zone_owner(_inline(self.spec, e), scope, depth + 1)
            case ir.Cond(test=t, then=a, orelse=b) if self.truth(t) is not None:
                return self.zone_owner(a if self.truth(t) else b, scope, depth)
        return None

    def owned_by(self, e, who, scope, depth) -> bool:
        """Whether every card `e` denotes belongs to the player `who` names, both read in `scope`."""
        if depth > 8:
            return False
        match e:
            case ir.Attr(obj=o, name=z) if z in self.per_player:
                return o == who  # read at the same moment
            case ir.ListComp(var=v, coll=c, where=w):
                if w is not None and any(isinstance(x, ir.BinOp) and x.op == "==" and x.left == ir.Attr(ir.Local(v), "owner")
                                         and x.right == who for x in _conjuncts(w)):
                    return True
                return self.owned_by(c, who, scope, depth + 1)
            case ir.Call(func="take" | "first" | "last", args=(c, *_)):
                return self.owned_by(c, who, scope, depth + 1)
            case ir.Call() if _inline(self.spec, e) is not e:  # a def: its body, read with the arguments
                return self.owned_by(_inline(self.spec, e), who, scope, depth + 1)
            case ir.BinOp(op="+", left=a, right=b):  # parts of the expression itself: no deeper
                return self.owned_by(a, who, scope, depth) and self.owned_by(b, who, scope, depth)
            case ir.Cond(test=t, then=a, orelse=b):  # the branch a ruling decides, else both
                known = self.truth(t)
                return all(self.owned_by(x, who, scope, depth)
                           for x in ((a,) if known is True else (b,) if known is False else (a, b)))
            case ir.Local(name=x):
                if self._stable(who, scope) and self._binder(x, scope) is not None:
                    return self.owned_by(self._binder(x, scope), who, scope, depth + 1)
                # a procedure's parameter, and the player one of its parameters: so at every call
                k = self._param(x, scope)
                if k is not None and isinstance(who, ir.Local) and self._param(who.name, scope) is not None:
                    j = self._param(who.name, scope)
                    calls = self.calls.get(scope[5:], [])
                    return bool(calls) and all(self.owned_by(args[k], args[j], caller, depth + 1)
                                               for args, caller in calls)
        return False

    def _stable(self, who, scope) -> bool:
        """Whether the player `who` names stays the same through its body: parameters, never reassigned."""
        return all(self._param(n.name, scope) is not None for n in ir.walk(who) if isinstance(n, ir.Local))


def _plain_zones(e) -> bool:
    """Whether `e` is all the cards of some zones (a filter is not: setting a field changes it)."""
    match e:
        case ir.SharedZone() | ir.Attr():
            return True
        case ir.BinOp(op="+", left=a, right=b):
            return _plain_zones(a) and _plain_zones(b)
    return False


def _disjunction(es: list):
    out = es[0]
    for e in es[1:]:
        out = ir.BinOp("or", out, e)
    return out


def _implies(facts, goal) -> bool:
    """Whether the facts imply the goal, each atom (a flag, a call, a comparison) read as an
    unknown and each count as an unknown number of 0 or more (z3)."""
    atoms: dict = {}

    def atom(e, kind):
        key = (kind, e)
        if key not in atoms:
            atoms[key] = f"a{len(atoms)}"
        return ("ivar" if kind == "int" else "bvar"), atoms[key]

    def num(e):
        match e:
            case ir.Int(value=v):
                return ("int", v)
            case ir.Call(func="count" | "size", args=(x,)) | ir.Agg(func="count", coll=x, where=None):
                return atom(ir.Call("count", (x,)), "int")
        return None

    def form(e):
        match e:
            case ir.Bool(value=v):
                return ("bool", v)
            case ir.Not(operand=o):
                return ("not", form(o))
            case ir.BinOp(op="and" | "or", left=a, right=b):
                return (e.op, form(a), form(b))
            case ir.BinOp(op="<" | "<=" | ">" | ">=" | "==" | "!=", left=a, right=b) if num(a) and num(b):
                x, y = num(a), num(b)
                return {"<": ("lt", x, y), "<=": ("le", x, y), ">": ("lt", y, x), ">=": ("le", y, x),
                        "==": ("eq", x, y), "!=": ("not", ("eq", x, y))}[e.op]
        return atom(e, "bool")

    formula = ("not", form(goal))
    for f in facts:
        formula = ("and", form(f), formula)
    ranges = {name: (0, None) for (kind, _), name in atoms.items() if kind == "int"}
    status, _ = solver.satisfiable(formula, ranges)
    return status == "unsat"


# ---- how many cards a set of zones can hold: where cards can go, each procedure call read with its own arguments

# Procedure calls read one by one before the reading gives up (and leaves flow's answer).
MAX_CALLS = 4000


class CallReach:
    """Where each card can go, as flow.py works it out, but with each call of a procedure read with
    the zones its own arguments name (flow joins every call's arguments, so a procedure that refills
    any row from any deck lets every deck's cards into every row).  A procedure already being read
    (recursion) counts with flow's joined reading of it and all it calls.  None when the program
    holds more calls than MAX_CALLS."""

    def __init__(self, flow, locations: list[int] | None):
        self.flow = flow
        self.procs = {p.name: p for p in flow.spec.procedures}
        self.calls = 0
        self.envs: dict[tuple, dict] = {}
        self.reach: list[set[str]] | None = None
        t = flow.t
        slots = list(t.start_slot) if locations is None else list(locations)
        try:
            for _ in range(8):
                self.changed = False
                self.moves: list = []
                self.calls = 0
                spec = flow.spec
                self._block(spec.setup, ("main",), ())
                if spec.rounds is not None:
                    self._block(spec.rounds.body, ("rounds",), ())
                self._block(spec.scoring, ("main",), ())
                if not self.changed:
                    break
            else:
                return
        except _TooMany:
            return
        reach = [{t.zone_slots[s][0].name} for s in slots]
        flow._fixpoint(reach, self.moves)
        self.reach = reach

    def most_in(self, zones) -> int | None:
        if self.reach is None:
            return None
        return sum(1 for r in self.reach if r & zones)

    def _zones(self, e, key):
        return self.flow.zones_of(e, self.envs.setdefault(key, {}))

    def _bind(self, key, name, zones) -> None:
        env = self.envs.setdefault(key, {})
        old = env.get(name, set())
        new = ANY if zones is ANY or old is ANY else old | zones
        if new != old:
            env[name] = new
            self.changed = True

    def _block(self, b, key, stack) -> None:
        if b is not None:
            for s in b.stmts:
                self._stmt(s, key, stack)

    def _stmt(self, s, key, stack) -> None:
        from .flow import _kinds
        match s:
            case ir.Let(name=name, value=value) | ir.Set(target=ir.Local(name=name), value=value):
                self._bind(key, name, self._zones(value, key))
            case ir.For(var=var, coll=coll, body=body):
                self._bind(key, var, self._zones(coll, key))
                self._block(body, key, stack)
            case ir.Choose():
                if s.var is not None:
                    self._bind(key, s.var, self._zones(s.source, key) if s.source is not None else ANY)
                for o in s.options:
                    self._block(o.body, key, stack)
                self._block(s.body, key, stack)
                self._block(s.orelse, key, stack)
            case ir.Pick(var=var, source=src, body=body):
                self._bind(key, var, self._zones(src, key))
                self._block(body, key, stack)
            case ir.Move(what=what, dest=dest):
                self.moves.append((self._zones(what, key), self._zones(dest, key), _kinds(what)))
            case ir.Draw(source=src, dest=dest):
                self.moves.append((self._zones(src, key), self._zones(dest, key), None))
            case ir.Exchange(a=a, b=b):
                za, zb = self._zones(a, key), self._zones(b, key)
                self.moves += [(za, zb, None), (zb, za, None)]
            case ir.If(branches=bs, orelse=orelse):
                for _, b in bs:
                    self._block(b, key, stack)
                self._block(orelse, key, stack)
            case ir.Phase(body=body) | ir.Repeat(body=body) | ir.While(body=body):
                self._block(body, key, stack)
            case ir.Do(proc=proc, args=args):
                if proc in stack:
                    self.moves += _joined_moves(self.flow, self.procs, proc)
                    return
                self.calls += 1
                if self.calls > MAX_CALLS:
                    raise _TooMany
                inner = key + (s.span.site, proc)
                for name, a in zip(self.procs[proc].params, args):
                    self._bind(inner, name, self._zones(a, key))
                self._block(self.procs[proc].body, inner, stack + (proc,))


class _TooMany(Exception):
    pass


def _joined_moves(flow, procs, proc) -> list:
    """flow's reading of a procedure and everything it calls: every call's arguments joined."""
    from .flow import _kinds
    out, todo, seen = [], [proc], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        scope = "proc:" + name
        for n in ir.walk(procs[name].body):
            match n:
                case ir.Move(what=what, dest=dest):
                    out.append((flow.zones_of(what, scope), flow.zones_of(dest, scope), _kinds(what)))
                case ir.Draw(source=src, dest=dest):
                    out.append((flow.zones_of(src, scope), flow.zones_of(dest, scope), None))
                case ir.Exchange(a=a, b=b):
                    za, zb = flow.zones_of(a, scope), flow.zones_of(b, scope)
                    out += [(za, zb, None), (zb, za, None)]
                case ir.Do(proc=p):
                    todo.append(p)
    return out
