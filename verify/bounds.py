"""A sound over-approximation of a spec for a player count: how often each
statement can fire in one game, and how large the numbers it uses can be.

It is an abstract interpretation over the same control flow the interpreter
runs.  Locals are read through the resolver's bindings (a `Local`'s name is
its binding's key, see `soan.dsl.compiler.Scope`), so this module has no
notion of scope of its own: one environment per running body (the setup and
scoring, the rounds, each procedure call), as in the interpreter, where every
`let`, `set`, loop, choice and pick variable writes its binding.

- Branches are joined (an `if` without `else` joins with not running it; a
  choice with passing, picking nothing, or its `orelse`).
- A loop's body is re-read until its locals stop changing, and at most as
  many times as the loop can run; past `WIDEN_AFTER` readings a local that
  still changes is widened to "unknown".  The body's statements are then
  recorded once, from the join of every iteration's start.
- Firing counts multiply down the program: a `for` fires its body at most
  once per element, a `repeat N` N times (none when N < 1), a `while ... max
  N` N times, the rounds their count (or, with `until`, at least one round and
  at most the cap).  A recursive procedure fires an unknown number of times,
  with everything it calls.
- A value's bound comes from the declared domains (variables, card states, die
  faces) and interval arithmetic; `None` means "no finite bound known", and no
  claim is built on it.
- What the rules guarantee between firings cuts them further: a flag that
  latches a statement, a `while not done` pass that sets done, a card spent
  into a zone no rule takes from, `round == K` (see docs/verify.md).
- The rules are read twice when the first reading bounds how many cards can
  arrive in a zone or proves a loop short: the second reading uses those
  bounds (proved by the first, so it stays sound).
"""

from __future__ import annotations

from contextlib import contextmanager

import attrs

from soan.dsl import ir
from soan.dsl.analysis import conjuncts
from soan.interpreter.runtime import Tables

from . import (branch_awards, budget, card_sums, counters, gated_caps, guard_reads, held, in_time, matched_guard,
               matched_sums, option_awards, owned_groups, pairs, passage, placed, rare_states, replaced, state_caps, trimmed)
from .flow import Flow, opening_steps, pauses
from .per_card import printed_name, spent_by_class

Interval = tuple[int, int] | None

# Readings of a loop's body before a local that keeps changing is widened to unknown.
WIDEN_AFTER = 64
# Calls of one procedure nested inside each other that are read before it counts as unbounded recursion.
MAX_INLINE = 4


@attrs.frozen
class Val:
    """What a local is known to hold."""

    iv: Interval = None  # a number in this range (None: not known to be a bounded number)
    size: int | None = None  # a collection of at most this many items
    elem: Interval = None  # a collection of numbers in this range
    distinct: bool = False  # a collection of players, none twice
    one: bool = False  # a single value, never a list
    # A loop's variable over distinct players: the loop's size (one player is
    # the loop's player once per run of the loop).
    loop_players: int | None = None
    # (guard, flag) pairs: the value passed a test `not x.flag` at that guard (a loop's
    # filter or an `if`) in the run of it being read (see Bounds._latched).
    latch: tuple = ()
    # A card, or a list of distinct cards (see Bounds._zone_cards): (the zones they lie in, the
    # cards that can be it, or among them).  None: not known.
    zc: tuple | None = None
    # A named value (a symbol) it surely is: a field printed alike on every card it can be.
    name: str | None = None
    # A zone itself (not a list of the cards it held when read): its cards lie there however cards move.
    zone: bool = False


TOP = Val()


def join(a: Val, b: Val) -> Val:
    if a == b:
        return a
    return Val(_hull(a.iv, b.iv), None if a.size is None or b.size is None else max(a.size, b.size),
               _hull(a.elem, b.elem), a.distinct and b.distinct, a.one and b.one,
               a.loop_players if a.loop_players == b.loop_players else None,
               tuple(x for x in a.latch if x in b.latch),
               None if a.zc is None or b.zc is None else (a.zc[0] | b.zc[0], tuple(sorted(set(a.zc[1]) | set(b.zc[1])))),
               zone=a.zone and b.zone)


def join_envs(*envs: dict) -> dict:
    """Keys missing on one side keep the other's value: the resolver lets a
    local be read only where every path to the read has bound it."""
    out = dict(envs[0])
    for e in envs[1:]:
        for k, v in e.items():
            out[k] = join(out[k], v) if k in out else v
    return out


@attrs.define
class Site:
    node: ir.Stmt
    firings: int | None
    # For an award or give: how often one player can be the one it fires for.
    per_player: int | None = None
    env: dict = attrs.field(factory=dict, repr=False)  # what the locals are known to be there
    # Conditions known to hold when it runs: the tests of the `if`s around it, as long as
    # nothing between the test and here moved cards or changed a local the test reads.
    guards: tuple = ()
    # Where in the game it runs: ("setup" | "rounds" | "scoring", the top-level step), None: not known.
    stage: tuple | None = None
    # For an award, move or draw: the flags that latch it for its player (see Bounds._latched).
    latch: tuple = ()
    # For an award once per card of a loop over distinct cards: that loop (see verify/card_sums.py).
    card_award: card_sums.CardAward | None = None
    # The sites recorded while reading this statement are those before index `end` after it
    # (None: not read through); for a choice, each option's stretch (see verify/option_awards.py).
    end: int | None = None
    options: list = attrs.field(factory=list, repr=False)


class Bounds:
    def __init__(self, tables: Tables, locations: list[int] | None = None):
        self.t = tables
        self._read_done = False  # every statement's firings known (verify/counters.py reads them)
        self.flow = Flow(tables, locations)
        self.spec = tables.spec
        self.n = tables.n
        self.cards = tables.n_cards
        self.sites: list[Site] = []
        self.env: dict[str, Val] = {}
        self.recording = True
        self._breaks: list[list[dict]] = []
        self._guards: list[list] = []  # [test, still true] of the ifs being read, innermost last
        self._stack: list[tuple] = []  # (procedure or def, its arguments) being read: recursion
        self._procs = {p.name: p for p in self.spec.procedures}
        self._scores: dict | None = None
        # item -> its award sites' solver terms, and (its cap, the terms placements replace, theirs)
        self._award_terms: dict = {}  # (verify/budget.py reads the total with them)
        self._item_reading: dict = {}
        self._total_apart = None  # the total's maximum as the items' maxima summed (see total_apart)
        self._placed_used: dict = {}  # item -> the groups of placements its bound used (verify/placed.py)
        self._scores_ready = False  # a score read in the rules is bounded only once every award is read
        self._zone_most: dict = {}
        # guards `not x.flag` being read: their token -> the firings of one run of their body
        self._latch_runs: dict[int, int | None] = {}
        self._latch_nodes: set[int] = set()  # the statements those guards belong to (one reading each)
        self._stage: tuple | None = None
        self._at: tuple | None = None  # the step of the site whose value is being read (value_at)
        self._given_false: dict = {}  # local -> yes/no states read as false on its card (verify/rare_states.py)
        self._tokens = 0
        # the zones each move, draw or exchange read may take cards from (None: not known), those read
        # inside one statement merged into one entry once it is read (see _cards_moved)
        self._took: list = []
        self._reach_from: dict = {}  # zones -> every zone their cards can ever lie in (see _source_zones)
        self._post_flags: list = []  # flag facts a procedure just read leaves on its caller's locals
        # (done, firings of one run, of one pass, procedure depth) of `while not done` loops
        self._finish: list[tuple] = []
        self._sink_zones: set[str] | None = None
        self._capped = 0  # blocks being read whose firings are a cap, not what the loops around them give
        # zone -> the most cards that ever arrive there (one player's, for a per-player zone), from a
        # first reading of the rules (see _arrivals); empty on that first reading
        self._caps: dict[str, int] = {}
        self._held: dict[str, int] = {}  # per-player zone -> most cards held at once (verify/held.py)
        self._passes: dict[tuple, int] = {}  # a while loop's site -> the most passes one run makes (proved)
        self._capacity: dict[str, int] = {}  # a shared zone -> its declared capacity
        self._departures: dict = {}  # such a zone -> the steps that take cards from it (second reading)
        self._stages: dict[int, tuple] = {}
        self._card_loops: list[card_sums.CardLoop] = []  # the loops over distinct cards being read
        self._per_player_zones = {z.name for z in tables.spec.zones if z.per_player}
        spec = self.spec
        self.round_bound: int | None = None
        if spec.rounds is not None:
            r = spec.rounds
            if r.count is not None:
                c = self.int_max(r.count)
                self.round_bound = None if c is None else max(0, c)
            else:  # the first round always runs; the cap is checked after each round
                c = self.int_max(r.cap)
                self.round_bound = None if c is None else max(1, c)
        for region, stmts in (("setup", opening_steps(spec.setup)),
                              ("rounds", spec.rounds.body.stmts if spec.rounds is not None else ()),
                              ("scoring", opening_steps(spec.scoring))):
            for k, st in enumerate(stmts):
                self._stages[id(st)] = (region, k)
        self._read()
        self._held = held.at_once(self)
        for more in (owned_groups.at_once(self), replaced.at_once(self)):  # shared areas; swaps with a deck
            self._held.update({z: min(m, self._held.get(z, m)) for z, m in more.items()})
        self._zone_most = {}  # what arrives and how often loops run, reading those counts held at once
        caps = self._arrivals()
        passes = self._loop_passes()
        departures = self._area_departures()
        sinks = self._find_sinks()
        if passes or departures or sinks or self._held or any(most < self._one_players(z) for z, most in caps.items()):
            # read again, every zone holding at most what can arrive there and every loop whose cap
            # is proved out of reach making at most the passes proved (bounds the first reading
            # proved, so the second stays sound)
            self._caps, self._passes, self._departures, self._sink_zones = caps, passes, departures, sinks
            self._zone_most = {}
            self.sites = []
            self._read()
        self._read_done = True

    def _loop_passes(self) -> dict[tuple, int]:
        """Each while loop whose cap is proved out of reach (verify/termination.py, from this
        reading): the most passes one run of it makes, where below its cap."""
        from .termination import CapProof, loop_scopes, prove_cap  # it imports this module

        out = {}
        for site, (node, scope) in loop_scopes(self.spec).items():
            proof = prove_cap([self], node, scope)
            if isinstance(proof, CapProof) and proof.passes < proof.cap:
                out[site] = proof.passes
        return out

    def _arrivals(self) -> dict[str, int]:
        """Zone -> the most cards that can ever arrive there, those it starts with counted (for a
        zone of each player's, one player's): every move, draw and exchange into it at most as often
        as it can fire (for one player), times the cards it moves.  A zone that a move of unknown
        destination or size may fill is left out; a move that may fill all zones leaves none."""
        t = self.t
        start: dict[tuple, int] = {}
        for slot in t.start_slot:
            z, o = t.zone_slots[slot]
            key = (z.name, None if o is None else o.i)
            start[key] = start.get(key, 0) + 1
        came: dict[str, int] = {}
        open_: set[str] = set()  # zones some move fills an unknown number of times
        moves: list = []  # (site, zones, what it can put there): for the count through their sources

        def add(zones, times, each):
            if times is not None and each is not None:
                moves.append((site, set(zones), times * each))
            for z in zones:
                if times is None or each is None:
                    open_.add(z)
                else:
                    came[z] = came.get(z, 0) + times * each

        for site in self.sites:
            node = site.node
            with self.reading_in(site.env):
                match node:
                    case ir.Move(what=what, dest=dest) | ir.Draw(count=what, dest=dest):
                        each = self.carried(node)
                        zones, own = self._filled(dest)
                        if zones is None:
                            return {}
                        add(zones, self.times_for_one_player(site) if own else site.firings, each)
                    case ir.Exchange(a=a, b=b):
                        for x, y in ((a, b), (b, a)):  # each side's cards go where the other's lay: a
                            vx, vy = self.val(x), self.val(y)  # zone those cards can ever lie in
                            if vy.zc is None:
                                return {}
                            reach = self.flow.early if self.flow.early is not None else self.flow.reach
                            zones = set().union(*(reach[c] for c in vy.zc[1])) | \
                                set().union(*(self.flow.reach[c] for c in vy.zc[1]))
                            add(zones, site.firings, 1 if vx.one else vx.size)
        out = {}
        for z in self.flow.zone_names - open_:
            first = max((n for (name, _), n in start.items() if name == z), default=0)
            out[z] = first + came.get(z, 0)
        if moves:  # again, no move putting more than ever arrives where it takes from (verify/passage.py)
            came = {}
            for site, zones, most in moves:
                cap = passage.source_cap(self, site, zones, out) if isinstance(site.node, (ir.Move, ir.Draw)) else None
                for z in zones:
                    came[z] = came.get(z, 0) + (most if cap is None else min(most, cap))
            for z in out:
                first = max((n for (name, _), n in start.items() if name == z), default=0)
                out[z] = min(out[z], first + came.get(z, 0))
        for z, y in self._held_by().items():
            if z in out and y in out:
                first = max((n for (name, _), n in start.items() if name == z), default=0)
                # only the cards of Y that come in time to take one (verify/in_time.py)
                out[z] = min(out[z], first + in_time.usable(self, z, y, out[y]))
        return out

    def _held_by(self) -> dict[str, str]:
        """Zone Z -> zone Y when every card that comes into a player's Z is laid on a card of that
        player's Y that held none (`choose g from [g in p.Y where g.f == none] { set g.f = c ... move c
        to p.Z }`) and field f is only ever set so (to a chosen card, never back to none): each card of
        Y takes one card in a whole game, so no more cards come into p.Z than ever lie in p.Y."""
        from .termination import _inline  # it imports this module

        spec, flow = self.spec, self.flow
        roots = [(x, "main") for x in (spec.setup, spec.scoring) if x is not None] + \
            ([(spec.rounds.body, "rounds")] if spec.rounds is not None else []) + \
            [(p.body, "proc:" + p.name) for p in spec.procedures]
        fills: dict[str, set] = {}  # Z -> the Y of each move into it (None: not of that form)
        setters: dict[str, bool] = {}  # field -> every setting of it is of that form

        def into(e, scope) -> set[str]:
            zs = flow.zones_of(e, scope)
            return set(flow.zone_names) if zs is None else set(zs)

        def swapped(e, scope) -> set[str]:
            """Where the card an exchange gives for `e` can go: wherever `e`'s cards can ever lie."""
            zs = flow.zones_of(e, scope)
            if zs is None:
                return set(flow.zone_names)
            return set().union(*(flow.reach[c] for z in zs for c in flow.cards_in(z)))

        def visit(node, chooses, scope):
            for n in ir.children(node):
                if isinstance(n, ir.Choose):
                    visit(n, chooses + [n], scope)
                    continue
                if isinstance(n, ir.Move):
                    y = self._slot_zone(n, chooses, _inline)
                    for zone in into(n.dest, scope):
                        fills.setdefault(zone, set()).add(y)
                elif isinstance(n, ir.Draw):
                    for zone in into(n.dest, scope):
                        fills.setdefault(zone, set()).add(None)
                elif isinstance(n, ir.Exchange):
                    for zone in swapped(n.a, scope) | swapped(n.b, scope):
                        fills.setdefault(zone, set()).add(None)
                elif isinstance(n, ir.Set) and isinstance(n.target, ir.Attr):
                    ok = any(_slot_set(n, c, chooses) for c in chooses[-1:])
                    setters[n.target.name] = setters.get(n.target.name, True) and ok
                visit(n, chooses, scope)

        for root, scope in roots:
            visit(root, [], scope)
        out = {}
        for z, ys in fills.items():
            if len(ys) == 1 and None not in ys:
                y, field = next(iter(ys))
                if setters.get(field, False):
                    out[z] = y
        return out

    def _slot_zone(self, move: ir.Move, chooses: list, inline) -> tuple | None:
        """(Y, f) when `move c to p.Z` lies in `choose g from [g in p.Y where g.f == none]`'s body,
        after `set g.f = c` there; else None."""
        if not chooses or not isinstance(move.dest, ir.Attr) or not isinstance(move.dest.obj, ir.Local):
            return None
        ch = chooses[-1]
        if ch.var is None or ch.count_kind is not None or ch.body is None or move not in ch.body.stmts:
            return None
        before = ch.body.stmts[:ch.body.stmts.index(move)]
        sets = [st for st in before if _slot_set(st, ch, chooses) and st.value == move.what]
        src = inline(self.spec, ch.source)
        if not sets or not isinstance(src, ir.ListComp) or not isinstance(src.coll, ir.Attr):
            return None
        field = sets[0].target.name
        empty = ir.BinOp("==", ir.Attr(ir.Local(src.var), field), ir.NoneLit()) if hasattr(ir, "NoneLit") else None
        if src.coll.obj != move.dest.obj or empty is None or empty not in conjuncts(src.where):
            return None
        if any(isinstance(st, ir.Stmt) and src.coll.obj.name in _binds(st) for st in before):
            return None
        return src.coll.name, field

    def _filled(self, dest) -> tuple[set[str] | None, bool]:
        """The zones a move's destination can be, and whether it is one player's zone (counted per
        player); None when not known."""
        match dest:
            case ir.SharedZone(name=name):
                return {name}, False
            case ir.Attr(name=name) if name in self.flow.zone_names:
                return {name}, True
        v = self.val(dest)
        if v.zc is not None and not v.one:
            return set(v.zc[0]), False
        return None, False

    def _read(self) -> None:
        """Read the whole game once, recording every statement's site."""
        spec = self.spec
        self.env = {}
        self._scores_ready = False
        self._stage = None
        # the setup's opening steps run while cards still lie where the spec deals them
        self.flow.opening = self.flow.early is not None
        for st in opening_steps(spec.setup):
            self.stmt(st, 1)
            if pauses(st):
                self.flow.opening = False
        self.flow.opening = False
        if spec.rounds is not None:
            self.env = {}  # the rounds run in their own environment, kept from round to round
            self.loop(spec.rounds.body, 1, self.round_bound)
        self.env = {}
        self.block(spec.scoring, 1)
        self.env = {}
        self._scores_ready = True

    # ---- firings

    def block(self, b: ir.Block | None, mult: int | None) -> None:
        if b is not None:
            depth = len(self._guards)
            done_at, outer = self._finishes(b, mult)
            full_at, most = self._fills_area(b)
            try:
                for k, s in enumerate(b.stmts):
                    m = outer if k < done_at else mult
                    if k > full_at and (m is None or most < m):
                        self._as_capped(lambda s=s: self.stmt(s, most))
                    else:
                        self.stmt(s, m)
            finally:
                del self._guards[depth:]  # facts a `let` in this block stated end with it

    def _fills_area(self, b: ir.Block) -> tuple[int, int]:
        """`move c to Z` (one card, from elsewhere) where Z is a shared zone of capacity K that no
        rule empties in this step of the round: a card more than K would stop the game, so what
        follows the move in its block runs at most K times a round (for all players together).
        (The index of the move and that cap; else past the end.)"""
        stage = self._stage
        if not self._departures or stage is None or self._capped:
            return len(b.stmts), 0
        runs = self.round_bound if stage[0] == "rounds" else 1
        if runs is None:
            return len(b.stmts), 0
        for k, st in enumerate(b.stmts):
            if not (isinstance(st, ir.Move) and isinstance(st.dest, ir.SharedZone)):
                continue
            z = st.dest.name
            left = self._departures.get(z)
            v = self.val(st.what)
            here = v.zc[0] if v.one and v.zc is not None else None  # where the card lies now
            if (z in self._capacity and left is not None and stage not in left and here is not None
                    and z not in here):
                return k, self._capacity[z] * runs
        return len(b.stmts), 0

    def _area_departures(self) -> dict:
        """Each shared zone with a capacity: the steps of the game in which a rule may take cards
        from it (None: not known).  An exchange is no such rule: it leaves every zone holding as
        many cards as before, so it makes no room."""
        out: dict = {}
        for z in self.spec.zones:
            if z.capacity is None or z.per_player:
                continue
            k = self.interval(z.capacity)
            if k is None or k[1] < 0:
                continue
            self._capacity[z.name] = k[1]
            out[z.name] = set()
        for site in self.sites:
            # an exchange swaps two cards: no zone's count changes, so it frees no place in an area
            if isinstance(site.node, (ir.Move, ir.Draw)):
                src = self._taken_from(site)
                for z in out:
                    if out[z] is not None and (src is None or z in src):
                        out[z] = None if site.stage is None else out[z] | {site.stage}
        return {z: v for z, v in out.items() if v is not None}

    def _finishes(self, b: ir.Block, mult: int | None) -> tuple[int, int | None]:
        """In a pass of `while not done ... max N` (done a local the loop sets only to true), a block
        run at most once per pass that sets `done = true` ends the loop after it: what it runs
        before that fires at most once per run of the loop, not N times.  (The index of that
        `set`, and the firings of one run of the loop; else past the end, and `mult`.)"""
        for name, once, inner, depth in self._finish:
            if inner is None or inner != mult or depth != len(self._stack):
                continue
            for k, st in enumerate(b.stmts):
                if isinstance(st, ir.Set) and st.target == ir.Local(name) and st.op == "=" and st.value == ir.Bool(True):
                    return k, once
        return len(b.stmts), mult

    def _moves_cards(self, body: ir.Block) -> bool:
        """Whether a statement in the block moves cards (a procedure call may)."""
        memo = self.__dict__.setdefault("_moving_blocks", {})
        if id(body) not in memo:
            memo[id(body)] = (body, any(isinstance(n, MOVES_CARDS) for n in ir.walk(body)))
        return memo[id(body)][1]

    def loop(self, body: ir.Block, mult: int | None, times: int | None, bind=None) -> None:
        """A body that runs up to `times` times (None: unknown) for each of
        `mult` firings of the loop; `bind()` sets the loop variable at the
        start of each iteration."""
        inner = _mul(mult, times)
        if times == 0:
            return
        if self._moves_cards(body):
            self._spoil_guards()  # a later iteration runs after this one's moves
        recording, self.recording = self.recording, False
        starts = dict(self.env)  # the join of every iteration's start seen so far
        readings = 0
        while True:
            self.env = dict(starts)
            self._breaks.append([])
            if bind:
                bind()
            self.block(body, inner)
            self._breaks.pop()
            after = join_envs(starts, self.env)
            readings += 1
            if after == starts:  # settled: no iteration starts anywhere new, nor ends there
                exit_env = starts
                break
            if times is not None and readings >= times:
                # `starts` holds the starts of all `times` iterations; `after` every way out
                exit_env = after
                break
            if readings >= WIDEN_AFTER:
                after = {k: (v if starts.get(k) == v else TOP) for k, v in after.items()}
            starts = after
        self.recording = recording
        self.env = dict(starts)
        self._breaks.append([])
        if bind:
            bind()
        self.block(body, inner)
        breaks = self._breaks.pop()
        self.env = join_envs(exit_env, *breaks)

    def branches(self, runs: list, keep_current: bool) -> None:
        """Each of `runs` (a function reading one branch) from the current
        environment, joined; `keep_current`: running none of them is possible."""
        start = dict(self.env)
        outs = [start] if keep_current else []
        # a test spoiled on one branch still holds on the others; after them, where it held on every one
        guards = list(self._guards)
        held = [g[1] for g in guards]
        ends = [held] if keep_current else []
        for run in runs:
            self.env = dict(start)
            for g, h in zip(guards, held):
                g[1] = h
            run()
            outs.append(self.env)
            ends.append([g[1] for g in guards])
        for k, g in enumerate(guards):
            g[1] = all(e[k] for e in ends) if ends else held[k]
        self.env = join_envs(*outs) if outs else start

    def _guarded(self, test, b: ir.Block, mult: int | None, node: ir.Stmt | None = None) -> None:
        tok = None
        if node is not None and id(node) not in self._latch_nodes:
            # `if not p.flag { ... }`: p passed the test in this run of the branch
            for name in {n.obj.name for n in ir.walk(test) if isinstance(n, ir.Attr) and isinstance(n.obj, ir.Local)}:
                flags = _unflagged(test, name)
                if flags and name in self.env:
                    if tok is None:
                        tok = self._new_token()
                        self._latch_runs[tok] = mult
                        self._latch_nodes.add(id(node))
                    v = self.env[name]
                    self.env[name] = attrs.evolve(v, latch=v.latch + tuple((tok, f) for f in flags))
        self._guards.append([test, True])
        branch_awards.narrow(self, test)
        try:
            self.block(b, mult)
        finally:
            self._guards.pop()
            if tok is not None:
                del self._latch_runs[tok]
                self._latch_nodes.discard(id(node))

    def _latches(self, who, mult: int | None, site: Site) -> tuple:
        """The flags that latch a statement firing for the player `who` (see _latched)."""
        if not isinstance(who, ir.Local):
            return ()
        v = self.env.get(who.name, TOP)
        return tuple(sorted({flag for tok, flag in v.latch
                             if self._latch_runs.get(tok) is not None and self._latch_runs[tok] == mult
                             and _flag_fact(who.name, flag) in site.guards}))

    def _flags_of(self, name: str) -> list[str]:
        """The fields `f` for which `name.f` is known to hold here (set true, not set since)."""
        return [g[0].name for g in self._guards if g[1] and len(g) > 2 and g[0] == _flag_fact(name, g[0].name)]

    def _cards_moved(self, s: ir.Stmt, took) -> None:
        """Where the card each local names, or the cards of a list a local holds, lie now: `move c to
        D` puts c (each of the list c) in D; any other move (a procedure's too) may have taken them
        anywhere their cards can ever lie, unless every move, draw and exchange read in the statement
        (`took`: the zones they take cards from, None: not known) takes from zones they do not lie
        in, which leave them where they were.  A list read before a move still names the cards it
        took, wherever they went; a zone a local holds is the zone, its cards always there."""
        for k, v in list(self.env.items()):
            if v.zc is None or v.zone:
                continue
            zones = None
            if k.startswith(REST) and isinstance(s, ir.Move) and s.what == ir.Local(k[len(REST):]):
                continue  # a loop's card of this pass moved: the cards not yet met are not it
            if isinstance(s, ir.Move) and s.what == ir.Local(k):
                zones, _ = self._filled(s.dest)
            elif took is not None and not (v.zc[0] & took):
                continue  # nothing the statement moved can be this card
            if zones is None:
                zones = self._reach(v.zc[1])
            self.env[k] = attrs.evolve(v, zc=(frozenset(zones), v.zc[1]))

    def _reach(self, cards) -> set[str]:
        """Every zone the cards can ever lie in."""
        out: set[str] = set()
        for c in cards:
            out |= self.flow.reach[c]
            if self.flow.early is not None:
                out |= self.flow.early[c]
        return out

    def _new_token(self) -> int:
        self._tokens += 1
        return self._tokens

    def _spoil_guards(self, key: str | None = None, fields_too: bool = True) -> None:
        """Cards moved (or, with `key`, that local changed): the tests read before may no longer hold.
        A flag fact (marked by a third element) is about a field, which moving cards does not change."""
        for g in self._guards:
            if key is None and not fields_too and len(g) > 2:
                continue
            if key is None or any(isinstance(n, ir.Local) and n.name == key for n in ir.walk(g[0])):
                g[1] = False

    def stmt(self, s: ir.Stmt, mult: int | None) -> None:
        if not self._stack and id(s) in self._stages:
            self._stage = self._stages[id(s)]
        site = None
        if self.recording:
            site = Site(s, mult, env=dict(self.env), guards=tuple(g[0] for g in self._guards if g[1]),
                        stage=self._stage)
            self.sites.append(site)
        if not self._stack:
            self._took.clear()  # no procedure being read needs what moved before
        mark = len(self._took)
        own = self._source_zones(s, self.env) if isinstance(s, (ir.Move, ir.Draw, ir.Exchange)) else set()
        self._stmt(s, mult, site)
        if site is not None:
            site.end = len(self.sites)
        if isinstance(s, MOVES_CARDS):
            took = own
            for x in self._took[mark:]:
                took = None if x is None or took is None else took | x
            del self._took[mark:]
            self._took.append(took)
            self._spoil_guards(fields_too=isinstance(s, ir.Do))
            self._cards_moved(s, took)
        for key in _binds(s):
            self._spoil_guards(key)
        if isinstance(s, ir.Do):
            self._guards.extend([fact, True, "flag"] for fact in self._post_flags)
            self._post_flags = []
        written = guard_reads.written(s)
        if written is not None:  # tests reading that field of anything (or that variable) may no longer hold
            for g in self._guards:
                if g[1] and guard_reads.reads_any(self, g[0], written):
                    g[1] = False
        if isinstance(s, ir.Set) and isinstance(s.target, ir.Attr):
            flag = s.target.name
            if isinstance(s.target.obj, ir.Local) and s.op == "=" and s.value == ir.Bool(True):
                # `set p.flag = true`: until that field is set again or a procedure runs, p.flag holds
                self._guards.append([_flag_fact(s.target.obj.name, flag), True, "flag"])
        if isinstance(s, ir.Let):
            # `let k = min(n, count(pile))`: until cards move or k changes, the pile holds at least k
            for fact in _count_facts(s):
                self._guards.append([fact, True])

    def _stmt(self, s: ir.Stmt, mult: int | None, site: Site | None) -> None:
        match s:
            case ir.Award(player=who) | ir.Give(player=who):
                if site is not None:
                    site.per_player = self._per_player(who, mult)
                    if isinstance(s, ir.Award):
                        site.latch = self._latches(who, mult, site)
                        site.card_award = card_sums.note_award(self, self._card_loops, who, mult, s)
            case ir.Set(target=ir.Attr(obj=obj)) | ir.Move(dest=ir.Attr(obj=obj)) | ir.Draw(dest=ir.Attr(obj=obj)):
                if site is not None:  # how often one player's (card's) field, or zone, can be set or filled here
                    site.per_player = self._per_player(obj, mult)
                    if not isinstance(s, ir.Set):
                        site.latch = self._latches(obj, mult, site)
            case ir.Let(name=name, value=value):
                self.env[name] = self.val(value)
            case ir.Set(target=ir.Local(name=name), op=op, value=value):
                new = self.val(value)
                if op != "=":
                    old = self.env.get(name, TOP).iv
                    iv = new.iv
                    new = Val(None if old is None or iv is None else
                              (old[0] + iv[0], old[1] + iv[1]) if op == "+=" else (old[0] - iv[1], old[1] - iv[0]),
                              one=True)
                self.env[name] = new
            case ir.For(var=var, coll=coll, body=body, where=where):
                size = self.size(coll)
                each = self.elem(coll)
                tok = None
                if size and self._distinct_players(coll):
                    each = attrs.evolve(each, loop_players=size)
                    # `for p in players where not p.flag`: the filter is read as the loop starts,
                    # and each player comes once in a run
                    flags = _unflagged(where, var)
                    if flags and id(s) not in self._latch_nodes:
                        tok = self._new_token()
                        each = attrs.evolve(each, latch=each.latch + tuple((tok, f) for f in flags))
                        self._latch_runs[tok] = _mul(mult, size)
                        self._latch_nodes.add(id(s))

                # the list's cards not yet met, read as a list local (see _cards_moved): a later pass's
                # card may have been moved by an earlier pass, so it lies where they may have gone
                rest, kept = _rest(var), self.env.get(_rest(var))
                if each.zc is not None and self._moves_cards(body):
                    self.env[rest] = Val(zc=each.zc)
                else:
                    self.env.pop(rest, None)  # nothing moves in the loop: its cards lie where they lay

                def bind():
                    h = self.env.get(rest)
                    self.env[var] = each if each.zc is None or h is None or h.zc is None else \
                        attrs.evolve(each, zc=(each.zc[0] | h.zc[0], each.zc[1]))

                card_loop = card_sums.enter(self, coll, var, mult, size, body)
                if card_loop is not None:
                    self._card_loops.append(card_loop)
                guard_keys = matched_guard.enter(self, s, mult, size)  # branches on one printed value a run
                try:
                    self.loop(body, mult, size, bind)
                finally:
                    matched_guard.leave(self, guard_keys)
                    if card_loop is not None:
                        self._card_loops.pop()
                    if tok is not None:
                        del self._latch_runs[tok]
                        self._latch_nodes.discard(id(s))
                self.env.pop(var, None)  # a loop variable is not read after its loop
                self.env.pop(rest, None)
                if kept is not None:  # an outer loop's over the same name
                    self.env[rest] = kept
            case ir.Repeat(count=count, body=body):
                n = self.int_max(count)
                self.loop(body, mult, None if n is None else max(0, n))
            case ir.While(test=test, limit=limit, body=body):
                n = self.int_max(limit)
                if s.span.site in self._passes:
                    n = self._passes[s.span.site] if n is None else min(n, self._passes[s.span.site])
                if self.truth(test) is not False:
                    held = [test, True]  # the loop's test holds at the start of every pass

                    def anew():
                        held[1] = True

                    self._guards.append(held)
                    times = None if n is None else max(0, n)
                    finishes = [(name, mult, _mul(mult, times), len(self._stack)) for name in _latched_locals(test, body)]
                    self._finish.extend(finishes)
                    try:
                        self.loop(body, mult, times, anew)
                    finally:  # by identity: two loops' tests may be equal (`while true` in `while true`)
                        self._guards[:] = [g for g in self._guards if g is not held]
                        del self._finish[len(self._finish) - len(finishes):]
            case ir.If(branches=bs, orelse=orelse):
                runs, settled = [], False
                for test, b in bs:
                    known = self.truth(test)
                    if known is False:  # a branch that cannot be taken here
                        continue
                    runs.append(lambda b=b, test=test: self._guarded(
                        test, b, matched_guard.cap(self, s, test, self._one_round(test, mult)), s))
                    if known is True:  # nothing after it is reached
                        settled = True
                        break
                if orelse is not None and not settled:
                    runs.append(lambda: self.block(orelse, mult))
                self.branches(runs, keep_current=orelse is None and not settled)
            case ir.Choose(options=options, body=body, orelse=orelse, var=var, count_kind=kind, source=src):
                runs = [option_awards.track(self, site, lambda b=o.body: self.block(b, mult))
                        for o in options if self.truth(o.when) is not False]
                if var is not None:
                    if kind is None:
                        chosen = self.elem(src)
                    else:
                        hi, size = self.int_max(s.count_hi), self.size(src)
                        most = size if hi is None else hi if size is None else min(hi, size)
                        chosen = Val(size=most, elem=self.elem(src).iv, distinct=self._distinct_players(src))

                    once = self._consumed(var, src, body, mult) if kind is None else mult
                    # cards spent for good, each class of cards printed alike read on its own (verify/per_card.py)
                    classes = spent_by_class(self, var, src, body, mult, once) if kind is None else None
                    for chosen, once in classes or [(chosen, once)]:
                        def run_body(chosen=chosen, once=once):
                            self.env[var] = chosen
                            self._capped_block(body, mult, once)

                        runs.append(run_body)
                if orelse is not None:
                    runs.append(lambda: self.block(orelse, mult))
                self.branches(runs, keep_current=True)
            case ir.Pick(var=var, source=src, body=body):
                once = self._consumed(var, src, body, mult)
                picks = []
                for chosen, once in spent_by_class(self, var, src, body, mult, once) or [(self.elem(src), once)]:
                    def run_pick(chosen=chosen, once=once):
                        self.env[var] = chosen
                        self._capped_block(body, mult, once)

                    picks.append(run_pick)
                self.branches(picks, keep_current=True)
            case ir.Phase(body=body):
                self.block(body, mult)
            case ir.Break():
                if self._breaks:
                    self._breaks[-1].append(dict(self.env))
            case ir.Do(proc=proc, args=args):
                p = self._procs[proc]
                given = {name: self.val(a) for name, a in zip(p.params, args)}
                # A procedure called again from inside itself is read again while
                # its arguments say something new (a flag that closes the branch
                # that recursed): a call with the same arguments as one already
                # being read, or one nested too deep, can recurse without end.
                if (proc, given) in self._stack or sum(1 for x in self._stack if x[0] == proc) >= MAX_INLINE:
                    self._took.append(None)  # what it moves is not read
                    if self.recording:
                        self._poison(proc)
                    return
                caller = self.env
                self.env = given
                self._stack.append((proc, given))
                breaks, self._breaks = self._breaks, []  # a break in a procedure cannot end its caller's loop
                # the caller's tests read the caller's locals; only its flag facts (`p.flag` after
                # `set p.flag = true`) carry over, to the parameters its locals are passed as
                flags_in = [[_flag_fact(name, f), True, "flag"] for name, a in zip(p.params, args) if isinstance(a, ir.Local)
                            for f in self._flags_of(a.name)]
                guards, self._guards = self._guards, flags_in
                try:
                    for st in p.body.stmts:
                        self.stmt(st, mult)
                    # and back: a flag the procedure leaves set on a parameter is set on the caller's local
                    self._post_flags = [_flag_fact(a.name, f) for name, a in zip(p.params, args)
                                        if isinstance(a, ir.Local) and name not in _rebound(p.body)
                                        for f in self._flags_of(name)]
                finally:
                    self._breaks = breaks
                    self._guards = guards
                    self._stack.pop()
                    self.env = caller

    def _per_player(self, who: ir.Expr, mult: int | None) -> int | None:
        """How often one player can receive an award or give fired `mult` times
        at `who`: a loop's player over k distinct players is each player once
        per run of the loop; a list naming a player twice gives to them twice."""
        if mult is None:
            return None
        v = self.val(who)
        if v.loop_players:
            return mult // v.loop_players
        if v.one or v.distinct:
            return mult
        if v.size is not None:
            return mult * v.size
        return None

    def _poison(self, proc: str) -> None:
        """Every statement of a recursive procedure, and of all it calls, fires an unknown number of times."""
        todo, seen = [proc], set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for n in ir.walk(self._procs[name].body):
                if isinstance(n, ir.Stmt):
                    self.sites.append(Site(n, None))
                if isinstance(n, ir.Do):
                    todo.append(n.proc)

    # ---- scores

    def score_bounds(self) -> dict:
        """Each score item's range for one player, and the total's ("total"), as
        (lowest, highest) solver Bounds: every award firing as often as it can
        for one player, within the item's declared range.  They hold at every
        moment of a game, not only at its end (any firings from none up count)."""
        if self._scores is None:
            from . import solver

            # an award's amount that reads a score is not bounded by the scores being worked out
            ready, self._scores_ready = self._scores_ready, False
            out = {}
            for item in self.spec.scores:
                terms = []
                for site in self.sites:
                    if isinstance(site.node, ir.Award) and site.node.item == item.name:
                        iv = self.award_amount(site) or (None, None)
                        times = self.times_for_one_player(site)
                        terms.append((f"line {site.node.span.line}",
                                      *(pairs.term(self, site, iv, times) or card_sums.term(self, site, iv, times)
                                        or (*iv, times))))
                cap = (item.domain.lo, item.domain.hi) if isinstance(item.domain, ir.IntDomain) else None
                self._award_terms[item.name] = terms
                out[item.name] = self._item_bounds(item.name, terms, cap)
                skip, extra, used = placed.item_terms(self, item.name, terms)  # pieces placed (verify/placed.py)
                if extra:
                    lo, hi = self._item_bounds(item.name, terms, cap, skip, extra)
                    was_lo, was_hi = out[item.name]
                    out[item.name] = (lo if _tighter(lo, was_lo, -1) else was_lo, hi if _tighter(hi, was_hi, 1) else was_hi)
                    if _tighter(hi, was_hi, 1):
                        self._placed_used[item.name] = used
                self._item_reading[item.name] = (cap, skip, extra)
            if all(lo.status == hi.status == "proved" for lo, hi in out.values()):
                terms = [(n, lo.value, hi.value, 1) for n, (lo, hi) in out.items()]
                out["total"] = (solver.min_total(terms), solver.max_total(terms))
                self._total_apart = out["total"][1]
                # the items read over one sharing of the placements (verify/budget.py)
                joint = budget.total_max(self, {n: hi.value for n, (lo, hi) in out.items() if n != "total"})
                top = out["total"][1]
                if joint is not None and top.status == "proved" and joint < top.value:
                    out["total"] = (out["total"][0], solver.Bound("proved", joint))
            else:
                out["total"] = (solver.Bound("unknown", None, "an item has no proved bound"),) * 2
                self._total_apart = out["total"][1]
            self._scores, self._scores_ready = out, ready
        return self._scores

    def total_apart(self):
        """The total's maximum as the sum of the items' maxima read apart (the search's climbs aim at it:
        the total read over one sharing of the placements is reported, not aimed at)."""
        self.score_bounds()
        return self._total_apart

    def _item_bounds(self, item: str, terms: list, cap, skip: frozenset = frozenset(), extra: tuple = ()) -> tuple:
        """(lowest, highest) of an item from its award sites' solver terms: the options of one choice
        and the branches of one chain sharing their runs; the terms at positions `skip` replaced by
        `extra`."""
        from . import solver

        terms = self._merged_terms(item, terms, skip, extra)
        return (solver.min_total(terms, cap) if terms else solver.Bound("proved", 0),
                solver.max_total(terms, cap) if terms else solver.Bound("proved", 0))

    def item_max(self, item: str, terms: list, cap, skip: frozenset = frozenset(), extra: tuple = ()):
        """The highest of _item_bounds alone (verify/budget.py reads an item again at each sharing)."""
        from . import solver

        terms = self._merged_terms(item, terms, skip, extra)
        return solver.max_total(terms, cap) if terms else solver.Bound("proved", 0)

    def _merged_terms(self, item: str, terms: list, skip: frozenset, extra: tuple) -> list:
        terms, merged = option_awards.option_terms(self, item, terms, skip)
        terms = [None if k in skip else x for k, x in enumerate(terms)]
        terms = [x for x in branch_awards.exclusive_terms(self, item, terms, frozenset(merged) | skip) if x is not None]
        return terms + list(extra)

    def loosest_awards(self, item: str, most: int = 2) -> list[str]:
        """What makes an item's proved maximum large, in the designer's terms: the awards
        whose largest amount times how often they can fire for one player is largest."""
        self.score_bounds()  # which placements the bound used
        ready, self._scores_ready = self._scores_ready, False
        try:
            groups = self._placed_used.get(item, [])
            inside = set().union(*(g.sites for g in groups))
            parts = [(g.most, self.sites[g.moves[0]].node.span.line, placed.described(self, g)) for g in groups]
            for k, site in enumerate(self.sites):
                node = site.node
                if not (isinstance(node, ir.Award) and node.item == item) or k in inside:
                    continue
                iv = self.award_amount(site)
                times = self.times_for_one_player(site)
                if iv is None or times is None or iv[1] <= 0:
                    continue
                line = node.span.line
                # once per card of a loop: what the solver was given (verify/pairs.py, card_sums.py)
                paired = pairs.term(self, site, iv, times)
                per = paired or card_sums.term(self, site, iv, times)
                how = "pairs of matching cards" if paired else \
                    f"once per card of a loop over up to {site.card_award.loop.size} cards" if per else ""
                parts.append((per[1] * per[2], line, f"line {line} awards up to {per[1] * per[2]} in all for one "
                              f"player ({how})") if per is not None else
                             (iv[1] * times, line, f"line {line} awards up to {iv[1]} a time and may fire {times} "
                              f"time{'s' if times != 1 else ''} for one player"
                              + (" (what it counts read together over one player's pieces placed: a piece at one "
                                 "place is not at another)" if iv != self.value_at(site, node.amount) else "")))
        finally:
            self._scores_ready = ready
        parts.sort(key=lambda x: (-x[0], x[1]))
        return [text for _, _, text in parts[:most]]

    def award_amount(self, site: Site) -> Interval:
        """The interval of an award's amount, its quantities counted from placements of the same pieces
        read together where that is lower (verify/budget.py)."""
        iv = self.value_at(site, site.node.amount)
        if iv is not None and self._read_done:
            most = budget.amount_max(self, site)
            if most is not None and most < iv[1]:
                iv = (iv[0], max(iv[0], most))
        return iv

    def times_for_one_player(self, site: Site) -> int | None:
        """How often an award (or a move or draw into a player's zone) can fire for one player:
        as its loops allow, and no more than a flag that latches it allows (see _latched)."""
        out = site.per_player
        for flag in site.latch:
            most = self._latched(site, flag)
            if most is not None:
                out = most if out is None else min(out, most)
        return out

    def _latched(self, site: Site, flag: str) -> int | None:
        """How often an award latched by `flag` can fire for one player.  It runs only in a run
        of a guard (a filter or an `if`) that found `not p.flag`, at most once per run, and after
        `set p.flag = true` with nothing setting that field in between.  So between two firings
        p.flag went from true back to false: a setting of it to anything but true, for that
        player.  Hence at most 1 + those settings; and when none of them lies in the same step
        of the rounds (or of the setup or scoring) as the award, at most once per run of that
        step: once per round."""
        resets = [x for x in self.sites if isinstance(x.node, ir.Set) and isinstance(x.node.target, ir.Attr)
                  and x.node.target.name == flag and not (x.node.op == "=" and x.node.value == ir.Bool(True))]
        most = None
        if all(x.per_player is not None for x in resets):
            most = 1 + sum(x.per_player for x in resets)
        if site.stage is not None and all(x.stage is not None and x.stage != site.stage for x in resets):
            runs = self.round_bound if site.stage[0] == "rounds" else 1
            if runs is not None:
                most = runs if most is None else min(most, runs)
        return most

    def _score_interval(self, key: str) -> Interval:
        lo, hi = self.score_bounds().get(key, (None, None))
        return (lo.value, hi.value) if lo is not None and lo.status == hi.status == "proved" else None

    # ---- what expressions are known to be

    @contextmanager
    def reading_in(self, env: dict):
        """Read expressions in `env` (a site's locals, or none) for the block, then go back to the
        environment the caller was reading in."""
        saved, self.env = self.env, env
        try:
            yield
        finally:
            self.env = saved

    def carried(self, node: ir.Move | ir.Draw) -> int | None:
        """The most cards one firing of a move or draw carries, read where `self.env` stands."""
        if isinstance(node, ir.Draw):
            iv = self.interval(node.count)
            return None if iv is None else max(0, iv[1])
        v = self.val(node.what)
        return 1 if v.one else v.size

    def val(self, e) -> Val:
        if isinstance(e, ir.Local):
            return self.env.get(e.name, TOP)
        zc = self._zone_cards(e)
        zc = None if zc is None else (zc[0], tuple(zc[1]))
        match e:
            case ir.Call(func="first" | "last", args=(coll,)) | ir.Index(obj=coll):
                zc = self.elem(coll).zc  # one of the list's cards
        zone = isinstance(e, (ir.SharedZone, ir.Attr)) and zc is not None and zc[0] == {e.name}
        return Val(self.interval(e), self.size(e), self.elem(e).iv, self._distinct_players(e), self._one(e), zc=zc,
                   name=self._name_value(e), zone=zone)

    def elem(self, coll) -> Val:
        """What one element of the collection `coll` is known to be."""
        match coll:
            case ir.RangeExpr(lo=lo, hi=hi):
                a, b = self.int_min(lo), self.int_max(hi)
                return Val(None if a is None or b is None else (a, b), one=True)
            case ir.ListLit(items=items):
                vals = [self.val(i) for i in items]
                if not vals:
                    return TOP
                out = vals[0]
                for v in vals[1:]:
                    out = join(out, v)
                return attrs.evolve(out, loop_players=None)
            case ir.ListComp(var=var, coll=inner, value=value) if value is not None:
                return Val(self._with(var, self.elem(inner), lambda: self.interval(value)))
            case ir.ListComp(coll=inner) | ir.Ranking(coll=inner) | ir.Call(func="take" | "reverse", args=(inner, *_)):
                return self.elem(inner)
            case ir.Local(name=name):
                v = self.env.get(name, TOP)
                return Val(v.elem, one=True, zc=v.zc)
            case ir.Cond(test=test, then=a, orelse=b):
                known = self.truth(test)
                if known is not None:
                    return self.elem(a if known else b)
                return join(self.elem(a), self.elem(b))
            case ir.Call(func=func, args=args) if func in self.t.rules.defs_ir:
                return self._in_def(func, args, self.elem, TOP)
        zc = self._zone_cards(coll)
        # a player, a card, a symbol: one item, no number known (a card of those that can lie there)
        return Val(one=True, zc=None if zc is None else (zc[0], tuple(zc[1])))

    def _one(self, e) -> bool:
        """Whether `e` is surely a single value, never a list (an award to it gives once)."""
        match e:
            case ir.Call(func="player" | "next" | "first" | "last" | "owner"):
                return True
            case ir.Attr(name="owner"):
                return True
            case ir.Int() | ir.Bool() | ir.Symbol() | ir.Index():
                return True
            case ir.Local(name=name):
                return self.env.get(name, TOP).one
            case ir.Cond(then=a, orelse=b):
                return self._one(a) and self._one(b)
        return False

    def _with(self, var: str, v: Val, fn):
        """`fn()` with an expression's binder variable bound to `v`."""
        saved = self.env.get(var, _ABSENT)
        self.env[var] = v
        try:
            return fn()
        finally:
            if saved is _ABSENT:
                self.env.pop(var, None)
            else:
                self.env[var] = saved

    def _in_def(self, func: str, args, fn, default):
        """`fn(body)` of a def, its parameters bound to what its arguments are known to be."""
        if any(x[0] == func for x in self._stack):  # a def that calls itself: nothing known
            return default
        d = self.t.rules.defs_ir[func]
        caller = self.env
        self.env = {name: self.val(a) for name, a in zip(d.params, args)}
        self._stack.append((func, None))
        try:
            return fn(d.body)
        finally:
            self._stack.pop()
            self.env = caller

    def _distinct_players(self, e) -> bool:
        """Whether `e` is a collection of players in which no player appears twice."""
        match e:
            case ir.AllPlayers() | ir.PlayersFrom():
                return True
            case ir.Ranking(coll=coll) | ir.ListComp(coll=coll, value=None) | ir.Call(func="reverse", args=(coll,)):
                return self._distinct_players(coll)
            case ir.Call(func="take", args=(coll, _)):
                return self._distinct_players(coll)
            case ir.Cond(then=a, orelse=b):  # `if ruling then (order q in players ...) else play_order`
                return self._distinct_players(a) and self._distinct_players(b)
            case ir.Local(name=name):
                return self.env.get(name, TOP).distinct
            case ir.Call(func=func, args=args) if func in self.t.rules.defs_ir:
                return self._in_def(func, args, self._distinct_players, False)
        return False

    def truth(self, e) -> bool | None:
        """Whether a condition is surely true, surely false, or not known (None)."""
        match e:
            case None:
                return None
            case ir.Bool(value=v):
                return v
            case ir.Not(operand=o):
                t = self.truth(o)
                return None if t is None else not t
            case ir.BinOp(op="and", left=a, right=b):
                x, y = self.truth(a), self.truth(b)
                return False if x is False or y is False else True if x is True and y is True else None
            case ir.BinOp(op="or", left=a, right=b):
                x, y = self.truth(a), self.truth(b)
                return True if x is True or y is True else False if x is False and y is False else None
            case ir.BinOp(op="==" | "!=", left=a, right=b):
                same = self._same(a, b)
                return None if same is None else same if e.op == "==" else not same
            case ir.BinOp(op="<" | "<=" | ">" | ">=", left=a, right=b):
                x, y = self.interval(a), self.interval(b)
                if x is None or y is None:
                    return None
                if e.op in (">", ">="):
                    x, y = y, x  # a > b is b < a
                strict = e.op in ("<", ">")
                if (x[1] < y[0]) if strict else (x[1] <= y[0]):
                    return True
                if (x[0] >= y[1]) if strict else (x[0] > y[1]):
                    return False
                return None
            case ir.Param(name=name):
                v = self.t.params.get(name)
                return v if isinstance(v, bool) else None
            case ir.Local(name=name):
                iv = self.env.get(name, TOP).iv
                return None if iv is None else False if iv == (0, 0) else True if iv[0] > 0 or iv[1] < 0 else None
        return None

    def _same(self, a, b) -> bool | None:
        """Whether two values are surely equal or surely not (None: not known).
        Only named values are ever called equal; numbers only ever unequal, when
        their ranges do not meet (a bool is never equal to a number)."""
        x, y = self._name_value(a), self._name_value(b)
        if x is not None and y is not None:
            return x == y
        p, q = self.interval(a), self.interval(b)
        if p is not None and q is not None and (p[1] < q[0] or q[1] < p[0]):
            return False
        return None

    def _name_value(self, e) -> str | None:
        match e:
            case ir.Symbol(name=name):
                return name
            case ir.Param(name=name):
                v = self.t.params.get(name)
                return v if isinstance(v, str) else None
            case ir.Local(name=name):
                return self.env.get(name, TOP).name
            case ir.Attr(obj=ir.Local(name=card), name=field):
                return printed_name(self.t, self.env.get(card, TOP), field)
        return None

    def floor(self, e: ir.Expr) -> int | None:
        """A number `e` is never below, where its whole range is not known: the
        largest floor among a `max`'s arguments, the smallest of a `min`'s, 0 for a count."""
        iv = self.interval(e)
        if iv is not None:
            return iv[0]
        match e:
            case ir.Call(func="max", args=args) if len(args) > 1:
                known = [f for f in map(self.floor, args) if f is not None]
                return max(known) if known else None
            case ir.Call(func="min", args=args) if len(args) > 1:
                floors = [self.floor(a) for a in args]
                return None if any(f is None for f in floors) else min(floors)
            case ir.Agg(func="count") | ir.Call(func="count") | ir.Call(func="size"):
                return 0
        return None

    def value_at(self, site: Site, e) -> Interval:
        """The interval of `e` as read at `site`, its locals as they were there."""
        saved, self.env, at, self._at = self.env, site.env, self._at, site.stage
        try:
            return self.interval(e)
        finally:
            self.env, self._at = saved, at

    # ---- sizes of collections

    def size(self, e: ir.Expr | None) -> int | None:
        match e:
            case None:
                return 0
            case ir.AllPlayers() | ir.PlayersFrom():
                return self.n
            case ir.SharedZone(name=name) if name in self.flow.zone_names:
                most = len(self.flow.cards_in(name))  # the cards that can ever lie there
                return min(most, self._caps[name]) if name in self._caps else most
            case ir.Attr(name=name) if name in self.flow.zone_names:
                return self._one_players(name)
            case ir.SharedZone() | ir.Attr():
                return self.cards
            case ir.ListLit(items=items):
                return len(items)
            case ir.ListComp(var=var, coll=coll, where=where):
                cards = self.flow.cards_of(ir.ListComp(var, coll, where, None))
                if cards is None:  # through defs, a ruling's branch, and lists of other zones joined
                    known = self._zone_cards(coll)
                    if known is not None:
                        cards = [c for c in known[1] if all(self.flow._may_pass(c, var, w) for w in conjuncts(where))]
                whole = self.size(coll)
                if cards is not None:
                    alike = self.flow.most_alike(cards, var, where)
                    whole = alike if whole is None else min(alike, whole)
                cut = trimmed.most(self, e, self._at)  # cut to another group's size (verify/trimmed.py)
                return whole if cut is None else cut if whole is None else min(whole, cut)
            case ir.Ranking(coll=coll) | ir.Call(func="reverse", args=(coll,)):
                return self.size(coll)
            case ir.RangeExpr(lo=lo, hi=hi):
                a, b = self.int_min(lo), self.int_max(hi)
                return None if a is None or b is None else max(0, b - a + 1)
            case ir.Local(name=name):
                return self.env.get(name, TOP).size
            case ir.Call(func="take", args=(coll, k)):
                a, b = self.int_max(k), self.size(coll)
                return b if a is None else max(0, a) if b is None else max(0, min(a, b))
            case ir.Call(func=func, args=args) if func in self.t.rules.defs_ir:
                return self._in_def(func, args, self.size, None)
            case ir.Cond(test=test, then=a, orelse=b):
                known = self.truth(test)
                if known is not None:  # a ruling's branch
                    return self.size(a if known else b)
                x, y = self.size(a), self.size(b)
                return None if x is None or y is None else max(x, y)
            case ir.BinOp(op="+", left=a, right=b):
                x, y = self.size(a), self.size(b)
                return None if x is None or y is None else x + y
        return None

    def _one_players(self, zone: str) -> int:
        """The most cards one player's `zone` (or a shared zone read through a card's
        field) can ever hold: the cards that can lie there, and of the sets dealt per
        player only one player's own when the rules keep each set with its owner."""
        key = (zone, self.flow.opening)
        if key not in self._zone_most:
            from .termination import _most_per_player  # it imports this module

            most = len(self.flow.cards_in(zone))
            if zone in self._per_player_zones:
                own = _most_per_player(self, zone)
                most = most if own is None else min(most, own)
            if zone in self._caps:
                most = min(most, self._caps[zone])
            most = min(most, self._held.get(zone, most))
            self._zone_most[key] = most
        return self._zone_most[key]

    def _zone_cards(self, e) -> tuple[frozenset, list[int]] | None:
        """The zones the items of the list `e` lie in and the cards that can be among them, or None:
        a zone, a filter of one, a def's body, a ruling's branch, and two such lists joined with `+`
        when they read different zones (a card lies in one zone at a time, so none comes twice)."""
        match e:
            case ir.SharedZone(name=name) | ir.Attr(name=name) if name in self.flow.zone_names:
                return frozenset({name}), self.flow.cards_in(name)
            case ir.ListComp(var=var, coll=coll, where=where, value=None):
                inner = self._zone_cards(coll)
                if inner is None:
                    return None
                return inner[0], [c for c in inner[1] if all(self.flow._may_pass(c, var, w) for w in conjuncts(where))]
            case ir.Cond(test=test, then=a, orelse=b):
                known = self.truth(test)
                if known is not None:
                    return self._zone_cards(a if known else b)
                x, y = self._zone_cards(a), self._zone_cards(b)
                if x is None or y is None:
                    return None
                return x[0] | y[0], sorted(set(x[1]) | set(y[1]))
            case ir.BinOp(op="+", left=a, right=b):
                x, y = self._zone_cards(a), self._zone_cards(b)
                if x is None or y is None or x[0] & y[0]:
                    return None
                return x[0] | y[0], sorted(set(x[1]) | set(y[1]))
            case ir.Call(func=func, args=args) if func in self.t.rules.defs_ir:
                return self._in_def(func, args, self._zone_cards, None)
            case ir.Local(name=name):  # a list passed or bound whole
                v = self.env.get(name, TOP)
                return None if v.zc is None or v.one else (v.zc[0], list(v.zc[1]))
        return None

    def _capped_block(self, body: ir.Block, mult: int | None, cap: int | None) -> None:
        """A block that runs `cap` times in a whole game rather than `mult` (the firings its loops
        give).  Those `cap` runs may all be one player's: a loop's player is not read as each
        player in turn while it runs (what it binds anew inside is)."""
        if cap == mult:
            self.block(body, mult)
        else:
            self._as_capped(lambda: self.block(body, cap))

    def _as_capped(self, read) -> None:
        """`read()` with the firings a cap for the whole game (see _capped_block)."""
        spread = {k: v for k, v in self.env.items() if v.loop_players}
        for k, v in spread.items():
            self.env[k] = attrs.evolve(v, loop_players=None)
        stripped = {k: self.env[k] for k in spread}
        self._capped += 1  # the firings inside no longer follow the rounds (see _one_round)
        try:
            read()
        finally:
            self._capped -= 1
        for k, v in spread.items():
            if self.env.get(k) is stripped[k]:
                self.env[k] = v

    def _one_round(self, test, mult: int | None) -> int | None:
        """A branch under `round == K` runs in one round only, under `round < K` in K - 1 of them
        (`<=`: K): in the rounds, where every firing count is the rounds times what one round
        gives, it fires that many rounds' share (an end step run `if round < 4` in four rounds)."""
        r = self.round_bound
        if (mult is None or not r or self._capped or self._stage is None or self._stage[0] != "rounds"
                or mult % r):
            return mult
        for c in conjuncts(test):
            match c:
                case ir.BinOp(op="==", left=ir.Builtin(name="round"), right=ir.Int()) | \
                        ir.BinOp(op="==", left=ir.Int(), right=ir.Builtin(name="round")):
                    return mult // r
                case ir.BinOp(op="<" | "<=", left=ir.Builtin(name="round"), right=right):
                    k = self.interval(right)
                    if k is None or k[0] != k[1]:
                        continue
                    rounds = max(0, min(r, k[0] - 1 if c.op == "<" else k[0]))
                    return mult // r * rounds
        return mult

    def _consumed(self, var: str, src, body: ir.Block, mult: int | None) -> int | None:
        """How often the body of a choice (or pick) of one card from `src` can run: when it always
        moves the chosen card into a zone no rule takes cards from (a discard no rule reshuffles),
        which `src` does not read, each card is chosen so at most once in a game: at most as
        often as there are cards that can lie in `src`."""
        zc = self._zone_cards(src)
        if zc is None or body is None:
            return mult
        sinks = self._sinks()
        moved = [k for k, st in enumerate(body.stmts) if isinstance(st, ir.Move) and st.what == ir.Local(var)
                 and isinstance(st.dest, ir.SharedZone) and st.dest.name in sinks and st.dest.name not in zc[0]]
        rebound = var in _rebound(body)
        # a `break` before the move would leave the card where it was
        if not moved or rebound or any(isinstance(n, ir.Break) for st in body.stmts[:moved[0]] for n in ir.walk(st)):
            return mult
        most = len(zc[1])
        return most if mult is None else min(mult, most)

    def _taken_from(self, site: Site) -> set[str] | None:
        """The zones a move, draw or exchange can take cards from (None: any), read where it was read."""
        return self._source_zones(site.node, site.env)

    def _source_zones(self, node, env: dict) -> set[str] | None:
        """The zones a move, draw or exchange can take cards from (None: any), its locals read in
        `env`.  A zone or a filter of one is read as it is; a card a local names lies where the
        reading says it does now (see _cards_moved); anything else anywhere its cards can ever lie."""
        src = self.flow.taken_from.get(node.span.site)
        parts = [node.source] if isinstance(node, ir.Draw) else [node.what] if isinstance(node, ir.Move) else [node.a, node.b]
        out: set[str] = set()
        for what in parts:
            v = env.get(what.name) if isinstance(what, ir.Local) else None
            one = None  # the first, last or k-th card of a list: it lies where the list's cards lie
            if isinstance(what, ir.Call) and what.func in ("first", "last") and len(what.args) == 1 \
                    or isinstance(what, ir.Index):
                coll = what.obj if isinstance(what, ir.Index) else what.args[0]
                # a list a local holds is not followed as cards move: only lists read afresh
                inner = {getattr(n, "var", None) for n in ir.walk(coll)}  # bound inside it (a filter's card)
                if all(env.get(n.name, TOP).one for n in ir.walk(coll) if isinstance(n, ir.Local) and n.name not in inner):
                    with self.reading_in(env):
                        one = self._zone_cards(coll)
            if v is not None and v.one and v.zc is not None:
                out |= v.zc[0]
            elif one is not None:
                out |= one[0]
            elif _of_zones(what) and src is not None:
                out |= src
            elif src is None:
                return None
            else:
                key = (frozenset(src), self.flow.opening)
                if key not in self._reach_from:
                    self._reach_from[key] = self._reach([c for z in src for c in self.flow.cards_in(z)])
                out |= self._reach_from[key]
        return out

    def _sinks(self) -> set[str]:
        """The zones no rule takes cards from (every move, draw and exchange the last reading met);
        none known before the rules are read once."""
        if self._sink_zones is None:
            return set()
        return self._sink_zones

    def _find_sinks(self) -> set[str]:
        taken: set[str] = set()
        for site in self.sites:
            if isinstance(site.node, (ir.Move, ir.Draw, ir.Exchange)):
                src = self._taken_from(site)
                if src is None:  # a move from anywhere: no zone is a sink
                    return set()
                taken |= src
        return set(self.flow.zone_names) - taken
        return self._sink_zones

    def _roots(self) -> list:
        spec = self.spec
        return [x for x in (spec.setup, spec.rounds, spec.scoring) if x is not None] + [p.body for p in spec.procedures]

    def _per_card(self, coll, var: str, value) -> list | None:
        """`value`'s range for each card that can be in the list of distinct cards `coll`, `var` that card."""
        zc = self._zone_cards(coll)
        if zc is None:
            return None
        out = []
        for c in zc[1]:
            iv = self._with(var, Val(one=True, zc=(zc[0], (c,))), lambda: self.interval(value))
            if iv is None:
                return None
            out.append(iv)
        return out

    def _card_field(self, obj, name: str) -> Interval:
        """The range of a card's field when the card is known to be one of some cards: their fixed
        values, or the declared range of the state for their kinds.  None: not known so."""
        if not isinstance(obj, ir.Local):
            return None
        v = self.env.get(obj.name)
        if v is None or v.zc is None or not v.one or not v.zc[1]:
            return None
        t, out = self.t, None
        for c in v.zc[1]:
            x = t.fields[c].get(name)
            if name in t.kind_states[t.kind[c]]:
                iv = _domain_interval(t.state_domain[(t.kind[c], name)])
                cap = state_caps.card_max(self, c, name) if self._read_done and iv is not None else None
                for flag in self._given_false.get(obj.name, ()) if self._read_done and iv is not None else ():
                    gated = gated_caps.card_max_when_false(self, c, name, flag)  # read with the flag false
                    cap = gated if cap is None or gated is not None and gated < cap else cap
                if cap is not None and cap < iv[1]:  # what the rules that set it let it reach on this card
                    iv = (iv[0], max(iv[0], cap))
            elif isinstance(x, int):  # a bool too
                iv = (int(x), int(x))
            else:
                return None
            if iv is None:
                return None
            out = iv if out is None else _hull(out, iv)
        return out

    # ---- bounds of numbers

    def int_max(self, e) -> int | None:
        iv = self.interval(e)
        return None if iv is None else iv[1]

    def int_min(self, e) -> int | None:
        iv = self.interval(e)
        return None if iv is None else iv[0]

    def interval(self, e) -> Interval:
        t = self.t
        match e:
            case None:
                return None
            case ir.Int(value=v):
                return (v, v)
            case ir.Bool(value=v):
                return (int(v), int(v))
            case ir.Builtin(name="player_count"):
                return (self.n, self.n)
            case ir.Builtin(name="round"):
                return (0, self.round_bound) if self.round_bound is not None else None
            case ir.Param(name=name):
                v = t.params.get(name)
                return (v, v) if isinstance(v, int) and not isinstance(v, bool) else None
            case ir.GlobalVar(name=name):
                return _domain_interval(t.global_vars[name].domain)
            case ir.Attr(obj=obj, name=name) if self._card_field(obj, name) is not None:
                return self._card_field(obj, name)
            case ir.Attr(name=name) if self._read_done and counters.counter_interval(self, name) is not None:
                return counters.counter_interval(self, name)
            case ir.Attr(name=name):
                # every declaration that a `.name` can read: a field of the same
                # name as a built-in (a card's `seat`) counts with the built-in
                domains = [t.player_vars[name].domain] if name in t.player_vars else []
                domains += [t.tokens[name].hold] if name in t.tokens else []
                domains += [d for (_, f), d in t.state_domain.items() if f == name]
                domains += [f.domain for c in self.spec.components for f in c.fields if f.name == name and not f.is_state]
                ivs = [_domain_interval(d) for d in domains]
                if name == "seat":
                    ivs.append((1, self.n))
                if not ivs or any(iv is None for iv in ivs):
                    return None
                return (min(iv[0] for iv in ivs), max(iv[1] for iv in ivs))
            case ir.Neg(operand=o):
                iv = self.interval(o)
                return None if iv is None else (-iv[1], -iv[0])
            case ir.BinOp(op=op, left=a, right=b) if op in ("+", "-", "*", "//", "%"):
                x, y = self.interval(a), self.interval(b)
                if x is None or y is None:
                    return None
                if op == "+":
                    return (x[0] + y[0], x[1] + y[1])
                if op == "-":
                    return (x[0] - y[1], x[1] - y[0])
                if op == "*":
                    prods = [p * q for p in x for q in y]
                    return (min(prods), max(prods))
                if op == "%":
                    # with a positive divisor the remainder lies in 0..divisor-1, and is at most a non-negative dividend
                    if y[0] >= 1:
                        return (0, y[1] - 1 if x[0] < 0 else min(x[1], y[1] - 1))
                    return None
                if y[1] >= 1 and y[0] >= 0:
                    # dividing by zero stops the game with an error, so every value it gives had a divisor >= 1
                    y = (max(y[0], 1), y[1])
                    quots = [p // q for p in x for q in y]
                    return (min(quots), max(quots))
                return None
            case ir.Cond(test=test, then=a, orelse=b):
                known = self.truth(test)
                if known is not None:
                    return self.interval(a if known else b)
                return _hull(self.interval(a), self.interval(b))
            case ir.Agg(func="count") | ir.Call(func="count") | ir.Call(func="size"):
                coll = ir.ListComp(e.var, e.coll, e.where, None) if isinstance(e, ir.Agg) else e.args[0]
                s = self.size(coll)
                return None if s is None else (0, s)
            case ir.Agg(func="distinct", var=var, coll=coll, where=where, value=value):
                s = self.size(ir.ListComp(var, coll, where, None))
                cards = self.flow.cards_of(ir.ListComp(var, coll, where, None))
                match value:
                    case ir.Attr(obj=ir.Local(name=v), name=f) if v == var and cards is not None:
                        d = self.flow.distinct_values(cards, f)
                        if d is not None:
                            s = d if s is None else min(s, d)
                return None if s is None else (0, s)
            case ir.Agg(func="sum", var=var, coll=coll, where=where, value=value) if value is not None:
                s = self.size(ir.ListComp(var, coll, where, None))
                iv = self._with(var, self.elem(coll), lambda: self.interval(value))
                out = None if s is None or iv is None else (min(0, s * iv[0]), max(0, s * iv[1]))
                each = self._per_card(ir.ListComp(var, coll, where, None), var, value)
                if s is not None and each is not None:
                    # distinct cards, each at most its own largest value: the s largest of them
                    his = sorted((max(0, x[1]) for x in each), reverse=True)[:s]
                    los = sorted(min(0, x[0]) for x in each)[:s]
                    out = (sum(los), sum(his)) if out is None else (max(out[0], sum(los)), min(out[1], sum(his)))
                pairs_most = matched_sums.most(self, e)  # matching pairs of two lists (verify/matched_sums.py)
                if pairs_most is not None:
                    out = (0, pairs_most) if out is None else (min(out[0], pairs_most), min(out[1], pairs_most))
                rare = rare_states.most(self, e, s)  # yes/no states few cards hold at once (verify/rare_states.py)
                if rare is not None and out is not None:
                    out = (min(out[0], rare), min(out[1], rare))
                return out
            case ir.Agg(func="max" | "min" | "first" | "last", var=var, coll=coll, value=value):
                if value is None:
                    return self.elem(coll).iv
                return self._with(var, self.elem(coll), lambda: self.interval(value))
            case ir.Call(func="min" | "max", args=(coll,)):
                return self.elem(coll).iv or self.interval(coll)  # a list's elements, or a lone number
            case ir.Call(func="min" | "max", args=args) if len(args) > 1:
                ivs = [self.interval(a) for a in args]
                if e.func == "min":
                    known = [iv for iv in ivs if iv is not None]
                    if not known:
                        return None
                    # one bounded argument caps the minimum from above; from below every argument
                    # needs a floor (`min(count(x), max(vp(p), 0))`: the vp is unbounded, its max with 0 is not)
                    floors = [iv[0] if iv is not None else self.floor(a) for a, iv in zip(args, ivs)]
                    if any(f is None for f in floors):
                        return None
                    return (min(floors), min(iv[1] for iv in known))
                if any(iv is None for iv in ivs):
                    return None
                return (max(iv[0] for iv in ivs), max(iv[1] for iv in ivs))
            case ir.Call(func="abs", args=(a,)):
                iv = self.interval(a)
                if iv is None:
                    return None
                lo = 0 if iv[0] <= 0 <= iv[1] else min(abs(iv[0]), abs(iv[1]))
                return (lo, max(abs(iv[0]), abs(iv[1])))
            case ir.Call(func="first" | "last", args=(coll,)):
                return self.elem(coll).iv
            case ir.Index(obj=coll):
                return self.elem(coll).iv
            case ir.Local(name=name):
                return self.env.get(name, TOP).iv
            case ir.Call(func=func, args=args) if func in self.t.rules.defs_ir:
                return self._in_def(func, args, self.interval, None)
            case ir.Call(func="vp", args=(_,)) if self._scores_ready:
                return self._score_interval("total")
            case ir.Call(func="vp", args=(_, ir.Symbol(name=item))) if self._scores_ready:
                return self._score_interval(item)
        return None


_ABSENT = object()
# Statements that can take cards out of a zone (a procedure may).
MOVES_CARDS = (ir.Move, ir.Draw, ir.Exchange, ir.Do)


def _binds(s: ir.Stmt) -> list[str]:
    """The locals a statement (re)binds."""
    match s:
        case ir.Let(name=name) | ir.Set(target=ir.Local(name=name)) | ir.For(var=name) | ir.Pick(var=name):
            return [name]
        case ir.Choose(var=name) if name is not None:
            return [name]
    return []


REST = "\0rest "  # a loop's cards not yet met, kept as a list local no rule can name


def _rest(var: str) -> str:
    return REST + var


def _tighter(new, old, side: int) -> bool:
    """Whether the proved bound `new` is tighter than `old` (side 1: a maximum, -1: a minimum)."""
    if new.status != "proved":
        return False
    return old.status != "proved" or new.value * side < old.value * side


def _hull(a: Interval, b: Interval) -> Interval:
    return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))


def _domain_interval(d) -> Interval:
    if isinstance(d, ir.IntDomain):
        return (d.lo, d.hi)
    if isinstance(d, ir.BoolDomain):
        return (0, 1)
    return None


def _mul(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a * b


class Joined:
    """The bounds of every outcome of the setup's opening random picks read as
    one, for an expression read anywhere in the game: the widest answer."""

    def __init__(self, bounds: list[Bounds]):
        self.bs = bounds
        self.round_bound = bounds[0].round_bound

    def interval(self, e) -> Interval:
        out = self.bs[0].interval(e)
        for b in self.bs[1:]:
            out = _hull(out, b.interval(e))
        return out

    def size(self, e) -> int | None:
        sizes = [b.size(e) for b in self.bs]
        return None if any(x is None for x in sizes) else max(sizes)


def _unflagged(test, var: str) -> list[str]:
    """The fields `f` for which `test` (read as a conjunction) says `not var.f`."""
    out = []
    for c in conjuncts(test):
        match c:
            case ir.Not(operand=ir.Attr(obj=ir.Local(name=v), name=f)) if v == var:
                out.append(f)
            case ir.BinOp(op="==", left=ir.Attr(obj=ir.Local(name=v), name=f), right=ir.Bool(value=False)) if v == var:
                out.append(f)
    return out


def _latched_locals(test, body: ir.Block) -> list[str]:
    """The locals `d` of a `while not d and ...` that its body (not counting procedures, which
    have locals of their own) only ever sets to true."""
    out = []
    for c in conjuncts(test):
        if isinstance(c, ir.Not) and isinstance(c.operand, ir.Local):
            d = c.operand.name
            if all(not (isinstance(n, ir.Let) and n.name == d) and
                   not (isinstance(n, ir.Set) and n.target == ir.Local(d) and not (n.op == "=" and n.value == ir.Bool(True)))
                   and not (isinstance(n, (ir.For, ir.Pick, ir.Choose)) and getattr(n, "var", None) == d)
                   for n in ir.walk(body)):
                out.append(d)
    return out


def _slot_set(st, ch, chooses) -> bool:
    """Whether `st` is `set g.f = c` in the body of the choice `ch` of the card `g`, `c` the card of
    a choice around it (one item, never none)."""
    return (isinstance(st, ir.Set) and st.op == "=" and isinstance(st.target, ir.Attr)
            and ch.var is not None and ch.count_kind is None
            and st.target.obj == ir.Local(ch.var) and isinstance(st.value, ir.Local) and st.value.name != ch.var
            and any(c.var == st.value.name and c.count_kind is None and _of_zones(c.source) for c in chooses)
            and ch.body is not None and st in ch.body.stmts)


def _of_zones(e) -> bool:
    """Whether `e` is a zone or a filter of one: a list of cards, none of them `none`."""
    while isinstance(e, ir.ListComp) and e.value is None:
        e = e.coll
    return isinstance(e, (ir.SharedZone, ir.Attr))


def _rebound(body: ir.Block) -> frozenset[str]:
    """The locals a body binds anew (a parameter among them no longer names what was passed)."""
    return node_memo(_REBOUND, body, lambda: frozenset(k for n in ir.walk(body) if isinstance(n, ir.Stmt)
                                                        for k in _binds(n)))


_REBOUND: dict = {}
_MEMO_MOST = 4096  # entries a memo keeps before it starts again


def node_memo(memo: dict, node, work):
    """`work()`, a function of the rules node `node` alone, remembered by the node's identity (the
    node is kept with it, so its id is never another's): the bounds read the same bodies thousands
    of times."""
    hit = memo.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    if len(memo) >= _MEMO_MOST:
        memo.clear()
    out = work()
    memo[id(node)] = (node, out)
    return out


def _flag_fact(var: str, flag: str) -> ir.Expr:
    """The fact `var.flag` (true), as a guard reads it."""
    return ir.Attr(ir.Local(var), flag)


def _count_facts(s: ir.Let) -> list[ir.Expr]:
    """What `let k = min(..., count(Z), ...)` says right after it: count(Z) >= k."""
    match s.value:
        case ir.Call(func="min", args=args) if len(args) > 1:
            return [ir.BinOp(">=", a, ir.Local(s.name, span=s.span), span=s.span) for a in args
                    if isinstance(a, ir.Call) and a.func in ("count", "size") and len(a.args) == 1
                    or isinstance(a, ir.Agg) and a.func == "count" and a.where is None]
    return []
