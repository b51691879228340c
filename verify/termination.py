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
  at most k passes run;
- *values*: `any(v in D where P(v))`, D a fixed list (an enum), P(u) a count
  of cards.  Nothing the loop runs can make P(u) true again, and each pass
  chooses a u with P(u) and runs an inner `while P(u)` whose cap is proved:
  at most |D| passes;
- *per player*: `any(q in players where count(q.Z) > 0)` or `... where not
  q.F` (a latch), each pass visiting every player, each visit moving a card
  of theirs out of Z (or setting F): at most what one player's Z can hold
  (plus one for the latch), read from the player's own cards or from the
  group of their zones Z trades cards with and what the setup deals into it.

"Each pass moves a card" is read from the body's control flow, every path:
a `choose x from L` runs its body when L is known not to be empty (a test of
L's count around it, the loop's own condition included, with nothing changed
since), a choice of options offers at least one (z3 checks that the options'
conditions cover what is known), `may choose ... else { break }` runs its body
or leaves the loop, and `set done = true` for a loop whose condition says
`not done` ends it (when the loop sets `done` to nothing else); a `for` over
a collection known not to be empty runs its body at least once.  What is
known is read with defs unfolded and counts in one form (z3 reads the
arithmetic, and counts over an enum item by item); a fact stays known until
a statement changes something it reads.  Procedures
are followed with their arguments; a procedure already being followed is
not.  Everything unsure counts as "no card moved": the answer only ever errs
towards unknown.
"""

from __future__ import annotations

import attrs

from soan.dsl import ir
from soan.dsl.analysis import conjuncts

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
    # measures read from the condition's whole form, each tried in every branch of the setup
    whole = []
    if isinstance(node.test, ir.Agg) and node.test.func == "any":
        whole.append(_Prover.prove_per_player)
    if _latch_test(node.test) is not None:
        whole.append(_Prover.prove_latch)
    if _domain_test(node.test) is not None:
        whole.append(_Prover.prove_domain)
    for how in whole:
        proofs = [how(_Prover(b, node, scope, reaches[k] if reaches else None)) for k, b in enumerate(bs)]
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


def _least_cap(b: Bounds, limit: ir.Expr) -> int | None:
    """The smallest value a loop's cap can have (the count of a list of constants is its length)."""
    match limit:
        case ir.Call(func="count" | "size", args=(ir.ListLit(items=items),)) | \
                ir.Agg(func="count", coll=ir.ListLit(items=items), where=None, value=None):
            return len(items)
    return b.int_min(limit)


def _latch_test(test: ir.Expr):
    """(q, F) for a condition `any(q in players where not q.F)`, F a field of the players."""
    match test:
        case ir.Agg(func="any", var=q, coll=ir.AllPlayers(), where=ir.Not(operand=ir.Attr(obj=ir.Local(name=q2), name=f)),
                    value=None) if q2 == q:
            return q, f
        case ir.Agg(func="any", var=q, coll=ir.AllPlayers(), where=ir.BinOp(
                op="==", left=ir.Attr(obj=ir.Local(name=q2), name=f), right=ir.Bool(value=False)), value=None) if q2 == q:
            return q, f
    return None


def _domain_test(test: ir.Expr):
    """(v, D, P, k) for a condition `any(v in D where P)` (k = 0) or `count(v in D where P) > k`, D a
    fixed list of values (an enum, a list of constants)."""
    match test:
        case ir.Agg(func="any", var=v, coll=d, where=p, value=None) if p is not None:
            k = 0
        case ir.BinOp(op=">", left=ir.Agg(func="count", var=v, coll=d, where=p, value=None),
                      right=ir.Int(value=k)) if p is not None:
            pass
        case ir.BinOp(op=">", left=ir.Call(func="count" | "size", args=(ir.ListComp(var=v, coll=d, where=p, value=None),)),
                      right=ir.Int(value=k)) if p is not None:
            pass
        case _:
            return None
    if not all(isinstance(n, (ir.ListLit, ir.Symbol, ir.Int, ir.Bool)) for n in ir.walk(d)) or \
            not isinstance(d, ir.ListLit):
        return None
    return v, d, p, k


def _candidates(test: ir.Expr):
    """(collection, 'drain' | 'fill', c or k) for each conjunct of the condition that counts cards."""
    for c in conjuncts(test):
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


def _hold(zones) -> str:
    return "holds" if len(zones) == 1 else "hold"


def _zone_word(zones) -> str:
    names = sorted(zones)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# Statements after which every fact still holds (nothing they do is read by a condition).
_KEEPS_FACTS = (ir.Say, ir.Check, ir.Look)
_MOVES_CARDS = (ir.Move, ir.Draw, ir.Exchange, ir.Do, ir.Shuffle)


_FRAME = "\0frame"
_ALL = ("all",)  # anything may change
_ANY_FRAME = "\0*"  # any local of a called procedure's frame


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
        self._normed: dict = {}
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
            with self.b.reading_in(site.env):
                if not self.b.val(e).one:
                    return False
        return True

    def _exit_flags(self) -> dict[str, bool]:
        """Locals whose setting ends the loop: a conjunct `not X` (the body sets X only to true)
        or `X` (only to false).  Locals live in their own running body, so only the loop's own
        statements can set them."""
        out = {}
        for c in conjuncts(self.node.test):
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
        cap = _least_cap(self.b, self.node.limit)
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
            most = self._most_cards(zones)
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

    def _most_cards(self, zones) -> int:
        """The most cards the zones hold at once: the cards that can ever lie there, or fewer where the
        call's own reach (where cards lie when the loop's procedure is called) says so."""
        most = len({c for z in zones for c in self.flow.cards_in(z)})
        reach = self.call_reach.most_in(zones) if self.call_reach is not None else None
        return most if reach is None else min(most, reach)

    def _prove_unset(self, m_expr, bound: int, cap: int, moves) -> CapProof | str:
        """A count of the cards of some zones whose field f is none (`[g in p.grills where g.dish == none]`):
        no card enters those zones, nothing the loop runs sets f to what may be none, and each pass
        sets f of one of those cards to a card (or ends the loop)."""
        line = self.node.span.line
        comp = _inline(self.b.spec, m_expr)
        field = None
        if isinstance(comp, ir.ListComp) and comp.value is None:
            for c in conjuncts(comp.where) if comp.where is not None else []:
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
        most = self._most_cards(zones)
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
        for c in conjuncts(w.test):
            flag = c.operand if isinstance(c, ir.Not) else c
            if isinstance(flag, ir.Local) and flag.name in inner.exit_flags:
                continue
            if not self._imp((), self._to_loop(c, args)):
                return False
        if not self._imp(facts, self._to_loop(w.test, args)):
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
                    if n.when is not None and self._imp((), ir.Not(self._to_loop(n.when, args))):
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
        if loop.where is not None and not self._imp((holds,), loop.where):
            return f"the players the loop at line {line} visits may leave out one who holds cards in {zone}"
        for src, dest, st in self._moves():
            if dest is ANY or zone in dest:
                return f"a rule at line {st.span.line} may put cards into {zone}"
        if any(isinstance(n, ir.Break) for n, _ in self.reach):
            return f"a break in the loop at line {line} may end a pass before it visits every player"
        most = _most_per_player(self.b, zone)
        if most is None:
            return f"one player's {zone} is not known to hold only that player's own cards"
        most = min(most, getattr(self.b, "_held", {}).get(zone, most))  # held at once (verify/held.py)
        cap = _least_cap(self.b, self.node.limit)
        if cap is None:
            return f"the cap at line {line} has no known least value"
        self.m = Measure("player", mine, frozenset({zone}), 0)
        self.sticky = (holds,)
        if not self._every_pass(loop.body.stmts, self.sticky, 1, None):
            return f"not every visit of a player who holds cards in {zone} is known to move one out"
        return CapProof(most, cap, f"each pass visits every player, and the visit of a player who still holds "
                                   f"cards in {zone} moves one out; nothing the loop runs puts one in, and one "
                                   f"player's {zone} holds at most {most} cards")

    def prove_latch(self) -> CapProof | str:
        """`while any(q in players where not q.F) max N { for p in players where not p.F { ... } }`:
        nothing the loop runs sets F back to false, nor puts a card into one player's zone Z, and the
        visit of a player whose F is false moves a card of theirs out of Z or sets their F.  So
        count(p.Z) + (1 if not p.F) falls in every pass for a player whose F is still false after it
        (they were visited with F false): that player held one more than the passes in Z at the start,
        and the passes are at most one more than the cards one player's Z can hold (read from the
        zones that trade cards with Z: see _group_most)."""
        line = self.node.span.line
        q, flag = _latch_test(self.node.test)
        stmts = self.node.body.stmts
        if len(stmts) != 1 or not isinstance(stmts[0], ir.For):
            return f"the loop at line {line} is not one pass over the players"
        loop = stmts[0]
        if not (self.b._distinct_players(loop.coll) and self.b.size(loop.coll) == self.b.n):
            return f"the loop at line {line} does not visit every player once"
        me = ir.Local(loop.var)
        unset = ir.Not(ir.Attr(me, flag))
        if loop.where is not None and not self._imp((unset,), loop.where):
            return f"the players the loop at line {line} visits may leave out one whose {flag} is not set"
        for st, _ in self.reach:
            if isinstance(st, ir.Set) and isinstance(st.target, ir.Attr) and st.target.name == flag and \
                    not (st.op == "=" and st.value == ir.Bool(True)):
                return f"the rule at line {st.span.line} may set {flag} back"
        if _break_escapes(loop.body, self.procs):
            return f"a break in the loop at line {line} may end a pass before it visits every player"
        cap = _least_cap(self.b, self.node.limit)
        if cap is None:
            return f"the cap at line {line} has no known least value"
        # the zones a visit can take the player's cards out of: each chosen from in the pass
        zones = sorted({n.source.name for n, _ in self.reach if isinstance(n, ir.Choose) and
                        isinstance(n.source, ir.Attr) and n.source.name in self.flow.zone_names})
        reasons = []
        for zone in zones:
            if any(dest is ANY or zone in dest for _, dest, _ in self._moves()):
                continue
            most = self._group_most(zone)
            if isinstance(most, str):
                reasons.append(most)
                continue
            self.m = Measure("latch", ir.Attr(me, zone), frozenset({zone}), 0)
            self.m_flag = flag
            self.sticky = (unset,)
            if not self._every_pass(loop.body.stmts, self.sticky, 1, None):
                reasons.append(f"not every visit of a player whose {flag} is not set is known to move a card "
                               f"of theirs out of {zone} or to set it")
                continue
            return CapProof(most + 1, cap,
                            f"each pass visits every player, and the visit of a player whose {flag} is not set moves "
                            f"a card of theirs out of {zone} or sets it; nothing the loop runs sets it back or puts "
                            f"a card into {zone}, and one player's {zone} holds at most {most} cards")
        return "; ".join(dict.fromkeys(reasons)) or f"no visit at line {line} takes cards out of a zone of the player's"

    def _group_most(self, zone: str) -> int | str:
        """The most cards one player's `zone` can hold: a group G of per-player zones holds it (every
        zone that puts cards into G by a move that may take many joins G); moves inside G keep each
        card in the same player's zones, an exchange of one card for one keeps every count, and what comes
        into G from outside is dealt by the setup, to each player once, in a bounded number (`take(X,
        k)`, `first(X)`, `draw k`).  So one player's G holds at most what lay there at the start and
        those deals."""
        spec, flow, t = self.b.spec, self.flow, self.b.t
        if self.call_reach is None:
            return "where cards lie at the start is not known here"
        per_player = {z.name for z in spec.zones if z.per_player}
        if zone not in per_player:
            return f"{zone} is not a zone of each player's"
        o = _Owners(spec, per_player)
        moves = []  # (what moves, where to, its scope, the statement, the setup's player it is dealt to once)

        def setup_walk(block, once, looped):
            for st in block.stmts:
                match st:
                    case ir.Move(what=w, dest=d) | ir.Draw(source=w, dest=d):
                        moves.append((w, d, "main", st, None if looped else once))
                    case ir.Exchange(a=a, b=b_):
                        moves.append((a, b_, "main", st, None))
                        moves.append((b_, a, "main", st, None))
                    case ir.For(var=v, coll=ir.AllPlayers(), where=None, body=body) if not looped and once is None:
                        setup_walk(body, v, False)
                    case ir.For(body=body) | ir.While(body=body) | ir.Repeat(body=body):
                        setup_walk(body, once, True)
                    case _:  # an if, a choice, a pick, a phase: its blocks run at most once each time
                        for n in ir.children(st):
                            if isinstance(n, ir.Block):
                                setup_walk(n, once, looped)
                            elif isinstance(n, ir.OptionBranch):
                                setup_walk(n.body, once, looped)

        for root, scope in o.roots:
            if root is spec.setup:
                setup_walk(root, None, False)
                continue
            for n in ir.walk(root):
                match n:
                    case ir.Move(what=w, dest=d) | ir.Draw(source=w, dest=d):
                        moves.append((w, d, scope, n, None))
                    case ir.Exchange(a=a, b=b_):
                        moves.append((a, b_, scope, n, None))
                        moves.append((b_, a, scope, n, None))

        def one_for_one(st):
            return isinstance(st, ir.Exchange) and self._single_everywhere(st, st.a) and self._single_everywhere(st, st.b)

        group = {zone}
        dealt: dict = {}
        changed = True
        while changed:
            changed = False
            for w, d, sc, st, once in moves:
                if one_for_one(st):
                    continue
                zd, zs = flow.zones_of(d, sc), flow.zones_of(w, sc)
                if zd is ANY:
                    return f"a rule at line {st.span.line} may put cards anywhere"
                if not (zd & group) or (zs is not ANY and zs <= group):
                    continue
                amount = _dealt(st)
                if once is not None and amount is not None and isinstance(d, ir.Attr) and d.obj == ir.Local(once) \
                        and d.name in group:
                    dealt[id(st)] = amount
                    continue
                if zs is ANY or not zs <= per_player:
                    return f"a rule at line {st.span.line} may put cards into {_zone_word(group)} from shared zones"
                group |= zs
                changed = True
        for w, d, sc, st, once in moves:
            if one_for_one(st) or id(st) in dealt:
                continue
            zd, zs = flow.zones_of(d, sc), flow.zones_of(w, sc)
            if zs is not ANY and zs <= group and zd & group:
                if not (isinstance(d, ir.Attr) and o.owned_by(w, d.obj, sc, 0, zones_only=True)):
                    return (f"the rule at line {st.span.line} may move cards between two players' "
                            f"{_zone_word(group)}")
        per: dict = {}
        for slot in self.call_reach.slots:
            z, owner = t.zone_slots[slot]
            if z.name in group:
                per[owner.i] = per.get(owner.i, 0) + 1
        self.group = group
        return max(per.values(), default=0) + sum(dealt.values())

    def prove_domain(self) -> CapProof | str:
        """`while any(v in D where P(v))`, D a fixed list of values, P(u) a count of the cards of some
        zones that meet a filter, above a number: nothing the loop runs brings a card into those zones
        or makes a card meet the filter (a field the filter compares with v is only ever set to none,
        which no value of D is; nothing else it reads changes), so P(u), once false, stays false.
        Each pass chooses a u with P(u) from [v in D where P(v)] and then runs a loop `while P(u)`
        whose own cap is proved out of reach, which leaves P(u) false: one value fewer each pass."""
        line = self.node.span.line
        v, d, p, k = _domain_test(self.node.test)
        size = len(d.items)
        cap = _least_cap(self.b, self.node.limit)
        if cap is None:
            return f"the cap at line {line} has no known least value"
        pu = _norm(_unfold(self.b.spec, p))
        match pu:
            case ir.BinOp(op=">", left=ir.Call(func="count", args=(coll,)), right=ir.Int()):
                pass
            case _:
                return f"the condition at line {line} does not count cards for each value"
        x, z, g = (coll.var, coll.coll, coll.where) if isinstance(coll, ir.ListComp) else (None, coll, None)
        if v in ir.free_locals(z):
            return f"the cards counted at line {line} lie in zones that depend on the value"
        zones = self.flow.zones_of(z, self.scope)
        if zones is ANY or not zones:
            return f"the cards counted at line {line} are not known to lie in some zones"
        for src, dest, st in self._moves():
            if dest is ANY or dest & zones:
                return f"a rule at line {st.span.line} may put cards into {_zone_word(zones)}"
        for st, sc in self.reach:
            if isinstance(st, ir.Exchange):
                za, zb = self.flow.zones_of(st.a, sc), self.flow.zones_of(st.b, sc)
                if za is ANY or zb is ANY or (za | zb) & zones:
                    return f"an exchange at line {st.span.line} may bring cards into {_zone_word(zones)}"
        _, changed = self._effects(self.node.body, None, ())
        keyed = set()  # fields the filter only compares with the value: may be set to none
        for c in ([] if g is None else conjuncts(g)):
            match c:
                case ir.BinOp(op="==", left=ir.Attr(obj=ir.Local(name=x1), name=f), right=ir.Local(name=v1)) | \
                        ir.BinOp(op="==", left=ir.Local(name=v1), right=ir.Attr(obj=ir.Local(name=x1), name=f)) \
                        if x1 == x and v1 == v and f not in self.flow.zone_names:
                    keyed.add(f)
                    continue
            if not self._untouched(c, changed):
                return f"the rules the loop at line {line} runs may change what its count's filter reads"
        tokens = {st.token for st, _ in self.reach if isinstance(st, (ir.Give, ir.Return))}
        for f in keyed:
            if f in tokens or f in ("facedown", "zone"):
                return f"the rules the loop at line {line} runs may change {f}"
            for st, _ in self.reach:
                if isinstance(st, ir.Set) and isinstance(st.target, ir.Attr) and st.target.name == f \
                        and not isinstance(st.value, ir.NoneLit):
                    return f"the rule at line {st.span.line} may give a card the {f} the count at line {line} looks for"
        if any(isinstance(n, ir.NoneLit) for n in d.items):
            return f"the values at line {line} include none"
        self.m = Measure("domain", _norm(_unfold(self.b.spec, ir.ListComp(v, d, p, None))), frozenset(zones), k)
        self.m_domain = (v, p)
        if not self._every_pass(self.node.body.stmts, self._start_facts(), 0, None):
            return (f"not every pass is known to choose a value whose count at line {line} is above "
                    f"0 and run it down to 0, or to end the loop")
        return CapProof(max(0, size - k), cap,
                        f"each pass chooses one of the {size} values whose count of cards is above 0 and runs a loop "
                        f"until it is 0, and nothing the loop runs brings a card into {_zone_word(zones)} or makes "
                        f"one count again")

    def _empties_chosen(self, w: ir.While, fresh, args, calling) -> bool:
        """Whether `w` is `while P(u)` for a value u chosen in this pass from the measure's values
        (not chosen anew since), with no break and its own cap proved out of reach: when it ends, P(u)
        is false."""
        v, p = self.m_domain
        test = _norm(_unfold(self.b.spec, self._to_loop(w.test, args)))
        scope = "proc:" + calling[-1] if calling else self.scope
        for card in fresh:
            src = self.chosen_src.get(card)
            if src is None or _norm(_unfold(self.b.spec, src)) != self.m.expr:
                continue
            if test != _norm(_unfold(self.b.spec, _subst(p, {v: card}))):
                continue
            inner = _Prover(self.b, w, scope, self.call_reach)
            if any(isinstance(n, ir.Break) for n, _ in inner.reach):
                return False
            if self.nested >= 2:
                return False
            self.nested += 1
            try:
                proof = prove_cap([self.b], w, scope, [self.call_reach] if self.call_reach else None)
            finally:
                self.nested -= 1
            return isinstance(proof, CapProof)
        return False

    def _start_facts(self) -> tuple:
        return tuple(conjuncts(self.node.test))

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
            if isinstance(s, _KEEPS_FACTS):
                continue
            moved_from, changed = self._effects(s, args, calling)
            # a fact stays known when the statement changes nothing it reads
            facts = self.sticky + tuple(f for f in facts if f not in self.sticky and self._untouched(f, changed))
            if isinstance(s, ir.Let) and isinstance(s.value, ir.Bool):  # a flag just set: known
                flag = self._to_loop(ir.Local(s.name), args)
                facts += (flag if s.value.value else ir.Not(flag),)
            if self.m.kind in ("unset", "player"):
                if any(isinstance(n, _MOVES_CARDS) or (isinstance(n, ir.Set) and isinstance(n.target, ir.Local))
                       for n in ir.walk(s)) or (self.m.kind == "unset" and ("field", self.m_field) in changed):
                    fresh = frozenset()  # a chosen card may have moved, or its field changed
            else:  # a chosen card may have moved only if cards left a zone it was chosen from
                fresh = frozenset(c for c in fresh if ("local", c.name) not in changed and _ALL not in changed
                                  and moved_from is not ANY and not (self.chosen_from.get(c, ANY) is ANY)
                                  and not (self.chosen_from[c] & moved_from))
        return False

    def _effects(self, s, args, calling):
        """(the zones cards may leave, what may change: ("zone", z), ("field", f), ("global", g),
        ("local", name), ("vp",), or _ALL) when `s` runs, through every procedure it calls."""
        flow = self.flow
        moved: set | object = set()
        changed: set = set()
        scope = "proc:" + calling[-1] if calling else self.scope

        def local(name, top):
            if not top:
                return ("local", _ANY_FRAME)  # a local of a called procedure's own frame
            x = self._to_loop(ir.Local(name), args)
            return ("local", x.name) if isinstance(x, ir.Local) else _ALL

        todo, seen = [(s, scope, True)], set()
        while todo:
            root, sc, top = todo.pop()
            for n in ir.walk(root):
                if not isinstance(n, ir.Stmt):
                    continue
                match n:
                    case ir.Move(what=a, dest=b) | ir.Draw(source=a, dest=b) | ir.Exchange(a=a, b=b):
                        za, zb = flow.zones_of(a, sc), flow.zones_of(b, sc)
                        if za is ANY or zb is ANY:
                            return ANY, {_ALL}
                        moved |= za | (zb if isinstance(n, ir.Exchange) else set())
                        changed |= {("zone", z) for z in za | zb} | {("field", "facedown")}
                    case ir.Shuffle(zone=z):
                        zs = flow.zones_of(z, sc)
                        if zs is ANY:
                            return ANY, {_ALL}
                        changed |= {("zone", x) for x in zs}
                    case ir.Flip():
                        changed.add(("field", "facedown"))
                    case ir.Set(target=t):
                        match t:
                            case ir.Attr(name=f):
                                changed.add(("field", f))
                            case ir.GlobalVar(name=g):
                                changed.add(("global", g))
                            case ir.Local(name=x):
                                changed.add(local(x, top))
                            case _:
                                changed.add(_ALL)
                    case ir.Let(name=x):
                        changed.add(local(x, top))
                    case ir.Choose(var=x) | ir.For(var=x) | ir.Pick(var=x):
                        if x is not None:
                            changed.add(local(x, top))
                    case ir.Give(token=tok) | ir.Return(token=tok):
                        changed.add(("field", tok))
                    case ir.Award():
                        changed.add(("vp",))
                    case ir.Eliminate():
                        changed.add(("field", "eliminated"))
                    case ir.Do(proc=proc):
                        if proc not in seen:
                            seen.add(proc)
                            todo.append((self.procs[proc].body, "proc:" + proc, False))
                    case ir.Say() | ir.Check() | ir.Look() | ir.Break() | ir.If() | ir.Phase() | ir.Repeat() | \
                            ir.While() | ir.Win() | ir.EndGame():
                        pass
                    case _:
                        changed.add(_ALL)  # a die rolled, or a statement not read here: anything may change
        return moved, changed

    def _untouched(self, fact, changed) -> bool:
        """Whether nothing in `changed` is read by the fact (its defs unfolded)."""
        if _ALL in changed:
            return False
        for n in ir.walk(_unfold(self.b.spec, fact)):
            match n:
                case ir.SharedZone(name=z):
                    key = ("zone", z)
                case ir.Attr(name=f):
                    if f == "zone":
                        return False
                    key = ("zone", f) if f in self.flow.zone_names else ("field", f)
                case ir.GlobalVar(name=g):
                    key = ("global", g)
                case ir.Local(name=x):
                    if x[:1] in ("\0", "\1", "\2") and ("local", _ANY_FRAME) in changed:
                        return False
                    key = ("local", x)
                case ir.Call(func="vp"):
                    key = ("vp",)
                case ir.Call(func=f) if f not in _PURE:
                    return False  # a supply, what a player sees, or a def the unfolding did not reach
                case _:
                    continue
            if key in changed:
                return False
        return True

    def _stmt(self, s, facts, depth, args, fresh, calling) -> bool:
        match s:
            case ir.Break():
                return depth == 0
            case ir.Set(target=ir.Local(name=x), op="=", value=ir.Bool(value=v)) if not calling:
                return self.exit_flags.get(x) == v
            case ir.Set(target=ir.Attr(obj=obj, name=f), op="=", value=ir.Bool(value=True)) if self.m.kind == "latch":
                return f == self.m_flag and self._to_loop(obj, args) == self.m.expr.obj
            case ir.Set(target=ir.Attr(obj=obj, name=f), op="=", value=value) if self.m.kind == "unset":
                card = self._to_loop(obj, args)
                return f == self.m_field and card in fresh and self.chosen_src.get(card) == self.m.expr \
                    and self._a_card(value, "proc:" + calling[-1] if calling else self.scope)
            case ir.Phase(body=body):
                return self._every_pass(body.stmts, facts, depth, args, fresh, calling)
            case ir.If(branches=bs, orelse=orelse):
                for k, (t, b) in enumerate(bs):  # a branch the facts say is taken, the ones before it too
                    if self._imp(facts, self._to_loop(t, args)):
                        return all(self._every_pass(b2.stmts, facts + (self._to_loop(t2, args),), depth, args, fresh,
                                                    calling) for t2, b2 in bs[:k + 1])
                if orelse is None:
                    return False
                return all(self._every_pass(b.stmts, facts + (self._to_loop(t, args),), depth, args, fresh, calling)
                           for t, b in bs) and self._every_pass(orelse.stmts, facts, depth, args, fresh, calling)
            case ir.Repeat(count=ir.Int(value=v), body=body) if v >= 1:
                return self._every_pass(body.stmts, facts, depth + 1, args, fresh, calling)
            case ir.While():
                if self.m.kind == "domain" and self._empties_chosen(s, fresh, args, calling):
                    return True
                return self._inner_loop(s, facts, args, calling)
            case ir.For(var=v, coll=coll, where=w, body=body):
                return self._for(v, coll, w, body, facts, depth, args, fresh, calling)
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
                for name, a in zip(p.params, call_args):
                    # `first(X)` of a collection known not to be empty: one card of X's zones, fixed at the call
                    if name not in reset and isinstance(a, ir.Call) and a.func in ("first", "last") and \
                            self._nonempty(self._to_loop(a.args[0], args), facts):
                        zs = self._zones(a.args[0], calling)
                        if zs is not ANY and zs:
                            card = ir.Local(f"\2{s.span.site}:{name}")
                            self.chosen_from[card] = zs
                            self.chosen_src[card] = self._to_loop(a.args[0], args)
                            inner[name] = card
                            fresh = fresh | {card}
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
            return self._imp(facts, _disjunction([self._to_loop(w, args) for w in whens]))
        if s.var is None or s.body is None or s.count_kind is not None:
            return False
        src_zones = self._zones(s.source, calling)
        if src_zones is ANY:
            return False
        chosen = ir.Local(s.var) if args is None else ir.Local(f"\1{calling[-1]}:{s.var}")
        body_args = None if args is None else {**args, s.var: chosen}
        self.chosen_from[chosen] = src_zones
        self.chosen_src[chosen] = self._to_loop(s.source, args)
        known = self._member_facts(self.chosen_src[chosen], chosen)
        if s.where is not None:
            known += conjuncts(self._to_loop(s.where, body_args) if body_args is not None else s.where)
        if not self._every_pass(s.body.stmts, facts + tuple(known), depth, body_args, fresh | {chosen}, calling):
            return False
        if orelse_ok:
            return True
        # the body runs only when the choice has something to choose from
        return s.where is None and self._nonempty(self._to_loop(s.source, args), facts)

    def _member_facts(self, coll, item, depth: int = 0) -> list:
        """What an item of `coll` (in the loop body's terms) is known to meet: a filter's conditions;
        of `A + B`, what both say, and that one of them holds."""
        if depth > 4 or coll is None:
            return []
        u = _unfold(self.b.spec, coll) if depth == 0 else coll
        match u:
            case ir.ListComp(var=v, coll=c, where=w, value=None) | ir.Ranking(var=v, coll=c, where=w):
                own = [] if w is None else conjuncts(_subst(w, {v: item}))
                return own + self._member_facts(c, item, depth + 1)
            case ir.BinOp(op="+", left=a, right=b):
                fa, fb = self._member_facts(a, item, depth + 1), self._member_facts(b, item, depth + 1)
                both = [f for f in fa if f in fb]
                if fa and fb:
                    either = ir.BinOp("or", _and_all(fa), _and_all(fb))
                    return both + [either]
                return both
        return []

    def _zones(self, e, calling):
        return self.flow.zones_of(e, "proc:" + calling[-1] if calling else self.scope)

    def _moves_one(self, what, dest, count, facts, args, fresh, calling) -> bool:
        """Whether this move or draw surely moves at least one card as the measure needs."""
        zd = self._zones(dest, calling)
        if zd is ANY:
            return False
        if count is None and isinstance(what, ir.Call) and what.func in ("first", "last", "take") \
                and self.m.kind in ("drain", "fill"):
            # the first card (or k >= 1 cards) of a collection known not to be empty
            if what.func == "take" and not (isinstance(what.args[1], ir.Int) and what.args[1].value >= 1):
                return False
            if not self._nonempty(self._to_loop(what.args[0], args), facts):
                return False
            zs = self._zones(what.args[0], calling)
        elif count is None:  # a move: of a card chosen from known zones, not moved since
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
        if m.kind in ("unset", "domain"):
            return False
        if m.kind in ("player", "latch"):
            return count is None and self.chosen_src.get(self._to_loop(what, args)) == m.expr and not (zd & m.zones)
        if m.kind == "drain":
            return zs <= m.zones and not (zd & m.zones)
        return not (zs & m.zones) and self._to_loop(dest, args) == m.expr

    def _nonempty(self, coll, facts) -> bool:
        """Whether `coll` is known to hold at least one item: the facts count it above 0 (every
        player is a collection of at least one; `best` of a filter that is not empty, with a tie
        fallback that keeps someone, is not empty; a filter of players by `any(c in Z where ...
        c.owner == p)` is not empty when some card of Z is, and every card that can lie in Z has an
        owner)."""
        if coll is None:
            return False
        c = _norm(_unfold(self.b.spec, coll))
        if isinstance(c, ir.Ranking):
            if c.kind == "best" and c.fallback == "none":
                return False
            c = _filter(c.var, c.coll, c.where)
        c = _filter(None, c, None)
        if isinstance(c, (ir.AllPlayers, ir.PlayersFrom)):
            return True
        if self._imp(facts, ir.BinOp(">", ir.Call("count", (c,)), ir.Int(0))):
            return True
        owned = self._owned_witness(c)
        return owned is not None and self._imp(facts, owned)

    def _owned_witness(self, c):
        """For [p in players where count([c in Z where ... and c.owner == p]) > 0]: `count([c in Z where
        ...]) > 0`, when every card that can lie in Z has an owner (that card's owner is then one of them)."""
        if not (isinstance(c, ir.ListComp) and isinstance(c.coll, (ir.AllPlayers, ir.PlayersFrom)) and c.where):
            return None
        p = c.var
        match c.where:
            case ir.BinOp(op=">", left=ir.Call(func="count", args=(ir.ListComp(var=x, coll=z, where=g),)),
                          right=ir.Int(value=0)) if g is not None:
                pass
            case _:
                return None
        mine = [k for k in conjuncts(g) if k in (ir.BinOp("==", ir.Attr(ir.Local(x), "owner"), ir.Local(p)),
                                                  ir.BinOp("==", ir.Local(p), ir.Attr(ir.Local(x), "owner")))]
        rest = [k for k in conjuncts(g) if k not in mine]
        if not mine or p in ir.free_locals(z) or any(p in ir.free_locals(k) for k in rest):
            return None
        zones = self.flow.zones_of(z, self.scope)
        if zones is ANY or not zones or any(self.b.t.owner[card] is None for zn in zones
                                            for card in self.flow.cards_in(zn)):
            return None
        return ir.BinOp(">", _count_of(x, z, _and_all(rest)), ir.Int(0))

    def _imp(self, facts, goal) -> bool:
        """_implies, with every def unfolded and every count in one form."""
        def n(e):
            if e not in self._normed:
                self._normed[e] = _norm(_unfold(self.b.spec, e))
            return self._normed[e]
        return _implies(tuple(n(f) for f in facts), n(goal))

    def _to_loop(self, e, args: dict | None):
        """`e` in the loop body's terms: a procedure's locals replaced by what its call passed
        (a comprehension's own variable left alone)."""
        if args is None or e is None:
            return e
        table = {k: v for k, v in args.items() if k != _FRAME and v is not None}
        frame = args.get(_FRAME)
        # a local of the procedure's own: equal to nothing of another body
        return _subst(e, table, other=lambda name: ir.Local(f"\0{frame}:{name}"))

    def _for(self, v, coll, where, body, facts, depth, args, fresh, calling) -> bool:
        """A `for` over a collection known not to be empty runs its body at least once, for an item
        that meets the collection's filter (a break in it ends only the `for`)."""
        item = self._to_loop(ir.Local(v), args)
        if not isinstance(item, ir.Local):
            return False
        c = self._to_loop(coll, args)
        w = self._to_loop(where, args)
        lc = ir.ListComp(item.name, c, w, None) if w is not None else c
        if not self._nonempty(lc, facts):
            return False
        known = [] if w is None else [w]
        u = _unfold(self.b.spec, c)
        if isinstance(u, (ir.Ranking, ir.ListComp)) and u.where is not None and \
                not (isinstance(u, ir.ListComp) and u.value is not None):
            known.append(_subst(u.where, {u.var: item}))
        return self._every_pass(body.stmts, facts + tuple(known), depth + 1, args, fresh, calling)


# ---- expressions read as the loop's facts: defs unfolded, counts in one form

_BINDERS = (ir.ListComp, ir.Agg, ir.Ranking)
# functions of their arguments alone (every other one reads the game: vp, supply, sees)
_PURE = {"count", "size", "sum", "max", "min", "any", "all", "distinct", "first", "last", "take", "abs",
         "position", "next", "distance", "player", "reverse"}


def _bound_vars(e) -> set[str]:
    return {n.var for n in ir.walk(e) if isinstance(n, _BINDERS)}


def _subst(e, table: dict, other=None):
    """`e` with each free local named in `table` replaced by its entry (and every other free local
    by `other(name)` when given), renaming a comprehension's variable that an entry would capture."""
    values_free = set().union(*(ir.free_locals(v) for v in table.values())) if table else set()

    def go(n, table, bound):
        if isinstance(n, ir.Local):
            if n.name in bound:
                return n
            if n.name in table:
                return table[n.name]
            return other(n.name) if other is not None else n
        if isinstance(n, _BINDERS):
            coll = go(n.coll, table, bound)
            var, inner = n.var, dict(table)
            inner.pop(var, None)
            if var in values_free:  # the entry's own local would be captured: a fresh name for the variable
                k = 0
                while f"{var}'{k}" in values_free:
                    k += 1
                inner[var] = ir.Local(f"{var}'{k}")
                var = f"{var}'{k}"
                new_bound = bound
            else:
                new_bound = bound | {var}
            rest = ir.map_children(n, lambda ch: ch if ch is n.coll else go(ch, inner, new_bound))
            return attrs.evolve(rest, var=var, coll=coll)
        return ir.map_children(n, lambda ch: go(ch, table, bound))

    return go(e, table, frozenset())


def _unfold(spec: ir.Spec, e, depth: int = 8):
    """`e` with every call of a def replaced by its body, the parameters by the arguments."""
    defs = {d.name: d for d in spec.defs}

    def go(n, depth):
        if isinstance(n, ir.Call) and n.func in defs and depth > 0:
            d = defs[n.func]
            if len(d.params) == len(n.args):
                args = [go(a, depth) for a in n.args]
                return go(_subst(d.body, dict(zip(d.params, args))), depth - 1)
        return ir.map_children(n, lambda ch: go(ch, depth))

    return go(e, depth)


def _alpha(e):
    """`e` with each comprehension's variable named by how many comprehensions enclose it, so that
    expressions equal but for those names compare equal (no free local has such a name)."""
    def go(n, table, depth):
        if isinstance(n, ir.Local):
            return table.get(n.name, n)
        if isinstance(n, _BINDERS):
            coll = go(n.coll, table, depth)
            new = f"\5{depth}"
            inner = {**table, n.var: ir.Local(new)}
            rest = ir.map_children(n, lambda ch: ch if ch is n.coll else go(ch, inner, depth + 1))
            return attrs.evolve(rest, var=new, coll=coll)
        return ir.map_children(n, lambda ch: go(ch, table, depth))

    return go(e, {}, 0)


def _and_all(parts):
    parts = sorted(dict.fromkeys(parts), key=lambda p: repr(_alpha(p)))
    if not parts:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = ir.BinOp("and", out, p)
    return out


def _norm(e):
    """One form for a count and a test of emptiness: `any(x in C where W)` is `count([x in C where W]) > 0`,
    a filter of a filter one filter, its conditions in a fixed order, an `order` (for counting) its filter."""
    def go(n):
        n = ir.map_children(n, go)
        match n:
            case ir.Agg(func="any", var=v, coll=c, where=w, value=None):
                return ir.BinOp(">", _count_of(v, c, w), ir.Int(0))
            case ir.Agg(func="count", var=v, coll=c, where=w, value=None):
                return _count_of(v, c, w)
            case ir.Call(func="count" | "size", args=(x,)):
                return _count_of(None, x, None)
        return n
    return _alpha(go(e))


def _count_of(var, coll, where):
    lc = _filter(var, coll, where)
    return ir.Call("count", (lc,))


def _filter(var, coll, where):
    """[var in coll where where] in one form (None var: all of coll)."""
    parts = [] if where is None else conjuncts(where)
    while True:
        match coll:
            case ir.ListComp(var=v2, coll=c2, where=w2, value=None):
                pass
            case ir.Ranking(kind="order", var=v2, coll=c2, where=w2):
                pass
            case _:
                break
        if var is None:
            var = v2
        else:
            parts = [_subst(p, {var: ir.Local(v2)}) for p in parts] if var != v2 else parts
            var = v2
        parts += [] if w2 is None else conjuncts(w2)
        coll = c2
    if not parts:
        return coll
    # the variable's own name does not matter: one name for every filter
    taken = set().union(*(ir.free_locals(p) for p in parts)) - {var}
    canon, k = "\4x", 0
    while canon in taken:  # a name the conditions do not already use for another local
        canon, k = f"\4x'{k}", k + 1
    parts = [_subst(p, {var: ir.Local(canon)}) for p in parts]
    return ir.ListComp(canon, coll, _and_all(parts), None)


def _dealt(st) -> int | None:
    """How many cards a move or draw takes at most, when a number says so."""
    match st:
        case ir.Draw(count=ir.Int(value=k)):
            return k
        case ir.Move(what=ir.Call(func="take", args=(_, ir.Int(value=k)))):
            return k
        case ir.Move(what=ir.Call(func="first" | "last")):
            return 1
    return None


def _break_escapes(block: ir.Block, procs: dict) -> bool:
    """Whether a break run in `block` (through the procedures it calls) may end the loop around it:
    one not inside a loop of its own."""
    def esc(b, seen):
        for n in _shallow(b):
            if isinstance(n, ir.Break):
                return True
            if isinstance(n, ir.Do) and n.proc not in seen and esc(procs[n.proc].body, seen | {n.proc}):
                return True
        return False
    return esc(block, frozenset())


def _shallow(node):
    """Every node under `node` but those inside a loop (while, repeat, for) below it."""
    for ch in ir.children(node):
        yield ch
        if not isinstance(ch, (ir.While, ir.Repeat, ir.For)):
            yield from _shallow(ch)


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
        self.defs = {d.name: d for d in spec.defs}
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

    def owned_by(self, e, who, scope, depth, zones_only: bool = False) -> bool:
        """Whether every card `e` denotes belongs to the player `who` names, both read in `scope`
        (`zones_only`: lies in that player's zones, whoever owns it)."""
        if depth > 8:
            return False
        match e:
            case ir.Attr(obj=o, name=z) if z in self.per_player:
                return o == who  # read at the same moment
            case ir.BinOp(op="+", left=a, right=b) if zones_only:
                return self.owned_by(a, who, scope, depth + 1, True) and self.owned_by(b, who, scope, depth + 1, True)
            case ir.Call(func=f, args=args) if zones_only and f in self.defs and len(self.defs[f].params) == len(args):
                if any(ir.free_locals(a) & _bound_vars(self.defs[f].body) for a in args):
                    return False
                body = _subst(self.defs[f].body, dict(zip(self.defs[f].params, args)))
                return self.owned_by(body, who, scope, depth + 1, True)
            case ir.ListComp(var=v, coll=c, where=w):
                if not zones_only and w is not None and any(isinstance(x, ir.BinOp) and x.op == "==" and x.left == ir.Attr(ir.Local(v), "owner")
                                         and x.right == who for x in conjuncts(w)):
                    return True
                return self.owned_by(c, who, scope, depth + 1, zones_only)
            case ir.Call(func="take" | "first" | "last", args=(c, *_)):
                return self.owned_by(c, who, scope, depth + 1, zones_only)
            case ir.Call() if _inline(self.spec, e) is not e:  # a def: its body, read with the arguments
                return self.owned_by(_inline(self.spec, e), who, scope, depth + 1, zones_only)
            case ir.BinOp(op="+", left=a, right=b):  # parts of the expression itself: no deeper
                return self.owned_by(a, who, scope, depth, zones_only) and self.owned_by(b, who, scope, depth, zones_only)
            case ir.Cond(test=t, then=a, orelse=b):  # the branch a ruling decides, else both
                known = self.truth(t)
                return all(self.owned_by(x, who, scope, depth, zones_only)
                           for x in ((a,) if known is True else (b,) if known is False else (a, b)))
            case ir.Local(name=x):
                if self._stable(who, scope) and self._binder(x, scope) is not None:
                    return self.owned_by(self._binder(x, scope), who, scope, depth + 1, zones_only)
                # a procedure's parameter, and the player one of its parameters: so at every call
                k = self._param(x, scope)
                if k is not None and isinstance(who, ir.Local) and self._param(who.name, scope) is not None:
                    j = self._param(who.name, scope)
                    calls = self.calls.get(scope[5:], [])
                    return bool(calls) and all(self.owned_by(args[k], args[j], caller, depth + 1, zones_only)
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
    """Whether the facts imply the goal (z3).  Arithmetic, `if`, `max`/`min`/`abs`, comparisons and
    enum values are read as they are; a count, sum or `any` over a list of constants (an enum) is
    read item by item; everything else (a count of cards, a field, a flag, a call) is an unknown,
    the same one wherever the same expression appears, a count one of 0 or more."""
    atoms: dict = {}
    codes: dict = {}

    def atom(e, kind):
        key = (kind, _alpha(e))
        if key not in atoms:
            atoms[key] = f"a{len(atoms)}"
        return ("bvar" if kind == "bool" else "ivar"), atoms[key]

    def code(name):  # each enum value (and none) a number of its own
        return ("int", codes.setdefault(name, 1_000_000 + len(codes)))

    def items(coll):
        return coll.items if isinstance(coll, ir.ListLit) and len(coll.items) <= 64 else None

    def total(parts):
        out = ("int", 0)
        for x in parts:
            out = ("add", out, x)
        return out

    def num(e):
        match e:
            case ir.Int(value=v):
                return ("int", v)
            case ir.Bool(value=v):
                return ("int", 1 if v else 0)
            case ir.Symbol(name=n):
                return code(n)
            case ir.NoneLit():
                return code("\0none")
            case ir.BinOp(op="+" | "-" | "*", left=a, right=b):
                return ({"+": "add", "-": "sub", "*": "mul"}[e.op], num(a), num(b))
            case ir.Neg(operand=a):
                return ("neg", num(a))
            case ir.Cond(test=t, then=a, orelse=b):
                return ("ite", form(t), num(a), num(b))
            case ir.Call(func="max" | "min", args=args) if len(args) >= 2:
                out = num(args[0])
                for x in args[1:]:
                    y = num(x)
                    out = ("ite", ("lt", out, y) if e.func == "max" else ("lt", y, out), y, out)
                return out
            case ir.Call(func="abs", args=(a,)):
                x = num(a)
                return ("ite", ("lt", x, ("int", 0)), ("neg", x), x)
            case ir.Call(func="count" | "size", args=(ir.ListComp(var=v, coll=c, where=w, value=None),)) \
                    if items(c) is not None:
                return total(("ite", form(_subst(w, {v: x})), ("int", 1), ("int", 0)) for x in items(c))
            case ir.Call(func="count" | "size", args=(c,)) if items(c) is not None:
                return ("int", len(items(c)))
            case ir.Agg(func="sum", var=v, coll=c, where=w, value=val) if val is not None and items(c) is not None:
                return total(("ite", form(_subst(w, {v: x})) if w is not None else ("bool", True),
                              num(_subst(val, {v: x})), ("int", 0)) for x in items(c))
            case ir.Call(func="count" | "size", args=(x,)) | ir.Agg(func="count", coll=x, where=None):
                return atom(ir.Call("count", (x,)), "count")
        return atom(e, "int")

    def form(e):
        match e:
            case ir.Bool(value=v):
                return ("bool", v)
            case ir.Not(operand=o):
                return ("not", form(o))
            case ir.BinOp(op="and" | "or", left=a, right=b):
                return (e.op, form(a), form(b))
            case ir.BinOp(op="<" | "<=" | ">" | ">=" | "==" | "!=", left=a, right=b):
                x, y = num(a), num(b)
                return {"<": ("lt", x, y), "<=": ("le", x, y), ">": ("lt", y, x), ">=": ("le", y, x),
                        "==": ("eq", x, y), "!=": ("not", ("eq", x, y))}[e.op]
            case ir.BinOp(op="has", left=c, right=x) if items(c) is not None:
                out = ("bool", False)
                for it in items(c):
                    out = ("or", out, ("eq", num(it), num(x)))
                return out
            case ir.Cond(test=t, then=a, orelse=b):
                return ("ite", form(t), form(a), form(b))
        return atom(e, "bool")

    formula = ("not", form(goal))
    for f in facts:
        formula = ("and", form(f), formula)
    ranges = {name: (0, None) for (kind, _), name in atoms.items() if kind == "count"}
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
        self.slots = slots  # where each card lies when the rules start
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
