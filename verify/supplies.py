"""The supplies property: can a token supply or a pile drawn from run short?

A token supply is proved never short when z3 finds no way for the rules that
give it, each firing as often as the rule structure allows, to ask for more
than the supply, or when its tokens lie on cards (verify/ledger.py); a pile,
when every draw takes at most what it holds (a guard, a `min`, the setup's
own draws fitting, a refill from the players just before: verify/refill.py)
or when everything the rules can take out of it fits in what it holds, from
the start or from the end of the setup (verify/setup_counts.py), counted per
resolution of a laid card where need be (verify/deck_uses.py).  Otherwise
games are steered towards the shortage, and one that finds it is the witness.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from soan.dsl import ir
from soan.dsl.analysis import conjuncts, counts_cards_of, parent_blocks, rule_roots

from . import climb as cooperative, solver, stepwise, turn_plan
from .bounds import Bounds
from .card_tokens import card_tokens
from .deck_uses import fits_per_resolution
from .findings import Finding
from .flow import opening_steps
from .ledger import ledger
from .marked import marked
from .refill import refilled_before
from .search import Witness, observe, pile_drawn, tokens_out
from .setup_counts import SetupCounts

if TYPE_CHECKING:
    from .properties import Verifier

_unconditional = opening_steps

def _token_proof(v: Verifier, name: str, supply: int) -> tuple:
    """What the rules prove of a token's supply, from the bounds alone (no game): (the gives' bound, the
    tokens on cards, those counted on the cards a give can reach, a finding proving it never short or None).
    Worked out once a run (remembered on the Verifier: the choice of the tokens to plan, the planned
    searches' process and check() all ask), the finding handed out as a copy of its own."""
    memo = v.token_proofs
    if name not in memo:
        memo[name] = _prove_token(v, name, supply)
    proof, one, marks, proved = memo[name]
    return proof, one, marks, None if proved is None else attrs.evolve(proved, bounds=dict(proved.bounds))


def _prove_token(v: Verifier, name: str, supply: int) -> tuple:
    claim = f"token '{name}' (supply {supply}) never runs short"
    proofs = []
    for b in v.bs:
        terms = []
        for site in v._sites(ir.Give, b):
            if site.node.token != name:
                continue
            iv = b.value_at(site, site.node.amount) or (None, None)
            terms.append((f"line {site.node.span.line}", iv[0], iv[1], site.firings))
        proofs.append(solver.never_exceeds(terms, supply))
    proof = next((p for p in proofs if p.status != "proved"), proofs[0])
    held = one = marks = None
    if proof.status != "proved":  # tokens that lie on cards: bounded by the cards, not by the gives
        held = [ledger(b, name) for b in v.bs]
        if all(h is not None and h.most <= supply for h in held):
            h = max(held, key=lambda h: h.most)
            return proof, one, marks, Finding(
                "supplies", name, "proved", claim,
                f"a player's '{name}' is never more than the {h.field} (above {h.lowest}) of "
                f"their cards in {h.zone} (an invariant each give, return and change of "
                f"{h.field} keeps), and the {h.cards} cards that can lie there hold at most "
                f"{h.most} in all",
                bounds={"supply": supply, "most_out": h.most})
        one = [card_tokens(b, name) for b in v.bs]  # one token per card (verify/card_tokens.py)
        if all(h is not None and h.most <= supply for h in one):
            h = max(one, key=lambda h: h.most)
            return proof, one, marks, Finding("supplies", name, "proved", claim, h.reason(),
                                              bounds={"supply": supply, "most_out": h.most})
        # ... counted only on the cards a give can reach (verify/marked.py)
        marks = [marked(b, h) if h is not None else None for b, h in zip(v.bs, one)]
        if all(m is not None and m.most <= supply for m in marks):
            k = max(range(len(marks)), key=lambda i: marks[i].most)
            return proof, one, marks, Finding("supplies", name, "proved", claim, marks[k].reason(one[k]),
                                              bounds={"supply": supply, "most_out": marks[k].most})
    return proof, one, marks, None


def _may_plan(v: Verifier, proof, marks) -> bool:
    """Whether check() takes the turn-planned search (should no game seen so far show the supply short)."""
    return proof.status != "proved" and bool(v.max_games) and marks is not None and None not in marks


def check(v: Verifier) -> list[Finding]:
    out = []
    for name, tok in v.t.tokens.items():
        supply = v.t.supply_size(name)
        rule = f"ruling {tok.short_ruling}" if tok.when_short == "ruling" else tok.when_short
        claim = f"token '{name}' (supply {supply}) never runs short"
        proof, one, marks, proved = _token_proof(v, name, supply)
        if proved is not None:
            out.append(proved)
            continue
        w = _short_supply(v, name)
        # tokens one per card, more cards a give can reach than the supply: cards gathered, then worked
        planned = _may_plan(v, proof, marks)
        if w is None and planned:
            _planned_short(v, name, supply)
            w = _short_supply(v, name)
        if w is None and proof.status != "proved" and not planned:  # push games towards taking every token out
            v._push(f"the supply of {name}", _supply_pressure(name, supply), goal=supply + 1,
                       steer=tokens_out(name, supply), steer_chance=True)
            w = _short_supply(v, name)
        if w is None and proof.status != "proved" and v.max_games and not planned:  # every seat taking tokens
            _cooperative_short(v, name, supply)
            w = _short_supply(v, name)
        if w is None and proof.status != "proved" and v.max_games and not planned:  # a game grown round by round
            _stepwise_short(v, name, supply)
            w = _short_supply(v, name)
        depends = [tok.short_ruling] if tok.when_short == "ruling" else []
        if proof.status == "proved":
            out.append(Finding("supplies", name, "proved", claim,
                               f"every rule that gives '{name}' firing as often as it can asks for at most {supply}",
                               bounds={"supply": supply}))
        elif w is not None:
            path, moves = v._witness(w, f"supply-{name}")
            out.append(Finding("supplies", name, "witnessed", f"token '{name}' can run short",
                               f"the spec says: when short {rule}", problem=False,
                               bounds={"supply": supply, "demand_allowed": proof.value}, witness=path, moves=moves,
                               depends_on=depends + sorted(w.record.log["consulted_rulings"])))
        else:
            out.append(Finding("supplies", name, "unknown", claim,
                               f"{proof.reason}{_too_many_cards(one, marks)}; not seen short in {v.s.games} games "
                               f"(when short: {rule})",
                               bounds={"supply": supply, "demand_allowed": proof.value}, depends_on=depends))
    piles: dict[str, list] = {}
    for b in v.bs:
        for site in v._sites(ir.Draw, b):
            src = site.node.source
            # a draw from a procedure's parameter counts for every pile the parameter can be
            zones = b.flow.taken_from.get(site.node.span.site)
            if isinstance(src, ir.SharedZone | ir.Attr) or zones is None:
                names = [src.name] if isinstance(src, ir.SharedZone | ir.Attr) else [f"line {site.node.span.line}"]
            else:
                names = sorted(zones)
            for name in names:
                piles.setdefault(name, []).append((b, site))
    for name, sites in piles.items():
        lines = ", ".join(sorted({str(s.node.span.line) for _, s in sites}, key=int))
        where = f"draws from {name}"
        ws = [v.s.marks[k] for k in {("short_draw", s.node.span.site) for _, s in sites} if k in v.s.marks]
        why = _pile_never_short(v, name, sites)
        short_keys = {("short_draw", s.node.span.site) for _, s in sites}
        steer = pile_drawn(v.t, name, {s.node.span.site for _, s in sites})
        if why is None and not ws and steer is not None:  # push games towards emptying the pile
            v._push(f"emptying {name}", lambda rec: (steer(rec.state), 0), goal=1000, steer=steer)
            ws = [v.s.marks[k] for k in short_keys if k in v.s.marks]
        if why is not None:
            out.append(Finding("supplies", where, "proved", f"a draw from {name} never finds it short", why))
        elif ws:
            w = min(ws, key=lambda w: w.length)
            path, moves = v._witness(w, f"short-draw-{name}")
            out.append(Finding("supplies", where, "witnessed", f"a draw from {name} can find it short",
                               f"the spec names no rule for it (lines {lines}): the engine draws what is left",
                               problem=True, witness=path, moves=moves,
                               depends_on=sorted(w.record.log["consulted_rulings"])))
        else:
            out.append(Finding("supplies", where, "unknown", f"a draw from {name} never finds it short",
                               f"no draw at lines {lines} is guarded by a count of the pile, draws at most what "
                               f"it holds, or fits in what it holds from the start; not seen short in "
                               f"{v.s.games} games"))
    return out

def _too_many_cards(one, marks=None) -> str:
    """What the one-token-per-card ledger read, when it holds but allows more than the supply."""
    if not one or any(h is None for h in one):
        return ""
    h = max(one, key=lambda h: h.most)
    said = f"; one token per card of {h.zone} whose {h.field} is above {h.lowest}, and up to {h.most} such cards"
    if marks and all(m is not None for m in marks):
        m = max(marks, key=lambda m: m.most)
        said += (f" (of them at most {m.most} whose {m.field} is {m.value}, the only cards a give reaches: "
                 f"{m.setup} from the setup and {m.rounds} moved in by the rounds)")
    return said

def _short_supply(v: Verifier, name: str) -> Witness | None:
    return next((w for (k, site), w in v.s.marks.items() if k == "short_supply" and site[0] == name), None)

def _pile_never_short(v: Verifier, name: str, sites: list) -> str | None:
    """Why no draw from the pile can find it short, or None.  Each draw must
    take at most what the pile holds when it runs: a `min` with its count, a
    test of its count around it, or (for a draw in the setup) everything the
    setup takes out of the pile up to that draw fits in what it started with;
    or everything the rules can ever take out of it fits in that."""
    reasons = set()
    for b, site in sites:
        why = _draw_fits(b, site) or _fits_at_start(v, b, name, site) or \
            refilled_before(b, site.node, _parents(v))
        if why is None:
            break
        reasons.add(why)
    else:
        return "; ".join(sorted(reasons))
    if all((taken := _taken_out(v, b, name, None)) is not None and taken <= b.flow.placed.get(name, 0)
           for b in v.bs):
        return (f"everything the rules can ever take out of {name} fits in the cards it holds from the start "
                f"(for each outcome of the setup's opening picks)")
    return _fits_after_setup(v, name) or _fits_per_resolution(v, name)


def _fits_per_resolution(v: Verifier, name: str) -> str | None:
    """What the setup leaves the pile covers what the rounds take, counted per laid card (verify/deck_uses.py)."""
    return fits_per_resolution(v, name, lambda b, among: _taken_out(v, b, name, among))

def _parents(v: Verifier) -> dict:
    if not hasattr(v, "_parent_blocks"):
        v._parent_blocks = parent_blocks(rule_roots(v.spec))
    return v._parent_blocks

def _fits_after_setup(v: Verifier, name: str) -> str | None:
    """The setup read on card counts (verify/setup_counts.py) leaves the pile at least k cards on
    every path, its own draws fitting on the way, and everything the rest of the rules can take
    out of the pile fits in k."""
    if not hasattr(v, "_setup_counts"):
        v._setup_counts = SetupCounts(v.b)  # the whole setup from where the spec deals the cards
    sc = v._setup_counts
    least = sc.least_after(name)
    if least is None or not sc.draws_fit(name):
        return None
    later = _sites_under(v.spec, [x for x in (v.spec.rounds, v.spec.scoring) if x is not None])
    for b in v.bs:
        taken = _taken_out(v, b, name, later)
        if taken is None or taken > least:
            return None
    return (f"the setup leaves {name} at least {least} cards whatever the players choose (its own draws "
            f"fitting on the way), and everything the rest of the rules can take out of it fits in them")

def _fits_at_start(v: Verifier, b: Bounds, name: str, site) -> str | None:
    """A draw in the setup's own steps: what the setup takes out of the pile up to and
    including that step fits in what the pile holds at the start."""
    steps = list(_unconditional(v.spec.setup))
    for i, st in enumerate(steps):
        upto = _sites_under(v.spec, steps[: i + 1])
        if site.node.span.site in _sites_under(v.spec, [st]):
            taken = _taken_out(v, b, name, upto)
            if taken is not None and taken <= b.flow.placed.get(name, 0):
                return f"the setup's draws from {name} up to line {site.node.span.line} fit in its {b.flow.placed.get(name, 0)} cards"
            return None
    return None

def _taken_out(v: Verifier, b: Bounds, name: str, among: set | None) -> int | None:
    """The most cards the rules (or the statements at `among`) can take out of zone `name` in one game."""
    taken = 0
    for site in b.sites:
        node = site.node
        if not isinstance(node, MOVES) or (among is not None and node.span.site not in among):
            continue
        src = b.flow.taken_from.get(node.span.site, None)
        if src is not None and name not in src:
            continue
        if site.firings is None:
            return None
        many = (b.value_at(site, node.count) if isinstance(node, ir.Draw) else None)
        many = (many[1] if many else None) if isinstance(node, ir.Draw) else \
            1 if isinstance(node, ir.Move) and _single(b, site, node.what) else \
            _size_at(b, site, node.what) if isinstance(node, ir.Move) else None
        if many is None:
            return None
        taken += site.firings * max(0, many)
    return taken


MOVES = (ir.Move, ir.Draw, ir.Exchange)


def _single(b: Bounds, site, e) -> bool:
    with b.reading_in(site.env):
        return b.val(e).one


def _size_at(b: Bounds, site, e) -> int | None:
    with b.reading_in(site.env):
        return b.size(e)


def _sites_under(spec: ir.Spec, stmts) -> set:
    """The sites of every statement under `stmts`, and of the procedures they run."""
    procs = {p.name: p.body for p in spec.procedures}
    out, todo, seen = set(), list(stmts), set()
    while todo:
        for n in ir.walk(todo.pop()):
            if isinstance(n, ir.Stmt):
                out.add(n.span.site)
            if isinstance(n, ir.Do) and n.proc not in seen:
                seen.add(n.proc)
                todo.append(procs[n.proc])
    return out


def _draw_fits(b: Bounds, site) -> str | None:
    """Why this draw takes at most what its pile holds when it runs, or None."""
    d = site.node
    line = d.span.line
    if isinstance(d.count, ir.Call) and d.count.func == "min" and any(counts_cards_of(a, d.source) for a in d.count.args):
        return f"the draw at line {line} takes at most the pile's count"
    need = b.value_at(site, d.count)
    if need is None:
        return None
    for g in site.guards:
        for c in conjuncts(g):
            if _at_least_the_count(c, d.source, d.count):
                return f"the draw at line {line} takes at most what the test or `min` at line {g.span.line} left in the pile"
            at_least = _count_at_least(b, site, c, d.source)
            if at_least is not None and at_least >= need[1]:
                return f"the draw at line {line} runs only when the test at line {g.span.line} holds"
    return None


def _at_least_the_count(c, source, count) -> bool:
    """Whether the condition `c` says the pile holds at least `count` cards, `count`
    being a local (`count(pile) >= k` from `let k = min(n, count(pile))`, or a loop's test)."""
    if not isinstance(count, ir.Local):
        return False
    match c:
        case ir.BinOp(op=">=", left=l, right=ir.Local(name=k)) if counts_cards_of(l, source):
            return k == count.name
        case ir.BinOp(op="<=", left=ir.Local(name=k), right=r) if counts_cards_of(r, source):
            return k == count.name
    return False


def _count_at_least(b: Bounds, site, c, source) -> int | None:
    """The least number of cards in `source` that the condition `c` guarantees, or None."""
    with b.reading_in(site.env):
        match c:
            case ir.BinOp(op=">=" | ">", left=l, right=r) if counts_cards_of(l, source):
                lo = b.int_min(r)
                return None if lo is None else lo + (c.op == ">")
            case ir.BinOp(op="<=" | "<", left=l, right=r) if counts_cards_of(r, source):
                lo = b.int_min(l)
                return None if lo is None else lo + (c.op == "<")
            case ir.BinOp(op="!=", left=l, right=ir.Int(value=0)) if counts_cards_of(l, source):
                return 1
            case ir.Not(operand=ir.BinOp(op="<" | "<=", left=l, right=r)) if counts_cards_of(l, source):
                lo = b.int_min(r)
                return None if lo is None else lo + (c.operand.op == "<=")
        return None


def _supply_pressure(token: str, supply: int):
    """A game's value when looking for a token shortage: how many tokens left the supply
    (the climb's objective, so it climbs rather than drifts), one more once it ran short."""
    def value(rec):
        st = rec.state
        short = any(k == "short_supply" and site[0] == token for k, site in st.first_marks)
        return (supply - st.supply[token] + int(short), 0)
    return value


# the cooperative search for a token shortage: engine steps per game of --games, and the beam's shape
# (wide and shallow: tokens out show at once, so no look-ahead; width is what finds the corner); first a
# narrow probe (PROBE_SHAPE, a PROBE_SHARE of the steps): where it takes out less than half the supply, a
# wider beam will not double it (tokens that only come out after others went back need a plan, not width),
# and the steps are saved
COOPERATIVE_SUPPLY_STEPS_PER_GAME = 600
COOPERATIVE_SUPPLY_SHAPE = (48, 6, 0, 0)
PROBE_SHAPE = (8, 6, 0, 0)
PROBE_SHARE = 6


def _cooperative_short(v: Verifier, name: str, supply: int) -> None:
    """Where steered games and the push stop short: a search in which every seat takes
    tokens out of the supply and chance outcomes are chosen (verify/climb.py), since
    whether a give can find it short is a question of reachability, not strategy.  Its
    games are observed like the others, so a shortage is marked and replayed as any is."""
    v.progress(f"searching for a game in which every seat takes {name} out of its supply")
    work = v.max_games * COOPERATIVE_SUPPLY_STEPS_PER_GAME

    def search(shape, steps):
        return cooperative.reach(v.t, f"supply:{name}", 1, supply + 1, v.seed, steps,
                                 on_game=lambda rec: observe(v.s, rec, v.t),
                                 stop=v.out_of_time,
                                 objective=cooperative.supply_objective(name, supply),
                                 settled=lambda val: val[0] > supply, shape=shape, choose_chance=False)

    probe = search(PROBE_SHAPE, work // PROBE_SHARE)
    if probe is not None and supply < probe[0] * 2 <= 2 * supply:
        search(COOPERATIVE_SUPPLY_SHAPE, work - work // PROBE_SHARE)
    if v.out_of_time():  # the wall-clock limit cut it short, which the output says
        v.s.cut_short = True


# the round-by-round search (verify/stepwise.py): engine steps per game of --games (the shipped supply it
# was made for is found short within 120 games' worth from each of eight seeds tried, not within half of it)
STEPWISE_STEPS_PER_GAME = 1000


def _grown_short(v: Verifier, name: str, supply: int, grow, steps_per_game: int, what: str, **more) -> None:
    """One game grown a round at a time by `grow` (stepwise.extend or turn_plan.plan) towards the
    tokens out plus what the players hold that a rule turns into tokens.  Observed like the other
    games, so a shortage is marked and replayed as any is."""
    v.progress(f"{what} towards {name} running short")
    _grown_games(v, name, supply, grow, steps_per_game, lambda rec: observe(v.s, rec, v.t), **more)
    if v.out_of_time():  # the wall-clock limit cut it short, which the output says
        v.s.cut_short = True


def _grown_games(v: Verifier, name: str, supply: int, grow, steps_per_game: int, on_game, **more) -> None:
    """_grown_short's games, each passed to `on_game`: a function of the spec, the player count, the seed,
    the number of games and the bounds, of no game played before it."""
    grow(v.t, stepwise.potential_objective(v.t, name, supply), v.seed, v.max_games * steps_per_game,
         settled=lambda val: val[0] == 1, stop=v.out_of_time,
         on_game=on_game, **more)


def _stepwise_short(v: Verifier, name: str, supply: int) -> None:
    """Where the beam's greedy steps stop short (a give that pays for what was gathered and
    aimed at rounds before): each round's course improved on the potential where it ends."""
    _grown_short(v, name, supply, stepwise.extend, STEPWISE_STEPS_PER_GAME, "growing a game round by round")


# the turn-planned search (verify/turn_plan.py): engine steps per game of --games (the shipped supply it
# was made for, at 4 players, is found short from seed 0 within 95 games' worth)
PLANNED_STEPS_PER_GAME = 1000
# of each round's courses, how many choose their luck (verify/luck.py) instead of drawing it, and which way
# (luck.Course): every course, luck.Course(4): each pile takes the stacked ordering that way picks (a pile
# whose cards differ in one number only: lowest first), rolls drawn.  On the shipped supply it was made for (one per card, 4 players, two
# drafts) the six ways from seed 0 ended 16.5-29 or short, this one short in both; from seeds 0-3 it found
# 5 of 8 short, where drawn luck finds 2 of 12 from seeds 0-5 (docs/verify.md, *Chosen luck*)
PLANNED_CHOSEN = turn_plan.TRIES
PLANNED_LUCK = 4


def _planned_short(v: Verifier, name: str, supply: int) -> None:
    """Tokens that lie one per card, where more cards than the supply can take one: a game in
    which every seat's run of decisions is planned as one move (lay the cards out, gather more,
    then work the right ones), a round at a time.  It takes the place of the searches that value
    one decision at a time, which do not gather first.  Its games depend on no game played before
    them: with jobs, planned_ahead played them in another process, and they are observed here in
    the order they were played (the same findings for any number of jobs)."""
    ahead = v.planned_ahead().get(name)
    if ahead is None:
        _grown_short(v, name, supply, turn_plan.plan, PLANNED_STEPS_PER_GAME, "planning every seat's turns",
                     **_plan_options(v, supply))
        return
    v.progress(f"planning every seat's turns towards {name} running short")
    for rec in ahead:
        rec.state.t = v.t  # a record from another process comes back without the tables
        observe(v.s, rec, v.t)
    if v.out_of_time():  # the wall-clock limit cut it short, which the output says
        v.s.cut_short = True


def _plan_options(v: Verifier, supply: int) -> dict:
    return dict(hopeless=out_of_pace(supply, v.b.round_bound), chosen=PLANNED_CHOSEN, first_luck=PLANNED_LUCK)


def planning_tokens(v: Verifier) -> list[str]:
    """The tokens whose proofs leave the turn-planned search to be taken should the games seen not show
    them short (check() takes it for these and no other), in the spec's order."""
    out = []
    for name in v.t.tokens:
        proof, _, marks, proved = _token_proof(v, name, v.t.supply_size(name))
        if proved is None and _may_plan(v, proof, marks):
            out.append(name)
    return out


def planned_games(v: Verifier, names: list[str]) -> dict:
    """The turn-planned games (those _planned_short plays) of each token in `names` (planning_tokens):
    token -> the games, in the order played.  A token whose search breaks a rule is left out (played
    again where it is wanted)."""
    out = {}
    for name in names:
        supply = v.t.supply_size(name)
        games: list = []
        try:
            _grown_games(v, name, supply, turn_plan.plan, PLANNED_STEPS_PER_GAME, games.append,
                         **_plan_options(v, supply))
        except Exception:  # noqa: BLE001 - where it is wanted the search runs again and says what broke
            continue
        out[name] = games
    return out


# the turn-planned search gives up where its pace cannot reach a shortage: from the second round's end
# on (the first round carries the setup's own gathering), when the potential kept plus the largest rise
# one round after the first has made, PACE_SLACK times over for every round left, stays below the
# supply's end.  On the shipped supply it was made for (one per card, 4 players; two drafts, seeds 0 and
# 1) the plans that find a shortage rise 4.5-5.5 a round after the first and go on; the two that end
# 2-6 short of it rose 3 in round 2 and give up there, about 40,000 of 110,000 steps saved (docs/verify.md)
PACE_SLACK = 1.5


def out_of_pace(supply: int, rounds: int | None):
    """turn_plan.plan's `hopeless` for stepwise.potential_objective's values: (1, ...) once short, else
    (0, potential); `rounds`: the most rounds a game can have (None: unknown, never hopeless)."""
    def hopeless(kept: list, st) -> bool:
        if rounds is None or len(kept) < 3 or kept[-1][0] != 0:
            return False
        left = rounds - st.round + 1  # the state kept stands at the start of round st.round
        rise = max(b[1] - a[1] for a, b in zip(kept[1:], kept[2:]))
        return kept[-1][1] + PACE_SLACK * max(rise, 0) * max(left, 0) < supply + 1
    return hopeless
