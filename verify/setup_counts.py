"""How many cards a pile holds when the setup is done, read exactly along each path of the setup.

A setup often deals from a pile, lets players exchange cards through a
discard, and then shuffles the discard back: the pile ends the setup with a
known number of cards whatever the players chose, although counting every
draw as taken for good would say the pile could be empty.  So the setup is
run here on card *counts*: each zone's count is a linear form over the
sizes the players choose (`choose out between 1 and 3 ...` is a size k in
1..3; `move out to discard` then `draw count(out)` moves k one way and k the
other), loops over the players are unrolled, each way through an optional
choice or an undecided `if` is a path of its own.  The least a pile holds at
the end is the least its form takes over every path (the sizes vary
independently, each over a range at least as wide as the rules allow, so the
least is never overstated); a draw on the way fits when the pile's form,
less the most the draw takes, is never below 0 on its path.

Anything this reading cannot count exactly (a move of a filtered list, a
loop over cards, a procedure that calls itself) makes the zones it touches
unknown; a pile whose count becomes unknown gets no answer.
"""

from __future__ import annotations

from soan.dsl import ir

from .bounds import Bounds

MAX_PATHS = 512


class _Unknown(Exception):
    pass


class _Form:
    """const + sum of coeff * size; each size a range (lo, hi) kept in the shared table."""

    __slots__ = ("const", "terms")

    def __init__(self, const: int = 0, terms: dict | None = None):
        self.const = const
        self.terms = dict(terms or {})

    def __add__(self, other: _Form) -> _Form:
        terms = dict(self.terms)
        for k, v in other.terms.items():
            terms[k] = terms.get(k, 0) + v
        return _Form(self.const + other.const, {k: v for k, v in terms.items() if v})

    def __neg__(self) -> _Form:
        return _Form(-self.const, {k: -v for k, v in self.terms.items()})

    def __sub__(self, other: _Form) -> _Form:
        return self + (-other)

    def least(self, sizes: dict) -> int:
        return self.const + sum(c * (sizes[k][0] if c > 0 else sizes[k][1]) for k, c in self.terms.items())

    def most(self, sizes: dict) -> int:
        return self.const + sum(c * (sizes[k][1] if c > 0 else sizes[k][0]) for k, c in self.terms.items())


class SetupCounts:
    """Reads the setup once; `least_after(pile)` and `draws_fit(pile)` answer from it."""

    def __init__(self, b: Bounds, placement: list[int] | None = None, steps=None):
        """`placement` and `steps`: read only `steps` of the setup, from the cards lying as `placement` says."""
        self.b = b
        self.t = b.t
        self.spec = b.spec
        self.n = b.t.n
        self.procs = {p.name: p for p in self.spec.procedures}
        self.sizes: dict[int, tuple[int, int]] = {}
        self.unknown: set[str] = set()  # zones whose count was lost (an uncountable move)
        self.short: set[str] = set()  # piles a setup draw may find short on some path
        self.paths: list[dict] | None = None
        self._calling: list[str] = []
        start: dict = {}
        for slot in b.t.start_slot if placement is None else placement:  # where the spec deals each card
            z, owner = b.t.zone_slots[slot]
            key = (z.name, None if owner is None else owner.i)
            start[key] = start.get(key, _Form()) + _Form(1)
        try:
            if steps is None:
                steps = self.spec.setup.stmts if self.spec.setup else ()
            self.paths = self._block(steps, [(start, {})])
        except _Unknown:
            self.paths = None

    # ---- what the supplies property asks

    def least_after(self, pile: str) -> int | None:
        """The fewest cards the shared zone `pile` holds when the setup is done, or None."""
        if self.paths is None or pile in self.unknown:
            return None
        return min(counts.get((pile, None), _Form()).least(self.sizes) for counts, _ in self.paths)

    def draws_fit(self, pile: str) -> bool:
        """Every draw the setup makes from `pile` takes at most what it holds then."""
        return self.paths is not None and pile not in self.unknown and pile not in self.short

    # ---- reading

    def _block(self, stmts, paths: list) -> list:
        for s in stmts:
            out = []
            for counts, env in paths:
                out.extend(self._stmt(s, counts, env))
            # ways that reach the same counts are one way from here on (exchanges undone by a reshuffle)
            paths = list({_key(c, e): (c, e) for c, e in out}.values())
            if len(paths) > MAX_PATHS:
                raise _Unknown
        return paths

    def _stmt(self, s, counts: dict, env: dict) -> list:
        match s:
            case ir.Phase(body=body):
                return self._block(body.stmts, [(counts, env)])
            case ir.Shuffle() | ir.Roll() | ir.Flip() | ir.Look() | ir.Say() | ir.Award() | ir.Give() | ir.Return() \
                    | ir.Check():
                return [(counts, env)]
            case ir.Set(target=ir.Local()) | ir.Let():
                name = s.target.name if isinstance(s, ir.Set) else s.name
                env = dict(env)
                env.pop(name, None)  # what it holds is not followed: a later use of it is uncountable
                return [(counts, env)]
            case ir.Set():
                return [(counts, env)]
            case ir.For(var=var, coll=coll, body=body, where=None) if self._players(coll):
                paths = [(counts, env)]
                for i in range(self.n):
                    paths = [(c, {**e, var: ("player", i)}) for c, e in paths]
                    paths = self._block(body.stmts, paths)
                return [(c, {k: v for k, v in e.items() if k != var}) for c, e in paths]
            case ir.Do(proc=proc, args=args):
                if proc in self._calling:  # a procedure that calls itself: not unrolled here
                    raise _Unknown
                p = self.procs[proc]
                inner = {name: self._arg(a, env) for name, a in zip(p.params, args)}
                self._calling.append(proc)
                try:
                    done = self._block(p.body.stmts, [(counts, inner)])
                finally:
                    self._calling.pop()
                # what the procedure moved, the caller's lists and cards from those zones may no longer hold
                return [(c, self._after_moves(env, c, counts)) for c, _ in done]
            case ir.If(branches=branches, orelse=orelse):
                out, rest = [], [(counts, env)]
                for test, block in branches:
                    known = self.b.truth(test) if not _reads_locals(test) else None
                    if known is False:
                        continue
                    for c, e in rest:
                        out.extend(self._block(block.stmts, [(c, e)]))
                    if known is True:
                        return out
                out.extend(self._block(orelse.stmts, rest) if orelse is not None else rest)
                return out
            case ir.Choose(var=None, options=options, orelse=orelse):
                out = [(counts, env)]  # passed, or no option open: nothing runs
                for o in options:
                    if o.when is None or self.b.truth(o.when) is not False:
                        out.extend(self._block(o.body.stmts, [(counts, env)]))
                if orelse is not None:
                    out.extend(self._block(orelse.stmts, [(counts, env)]))
                return out
            case ir.Choose(var=var, source=src, body=body, orelse=orelse):
                zone = self._zone(src, env)
                if s.count_kind is None:
                    chosen = ("card", zone)
                else:
                    lo = self._const(s.count_lo) if s.count_kind == "between" else \
                        self._const(s.count_hi) if s.count_kind == "exactly" else 0
                    hi = self._const(s.count_hi)
                    if hi is None:  # as many as there are cards: only ever makes the least smaller
                        hi = self.t.n_cards
                    if lo is None:
                        lo = 0
                    k = len(self.sizes)
                    self.sizes[k] = (max(0, lo), max(0, hi))
                    chosen = ("list", zone, _Form(0, {k: 1}))
                out = [(counts, env)]  # a choice may find nothing to choose (or be passed)
                if body is not None:
                    out.extend(self._block(body.stmts, [(counts, {**env, var: chosen})]))
                if orelse is not None:
                    out.extend(self._block(orelse.stmts, [(counts, env)]))
                return out
            case ir.Draw(count=count, source=src, dest=dest):
                frm, to = self._zone(src, env), self._zone(dest, env)
                k = self._amount(count, env, counts)
                if frm is None or to is None or k is None:
                    return [(self._lose(counts, s, dest, env), env)]
                counts = dict(counts)
                have = counts.get(frm, _Form())
                if (have - k).least(self.sizes) < 0:
                    # the engine draws what is left: the destination's count is not followed from here on
                    self.short.add(frm[0])
                    self.unknown.add(to[0])
                counts[frm] = have - k
                counts[to] = counts.get(to, _Form()) + k
                return [(counts, self._left(env, frm))]
            case ir.Move(what=what, dest=dest):
                to = self._zone(dest, env)
                frm, k = self._moved(what, env, counts)
                if frm is None or to is None or k is None:
                    return [(self._lose(counts, s, dest, env), env)]
                counts = dict(counts)
                counts[frm] = counts.get(frm, _Form()) - k
                counts[to] = counts.get(to, _Form()) + k
                return [(counts, self._left(env, frm))]
            case ir.Exchange():
                return [(self._lose(counts, s, s.b, env), env)]
            case ir.Pick(var=var, source=src, body=body):
                # a random pick: each value the same way (the pick's card or player is not followed)
                return self._block(body.stmts, [(counts, {**env, var: ("other",)})])
        # anything else may move cards in ways not counted here
        if any(isinstance(n, ir.Move | ir.Draw) for n in ir.walk(s)):
            raise _Unknown
        return [(counts, env)]

    def _left(self, env: dict, zone) -> dict:
        """After cards left `zone`: a list or card chosen from it may no longer lie there, so it can
        no longer be moved as a count of that zone (its size still counts: `count(out)`)."""
        return {k: (v[0], None) + tuple(v[2:]) if v[0] in ("list", "card") and v[1] == zone else v
                for k, v in env.items()}

    def _after_moves(self, env: dict, after: dict, before: dict) -> dict:
        for z in set(after) | set(before):
            if _form_key(after.get(z, _Form())) != _form_key(before.get(z, _Form())):
                env = self._left(env, z)
        return env

    def _lose(self, counts: dict, s, dest, env) -> dict:
        """An uncountable move: every zone its cards can come from (where cards can go says) and its
        destination are lost; when either cannot be told, everything is.  A list or card held in a
        local may lie elsewhere than where it was chosen (moved once already): then everything is."""
        moved = s.what if isinstance(s, ir.Move) else s.source if isinstance(s, ir.Draw) else s
        if _holds_cards_in_a_local(moved, env):
            raise _Unknown
        frm = self.b.flow.taken_from.get(s.span.site)
        to = self._zone(dest, env)
        to = {to[0]} if to is not None else self.b.flow.zones_of(dest, "main")
        if frm is None or to is None:
            raise _Unknown
        self.unknown |= set(frm) | set(to)
        return counts

    def _players(self, coll) -> bool:
        return isinstance(coll, ir.AllPlayers)

    def _arg(self, a, env):
        if isinstance(a, ir.Local):
            return env.get(a.name, ("other",))
        return ("other",)

    def _zone(self, e, env):
        """The zone instance (name, owner index or None) `e` names, or None."""
        match e:
            case ir.SharedZone(name=name):
                return (name, None)
            case ir.Attr(obj=ir.Local(name=who), name=name):
                bound = env.get(who)
                if bound and bound[0] == "player" and any(z.name == name and z.per_player for z in self.spec.zones):
                    return (name, bound[1])
        return None

    def _const(self, e) -> int | None:
        if e is None:
            return None
        iv = self.b.interval(e) if not _reads_locals(e) else None
        return iv[0] if iv is not None and iv[0] == iv[1] else None

    def _amount(self, e, env, counts) -> _Form | None:
        """A number of cards as a form: a constant, or the count of a chosen list or of a zone."""
        c = self._const(e)
        if c is not None:
            return _Form(c)
        match e:
            case ir.Call(func="count", args=(x,)) | ir.Agg(func="count", coll=x, where=None, value=None):
                bound = env.get(x.name) if isinstance(x, ir.Local) else None
                if bound and bound[0] == "list":
                    return bound[2]  # a chosen list keeps its size wherever its cards went
                _, k = self._moved(x, env, counts)
                return k
        return None

    def _moved(self, what, env, counts):
        """(zone instance the cards come from, how many) for a moved list, card or whole zone."""
        if isinstance(what, ir.Local):
            bound = env.get(what.name)
            if bound and bound[0] == "list" and bound[1] is not None:
                return bound[1], bound[2]
            if bound and bound[0] == "card" and bound[1] is not None:
                return bound[1], _Form(1)
            return None, None
        z = self._zone(what, env)
        if z is not None and z[0] not in self.unknown:
            return z, counts.get(z, _Form())
        return None, None


def _form_key(f: _Form) -> tuple:
    return (f.const, tuple(sorted(f.terms.items())))


def _key(counts: dict, env: dict) -> tuple:
    zones = tuple(sorted((str(z), _form_key(f)) for z, f in counts.items() if f.const or f.terms))
    bound = tuple(sorted((k, v[:2] + tuple(_form_key(x) for x in v[2:])) for k, v in env.items()))
    return zones, bound


def _holds_cards_in_a_local(e, env: dict) -> bool:
    """Does `e` read a local other than a player (or a variable its own filter binds)?"""
    bound = {n.var for n in ir.walk(e) if isinstance(n, ir.Agg | ir.ListComp | ir.Ranking)}
    return any(isinstance(n, ir.Local) and n.name not in bound and (env.get(n.name) or ("?",))[0] != "player"
               for n in ir.walk(e))


def _reads_locals(e) -> bool:
    return any(isinstance(n, ir.Local) for n in ir.walk(e))
