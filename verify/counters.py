"""A player's counter: a field the rules only ever raise (`set p.x += k`, k never negative) holds at
most its starting value plus, for each such statement, its largest step times how often it can fire
for one player.  A field declared 0..99 and raised by one at a statement that fires at most 12 times
for a player is at most 12, not 99.

Read only once every statement's firings are known (after Bounds has read the rules): before that
the statements met so far are not all of them."""

from __future__ import annotations

from soan.dsl import ir

from . import option_awards, placed


def counter_interval(bounds, name: str):
    """(lowest, highest) of the player field `name` at any moment, or None when it is not such a counter."""
    cache = bounds.__dict__.setdefault("_counter_cache", {})
    if name not in cache:
        cache[name] = None  # a step that reads the counter itself reads its declared range
        cache[name] = _counter(bounds, name)
    return cache[name]


def _counter(bounds, name: str):
    t = bounds.t
    var = t.player_vars.get(name)
    if var is None or name in t.tokens or any(f.name == name for c in t.spec.components for f in c.fields):
        return None  # a `.name` read might be a card's or a token's
    if not isinstance(var.domain, ir.IntDomain):
        return None
    start = bounds.interval(var.default) if var.default is not None else (var.domain.lo, var.domain.lo)
    if start is None:
        return None
    most = _raised(bounds, name, start[1])
    if most is None:
        return None
    placed_raises = placed.counter_most(bounds, name)  # raises after placing a piece (verify/placed.py)
    if placed_raises is not None:
        skip, added = placed_raises
        rest = _raised(bounds, name, start[1], skip)
        if rest is not None:
            most = min(most, rest + added)
    return (max(var.domain.lo, start[0]), min(var.domain.hi, most))


def _raised(bounds, name: str, start: int, skip: frozenset = frozenset()) -> int | None:
    """`start` plus what the raises of the counter, but those at the sites in `skip`, add at most."""
    most = start
    for i, site in enumerate(bounds.sites):
        node = site.node
        if not (isinstance(node, ir.Set) and isinstance(node.target, ir.Attr) and node.target.name == name):
            continue
        if node.op != "+=" or site.per_player is None:
            return None
        step = bounds.value_at(site, node.value)
        if step is None or step[0] < 0:
            return None
        if i not in skip:
            most += step[1] * site.per_player
    return most - option_awards.counter_saving(bounds, name, skip)  # raises in the options of one choice share its firings
