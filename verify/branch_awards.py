"""Two readings of an `if ... elif ...` chain that a score's bound gains from.

- A test on a card's printed field narrows the card: in `if ch.goal == most_cards { award ch.bonus
  ... }` the card is one of those printed `goal = most_cards`, so `ch.bonus` is read over those
  cards only, not over every card that can lie where `ch` comes from (`narrow`).
- The branches of one chain are exclusive: one run of the chain takes one branch, so awards to the
  same item in different branches share the chain's runs.  Three branches awarding up to 5, 3 and
  2 in a chain that runs twice for a player give at most 2 x 5, not 2 x (5 + 3 + 2)
  (`exclusive_terms`).

Bounds (verify/bounds.py) calls `narrow` as it reads a branch, and `exclusive_terms` as it sums an
item's awards for the solver."""

from __future__ import annotations

import attrs

from soan.dsl import ir
from soan.dsl.analysis import conjuncts


def narrow(bounds, test) -> None:
    """Each card local `x` the conjunction `test` says is printed `x.f == name`: only the cards it
    can be that are printed so (a state field, which changes in play, is not read)."""
    t = bounds.t
    for c in conjuncts(test):
        if not (isinstance(c, ir.BinOp) and c.op == "=="):
            continue
        for side, other in ((c.left, c.right), (c.right, c.left)):
            if not (isinstance(side, ir.Attr) and isinstance(side.obj, ir.Local)):
                continue
            name = _name(bounds, other)
            v = bounds.env.get(side.obj.name)
            if name is None or v is None or not v.one or v.zc is None or not v.zc[1]:
                continue
            field = side.name
            if any(field in t.kind_states[t.kind[k]] for k in v.zc[1]):
                continue
            kept = tuple(k for k in v.zc[1]
                         if t.fields[k].get(field, t.kind[k] if field == "kind" else None) == name)
            if kept and len(kept) < len(v.zc[1]):  # none kept: the branch cannot run; leave it as read
                bounds.env[side.obj.name] = attrs.evolve(v, zc=(v.zc[0], kept))


def _name(bounds, e) -> str | None:
    match e:
        case ir.Symbol(name=name):
            return name
        case ir.Param(name=name):
            v = bounds.t.params.get(name)
            return v if isinstance(v, str) else None
    return None


def exclusive_terms(bounds, item: str, terms: list, merged: frozenset[int] = frozenset()) -> list:
    """`terms` (solver terms (name, lo, hi, times), one per award site of `item`, in the order of
    `bounds.sites`' awards of it) with the awards of each chain that lie in two or more of its
    branches replaced by one term: what one run of the chain can give (one branch's awards, each
    at most once: no loop or procedure call between the chain and them) times the chain's runs
    for one player, when that is tighter on both sides.  All those awards go to the same local,
    which the chain does not bind anew, so one run gives to one player.  Positions in `merged`
    (already one term with others, see verify/option_awards.py; None: merged away) are left as they are."""
    awards = [s for s in bounds.sites if isinstance(s.node, ir.Award) and s.node.item == item]
    if len(awards) != len(terms):
        return terms
    # a procedure read at two calls has two sites per statement: only statements read once are
    # matched to the one reading of their chain
    seen: dict[int, int] = {}
    for s in bounds.sites:
        seen[id(s.node)] = seen.get(id(s.node), 0) + 1
    where = {id(s.node): k for k, s in enumerate(awards) if seen[id(s.node)] == 1}
    taken: set[int] = set(merged)
    out = list(terms)
    drop: set[int] = set()
    for chain in bounds.sites:
        node = chain.node
        if not isinstance(node, ir.If) or chain.firings is None or seen[id(node)] != 1:
            continue
        blocks = [b for _, b in node.branches] + ([node.orelse] if node.orelse is not None else [])
        per_branch = [[where[id(a)] for a in _once_awards(b, item) if id(a) in where] for b in blocks]
        ks = [k for ks in per_branch for k in ks]
        if sum(1 for ks in per_branch if ks) < 2 or any(k in taken for k in ks):
            continue
        # every site of these awards must have been read inside this reading of the chain: one site each
        if len(set(ks)) != len(ks) or any(awards[k].card_award is not None for k in ks):
            continue
        who = {awards[k].node.player for k in ks}
        if len(who) != 1 or not isinstance(next(iter(who)), ir.Local):
            continue
        w = next(iter(who))
        if w.name in _bound_inside(node):
            continue
        if any(terms[k][1] is None or terms[k][2] is None or terms[k][3] is None for k in ks):
            continue
        with bounds.reading_in(chain.env):
            runs = bounds._per_player(w, chain.firings)
        if runs is None:
            continue
        hi = max(sum(max(0, terms[k][2]) for k in b) for b in per_branch)
        lo = min(sum(min(0, terms[k][1]) for k in b) for b in per_branch)
        apart_hi = sum(max(0, terms[k][2]) * terms[k][3] for k in ks)
        apart_lo = sum(min(0, terms[k][1]) * terms[k][3] for k in ks)
        if hi * runs > apart_hi or lo * runs < apart_lo or (hi * runs, lo * runs) == (apart_hi, apart_lo):
            continue  # not tighter, or looser on one side
        taken.update(ks)
        drop.update(ks[1:])
        out[ks[0]] = (f"line {node.span.line}", lo, hi, runs)
    return [x for k, x in enumerate(out) if k not in drop]


def _once_awards(b: ir.Block, item: str) -> list[ir.Award]:
    """The awards of `item` in a block that fire at most once per run of it: none inside a loop."""
    out = []

    def visit(n):
        if isinstance(n, (ir.For, ir.Repeat, ir.While)):
            return
        if isinstance(n, ir.Award) and n.item == item:
            out.append(n)
        for c in ir.children(n):
            visit(c)

    visit(b)
    return out


def _bound_inside(node: ir.Node) -> set[str]:
    from .bounds import _binds  # it imports this module

    return {k for n in ir.walk(node) if isinstance(n, ir.Stmt) for k in _binds(n)}
