"""Pieces placed in one step of a round are distinct, and all still lie where they were placed when it ends.

Say a step of the rounds (a top-level statement of the round's body) runs `move d to p.Z`, d one card
that lies elsewhere than Z, and no rule of that step takes a card out of Z (every move, draw or
exchange that may take from Z lies in another step).  In one run of the step, then, the cards that
move puts into p.Z are distinct (a card put there stays there until the step ends) and all lie in
p.Z together when it ends: at most H of them, H the most cards one player's Z holds at once, each
one of the cards d can be (with each set dealt per player kept with its owner, one player's own).

What the statements after the move in its block do for player p (through the procedures they call)
is then a function of the card: w(c), the amounts of its awards (or raises of a counter) times the
passes of the loops between the move and them, each read with d as card c.  A choice of up to f(d)
items makes a loop over them f(c) passes; of a choice's options, one runs.  In one run of the step p
gets at most the best sum of w over H distinct cards, and in a game that times the step's runs.  Four
pieces placed a round on a spot of one's own, a piece of size k working up to r(k) times there: the
best four of one player's pieces, not four times the largest.

Bounds (verify/bounds.py) calls `groups` for an item's awards and verify/counters.py for a counter's
raises; each uses the groups' bound where it is lower than the sites' own."""

from __future__ import annotations

import attrs

from soan.dsl import ir
from soan.dsl.analysis import parent_blocks


@attrs.frozen
class Group:
    moves: tuple  # the placements' sites (every reading of a move into one zone in one step)
    sites: frozenset  # the gain sites in the statements after them
    most: int  # what those give one player in a whole game, at most
    per_step: int  # ... in one run of the step
    runs: int  # the step's runs in a game
    held: int  # the most pieces one player's zone holds at once


def groups(b, key, gain) -> list[Group]:
    """The placements whose following statements hold sites `gain(site)` says are gains (it gives
    (amount, player) or None), one group per zone and step, bounded as above; `key` names the kind
    of gain for the cache."""
    if not b._read_done:
        return []  # before every statement's firings are known
    memo = b.__dict__.setdefault("_placed_groups", {})
    if key not in memo:
        memo[key] = _groups(b, gain)
    return memo[key]


def _groups(b, gain) -> list[Group]:
    # (zone, step) -> [(the move's site, its gain sites, each card's worth, the groups of cards one player holds)]
    found: dict[tuple, list] = {}
    for i, m in enumerate(b.sites):
        placement = _placement(b, i, gain)
        if placement is not None:
            found.setdefault((m.node.dest.name, m.stage), []).append((i, *placement))
    out = []
    for (zone, stage), moves in found.items():
        # a card goes into the zone at most once a run of the step, by one of the moves: its worth
        # is the most any of them gives for it
        worth: dict[int, int] = {}
        owners: list = []
        for _, _, worths, own in moves:
            for c, w in worths.items():
                worth[c] = max(w, worth.get(c, 0))
            owners += own
        held = b._one_players(zone)
        per_step = max((_best([worth[c] for c in own if c in worth], held) for own in owners), default=0)
        runs = b.round_bound if stage[0] == "rounds" else 1
        out.append(Group(tuple(i for i, *_ in moves), frozenset().union(*(g for _, g, _, _ in moves)),
                         runs * per_step, per_step, runs, held))
    return out


def _placement(b, i: int, gain) -> tuple | None:
    """Site i when it is such a placement with gains after it: (those gain sites, each card's worth,
    the groups of cards one player's zone can hold); else None."""
    sites = b.sites
    m = sites[i]
    node = m.node
    if not (isinstance(node, ir.Move) and isinstance(node.what, ir.Local) and isinstance(node.dest, ir.Attr)
            and isinstance(node.dest.obj, ir.Local) and node.dest.name in b._per_player_zones):
        return None
    zone, dname, pname = node.dest.name, node.what.name, node.dest.obj.name
    v = m.env.get(dname)
    parents = _parents(b)
    if (v is None or not v.one or v.zc is None or zone in v.zc[0] or m.stage is None or m.firings is None
            or id(node) not in parents):
        return None
    runs = b.round_bound if m.stage[0] == "rounds" else 1
    if runs is None or not _kept(b, zone, m.stage):
        return None
    block, k = parents[id(node)]
    tail = block.stmts[k + 1:]
    if any(dname in _bound_names(st) or pname in _bound_names(st) for st in tail):
        return None
    # the sites of those statements, read right after the move
    end = m.end
    for st in tail:
        if end is None or end >= len(sites) or sites[end].node is not st:
            return None
        end = sites[end].end
    if end is None:
        return None
    gains = frozenset(x for x in range(m.end, end) if gain(sites[x]) is not None)
    if not gains:
        return None
    cards, owners = _candidates(b, zone, v.zc[1])
    worths = {}
    for c in cards:
        w = _worth(b, gain, m.end, end, {dname}, {pname}, {}, c)
        if w is None:
            return None
        worths[c] = w
    return gains, worths, owners


def _candidates(b, zone: str, cards) -> tuple[list, list]:
    """The cards d can be that can lie in `zone`, and the groups of them one player's zone can hold:
    with each set dealt per player kept with its owner, a player's own and the unowned ones."""
    from .termination import _owners_kept  # it imports bounds, which imports this module

    t = b.t
    there = set(b.flow.cards_in(zone))
    out = [c for c in cards if c in there]
    if not _owners_kept(b):
        return out, [out]
    owners = sorted({t.owner[c].i for c in out if t.owner[c] is not None})
    return out, [[c for c in out if t.owner[c] is None or t.owner[c].i == o] for o in owners] or [out]


def _best(worths: list, held: int) -> int:
    """The largest sum of at most `held` of the worths (each at least 0)."""
    return sum(sorted((max(0, w) for w in worths), reverse=True)[:held])


def _kept(b, zone: str, stage) -> bool:
    """Whether no move, draw or exchange of that step of the game may take a card from `zone`."""
    for s in b.sites:
        if isinstance(s.node, (ir.Move, ir.Draw, ir.Exchange)):
            src = b._taken_from(s)
            if src is None or (zone in src and (s.stage is None or s.stage == stage)):
                return False
    return True


def _parents(b) -> dict:
    """Statement id -> (the block it lies in, its index there), over the whole spec (worked out once per Bounds)."""
    memo = b.__dict__.get("_placed_parents")
    if memo is None:
        memo = b.__dict__["_placed_parents"] = parent_blocks(b._roots())
    return memo


def _bound_names(st) -> set[str]:
    """The locals a statement binds anew, anywhere inside it (not in the procedures it calls)."""
    from .bounds import _binds  # it imports this module

    return {k for n in ir.walk(st) if isinstance(n, ir.Stmt) for k in _binds(n)}


def _as_card(env: dict, names: set, c: int) -> dict:
    """`env` with each local in `names` read as the one card c."""
    out = dict(env)
    for name in names:
        v = env.get(name)
        if v is None or v.zc is None:
            return None
        out[name] = attrs.evolve(v, one=True, zc=(v.zc[0], (c,)))
    return out


def _worth(b, gain, a: int, end: int, dnames: set, pnames: set, sizes: dict, c: int) -> int | None:
    """What one run of the sites from `a` to `end` (statements read in a row) can give player
    `pnames` at most, the placed card (`dnames`) being c; `sizes`: lists chosen on the way -> the
    most items each holds.  None: not known."""
    sites = b.sites
    total, j = 0, a
    while j < end:
        s = sites[j]
        stop = s.end
        if stop is None or s.firings is None:
            return None
        env = _as_card(s.env, dnames & set(s.env), c)
        if env is None:
            return None
        g = gain(s)
        if g is not None:
            amount, who = g
            if not (isinstance(who, ir.Local) and who.name in pnames):
                return None
            with b.reading_in(env):
                iv = b.interval(amount)
            low = b.value_at(s, amount)
            if iv is None or low is None or low[0] < 0:
                return None
            total += max(0, iv[1])
        elif stop > j + 1:
            w = _inner(b, gain, j, env, dnames, pnames, sizes, c)
            if w is None:
                return None
            total += w
        j = stop
    return total


def passed_names(b, proc: str, args, names: set) -> set:
    """The parameters of procedure `proc` that a call with `args` binds to one of the locals `names`
    (and that its body never binds anew)."""
    from .bounds import _rebound  # it imports this module

    p = b._procs[proc]
    rebound = _rebound(p.body)
    return {x for x, arg in zip(p.params, args) if isinstance(arg, ir.Local) and arg.name in names and x not in rebound}


def _inner(b, gain, j: int, env: dict, dnames: set, pnames: set, sizes: dict, c: int) -> int | None:
    """What one run of the statement at site `j` can give through the sites read inside it (`env`:
    its locals, the placed card read as c)."""
    s = b.sites[j]
    node, stop = s.node, s.end
    match node:
        case ir.Do(proc=proc, args=args):
            return _worth(b, gain, j + 1, stop, passed_names(b, proc, args, dnames),
                          passed_names(b, proc, args, pnames), {}, c)
        case ir.Choose(options=options) if options:
            if not s.options:
                return None
            alts = [_worth(b, gain, x, y, dnames, pnames, sizes, c) for x, y in s.options]
            inside = set().union(*(range(x, y) for x, y in s.options))
            rest = [x for x in range(j + 1, stop) if x not in inside]  # an `orelse`: another alternative
            if rest:
                alts.append(_worth(b, gain, rest[0], rest[-1] + 1, dnames, pnames, sizes, c)
                            if rest == list(range(rest[0], rest[-1] + 1)) else None)
            return None if any(w is None for w in alts) else max(alts, default=0)
        case ir.Choose(var=var, count_kind=kind, source=src) if var is not None:
            inner = dict(sizes)
            if kind is not None and not any(var in _bound_names(st) for st in node.body.stmts):
                with b.reading_in(env):
                    hi, most = b.int_max(node.count_hi), b.size(src)
                inner[var] = most if hi is None else hi if most is None else min(hi, most)
            else:
                inner.pop(var, None)
            return _worth(b, gain, j + 1, stop, dnames - {var}, pnames - {var}, inner, c)
        case ir.For(var=var, coll=coll):
            if isinstance(coll, ir.Local) and coll.name in sizes:
                k = sizes[coll.name]
            else:
                with b.reading_in(env):
                    k = b.size(coll)
            w = _worth(b, gain, j + 1, stop, dnames - {var}, pnames - {var}, sizes, c)
            return None if k is None or w is None else max(0, k) * w
        case ir.Repeat(count=count):
            with b.reading_in(env):
                k = b.int_max(count)
            w = _worth(b, gain, j + 1, stop, dnames, pnames, sizes, c)
            return None if k is None or w is None else max(0, k) * w
        case ir.While(limit=limit):
            with b.reading_in(env):
                k = None if limit is None else b.int_max(limit)
            if node.span.site in b._passes:
                k = b._passes[node.span.site] if k is None else min(k, b._passes[node.span.site])
            w = _worth(b, gain, j + 1, stop, dnames, pnames, sizes, c)
            return None if k is None or w is None else max(0, k) * w
        case ir.Pick(var=var):
            return _worth(b, gain, j + 1, stop, dnames - {var}, pnames - {var}, sizes, c)
        case ir.If() | ir.Phase():
            # the branches of an `if` read one after another: their sum is at least the one taken
            return _worth(b, gain, j + 1, stop, dnames, pnames, sizes, c)
    return None



def item_terms(b, item: str, terms: list) -> tuple[frozenset, tuple, list]:
    """For the award sites of `item` (`terms`: their solver terms, in the order of the sites): the
    positions that placements bound lower than their own terms do, one term per group of
    placements, and those groups."""
    awards = [i for i, s in enumerate(b.sites) if isinstance(s.node, ir.Award) and s.node.item == item]
    if len(awards) != len(terms):
        return frozenset(), (), []
    position = {i: k for k, i in enumerate(awards)}

    def gain(s):
        n = s.node
        return (n.amount, n.player) if isinstance(n, ir.Award) and n.item == item else None

    def own(ks):
        if any(terms[k][2] is None or terms[k][3] is None for k in ks):
            return None
        return sum(max(0, terms[k][2]) * terms[k][3] for k in ks)

    skip, extra, used = set(), [], []
    for g in groups(b, ("award", item), gain):
        ks = {position[i] for i in g.sites}
        was = own(ks)
        if ks & skip or (was is not None and g.most >= was):
            continue
        skip |= ks
        extra.append((f"line {b.sites[g.moves[0]].node.span.line}", 0, g.per_step, g.runs))
        used.append(g)
    return frozenset(skip), tuple(extra), used


def described(b, g: Group) -> str:
    """A group of placements, in the designer's terms (for what keeps an item loose)."""
    return (f"line {b.sites[g.moves[0]].node.span.line} places a piece, and the work after it gives up to "
            f"{g.per_step} a round for one player (the best {g.held} pieces, none twice a round), "
            f"{g.runs} round{'s' if g.runs != 1 else ''}")


def counter_most(b, name: str) -> tuple[frozenset, int] | None:
    """For the raises `set p.name += k` of a counter: the sites that placements bound lower than
    their steps times their firings do, and what those placements add at most; None: none."""
    def gain(s):
        n = s.node
        if isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name == name and n.op == "+=":
            return n.value, n.target.obj
        return None

    skip, most = set(), 0
    for g in groups(b, ("counter", name), gain):
        steps = [(b.value_at(b.sites[i], b.sites[i].node.value), b.sites[i].per_player) for i in g.sites]
        was = None if any(st is None or k is None for st, k in steps) else sum(max(0, st[1]) * k for st, k in steps)
        if g.sites & skip or (was is not None and g.most >= was):
            continue
        skip |= g.sites
        most += g.most
    return (frozenset(skip), most) if skip else None
