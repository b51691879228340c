"""Tokens that lie on cards: a supply bounded by the cards that can hold its tokens.

Many drafts keep a token on a card while it counts there: a marker on a
building while it works, a level token for each level a card went up.  The
rules then give the token to a player in the same breath as they raise a
field of one of that player's cards (`give k marker to p` beside `set
c.marks += k`), and take it back when they lower the field (`return c.marks
marker from p` beside `set c.marks = 0`).  Counting how often each give can
fire says nothing useful there; the card's field does: for every player p, at
every moment,

    p.T  <=  sum over the cards c in p.Z of (c.f - lowest f)

an *inductive invariant*, checked statement by statement below:

- at the start every holding is 0 and every term is at least 0;
- a give of A tokens to p sits next to `set c.f += A` with c one of p's
  cards in Z: both sides grow by A, or the left by less when the supply
  gives less (a negative A, or a field pushed out of its domain, stops the
  game with an error there);
- a return only lowers the left side (it never takes below 0);
- a field is lowered only by `set c.f = lowest` right after `return c.f T
  from p`, c one of p's cards in Z: the right side falls by at most c.f and
  the left by c.f or to 0, which keeps it at most the right side;
- raising a field, or a card coming into Z, only raises the right side;
- no rule takes a card out of Z (where cards can go, `flow.py`); a holding
  is never set directly (the engine stops such a game with an error).

Summed over the players, the tokens out of the supply are then at most the
cards that can ever lie in Z times the field's range, whatever the rules
fire: a supply at least that large never runs short.  Anything the checks
cannot read exactly (a give with no such field beside it, a card not known to
be the player's) makes the technique give no answer, never a wrong one.
"""

from __future__ import annotations

import attrs
from soan.dsl import ir
from soan.dsl.analysis import reachable

from .bounds import Bounds


@attrs.frozen
class Ledger:
    """`token` held by a player is at most the sum of `field` (less its lowest value) over their cards in `zone`."""

    token: str
    zone: str
    field: str
    lowest: int
    most: int  # the bound on the tokens out: cards that can lie in the zone x the field's range
    cards: int


def ledger(b: Bounds, token: str) -> Ledger | None:
    """The ledger that bounds `token`'s tokens out, or None when the rules do not keep one."""
    return _Reader(b, token).read()


class _Reader:
    def __init__(self, b: Bounds, token: str):
        self.b = b
        self.spec = b.spec
        self.token = token
        self.procs = {p.name: p for p in self.spec.procedures}
        # every statement of the rules with the chain of nodes around it and the body it runs in
        self.where: list[tuple[ir.Node, tuple, str]] = []
        for scope, root in self._roots():
            self._index(root, (), scope)

    def _roots(self):
        for name, root in (("main", self.spec.setup), ("rounds", self.spec.rounds), ("main", self.spec.scoring)):
            if root is not None:
                yield name, root
        _, procs = reachable(self.spec)  # a procedure no rule runs changes nothing
        for p in self.spec.procedures:
            if p.name in procs:
                yield "proc:" + p.name, p.body

    def _index(self, node, above: tuple, scope: str) -> None:
        self.where.append((node, above, scope))
        for child in ir.children(node):
            self._index(child, above + (node,), scope)

    # ---- the checks

    def read(self) -> Ledger | None:
        gives, fields = [], set()
        for node, above, scope in self.where:
            # (a holding is never set directly: the engine stops such a game with an error)
            if isinstance(node, ir.Give) and node.token == self.token:
                pair = self._raised_beside(node, above)
                if pair is None:
                    return None
                gives.append((node, above, scope, pair))
                fields.add(pair.target.name)
        if not gives or len(fields) != 1:
            return None
        field = fields.pop()
        zones = set()
        for give, above, scope, pair in gives:
            z = self._owned_zone(pair.target.obj, give.player, above, scope)
            if z is None:
                return None
            zones.add(z)
        if len(zones) != 1:
            return None
        zone = zones.pop()
        lowest, highest = self._range(field)
        if lowest is None or lowest < 0:
            return None
        if not self._lowered_only_with_return(field, zone, lowest, {id(pair) for *_, pair in gives}):
            return None
        if self._taken_out_of(zone):
            return None
        kinds = {c.name for c in self.spec.components if any(f.name == field for f in c.fields)}
        cards = [cid for cid in self.b.flow.cards_in(zone) if self.b.t.kind[cid] in kinds]
        return Ledger(self.token, zone, field, lowest, len(cards) * (highest - lowest), len(cards))

    def _raised_beside(self, give: ir.Give, above: tuple) -> ir.Set | None:
        """The `set c.f += A` next to the give (before or after it), A the give's amount (nodes compare
        without where they are written)."""
        block = above[-1] if above else None
        if not isinstance(block, ir.Block):
            return None
        i = next(k for k, s in enumerate(block.stmts) if s is give)
        for j in (i - 1, i + 1):
            if 0 <= j < len(block.stmts):
                s = block.stmts[j]
                if isinstance(s, ir.Set) and s.op == "+=" and isinstance(s.target, ir.Attr) \
                        and isinstance(s.target.obj, ir.Local) and s.value == give.amount:
                    # (a negative amount stops the game at the give with an error, so it needs no check)
                    return s
        return None

    def _range(self, field: str) -> tuple[int | None, int | None]:
        lo = hi = None
        for c in self.spec.components:
            for f in c.fields:
                if f.name != field:
                    continue
                match f.domain:
                    case ir.IntDomain(lo=a, hi=z):
                        pass
                    case ir.BoolDomain():
                        a, z = 0, 1
                    case _:
                        return None, None
                lo = a if lo is None else min(lo, a)
                hi = z if hi is None else max(hi, z)
        return lo, hi

    def _owned_zone(self, card, player, above: tuple, scope: str, depth: int = 0) -> str | None:
        """The per-player zone `card` lies in as one of `player`'s cards, where the statement under `above` runs."""
        if depth > 8 or not isinstance(card, ir.Local) or not isinstance(player, ir.Local):
            return None
        if self._reassigned(card.name, scope) or self._reassigned(player.name, scope):
            return None
        for node in reversed(above):  # the innermost loop or choice that binds the card
            src = None
            if isinstance(node, ir.For) and node.var == card.name:
                src = node.coll
            elif isinstance(node, ir.Choose) and node.var == card.name and node.count_kind is None:
                src = node.source
            if src is not None:
                if isinstance(src, ir.ListComp) and src.value is None:
                    src = src.coll
                if isinstance(src, ir.Attr) and isinstance(src.obj, ir.Local) and src.obj.name == player.name \
                        and self._per_player(src.name):
                    return src.name
                return None
        if not scope.startswith("proc:"):
            return None
        proc = self.procs[scope[5:]]
        if card.name not in proc.params or player.name not in proc.params:
            return None
        ci, pi = proc.params.index(card.name), proc.params.index(player.name)
        zones = set()
        for node, up, sc in self.where:
            if isinstance(node, ir.Do) and node.proc == proc.name:
                z = self._owned_zone(node.args[ci], node.args[pi], up, sc, depth + 1)
                if z is None:
                    return None
                zones.add(z)
        return zones.pop() if len(zones) == 1 else None

    def _per_player(self, zone: str) -> bool:
        return any(z.name == zone and z.per_player for z in self.spec.zones)

    def _reassigned(self, name: str, scope: str) -> bool:
        return any(isinstance(n, ir.Set) and isinstance(n.target, ir.Local) and n.target.name == name
                   for n, _, sc in self.where if sc == scope)

    def _lowered_only_with_return(self, field: str, zone: str, lowest: int, partners: set[int]) -> bool:
        """Every `set c.f = ...` or `-=` is `set c.f = lowest` right after `return c.f T from p`, c one of p's
        cards; a `+=` is of a number at least 0 or the partner of a give (`partners`: their ids)."""
        for node, above, scope in self.where:
            if not (isinstance(node, ir.Set) and isinstance(node.target, ir.Attr) and node.target.name == field):
                continue
            if node.op == "+=":
                if isinstance(node.value, ir.Int) and node.value.value >= 0:
                    continue
                if id(node) in partners:
                    continue  # it rises with the give beside it (a negative amount stops the game at the give)
                return False
            if not (node.op == "=" and isinstance(node.value, ir.Int) and node.value.value == lowest):
                return False
            block = above[-1] if above else None
            if not isinstance(block, ir.Block):
                return False
            i = next(k for k, s in enumerate(block.stmts) if s is node)
            before = block.stmts[i - 1] if i > 0 else None
            if not (isinstance(before, ir.Return) and before.token == self.token
                    and before.amount == node.target
                    and self._owned_zone(node.target.obj, before.player, above, scope) == zone):
                return False
        return True

    def _taken_out_of(self, zone: str) -> bool:
        """Can any rule move a card out of the zone (or from a place where-cards-can-go cannot trace)?"""
        for src, _dest, _kinds in self.b.flow.moves:
            if src is None or zone in src:
                return True
        return False
