"""Tokens on cards of one kind of role: the one-token-per-card ledger, counted only on the cards
a give can reach.

verify/card_tokens.py proves that a player's tokens are at most their cards in a zone Z whose
field f is above its lowest, and bounds those by every card that can lie in Z.  Often only
some of the cards in Z can ever get a token: the give is reached only by a card chosen from a
list filtered on a field g that the rules fix before the card comes into Z (a dish laid as a
main dish or a side dish, and only main dishes roasted).  Then

    tokens out  <=  cards in the players' Z with g == X  <=  cards that come into Z with g == X

when

1. every way to a give of the token binds its card from a player's Z through tests one of
   which says g == X (verify/waiting.py reads the tests, defs unfolded here);
2. no rule of the setup or the rounds sets g on a card that may lie in Z: each `set c.g` binds
   c from zones other than Z with no move or call between the binding and the set;
3. no card leaves Z before the scoring (checked by card_tokens).

The cards that come into Z with g == X are counted in two parts: the setup's, read exactly on
card counts along each path of the setup (verify/setup_counts.py, here with a count of the
cards with g == X beside each zone's count: a loop `for c in p.Y { set c.g = if L has c then X
else W }` leaves |L| of them in Y, L a list chosen from Y whose size is at most what its
`between` allows, `count(p.Y) - 1` read on Y's count); and the rounds', every move into Z at most
as often as it fires, capped by what ever arrives in the zones it takes from (verify/passage.py).
At a give its card has g == X and no token yet, so a supply at least that total never runs short.
Anything not read exactly gives no answer.
"""

from __future__ import annotations

import attrs

from soan.dsl import ir
from soan.dsl.analysis import conjuncts

from . import passage
from .bounds import Bounds
from .card_tokens import CardTokens
from .setup_counts import SetupCounts, _Form
from .waiting import _Index, _zone_of, card_paths

_MOVES = (ir.Move, ir.Draw, ir.Exchange)


@attrs.frozen
class Marked:
    """At most `most` cards of the players' `zone` with `field` == `value` at once."""

    zone: str
    field: str
    value: str
    setup: int  # the most such cards the setup leaves in all players' zones
    rounds: int  # the most cards the rounds can move into the zone
    most: int

    def reason(self, h: CardTokens) -> str:
        return (f"a player's '{h.token}' is never more than their cards in {h.zone} whose {h.field} is above "
                f"{h.lowest} (one token per card), a give reaches only a card whose {self.field} is {self.value}, "
                f"which no rule changes in {self.zone}; the setup leaves at most {self.setup} such cards there and "
                f"the rounds move at most {self.rounds} cards in: at most {self.most} at once")


def marked(b: Bounds, h: CardTokens) -> Marked | None:
    """The bound above for the tokens of `h` (a one-token-per-card ledger), or None."""
    from .supplies import _sites_under  # (supplies imports this module)

    spec = b.spec
    index = _Index(spec)
    marks = None
    for node, above, scope in index.where:
        if not (isinstance(node, ir.Give) and node.token == h.token):
            continue
        card = _card_of(node, above, h.field)
        if card is None or _zone_of(index, card, above, scope) != h.zone:
            return None
        paths = card_paths(index, card, above, scope)
        if not paths:
            return None
        for path in paths:
            got = set()
            for var, test in path:
                got |= _implied(spec, test, var)
            marks = got if marks is None else marks & got
    if not marks:
        return None
    rounds_sites = _sites_under(spec, [spec.rounds] if spec.rounds is not None else [])
    setup_sites = _sites_under(spec, [spec.setup] if spec.setup is not None else [])
    best = None
    for field, value in sorted(marks):
        if not _kept_out_of(index, field, h.zone, rounds_sites | setup_sites):
            continue
        setup = _setup_marked(b, h.zone, field, value)
        rounds = _rounds_into(b, h.zone, rounds_sites)
        if setup is None or rounds is None:
            continue
        m = Marked(h.zone, field, value, setup, rounds, setup + rounds)
        if best is None or m.most < best.most:
            best = m
    return best


def _card_of(give: ir.Give, above: tuple, field: str) -> str | None:
    """The card local of the `if c.f == ...` the give lies in."""
    for k in range(len(above) - 2, -1, -1):
        node = above[k]
        if isinstance(node, ir.If) and node.branches[0][1] is above[k + 1]:
            for c in conjuncts(node.branches[0][0]):
                for n in ir.walk(c):
                    if isinstance(n, ir.Attr) and n.name == field and isinstance(n.obj, ir.Local):
                        return n.obj.name
    return None


def _implied(spec: ir.Spec, test, var: str, depth: int = 0) -> set[tuple[str, str]]:
    """(g, X) for each `var.g == X` (X an enum value) the test implies, defs unfolded."""
    out = set()
    for c in conjuncts(test):
        match c:
            case ir.BinOp(op="==", left=ir.Attr(obj=ir.Local(name=v), name=g), right=ir.Symbol(name=x)) if v == var:
                out.add((g, x))
            case ir.Call(func=f, args=args) if depth < 6:
                d = next((d for d in spec.defs if d.name == f), None)
                if d is None or len(d.params) != len(args):
                    continue
                for param, a in zip(d.params, args):
                    if isinstance(a, ir.Local) and a.name == var:
                        out |= _implied(spec, d.body, param, depth + 1)
    return out


def _kept_out_of(index: _Index, field: str, zone: str, play: set) -> bool:
    """Every `set c.field` of the setup and the rounds binds c from zones other than `zone`, with no
    move, draw, exchange or call between the binding and the set."""
    for node, above, scope in index.where:
        if not (isinstance(node, ir.Set) and isinstance(node.target, ir.Attr) and node.target.name == field):
            continue
        if node.span.site not in play:
            continue
        if not isinstance(node.target.obj, ir.Local):
            return False
        card = node.target.obj.name
        chain = above + (node,)
        k = next((k for k in range(len(above) - 1, -1, -1)
                  if isinstance(above[k], ir.For | ir.Choose) and above[k].var == card), None)
        if k is None:
            return False
        bind = above[k]
        src = bind.coll if isinstance(bind, ir.For) else bind.source
        if isinstance(bind, ir.Choose) and bind.count_kind is not None:
            return False
        zones = _zones_in(src)
        if zones is None or zone in zones:
            return False
        for j in range(k + 1, len(chain) - 1):
            blk = chain[j]
            if not isinstance(blk, ir.Block):
                continue
            i = next(i for i, s in enumerate(blk.stmts) if s is chain[j + 1])
            if any(isinstance(n, _MOVES + (ir.Do,)) for s in blk.stmts[:i] for n in ir.walk(s)):
                return False
    return True


def _zones_in(e) -> set[str] | None:
    """The zones a collection of cards is made of (zones, their filters, lists joined), or None."""
    match e:
        case ir.SharedZone(name=name):
            return {name}
        case ir.Attr(obj=ir.Local(), name=name):
            return {name}
        case ir.ListComp(coll=coll, value=None):
            return _zones_in(coll)
        case ir.BinOp(op="+", left=l, right=r):
            a, z = _zones_in(l), _zones_in(r)
            return None if a is None or z is None else a | z
    return None


def _rounds_into(b: Bounds, zone: str, rounds_sites: set) -> int | None:
    """The most cards the rules of the rounds move into `zone` (all players' together)."""
    total = 0
    for site in b.sites:
        node = site.node
        if not isinstance(node, _MOVES) or node.span.site not in rounds_sites:
            continue
        if isinstance(node, ir.Exchange):
            swapped = b.flow.taken_from.get(node.span.site)
            if swapped is None or zone in swapped:
                return None
            continue  # its cards change places among zones other than this one
        with b.reading_in(site.env):
            dest, _own = b._filled(node.dest)
            if dest is None:
                return None
            if zone not in dest:
                continue
            each = b.carried(node)
        most = None if site.firings is None or each is None else site.firings * each
        cap = passage.source_cap(b, site, {zone}, b._caps)
        if most is None and cap is None:
            return None
        total += min(x for x in (most, cap) if x is not None)
    return total


def _setup_marked(b: Bounds, zone: str, field: str, value: str) -> int | None:
    """The most cards with field == value the setup leaves in all players' `zone`, or None."""
    reader = _MarkedCounts(b, field, value)
    if reader.paths is None or zone in reader.unknown or reader.lost:
        return None
    most = 0
    for counts, _env in reader.paths:
        total = 0
        for (name, owner), form in counts.items():
            if name == zone and owner is not None:
                mark = counts.get((("mark", name), owner))
                total += min(form.most(reader.sizes), mark.most(reader.sizes) if mark is not None else 0)
        most = max(most, total)
    return most


class _MarkedCounts(SetupCounts):
    """The setup on card counts, with beside each zone instance (z, owner) the most of its cards
    whose `field` == `value`, kept under the key (("mark", z), owner)."""

    def __init__(self, b: Bounds, field: str, value: str):
        self.field, self.value = field, value
        self.lost = False  # a set of the field this reading cannot follow
        self._start_marks = {}
        for c, slot in enumerate(b.t.start_slot):
            z, owner = b.t.zone_slots[slot]
            if b.t.state_default.get(field, [None] * b.t.n_cards)[c] == value:
                key = (("mark", z.name), None if owner is None else owner.i)
                self._start_marks[key] = self._start_marks.get(key, 0) + 1
        super().__init__(b)

    def _block(self, stmts, paths: list) -> list:
        if self._start_marks:  # the cards that start with the value, on the first statement read
            marks, self._start_marks = self._start_marks, {}
            paths = [({**c, **{k: _Form(v) for k, v in marks.items()}}, e) for c, e in paths]
        return super()._block(stmts, paths)

    def _stmt(self, s, counts: dict, env: dict) -> list:
        match s:
            case ir.For(var=var, coll=coll, where=None, body=ir.Block(stmts=(ir.Set() as st,))) \
                    if not self._players(coll) and isinstance(st.target, ir.Attr) and st.target.name == self.field:
                zone = self._zone(coll, env)
                if zone is None or st.op != "=" or st.target.obj != ir.Local(var):
                    self.lost = True
                    return [(counts, env)]
                counts = dict(counts)
                counts[(("mark", zone[0]), zone[1])] = self._marked_by(st.value, var, env, counts.get(zone, _Form()))
                return [(counts, env)]
            case ir.Set(target=ir.Attr(name=f)) if f == self.field:
                if not (isinstance(s.value, ir.Symbol) and s.value.name != self.value):
                    self.lost = True  # (a value other than X only lowers the counts kept)
                return [(counts, env)]
            case ir.Choose(count_kind="between" | "exactly") if s.var is not None:
                before = len(self.sizes)
                hi = self._count_bound(s.count_hi, env, counts, "most")
                out = super()._stmt(s, counts, env)
                if hi is not None and before in self.sizes:
                    lo, old = self.sizes[before]
                    self.sizes[before] = (lo, max(lo, min(old, hi)))
                if self._always_chosen(s, env, counts) and s.body is not None and s.orelse is None:
                    out = out[1:]  # (the base reading's first way: nothing chosen)
                return out
            case ir.Move(what=what, dest=dest):
                to = self._zone(dest, env)
                frm, k = self._moved(what, env, counts)
                out = super()._stmt(s, counts, env)
                whole = frm is not None and self._zone(what, env) == frm
                return [(self._marks_moved(c, frm, to, k, whole), e) for c, e in out]
            case ir.Draw(count=count, dest=dest):
                to = self._zone(dest, env)
                k = self._amount(count, env, counts)
                out = super()._stmt(s, counts, env)
                return [(self._marks_moved(c, None, to, k, False), e) for c, e in out]
        # the statements the base reading goes into are read here again; any other that sets the
        # field (a loop over cards, say) is not followed
        followed = isinstance(s, ir.Phase | ir.If | ir.Choose | ir.Do | ir.Pick) or \
            (isinstance(s, ir.For) and s.where is None and self._players(s.coll))
        if not followed and any(isinstance(n, ir.Set) and isinstance(n.target, ir.Attr)
                                and n.target.name == self.field for n in ir.walk(s)):
            self.lost = True
        return super()._stmt(s, counts, env)

    def _marked_by(self, value, var: str, env: dict, count: _Form) -> _Form:
        """The most cards of the loop's zone with field == X after `set c.field = value` on each."""
        if isinstance(value, ir.Symbol):
            return count if value.name == self.value else _Form()
        match value:
            case ir.Cond(test=ir.BinOp(op="has", left=ir.Local(name=lst), right=ir.Local(name=v)),
                         then=ir.Symbol(name=x), orelse=ir.Symbol(name=y)) if v == var:
                bound = env.get(lst)
                if x != self.value and y != self.value:
                    return _Form()
                if y != self.value and bound and bound[0] == "list":
                    return bound[2]  # only the cards of the list: at most its size
        return count

    def _marks_moved(self, counts: dict, frm, to, k, whole: bool) -> dict:
        if to is None:
            return counts  # a lost destination: the base reading marks it unknown
        counts = dict(counts)
        key_to = (("mark", to[0]), to[1])
        if whole:
            key_from = (("mark", frm[0]), frm[1])
            counts[key_to] = counts.get(key_to, _Form()) + counts.get(key_from, _Form())
            counts[key_from] = _Form()
        elif k is not None:
            counts[key_to] = counts.get(key_to, _Form()) + k
        else:
            self.unknown.add(to[0])
        return counts

    def _always_chosen(self, s: ir.Choose, env, counts) -> bool:
        """A choice of between lo and hi cards of a zone, with no pass, finds something to choose (the
        engine offers a selection whenever the zone holds lo and hi is at least lo) on every path."""
        zone = self._zone(s.source, env)
        lo = self._const(s.count_lo) if s.count_kind == "between" else self._const(s.count_hi)
        if s.pass_if is not None or s.where is not None or zone is None or lo is None:
            return False
        have = counts.get(zone, _Form()).least(self.sizes)
        hi = self._count_bound(s.count_hi, env, counts, "least")
        return hi is not None and min(have, hi) >= lo

    def _count_bound(self, e, env, counts, side: str) -> int | None:
        """The `side` ("least" or "most") a choice's upper count can be: a constant, or a zone's
        count less a constant."""
        c = self._const(e)
        if c is not None:
            return c
        match e:
            case ir.BinOp(op="-", left=l, right=ir.Int(value=d)):
                k = self._amount(l, env, counts)
                return None if k is None else getattr(k, side)(self.sizes) - d
        return None
