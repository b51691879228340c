"""What the end of a game reads: the parts of a state on which ending it now (the spec's scoring block, then its
winner line, as bots.evaluate does) can depend, found from the checked IR of the scoring, the winner line and every
procedure and def they reach.

Two states that agree on those parts end alike: the same scores, eliminations, result and winner-line ranking.  So
the evaluator can remember what ending a state gave under the values of what it reads (`EndingReads.key`), and a
bot that judges many moves of one position, most of which leave what the scoring reads untouched, ends the game once
for all of them.

The analysis is conservative and knows every node it accepts: a scoring that may draw (a shuffle, a roll, a random
pick) or uses a node it does not know is not analysed at all (`ending_reads` gives None), and the caller ends every
state for real.  A choice is followed: the evaluator's copies take its first legal move, which depends on what the
choice shows its chooser (`_Walk.choice`), so a choice of items puts every zone, face-down mark, card state and who
has seen what in the key.  Always part of the key: the round, the eliminations, every score and every token supply
(the scoring adds to scores and gives tokens, reading what is there); the rest only as far as something names it:

- a player variable, token, global variable or card state: its whole column, where an attribute, `set`, `give` or
  `return` names it; a card state read only of cards bound (as below) by expressions over named zones: its values
  for the cards in those zones, in their order;
- a zone: every slot of it (its cards in order), where the zone is named; a card's place (`c.zone`,
  `position(c)`) reads only the zones its card was taken from when the card is bound by a comprehension, count or
  ranking over named zones (an expression writes nothing, so the card is still there), and otherwise every zone;
- face-down marks: those of the cards in a zone, where `c.facedown` is read of a card bound (as above) by an
  expression over that named zone; every card's otherwise; a flip face up only sets them (the value it sets is its
  own); who has seen what (and so every zone and face-down mark) where `sees()`, `look`, a flip face down or any
  move of cards is involved;
- where cards are moved or drawn: what every zone's capacity reads (a move into a full zone is the spec's error).
"""

from __future__ import annotations

from soan.dsl import ir

from .runtime import CardRef

# builtin functions that read nothing of the state but their arguments (and the scores, always in the key)
_PURE_CALLS = frozenset({"count", "size", "sum", "max", "min", "any", "all", "distinct", "first", "last", "reverse",
                         "take", "abs", "next", "distance", "player", "vp", "supply"})


# expressions that read nothing themselves, only what their parts read (walked through ir.children); a node
# not named in _Walk.expr is unknown, and an ending holding one is not analysed
_STRUCTURAL = (ir.Index, ir.ListLit, ir.BinOp, ir.Not, ir.Neg, ir.Cond, ir.RangeExpr, ir.PlayersFrom)


class _Unknown(Exception):
    """The ending uses something this analysis does not follow."""


class EndingReads:
    """The parts of a state the ending reads (see the module's docstring), and a key made of their values."""

    def __init__(self, tables, names: set[str], zones: set[str], locations: bool, facedown: bool, visibility: bool,
                 facedown_zones: set[str] = frozenset(), state_zones: dict | None = None):
        t = tables
        self.pv = tuple(n for n in t.player_vars if n in names) + tuple(n for n in t.tokens if n in names)
        self.gv = tuple(n for n in t.global_vars if n in names)
        self.all_zones = locations or visibility
        state_zones = state_zones or {}
        if visibility:  # cards move while the game ends: a card read in a zone may have lain elsewhere before
            names = names | set(state_zones)
            state_zones = {}
        self.cs = tuple(n for n in t.state_default if n in names)
        # (slot, card states read of its cards) for states read only of cards in named zones
        self.state_slots = tuple((s, tuple(n for n in t.state_default if n not in names and z.name in state_zones.get(n, ())))
                                 for s, (z, _) in enumerate(t.zone_slots))
        self.state_slots = tuple((s, ns) for s, ns in self.state_slots if ns)
        self.slots = () if self.all_zones else tuple(
            s for s, (z, _) in enumerate(t.zone_slots) if z.name in zones)
        self.facedown = facedown or visibility
        self.visibility = visibility
        # the zones whose cards' face-down marks are read (each slot's, in its order), where not every card's
        self.facedown_slots = () if self.facedown else tuple(
            s for s, (z, _) in enumerate(t.zone_slots) if z.name in facedown_zones)
        self.key = self._compiled_key(t)

    def _compiled_key(self, t):
        """key_of, as one generated function for these tables: the same values in the same order, put together in one
        tuple display instead of a loop over what is read (a greedy bot asks for a key per candidate move)."""
        parts = ["st.round", "*st.elim"] + [f"*vp[{name!r}]" for name in t.scores] + ["*st.supply.values()"]
        parts += [f"*pv[{n!r}]" for n in self.pv] + [f"gv[{n!r}]" for n in self.gv] + [f"*cs[{n!r}]" for n in self.cs]
        for s in (range(len(t.zone_slots)) if self.all_zones else self.slots):
            parts += [f"len(z[{s}])", f"*z[{s}]"]
        parts += [f"*map(cs[{n!r}].__getitem__, z[{s}])" for s, ns in self.state_slots for n in ns]
        if self.facedown:
            parts.append("*st.facedown")
        else:
            parts += [f"*map(st.facedown.__getitem__, z[{s}])" for s in self.facedown_slots]
        if self.visibility:
            parts.append("*st.known")
        src = ("def key(st):\n"
               "    z, vp, pv, gv, cs = st.zones, st.vp, st.pv, st.gv, st.cs\n"
               f"    return ({', '.join(parts)},)\n")
        ns = {"len": len, "map": map}
        exec(compile(src, "<soan ending key>", "exec"), ns)  # names of the tables' own columns only, as repr()
        return ns["key"]

    def key_of(self, st) -> tuple:
        """The values of everything the ending reads in `st` (a state not yet ending), in one flat tuple: every part
        has a fixed length (a player's or card's column, a variable) or follows its length (a zone's cards), and a
        zone's per-card values follow the zone itself, so two states give the same key only where the parts agree."""
        k = [st.round]
        k += st.elim
        for col in st.vp.values():
            k += col
        k += st.supply.values()
        pv, cs, zones = st.pv, st.cs, st.zones
        for n in self.pv:
            k += pv[n]
        gv = st.gv
        for n in self.gv:
            k.append(gv[n])
        for n in self.cs:
            k += cs[n]
        for z in (zones if self.all_zones else [zones[s] for s in self.slots]):
            k.append(len(z))
            k += z
        for s, ns in self.state_slots:
            z = zones[s]
            for n in ns:
                k += map(cs[n].__getitem__, z)
        fd = st.facedown
        if self.facedown:
            k += fd
        else:
            for s in self.facedown_slots:
                k += map(fd.__getitem__, zones[s])
        if self.visibility:
            k += st.known
        return tuple(k)

    def describe(self) -> str:
        """One line: what the key holds beyond the round, eliminations, scores and supplies."""
        return (f"player/token variables {list(self.pv)}, globals {list(self.gv)}, card states {list(self.cs)}, "
                f"card states of the cards in slots {[(s, list(ns)) for s, ns in self.state_slots]}, "
                f"zones {'all' if self.all_zones else list(self.slots)}, "
                f"face-down marks {'all' if self.facedown else list(self.facedown_slots)}, "
                f"who has seen what {self.visibility}")


def ending_reads(tables) -> EndingReads | None:
    """What ending a game of `tables` now reads, or None where the scoring may stop or uses a node this analysis does
    not follow (every ending then runs for real)."""
    w = _Walk(tables)
    spec = tables.spec
    try:
        if spec.scoring is not None:
            w.stmt(spec.scoring)
        win = spec.winner
        if win is not None:
            w.bound(win.var, win.coll, [win.where] + [k.expr for k in win.keys]
                    + ([win.payoff.expr] if win.payoff is not None else []))
    except _Unknown:
        return None
    return EndingReads(tables, w.names, w.zones, w.locations, w.facedown, w.visibility, w.facedown_zones,
                       w.state_zones)


def steady_defs(tables) -> frozenset[str]:
    """The defs whose value cannot change while a game ends (nothing the scoring block or anything it calls writes is
    read by them, nor by a def they call): within one ending, the same arguments give the same value, and a bot's
    copy may remember it (a def's value is none of the game's record, but a ranking inside it counts the ties it
    settles, so only a copy whose counts are thrown away may).  Empty where the ending is not analysed."""
    spec = tables.spec
    w = _Walk(tables)
    try:
        if spec.scoring is not None:
            w.stmt(spec.scoring)
    except _Unknown:
        return frozenset()
    writes = w.writes
    out = set()
    for d in spec.defs:
        r = _Walk(tables)
        try:
            r.expr(d.body)
        except _Unknown:
            continue
        read = r.names | r.always | set(r.state_zones)  # a card state read only of cards in named zones is read too
        if r.zones or r.locations:
            read.add("places")
        if r.facedown or r.facedown_zones:
            read.add("facedown")
        if r.visibility:
            read |= {"places", "facedown", "known"}
        if not read & writes:
            out.add(d.name)
    return frozenset(out)


class _Walk:
    def __init__(self, tables):
        self.t = tables
        spec = tables.spec
        self.defs = {d.name: d for d in spec.defs}
        self.procs = {p.name: p for p in spec.procedures}
        self.pzones = tables.player_zone_names
        self.names: set[str] = set()
        self.zones: set[str] = set()
        self.locations = self.facedown = self.visibility = False
        self.facedown_zones: set[str] = set()  # zones whose cards' face-down marks are read (not every card's)
        self.state_zones: dict[str, set[str]] = {}  # card state -> zones whose cards' values of it are read
        self.always: set[str] = set()  # of the parts always in the key: which are read ("round", "vp", ...)
        self.writes: set[str] = set()  # what the statements walked write: names, "vp", "supply", "elim", "places",
        # "facedown", "known"
        self.done_defs: set[str] = set()
        self.done_procs: set[str] = set()
        self.origin: dict[str, frozenset[str]] = {}  # a local bound by an expression -> the zones its cards came from
        # zones' capacities: worked out from the state where cards are moved or drawn into a capped zone
        self.capacities = [z.capacity for z in spec.zones if z.capacity is not None]

    # ---- expressions ----------------------------------------------------------------------------------------

    def expr(self, e) -> None:
        if e is None or isinstance(e, (ir.Int, ir.Str, ir.Bool, ir.NoneLit, ir.Symbol, ir.Param, ir.Local,
                                       ir.AllPlayers)):
            return  # constants and locals (their values come from what is walked)
        if isinstance(e, ir.Builtin):
            if e.name == "round":
                self.always.add("round")
        elif isinstance(e, ir.GlobalVar):
            self.names.add(e.name)
        elif isinstance(e, ir.SharedZone):
            self.zones.add(e.name)
        elif isinstance(e, ir.Attr):
            self.expr(e.obj)
            if e.name in self.pzones:
                self.zones.add(e.name)
            elif e.name == "zone":
                self.place_of(e.obj)
            elif e.name == "facedown":
                came = self.origin.get(e.obj.name) if isinstance(e.obj, ir.Local) else None
                if came is None:
                    self.facedown = True
                else:
                    self.facedown_zones |= came
            elif e.name == "eliminated":
                self.always.add("elim")
            else:  # a card state, player variable or token (a fixed field, kind, owner or seat reads nothing)
                came = self.origin.get(e.obj.name) if isinstance(e.obj, ir.Local) else None
                if came is not None and e.name in self.t.state_default:  # a card from named zones: its state there
                    self.state_zones.setdefault(e.name, set()).update(came)
                else:
                    self.names.add(e.name)
        elif isinstance(e, _STRUCTURAL):  # reads only what its parts read
            for c in ir.children(e):
                self.expr(c)
        elif isinstance(e, ir.Call):
            for a in e.args:
                self.expr(a)
            if e.func in self.defs:
                if e.func not in self.done_defs:
                    self.done_defs.add(e.func)
                    saved, self.origin = self.origin, {}  # the def's body binds its own locals
                    self.expr(self.defs[e.func].body)
                    self.origin = saved
            elif e.func == "position":
                self.place_of(e.args[0] if e.args else None)
            elif e.func == "sees":
                self.visibility = True
            elif e.func in ("vp", "supply"):
                self.always.add(e.func)
            elif e.func not in _PURE_CALLS:
                raise _Unknown(e.func)
        elif isinstance(e, (ir.Agg, ir.ListComp)):
            self.bound(e.var, e.coll, [e.where, e.value])
        elif isinstance(e, ir.Ranking):
            self.bound(e.var, e.coll, [e.where] + [k.expr for k in e.keys])
        else:
            raise _Unknown(type(e).__name__)

    def bound(self, var: str, coll, inner: list) -> None:
        """`var in coll` and the expressions evaluated with var bound to each element in turn."""
        self.expr(coll)
        came = self.zones_of(coll)
        saved = self.origin.get(var)
        if came is not None:
            self.origin[var] = came
        else:
            self.origin.pop(var, None)
        for x in inner:
            self.expr(x)
        if saved is None:
            self.origin.pop(var, None)
        else:
            self.origin[var] = saved

    def zones_of(self, coll) -> frozenset[str] | None:
        """The zones every element of `coll` lies in, where `coll` is a named zone (or a filter of one)."""
        if isinstance(coll, ir.SharedZone):
            return frozenset((coll.name,))
        if isinstance(coll, ir.Attr) and coll.name in self.pzones:
            return frozenset((coll.name,))
        if isinstance(coll, ir.ListComp) and coll.value is None:
            return self.zones_of(coll.coll)
        return None

    def place_of(self, card) -> None:
        """A card's place read: the zones it was taken from, else every zone."""
        came = self.origin.get(card.name) if isinstance(card, ir.Local) else None
        if came is None:
            self.locations = True
        else:
            self.zones |= came

    # ---- statements -----------------------------------------------------------------------------------------

    def stmt(self, s) -> None:
        if s is None:
            return
        if isinstance(s, ir.Block):
            for x in s.stmts:
                self.stmt(x)
        elif isinstance(s, ir.Let):
            self.expr(s.value)
        elif isinstance(s, ir.Set):
            self.expr(s.value)
            if isinstance(s.target, ir.Attr):
                self.expr(s.target)
                self.writes.add(s.target.name)
            elif isinstance(s.target, ir.GlobalVar):
                self.names.add(s.target.name)
                self.writes.add(s.target.name)
            elif not isinstance(s.target, ir.Local):
                raise _Unknown("set")
        elif isinstance(s, (ir.Move, ir.Draw, ir.Exchange)):
            for x in ((s.what, s.dest) if isinstance(s, ir.Move) else (s.count, s.source, s.dest)
                      if isinstance(s, ir.Draw) else (s.a, s.b)):
                self.expr(x)
            self.visibility = True  # cards change places; who saw them keeps knowing them
            self.writes |= {"places", "facedown", "known"}
            if not isinstance(s, ir.Exchange):  # a move or draw checks its destination's capacity, read now
                caps, self.capacities = self.capacities, []
                saved, self.origin = self.origin, {}
                for cap in caps:
                    self.expr(cap)
                self.origin = saved
        elif isinstance(s, ir.Flip):
            self.expr(s.what)
            self.writes.add("facedown")
            if s.face == "facedown":
                self.visibility = True  # who sees the card now is remembered (face up, the flip only sets the mark)
                self.writes.add("known")
        elif isinstance(s, ir.Look):
            self.expr(s.who)
            self.expr(s.what)
            self.visibility = True
            self.writes.add("known")
        elif isinstance(s, ir.For):
            self.expr(s.coll)
            self.expr(s.where)
            self.stmt(s.body)
        elif isinstance(s, ir.Repeat):
            self.expr(s.count)
            self.stmt(s.body)
        elif isinstance(s, ir.While):
            self.expr(s.test)
            self.expr(s.limit)
            self.stmt(s.body)
        elif isinstance(s, ir.If):
            for test, body in s.branches:
                self.expr(test)
                self.stmt(body)
            self.stmt(s.orelse)
        elif isinstance(s, ir.Do):
            for a in s.args:
                self.expr(a)
            if s.proc not in self.done_procs:
                self.done_procs.add(s.proc)
                self.stmt(self.procs[s.proc].body)
        elif isinstance(s, ir.Award):
            self.expr(s.amount)
            self.expr(s.player)
            self.writes.add("vp")
        elif isinstance(s, (ir.Give, ir.Return)):
            self.expr(s.amount)
            self.expr(s.player)
            self.names.add(s.token)
            self.writes |= {s.token, "supply"}
        elif isinstance(s, ir.Eliminate):
            self.expr(s.player)
            self.writes.add("elim")
        elif isinstance(s, ir.Win):
            self.expr(s.player)
        elif isinstance(s, ir.Phase):
            self.stmt(s.body)
        elif isinstance(s, ir.Check):
            self.expr(s.test)
        elif isinstance(s, ir.Choose):
            self.choice(s)
        elif isinstance(s, (ir.Say, ir.Break, ir.EndGame)):
            return  # a say only narrates (copies ending for a bot do not); break and end game read nothing
        else:  # a shuffle, roll or random pick draws by chance: not followed
            raise _Unknown(type(s).__name__)

    def choice(self, s) -> None:
        """A choice inside the ending.  The evaluator's copies take its first legal move (evaluate.finish_now), so
        the ending is still a function of what it reads, as long as the key holds everything the legal moves and
        their order depend on: the chooser, the options' conditions, the pass's condition, the count's bounds, and
        for a choice of items the items themselves, named as the chooser sees them (compile.item_classes): a card
        by its label, its card states off their defaults, its face-down mark and who has seen it, its zone, and a
        hidden card by its place in its zone.  So a choice of items reads every zone, every face-down mark, who has
        seen what and every card state (the items need not be cards, but nothing here tells)."""
        self.expr(s.player)
        self.expr(s.pass_if)
        for o in s.options:
            self.expr(o.when)
            self.stmt(o.body)
        if s.source is not None:
            self.expr(s.source)
            self.expr(s.where)  # evaluated with s.var bound to each item; the items' origin is not tracked
            self.expr(s.count_lo)
            self.expr(s.count_hi)
            self.visibility = True
            self.names |= set(self.t.state_default)
            self.stmt(s.body)
        self.stmt(s.orelse)


# ---- the scoring's loops, one pass at a time ------------------------------------------------------------------
#
# Most of a bot's endings differ from the one before in a card or two: a majority per suit, an item per card
# type, settled in a loop over the suits.  Each pass of such a loop reads the cards of its own suit only, so
# a pass whose own cards (and the scores and tokens it adds to) are as in an ending before gives what it gave
# then.  `scoring_plan` finds such loops among the scoring's top-level statements: a `for` whose body reads
# every zone only through comprehensions that keep, first of all, the cards whose fixed field equals a value
# known from the pass (the loop's element, a fixed field of it, or a constant), passed on through procedure and
# def parameters; and that writes only numbers a key can hold (player and global variables, card states,
# scores, tokens, eliminations).  Such a pass is keyed by those cards (per zone slot, in order), the card
# states read of them, every other part it reads and the values of everything it writes, so that two passes
# with equal keys run the same statements on the same values and write the same values.

_STATIC_OPS = ("==",)


class _Narrow(_Walk):
    """_Walk for one loop body, with the loop element `var` known per pass: comprehensions over a named zone
    whose first condition is `c.FIELD == V` (FIELD a fixed field, V known per pass) are read as "the cards of
    that zone with FIELD equal to V" (a filter) instead of the whole zone; and what the body writes is listed."""

    def __init__(self, tables, var: str):
        super().__init__(tables)
        t = tables
        self.fixed: dict[str, tuple] = {var: ("item",)}  # local -> ("item",) | ("field", F) | ("const", v)
        self.filt: dict[str, int] = {}  # a comprehension's variable -> the filter its cards come from
        self.filters: list[tuple] = []  # (zone name, field, known value)
        self.filter_states: set[tuple[int, str]] = set()  # (filter, card state read of its cards)
        self.walked: set[tuple] = set()  # (def or procedure, known arguments) already walked
        self.lets: set[str] = set()
        self.static = {f for fs in t.static_fields.values() for f in fs if f not in t.state_default} | {"kind"}
        self.pv_w: set[str] = set()
        self.cs_w: set[str] = set()
        self.gv_w: set[str] = set()
        self.vp_w: set[str] = set()
        self.tok_w: set[str] = set()  # tokens given or returned
        self.give_w: set[str] = set()  # tokens given (a give reads the holding and the supply only to add to them)
        self.elim_w = False
        self.var = var
        self.depth = 0  # inside a def or procedure the body calls: their own locals
        self.binds: set[str] = set()  # locals the body itself binds (let, for, comprehensions)
        self.reads_locals: set[str] = set()  # locals the body itself reads
        self.lets_top: set[str] = set()  # locals the body writes into the loop's env (let and for at its own level)

    def value(self, e) -> tuple | None:
        """What `e` is known to be in every pass, or None."""
        if isinstance(e, ir.Local):
            return self.fixed.get(e.name)
        if (isinstance(e, ir.Attr) and isinstance(e.obj, ir.Local) and self.fixed.get(e.obj.name) == ("item",)
                and e.name in self.static):
            return ("field", e.name)
        if isinstance(e, ir.Symbol):
            return ("const", e.name)
        if isinstance(e, ir.Str) or (isinstance(e, ir.Int) and type(e.value) is int):
            return ("const", e.value)
        return None

    def fold(self, test) -> bool | None:
        """A test of a ruling or assumption against a name (`ruling == value`), decided by the tables, or None."""
        if isinstance(test, ir.BinOp) and test.op in ("==", "!="):
            a, b = test.left, test.right
            if isinstance(b, ir.Param):
                a, b = b, a
            if isinstance(a, ir.Param) and isinstance(b, (ir.Symbol, ir.Str)):
                v = self.t.params.get(a.name)
                if type(v) is str:
                    other = b.name if isinstance(b, ir.Symbol) else b.value
                    return (v == other) == (test.op == "==")
        return None

    def enter(self, name: str, params, args, walk) -> None:
        """Walk a def's or procedure's body with its parameters bound to what is known of `args`."""
        known = tuple(self.value(a) for a in args)
        if (name, known) in self.walked:
            return
        self.walked.add((name, known))
        saved = self.fixed, self.origin, self.filt, self.lets
        self.fixed = {p: v for p, v in zip(params, known) if v is not None}
        self.origin, self.filt, self.lets = {}, {}, set()
        self.depth += 1
        try:
            walk()
        finally:
            self.fixed, self.origin, self.filt, self.lets = saved
            self.depth -= 1

    def free(self) -> list[str]:
        """The locals the body reads from the loop's env other than the loop's element (bound before the loop)."""
        return sorted(self.reads_locals - self.binds - {self.var})

    def expr(self, e) -> None:
        if self.depth == 0:
            if isinstance(e, ir.Local):
                self.reads_locals.add(e.name)
            elif isinstance(e, (ir.Agg, ir.ListComp, ir.Ranking)):
                self.binds.add(e.var)
        if isinstance(e, ir.Attr) and isinstance(e.obj, ir.Local) and e.obj.name in self.filt \
                and e.name in self.t.state_default:
            self.filter_states.add((self.filt[e.obj.name], e.name))
        elif isinstance(e, ir.Cond) and self.fold(e.test) is not None:
            self.expr(e.then if self.fold(e.test) else e.orelse)
        elif isinstance(e, ir.Call) and e.func in self.defs:
            for a in e.args:
                self.expr(a)
            d = self.defs[e.func]
            self.enter(e.func, d.params, e.args, lambda: self.expr(d.body))
        elif isinstance(e, (ir.Agg, ir.ListComp)):
            self.filtered(e.var, e.coll, e.where, [e.value])
        elif isinstance(e, ir.Ranking):
            self.filtered(e.var, e.coll, e.where, [k.expr for k in e.keys])
        else:
            super().expr(e)

    def filtered(self, var: str, coll, where, rest: list) -> None:
        """`var in coll where ...`: a filter where coll is a named zone and the first condition keeps cards by a
        fixed field equal to a known value (the rest of the condition is only evaluated for those cards)."""
        if var in self.fixed or var in self.filt:
            raise _Unknown("a comprehension's variable shadows a known one")
        zone = coll.name if isinstance(coll, ir.SharedZone) else (
            coll.name if isinstance(coll, ir.Attr) and coll.name in self.pzones else None)
        first = where
        while isinstance(first, ir.BinOp) and first.op == "and":
            first = first.left
        found = None
        if zone is not None and isinstance(first, ir.BinOp) and first.op == "==":
            for a, b in ((first.left, first.right), (first.right, first.left)):
                if isinstance(a, ir.Attr) and isinstance(a.obj, ir.Local) and a.obj.name == var \
                        and a.name in self.static and self.value(b) is not None:
                    found = (zone, a.name, self.value(b))
                    break
        if found is None:
            self.bound(var, coll, [where] + rest)
            return
        if found not in self.filters:
            self.filters.append(found)
        if isinstance(coll, ir.Attr):
            self.expr(coll.obj)
        self.origin[var] = frozenset((zone,))  # where a card lies (position, zone), its face: the whole zone
        self.filt[var] = self.filters.index(found)
        try:
            for x in [where] + rest:
                self.expr(x)
        finally:
            self.origin.pop(var, None)
            self.filt.pop(var, None)

    def stmt(self, s) -> None:
        if isinstance(s, ir.If):
            for test, body in s.branches:
                v = self.fold(test)
                if v is False:
                    continue
                self.expr(test)
                self.stmt(body)
                if v is True:
                    return
            self.stmt(s.orelse)
        elif isinstance(s, ir.Do):
            for a in s.args:
                self.expr(a)
            p = self.procs[s.proc]
            self.enter("do " + s.proc, p.params, s.args, lambda: self.stmt(p.body))
        elif isinstance(s, ir.Let):
            if s.name in self.fixed or s.name in self.lets:
                raise _Unknown("a local bound twice")
            self.lets.add(s.name)
            if self.depth == 0:
                self.binds.add(s.name)
                self.lets_top.add(s.name)
            self.expr(s.value)
            v = self.value(s.value)
            if v is not None:
                self.fixed[s.name] = v
        elif isinstance(s, ir.Set):
            tg = s.target
            if isinstance(tg, ir.Local) and (tg.name in self.fixed or tg.name in self.filt):
                raise _Unknown("a known local set")
            if isinstance(tg, ir.Local) and self.depth == 0:  # the loop's env written: in the key and replayed
                self.reads_locals.add(tg.name)
                self.lets_top.add(tg.name)
            if isinstance(tg, ir.Attr):
                if tg.name in self.t.player_vars:
                    self.pv_w.add(tg.name)
                elif tg.name in self.t.state_default:
                    self.cs_w.add(tg.name)
                else:
                    raise _Unknown("set " + tg.name)
            elif isinstance(tg, ir.GlobalVar):
                self.gv_w.add(tg.name)
            super().stmt(s)
        elif isinstance(s, ir.For):
            if s.var in self.fixed or s.var in self.filt:
                raise _Unknown("a loop variable shadows a known one")
            if self.depth == 0:
                self.binds.add(s.var)
                self.lets_top.add(s.var)
            super().stmt(s)
        elif isinstance(s, ir.Award):
            self.vp_w.add(s.item)
            super().stmt(s)
        elif isinstance(s, ir.Give):
            self.tok_w.add(s.token)
            self.give_w.add(s.token)
            self.expr(s.amount)
            self.expr(s.player)
            self.writes |= {s.token, "supply"}
        elif isinstance(s, ir.Return):
            self.tok_w.add(s.token)
            super().stmt(s)  # reads the holding: its column is in the key
        elif isinstance(s, ir.Eliminate):
            self.elim_w = True
            super().stmt(s)
        elif isinstance(s, (ir.Block, ir.Repeat, ir.Say, ir.Check, ir.Phase)) or s is None:
            super().stmt(s)
        else:  # moves, flips, looks, choices, while, break, end, win: not followed
            raise _Unknown(type(s).__name__)


class PassMemo:
    """One scoring loop whose passes are remembered (see above).  `prepare(st)`, once before the loop's passes
    (which move no card), groups the cards of each filtered zone slot by the filter's field; `key(st, env, g)`
    gives the values a pass reads and writes, the element bound in env (None where a pass cannot be keyed: its
    element is not a card); `capture(st)` the values it wrote, `replay(st, values)` writes them again.

    A score the pass only adds to (an award; no `vp()` read in it) is not in the key: a pass is remembered by
    what it adds to each player's score (`added`), with the lowest and highest running total it reached on
    the way, relative to where it started, so that a replay can check the score's declared range at every
    award as the run would (and runs for real where one would fall outside it).  So is a token the pass only
    gives (nothing in it reads the holdings or the supplies): remembered by what each player was given, where the
    run found the supply enough for every give (none short), and replayed where the supply still covers all of it
    (then no give is short either) and each holding stays in its declared range.  `added`: (name, its range,
    whether it is a token) for each."""

    def __init__(self, tables, stmt, w: _Narrow):
        t = tables
        self.stmt = stmt
        ns = {"_CardRef": CardRef, "_fields": t.fields, "map": map, "len": len, "tuple": tuple}
        names = w.names
        pv = None  # (below, once the tokens remembered as given are known)
        gv = sorted((set(names) & set(t.global_vars)) | w.gv_w)
        cs = sorted((set(names) & set(t.state_default)) | w.cs_w)
        added = [] if "vp" in w.always else [n for n in t.scores if n in w.vp_w and (
            t.score_domains.get(n) is None or type(t.score_domains[n]) is ir.IntDomain)]
        # tokens the pass only gives (nothing else reads their holdings or the supplies): remembered as what it
        # gave, like scores, where the supply covered every give (PassMemo.given)
        given = [] if "supply" in w.always else [n for n in sorted(w.give_w) if n not in names and (
            type(t.tokens[n].hold) is ir.IntDomain)]
        self.added = tuple((n, t.score_domains.get(n), False) for n in added) + tuple(
            (n, t.tokens[n].hold, True) for n in given)
        vp = list(t.scores) if "vp" in w.always else [n for n in t.scores if n in w.vp_w and n not in added]
        supply = list(t.tokens) if "supply" in w.always else sorted(w.tok_w - set(given))
        tok_w = w.tok_w - set(given)
        pv = sorted((set(names) & (set(t.player_vars) | set(t.tokens))) | w.pv_w | tok_w)
        elim = "elim" in w.always or w.elim_w
        prep = ["def prepare(st):", "    z = st.zones"]
        groups = []
        lines = ["def key(st, env, g):", "    z, vp, pv, gv, cs = st.zones, st.vp, st.pv, st.gv, st.cs",
                 f"    it = env[{stmt.var!r}]"]
        # the element (a card by its number) and the other locals the body reads from the env, where it reads any
        cards_only = any(v[0] == "field" for _, _, v in w.filters)  # filters by a field of the element: cards only
        parts = ["it.id"] if cards_only else ["type(it) is _CardRef", "it.id if type(it) is _CardRef else it"]
        self.free = tuple(w.free())
        parts += [f"env[{n!r}]" for n in self.free]
        self.binds = tuple(sorted(w.lets_top))  # what a pass leaves in the env
        if "round" in w.always:
            parts.append("st.round")
        if elim:
            parts.append("*st.elim")
        parts += [f"*vp[{n!r}]" for n in vp] + [f"st.supply[{n!r}]" for n in supply]
        parts += [f"*pv[{n!r}]" for n in pv] + [f"gv[{n!r}]" for n in gv] + [f"*cs[{n!r}]" for n in cs]
        if cards_only:
            lines.append("    if type(it) is not _CardRef:\n        return None")
            lines.append("    fl = _fields[it.id]")
        values: dict[tuple, str] = {}  # each value a filter compares with, worked out once a pass
        for n in sorted({n for _, n in w.filter_states}):
            lines.append(f"    s_{n} = cs[{n!r}].__getitem__")
        for k, (zone, field, v) in enumerate(w.filters):
            col = t.kind if field == "kind" else tuple(f.get(field) for f in t.fields)
            ns[f"_col{k}"] = tuple(col)
            if v not in values:
                if v[0] == "item":
                    val = "it"
                elif v[0] == "field":
                    ns["_kind"] = t.kind
                    val = "_kind[it.id]" if v[1] == "kind" else f"fl.get({v[1]!r})"
                else:
                    ns[f"_val{k}"] = v[1]
                    val = f"_val{k}"
                values[v] = f"v{len(values)}"
                lines.append(f"    {values[v]} = {val}")
            states = sorted(n for f, n in w.filter_states if f == k)
            for s, (zd, _) in enumerate(t.zone_slots):
                if zd.name != zone:
                    continue
                # the slot's cards by the field's value, in order: a pass's cards are those of its value
                prep += [f"    g{len(groups)} = {{}}", f"    for c in z[{s}]:",
                         f"        g{len(groups)}.setdefault(_col{k}[c], []).append(c)"]
                lines.append(f"    f{k}_{s} = g[{len(groups)}].get({values[v]}, ())")
                groups.append(f"g{len(groups)}")
                parts += [f"len(f{k}_{s})", f"*f{k}_{s}"] + [f"*map(s_{n}, f{k}_{s})" for n in states]
        prep.append(f"    return ({''.join(x + ', ' for x in groups)})")
        lines.append(f"    return ({', '.join(parts)},)")
        src = "\n".join(prep) + "\n" + "\n".join(lines) + "\n"
        exec(compile(src, "<soan pass key>", "exec"), ns)  # the tables' own names, as repr()
        self.prepare, self.key = ns["prepare"], ns["key"]
        # what a pass writes (but the scores it adds to): whole columns and values, taken after it and written back
        got = ([f"tuple(st.pv[{n!r}])" for n in sorted(w.pv_w | tok_w)] + [f"tuple(st.cs[{n!r}])" for n in sorted(w.cs_w)]
               + [f"st.gv[{n!r}]" for n in sorted(w.gv_w)] + [f"tuple(st.vp[{n!r}])" for n in vp if n in w.vp_w]
               + [f"st.supply[{n!r}]" for n in sorted(tok_w)] + (["tuple(st.elim)"] if w.elim_w else []))
        put = ([f"st.pv[{n!r}][:] = v[{k}]" for k, n in enumerate(sorted(w.pv_w | tok_w))])
        put += [f"st.cs[{n!r}][:] = v[{len(put) + k}]" for k, n in enumerate(sorted(w.cs_w))]
        put += [f"st.gv[{n!r}] = v[{len(put) + k}]" for k, n in enumerate(sorted(w.gv_w))]
        put += [f"st.vp[{n!r}][:] = v[{len(put) + k}]" for k, n in enumerate(n for n in vp if n in w.vp_w)]
        put += [f"st.supply[{n!r}] = v[{len(put) + k}]" for k, n in enumerate(sorted(tok_w))]
        if w.elim_w:
            put.append(f"st.elim[:] = v[{len(put)}]")
        src = ("def capture(st):\n    return (" + "".join(g + ", " for g in got) + ")\n"
               "def replay(st, v):\n" + "".join("    " + p + "\n" for p in put) + "    return None\n")
        exec(compile(src, "<soan pass effects>", "exec"), ns)
        self.capture, self.replay = ns["capture"], ns["replay"]


class Added(list):
    """A score column while a remembered pass runs (PassMemo.added): the same list, which also notes for each
    player the lowest and highest change from the pass's start that an award wrote (`low`, `high`).  None
    where it was written other than one player at a time."""

    __slots__ = ("start", "low", "high", "plain")

    def __init__(self, col):
        super().__init__(col)
        self.start = tuple(col)
        self.low: dict[int, int] = {}
        self.high: dict[int, int] = {}
        self.plain = True

    def __setitem__(self, i, v):
        if type(i) is int and type(v) is int and 0 <= i < len(self.start):
            d = v - self.start[i]
            if d < self.low.get(i, d + 1):
                self.low[i] = d
            if d > self.high.get(i, d - 1):
                self.high[i] = d
        else:
            self.plain = False
        list.__setitem__(self, i, v)

    def record(self) -> tuple | None:
        """(player, change, lowest, highest) for each player written, or None."""
        if not self.plain:
            return None
        return tuple((i, self[i] - self.start[i], self.low[i], self.high[i]) for i in sorted(self.low))


def scoring_plan(tables) -> list | None:
    """The scoring's top-level statements (inside its phases) in order, each ("op", stmt) to run as it is,
    ("phase", stmt) for a phase's start, or ("passes", PassMemo) for a loop whose passes are remembered; None
    where a statement may stop the machine (every ending then runs as one block) or no loop qualifies."""
    spec = tables.spec
    rules = tables.rules
    if spec.scoring is None or not getattr(rules, "fuse", False):
        return None
    out: list = []

    def flat(s) -> None:
        if isinstance(s, ir.Block):
            for x in s.stmts:
                flat(x)
        elif isinstance(s, ir.Phase):
            out.append(("phase", s))
            if s.body is not None:
                flat(s.body)
        else:
            out.append(("op", s))

    flat(spec.scoring)
    plan: list = []
    memos = 0
    for kind, s in out:
        if kind == "op" and not rules.runs_through(s):
            return None
        if kind == "op" and isinstance(s, ir.For) and s.body is not None:
            w = _Narrow(tables, s.var)
            try:
                w.stmt(s.body)
                # each pass reads a part of its own (a filter by what the pass is about, not only by constants:
                # those read the same cards in every pass, and keying each pass by them costs more than it saves)
                narrow = (any(v[0] != "const" for _, _, v in w.filters)
                          and not (w.zones or w.locations or w.facedown or w.facedown_zones or w.visibility
                                   or w.state_zones))
            except _Unknown:
                narrow = False
            if narrow:
                plan.append(("passes", PassMemo(tables, s, w)))
                memos += 1
                continue
        plan.append((kind, s))
    return plan if memos else None
