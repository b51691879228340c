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
