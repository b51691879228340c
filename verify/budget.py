"""A player's pieces are shared among the places they go: a piece placed at one place is not at another.

Say a step of the rounds (a top-level statement of the round's body) runs `choose d from p.H { ... move
d to X ... }`, the move reached from the choice through options, `if`s and phases only (no loop
between), d one card lying in H when it moves and X not H, and no move or draw of that step may put a
card into H (an exchange changes no zone's count).  Then every firing of such a move takes one card
out of p.H, and nothing brings one back in that step: in one run of the step such moves fire for p at
most as often as p.H holds cards when it starts, at most h (the most p.H holds at once), all of them
together; in a game, h times the step's runs.  Those are the *placements*, one share x_m of that
budget for each move m.

What the statements after a move in its block give p (through the procedures they call; read as in
verify/placed.py, the amount times the passes of the loops on the way, the most over the cards d can
be) is at most W_m for each firing, so at most W_m x_m in a game, and no more than those gain sites
give by their own firing counts.  A quantity read at scoring is then bounded for each sharing x of
the budget:

- a player's counter (verify/counters.py, raised only): its start, plus every raise outside such a
  statement by its own count, plus for each move min(W_m x_m, what its raises give by their counts);
- the count of a player's zone Z: the cards it starts with, plus every move or draw into Z (one
  player's, or any zone of unknown player by its firings) outside such a statement by its own count,
  plus for each move min(W_m x_m, ...) likewise (exchanges change no count);
- a filter of the player's Z cut to another group of Z at scoring (verify/trimmed.py): at most half
  the zone's count;
- how many cards of the player's Z have a yes/no state f true (verify/rare_states.py): the cards it
  starts true on, plus every `set c.f = ...` that may make it true by its firings in the whole game
  (every player's), except that one in a placement's statements setting the card a choice of one card
  took from the placer's own Z counts for the placer only, as their share allows, when no card ever goes
  from one player's Z to another's (no move, draw or exchange of the setup or the rounds takes from Z,
  no exchange touches it, nothing in the scoring puts a card into it): a card marked in p.Z is p's
  at the scoring, and so is its mark.  A sum over Z (or a filter of it) whose value reads f is then at
  most its best n cards, at most k of them at their value with f true, n and k those two counts.

Each is also no more than its bound read alone.  An award's amount reading them (`count(kept(p)) *
(2 + p.tokens)`) is read by interval arithmetic over those quantities, every other part at its
own bound, for every sharing of the budget between the moves it reads (at most MAX_SHARES of them,
work, not time), and its largest value is the amount's bound where lower than the interval's: cards
taken at one place times tokens gained at another, both from one player's four pieces a round, not
each from all of them.

A placement's statements are read as alternatives where one of several things runs (the options of
a choice, the branches of an `if`, the body of a choice of one card for each class of cards printed
alike): a vector of what each quantity gets, one of them per firing, each alternative a share of the
budget of its own.  A place that gives a card or a token gives one of them each time, not both."""

from __future__ import annotations

import itertools

from soan.dsl import ir

from . import card_sums, hand_left, placed, rare_states, trimmed
from .matched_sums import INLINE_DEPTH, _expand

# The most ways of sharing the placements between the moves an amount reads that are tried.
MAX_SHARES = 50_000


def _placing(b) -> dict[int, tuple]:
    """id(move) -> (the piece's local, the player's local, the hand zone) for every `move d to X` that
    a `choose d from p.H` reaches through options, ifs and phases only, d and p bound anew nowhere in
    the choice."""
    memo = b.__dict__.get("_budget_placing")
    if memo is not None:
        return memo
    out: dict[int, tuple] = {}

    def moves(block, d):
        for st in block.stmts:
            match st:
                case ir.Move(what=ir.Local(name=name)) if name == d:
                    yield st
                case ir.If(branches=branches, orelse=orelse):
                    for _, blk in branches:
                        yield from moves(blk, d)
                    if orelse is not None:
                        yield from moves(orelse, d)
                case ir.Choose(var=None, options=options, body=body, orelse=orelse):
                    for o in options:
                        yield from moves(o.body, d)
                    for blk in (body, orelse):
                        if blk is not None:
                            yield from moves(blk, d)
                case ir.Phase(body=body):
                    yield from moves(body, d)

    for root in b._roots():
        for n in ir.walk(root):
            if not (isinstance(n, ir.Choose) and n.var is not None and n.count_kind is None and n.body is not None
                    and isinstance(n.source, ir.Attr) and isinstance(n.source.obj, ir.Local)
                    and n.source.name in b._per_player_zones):
                continue
            d, p, hand = n.var, n.source.obj.name, n.source.name
            bound = set().union(*(placed._bound_names(st) for st in n.body.stmts))
            if d in bound or p in bound:
                continue
            for m in moves(n.body, d):
                out[id(m)] = (d, p, hand)
    b.__dict__["_budget_placing"] = out
    return out


def placements(b) -> dict:
    """(hand zone, step) -> (the budget of one player's placements in a game, [(site, piece, player,
    its firings for one player or None)]), for the steps where nothing puts a card into the hand."""
    memo = b.__dict__.get("_budget_groups")
    if memo is not None:
        return memo
    found: dict[tuple, list] = {}
    if b._read_done and b.round_bound is not None:
        placing = _placing(b)
        for i, s in enumerate(b.sites):
            what = placing.get(id(s.node))
            if what is None or s.stage is None or s.stage[0] != "rounds" or s.firings is None:
                continue
            d, p, hand = what
            v = s.env.get(d)
            if v is None or not v.one or v.zc is None or set(v.zc[0]) != {hand}:
                continue
            with b.reading_in(s.env):
                zones, _ = b._filled(s.node.dest)
            if zones is None or hand in zones:
                continue
            found.setdefault((hand, s.stage), []).append((i, d, p, b.times_for_one_player(s)))
    out = {}
    for (hand, stage), moves in found.items():
        if not _kept_out(b, hand, stage):
            continue
        out[(hand, stage)] = (b._one_players(hand) * b.round_bound, moves)
    b.__dict__["_budget_groups"] = out
    return out


def _kept_out(b, hand: str, stage) -> bool:
    """Whether no move or draw of that step of the rounds may put a card into `hand`."""
    for s in b.sites:
        if isinstance(s.node, (ir.Move, ir.Draw)) and (s.stage is None or s.stage == stage):
            with b.reading_in(s.env):
                zones, _ = b._filled(s.node.dest)
            if zones is None or hand in zones:
                return False
    return True


def _tail(b, i: int, d: str, p: str) -> tuple[int, int] | None:
    """The sites of the statements after the move at site i in its block: (first, end)."""
    sites = b.sites
    m = sites[i]
    parents = placed._parents(b)
    if id(m.node) not in parents or m.end is None:
        return None
    block, k = parents[id(m.node)]
    tail = block.stmts[k + 1:]
    if any(d in placed._bound_names(st) or p in placed._bound_names(st) for st in tail):
        return None
    end = m.end
    for st in tail:
        if end is None or end >= len(sites) or sites[end].node is not st:
            return None
        end = sites[end].end
    return None if end is None else (m.end, end)


# ---- quantities: what a gain site is, and what it gives by its own firing count


def _counter_gain(name: str):
    def gain(s):
        n = s.node
        if isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name == name and n.op == "+=":
            return n.value, n.target.obj
        return None
    return gain


def _zone_gain(b, zone: str):
    def gain(s):
        n = s.node
        if isinstance(n, (ir.Move, ir.Draw)) and isinstance(n.dest, ir.Attr) and n.dest.name == zone:
            if isinstance(n, ir.Draw):
                return n.count, n.dest.obj
            v = s.env.get(n.what.name) if isinstance(n.what, ir.Local) else None
            return (ir.Int(1) if v is not None and v.one else ir.Call("count", (n.what,))), n.dest.obj
        return None
    return gain


def _counter_sites(b, name: str) -> list | None:
    """[(site, what it adds by its own count)] for every raise of the counter; None: not a counter."""
    from .counters import counter_interval  # it imports placed, which this module imports

    if counter_interval(b, name) is None:
        return None
    out = []
    for i, s in enumerate(b.sites):
        n = s.node
        if isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name == name:
            step = b.value_at(s, n.value)
            if n.op != "+=" or step is None or step[0] < 0 or s.per_player is None:
                return None
            out.append((i, step[1] * s.per_player))
    return out


def _zone_sites(b, zone: str) -> list | None:
    """[(site, the most cards it puts into one player's `zone` in a game)] for every move or draw that
    may put cards there; None: one that may and is not bounded."""
    out = []
    for i, s in enumerate(b.sites):
        n = s.node
        if not isinstance(n, (ir.Move, ir.Draw)):
            continue
        with b.reading_in(s.env):
            zones, own = b._filled(n.dest)
            each = b.carried(n)
        if zones is None:
            return None
        if zone not in zones:
            continue
        times = b.times_for_one_player(s) if own else s.firings
        if times is None or each is None:
            return None
        out.append((i, max(0, times) * max(0, each)))
    return out


def _makes_true(n, field: str) -> bool:
    """Whether the statement is a `set x.field = ...` that may make the yes/no state true."""
    return isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name == field \
        and not (n.op == "=" and n.value == ir.Bool(False))


def _flag_sites(b, field: str) -> list | None:
    """[(site, its firings in a whole game, for every player)] for every `set` that may make the yes/no
    state `field` true on a card; None: not a yes/no state few firings make true, or a set not bounded."""
    if rare_states.true_at_once(b, field) is None:
        return None
    out = []
    for i, s in enumerate(b.sites):
        if _makes_true(s.node, field):
            if s.firings is None:
                return None
            out.append((i, s.firings))
    return out


def _flag_gain(b, field: str, zone: str):
    """A `set c.field = ...` gives the player P one more card of P.zone with the state true when c is
    the one card a choice took from P.zone (filtered or not), and no card ever goes from one player's
    zone to another's (see _stays); any other set is no gain of one player's (counted for everyone)."""
    owners = _own_sets(b, field, zone) if _stays(b, zone) else {}

    def gain(s):
        if _makes_true(s.node, field) and id(s.node) in owners:
            return ir.Int(1), owners[id(s.node)]
        return None
    return gain


def _stays(b, zone: str) -> bool:
    """Whether a card in one player's `zone` stays there until the scoring, and none comes into one
    in the scoring: no move, draw or exchange of the setup or the rounds may take a card from it, no
    exchange ever touches it, and no move or draw of the scoring may put a card into it.  Then a card
    that lay in P.zone during the rounds and lies in Q.zone later is P's: P is Q."""
    memo = b.__dict__.setdefault("_budget_stays", {})
    if zone in memo:
        return memo[zone]
    ok = True
    for s in b.sites:
        n = s.node
        if not isinstance(n, (ir.Move, ir.Draw, ir.Exchange)):
            continue
        # where it takes from, as the reading says and as where cards can go says: each holds
        src, flow = b._taken_from(s), b.flow.taken_from.get(n.span.site)
        src = flow if src is None else src if flow is None else src & flow
        if isinstance(n, ir.Exchange) or s.stage is None or s.stage[0] != "scoring":
            if src is None or zone in src:
                ok = False
                break
            continue
        with b.reading_in(s.env):
            into, _ = b._filled(n.dest)
        if into is None or zone in into:
            ok = False
            break
    memo[zone] = ok
    return ok


def _own_sets(b, field: str, zone: str) -> dict:
    """id(set) -> the player local P, for every `set c.field = ...` inside the body of the choice that
    binds c to one card of `P.zone` (or a filter of it), with nothing in that body binding c anew."""
    out: dict = {}
    for root in b._roots():
        for ch in ir.walk(root):
            if not (isinstance(ch, ir.Choose) and ch.var is not None and ch.count_kind is None and ch.body is not None):
                continue
            src = _expand(b, ch.source, INLINE_DEPTH)
            who = None if src is None else _zone_owner(src, zone)
            if who is None:
                continue
            inner = set().union(*(placed._bound_names(st) for st in ch.body.stmts))
            if ch.var in inner:
                continue
            for n in ir.walk(ch.body):
                if _makes_true(n, field) and n.target.obj == ir.Local(ch.var):
                    out[id(n)] = who
    return out


def fed_from(b, zone: str) -> str | None:
    """Y when every card that enters a player's `zone` comes from the same player's Y: each move or draw
    that may put cards into it is `move c to P.zone` inside the body of a choice binding c to one card
    of P.Y (or a filter of it), nothing in that body binding c or P anew, and no exchange may touch Y.
    Then the player's `zone` holds at most its start and every card that was ever in their Y (its start
    and what enters it: a card in Y is swapped for another by no exchange), however often a card goes
    back and forth."""
    memo = b.__dict__.setdefault("_budget_fed", {})
    if zone in memo:
        return memo[zone]
    memo[zone] = None
    chosen: dict = {}  # id(move) -> (the player local, Y)
    for root in b._roots():
        for ch in ir.walk(root):
            if not (isinstance(ch, ir.Choose) and ch.var is not None and ch.count_kind is None and ch.body is not None):
                continue
            src = _expand(b, ch.source, INLINE_DEPTH)
            if src is None:
                continue
            while isinstance(src, ir.ListComp) and src.value is None:
                src = src.coll
            if not (isinstance(src, ir.Attr) and isinstance(src.obj, ir.Local) and src.name in b._per_player_zones):
                continue
            who = src.obj.name
            inner = set().union(*(placed._bound_names(st) for st in ch.body.stmts))
            if ch.var in inner or who in inner:
                continue
            for n in ir.walk(ch.body):
                if isinstance(n, ir.Move) and n.what == ir.Local(ch.var) and isinstance(n.dest, ir.Attr) \
                        and n.dest.name == zone and n.dest.obj == ir.Local(who):
                    chosen[id(n)] = (who, src.name)
    feeders = set()
    for s in b.sites:
        n = s.node
        if isinstance(n, ir.Exchange):
            continue
        if not isinstance(n, (ir.Move, ir.Draw)):
            continue
        with b.reading_in(s.env):
            zones, _ = b._filled(n.dest)
        if zones is not None and zone not in zones:
            continue
        if id(n) not in chosen:
            return None
        feeders.add(chosen[id(n)][1])
    if len(feeders) != 1:
        return None
    (fed,) = feeders
    if fed == zone:
        return None
    for s in b.sites:
        if isinstance(s.node, ir.Exchange):
            src, flow = b._taken_from(s), b.flow.taken_from.get(s.node.span.site)
            if src is None or flow is None or fed in src or fed in flow:
                return None
    memo[zone] = fed
    return fed


def _zone_owner(e, zone: str):
    """The local P when `e` is `P.zone` or a filter of it."""
    match e:
        case ir.Attr(obj=ir.Local() as who, name=name) if name == zone:
            return who
        case ir.ListComp(coll=coll, value=None):
            return _zone_owner(coll, zone)
    return None


def _award_sites(b, item: str) -> list | None:
    """[(site, what it gives one player in a game by its own solver term)] for every award of the score
    item, its amounts read over the shared placements left out (the total reads them itself: see
    total_max); None: a term not bounded."""
    terms = b._award_terms.get(item)
    awards = [i for i, s in enumerate(b.sites) if isinstance(s.node, ir.Award) and s.node.item == item]
    if terms is None or len(terms) != len(awards):
        return None
    out = []
    for i, (_, lo, hi, times) in zip(awards, terms):
        if lo is None or hi is None or times is None:
            return None
        out.append((i, max(0, hi) * times))
    return out


def _award_gain(item: str):
    def gain(s):
        n = s.node
        return (n.amount, n.player) if isinstance(n, ir.Award) and n.item == item else None
    return gain


def _sites(b, key) -> list | None:
    """[(site, what it adds to one player's quantity `key` in a game by its own count)]; None: unbounded."""
    if key[0] == "counter":
        return _counter_sites(b, key[1])
    if key[0] == "zone":
        return _zone_sites(b, key[1])
    if key[0] == "item":
        return _award_sites(b, key[1])
    return _flag_sites(b, key[1])


def _gain(b, key):
    """What a site gives the quantity `key`: (amount, the player) or None (see verify/placed.py)."""
    if key[0] == "counter":
        return _counter_gain(key[1])
    if key[0] == "zone":
        return _zone_gain(b, key[1])
    if key[0] == "item":
        return _award_gain(key[1])
    if key[0] == "left":  # no statement gives it: only the pieces not placed
        return lambda s: None
    return _flag_gain(b, key[1], key[2])


def _start(b, key) -> int | None:
    kind, name = key[:2]
    if kind == "item":  # every score starts at 0
        return 0
    if kind == "flag":  # the cards it starts true on, anywhere
        return sum(1 for v in b.t.state_default.get(name, ()) if v is not None and v is not False)
    if kind == "counter":
        var = b.t.player_vars[name]
        start = b.interval(var.default) if var.default is not None else (var.domain.lo, var.domain.lo)
        return None if start is None else start[1]
    t = b.t
    count: dict = {}
    for slot in t.start_slot:
        z, o = t.zone_slots[slot]
        if z.name == name:
            count[o] = count.get(o, 0) + 1
    return max(count.values(), default=0)


def _model(b, key) -> tuple | None:
    """For a quantity (("counter", name) or ("zone", name)): (its start plus what every gain site outside
    the placements' statements adds, {(group, move's site): (W, what its statements' sites add by
    their counts)}), or None when some gain is unbounded."""
    memo = b.__dict__.setdefault("_budget_models", {})
    if key in memo:
        return memo[key]
    memo[key] = None
    if key[0] == "left":  # the pieces a group did not place: nothing but their own share
        memo[key] = (0, {(key[1], "left"): (1, placements(b)[key[1]][0])})
        return memo[key]
    sites = _sites(b, key)
    start = _start(b, key)
    if sites is None or start is None:
        return None
    gain = _gain(b, key)
    own = dict(sites)
    tied: dict = {}
    taken: set[int] = set()
    for group, (_, moves) in placements(b).items():
        for i, d, p, _ in moves:
            span = _tail(b, i, d, p)
            if span is None:
                continue
            inside = [x for x in range(*span) if x in own]
            if not inside or any(gain(b.sites[x]) is None for x in inside):
                continue
            v = b.sites[i].env[d]
            worths = [placed._worth(b, gain, span[0], span[1], {d}, {p}, {}, c) for c in v.zc[1]]
            if not worths or any(w is None for w in worths):
                continue
            tied[(group, i)] = (max(worths), sum(own[x] for x in inside))
            taken.update(inside)
    base = start + sum(w for x, w in own.items() if x not in taken)
    memo[key] = (base, tied)
    return memo[key]


# ---- what one firing of a placement's statements gives, as alternatives

# The most alternatives kept for one stretch of statements: past it they are read as one, the most of each.
MAX_ALTS = 64


def _pareto(vs: list) -> list:
    """The vectors not below another one in every part (the rest give no more), at most MAX_ALTS of
    them, else one: the most of each part."""
    vs = sorted(set(vs), reverse=True)
    out = []
    for v in vs:
        if not any(all(a >= x for a, x in zip(w, v)) for w in out):
            out.append(v)
    if len(out) > MAX_ALTS:
        out = [tuple(max(parts) for parts in zip(*out))]
    return out


def _plus(xs: list, ys: list) -> list:
    return _pareto([tuple(a + b for a, b in zip(x, y)) for x in xs for y in ys])


def _times(xs: list, k: int) -> list:
    """k runs, each one of the alternatives."""
    zero = tuple(0 for _ in xs[0])
    if len(xs) == 1 or k > MAX_ALTS:  # many runs: read as the most of each part every run
        return [tuple(k * max(parts) for parts in zip(*xs))]
    out = [zero]
    for _ in range(k):
        out = _plus(out, xs)
    return out


def _readings(b, start: int, stop: int, blocks: list) -> list | None:
    """The stretch of sites [start, stop) parsed as readings, one after another, of the given blocks
    (each any number of times): [(block index, first, end)]; None when it does not parse."""
    sites, out, pos = b.sites, [], start
    while pos < stop:
        for k, blk in enumerate(blocks):
            if blk is None or not blk.stmts or sites[pos].node is not blk.stmts[0]:
                continue
            end = pos
            for st in blk.stmts:
                if end is None or end >= stop or sites[end].node is not st:
                    end = None
                    break
                end = sites[end].end
            if end is not None:
                out.append((k, pos, end))
                pos = end
                break
        else:
            return None
    return out


def _alts(b, gains: list, a: int, end: int, dnames: set, pnames: set, sizes: dict, c: int) -> list | None:
    """What one run of the sites from `a` to `end` (statements read in a row) can give player `pnames`,
    the placed card (`dnames`) being c: alternatives, each a vector of one amount per gain of `gains`
    (a run gives no more than one of them in every part).  None: not known."""
    sites = b.sites
    out, j = [tuple(0 for _ in gains)], a
    while j < end:
        s = sites[j]
        stop = s.end
        if stop is None or s.firings is None:
            return None
        env = placed._as_card(s.env, dnames & set(s.env), c)
        if env is None:
            return None
        here = [g(s) for g in gains]
        if any(g is not None for g in here):
            vec = []
            for g in here:
                if g is None:
                    vec.append(0)
                    continue
                amount, who = g
                if not (isinstance(who, ir.Local) and who.name in pnames):
                    return None
                with b.reading_in(env):
                    iv = b.interval(amount)
                low = b.value_at(s, amount)
                if iv is None or low is None or low[0] < 0:
                    return None
                vec.append(max(0, iv[1]))
            out = _plus(out, [tuple(vec)])
        elif stop > j + 1:
            inner = _inner_alts(b, gains, j, env, dnames, pnames, sizes, c)
            if inner is None:
                return None
            out = _plus(out, inner)
        j = stop
    return out


def _inner_alts(b, gains, j: int, env: dict, dnames: set, pnames: set, sizes: dict, c: int) -> list | None:
    """The alternatives of one run of the compound statement at site `j` (see _alts)."""
    s = b.sites[j]
    node, stop = s.node, s.end
    zero = [tuple(0 for _ in gains)]

    def either(blocks, dn=dnames, pn=pnames, sz=sizes):
        """One of the readings of `blocks` in [j + 1, stop) runs (or none)."""
        parts = _readings(b, j + 1, stop, blocks)
        if parts is None:
            return None
        out = list(zero)
        for _, x, y in parts:
            alt = _alts(b, gains, x, y, dn, pn, sz, c)
            if alt is None:
                return None
            out = _pareto(out + alt)
        return out

    def passes(k, dn=dnames, pn=pnames, sz=sizes):
        w = _alts(b, gains, j + 1, stop, dn, pn, sz, c)
        return None if k is None or w is None else _times(w, max(0, k))

    match node:
        case ir.Do(proc=proc, args=args):
            return _alts(b, gains, j + 1, stop, placed.passed_names(b, proc, args, dnames),
                         placed.passed_names(b, proc, args, pnames), {}, c)
        case ir.Choose(options=options, orelse=orelse) if options:
            if not s.options:
                return None
            out = list(zero)
            for x, y in s.options:
                alt = _alts(b, gains, x, y, dnames, pnames, sizes, c)
                if alt is None:
                    return None
                out = _pareto(out + alt)
            inside = set().union(*(range(x, y) for x, y in s.options))
            rest = [x for x in range(j + 1, stop) if x not in inside]  # an `orelse`: another alternative
            if rest:
                if rest != list(range(rest[0], rest[-1] + 1)):
                    return None
                alt = _alts(b, gains, rest[0], rest[-1] + 1, dnames, pnames, sizes, c)
                if alt is None:
                    return None
                out = _pareto(out + alt)
            return out
        case ir.Choose(var=var, count_kind=kind, source=src, body=body, orelse=orelse) if var is not None:
            inner = dict(sizes)
            if kind is not None and not any(var in placed._bound_names(st) for st in node.body.stmts):
                with b.reading_in(env):
                    hi, most = b.int_max(node.count_hi), b.size(src)
                inner[var] = most if hi is None else hi if most is None else min(hi, most)
            else:
                inner.pop(var, None)
            # the body once, for the one card (or list) chosen, of one class of cards printed alike
            return either([body, orelse], dnames - {var}, pnames - {var}, inner)
        case ir.For(var=var, coll=coll):
            if isinstance(coll, ir.Local) and coll.name in sizes:
                k = sizes[coll.name]
            else:
                with b.reading_in(env):
                    k = b.size(coll)
            return passes(k, dnames - {var}, pnames - {var})
        case ir.Repeat(count=count):
            with b.reading_in(env):
                k = b.int_max(count)
            return passes(k)
        case ir.While(limit=limit):
            with b.reading_in(env):
                k = None if limit is None else b.int_max(limit)
            if node.span.site in b._passes:
                k = b._passes[node.span.site] if k is None else min(k, b._passes[node.span.site])
            return passes(k)
        case ir.Pick(var=var, body=body):
            return either([body], dnames - {var}, pnames - {var})
        case ir.If(branches=branches, orelse=orelse):
            # one branch runs
            return either([blk for _, blk in branches] + [orelse])
        case ir.Phase():
            return _alts(b, gains, j + 1, stop, dnames, pnames, sizes, c)
    return None


# ---- an award's amount


def _leaf(b, site, e) -> tuple | None:
    iv = b.value_at(site, e)
    return None if iv is None else ("iv", iv)


def _tree(b, site, e, who: str):
    """The amount as a tree of arithmetic over leaves: ("iv", interval), ("q", key, lo, hi) a quantity
    of the awarded player, ("cut", key, hi) a group cut to half the player's zone `key` at scoring."""
    match e:
        case ir.Int(value=k):
            return ("iv", (k, k))
        case ir.BinOp(op=op, left=a, right=c) if op in ("+", "-", "*"):
            x, y = _tree(b, site, a, who), _tree(b, site, c, who)
            return None if x is None or y is None else ("op", op, x, y)
        case ir.BinOp(op="//", left=a, right=ir.Int(value=k)) if k > 0:
            x = _tree(b, site, a, who)
            return None if x is None else ("div", k, x)
        case ir.Attr(obj=ir.Local(name=name), name=field) if name == who and field in b.t.player_vars:
            from .counters import counter_interval

            iv = b.value_at(site, e)
            if iv is not None and counter_interval(b, field) is not None and _model(b, ("counter", field)):
                return ("q", ("counter", field), iv[0], iv[1])
        case ir.Call(func="count", args=(coll,)) | ir.Agg(func="count", var=_, coll=coll, where=None, value=None) \
                | ir.Agg(func="count", coll=coll, value=None):
            iv = b.value_at(site, e)
            if isinstance(e, ir.Agg) and e.where is not None:  # no more than the zone's cards, filtered
                coll = ir.ListComp(e.var, coll, e.where, None)
            group = _expand(b, coll, INLINE_DEPTH)
            if iv is not None and group is not None:
                zone = _players_zone(b, group, who)
                if zone is not None and _model(b, ("zone", zone)):
                    half = _cut(b, site, group)
                    return ("cut" if half else "q", ("zone", zone), iv[0], iv[1])
        case ir.Agg(func="sum", value=value) if value is not None:
            leaf = _flag_sum(b, site, e, who)
            if leaf is not None:
                return leaf
    return _leaf(b, site, e)


def _flag_sum(b, site, e: ir.Agg, who: str):
    """A sum over the awarded player's zone, or a filter of it, whose value reads a yes/no state few
    cards hold (verify/rare_states.py): ("sum", the zone's count, [(the count of its cards with the state
    true, that count alone, each card's value with it false, ... true)], the list's size alone, the
    sum's interval alone)."""
    listed = ir.ListComp(e.var, e.coll, e.where, None)
    group = _expand(b, listed, INLINE_DEPTH)
    zone = None if group is None else _players_zone(b, group, who)
    iv = b.value_at(site, e)
    if zone is None or iv is None or not _model(b, ("zone", zone)):
        return None
    saved, b.env, at, b._at = b.env, site.env, b._at, site.stage
    try:
        size = b.size(listed)
        found = rare_states.parts(b, e)
    finally:
        b.env, b._at = saved, at
    flags = [(("flag", f, zone), rare_states.true_at_once(b, f), off, on) for f, off, on in found]
    flags = [x for x in flags if x[1] is not None and _model(b, x[0])]
    if size is None:
        return None
    if not flags:  # no state few cards hold: the best cards, as many as the zone holds
        saved, b.env, at, b._at = b.env, site.env, b._at, site.stage
        try:
            value = _expand(b, e.value, INLINE_DEPTH)
            per = None if value is None else b._per_card(listed, e.var, value)
        finally:
            b.env, b._at = saved, at
        return None if per is None else ("sum", ("zone", zone), [(None, 0, per, per)], size, iv)
    return ("sum", ("zone", zone), flags, size, iv)


def _players_zone(b, e, who: str) -> str | None:
    """The zone when `e` is the awarded player's zone, or a filter of it."""
    match e:
        case ir.Attr(obj=ir.Local(name=name), name=zone) if name == who and zone in b._per_player_zones:
            return zone
        case ir.ListComp(coll=coll, value=None):
            return _players_zone(b, coll, who)
    return None


def _cut(b, site, group) -> bool:
    """Whether `group` is cut at scoring, before the site's step, to another group of its zone."""
    g = trimmed._group(group)
    if g is None or site.stage is None or site.stage[0] != "scoring":
        return False
    _, zone, field, value = g
    return any(c.step < site.stage[1] and (c.zone, c.field, c.cut) == (zone, field, value) for c in trimmed.cuts(b))


def _keys(tree) -> set:
    if tree[0] in ("q", "cut"):
        return {tree[1]}
    if tree[0] == "sum":
        return {tree[1]} | {key for key, *_ in tree[2] if key is not None}
    if tree[0] == "op":
        return _keys(tree[2]) | _keys(tree[3])
    if tree[0] == "div":
        return _keys(tree[2])
    return set()


def _eval(tree, most: dict):
    match tree[0]:
        case "iv":
            return tree[1]
        case "q":
            return tree[2], min(tree[3], max(tree[2], most[tree[1]]))
        case "cut":
            return tree[2], min(tree[3], max(tree[2], most[tree[1]] // 2))
        case "sum":
            # at most that many cards, at most that many of them with the state true: the best of them
            _, zone, flags, size, (lo, hi) = tree
            n = max(0, min(size, most[zone]))
            for key, alone, off, on in flags:
                k = 0 if key is None else max(0, min(alone, most[key]))
                hi = min(hi, rare_states._best(off, on, n, k))
            return lo, max(lo, hi)
        case "div":
            lo, hi = _eval(tree[2], most)
            return lo // tree[1], hi // tree[1]
    _, op, x, y = tree
    (a, b_), (c, d) = _eval(x, most), _eval(y, most)
    if op == "+":
        return a + c, b_ + d
    if op == "-":
        return a - d, b_ - c
    products = (a * c, a * d, b_ * c, b_ * d)
    return min(products), max(products)


def amount_max(b, site) -> int | None:
    """The largest the amount of the award at `site` can be, its quantities read together over every
    sharing of the placements they count, or None when that reading does not apply."""
    node = site.node
    if not (isinstance(node, ir.Award) and isinstance(node.player, ir.Local)) or not b._read_done:
        return None
    memo = b.__dict__.setdefault("_budget_amounts", {})
    if id(site) not in memo:
        memo[id(site)] = _amount_max(b, site)
    return memo[id(site)]


def _amount_max(b, site) -> int | None:
    node = site.node
    tree = _tree(b, site, node.amount, node.player.name)
    if tree is None:
        return None
    keys = sorted(_keys(tree))
    if not keys:
        return None
    models = {k: _model(b, k) for k in keys}
    shares = _shares(b, placements(b), keys, models)
    if not shares:
        return None
    ways = _ways(shares, _spreads)
    if ways is None:
        return None
    best = None
    for pick in itertools.product(*ways):
        most = _most(keys, models, _given(shares, pick))
        hi = _eval(tree, most)[1]
        best = hi if best is None else max(best, hi)
    return best


def _shares(b, groups: dict, keys: list, models: dict) -> dict:
    """group -> (its placements, [(move, what one firing gives each of `keys`, the most firings worth
    taking)]): each move any quantity reads, its alternatives (one placement takes one)."""
    shares: dict = {}
    for group, (budget, moves) in groups.items():
        used = []
        for i, d, p, firings in moves:
            tied = [(group, i) in models[k][1] for k in keys]
            if not any(tied):
                continue
            own = [models[k][1][(group, i)][1] if t else 0 for k, t in zip(keys, tied)]
            for vec in _alternatives(b, group, i, d, p, keys, models):
                vec = tuple(v if t else 0 for v, t in zip(vec, tied))
                need = [-(-o // v) for v, o in zip(vec, own) if v > 0 and o > 0]
                if need:
                    most = min(budget, max(need))
                    used.append(((group, i), vec, most if firings is None else min(most, firings)))
        if used:
            shares[group] = (budget, used)
    return shares


def _ways(shares: dict, spreads) -> list | None:
    """Each group's spreads of its placements over its moves (`spreads`: _spreads or _full_spreads);
    None: more than MAX_SHARES sharings in all."""
    ways = [list(spreads(budget, [m for *_, m in used])) for budget, used in shares.values()]
    count = 1
    for w in ways:
        count *= len(w)
        if count > MAX_SHARES:
            return None
    return ways


def _given(shares: dict, pick: tuple) -> dict:
    """(move, quantity) -> what the placements give it at one sharing (`pick`: a spread per group)."""
    got: dict = {}
    for (_, used), spread in zip(shares.values(), pick):
        for (gi, vec, _), y in zip(used, spread):
            for q, v in enumerate(vec):
                if v:
                    got[(gi, q)] = got.get((gi, q), 0) + v * y
    return got


def _most(keys: list, models: dict, got: dict, caps: dict | None = None) -> dict:
    """Each quantity's most at one sharing: its base, plus what each placement gives it (no more than
    that placement's own bound), the placements a group of pieces caps (`caps`) no more than the cap."""
    most = {}
    for q, k in enumerate(keys):
        base, tied = models[k]
        parts = {gi: min(got.get((gi, q), 0), own) for gi, (_, own) in tied.items()}
        for members, cap in (caps or {}).get(k, ()):
            base += min(cap, sum(parts.pop(gi, 0) for gi in members))
        most[k] = base + sum(parts.values())
    return most


def _alternatives(b, group, i: int, d: str, p: str, keys: list, models: dict) -> list:
    """What one firing of the placement at site i gives each quantity: the alternatives read from its
    statements (any card it places), else one vector, each quantity's most alone."""
    memo = b.__dict__.setdefault("_budget_alts", {})
    key = (i, tuple(keys))
    if key not in memo:
        span = _tail(b, i, d, p)
        gains = [_gain(b, k) for k in keys]
        found: list | None = []
        if span is not None:
            for c in b.sites[i].env[d].zc[1]:
                alt = _alts(b, gains, span[0], span[1], {d}, {p}, {}, c)
                if alt is None:
                    found = None
                    break
                found = _pareto(found + alt)
        if not found:
            found = [tuple(models[k][1][(group, i)][0] if (group, i) in models[k][1] else 0 for k in keys)]
        memo[key] = found
    return memo[key]


def _spreads(budget: int, caps: list[int]):
    """Every way of giving each move at most its cap, all together at most `budget`."""
    if not caps:
        yield ()
        return
    for k in range(min(budget, caps[0]) + 1):
        for rest in _spreads(budget - k, caps[1:]):
            yield (k, *rest)


# ---- the total: every item's awards read over one sharing of the placements


def total_max(b, items: dict) -> int | None:
    """The largest total one player can score, the items read over one sharing of the placements:
    `items` maps each score item to its proved maximum read alone.  An item whose awards lie in a
    placement's statements (what a placement gives it: a quantity of its own, its awards' solver terms
    its own count) or whose amounts read the quantities a placement gives (a count, a counter, a state
    few cards hold: as for one award above) is at most, for each sharing, the sum of those; and no more
    than its maximum alone.  The other items count their maximum.  The total's bound is the largest, over
    every sharing (at most MAX_SHARES of them), of the sum.  None: no item reads a placement, or too many
    sharings."""
    if not b._read_done:
        return None
    groups = placements(b)
    if not groups:
        return None
    spans = {}
    for _, (_, moves) in groups.items():
        for i, d, p, _ in moves:
            span = _tail(b, i, d, p)
            if span is not None:
                spans[i] = span
    inside = set().union(*(range(*sp) for sp in spans.values())) if spans else set()
    lefts = hand_left.left_awards(b, groups, _placing(b))
    joint: dict = {}  # item -> (its quantity key or None, [(tree, the award's firings for one player, its own)])
    keys: set = set()
    for item, hi in items.items():
        if hi is None:
            return None
        sites = _award_sites(b, item)
        if sites is None:
            continue
        own = dict(sites)
        position = {x: k for k, (x, _) in enumerate(sites)}
        trees = []
        for x in own:
            s = b.sites[x]
            if x in inside or not isinstance(s.node.player, ir.Local):
                continue
            if x in lefts:  # the pieces kept in hand: what the placements leave (verify/hand_left.py)
                group, c = lefts[x]
                tree, times = ("op", "*", ("q", ("left", group), 0, groups[group][0]), ("iv", (0, c))), 1
            else:
                tree, times = _card_sum(b, s, b._award_terms[item][position[x]])
            if tree is None:
                tree = _tree(b, s, s.node.amount, s.node.player.name)
                times = b.times_for_one_player(s)
                if times is None or b._award_terms[item][position[x]][3] != times:
                    continue  # a term of its own (pairs, card sums): as it is
            if tree is None or times is None or not _keys(tree) or any(not _model(b, k) for k in _keys(tree)):
                continue
            trees.append((x, tree, times))
        key = ("item", item)
        model = _model(b, key)
        tied = model is not None and bool(model[1])
        if not tied and not trees:
            continue
        joint[item] = (key if tied else None, [(t, n, own[x], sorted(_keys(t)), position[x]) for x, t, n in trees])
        keys |= set().union(*(_keys(t) for _, t, _ in trees)) if trees else set()
        if tied:
            keys.add(key)
    if not joint:
        return None
    feeds = {}  # a zone filled only from another of the player's: read that one too (fed_from)
    for k in list(keys):
        fed = fed_from(b, k[1]) if k[0] == "zone" else None
        if fed is not None and _model(b, ("zone", fed)) is not None and _start(b, k) is not None:
            feeds[k] = (("zone", fed), _start(b, k))
            keys.add(("zone", fed))
    keys = sorted(keys)
    models = {k: _model(b, k) for k in keys}
    caps = {k: _placed_caps(b, k, models[k]) for k in keys if k[0] == "item"}
    shares = _merged(_shares(b, groups, keys, models), keys, models, caps)
    for q, k in enumerate(keys):  # the pieces not placed: a share of their own, last, so it takes what is left
        if k[0] == "left":
            budget = groups[k[1]][0]
            shares.setdefault(k[1], (budget, []))[1].append(((k[1], "left"), _unit(len(keys), q), budget))
    # every part of the sum grows with each share (interval arithmetic over wider intervals, more cards),
    # so the most is reached where no share can grow: the last move of each group takes what is left
    ways = _ways(shares, _full_spreads)
    if ways is None:
        return None
    rest = sum(hi for item, hi in items.items() if item not in joint)
    plain = {item: sum(own for _, own in _award_sites(b, item)) for item, (key, _) in joint.items() if key is None}
    plain_sites = {item: _award_sites(b, item) for item in joint}
    evals: dict = {}
    solved: dict = {}
    best = None
    for pick in itertools.product(*ways):
        most = _most(keys, models, _given(shares, pick), caps)
        for k, (fed, start) in feeds.items():
            most[k] = min(most[k], start + most[fed])
        total = rest
        for item, (key, trees) in joint.items():
            g = plain[item] if key is None else most[key]
            tops = []
            for tree, times, own, tkeys, _ in trees:
                at = (id(tree), tuple(most[k] for k in tkeys))
                if at not in evals:
                    evals[at] = max(0, _eval(tree, most)[1])
                tops.append(evals[at])
                g += min(own, evals[at] * times) - own
            if key is None and len(plain_sites[item]) > 1:  # the item's own reading, those amounts lowered
                g = min(g, _item_at(b, item, [(k, top) for (*_, k), top in zip(trees, tops)], solved))
            total += min(items[item], g)
        best = total if best is None else max(best, total)
    return best


def _merged(shares: dict, keys: list, models: dict, caps: dict) -> dict:
    """The shares with the moves giving the same alternative read as one where no move's own bound can
    bind (what it adds by its own count is at least the whole budget's worth, and no group of pieces
    placed caps it): a sharing then gives the same whichever of them takes the placements, so one
    sharing stands for all of theirs."""
    capped = {gi for groups in caps.values() for members, _ in groups for gi in members}
    out = {}
    for group, (budget, used) in shares.items():
        kept: list = []
        where: dict = {}
        for gi, vec, most in used:
            free = gi not in capped and all(
                v == 0 or models[k][1][gi][1] >= budget * v for k, v in zip(keys, vec))
            if free and vec in where:
                j = where[vec]
                kept[j] = (kept[j][0], vec, min(budget, kept[j][2] + most))
                continue
            if free:
                where[vec] = len(kept)
            kept.append((gi, vec, most))
        out[group] = (budget, kept)
    return out


def _unit(n: int, q: int) -> tuple:
    return tuple(1 if j == q else 0 for j in range(n))


def _card_sum(b, s, term) -> tuple:
    """(tree, runs) for an award made once per card of a loop over the awarded player's zone, or a
    filter of it (verify/card_sums.py): a run gives at most its best cards, as many as the zone then
    holds; (None, None) otherwise."""
    ca = s.card_award
    if ca is None or ca.loop.coll is None or term[3] != ca.runs:
        return None, None
    zone = _players_zone(b, ca.loop.coll, s.node.player.name)
    if zone is None or not _model(b, ("zone", zone)):
        return None, None
    per = card_sums.amounts(b, s)
    if per is None:
        return None, None
    return ("sum", ("zone", zone), [(None, 0, per, per)], ca.loop.size, (term[1], term[2])), ca.runs


def _item_at(b, item: str, tops: list, memo: dict) -> int:
    """An item's maximum read as bounds.py reads it alone (options and branches sharing their runs,
    pieces placed), the awards at the given positions of its terms at most the given amounts."""
    key = (item, tuple(tops))
    if key not in memo:
        terms = list(b._award_terms[item])
        for k, top in tops:
            name, lo, hi, times = terms[k]
            terms[k] = (name, lo, max(lo, min(hi, top)), times)
        cap, skip, extra = b._item_reading[item]
        his = [b.item_max(item, terms, cap)]
        if extra:
            his.append(b.item_max(item, terms, cap, skip, extra))
        his = [h.value for h in his if h.status == "proved"]
        memo[key] = min(his) if his else None
    found = memo[key]
    return 10 ** 9 if found is None else found


def _full_spreads(budget: int, caps: list[int]):
    """The ways of _spreads in which the last move takes all it can of what the others leave."""
    if not caps:
        yield ()
        return
    for head in _spreads(budget, caps[:-1]):
        yield (*head, min(caps[-1], budget - sum(head)))


def _placed_caps(b, key, model) -> list:
    """[(the placements (group, move site) whose statements a group of pieces placed bounds, what they
    give together at most in a game)] for a score item's quantity (verify/placed.py): the groups whose
    gain sites hold every gain site after those moves."""
    item = key[1]
    out = []
    for g in placed.groups(b, ("award", item), _award_gain(item)):
        members = []
        for gi in model[1]:
            if gi[1] not in g.moves:
                continue
            span = _tail(b, gi[1], *placed_names(b, gi[1]))
            if span is None:
                members = None
                break
            gains = {x for x in range(*span) if _award_gain(item)(b.sites[x]) is not None}
            if not gains <= g.sites:
                members = None
                break
            members.append(gi)
        if members:
            out.append((members, g.most))
    return out


def placed_names(b, i: int) -> tuple[str, str]:
    """The piece's and the player's locals of the placement at site i."""
    d, p, _ = _placing(b)[id(b.sites[i].node)]
    return d, p
