"""Cards waiting for a token: what a search for a token shortage should gather before it gives.

A rule that gives a token for a card (`if c.f == 0 { give 1 T to p  set c.f = 1 }`, reached
from `choose c from [x in p.Z where ready(x)]` through a procedure or two) gives it only for
cards that pass the tests on the way.  The tokens out alone do not tell a game that gathered
many such cards (and will give for them in a later round) from one that gathered none; the
cards of the players' zones that pass the tests do.  This module reads those tests from the
rules: for each give of the token, every path from where the card is bound to the give
(through the procedure calls that pass it on), with the filters of the lists it is chosen from
and the tests of the `if`s around it that read only the card.

It only guides a search (verify/stepwise.py): a card counted here may never receive a token,
and the witness is always the shortage itself, replayed.
"""

from __future__ import annotations

from typing import Callable

from soan.dsl import ir
from soan.dsl.analysis import conjuncts, reachable
from soan.interpreter.runtime import Tables
from soan.interpreter.state import State

# procedure calls followed from a give back to where its card is chosen
DEPTH = 6


class _Index:
    """Every statement of the rules the game can run, with the nodes around it and its scope."""

    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.procs = {p.name: p for p in spec.procedures}
        self.where: list[tuple[ir.Node, tuple, str]] = []
        _, procs = reachable(spec)
        roots = [("main", x) for x in (spec.setup, spec.rounds, spec.scoring) if x is not None]
        roots += [("proc:" + p.name, p.body) for p in spec.procedures if p.name in procs]
        for scope, root in roots:
            self._index(root, (), scope)

    def _index(self, node, above: tuple, scope: str) -> None:
        self.where.append((node, above, scope))
        for child in ir.children(node):
            self._index(child, above + (node,), scope)


def _only_reads(e, var: str) -> bool:
    """Whether `e` reads no local but `var` (and the variables its own filters bind)."""
    bound = {n.var for n in ir.walk(e) if isinstance(n, ir.ListComp | ir.Agg)}
    return all(n.name == var or n.name in bound for n in ir.walk(e) if isinstance(n, ir.Local))


def _filters(coll, var: str) -> list[tuple[str, ir.Expr]] | None:
    """The tests a card of `coll` passes, as (variable, test) pairs; None when `coll` is a list
    held in a local (followed by the caller)."""
    out = []
    while isinstance(coll, ir.ListComp) and coll.value is None:
        if coll.where is not None:
            out += [(coll.var, c) for c in conjuncts(coll.where) if _only_reads(c, coll.var)]
        coll = coll.coll
    if isinstance(coll, ir.BinOp) and coll.op == "+":  # a list joined of two: what both parts pass
        return out
    if isinstance(coll, ir.Local):
        return None
    return out


def card_paths(index: _Index, card: str, above: tuple, scope: str, depth: int = 0) -> list[list] | None:
    """The tests a card held in the local `card` has passed where the statement under `above`
    runs: one conjunction of (variable, test) pairs per way the card can get there; None when a
    way cannot be read."""
    if depth > DEPTH:
        return None
    tests: list = []
    for k in range(len(above) - 1, -1, -1):
        node = above[k]
        if isinstance(node, ir.If) and k + 1 < len(above):
            for test, block in node.branches:
                if block is above[k + 1]:
                    tests += [(card, c) for c in conjuncts(test) if _only_reads(c, card)]
        bound = None
        if isinstance(node, ir.For) and node.var == card:
            bound = node.coll
            tests += [(card, c) for c in conjuncts(node.where) if _only_reads(c, card)]
        elif isinstance(node, ir.Choose) and node.var == card and node.source is not None:
            if node.count_kind is not None:
                return None  # the local holds a list, not a card
            bound = node.source
            tests += [(card, c) for c in conjuncts(node.where) if _only_reads(c, card)]
        if bound is None:
            continue
        got = _filters(bound, card)
        if got is not None:
            return [tests + got]
        # `for c in xs`, xs chosen from a filtered list before: the tests of that list's cards
        lst = bound.name
        for j in range(k - 1, -1, -1):
            ch = above[j]
            if isinstance(ch, ir.Choose) and ch.var == lst and ch.source is not None:
                more = _filters(ch.source, lst)
                if more is None:
                    return None
                return [tests + more + [(lst, c) for c in conjuncts(ch.where) if _only_reads(c, lst)]]
        return None
    calls = _calls_passing(index, scope, card)
    if calls is None:
        return None
    paths: list = []
    for arg, up, sc in calls:
        if not isinstance(arg, ir.Local):
            return None
        got = card_paths(index, arg.name, up, sc, depth + 1)
        if got is None:
            return None
        paths += [tests + p for p in got]
    return paths or None


def _calls_passing(index: _Index, scope: str, card: str) -> list[tuple] | None:
    """Where `card` is a parameter of the procedure `scope`: each call's argument for it, with the
    call's enclosing nodes and scope; None where it is not."""
    if not scope.startswith("proc:"):
        return None
    proc = index.procs[scope[5:]]
    if card not in proc.params:
        return None
    i = proc.params.index(card)
    return [(node.args[i], up, sc) for node, up, sc in index.where
            if isinstance(node, ir.Do) and node.proc == proc.name]


def give_paths(spec: ir.Spec, token: str, player_zones: set[str]) -> dict[str, list[list]]:
    """Per-player zone Z -> the ways (conjunctions of tests) a card of a player's Z reaches a give
    of `token` whose `if`s read that card: the card bound from `p.Z` (filtered or not)."""
    index = _Index(spec)
    out: dict[str, list[list]] = {}
    for node, above, scope in index.where:
        if not (isinstance(node, ir.Give) and node.token == token):
            continue
        cards = {n.obj.name for k, up in enumerate(above) if isinstance(up, ir.If)
                 for test, block in up.branches if k + 1 < len(above) and block is above[k + 1]
                 for n in ir.walk(test) if isinstance(n, ir.Attr) and isinstance(n.obj, ir.Local)}
        cards.discard(node.player.name if isinstance(node.player, ir.Local) else None)
        for card in sorted(cards):
            zone = _zone_of(index, card, above, scope)
            paths = card_paths(index, card, above, scope)
            if zone is not None and paths:
                out.setdefault(zone, []).extend(paths)
    return out


def _zone_of(index: _Index, card: str, above: tuple, scope: str, depth: int = 0) -> str | None:
    """The per-player zone a card local is chosen from (`p.Z`, filtered or not), through calls."""
    if depth > DEPTH:
        return None
    per_player = {z.name for z in index.spec.zones if z.per_player}
    for k in range(len(above) - 1, -1, -1):
        node = above[k]
        if isinstance(node, ir.For | ir.Choose) and node.var == card:
            src = node.coll if isinstance(node, ir.For) else node.source
            while isinstance(src, ir.ListComp) and src.value is None:
                src = src.coll
            if isinstance(src, ir.Local):  # a list chosen before
                for j in range(k - 1, -1, -1):
                    ch = above[j]
                    if isinstance(ch, ir.Choose) and ch.var == src.name and ch.source is not None:
                        src = ch.source
                        while isinstance(src, ir.ListComp) and src.value is None:
                            src = src.coll
                        break
            if isinstance(src, ir.Attr) and src.name in per_player:
                return src.name
            return None
    calls = _calls_passing(index, scope, card)
    if calls is None:
        return None
    zones = {_zone_of(index, arg.name, up, sc, depth + 1) for arg, up, sc in calls if isinstance(arg, ir.Local)}
    return zones.pop() if len(zones) == 1 else None


def waiting_count(tables: Tables, token: str) -> Callable[[State], int] | None:
    """A state -> how many cards in the players' zones pass every test on some way to a give of
    `token` (give_paths), or None when no give's card can be read so."""
    found = give_paths(tables.spec, token, set(tables.player_zone_names))
    if not found:
        return None
    x = tables.rules.x
    # the same test (the same node of the rules, read on the same variable) on several ways to a give,
    # and the same way reached through several calls, are worked out once a card
    tests: list[tuple[str, ir.Expr]] = []

    def index(var: str, test: ir.Expr) -> int:
        k = next((k for k, (v, e) in enumerate(tests) if v == var and e is test), None)
        if k is None:
            tests.append((var, test))
            k = len(tests) - 1
        return k
    compiled: dict[str, list[tuple[int, ...]]] = {}
    for zone, paths in found.items():
        ways = compiled.setdefault(zone, [])
        for path in paths:
            way = tuple(index(var, test) for var, test in path)
            if way not in ways:
                ways.append(way)
    fns = [(var, x(test)) for var, test in tests]
    slots = [(tables.slot_of[(z, i)], compiled[z]) for z in sorted(compiled) for i in range(tables.n)
             if (z, i) in tables.slot_of]

    def passes(st: State, card, paths) -> bool:
        known: dict[int, bool] = {}  # a test's outcome on this card (False also where it cannot be worked out)
        for path in paths:
            for k in path:
                ok = known.get(k)
                if ok is None:
                    var, fn = fns[k]
                    try:
                        ok = bool(fn(st, {var: card}))
                    except Exception:  # a test that cannot be worked out on this card: not counted
                        ok = False
                    known[k] = ok
                if not ok:
                    break
            else:
                return True
        return False

    def count(st: State) -> int:
        return sum(1 for slot, paths in slots for c in st.zones[slot] if passes(st, tables.C[c], paths))
    return count
