"""What a player keeps in hand is what they did not place: an award read off the pieces left over.

Say a step of the rounds places a player's pieces from a hand p.H (verify/budget.py: no move or draw of
that step puts a card into H, so each placement takes one piece out and none comes back), and in the
same step an award reads the hand: `let w = count(p.H)  award w * R to p` (R never below 0, at most c).
Read alone it fires once a round with the hand full: c x h x rounds.  But when

- it fires at most once per run of the step for p (a flag f latches it: it lies after `set p.f = true`
  under a guard `not p.f`, and nothing sets f back in that step: Bounds._latched), and
- no placement of the step can follow it for p in that run: read over the step's statements (the
  procedures inlined), every placement for p lies under a guard `not p.f` tested afresh (an `if`, or
  the filter of a loop over distinct players, whose other iterations may not set f for anyone else),
  with no `set ... .f = true` between the guard and the placement,

then in each run it reads at most h less the placements made before it, which are all the run's
placements: over a game at most c x (h x rounds - P), P the player's placements of that step.  The
pieces not placed are a share of the placements' budget of their own (verify/budget.py, total_max), so
the total reads the items that need placements and the one that rewards keeping them from one sharing.
Where any condition fails, nothing is cut."""

from __future__ import annotations

from soan.dsl import ir


def left_awards(b, groups: dict, placing: dict) -> dict:
    """site index -> (group, c): the awards whose amount is the count of a placement group's hand, for
    the placing player, times a part in 0..c, under the conditions above."""
    memo = b.__dict__.get("_hand_left")
    if memo is not None:
        return memo
    out: dict = {}
    for x, s in enumerate(b.sites):
        node = s.node
        if not isinstance(node, ir.Award) or not isinstance(node.player, ir.Local) or s.stage is None:
            continue
        for group in groups:
            hand, stage = group
            if stage != s.stage:
                continue
            c = _coefficient(b, s, node.player.name, hand)
            if c is None:
                continue
            flag = _latch(b, s)
            if flag is not None and _ordered(b, group, groups[group][1], placing, flag, node):
                out[x] = (group, c)
                break
    b.__dict__["_hand_left"] = out
    return out


def _coefficient(b, s, who: str, hand: str) -> int | None:
    """c when the award's amount is count(who.hand) x a part in 0..c (a local bound just before to the
    count, with no statement between that may move a card), else None."""
    amount = s.node.amount
    if not (isinstance(amount, ir.BinOp) and amount.op == "*"):
        return None
    for counted, other in ((amount.left, amount.right), (amount.right, amount.left)):
        if _hand_count(b, s, counted, who, hand):
            iv = b.value_at(s, other)
            if iv is not None and iv[0] is not None and iv[1] is not None and iv[0] >= 0:
                return iv[1]
    return None


def _hand_count(b, s, e, who: str, hand: str) -> bool:
    match e:
        case ir.Call(func="count", args=(ir.Attr(obj=ir.Local(name=name), name=zone),)) \
                | ir.Agg(func="count", coll=ir.Attr(obj=ir.Local(name=name), name=zone), where=None, value=None):
            return name == who and zone == hand
        case ir.Local(name=name):
            bound = _let_before(b, s.node, name)
            return bound is not None and _hand_count(b, s, bound, who, hand)
    return False


def _let_before(b, award, name: str):
    """The value of `let name = ...` earlier in the award's block, when every statement between only
    sets numbers, binds other locals or awards (nothing there moves a card or rebinds a name it reads)."""
    from . import placed

    parents = placed._parents(b)
    if id(award) not in parents:
        return None
    block, k = parents[id(award)]
    for j in range(k - 1, -1, -1):
        st = block.stmts[j]
        if isinstance(st, ir.Let) and st.name == name:
            reads = ir.free_locals(st.value) | {name}
            between = block.stmts[j + 1:k]
            if all(isinstance(x, (ir.Set, ir.Let, ir.Award, ir.Give)) for x in between) and not any(
                    (isinstance(x, ir.Let) and x.name in reads)
                    or (isinstance(x, ir.Set) and isinstance(x.target, ir.Local) and x.target.name in reads)
                    for x in between):
                return st.value
            return None
    return None


def _latch(b, s) -> str | None:
    """A flag that latches the award to once per run of its step for its player (Bounds._latched)."""
    for flag in s.latch:
        resets = [x for x in b.sites if isinstance(x.node, ir.Set) and isinstance(x.node.target, ir.Attr)
                  and x.node.target.name == flag
                  and not (x.node.op == "=" and x.node.value == ir.Bool(True))]
        if all(x.stage is not None and x.stage != s.stage for x in resets):
            return flag
    return None


class _Fail(Exception):
    pass


def _ordered(b, group, moves: list, placing: dict, flag: str, award) -> bool:
    """Whether, read over the step's statements, the award follows a `set p.flag = true` and no
    placement of the group follows one before a fresh guard `not p.flag` (see the module's doc)."""
    step = next((st for st, stage in _step_statements(b) if stage == group[1]), None)
    if step is None:
        return False
    nodes = {id(b.sites[i].node): placing[id(b.sites[i].node)][1] for i, *_ in moves}
    walker = _Walker(b, flag, nodes, award)
    try:
        walker.stmts((step,), (False, False), None)
    except _Fail:
        return False
    return walker.award_seen


def _step_statements(b) -> list:
    stages = b._stages
    out = []
    for root in b._roots():
        for n in ir.walk(root):
            if id(n) in stages:
                out.append((n, stages[id(n)]))
    return out


def _join(a, c):
    return (a[0] or c[0], a[1] or c[1])


class _Walker:
    """The state: (may p.f have been set true since the last fresh guard, may some other player's),
    p the local naming the placer in the scope read (None: no fresh guard around)."""

    def __init__(self, b, flag: str, placements: dict, award):
        self.b, self.flag, self.placements, self.award = b, flag, placements, award
        self.stack: list[str] = []
        self.award_seen = False

    def stmts(self, stmts, state, who):
        for st in stmts:
            state, who = self.stmt(st, state, who)
        return state

    def loop(self, body: ir.Block, state, who):
        """A body run any number of times: read until the state stops growing."""
        out = state
        for _ in range(4):
            nxt = _join(out, self.stmts(body.stmts, out, who))
            if nxt == out:
                return out
            out = nxt
        return out

    def stmt(self, st, state, who):
        from .bounds import _unflagged  # bounds imports this module's users

        f = self.flag
        if id(st) in self.placements:
            if who is None or self.placements[id(st)] != who or state != (False, False):
                raise _Fail
            return state, who
        match st:
            case ir.Set(target=ir.Attr(obj=obj, name=name)) if name == f and not (
                    st.op == "=" and st.value == ir.Bool(False)):
                if isinstance(obj, ir.Local) and obj.name == who:
                    return (True, state[1]), who
                return (state[0], True), who
            case ir.Award() if st is self.award:
                if not (isinstance(st.player, ir.Local) and st.player.name == who and state[0]):
                    raise _Fail
                self.award_seen = True
                return state, who
            case ir.Let(name=name):
                return state, (None if name == who else who)
            case ir.If(branches=branches, orelse=orelse):
                out = state if orelse is None else self.stmts(orelse.stmts, state, who)
                for test, blk in branches:
                    entry = (False, False) if who is not None and f in _unflagged(test, who) else state
                    out = _join(out, self.stmts(blk.stmts, entry, who))
                return out, who
            case ir.For(var=var, coll=coll, where=where, body=body) if self.b._distinct_players(coll):
                # each player once: a set for the player of one pass is for no other's, a set for anyone
                # else may be for a later pass's; a filter is read when the loop starts, a fresh guard
                # only where nothing sets the flag for anyone else
                seen = state[0] or state[1]
                fresh = where is not None and f in _unflagged(where, var)
                entry = (False, False) if fresh else (seen, seen)
                out = self.stmts(body.stmts, entry, var)
                if out[1] and entry != (True, True):
                    out = _join(out, self.stmts(body.stmts, (True, True), var))
                seen = out[0] or out[1]
                return (state[0] or seen, state[1] or seen), who
            case ir.For(var=var, body=body):
                return self.loop(body, state, None if var == who else who), who
            case ir.While(body=body) | ir.Repeat(body=body):
                return self.loop(body, state, who), who
            case ir.Phase(body=body):
                return self.stmts(body.stmts, state, who), who
            case ir.Choose(var=var, options=options, body=body, orelse=orelse):
                inner = None if var == who else who
                out = state
                for o in options:
                    out = _join(out, self.stmts(o.body.stmts, state, who))
                if body is not None:
                    out = _join(out, self.stmts(body.stmts, state, inner))
                if orelse is not None:
                    out = _join(out, self.stmts(orelse.stmts, state, who))
                return out, who
            case ir.Pick(var=var, body=body):
                return _join(state, self.stmts(body.stmts, state, None if var == who else who)), who
            case ir.Do(proc=proc, args=args):
                if proc in self.stack:
                    raise _Fail
                p = self.b._procs[proc]
                inner = next((q for q, a in zip(p.params, args) if isinstance(a, ir.Local) and a.name == who),
                             None) if who is not None else None
                self.stack.append(proc)
                try:
                    return self.stmts(p.body.stmts, state, inner), who
                finally:
                    self.stack.pop()
        if any(isinstance(n, (ir.Block, ir.Stmt)) for n in ir.children(st)):
            raise _Fail  # a statement holding others this reading does not know: nothing is cut
        return state, who
