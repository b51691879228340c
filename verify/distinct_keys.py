"""Tie-break keys the rules keep different for every candidate, in three shapes (each general
and sound; anything outside them leaves the claim unproved):

1. A per-player field kept as a number (`place`), written only by the idiom

       let k = 0
       for q in play_order { set k += 1  set q.place = k }

   a loop over every player once that writes each a strictly larger counter.  When that
   loop finishes no two players share the field; if every write of the field in the rules
   is such a loop, and nothing reads the field while one runs, every read after the first
   loop sees it different for every player (the inductive step: a statement that does not
   write the field keeps it distinct, and each write is part of a loop that ends with it
   distinct again).  The field's default is the same for every player, so nothing may
   read it before the first loop has run: `_established` checks the setup and the first
   round's statements in order.
2. A ranking of one player's own cards (`where c.owner == p`, `p` surely a player) by a
   fixed field no two cards of a player's copy of the per-player sets share.
3. A winner line among the players who hold T cards in a zone, when every move into that
   zone is followed at once by an immediate win at T or fewer: the winner line, read only
   when no immediate win ended the game, then has no candidate at all.
"""

from __future__ import annotations

import attrs

from soan.dsl import ir
from soan.dsl.analysis import conjuncts

# statements after which play may go on to the scoring without the rounds' statements that follow
_ENDS = (ir.Win, ir.EndGame, ir.Eliminate)


def separated(spec: ir.Spec, node, owner: str | None, distinct_players: bool) -> str | None:
    """Why a ranking (or the winner line) always separates its candidates by one of the
    ways below, or None.  `owner`: the def or procedure it lies in; `distinct_players`:
    its candidates are different players whenever they are players."""
    if isinstance(node, ir.Winner) and (why := no_candidate_winner(spec, node)):
        return why
    if distinct_players:
        why = next((w for k in node.keys if (w := distinct_field(spec, k.expr, node.var))), None)
        if why:
            return why
    return owned_card_field(spec, node, owner) if isinstance(node, ir.Ranking) else None


def distinct_field(spec: ir.Spec, key: ir.Expr, var: str) -> str | None:
    """Why the key `key` (of ranking variable `var`) is a player field no two players
    share whenever it is read, or None when that is not shown."""
    field = player_field_of(spec, key, var)
    if field is None or spec.rounds is None:
        return None
    bodies = {p.name: p.body for p in spec.procedures}
    writes, loops = [], []
    for root in [spec.setup, spec.rounds.body, spec.scoring, *bodies.values()]:
        if root is not None:
            _writes(root, field, (), writes)
    everywhere = sum(1 for r in rule_bodies(spec) for n in ir.walk(r)
                     if isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name == field)
    if not writes or len(writes) != everywhere:
        return None  # a write under a statement _stmts does not look into
    for st, enclosing in writes:
        loop = enclosing[-1] if enclosing else None
        if loop is None or not _counter_loop(spec, loop, field, st):
            return None
        loops.append(loop)
    if any(isinstance(n, ir.Eliminate) for r in rule_bodies(spec) for n in ir.walk(r)):
        return None  # a player out of `players` keeps a value a loop over `players` no longer passes
    if any(may_read(spec, [loop.coll], field) for loop in loops):
        return None
    ids = {id(x) for x in loops}
    # the start: the setup, then the rounds' first statements, read nothing of the field before a loop
    start = [x for x in (spec.setup, spec.rounds.count) if x is not None]
    start += [t.supply for t in spec.tokens] + [v.default for v in spec.vars if v.default is not None]
    if may_read(spec, start, field) or _ends(spec, start):
        return None
    state = _established(spec, spec.rounds.body.stmts, field, ids, bodies)
    if state is not True:
        return None
    if may_read(spec, [q.expr for q in spec.questions], field):
        return None  # an invariant may be read between any two statements
    after = [x for x in (spec.scoring, spec.winner) if x is not None]
    if may_read(spec, after, field) and not (isinstance(spec.rounds.count, ir.Int) and spec.rounds.count.value >= 1):
        return None
    return (f"every write of '{field}' is a loop over every player that writes each a larger counter, and "
            f"nothing reads '{field}' before the first such loop or while one runs: no two players share it")


def player_field_of(spec: ir.Spec, key: ir.Expr, var: str) -> str | None:
    """The per-player variable a key reads of the player `var` (`var.F`, or a one-parameter def of it), else None."""
    defs = {d.name: d for d in spec.defs}
    if isinstance(key, ir.Call) and key.func in defs and len(key.args) == 1 and \
            isinstance(key.args[0], ir.Local) and key.args[0].name == var and len(defs[key.func].params) == 1:
        return player_field_of(spec, defs[key.func].body, defs[key.func].params[0])
    match key:
        case ir.Attr(obj=ir.Local(name=v), name=name) if v == var and \
                any(x.name == name and x.per_player for x in spec.vars):
            return name
    return None


def _stmts(node) -> list:
    """The statement blocks directly inside a statement (or a block)."""
    match node:
        case ir.Block(stmts=stmts):
            return list(stmts)
        case ir.For(body=b) | ir.Repeat(body=b) | ir.While(body=b) | ir.Phase(body=b) | ir.Pick(body=b):
            return [b]
        case ir.If(branches=branches, orelse=orelse):
            return [b for _, b in branches] + ([orelse] if orelse else [])
        case ir.Choose(options=options, body=body, orelse=orelse):
            return [o.body for o in options] + [b for b in (body, orelse) if b is not None]
    return []


def _writes(node, field: str, enclosing: tuple, out: list) -> None:
    """Every `set X.field ...` under `node`, with the loops around it (innermost last)."""
    if isinstance(node, ir.Set) and isinstance(node.target, ir.Attr) and node.target.name == field:
        out.append((node, enclosing))
    inner = enclosing + (node,) if isinstance(node, (ir.For, ir.Repeat, ir.While)) else enclosing
    for child in _stmts(node):
        _writes(child, field, inner, out)


def _every_player_once(spec: ir.Spec, coll: ir.Expr) -> bool:
    """`players`, an `order` of all players, or a def without parameters that is one."""
    defs = {d.name: d for d in spec.defs}
    match coll:
        case ir.AllPlayers():
            return True
        case ir.Ranking(kind="order", coll=ir.AllPlayers(), where=None):
            return True
        case ir.Call(func=f, args=()) if f in defs and not defs[f].params:
            return _every_player_once(spec, defs[f].body)
    return False


def _counter_loop(spec: ir.Spec, loop, field: str, write: ir.Set) -> bool:
    """`for q in <every player once> { set k += c  set q.field = k }` (c a positive number, in either
    order, nothing else in the body): each player gets a value larger than the one before."""
    if not isinstance(loop, ir.For) or loop.where is not None or not _every_player_once(spec, loop.coll):
        return False
    body = loop.body.stmts
    if len(body) != 2 or write not in body:
        return False
    step = body[0] if body[1] is write else body[1]
    match write, step:
        case (ir.Set(target=ir.Attr(obj=ir.Local(name=q)), op="=", value=ir.Local(name=k)),
              ir.Set(target=ir.Local(name=k2), op="+=", value=ir.Int(value=c))) \
                if q == loop.var and k == k2 and k != q and c > 0:
            return True
    return False


def rule_bodies(spec: ir.Spec) -> list:
    """The setup, the rounds' body, the scoring and every procedure's body, reached or not (a def is read where it is called)."""
    return [x for x in (spec.setup, spec.rounds.body if spec.rounds else None, spec.scoring) if x is not None] \
        + [p.body for p in spec.procedures]


def reached_nodes(spec: ir.Spec, nodes) -> list:
    """Every node these may run, through the defs and procedures they call."""
    bodies = {d.name: d.body for d in spec.defs} | {p.name: p.body for p in spec.procedures}
    todo = [n for x in nodes for n in ir.walk(x)]
    seen: set[str] = set()
    out = []
    while todo:
        n = todo.pop()
        out.append(n)
        name = n.func if isinstance(n, ir.Call) else n.proc if isinstance(n, ir.Do) else None
        if name in bodies and name not in seen:
            seen.add(name)
            todo.extend(ir.walk(bodies[name]))
    return out


def may_read(spec: ir.Spec, nodes, field: str) -> bool:
    """Whether running these may read the field (a write's target is no read)."""
    targets = {id(n.target) for n in reached_nodes(spec, nodes) if isinstance(n, ir.Set)}
    return any(isinstance(n, ir.Attr) and n.name == field and id(n) not in targets for n in reached_nodes(spec, nodes))


def _ends(spec: ir.Spec, nodes) -> bool:
    return any(isinstance(n, _ENDS) for n in reached_nodes(spec, nodes))


def _established(spec: ir.Spec, stmts, field: str, loops: set[int], bodies: dict) -> bool | None:
    """Along statements run in order: True when one of the loops surely runs before anything
    reads the field (or could end the game), False when something may read it (or end the game)
    first, None when neither (the statements read nothing of it and run no loop for sure)."""
    for st in stmts:
        if id(st) in loops:
            return True
        if isinstance(st, ir.Phase):
            inner = _established(spec, st.body.stmts, field, loops, bodies)
        elif isinstance(st, ir.Do) and st.proc in bodies and not st.args:
            inner = _established(spec, bodies[st.proc].stmts, field, loops, bodies)
        else:
            inner = False if may_read(spec, [st], field) or _ends(spec, [st]) else None
        if inner is not None:
            return inner
    return None


# ---- a fixed field of one player's own cards

def owned_card_field(spec: ir.Spec, ranking, owner: str | None) -> str | None:
    """A ranking of cards restricted to one player's own (`where c.owner == p`) by a fixed
    field of theirs (`c.value`) separates them when no two cards of one player's copy of
    the per-player card sets share that field, and `p` is surely a player (a player's own
    cards are then the only candidates; shared cards have no owner)."""
    var = ranking.var
    owned = next((x for c in conjuncts(ranking.where) if (x := _owner_test(c, var)) is not None), None)
    if owned is None or not _distinct_cards(spec, ranking.coll) or not _is_player(spec, owned, _params_env(spec, owner), set()):
        return None
    for k in ranking.keys:
        field = _card_field(spec, k.expr, var)
        if field is not None and _distinct_in_each_copy(spec, field):
            return (f"the candidates are one player's own cards, and no two cards of a player's copy of "
                    f"the per-player card sets share a {field}, which no rule changes")
    return None


def _distinct_cards(spec: ir.Spec, coll: ir.Expr) -> bool:
    """A collection that names no card twice: a zone, or a filter or order of one."""
    defs = {d.name: d for d in spec.defs}
    zones = {z.name for z in spec.zones}
    match coll:
        case ir.SharedZone():
            return True
        case ir.Attr(name=name) if name in zones:
            return True
        case ir.ListComp(coll=c, value=None) | ir.Ranking(coll=c):
            return _distinct_cards(spec, c)
        case ir.Call(func=f) if f in defs:
            return _distinct_cards(spec, defs[f].body)
    return False


def _owner_test(e: ir.Expr, var: str) -> ir.Expr | None:
    """X in `c.owner == X` (either way round), X not reading c."""
    if not (isinstance(e, ir.BinOp) and e.op == "=="):
        return None
    for a, b in ((e.left, e.right), (e.right, e.left)):
        if isinstance(a, ir.Attr) and a.name == "owner" and isinstance(a.obj, ir.Local) and a.obj.name == var \
                and not any(isinstance(n, ir.Local) and n.name == var for n in ir.walk(b)):
            return b
    return None


def _card_field(spec: ir.Spec, key: ir.Expr, var: str) -> str | None:
    """The name of a card field the key reads of the candidate, if a fixed one (no rule sets it)."""
    match key:
        case ir.Attr(obj=ir.Local(name=v), name=name) if v == var:
            fields = [f for c in spec.components for f in c.fields if f.name == name]
            written = any(isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name == name
                          for r in rule_bodies(spec) for n in ir.walk(r))
            if fields and not any(f.is_state for f in fields) and not written:
                return name
    return None


def _distinct_in_each_copy(spec: ir.Spec, field: str) -> bool:
    """Every card of the per-player sets has the field, written as a number, and no two share it
    (rows that exist only under some reading of an assumption count too: never fewer cards)."""
    values = []
    sets = [cs for cs in spec.card_sets if cs.per_player]
    for cs in sets:
        comp = spec.component(cs.kind)
        if comp is None or not any(f.name == field for f in comp.fields):
            return False
        default = next(f.default for f in comp.fields if f.name == field)
        for row in cs.rows:
            v = dict(row.fixed).get(field, default)
            if row.each or not isinstance(v, ir.Int):
                return False  # several cards from one row, or a value not written out
            values += [v.value] * row.count
    return bool(values) and len(values) == len(set(values))


def _params_env(spec: ir.Spec, owner: str | None) -> dict:
    proc = next((p for p in spec.procedures if p.name == owner), None)
    return {x: ("param", owner, i) for i, x in enumerate(proc.params)} if proc is not None else {}


def _player_coll(spec: ir.Spec, coll: ir.Expr) -> bool:
    """Whether every element of the collection is a player."""
    defs = {d.name: d for d in spec.defs}
    match coll:
        case ir.AllPlayers() | ir.PlayersFrom():
            return True
        case ir.Ranking(coll=c) | ir.ListComp(coll=c, value=None):
            return _player_coll(spec, c)
        case ir.Call(func=f) if f in defs:
            return _player_coll(spec, defs[f].body)
    return False


def _is_player(spec: ir.Spec, e: ir.Expr, env: dict, seen: set) -> bool:
    """Whether the expression is surely a player: a loop variable over players, or a procedure's
    parameter that every call in the rules passes a player (examples are no play)."""
    if not isinstance(e, ir.Local) or e.name not in env:
        return False
    b = env[e.name]
    if b[0] == "for":
        return _player_coll(spec, b[1])
    if b[0] == "param":
        _, proc, i = b
        if proc in seen:
            return False
        return all(len(d.args) > i and _is_player(spec, d.args[i], denv, seen | {proc})
                   for d, denv in _calls(spec) if d.proc == proc)
    return False


def _calls(spec: ir.Spec):
    """Every `do` in the rules with the bindings of the names around it."""
    roots = [(None, x) for x in (spec.setup, spec.rounds.body if spec.rounds else None, spec.scoring) if x]
    roots += [(p.name, p.body) for p in spec.procedures]
    for owner, root in roots:
        yield from _walk_env(root, _params_env(spec, owner))


def _walk_env(node, env: dict):
    if isinstance(node, ir.Do):
        yield node, env
    if isinstance(node, ir.Block):
        env = dict(env)
        for st in node.stmts:
            if isinstance(st, ir.Let):
                env[st.name] = ("other",)
            yield from _walk_env(st, env)
        return
    if isinstance(node, ir.For):
        yield from _walk_env(node.body, env | {node.var: ("for", node.coll)})
        return
    if isinstance(node, (ir.Choose, ir.Pick)) and node.var is not None:
        env = env | {node.var: ("other",)}
    for child in _stmts(node):
        yield from _walk_env(child, env)


# ---- a winner line among the players who reached a count that wins at once

# where a zone may stand without handing the zone itself on (a count of it, its cards, moving out of it)
_READS = {("Call", "args"), ("Agg", "coll"), ("ListComp", "coll"), ("Ranking", "coll"), ("For", "coll"),
          ("Choose", "source"), ("Pick", "source"), ("Move", "what"), ("Draw", "source"), ("BinOp", "left"),
          ("BinOp", "right"), ("Shuffle", "zone"), ("Look", "what"), ("Flip", "what")}
# statements that may stand between a move into the zone and the test of its count: they move no
# card, bind no name, cannot end the game and ask no decision (so no game pauses or stops between)
_BETWEEN = (ir.Award, ir.Give, ir.Return, ir.Say)


def no_candidate_winner(spec: ir.Spec, w: ir.Winner) -> str | None:
    """`winner among p in players where count(p.Z) >= T ...` has no candidate at all when every
    rule that puts cards into a player's Z is followed at once by `if count(X.Z) >= K { win X }`
    (K <= T) and Z starts empty: an immediate win ends the game without the winner line, so
    whenever the line is read, no player holds K cards in Z."""
    zone, t = next(((z, k) for c in conjuncts(w.where) if (zk := _count_at_least(c, w.var)) is not None
                    for z, k in [zk]), (None, None))
    if zone is None or not any(z.name == zone and z.per_player for z in spec.zones):
        return None
    if any(cs.zone == zone for cs in spec.card_sets):
        return None  # cards that start there
    defs = {d.name for d in spec.defs}
    roots = [x for x in (spec.setup, spec.rounds, spec.scoring) if x is not None]
    roots += list(spec.procedures) + list(spec.defs) + [q.expr for q in spec.questions]
    inserts = []
    for root in roots:
        for parent in ir.walk(root):
            for f in attrs.fields(type(parent)):
                value = getattr(parent, f.name)
                for child in (value if isinstance(value, tuple) else (value,)):
                    if not (isinstance(child, ir.Attr) and child.name == zone):
                        continue
                    role = (type(parent).__name__, f.name)
                    if role in (("Move", "dest"), ("Draw", "dest")):
                        inserts.append(parent)
                    elif role not in _READS or (role[0] == "Call" and parent.func in defs):
                        return None  # the zone handed on (to a def, a name, another statement)
    # a destination that is no zone named outright may be the zone itself (`c.zone`, a parameter)
    zones = {z.name for z in spec.zones}
    for root in roots:
        for n in ir.walk(root):
            if isinstance(n, (ir.Move, ir.Draw)) and not _plain_zone(spec, n.dest, zones, zone):
                return None
    blocks = [n for root in roots for n in ir.walk(root) if isinstance(n, ir.Block)]
    for ins in inserts:
        if not any(_checked(b, ins, zone, t) for b in blocks):
            return None
    return (f"every move into a player's '{zone}' is followed at once by an immediate win at "
            f"{t} or fewer cards there, and '{zone}' starts empty: when the winner line is read, no "
            f"player has {t} cards there, so it has no candidate to separate")


def _plain_zone(spec: ir.Spec, dest: ir.Expr, zones: set, zone: str) -> bool:
    """A zone named outright (`p.hand`, `deck`), or a procedure's parameter that every call
    passes such a zone other than `zone`."""
    match dest:
        case ir.SharedZone():
            return True
        case ir.Attr(name=name) if name in zones:
            return True
        case ir.Local(name=name):
            procs = [p for p in spec.procedures if name in p.params and
                     any(n is dest for n in ir.walk(p.body))]
            if len(procs) != 1:
                return False
            i = procs[0].params.index(name)
            for d, _ in _calls(spec):
                if d.proc == procs[0].name:
                    a = d.args[i] if len(d.args) > i else None
                    if not (isinstance(a, ir.SharedZone) or (isinstance(a, ir.Attr) and a.name in zones
                                                             and a.name != zone)):
                        return False
            return True
    return False


def _count_at_least(e: ir.Expr, var: str) -> tuple[str, int] | None:
    """(Z, T) for `count(var.Z) >= T` (or `> T - 1`)."""
    match e:
        case ir.BinOp(op=">=" | ">" as op, left=ir.Call(func="count", args=(ir.Attr(obj=ir.Local(name=v), name=z),)),
                      right=ir.Int(value=k)) if v == var:
            return z, k + (1 if op == ">" else 0)
    return None


def _checked(block: ir.Block, ins, zone: str, t: int) -> bool:
    """Whether `ins` (a move into X.zone) stands in this block followed, past statements of _BETWEEN
    only, by `if count(X.zone) >= K { ... win X ... }` with K <= t and no other branch."""
    stmts = list(block.stmts)
    if not any(s is ins for s in stmts):
        return False
    x = ins.dest.obj
    if not isinstance(x, ir.Local):
        return False  # an expression the statements between could make name another player
    for st in stmts[next(i for i, s in enumerate(stmts) if s is ins) + 1:]:
        if isinstance(st, _BETWEEN):
            continue
        if isinstance(st, ir.If) and len(st.branches) == 1 and st.orelse is None:
            test, body = st.branches[0]
            zk = None
            match test:
                case ir.BinOp(op=">=" | ">" as op, left=ir.Call(func="count", args=(ir.Attr(obj=o, name=z),)),
                              right=ir.Int(value=k)) if o == x and z == zone:
                    zk = k + (1 if op == ">" else 0)
            return zk is not None and zk <= t and any(isinstance(s, ir.Win) and s.player == x for s in body.stmts)
        return False
    return False
