"""Static facts about a spec, read off its IR with the shared child walk."""

from __future__ import annotations

from . import ir


def _uses(node: ir.Node, seats: "SeatGuards | None" = None) -> tuple[set[str], set[str], set[str]]:
    """(parameters read, defs called, procedures run) anywhere under `node`;
    with `seats`, not under a branch no seat at that player count can take."""
    params, defs, procs = set(), set(), set()
    for n in (ir.walk(node) if seats is None else seats.live_nodes(node)):
        match n:
            case ir.Param(name=name):
                params.add(name)
            case ir.Call(func=func):
                defs.add(func)
            case ir.Do(proc=proc):
                procs.add(proc)
    return params, defs, procs


PLAY = ["setup", "rounds", "scoring"]


def declaration_exprs(spec: ir.Spec):
    """The expressions of declarations that the engine reads as it plays, with
    the parts of the game they can affect: (what, expression, affects)."""
    for z in spec.zones:
        if z.capacity is not None:
            yield f"zone {z.name}", z.capacity, PLAY
    for v in spec.vars:
        if v.default is not None:
            yield f"variable {v.name}", v.default, PLAY
    for c in spec.components:
        for f in c.fields:
            if f.default is not None:
                yield f"field {c.name}.{f.name}", f.default, PLAY
    for cs in spec.card_sets:
        for row in cs.rows:
            for name, e in row.fixed:
                yield f"cards {cs.kind}", e, PLAY


def reachable(spec: ir.Spec) -> tuple[set[str], set[str]]:
    """The defs and procedures that can run: those the game's sections, its
    declarations and the designer's questions call, directly or through others
    (a procedure that only calls itself is not reached)."""
    defs = {d.name: d.body for d in spec.defs}
    procs = {p.name: p.body for p in spec.procedures}
    roots = [x for x in (spec.setup, spec.rounds, spec.scoring, spec.winner) if x is not None]
    roots += [t.supply for t in spec.tokens] + [e for _, e, _ in declaration_exprs(spec)]
    roots += [q.expr for q in spec.questions]
    seen_defs, seen_procs = set(), set()
    todo = list(roots)
    while todo:
        _, called_defs, run_procs = _uses(todo.pop())
        for d in called_defs - seen_defs:
            if d in defs:
                seen_defs.add(d)
                todo.append(defs[d])
        for p in run_procs - seen_procs:
            if p in procs:
                seen_procs.add(p)
                todo.append(procs[p])
    return seen_defs, seen_procs


def examples_only_defs(spec: ir.Spec, used_by_game: set[str]) -> set[str]:
    """The defs the worked examples call (directly or through other defs) that the game never reaches."""
    bodies = {d.name: d.body for d in spec.defs}
    seen: set[str] = set()
    todo = [n.func for ex in spec.examples for n in ir.walk(ex) if isinstance(n, ir.Call)]
    while todo:
        name = todo.pop()
        if name in bodies and name not in seen:
            seen.add(name)
            todo.extend(n.func for n in ir.walk(bodies[name]) if isinstance(n, ir.Call))
    return seen - used_by_game


def parameter_uses(spec: ir.Spec, players: int | None = None) -> dict[str, dict]:
    """For every ruling, assumption and option: the defs and procedures that
    read it directly, and the parts of the game (setup, rounds, scoring,
    winner, a token) whose results can depend on it.  With `players`, a read
    under a branch that no seat can take at that count (`p.seat == 4` at 3
    players) is not a read: the game never gets there."""
    seats = SeatGuards(spec, players) if players is not None else None
    units: dict[str, ir.Node] = {}
    for d in spec.defs:
        units[f"def {d.name}"] = d.body
    for p in spec.procedures:
        units[f"procedure {p.name}"] = p.body
    sections: dict[str, ir.Node] = {}
    for name in ("setup", "rounds", "scoring", "winner"):
        node = getattr(spec, name)
        if node is not None:
            sections[name] = node
    facts = {k: _uses(v, seats) for k, v in {**units, **sections}.items()}

    def reach(unit: str, seen: set[str]) -> set[str]:
        """Every parameter a unit reads, itself or through what it calls."""
        if unit in seen or unit not in facts:
            return set()
        seen.add(unit)
        params, defs, procs = facts[unit]
        out = set(params)
        for d in defs:
            out |= reach(f"def {d}", seen)
        for p in procs:
            out |= reach(f"procedure {p}", seen)
        return out

    result: dict[str, dict] = {}
    names = [r.name for r in spec.rulings] + [a.name for a in spec.assumptions] + [o.name for o in spec.options]
    for name in names:
        result[name] = {"read_by": [], "affects": []}
    for unit in units:
        for name in facts[unit][0]:
            if name in result:
                result[name]["read_by"].append(unit)
    for sec in sections:
        for name in reach(sec, set()):
            if name in result:
                result[name]["affects"].append(sec)
        for name in facts[sec][0]:
            if name in result:
                result[name]["read_by"].append(sec)
    for t in spec.tokens:
        # the supply's size is an expression, worked out at the start: it may read a parameter
        facts[f"token {t.name}"] = _uses(t.supply)
        for name in reach(f"token {t.name}", set()):
            if name in result:
                result[name]["read_by"].append(f"token {t.name}")
                result[name]["affects"].append(f"token {t.name}")
        if t.short_ruling in result:
            result[t.short_ruling]["read_by"].append(f"token {t.name}")
            result[t.short_ruling]["affects"].append(f"token {t.name}")
    for what, expr, affects in declaration_exprs(spec):
        # a declaration's expression (a zone's capacity, a default) is read by the engine in play
        facts[what] = _uses(expr)
        for name in reach(what, set()):
            if name in result:
                result[name]["read_by"].append(what)
                result[name]["affects"].extend(affects)
    for cs in spec.card_sets:
        if cs.assumed in result:
            result[cs.assumed]["read_by"].append(f"cards {cs.kind}")
            result[cs.assumed]["affects"].append("setup")
    for v in result.values():
        v["read_by"] = sorted(set(v["read_by"]))
        v["affects"] = sorted(set(v["affects"]), key=["setup", "rounds", "scoring", "winner"].index
                              if all(a in ("setup", "rounds", "scoring", "winner") for a in v["affects"]) else str)
    return result


def summary(spec: ir.Spec) -> dict:
    n = spec.max_players
    cards = 0
    for cs in spec.card_sets:
        comp = spec.component(cs.kind)
        per = n if cs.per_player else 1
        table = next((a for a in spec.assumptions if a.name == cs.assumed), None)
        chosen = getattr(table.value, "name", None) if table is not None and table.value is not None else None
        for row in cs.rows:
            if row.when is not None and row.when != chosen:
                continue  # a row of another card table than the one the spec runs with
            combos = 1
            for f in row.each:
                fd = next((x for x in comp.fields if x.name == f), None) if comp else None
                if fd is not None:
                    combos *= _domain_size(spec, fd.domain)
            cards += row.count * combos * per
    return {
        "name": spec.name, "draft": spec.draft, "players": [spec.min_players, spec.max_players],
        "components": len(spec.components), "cards": cards, "zones": len(spec.zones), "tokens": len(spec.tokens),
        "score_items": [s.name for s in spec.scores], "procedures": len(spec.procedures), "defs": len(spec.defs),
        "examples": len(spec.examples), "assumptions": len(spec.assumptions), "open_rulings": len(spec.rulings),
        "options": [o.name for o in spec.options],
        "questions": [q.name for q in spec.questions],
    }


def _domain_size(spec: ir.Spec, d) -> int:
    match d:
        case ir.IntDomain(lo=lo, hi=hi):
            return hi - lo + 1
        case ir.BoolDomain():
            return 2
        case ir.EnumDomain(values=vals) if vals:
            return len(vals)
        case ir.EnumDomain(name=name):
            e = next((e for e in spec.enums if e.name == name), None)
            return len(e.values) if e else 1
    return 1


def rule_roots(spec: ir.Spec) -> list:
    """The roots of the rules the game can run (defs and procedures only if reached)."""
    defs, procs = reachable(spec)
    roots = [d.body for d in spec.defs if d.name in defs] + [p.body for p in spec.procedures if p.name in procs]
    roots += [x for x in (spec.setup, spec.rounds, spec.scoring, spec.winner) if x is not None]
    roots += [t.supply for t in spec.tokens] + [e for _, e, _ in declaration_exprs(spec)]
    return roots + [q.expr for q in spec.questions]  # a def or ruling a designer's question reads is not dead


def parent_blocks(roots) -> dict:
    """id(statement) -> (its block, its index there), for every statement under `roots`."""
    out = {}
    for root in roots:
        for n in ir.walk(root):
            if isinstance(n, ir.Block):
                for k, s in enumerate(n.stmts):
                    out[id(s)] = (n, k)
    return out


def conjuncts(e) -> list:
    """The parts of `a and b and ...` (none for no condition): what a test says, one fact at a time."""
    if e is None:
        return []
    if isinstance(e, ir.BinOp) and e.op == "and":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def counts_cards_of(e, coll) -> bool:
    """Whether `e` is the number of cards in `coll`: `count(coll)`, `size(coll)` or `count(x in coll)`."""
    match e:
        case ir.Call(func="count" | "size", args=(x,)):
            return x == coll
        case ir.Agg(func="count", coll=x, where=None):
            return x == coll
    return False


class SeatGuards:
    """Which branches of an expression a game at `players` players can take,
    judged on the seats alone.

    A `.seat` is a player's seat, 1..players, or nothing when the player is
    nothing (then `==` is false, `!=` true, and an order comparison stops the
    game): a branch whose conditions, seats aside unknown, are false for every
    such value of every seat they compare is never taken.  `player_count` is
    the count itself.  Only conditions within one expression count (an `if`
    expression's test, the left side of `and`/`or`): a statement's `if` may
    sit after a `set` that changes what its test read, so it is not used.
    Locals have one key per binding, so a test and the read below it name the
    same values.  Sound: a branch is called dead only when no assignment of the
    seats it compares can make its path true."""

    MAX_SEATS = 3  # distinct seat expressions on one path; more, and the path is taken as live

    def __init__(self, spec: ir.Spec, players: int):
        self.n = players
        names = {f.name for c in spec.components for f in c.fields} | {v.name for v in spec.vars}
        names |= {z.name for z in spec.zones} | {t.name for t in spec.tokens}
        # a card field or player variable called `seat` would make `.seat` something else
        self.usable = "seat" not in names

    def live_nodes(self, node: ir.Node):
        """`node` and every node below it that the game can reach at this count, depth first."""
        stack = [(node, ())]
        while stack:
            n, path = stack.pop()
            yield n
            below = list(self._children(n, path))
            stack.extend(reversed([(c, p) for c, p in below if p is path or not self._dead(p)]))

    def _children(self, n: ir.Node, path: tuple):
        match n:
            case ir.Cond(test=test, then=then, orelse=orelse):
                yield test, path
                yield then, path + ((test, True),)
                yield orelse, path + ((test, False),)
            case ir.BinOp(op="and" | "or", left=left, right=right):
                yield left, path
                yield right, path + ((left, n.op == "and"),)
            case ir.Stmt():
                for c in ir.children(n):  # a statement starts afresh: see the class note
                    yield c, ()
            case _:
                for c in ir.children(n):
                    yield c, path

    def _dead(self, path: tuple) -> bool:
        if not self.usable:
            return False
        keys: list = []
        for e, _ in path:
            for x in ir.walk(e):
                if isinstance(x, ir.Attr) and x.name == "seat" and x not in keys:
                    keys.append(x)
        if len(keys) > self.MAX_SEATS:
            return False
        import itertools
        for values in itertools.product(range(self.n + 1), repeat=len(keys)):  # 0: no player
            env = dict(zip(keys, values))
            if all(self._truth(e, env) in (want, None) for e, want in path):
                return False
        return True

    def _truth(self, e, env):
        """True, False, or None (unknown) under `env`."""
        match e:
            case ir.Bool(value=v):
                return v
            case ir.Not(operand=o):
                t = self._truth(o, env)
                return None if t is None else not t
            case ir.BinOp(op="and", left=l, right=r):
                a, b = self._truth(l, env), self._truth(r, env)
                return False if False in (a, b) else (True if a is True and b is True else None)
            case ir.BinOp(op="or", left=l, right=r):
                a, b = self._truth(l, env), self._truth(r, env)
                return True if True in (a, b) else (False if a is False and b is False else None)
            case ir.BinOp(op="==" | "!=" | "<" | "<=" | ">" | ">=", left=l, right=r):
                a, b = self._value(l, env), self._value(r, env)
                if a is None or b is None:
                    return None
                if 0 in (a, b) and (l in env or r in env):  # a seat of nothing
                    return {"==": False, "!=": True}.get(e.op)
                return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[e.op]
        return None

    def _value(self, e, env):
        match e:
            case ir.Int(value=v):
                return v
            case ir.Builtin(name="player_count"):
                return self.n
            case ir.Attr(name="seat") if e in env:
                return env[e]
        return None
