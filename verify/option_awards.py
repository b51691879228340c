"""The options of one `choose ... { option a {...} option b {...} }` share the choice's firings.

A firing of a choice runs one of its options (or none, on a pass): awards to the same item that
lie in two or more options, directly or in the procedures they call, add up per firing to what one
option gives at most, not to what all give.  Two options that each `do work(p, +1)` /
`do work(p, -1)` where `work` awards 3, in a choice fired 4 times for a player, give at most
4 x 3 = 12, not 4 x 3 + 4 x 3 = 24.

How one option's firing is bounded: every award site read inside the option (the sites of its
reading lie in one stretch of `Bounds.sites`, see `Site.end`) gives at most its amount times the
passes of the loops between the choice and it (a `for` over a collection of at most k, a
`repeat`/`while` up to its cap), read where the loop was read.  A loop with no known bound, or a
statement this module does not know, leaves the choice as it is.

All those awards must go to one player per firing: the award's player, followed back through
the procedure calls between the choice and it (a parameter not bound anew in its procedure is
what the call passed), is one local of the choice's own reading that the choice does not bind.
The choice's firings for that player are then its runs (`Bounds._per_player`).

Bounds (verify/bounds.py) calls `track` as it reads a choice's options and `option_terms` as it
sums an item's awards for the solver, before `branch_awards.exclusive_terms`; a player's counter
(verify/counters.py) is raised the same way, and `counter_saving` says how much less it can grow."""

from __future__ import annotations

from soan.dsl import ir


def track(bounds, site, run):
    """`run` (reading one option), noting on the choice's `site` the stretch of sites it records."""
    if site is None:
        return run

    def tracked():
        start = len(bounds.sites)
        run()
        if bounds.recording:
            site.options.append((start, len(bounds.sites)))

    return tracked


def option_terms(bounds, item: str, terms: list[tuple], skip: frozenset = frozenset()) -> tuple[list, set[int]]:
    """`terms` (solver terms (name, lo, hi, times), one per award site of `item`, in the order of
    `bounds.sites`' awards of it), as a list of the same length where the awards of each choice
    that lie in two or more of its options are one term (in the first's place; the others None):
    what one firing of the choice gives at most, times the choice's firings for one player, when
    that is tighter on both sides.  Also the positions so merged, which other readings leave.
    Positions in `skip` (bounded another way, verify/placed.py) are merged with none."""
    position = {}
    for i, s in enumerate(bounds.sites):
        if isinstance(s.node, ir.Award) and s.node.item == item:
            position[i] = len(position)
    if len(position) != len(terms):
        return terms, set()
    position = {i: k for i, k in position.items() if k not in skip}
    out: list = list(terms)
    taken: set[int] = set()

    def apart(ks):
        if any(terms[k][1] is None or terms[k][2] is None or terms[k][3] is None for k in ks):
            return None
        return (sum(min(0, terms[k][1]) * terms[k][3] for k in ks), sum(max(0, terms[k][2]) * terms[k][3] for k in ks))

    for node, ks, lo, hi, runs in _shared(bounds, position, lambda n: n.amount, lambda n: n.player, apart):
        taken.update(ks)
        for k in ks[1:]:
            out[k] = None
        out[ks[0]] = (f"line {node.span.line}", lo, hi, runs)
    return out, taken


def counter_saving(bounds, name: str, skip: frozenset = frozenset()) -> int:
    """How much less than the sum of its raises (each step's most times its firings for one player)
    the player field `name`, only ever raised, can grow: raises in two or more options of one choice
    share the choice's firings (see verify/counters.py).  The raises at the sites in `skip` (site
    indices, bounded another way) are left out."""
    position = {}
    for i, s in enumerate(bounds.sites):
        n = s.node
        if isinstance(n, ir.Set) and isinstance(n.target, ir.Attr) and n.target.name == name and n.op == "+=" \
                and i not in skip:
            position[i] = len(position)
    sites = [bounds.sites[i] for i in position]

    def apart(ks):
        steps = [bounds.value_at(sites[k], sites[k].node.value) for k in ks]
        if any(st is None or st[0] < 0 or sites[k].per_player is None for st, k in zip(steps, ks)):
            return None
        return 0, sum(st[1] * sites[k].per_player for st, k in zip(steps, ks))

    saved = 0
    for _, ks, _, hi, runs in _shared(bounds, position, lambda n: n.value, lambda n: n.target.obj, apart):
        saved += apart(ks)[1] - hi * runs
    return saved


def _shared(bounds, position: dict, amount_of, player_of, apart):
    """Each choice whose options hold two or more of the sites at `position` (site index -> k), one
    player's: (the choice, the ks, the most and least one firing gives, its firings for that player),
    when tighter on both sides than `apart(ks)` ((lo, hi) of those sites apart; None: no bound)."""
    from .bounds import _binds, _rebound  # it imports this module

    sites = bounds.sites
    taken: set[int] = set()
    for choice in sites:
        node = choice.node
        if not isinstance(node, ir.Choose) or not choice.options or choice.firings is None:
            continue
        spans = [[i for i in range(a, b) if i in position] for a, b in choice.options]
        ks = [position[i] for span in spans for i in span]
        if sum(1 for span in spans if span) < 2 or any(k in taken for k in ks):
            continue
        was = apart(ks)
        if was is None:
            continue
        inside = {k for n in ir.walk(node) if isinstance(n, ir.Stmt) for k in _binds(n)}
        per_option, who = [], set()
        for (a, b), span in zip(choice.options, spans):
            lo = hi = 0
            for i in span:
                s = sites[i]
                times = _passes(bounds, sites, a, i)
                name = _player_at_choice(bounds, sites, a, i, player_of(s.node), _rebound)
                iv = bounds.value_at(s, amount_of(s.node))
                if (s.firings is None or times is None or name is None or name in inside or iv is None
                        or s.card_award is not None):  # firings None: read inside a recursion
                    break
                who.add(name)
                lo += min(0, iv[0]) * times
                hi += max(0, iv[1]) * times
            else:
                per_option.append((lo, hi))
                continue
            break
        if len(per_option) != len(spans) or len(who) != 1:
            continue
        with bounds.reading_in(choice.env):
            runs = bounds._per_player(ir.Local(next(iter(who))), choice.firings)
        if runs is None:
            continue
        hi = max(h for _, h in per_option)
        lo = min(lo for lo, _ in per_option)
        if hi * runs > was[1] or lo * runs < was[0] or (lo * runs, hi * runs) == tuple(was):
            continue  # not tighter, or looser on one side
        taken.update(ks)
        yield node, ks, lo, hi, runs


def _enclosing(sites, start: int, i: int) -> list[int]:
    """The sites from `start` on whose reading holds site `i`, outermost first."""
    return [j for j in range(start, i) if sites[j].end is not None and j < i < sites[j].end]


def _passes(bounds, sites, start: int, i: int) -> int | None:
    """How often site `i` can fire in one reading of the stretch from `start`: the product of the
    passes of the loops around it there (None: a loop with no known bound, or a statement unknown here)."""
    times = 1
    for j in _enclosing(sites, start, i):
        n = sites[j].node
        with bounds.reading_in(sites[j].env):
            match n:
                case ir.If() | ir.Choose() | ir.Pick() | ir.Do() | ir.Phase():
                    k = 1
                case ir.For(coll=coll):
                    k = bounds.size(coll)
                case ir.Repeat(count=count):
                    k = bounds.int_max(count)
                case ir.While(limit=limit):
                    k = None if limit is None else bounds.int_max(limit)
                case _:
                    k = None
        if k is None:
            return None
        times *= max(0, k)
    return times


def _player_at_choice(bounds, sites, start: int, i: int, who, rebound) -> str | None:
    """The local of the choice's reading that site `i`'s player `who` is, followed back through the
    procedure calls around it (None: not a local, or one a procedure binds anew)."""
    calls = [j for j in _enclosing(sites, start, i) if isinstance(sites[j].node, ir.Do)]
    for j in reversed(calls):
        if not isinstance(who, ir.Local):
            return None
        proc = bounds._procs[sites[j].node.proc]
        if who.name not in proc.params or who.name in rebound(proc.body):
            return None
        who = sites[j].node.args[proc.params.index(who.name)]
    return who.name if isinstance(who, ir.Local) else None
