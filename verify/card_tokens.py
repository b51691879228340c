"""Tokens that lie one on a card: a supply bounded by the cards that can hold one at once.

Some drafts put a single token on a card to mark a state (a marker that
starts a gauge, a flag on a building in use) and move that one token along
the card, rather than adding a token per step (that is verify/ledger.py).
The rules then give one token while the card's field is at its lowest and
lift the field off its lowest in the same breath:

    if c.f == lo { let before = p.T  give 1 T to p  if p.T > before { set c.f = 1 } }

and give it back when they set the field to its lowest again:

    if c.f > lo { return 1 T from p }  ...  set c.f = lo

For every player p, at every moment of the setup and the rounds,

    p.T  <=  the number of p's cards in p.Z whose f is above its lowest

an *inductive invariant*, checked statement by statement below:

- at the start every holding is 0;
- a give of 1 to p runs only while c.f is at its lowest, c one of p's cards
  in Z, and is followed at once by lifting c.f (unconditionally, or when the
  give gave anything): both sides grow by 1, or the left by nothing;
- a return only lowers the left side (a return from a player holding none
  returns nothing);
- a field is set to its lowest only after a return of 1 from p that runs
  whenever c.f is above it, c one of p's cards in Z, nothing between them
  touching f, T or a procedure: the right side falls by at most 1 and the
  left by 1 (or the card was not counted);
- raising a field (by a number at least 0, or to a constant above its
  lowest) only raises the right side;
- no rule of the setup or the rounds takes a card out of Z (where cards can
  go, `flow.py`), and no rule of the scoring gives T (so the invariant is
  only needed up to the scoring, when no give is left to find it short).

At a give, c is counted on no side yet, so the tokens out are at most one
less than the cards that can lie in the players' Z at once: a supply at
least that large never runs short.  Anything the checks cannot read exactly
makes the technique give no answer, never a wrong one.
"""

from __future__ import annotations

import attrs
from soan.dsl import ir

from .bounds import Bounds
from .ledger import _Reader

_MOVES = (ir.Move, ir.Draw, ir.Exchange)


@attrs.frozen
class CardTokens:
    """At most one `token` per card of `zone` whose `field` is above `lowest`."""

    token: str
    zone: str
    field: str
    lowest: int
    most: int  # the bound on the tokens out: the cards that can lie in the players' zone at once
    cards: int  # the cards that can ever lie there
    arrivals: int | None  # the most cards that can arrive in one player's zone (None: unknown)

    def reason(self) -> str:
        return (f"a player's '{self.token}' is never more than their cards in {self.zone} whose {self.field} is "
                f"above {self.lowest} (one token per card: an invariant each give, return and change of "
                f"{self.field} keeps, and no card leaves {self.zone} before the scoring), and at most {self.most} "
                f"cards can lie there at once")


def card_tokens(b: Bounds, token: str) -> CardTokens | None:
    """The one-token-per-card ledger that bounds `token`'s tokens out, or None when the rules do not keep one."""
    return _OnePerCard(b, token).read_one()


class _OnePerCard(_Reader):
    def read_one(self) -> CardTokens | None:
        from .supplies import _sites_under  # (supplies imports this module)

        play = _sites_under(self.spec, [x for x in (self.spec.setup, self.spec.rounds) if x is not None])
        late = _sites_under(self.spec, [self.spec.scoring] if self.spec.scoring is not None else [])
        partners, fields, zones = set(), set(), set()
        gives = 0
        for node, above, scope in self.where:
            if isinstance(node, ir.Give) and node.token == self.token:
                if node.span.site in late:
                    return None
                got = self._give_pattern(node, above, scope)
                if got is None:
                    return None
                field, lo, zone, lift = got
                fields.add((field, lo))
                zones.add(zone)
                partners.add(id(lift))
                gives += 1
        if not gives or len(fields) != 1 or len(zones) != 1:
            return None
        (field, lo), zone = fields.pop(), zones.pop()
        if not self._per_player(zone):
            return None
        lowest, _ = self._range(field)
        if lowest is None or lowest != lo or lo < 0:  # (`return c.f` gives one back only above a lowest >= 0)
            return None
        if not self._sets_keep(field, lo, zone, partners):
            return None
        kinds = {c.name for c in self.spec.components if any(f.name == field for f in c.fields)}
        if self._leaves_in_play(zone, play, kinds):
            return None
        cards = [cid for cid in self.b.flow.cards_in(zone) if self.b.t.kind[cid] in kinds]
        each = self.b._caps.get(zone)
        most = len(cards) if each is None else min(len(cards), self.b.t.n * each)
        return CardTokens(self.token, zone, field, lo, most, len(cards), each)

    # ---- the give: `if c.f == lo { let ...  give 1 T to p  <lift c.f> }`

    def _give_pattern(self, give: ir.Give, above: tuple, scope: str):
        if not (isinstance(give.amount, ir.Int) and give.amount.value == 1) or len(above) < 2:
            return None
        block, cond_if = above[-1], above[-2]
        if not (isinstance(block, ir.Block) and isinstance(cond_if, ir.If) and cond_if.branches[0][1] is block):
            return None
        at_lowest = _at_lowest(cond_if.branches[0][0])
        if at_lowest is None:
            return None
        card, field, lo = at_lowest
        i = next(k for k, s in enumerate(block.stmts) if s is give)
        lets = block.stmts[:i]
        if not all(isinstance(s, ir.Let) for s in lets) or i + 1 >= len(block.stmts):
            return None
        lift = self._lift(block.stmts[i + 1], card, field, lo, give, lets)
        if lift is None:
            return None
        zone = self._owned_zone(ir.Local(name=card), give.player, above, scope)
        if zone is None:
            return None
        return field, lo, zone, lift

    def _lift(self, s, card: str, field: str, lo: int, give: ir.Give, lets) -> ir.Set | None:
        """`set c.f = k` (k above lo), unconditionally or under `p.T > before`, `before` a let of `p.T`."""
        if _lifts(s, card, field, lo):
            return s
        if isinstance(s, ir.If) and len(s.branches) == 1 and s.orelse is None \
                and len(s.branches[0][1].stmts) == 1 and _lifts(s.branches[0][1].stmts[0], card, field, lo):
            match s.branches[0][0]:
                case ir.BinOp(op=">", left=ir.Attr(obj=obj, name=t), right=ir.Local(name=before)) \
                        if t == self.token and _same_local(obj, give.player):
                    for let in lets:
                        if let.name == before and isinstance(let.value, ir.Attr) and let.value.name == self.token \
                                and _same_local(let.value.obj, give.player):
                            return s.branches[0][1].stmts[0]
        return None

    # ---- every other change of the field

    def _sets_keep(self, field: str, lo: int, zone: str, partners: set[int]) -> bool:
        for node, above, scope in self.where:
            if not (isinstance(node, ir.Set) and isinstance(node.target, ir.Attr) and node.target.name == field):
                continue
            if id(node) in partners:
                continue
            if node.op == "+=" and isinstance(node.value, ir.Int) and node.value.value >= 0:
                continue
            if node.op == "=" and isinstance(node.value, ir.Int) and node.value.value > lo:
                continue
            if node.op == "=" and isinstance(node.value, ir.Int) and node.value.value == lo \
                    and self._returned_before(node, above, scope, field, lo, zone):
                continue
            return False
        return True

    def _returned_before(self, node: ir.Set, above: tuple, scope: str, field: str, lo: int, zone: str) -> bool:
        """A return of 1 from p (whenever c.f is above lo, c one of p's cards in Z) earlier in the
        block, with nothing between that touches f, the token or a procedure."""
        block = above[-1] if above else None
        if not isinstance(block, ir.Block) or not isinstance(node.target.obj, ir.Local):
            return False
        card = node.target.obj.name
        i = next(k for k, s in enumerate(block.stmts) if s is node)
        for j in range(i - 1, -1, -1):
            s = block.stmts[j]
            ret = self._return_when_above(s, card, field, lo)
            if ret is not None:
                return self._owned_zone(node.target.obj, ret.player, above, scope) == zone
            if not self._harmless(s, field):
                return False
        return False

    def _return_when_above(self, s, card: str, field: str, lo: int) -> ir.Return | None:
        if isinstance(s, ir.Return) and s.token == self.token and _returns_one(s, card, field):
            return s
        if isinstance(s, ir.If) and len(s.branches) == 1 and s.orelse is None \
                and _above_lowest(s.branches[0][0], card, field, lo) and len(s.branches[0][1].stmts) == 1:
            r = s.branches[0][1].stmts[0]
            if isinstance(r, ir.Return) and r.token == self.token and _returns_one(r, card, field):
                return r
        return None

    def _harmless(self, s, field: str) -> bool:
        for n in ir.walk(s):
            if isinstance(n, ir.Give | ir.Return) and n.token == self.token:
                return False
            if isinstance(n, ir.Do | ir.Choose | ir.Let) or isinstance(n, _MOVES):
                return False
            if isinstance(n, ir.Set) and (isinstance(n.target, ir.Local) or
                                          (isinstance(n.target, ir.Attr) and n.target.name == field)):
                return False
        return True

    def _leaves_in_play(self, zone: str, play: set, kinds: set[str]) -> bool:
        """Can a rule of the setup or the rounds take a card of `kinds` out of the zone (or from where
        flow cannot trace)?  A card of another kind has no field to count."""
        flow = self.b.flow
        for node, _above, _scope in self.where:
            if isinstance(node, _MOVES) and node.span.site in play:
                src = flow.taken_from.get(node.span.site)
                moved = flow.kinds_moved.get(node.span.site)
                if moved is not None and not moved & kinds:
                    continue
                if src is None or zone in src:
                    return True
        return False

    def _owned_zone(self, card, player, above: tuple, scope: str, depth: int = 0) -> str | None:
        """As the ledger's, and a card of a list chosen from the player's zone (`choose xs between
        ... from p.Z` then `for c in xs`)."""
        if isinstance(card, ir.Local) and depth <= 8:
            for k in range(len(above) - 1, -1, -1):
                node = above[k]
                if isinstance(node, ir.For) and node.var == card.name:
                    if isinstance(node.coll, ir.Local):
                        chosen = self._chosen_list(node.coll.name, above[:k])
                        if chosen is not None:
                            return self._owned_zone(ir.Local(name=chosen[0]), player,
                                                    above[:chosen[1]] + (chosen[2],), scope, depth + 1)
                    break
                if isinstance(node, ir.Choose) and node.var == card.name:
                    break
        return super()._owned_zone(card, player, above, scope, depth)

    def _chosen_list(self, name: str, above: tuple):
        """The innermost `choose name <count> from src` around, as a card bound from src (a fresh
        one-card choice standing for each card of the list), or None."""
        if any(isinstance(n, ir.Set) and isinstance(n.target, ir.Local) and n.target.name == name
               for b in above for n in ir.walk(b)):
            return None
        for k in range(len(above) - 1, -1, -1):
            node = above[k]
            if isinstance(node, ir.Choose) and node.var == name:
                if node.count_kind is None or node.source is None:
                    return None
                return name, k, attrs.evolve(node, count_kind=None)
            if isinstance(node, ir.For) and node.var == name:
                return None
        return None


def _same_local(a, b) -> bool:
    return isinstance(a, ir.Local) and isinstance(b, ir.Local) and a.name == b.name


def _card_field(e) -> tuple[str, str] | None:
    if isinstance(e, ir.Attr) and isinstance(e.obj, ir.Local):
        return e.obj.name, e.name
    return None


def _at_lowest(c) -> tuple[str, str, int] | None:
    """(card, field, lo) when the condition says `c.f == lo` (or `<= lo`)."""
    match c:
        case ir.BinOp(op="==" | "<=", left=l, right=ir.Int(value=lo)) if _card_field(l):
            return (*_card_field(l), lo)
        case ir.BinOp(op="<", left=l, right=ir.Int(value=v)) if _card_field(l):
            return (*_card_field(l), v - 1)
    return None


def _above_lowest(c, card: str, field: str, lo: int) -> bool:
    match c:
        case ir.BinOp(op=">" | "!=", left=l, right=ir.Int(value=v)) if _card_field(l) == (card, field):
            return v == lo
        case ir.BinOp(op=">=", left=l, right=ir.Int(value=v)) if _card_field(l) == (card, field):
            return v == lo + 1
    return False


def _lifts(s, card: str, field: str, lo: int) -> bool:
    return isinstance(s, ir.Set) and s.op == "=" and _card_field(s.target) == (card, field) \
        and isinstance(s.value, ir.Int) and s.value.value > lo


def _returns_one(r: ir.Return, card: str, field: str) -> bool:
    """At least one token back when the field is above its lowest: `return 1` or `return c.f`."""
    if isinstance(r.amount, ir.Int):
        return r.amount.value >= 1
    return _card_field(r.amount) == (card, field)
