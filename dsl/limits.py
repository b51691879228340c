"""The sizes soan accepts, checked when a spec is read (documented in the README, "Limits").

A spec that goes beyond one of these is reported as a located problem at
`soan check`, never found out later as a hang, a crash or exhausted memory.
Each maximum is far above what any draft needs (the shipped drafts nest at most
20 levels deep and deal at most a few hundred cards).
"""

from __future__ import annotations

MAX_NESTING = 1000  # levels of one declaration's syntax tree: nested blocks, and the terms of one long expression
MAX_SPEC_BYTES = 2_000_000  # a spec file (and each file it extends)
MAX_PLAYERS = 64  # the most players a game may declare
MAX_CARDS = 100_000  # cards and pieces dealt in one game, over all card sets and players
MAX_NUMBER = 1_000_000  # any number written in a spec (so also every count: copies, supplies, repeats, loop caps, rounds)
MAX_LOOP_PASSES = 2_000_000  # passes round loops (for, repeat, while, rounds) one game may make before it is stopped
MAX_DECISIONS = 200_000  # decisions and chance events one game may take before it is stopped
MAX_RANGE = 1_000_000  # values in one range A..B computed while a game runs
MAX_SHOWN_LINE = 200  # characters of a source line echoed under an error message

# The recursion soan needs to read MAX_NESTING levels, with room to spare; the command line runs in a thread
# with a stack big enough for it.
RECURSION_LIMIT = 60_000
STACK_BYTES = 512 * 1024 * 1024


def limit_problems(spec) -> list:
    """Problems with the sizes a checked spec declares: negative supplies and counts, and anything
    beyond the maximums above.  Numbers a game computes are checked as it runs."""
    from . import ir  # here, not at the top: errors.py reads this module's constants, and these import errors.py
    from .analysis import _domain_size
    from .errors import Problem

    problems: list = []

    def error(node, message, hint=None):
        problems.append(Problem(node.span.path or spec.path, node.span, message, hint))

    def const(e):
        match e:
            case ir.Int(value=v):
                return v
            case ir.Neg(operand=ir.Int(value=v)):
                return -v
        return None

    def count(e, what, least=0):
        v = const(e)
        if v is not None and v < least:
            error(e, f"{what} is {v}; it must be {least} or more")

    for node in _every_node(spec):
        if isinstance(node, ir.Int) and abs(node.value) > MAX_NUMBER:
            error(node, f"{node.value} is beyond the largest number soan reads ({MAX_NUMBER:,})",
                  "every number in a spec is at most a million either way (README: Limits)")
        elif isinstance(node, ir.IntDomain) and max(abs(node.lo), abs(node.hi)) > MAX_NUMBER:
            error(node, f"domain {node.lo}..{node.hi} goes beyond the largest number soan reads ({MAX_NUMBER:,})",
                  "every number in a spec is at most a million either way (README: Limits)")
        elif isinstance(node, ir.Repeat):
            count(node.count, "the number of repeats")
        elif isinstance(node, ir.While):
            count(node.limit, "a while loop's cap", least=1)
    for t in spec.tokens:
        count(t.supply, f"the supply of token '{t.name}'")
    for z in spec.zones:
        if z.capacity is not None:
            count(z.capacity, f"the capacity of zone '{z.name}'")
    if spec.rounds is not None:
        if spec.rounds.count is not None:
            count(spec.rounds.count, "the number of rounds")
        if spec.rounds.cap is not None:
            count(spec.rounds.cap, "the round cap")
    total, first_big = 0, None
    for cs in spec.card_sets:
        comp = spec.component(cs.kind)
        per = spec.max_players if cs.per_player else 1
        for row in cs.rows:
            if row.count > MAX_NUMBER:
                error(row, f"{row.count} copies is beyond the largest number soan reads ({MAX_NUMBER:,})")
                continue
            combos = 1
            for f in row.each:
                fd = next((x for x in comp.fields if x.name == f), None) if comp else None
                if fd is not None:
                    combos *= _domain_size(spec, fd.domain)
            total += row.count * combos * per
            if total > MAX_CARDS and first_big is None:
                first_big = cs
    if first_big is not None:
        error(first_big, f"the card sets deal {total:,} cards at {spec.max_players} players; soan plays at most "
                         f"{MAX_CARDS:,}", "fewer copies, or fewer values in the fields dealt with 'each'")
    return problems


def _every_node(spec):
    from . import ir

    roots = [spec.setup, spec.scoring, spec.winner, spec.rounds]
    roots += [d for group in (spec.tokens, spec.zones, spec.vars, spec.components, spec.rulings, spec.assumptions,
                              spec.card_sets, spec.defs, spec.procedures, spec.examples, spec.questions, spec.scores)
              for d in group]
    for r in roots:
        if r is not None:
            yield from ir.walk(r)
