"""A pile that cannot run low before the last moment a read could happen: a ruling read only
behind `count(Z) == 0` (or `count(Z) < k`) cannot arise when Z always holds more.

    procedure fetch(p, at_night) {
      if count(pile) == 0 and (at_night or ruling == any_draw) { move used to pile  shuffle pile }
      if count(pile) > 0 { draw 1 from pile to p.hand }
    }

The pile starts with N cards (where the spec deals them).  Let D be the most cards the rules can
take out of it up to the last moment a read can happen.  Cards put into it only add to it, so up
to that moment it holds at least N - D, and every read behind a test that N - D makes false (a
test written in the statement or around it, on `count(Z)` and a written number) never happens.

D is verify/supplies.py's count of what the rules take out of the pile, each statement firing as
often as verify/bounds.py allows.  Where every read the bounds can reach lies in the rounds, at
step k at the latest (a context whose own tests a bound proves false reads nothing: `fetch(p,
true)` never reads the ruling right of `at_night or`), the later steps of the last round come after every read:
they are read as under `round < R` (the rounds' count), so the bounds give them the other rounds'
share.  A game up to any read is the same game in both readings, so D bounds it.  The games
played still check the proof (verify/crosscheck.py).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import attrs

from soan.dsl import ir
from soan.dsl.analysis import counts_cards_of

from .bounds import Bounds
from .situations import normal, read_sites
from .supplies import _taken_out

if TYPE_CHECKING:
    from .properties import Verifier

_HOLDS = {"==": lambda a, k: a == k, "<": lambda a, k: a < k, "<=": lambda a, k: a <= k}
_FLIP = {"==": "==", ">": "<", ">=": "<="}


def _reads_once(st: ir.Stmt) -> bool:
    """Whether `st` reads its own expressions where it starts, with the locals it starts with: not a
    loop (its test or filter is read again after the body ran), nor a choice or pick of a card (its
    filter reads the card it binds, which the locals at its start do not hold)."""
    if isinstance(st, (ir.For, ir.While, ir.Repeat, ir.Pick)):
        return False
    return not (isinstance(st, ir.Choose) and st.var is not None)


def low_test(e: ir.Expr, piles) -> tuple[str, str, int] | None:
    """(pile, op, k) when `e`, with `not` pushed inwards, says `count(pile) op k` for a shared pile
    and a written number k, op one of ==, <, <= (it holds only when the pile is that low)."""
    e = normal(e)
    if not isinstance(e, ir.BinOp):
        return None
    left, op, right = e.left, e.op, e.right
    if isinstance(left, ir.Int) and op in _FLIP:
        left, op, right = right, _FLIP[op], left
    if op not in _HOLDS or not isinstance(right, ir.Int):
        return None
    for z in piles:
        if counts_cards_of(left, ir.SharedZone(z)):
            return z, op, right.value
    return None


def _false_at(floor: int, op: str, k: int) -> bool:
    """Whether `count op k` fails for every count of at least `floor`."""
    return k < floor if op == "==" else not _HOLDS[op](floor, k)


def unread(v: Verifier, name: str) -> str | None:
    """Why ruling (or assumption) `name` is never read: every read behind a test that a pile is low,
    and the pile never that low up to the last read; or None."""
    spec = v.spec
    piles = {z.name for z in spec.zones if not z.per_player}
    sites = read_sites(spec, name)
    if not sites or read_elsewhere(spec, name):
        return None
    need: dict[str, list] = {}  # pile -> the (op, k) of one test per read that it must make false
    for s in sites:
        lows = [x for t in s.written for x in [low_test(t, piles)] if x is not None]
        if not lows:
            return None
        z, op, k = lows[0]
        need.setdefault(z, []).append((op, k))
    last = _last_step(v, sites)
    if last is False:
        return None
    floors = []
    for z, tests in sorted(need.items()):
        bs = v.bs if last is None else _cut_bounds(v, last)
        if bs is None:
            return None
        for b in bs:
            start = b.flow.placed.get(z, 0)
            taken = _taken_out(v, b, z, None)
            if taken is None:
                return None
            floor = start - taken
            if any(not _false_at(floor, op, k) for op, k in tests):
                return None
            floors.append((z, start, taken, floor))
    z, start, taken, floor = min(floors, key=lambda x: x[3])
    if last is None:
        until = "in the whole game"
    else:
        step = spec.rounds.body.stmts[last]
        named = f"'{step.name}'" if isinstance(step, ir.Phase) else f"{last + 1} (line {step.span.line})"
        until = f"up to the end of the last round's step {named}, after which nothing reads it"
    lines = ", ".join(str(x) for x in sorted({s.stmt.span.line for s in sites if s.stmt is not None}))
    where = f" (line{'s' if ',' in lines else ''} {lines})" if lines else ""
    return (f"it is read only behind a test that {z} is nearly empty{where}; {z} starts with {start} "
            f"cards and the rules take at most {taken} out of it {until} (cards put back only add to it): it "
            f"always holds at least {floor} until then, too many for those tests")


def read_elsewhere(spec: ir.Spec, name: str) -> bool:
    """Whether the spec reads `name` outside the rules read_sites walks (the setup, rounds, scoring,
    procedures and defs): in the winner line, a zone's capacity, a supply, a token's `when short
    ruling`, a card table's `assumed`...  Such a read has no test on a pile around it, so nothing
    here says it never happens (the worked examples aside)."""
    if any(t.short_ruling == name for t in spec.tokens) or any(c.assumed == name for c in spec.card_sets):
        return True  # named, not written as an expression: read at a short give, or when the cards are laid

    def reads(roots) -> int:
        return sum(isinstance(n, ir.Param) and n.name == name for r in roots if r is not None for n in ir.walk(r))
    walked = [spec.setup, spec.rounds, spec.scoring] + [p.body for p in spec.procedures] + [d.body for d in spec.defs]
    return reads([attrs.evolve(spec, examples=())]) > reads(walked)


def _last_step(v: Verifier, sites) -> int | None | bool:
    """The last step of the rounds in which a read can happen (None: any, or not known; False: no
    context reads it at all, which this technique does not claim)."""
    if any(s.stmt is None for s in sites) or v.spec.rounds is None:
        return None  # a read in a def's body, or no rounds: anywhere
    steps = set()
    for b in v.bs:
        for site in b.sites:
            rs = [s for s in sites if s.stmt is site.node]
            if not rs or site.firings == 0:
                continue
            for r in rs:
                own = r.written[len(r.written) - r.own:] if r.own and _reads_once(r.stmt) else ()
                with b.reading_in(site.env):
                    if any(b.truth(t) is False for t in own):
                        continue
                if site.stage is None or site.stage[0] != "rounds":
                    return None
                steps.add(site.stage[1])
    if not steps:
        return False
    last = max(steps)
    return None if last >= len(v.spec.rounds.body.stmts) - 1 else last


def _cut_bounds(v: Verifier, last: int) -> list[Bounds] | None:
    """The bounds of the rules with every step after `last` run only while round < the rounds'
    count (each setup branch), kept on the verifier."""
    cache = v.__dict__.setdefault("_cut_bounds", {})
    if last not in cache:
        rounds = v.spec.rounds
        count = rounds.count if rounds.count is not None else rounds.cap
        if count is None:
            cache[last] = None
            return None
        stmts = list(rounds.body.stmts)
        for i in range(last + 1, len(stmts)):
            s = stmts[i]
            test = ir.BinOp("<", ir.Builtin("round", span=s.span), count, span=s.span)
            # a span of its own: what is keyed by a statement's site stays the wrapped statement's
            stmts[i] = ir.If(((test, ir.Block((s,), span=s.span)),), None,
                             span=attrs.evolve(s.span, col=-1 - s.span.col))
        cut = attrs.evolve(v.spec, rounds=attrs.evolve(rounds, body=attrs.evolve(rounds.body, stmts=tuple(stmts))))
        t = copy.copy(v.t)
        t.spec = cut
        cache[last] = [Bounds(t, loc) for _, loc in v.branches]
    return cache[last]
