"""The game state: an explicit, copyable machine that runs a spec's rules.

The contract follows OpenSpiel's: at any time the state is at a decision of
one player, at a chance event, or terminal.  `legal_moves()` are sorted and
stable; `apply(i)` takes the i-th move; `chance_outcomes()` lists outcomes
with probabilities (for a shuffle, lazily: every ordering), `apply_chance(i)`
takes the i-th, and `sample_chance()` draws one.  Everything the rules still have to do is held in an
explicit stack of frames, so a state can be copied in the middle of a round.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

from soan.dsl.errors import SpecRuntimeError
from soan.dsl.limits import MAX_LOOP_PASSES

from .runtime import CardRef, PlayerRef, Tables, ZoneRef, as_list, fmt, int_fits

CHANCE = -1
TERMINAL = -4


class Frame:
    """One running block: its ops, where it is, its variables, and (for loops)
    how to go round again."""

    __slots__ = ("ops", "pc", "env", "loop")

    def __init__(self, ops, env, loop=None):
        self.ops = ops
        self.pc = 0
        self.env = env
        self.loop = loop


class Straight(tuple):
    """The ops of a block that can never stop the machine: one op that carries the whole block out (the
    compiled engine's fused run).  A decision's body of this kind is run at once by State.apply, without a
    frame pushed and popped round State.run: the same statements in the same order."""

    __slots__ = ()


class Move:
    __slots__ = ("label", "value", "sort_key")

    def __init__(self, label: str, value: Any, sort_key=None):
        self.label = label
        self.value = value
        self.sort_key = sort_key if sort_key is not None else (0, label)

    def __repr__(self):
        return f"Move({self.label!r})"


PASS = object()


class Decision:
    __slots__ = ("player", "moves", "var", "env", "body", "orelse", "options", "prompt", "simultaneous", "site")

    def __init__(self, player, moves, var, env, body, orelse, options, prompt, simultaneous, site):
        self.player = player
        self.moves = moves
        self.var = var
        self.env = env
        self.body = body
        self.orelse = orelse
        self.options = options
        self.prompt = prompt
        self.simultaneous = simultaneous
        self.site = site


class LazyDecision(Decision):
    """A decision in a bot's copy (State.lazy_moves) whose moves are made only when read: most of a greedy bot's
    copies are only scored, their next decision never looked at.  `make(*args)` gives the very tuple the choice
    would have made at once; `args` hold what it reads of the state (a LabelView), which nothing changes before the
    moves are read: apply reads them first, clone copies them (so a copy's Decision is a plain one), and an ending
    run on the copy drops the decision unread."""

    __slots__ = ("_moves", "_make", "_args")

    def __init__(self, player, make, args, var, env, body, orelse, prompt, simultaneous, site):
        self.player = player
        self._moves = None
        self._make, self._args = make, args
        self.var, self.env, self.body, self.orelse, self.options = var, env, body, orelse, None
        self.prompt, self.simultaneous, self.site = prompt, simultaneous, site

    @property
    def moves(self) -> tuple:
        m = self._moves
        if m is None:
            m = self._moves = self._make(*self._args)
            self._args = None
        return m


class Chance:
    """A chance event.  `outcomes` is [(label, probability)], or for a shuffle
    the number of cards (every order equally likely).  A pick binds `var` to
    `values[i]` in `env` and runs `body`; a roll sets card `target`'s face; a
    shuffle reorders zone slot `target`."""

    __slots__ = ("kind", "outcomes", "values", "var", "env", "body", "target", "text")

    def __init__(self, kind, outcomes, values=(), var=None, env=None, body=(), target=None, text=""):
        self.kind = kind
        self.outcomes = outcomes
        self.values = values
        self.var = var
        self.env = env
        self.body = body
        self.target = target
        self.text = text

    def describe(self, outcome) -> str:
        if self.kind == "shuffle":
            return f"{self.text}: shuffled"
        return f"{self.text}: {self.outcomes[outcome][0]}"


class LazyChance(Chance):
    """A random pick in a bot's copy (State.lazy_moves) whose outcomes (labels and chances) and values are made only
    when read: a copy is mostly scored where it stands, its pick never drawn.  `make(*args)` gives the very
    (outcomes, values) the pick would have made at once, from what it reads of the state (a LabelView), which
    nothing changes before they are read: drawing or applying an outcome reads them first, clone copies them (a
    copy's Chance is a plain one), and an ending run on the copy drops the pick unread."""

    __slots__ = ("_outcomes", "_values", "_make", "_args")

    def __init__(self, kind, make, args, var, env, body, text):
        self.kind = kind
        self._outcomes = self._values = None
        self._make, self._args = make, args
        self.var, self.env, self.body, self.target, self.text = var, env, body, None, text

    def _made(self) -> None:
        self._outcomes, self._values = self._make(*self._args)
        self._args = None

    @property
    def outcomes(self):
        if self._outcomes is None:
            self._made()
        return self._outcomes

    @property
    def values(self):
        if self._outcomes is None:
            self._made()
        return self._values


class ShuffleOutcomes:
    """The outcomes of a shuffle of n cards: every ordering of the zone, each with probability 1/n!.

    There are n! of them, so they are made on demand: iterating gives (ordering, probability) pairs in
    lexicographic order of the orderings (an ordering is a tuple of positions in the zone before the
    shuffle: (2, 0, 1) puts the third card on top); `outcomes[i]` is the i-th pair; `size` is n!, also
    when it is too big for len() (len() works up to n = 20); `sample(rng)` draws one ordering.
    `State.apply_chance` takes an index into these or an ordering."""

    __slots__ = ("n", "size", "probability")

    def __init__(self, n: int):
        self.n = n
        self.size = math.factorial(n)
        self.probability = Fraction(1, self.size)

    def __len__(self) -> int:
        return self.size

    def __bool__(self) -> bool:
        return True

    def __iter__(self):
        p = self.probability
        return ((perm, p) for perm in itertools.permutations(range(self.n)))

    def __getitem__(self, i: int) -> tuple[tuple[int, ...], Fraction]:
        return self.ordering(i), self.probability

    def ordering(self, i: int) -> tuple[int, ...]:
        """The i-th ordering in lexicographic order (the factorial number system)."""
        if not 0 <= i < self.size:
            raise IndexError(f"a shuffle of {self.n} cards has {self.size} orderings; {i} is not one")
        left, out = list(range(self.n)), []
        for k in range(self.n, 0, -1):
            f = math.factorial(k - 1)
            out.append(left.pop(i // f))
            i %= f
        return tuple(out)

    def sample(self, rng) -> list[int]:
        perm = list(range(self.n))
        rng.shuffle(perm)
        return perm


def _over_budget(loop) -> SpecRuntimeError:
    return SpecRuntimeError(
        f"the game went round its loops more than {MAX_LOOP_PASSES:,} times and was stopped in this {loop.what}",
        getattr(loop, "span", None),
        "does the loop's count, cap or condition say what you meant? every game stops after "
        f"{MAX_LOOP_PASSES:,} loop passes")


class State:
    """One game in progress."""

    # a bot's copy sets this: its choices make their moves, and its random picks their outcomes, only when read
    # (LazyDecision, LazyChance)
    lazy_moves = False

    def __init__(self, tables: Tables, narrate: bool = False):
        t = self.t = tables
        n = t.n
        self.zones: list[list[int]] = list(map(list.copy, t.start_zones))
        self.loc: list[int] = list(t.start_slot)
        self.cs: dict[str, list] = {name: list(col) for name, col in t.state_default.items()}
        self.facedown: list[bool] = [False] * t.n_cards
        self.known: list[int] = [0] * t.n_cards
        self.pv: dict[str, list] = {name: [t.var_default[name]] * n for name in t.player_vars}
        for tok in t.tokens:
            self.pv[tok] = [0] * n
        self.gv: dict[str, Any] = {name: t.var_default[name] for name in t.global_vars}
        self.vp: dict[str, list[int]] = {s: [0] * n for s in t.scores}
        self.supply: dict[str, int] = {}
        self.elim: list[bool] = [False] * n
        self.round = 0
        self.frames: list[Frame] = []
        self.pending: Decision | Chance | None = None
        self.result: dict | None = None
        self.narrate = narrate
        self.events: list[tuple] = []
        self.consulted: set[str] = set()
        self.marks: dict[tuple, int] = {}
        self.first_marks: dict[tuple, int] = {}
        self.mark_events: dict[tuple, int] = {}
        self.loop_peak: dict[tuple, int] = {}  # while loop site -> the most passes one run of it made
        self.steps = 0
        self.passes = 0  # loop passes so far: the game's step budget (MAX_LOOP_PASSES)
        self.ending = False
        self.on_round_end = None  # called with the state as each round ends (playthroughs summarise it)
        # steady defs' values by arguments while a bot's copy ends the game (evaluate.finish_now; codegen's _A_ functions)
        self.memo: dict | None = None
        for name in t.tokens:
            self.supply[name] = t.supply_size(name)

    # ---- the OpenSpiel-style contract -------------------------------------------------

    def start(self) -> "State":
        """Begin the game: run the rules up to the first decision or chance event."""
        self.frames = [Frame(self.t.rules.main_ops, {})]
        self.run()
        return self

    def current_player(self) -> int:
        if self.result is not None:
            return TERMINAL
        if isinstance(self.pending, Chance):
            return CHANCE
        if isinstance(self.pending, Decision):
            return self.pending.player
        return TERMINAL

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def legal_moves(self) -> list[Move]:
        return list(self.pending.moves) if isinstance(self.pending, Decision) else []

    def chance_outcomes(self) -> list[tuple[str, Fraction]] | ShuffleOutcomes | None:
        """At a chance event, its outcomes with probabilities: [(label, probability)] for a roll or a
        pick, and for a shuffle a ShuffleOutcomes (every ordering, made on demand); None elsewhere."""
        if isinstance(self.pending, Chance):
            if isinstance(self.pending.outcomes, int):
                return ShuffleOutcomes(self.pending.outcomes)
            return list(self.pending.outcomes)
        return None

    def sample_chance(self, rng) -> Any:
        c = self.pending
        assert isinstance(c, Chance)
        if isinstance(c.outcomes, int):
            perm = list(range(c.outcomes))
            rng.shuffle(perm)
            return perm
        r = rng.random()
        # r < (running sum of the probabilities), decided exactly in integers (as Fraction would, but
        # without building a Fraction per outcome): r = rn / rd exactly, the sum = an / ad.
        rn, rd = r.as_integer_ratio()
        an, ad = 0, 1
        for i, (_, p) in enumerate(c.outcomes):
            pn, pd = p.numerator, p.denominator
            an, ad = an * pd + pn * ad, ad * pd
            if rn * ad < an * rd:
                return i
        return len(c.outcomes) - 1

    def apply(self, index: int) -> None:
        """Take legal move number `index` at a decision."""
        d = self.pending
        assert isinstance(d, Decision), "not at a decision"
        m = d.moves[index]
        self.pending = None
        self.steps += 1
        if self.narrate:
            self.events.append(("move", d.player, d.prompt or "chooses", m.label, d.simultaneous))
        if m.value is PASS:
            body = d.orelse
        elif d.options is not None:
            body = d.options[m.value]
        else:
            d.env[d.var] = m.value
            body = d.body
        if body:  # (an empty block would be pushed and popped with nothing done)
            if type(body) is Straight:
                try:
                    body[0](self, Frame(body, d.env))
                except RecursionError:  # as State.run reports it
                    raise SpecRuntimeError("a def calls itself too deeply (does it ever stop?)") from None
            else:
                self.frames.append(Frame(body, d.env))
        self.run()

    def apply_chance(self, outcome) -> None:
        c = self.pending
        assert isinstance(c, Chance), "not at a chance event"
        self.pending = None
        self.steps += 1
        if self.narrate:
            self.events.append(("chance", c.describe(outcome)))
        if c.kind == "pick":
            c.env[c.var] = c.values[outcome]
            self.frames.append(Frame(c.body, c.env))
        elif c.kind == "roll":
            self.set_card_state(c.target, "face", outcome + 1, None)
        else:
            order = self.zones[c.target]
            if isinstance(outcome, int) and not isinstance(outcome, bool):
                outcome = ShuffleOutcomes(len(order)).ordering(outcome)
            if sorted(outcome) != list(range(len(order))):
                raise ValueError("a shuffle outcome must be an ordering of the zone's cards")
            self.zones[c.target] = [order[i] for i in outcome]
            for cid in order:
                self.known[cid] = 0
        self.run()

    def run(self) -> None:
        frames = self.frames
        try:
            while self.pending is None and frames:
                f = frames[-1]
                ops = f.ops
                n = len(ops)
                pc = f.pc
                # the frame's ops one after another, round its loop and off the stack, while it stays on top and
                # nothing stops the machine
                while True:
                    if pc < n:
                        f.pc = pc + 1
                        ops[pc](self, f)
                        if self.pending is not None or not frames or frames[-1] is not f:
                            break
                        pc = f.pc
                    elif f.loop is not None and f.loop.next(self, f):
                        pc = f.pc = 0
                        self.passes += 1
                        if self.passes > MAX_LOOP_PASSES:
                            raise _over_budget(f.loop)
                    else:
                        frames.pop()
                        break
        except RecursionError:
            raise SpecRuntimeError("a def calls itself too deeply (does it ever stop?)") from None

    # ---- copying ------------------------------------------------------------------------

    def clone(self, narrate: bool = False) -> "State":
        new = State.__new__(State)
        new.t = self.t
        # each column copied by list.copy (map(list.copy, ...) without a Python-level loop; cheaper than list(...),
        # which goes through the type's call) and each table of columns by a comprehension over its items (cheaper
        # than dict(zip(...)) for a handful of names): a greedy bot copies the state once per legal move
        new.zones = list(map(list.copy, self.zones))
        new.loc = self.loc.copy()
        new.cs = {k: v[:] for k, v in self.cs.items()}
        new.facedown = self.facedown.copy()
        new.known = self.known.copy()
        new.pv = {k: v[:] for k, v in self.pv.items()}
        new.gv = self.gv.copy()
        new.vp = {k: v[:] for k, v in self.vp.items()}
        new.supply = self.supply.copy()
        new.elim = self.elim.copy()
        new.round = self.round
        new.result = None if self.result is None else dict(self.result)
        new.narrate = narrate
        new.events = []
        new.consulted = set(self.consulted)
        new.marks = dict(self.marks)
        new.first_marks = dict(self.first_marks)
        new.mark_events = {}
        new.loop_peak = dict(self.loop_peak)
        new.steps = self.steps
        new.passes = self.passes
        new.ending = self.ending
        new.on_round_end = None
        new.memo = None
        if self.lazy_moves:
            new.lazy_moves = True
        envs: dict[int, dict] = {}  # each env copied once, shared again where frames shared it
        get = envs.get
        frames = []
        make = object.__new__  # each frame's slots set here: what Frame(ops, env, loop) and its pc make, without __init__
        last = c = None
        # a bot's copy leaves out the frames that have run their last op and go round no loop: the machine would only
        # pop them (State.run), and a copy is only looked ahead in, never played on as the game (its nesting is shallower
        # by as many frames, so a procedure nested MAX_DEPTH deep may fail there later than in the game)
        lean = self.lazy_moves
        for f in self.frames:
            if lean and f.loop is None and f.pc >= len(f.ops):
                continue
            e = f.env
            if e is not last:  # most frames run in the env of the frame below (a block's body): that env's copy again
                last = e
                c = get(id(e))
                if c is None:
                    c = envs[id(e)] = e.copy()
            g = make(Frame)
            g.ops = f.ops
            g.pc = f.pc
            g.env = c
            loop = f.loop
            g.loop = None if loop is None else loop.copy()
            frames.append(g)
        new.frames = frames
        p = self.pending
        if isinstance(p, Decision):
            c = get(id(p.env))
            new.pending = Decision(p.player, p.moves, p.var, dict(p.env) if c is None else c, p.body, p.orelse,
                                   p.options, p.prompt, p.simultaneous, p.site)
        elif isinstance(p, Chance) and p.env is not None:
            c = get(id(p.env))
            new.pending = Chance(p.kind, p.outcomes, p.values, p.var, dict(p.env) if c is None else c, p.body,
                                 p.target, p.text)
        else:
            new.pending = p
        return new

    # ---- sending a finished game between processes ----------------------------------------

    def __getstate__(self) -> dict:
        """A finished game's state without its tables (the rules' compiled code does not pickle): a
        child process sends it back, and the receiver sets `t` to its own copy of the same tables."""
        if self.frames or self.pending is not None:
            raise TypeError("only a finished game's state can be sent between processes")
        return {**self.__dict__, "t": None, "on_round_end": None}

    # ---- bookkeeping ---------------------------------------------------------------------

    def mark(self, kind: str, site) -> None:
        """Count an event worth analysing (a tie settled by a fallback, a short
        supply, ...) at a rule's site, remembering the step it first happened."""
        key = (kind, site)
        n = self.marks.get(key, 0)
        if n == 0:
            self.first_marks[key] = self.steps
            if self.narrate:
                self.mark_events[key] = len(self.events)  # where in the account it happened
        self.marks[key] = n + 1

    def total_vp(self, i: int) -> int:
        total = 0  # the same sum as sum(...) over a generator, without one per call (scoring asks often)
        for v in self.vp.values():
            total += v[i]
        return total

    def event(self, *e) -> None:
        if self.narrate:
            self.events.append(e)

    # ---- what players can see -------------------------------------------------------------

    def viewers(self, cid: int) -> int:
        """Bitmask of the players who can see card `cid` now."""
        if self.facedown[cid]:
            return self.known[cid]
        # who sees a face-up card where it lies (everyone, its owner, nobody), and whoever has looked at it
        return self.t.slot_sees[self.loc[cid]] | self.known[cid]

    def card_text(self, cid: int) -> str:
        t = self.t
        text = t.card_labels[cid]
        extras = []
        for name in t.kind_states[t.kind[cid]]:
            v = self.cs[name][cid]
            if v != t.state_default[name][cid]:
                extras.append(f"{name}={fmt(v)}")
        if self.facedown[cid]:
            extras.append("face down")
        return text + (" [" + ", ".join(extras) + "]" if extras else "")

    def shown_value(self, value, player: int) -> str:
        """A variable's value as `player` may see it: a card by its text where they can see the card, else "?"
        (a card's number would tell which card it is)."""
        if type(value) is CardRef:
            return self.card_text(value.id) if self.viewers(value.id) & (1 << player) else "?"
        if type(value) is tuple and any(type(v) is CardRef for v in value):
            return "[" + ", ".join(self.shown_value(v, player) for v in value) + "]"
        return fmt(value)

    def view(self, player: int) -> dict:
        """What `player` may see: cards they can see by name, the rest as counts."""
        t = self.t
        bit = 1 << player
        zones = {}
        for slot, cards in enumerate(self.zones):
            if not cards and slot == 0:
                continue
            shown = [self.card_text(c) if self.viewers(c) & bit else "?" for c in cards]
            zones[t.zone_label(slot)] = shown
        view = {
            "player": f"P{player + 1}",
            "round": self.round,
            "zones": zones,
            "players": {f"P{i + 1}": {**{k: self.shown_value(v[i], player) for k, v in self.pv.items()},
                                      "vp": self.total_vp(i), "eliminated": self.elim[i]} for i in range(t.n)},
            "globals": {k: self.shown_value(v, player) for k, v in self.gv.items()},
            "supply": dict(self.supply),
        }
        if isinstance(self.pending, Decision) and self.pending.player == player:
            view["moves"] = [m.label for m in self.pending.moves]
        return view

    # ---- operations the rules use ---------------------------------------------------------------

    def cards_of(self, value, span) -> list[int]:
        if type(value) is ZoneRef:  # a zone's ids as they lie (a copy: moving them changes the zone), not via cards
            return self.zones[value.slot].copy()
        out = []
        for v in as_list(self, value):
            if type(v) is not CardRef:
                raise SpecRuntimeError(f"expected cards, got {fmt(v)}", span)
            out.append(v.id)
        return out

    def zone_of(self, value, span) -> int:
        if type(value) is not ZoneRef:
            raise SpecRuntimeError(f"expected a zone, got {fmt(value)}", span)
        return value.slot

    def move_cards(self, cids: list[int], dest: int, at_top: bool | None, face: str | None, span) -> None:
        if not cids:
            return
        t = self.t
        if at_top is None:
            at_top = t.slot_stack[dest]
        zones, loc, known, facedown, sees = self.zones, self.loc, self.known, self.facedown, t.slot_sees
        down = face == "facedown"
        for cid in cids:
            slot = loc[cid]
            if not facedown[cid]:  # who saw it (State.viewers, inline) keeps knowing it
                known[cid] |= sees[slot]
            zones[slot].remove(cid)
            facedown[cid] = down
            loc[cid] = dest
        target = self.zones[dest]
        if at_top:
            target[0:0] = cids
        else:
            target.extend(cids)
        if t.slot_capped[dest]:
            z = t.zone_slots[dest][0]
            cap = self.t.rules.eval_const(z.capacity, self)
            if not isinstance(cap, int) or isinstance(cap, bool):
                raise SpecRuntimeError(f"the capacity of zone '{z.name}' is {fmt(cap)}, not a number", z.capacity.span)
            if len(target) > cap:
                raise SpecRuntimeError(f"zone {self.t.zone_label(dest)} would hold {len(target)}, over its capacity {cap}",
                                       span, "the rules must check the capacity before placing")

    def set_player_var(self, name: str, i: int, value, span) -> None:
        var = self.t.player_vars.get(name)
        if var is None:
            if name in self.t.tokens:
                raise SpecRuntimeError(f"'{name}' is a token: use give or return", span)
            raise SpecRuntimeError(f"a player has no variable '{name}'", span)
        if not int_fits(var.domain, value):  # the message is only built for a value that may not fit
            self.t.check_domain(var.domain, value, f"P{i + 1}.{name}", span)
        self.pv[name][i] = value

    def set_card_state(self, cid: int, name: str, value, span) -> None:
        kind = self.t.kind[cid]
        domain = self.t.state_domain.get((kind, name))
        if domain is None:
            raise SpecRuntimeError(f"a {kind} card has no state '{name}'",
                                   span, f"declare it in component {kind}: state {name}: ...")
        if not int_fits(domain, value):
            self.t.check_domain(domain, value, f"{self.t.card_labels[cid]}.{name}", span)
        self.cs[name][cid] = value

    def finish(self, winners: list[int], draw: bool, reason: str) -> None:
        self.result = {
            "winners": [f"P{i + 1}" for i in winners],
            "draw": draw,
            "reason": reason,
            "scores": {f"P{i + 1}": self.total_vp(i) for i in range(self.t.n)},
            "breakdown": {f"P{i + 1}": {s: self.vp[s][i] for s in self.t.scores} for i in range(self.t.n)},
            "eliminated": [f"P{i + 1}" for i in range(self.t.n) if self.elim[i]],
            "rounds": self.round,
        }
        self.frames.clear()
        self.pending = None
        self.event("result", dict(self.result))


class LabelView:
    """What a choice's labels read of a state (compile.item_moves: its cards' places, sight, face and states), held
    apart from the state so that a LazyDecision does not make a reference cycle with the state it is pending in."""

    __slots__ = ("t", "loc", "known", "facedown", "cs", "zones")

    def __init__(self, st: State):
        self.t, self.loc, self.known, self.facedown, self.cs, self.zones = (st.t, st.loc, st.known, st.facedown,
                                                                            st.cs, st.zones)

    card_text = State.card_text


def player_index(value, span) -> int:
    if type(value) is not PlayerRef:
        raise SpecRuntimeError(f"expected a player, got {fmt(value)}", span)
    return value.i
