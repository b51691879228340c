"""The most a card's state can reach while one of its yes/no states is false, when the limit that
bounds its rises reads that yes/no state: a level raised only while `c.level < c.limit + (if
c.polished then 1 else 0)` is at most the limit on a card that is not polished, provided no card
stops being polished while its level is above that.

Per card, with the flag read false, the cap is worked out as verify/state_caps.py does (a state set
outright to values up to V, raised by k only under `c.f < E`: max(V, E - 1 + k, its start)), E read
with the card's flag false.  It holds on every card whose flag is false when:
- the flag starts false on every card that has the state;
- every `set` that can make the flag false (any value but `true`) comes right after a `set` of the
  state to a value (`=`) of the same card in the same block, with nothing between that sets the state
  or calls a procedure: the level was just put down to a value the cap counts;
- so while the flag is false, the state only rose under the limit read with the flag false.

verify/rare_states.py asks for it (through Bounds._card_field) when it reads a sum's value with the
flag fixed false."""

from __future__ import annotations

from soan.dsl import ir

from .matched_sums import INLINE_DEPTH, _expand
from .state_caps import ROLLED, _for_card, _limit


def card_max_when_false(bounds, card: int, field: str, flag: str) -> int | None:
    """The most `card`'s state `field` can hold while its yes/no state `flag` is false, or None."""
    cache = bounds.__dict__.setdefault("_gated_cap_cache", {})
    if (field, flag) not in cache:
        cache[(field, flag)] = None  # a limit that reads this state itself reads its declared range
        cache[(field, flag)] = _caps(bounds, field, flag)
    caps = cache[(field, flag)]
    return None if caps is None else caps.get(card)


def _caps(bounds, field: str, flag: str) -> dict[int, int] | None:
    t = bounds.t
    if field in t.player_vars or field in t.tokens or field not in t.state_default or flag not in t.state_default:
        return None
    if field == ROLLED and any(isinstance(s.node, ir.Roll) for s in bounds.sites):
        return None
    cards = [c for c in range(t.n_cards) if field in t.kind_states[t.kind[c]]]
    most: dict[int, int] = {}
    for c in cards:
        start = t.state_default[field][c]
        if flag not in t.kind_states[t.kind[c]] or t.state_default[flag][c] is not False:
            return None
        if isinstance(start, bool) or not isinstance(start, int):
            return None
        most[c] = start
    if not _lowered_first(bounds, field, flag):
        return None
    for site in bounds.sites:
        node = site.node
        if not (isinstance(node, ir.Set) and isinstance(node.target, ir.Attr) and node.target.name == field):
            continue
        obj = node.target.obj
        if node.op == "=":
            iv = bounds.value_at(site, node.value)
            if iv is None:
                return None
            for c in cards:
                hi = _for_card(bounds, site, obj, c, node.value)
                most[c] = max(most[c], iv[1] if hi is None else hi)
            continue
        step = bounds.value_at(site, node.value)
        if step is None or step[0] < 0:
            return None
        if node.op == "-=":
            continue
        limit = _limit(site, obj, field)
        if limit is None:
            return None
        test, below = limit
        test = _expand(bounds, test, INLINE_DEPTH)
        if test is None:
            return None
        test = _fixed(test, obj, flag)
        for c in cards:
            e = _for_card(bounds, site, obj, c, test)
            if e is None:
                return None
            most[c] = max(most[c], e + step[1] - (1 if below else 0))
    return most


def _fixed(e, obj, flag: str):
    """`e` with `obj.flag` read as false."""
    if isinstance(e, ir.Attr) and e.obj == obj and e.name == flag:
        return ir.Bool(False)
    return ir.map_children(e, lambda x: _fixed(x, obj, flag))


def _lowered_first(bounds, field: str, flag: str) -> bool:
    """Whether every `set` that can make `flag` false follows, in its block, a `set` of `field` to a
    value on the same card, with nothing between that sets `field` or calls a procedure."""
    def clears(s) -> bool:
        return isinstance(s, ir.Set) and isinstance(s.target, ir.Attr) and s.target.name == flag \
            and not (s.op == "=" and s.value == ir.Bool(True))

    found = seen = 0
    for root in bounds._roots():
        for b in ir.walk(root):
            if not isinstance(b, ir.Block):
                continue
            for k, s in enumerate(b.stmts):
                if not clears(s):
                    continue
                seen += 1
                for j in range(k - 1, -1, -1):
                    prev = b.stmts[j]
                    if isinstance(prev, ir.Set) and isinstance(prev.target, ir.Attr) and prev.target.name == field:
                        if prev.op == "=" and prev.target.obj == s.target.obj and isinstance(s.target.obj, ir.Local):
                            found += 1
                        break
                    if any(isinstance(n, ir.Do) or isinstance(n, ir.Set) and isinstance(n.target, ir.Attr)
                           and n.target.name == field or _rebinds(n, s.target.obj) for n in ir.walk(prev)):
                        break
    # every clearing statement of the rules (setup, rounds, scoring, procedures) is in a block found here
    total = sum(1 for root in bounds._roots() for n in ir.walk(root) if clears(n))
    return found == seen == total


def _rebinds(n, obj) -> bool:
    """Whether the statement `n` binds the local `obj` anew (then the two sets may name two cards)."""
    if not isinstance(obj, ir.Local):
        return True
    match n:
        case ir.Let(name=name) | ir.Set(target=ir.Local(name=name)):
            return name == obj.name
        case ir.Choose(var=name) | ir.For(var=name) | ir.Pick(var=name):
            return name == obj.name
    return False
