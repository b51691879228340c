"""How far a seat has come towards a score item, read from the rules: a guide for the climbs.

An item that scores only at the end of the game, and only once something is built
(a dish judged at a grade, a side matched with a dish), reads 0 for most of a game,
so a search aimed at it has nothing to climb until it is nearly there, and the
seat's total (which the search falls back on) often rewards the opposite (taking a
bonus now instead of building).  The rules say what the item looks at: the award
statements for it, the loops and tests around them and the defs they call name the
seat's zones the item counts cards in (its *targets*), the card states and player
variables it reads; the moves that put cards into a target zone name the zones they
come from (its *feeders*).  A seat's progress is then a number that grows as cards
reach a feeder zone, then a target zone, and as the states read rise.

The number only steers a search; every game the search returns is a real game whose
score is read from its log, so nothing proved or witnessed rests on it.
"""

from __future__ import annotations

from typing import Callable

import attrs

from soan.dsl import ir
from soan.interpreter.runtime import Tables

# weights: a card in a zone the item counts, one in a zone that feeds it, a state or player
# variable the item reads (scaled to 0..1 over its declared domain)
TARGET_CARD = 4.0
FEEDER_CARD = 1.0
STATE_READ = 2.0
# a card in a zone the tests around a move into a counted zone read (a free slot a card is laid on):
# only where the caller asks for it (progress_of(..., enablers=True)).  Less than a feeder's card: on a
# shipped spec of 250-decision games a weight of 2 had the turn-planned games pass early for slots and
# build nothing on them (an item 0 from 3 of 3 seeds), 0.5 lifted an item from 2 to 3 or 4 in 7 of 8
ENABLER_CARD = 0.5


@attrs.define
class ItemReads:
    targets: set = attrs.field(factory=set)  # per-player zones the item's awards look into
    feeders: set = attrs.field(factory=set)  # per-player zones the rules move cards from into a target
    card_states: set = attrs.field(factory=set)  # card states the awards read
    player_vars: set = attrs.field(factory=set)  # player variables the awards read
    # per-player zones the tests and collections around a move into a target read (not targets or feeders):
    # the places a card must have before one can be put into a target (a free slot to lay it on)
    enablers: set = attrs.field(factory=set)


def _exprs_and_blocks(node: ir.Node) -> tuple[list[ir.Node], list[ir.Node]]:
    """A statement's own expressions (its header: a loop's collection, a test, an amount) and the
    blocks or statements nested in it."""
    exprs, nested = [], []

    def take(x):
        if isinstance(x, ir.Expr):
            exprs.append(x)
        elif isinstance(x, (ir.Block, ir.OptionBranch)):
            nested.append(x)
        elif isinstance(x, tuple):
            for y in x:
                take(y)

    for f in attrs.fields(type(node)):
        take(getattr(node, f.name))
    return exprs, nested


def _walk_stmts(node: ir.Node, context: tuple, visit: Callable[[ir.Node, tuple], None]) -> None:
    """Every statement below `node`, with the header expressions of the statements around it."""
    if isinstance(node, ir.Block):
        lets = tuple(s.value for s in node.stmts if isinstance(s, ir.Let))  # a let's value is read where it is used
        for s in node.stmts:
            _walk_stmts(s, context + lets, visit)
        return
    exprs, nested = _exprs_and_blocks(node)
    if isinstance(node, ir.Stmt):
        visit(node, context)
    inner = context + tuple(exprs)
    for b in nested:
        _walk_stmts(b, inner, visit)


def _names_read(exprs, defs: dict[str, ir.Def]) -> set[str]:
    """The attribute names the expressions read, through the defs they call."""
    names: set[str] = set()
    seen: set[str] = set()
    todo = list(exprs)
    while todo:
        for n in ir.walk(todo.pop()):
            if isinstance(n, ir.Attr):
                names.add(n.name)
            elif isinstance(n, ir.Call) and n.func in defs and n.func not in seen:
                seen.add(n.func)
                todo.append(defs[n.func].body)
    return names


def _rule_bodies(spec: ir.Spec) -> list[ir.Node]:
    bodies = [p.body for p in spec.procedures if p.body is not None]
    for b in (spec.setup, spec.scoring):
        if b is not None:
            bodies.append(b)
    if spec.rounds is not None:
        bodies.extend(x for x in attrs.astuple(spec.rounds, recurse=False) if isinstance(x, (ir.Block, tuple)))
    out = []
    for b in bodies:
        if isinstance(b, tuple):
            out.extend(x for x in b if isinstance(x, ir.Node))
        else:
            out.append(b)
    return out


def item_reads(tables: Tables, name: str) -> ItemReads:
    """What the rules' awards of score item `name` read (see the module's docstring)."""
    spec = tables.spec
    defs = {d.name: d for d in spec.defs}
    zones = tables.player_zone_names
    states = {s for names in tables.kind_states.values() for s in names}
    pvars = {v for v, d in tables.player_vars.items() if isinstance(d.domain, (ir.IntDomain, ir.BoolDomain))}
    reads = ItemReads()
    contexts: list = []

    def on_award(st, context):
        if isinstance(st, ir.Award) and st.item == name:
            contexts.append(context + (st.amount,))

    bodies = _rule_bodies(spec)
    for b in bodies:
        _walk_stmts(b, (), on_award)
    for context in contexts:
        got = _names_read(context, defs)
        reads.targets |= got & zones
        reads.card_states |= got & states
        reads.player_vars |= got & pvars

    def on_move(st, binds):
        if isinstance(st, ir.Move) and _names_read([st.dest], defs) & reads.targets:
            src = _bound_sources(st.what, binds)
        elif isinstance(st, ir.Draw) and _names_read([st.dest], defs) & reads.targets:
            src = [st.source]
        else:
            return
        reads.feeders |= (_names_read(src, defs) & zones) - reads.targets

    for b in bodies:
        _walk_binds(b, {}, on_move)

    def on_guarded_move(st, context):
        if isinstance(st, (ir.Move, ir.Draw)) and _names_read([st.dest], defs) & reads.targets:
            reads.enablers |= _names_read(context, defs) & zones

    for b in bodies:
        _walk_stmts(b, (), on_guarded_move)
    reads.enablers -= reads.targets | reads.feeders
    return reads


def _bound_sources(e: ir.Expr, binds: dict) -> list[ir.Expr]:
    """What a moved card comes from: the expression itself, and for each local in it the collection
    (or value) that bound it, followed back through the locals those mention."""
    out, seen, todo = [], set(), [e]
    while todo:
        x = todo.pop()
        out.append(x)
        for n in ir.walk(x):
            if isinstance(n, ir.Local) and n.name in binds and n.name not in seen:
                seen.add(n.name)
                todo.append(binds[n.name])
    return out


def _walk_binds(node: ir.Node, binds: dict, visit: Callable[[ir.Node, dict], None]) -> None:
    """Every statement below `node`, with what each local in scope was bound to (a loop's or a
    choice's collection, a let's value); a procedure's parameters stay unbound."""
    if isinstance(node, ir.Block):
        inner = dict(binds)
        for s in node.stmts:
            if isinstance(s, ir.Let):
                inner[s.name] = s.value
            _walk_binds(s, inner, visit)
        return
    if isinstance(node, ir.Stmt):
        visit(node, binds)
    inner = binds
    src = getattr(node, "coll", None) if isinstance(node, ir.For) else \
        getattr(node, "source", None) if isinstance(node, (ir.Choose, ir.Pick)) else None
    var = getattr(node, "var", None)
    if isinstance(var, str) and isinstance(src, ir.Expr):
        inner = dict(binds)
        inner[var] = src
    for b in _exprs_and_blocks(node)[1]:
        _walk_binds(b, inner, visit)


def progress_of(tables: Tables, name: str, enablers: bool = False) -> Callable[[object, int], float] | None:
    """A function of (state, seat) giving the seat's progress towards item `name`, or None
    when the rules' awards of it read no zone, card state or player variable of a seat.
    `enablers`: a card in a zone the tests around a move into a counted zone read counts too
    (ENABLER_CARD each): the slots a counted card must be laid on."""
    r = item_reads(tables, name)
    if not (r.targets or r.player_vars):
        return None
    t = tables
    target_slots = [[t.slot_of[(z, i)] for z in sorted(r.targets)] for i in range(t.n)]
    feeder_slots = [[t.slot_of[(z, i)] for z in sorted(r.feeders)] for i in range(t.n)]
    enabler_slots = [[t.slot_of[(z, i)] for z in sorted(r.enablers)] if enablers else [] for i in range(t.n)]
    spans = {}
    for (kind, sname), dom in t.state_domain.items():
        if sname in r.card_states:
            spans[(kind, sname)] = _span(dom)
    unit = _unit_weights(tables.spec, {k[1]: sp for k, sp in spans.items() if sp is not None})
    var_spans = {v: _span(t.player_vars[v].domain) for v in r.player_vars}
    kind_of = t.kind

    def value(st, i: int) -> float:
        v = 0.0
        for slot in target_slots[i]:
            cards = st.zones[slot]
            v += TARGET_CARD * len(cards)
            for cid in cards:
                for sname in t.card_states[cid]:
                    sp = spans.get((kind_of[cid], sname))
                    x = st.cs[sname][cid] if sp is not None else None
                    if isinstance(x, (bool, int)):
                        v += unit[sname] * (int(x) - sp[0])
        for slot in feeder_slots[i]:
            v += FEEDER_CARD * len(st.zones[slot])
        for slot in enabler_slots[i]:
            v += ENABLER_CARD * len(st.zones[slot])
        for var, sp in var_spans.items():
            x = st.pv[var][i]
            if isinstance(x, (bool, int)) and sp is not None:
                v += STATE_READ * (int(x) - sp[0]) / sp[1]
        return v
    return value


def _unit_weights(spec: ir.Spec, spans: dict[str, tuple[int, int]]) -> dict[str, float]:
    """Each card state's weight per unit: STATE_READ over its domain's width, except that a state
    the rules raise in the same block as they set another back to its least value (a level up that
    clears the tokens lying on the card) weighs more per unit than the other's whole width, so the step up
    counts as progress, not as the loss of what was cleared."""
    unit = {name: STATE_READ / sp[1] for name, sp in spans.items()}
    pairs = set()
    for blk in (n for root in _rule_bodies(spec) for n in ir.walk(root) if isinstance(n, ir.Block)):
        sets = [s for s in blk.stmts if isinstance(s, ir.Set) and isinstance(s.target, ir.Attr)]
        for a in sets:
            if a.op == "=" and a.target.name in spans and isinstance(a.value, ir.Int) \
                    and a.value.value == spans[a.target.name][0]:
                pairs |= {(a.target.name, b.target.name) for b in sets
                          if b.op == "+=" and b.target.name in spans and b.target.name != a.target.name
                          and b.target.obj == a.target.obj}
    for _ in range(len(pairs)):  # chains of such pairs (a few at most) settle in as many passes
        for low, high in pairs:
            unit[high] = max(unit[high], unit[low] * (spans[low][1] + 1))
    return unit


def _span(domain) -> tuple[int, int] | None:
    """A domain's least value and width (at least 1), or None for a domain of no number."""
    if isinstance(domain, ir.BoolDomain):
        return (0, 1)
    if isinstance(domain, ir.IntDomain) and isinstance(domain.lo, int) and isinstance(domain.hi, int):
        return (domain.lo, max(1, domain.hi - domain.lo))
    return None


def spent_by_choice(spec: ir.Spec) -> list[str]:
    """The tokens a seat spends by its own choice of how many: a `return k T from P` in the body of a
    `choose k ... by P` (the same P), k the number chosen.  A seat holding such tokens can still make a
    later move count for more (a die raised by the tokens spent on it), which the state's progress alone
    does not show; the rules name them, not the caller."""
    out: set[str] = set()
    for root in _rule_bodies(spec):
        for ch in ir.walk(root):
            if not (isinstance(ch, ir.Choose) and ch.var is not None and ch.count_kind is None and ch.body is not None):
                continue
            for n in ir.walk(ch.body):
                if isinstance(n, ir.Return) and n.amount == ir.Local(ch.var) and n.player == ch.player:
                    out.add(n.token)
    return sorted(out)
