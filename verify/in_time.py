"""Cards that arrive too late to be used: a slot card a player gains as they stop playing a round
(passing), in the last round, after which nothing lets them play again.

Bounds._held_by finds a zone Z whose cards each lie on a card of the same player's Y that held
none, each card of Y taking one in a whole game: no more cards come into p.Z than ever lie in
p.Y.  Not every card of Y can take one, though.  Say a move or draw A into p.Y is latched by a
flag f (Bounds._latched: it runs only in a run of a test that found `not p.f`, once per run, after
`set p.f = true` with nothing setting f in between), and every move into p.Z runs for a player
that passed a test `not p.f` with nothing that may set field f read between that test and the
move.  A card A brings at time a is used by a move into p.Z at a later time z:

- if that move's test ran before a: p.f was false at the test and true at a, so something set it
  true in between, which the move's reading rules out;
- so the test ran after a, when p.f was false again: a setting of p.f other than `true` (a reset)
  ran between a and z.

Between two firings of A for p a reset runs too (the latch), so the first reset after each firing
is a different one: the firings of A whose cards can be used number at most the resets of f for
one player.  A card gained as a player passes in the last round, when nothing clears the passes
after it, takes no card.

Which cards of Y a move into Z uses is read from where each came last before that move (or its
start there): a card brought by A counts against A's firings that a reset follows.  Every other
move, draw or exchange that may bring cards into Y counts in full; one of unknown destination or
size leaves the bound as it was."""

from __future__ import annotations

from soan.dsl import ir


def usable(b, z: str, y: str, most: int) -> int:
    """The most cards of one player's Y that can take a card into that player's Z (b: a Bounds
    that has read the rules; `most`: the cards that can ever arrive in Y, a bound already
    proved).  At most `most`."""
    t = b.t
    start: dict = {}
    for slot in t.start_slot:
        zone, o = t.zone_slots[slot]
        if zone.name == y:
            start[None if o is None else o.i] = start.get(None if o is None else o.i, 0) + 1
    total = max(start.values(), default=0)
    walks: dict[str, bool] = {}
    cut = False
    for site in b.sites:
        node = site.node
        with b.reading_in(site.env):
            if isinstance(node, ir.Exchange):
                for side in (node.a, node.b):  # the card that ends in Y is one that can lie in Y
                    v = b.val(side)
                    if v.zc is None or set(v.zc[1]) & set(b.flow.cards_in(y)):
                        return most
                continue
            if not isinstance(node, (ir.Move, ir.Draw)):
                continue
            zones, own = b._filled(node.dest)
            if zones is None:
                return most
            if y not in zones:
                continue
            each = b.carried(node)
            times = b.times_for_one_player(site) if own else site.firings
        if times is None or each is None:
            return most
        if own:
            for flag in site.latch:
                if flag not in walks:
                    walks[flag] = _Walk(b, z, flag).all_clear()
                resets = _resets(b, flag)
                if walks[flag] and resets is not None and resets < times:
                    times, cut = resets, True
        total += times * each
    return min(most, total) if cut else most


def _resets(b, flag: str) -> int | None:
    """How often field `flag` of one player can be set to anything but true (as Bounds._latched)."""
    resets = [x for x in b.sites if isinstance(x.node, ir.Set) and isinstance(x.node.target, ir.Attr)
              and x.node.target.name == flag and not (x.node.op == "=" and x.node.value == ir.Bool(True))]
    if any(x.per_player is None for x in resets):
        return None
    return sum(x.per_player for x in resets)


def _unflagged(test, var: str, flag: str) -> bool:
    from .bounds import _unflagged as unflagged  # bounds imports this module

    return test is not None and flag in unflagged(test, var)


def _assigned(block) -> set[str]:
    """The locals a block (not the procedures it calls, which have locals of their own) binds."""
    out = set()
    for n in ir.walk(block):
        match n:
            case ir.Let(name=name) | ir.Set(target=ir.Local(name=name)):
                out.add(name)
            case ir.For(var=var) | ir.Pick(var=var):
                out.add(var)
            case ir.Choose(var=var) if var is not None:
                out.add(var)
    return out


class _Walk:
    """Every way the rules run, in order, keeping the locals known to have passed a test `not x.f`
    with nothing that may set field f read since; whether every move into zone Z goes to such a
    player's Z."""

    def __init__(self, b, zone: str, flag: str):
        self.spec, self.b, self.zone, self.flag = b.spec, b, zone, flag
        self.procs = {p.name: p for p in b.spec.procedures}
        self.ok = True
        self.stack: list[str] = []
        self.seen: set = set()
        self._sets: dict[str, bool] = {}

    def all_clear(self) -> bool:
        for root in (self.spec.setup, self.spec.rounds.body if self.spec.rounds is not None else None,
                     self.spec.scoring):
            if root is not None:
                self.block(root, frozenset())
        return self.ok

    # ---- whether a block may set the flag

    def _sets_here(self, s) -> bool:
        return (isinstance(s, ir.Set) and isinstance(s.target, ir.Attr) and s.target.name == self.flag
                and not (s.op == "=" and s.value == ir.Bool(False)))

    def may_set(self, node) -> bool:
        """Whether running `node` may set field f of anything to anything but false."""
        for n in ir.walk(node):
            if self._sets_here(n):
                return True
            if isinstance(n, ir.Do) and self.proc_sets(n.proc):
                return True
        return False

    def proc_sets(self, name: str) -> bool:
        if name not in self._sets:
            self._sets[name] = True  # a recursive call: assumed to
            p = self.procs.get(name)
            self._sets[name] = p is None or self.may_set(p.body)
        return self._sets[name]

    def own_sets_only(self, node, aliases: frozenset, depth: int = 0) -> bool:
        """Whether every setting of field f that running `node` may make is of `x.f` with x one of
        `aliases` (never bound again there), following procedures' parameters."""
        if _assigned(node) & aliases or depth > 16:
            return False
        for n in ir.walk(node):
            if self._sets_here(n) and not (isinstance(n.target.obj, ir.Local) and n.target.obj.name in aliases):
                return False
            if isinstance(n, ir.Do) and self.proc_sets(n.proc):
                p = self.procs.get(n.proc)
                if p is None:
                    return False
                inner = frozenset(q for q, a in zip(p.params, n.args) if isinstance(a, ir.Local) and a.name in aliases)
                if not self.own_sets_only(p.body, inner, depth + 1):
                    return False
        return True

    # ---- the walk

    def block(self, blk, clear: frozenset) -> frozenset:
        for s in (blk.stmts if blk is not None else ()):
            clear = self.stmt(s, clear)
        return clear

    def stmt(self, s, clear: frozenset) -> frozenset:
        match s:
            case ir.Set(target=ir.Local(name=name)) | ir.Let(name=name):
                return clear - {name}
            case ir.Set():
                return frozenset() if self._sets_here(s) else clear
            case ir.Move(dest=dest):
                if isinstance(dest, ir.Attr) and dest.name == self.zone and \
                        not (isinstance(dest.obj, ir.Local) and dest.obj.name in clear):
                    self.ok = False
                return clear
            case ir.Phase(body=body):
                return self.block(body, clear)
            case ir.If(branches=branches, orelse=orelse):
                outs = []
                for test, body in branches:
                    known = {n.obj.name for n in ir.walk(test) if isinstance(n, ir.Attr) and isinstance(n.obj, ir.Local)
                             and _unflagged(test, n.obj.name, self.flag)}
                    outs.append(self.block(body, clear | known))
                outs.append(self.block(orelse, clear) if orelse is not None else clear)
                return frozenset.intersection(*outs)
            case ir.For(var=var, coll=coll, where=where, body=body):
                entry = clear - {var}
                tested = _unflagged(where, var, self.flag)
                if not self.may_set(body):
                    inner = (entry - _assigned(body)) | ({var} if tested else set())
                elif tested and not s.simultaneous and self._distinct(coll) and \
                        self.own_sets_only(body, frozenset({var})):
                    # the filter is read as the loop starts; each player comes once, and the body
                    # sets the flag of its own player only, so the players still to come keep theirs
                    inner = frozenset({var})
                else:
                    inner = frozenset()
                return entry & self.block(body, frozenset(inner))
            case ir.While(body=body) | ir.Repeat(body=body):
                inner = frozenset() if self.may_set(body) else clear - _assigned(body)
                return clear & self.block(body, inner)
            case ir.Choose(var=var, body=body, options=options, orelse=orelse):
                inner = clear - {var} if var is not None else clear
                outs = [clear]  # a pass, or nothing to choose
                if body is not None:
                    outs.append(self.block(body, inner))
                outs += [self.block(o.body, inner) for o in options]
                if orelse is not None:
                    outs.append(self.block(orelse, clear))
                return frozenset.intersection(*outs)
            case ir.Pick(var=var, body=body):
                return clear & self.block(body, clear - {var})
            case ir.Do(proc=name, args=args):
                p = self.procs.get(name)
                if p is None:
                    return frozenset()
                inner = frozenset(q for q, a in zip(p.params, args) if isinstance(a, ir.Local) and a.name in clear)
                if name in self.stack:  # recursion: its moves are not read in order here
                    if self.may_move_into(p.body):
                        self.ok = False
                elif (name, inner) not in self.seen:
                    self.seen.add((name, inner))
                    self.stack.append(name)
                    try:
                        self.block(p.body, inner)
                    finally:
                        self.stack.pop()
                return frozenset() if self.proc_sets(name) else clear
        blocks = [n for n in ir.children(s) if isinstance(n, ir.Block)]
        for blk in blocks:  # a statement of another kind with a body: nothing known inside
            self.block(blk, frozenset())
        return clear if not blocks and not self.may_set(s) else frozenset()

    def may_move_into(self, node) -> bool:
        return any(isinstance(n, (ir.Move, ir.Do)) for n in ir.walk(node))

    def _distinct(self, coll) -> bool:
        b = self.b
        with b.reading_in({}):
            return b._distinct_players(coll)
