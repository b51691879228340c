"""Items to a checked Spec: assemble the declarations, resolve every name, and
collect every problem (unknown names with the nearest known one, wrong arity,
values outside their domain, ...) before reporting them together."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import attrs

from . import ir
from .errors import Problem, SpecErrors, nearest
from .limits import MAX_PLAYERS, MAX_SPEC_BYTES, limit_problems
from .parser import parse_items, parse_question

# Functions the engine provides.  name -> (min args, max args)
BUILTIN_FUNCS: dict[str, tuple[int, int]] = {
    "vp": (1, 2), "count": (1, 1), "sum": (1, 1), "max": (1, 99), "min": (1, 99), "any": (1, 1),
    "all": (1, 1), "distinct": (1, 1), "first": (1, 1), "last": (1, 1), "take": (2, 2),
    "abs": (1, 1), "position": (1, 1), "next": (1, 1), "distance": (2, 2), "player": (1, 1),
    "supply": (1, 1), "size": (1, 1), "reverse": (1, 1), "sees": (2, 2),
}
AGG_FUNCS = {"count", "size", "sum", "max", "min", "any", "all", "distinct", "first", "last"}
BUILTIN_VALUES = {"round", "player_count"}
# Attributes every card, or every player, has.
CARD_ATTRS = {"kind", "owner", "facedown", "zone"}
PLAYER_ATTRS = {"eliminated", "seat"}
ZONE_WORDS = {
    "visibility": {"public", "owner", "hidden"},
    "scope": {"shared", "per_player"},
    "order": {"stack", "row", "unordered"},
}
FALLBACKS = {"best": {"shared", "none", "stable"}, "order": {"stable"}, "winner": {"draw", "shared", "stable"}}
SHORT_RULES = {"partial", "unlimited"}
BUILTIN_ZONES = ("box",)
ITEM = "__item"  # the card a script's `KIND where CONDITION` is asked about


def _as_fields(e: ir.Node, fields: set[str], scope: set[str]) -> ir.Node:
    """A script's condition with the card's own field names read from the card."""
    if isinstance(e, ir.Name) and e.name in fields and e.name not in scope:
        return ir.Attr(ir.Name(ITEM, span=e.span), e.name, span=e.span)
    return ir.map_children(e, lambda c: _as_fields(c, fields, scope))


class Scope(dict):
    """The locals visible at a point of the rules: the name as written -> its
    binding's key.  Scoping is lexical (a `let` is visible for the rest of its
    block and the blocks inside it).  A binding whose name is already visible
    (a `let` in an inner block, a loop, choice or pick variable, a binder in an
    expression) shadows it and gets a fresh key `name~k`; every other binding
    keeps its name.  So after resolution a `Local`'s name names exactly one
    binding in reach, and every reader (the interpreter's environments, the
    compiled backend, every analysis) can key locals by name with no scoping
    rules of its own.  `own` holds the names bound by `let` in this block
    itself: `let` again with such a name assigns the same binding."""

    def __init__(self, keys=(), fresh=None):
        super().__init__(keys)
        self.own: set[str] = set()
        self.fresh = fresh if fresh is not None else {}

    def inner(self) -> "Scope":
        return Scope(self, self.fresh)

    def key_for(self, name: str) -> str:
        """The key of a new binding of `name` made here."""
        if name not in self:
            return name
        k = self.fresh.get(name, 1) + 1
        self.fresh[name] = k
        return f"{name}~{k}"

    def with_binding(self, name: str) -> tuple["Scope", str]:
        """An inner scope in which `name` is bound afresh, and its key."""
        inner = self.inner()
        key = inner[name] = self.key_for(name)
        return inner, key


class Compiler:
    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.problems: list[Problem] = []
        self.problems_from_syntax = False

    def error(self, span: ir.Span, message: str, hint: str | None = None) -> None:
        self.problems.append(Problem(span.path or self.path, span, message, hint))

    # ---- assembling -------------------------------------------------------------------

    def build(self, items) -> ir.Spec:
        game = None
        parts: dict[str, list] = {k: [] for k in (
            "note", "enum", "component", "cards", "zone", "vars", "token", "score", "option", "assume",
            "ruling", "def", "procedure", "setup", "rounds", "scoring", "winner", "example", "question", "strategy")}
        for kind, value in items:
            if kind in ("extend", "remove"):
                continue  # settled before building (see gather_items)
            if kind == "invariant":  # one list, in written order: they are checked alike
                parts["question"].append(value)
                continue
            if kind == "var":
                parts["vars"].append((value,))
                continue
            if kind == "game":
                if game is not None:
                    self.error(value[2], "a spec has one 'game' line; this is a second one")
                game = value
            else:
                parts[kind].append(value)
        name, draft, players, source = "untitled", None, (2, 4), None
        if game is None:
            self.error(ir.Span(1, 1, 1, 2), "the spec has no 'game' line",
                       'start the spec with: game "Name" draft 1 players 2..4')
        else:
            name = game[0]
            for k, v in game[1]:
                if k == "draft":
                    draft = v
                elif k == "players":
                    players = v
                elif k == "source":
                    source = v
            if players[0] < 1 or players[1] < players[0]:
                self.error(game[2], f"player counts {players[0]}..{players[1]} are not a range of at least one player")
            elif players[1] > MAX_PLAYERS:
                self.error(game[2], f"{players[1]} players is beyond the most soan plays ({MAX_PLAYERS})",
                           "README: Limits")
                players = (min(players[0], MAX_PLAYERS), MAX_PLAYERS)  # read on, so every other problem is found too
        zones = []
        for zname, title, words, capacity, span in parts["zone"]:
            zones.append(self.zone(zname, title, words, capacity, span))
        tokens = []
        for tname, title, supply, hold, short, span in parts["token"]:
            rule, ruling = short[0], short[1]
            if rule == "ruling":
                tokens.append(ir.Token(tname, title, supply, hold, "ruling", ruling, span=span))
            else:
                if rule == "":
                    self.error(span, f"token '{tname}' does not say what happens when its supply runs short",
                               "add 'when short partial' (give what is left), 'when short unlimited', "
                               "or 'when short ruling NAME' for an open ruling")
                elif rule not in SHORT_RULES:
                    self.error(short[2], f"unknown shortage rule '{rule}'",
                               nearest(rule, SHORT_RULES) or "use partial, unlimited or ruling NAME")
                tokens.append(ir.Token(tname, title, supply, hold, rule or "partial", None, span=span))
        vars_ = [v for group in parts["vars"] for v in group]

        def one(kind):
            vals = parts[kind]
            if len(vals) > 1:
                self.error(getattr(vals[1], "span", ir.NOSPAN), f"a spec has one '{kind}' section; this is a second one")
            return vals[0] if vals else None

        spec = ir.Spec(
            name=name, draft=draft, min_players=players[0], max_players=players[1], source=source,
            notes=parts["note"], enums=parts["enum"], components=parts["component"], card_sets=parts["cards"],
            zones=zones, vars=vars_, tokens=tokens, scores=parts["score"], options=parts["option"],
            assumptions=parts["assume"], rulings=parts["ruling"], defs=parts["def"], procedures=parts["procedure"],
            setup=one("setup"), rounds=one("rounds"), scoring=one("scoring"), winner=one("winner"),
            examples=parts["example"], questions=parts["question"], strategies=parts["strategy"], path=self.path,
            source_text=self.text,
        )
        if spec.rounds is None and game is not None and not self.problems_from_syntax:
            self.error(ir.Span(1, 1, 1, 2), "the spec has no 'rounds' section", "add: rounds N { ... }")
        return spec

    def zone(self, name, title, words, capacity, span) -> ir.Zone:
        got = {k: None for k in ZONE_WORDS}
        for w in words:
            word = str(w)
            for k, allowed in ZONE_WORDS.items():
                if word in allowed:
                    if got[k] is not None:
                        self.error(ir.Span(w.line, w.column, w.line, w.end_column),
                                   f"zone '{name}' is given two {k}s: '{got[k]}' and '{word}'")
                    got[k] = word
                    break
            else:
                every = set().union(*ZONE_WORDS.values())
                self.error(ir.Span(w.line, w.column, w.line, w.end_column), f"'{word}' is not a zone property",
                           nearest(word, every) or "use shared or per_player; public, owner or hidden; stack, row or unordered")
        return ir.Zone(name, title, got["scope"] == "per_player", got["visibility"] or "public",
                       got["order"] or "unordered", capacity, span=span)

    # ---- checking and resolving -------------------------------------------------------------

    def check(self, spec: ir.Spec) -> ir.Spec:
        self.declare(spec)
        self.check_declarations(spec)
        return self.resolve(spec)

    def declare(self, spec: ir.Spec) -> None:
        """Learn every declared name of the spec (and report clashes)."""
        self.spec = spec
        self.enums = {}
        self.symbols: dict[str, str] = {}  # value -> enum (or "kind", or ruling name)
        self._symbol_spans: dict[str, ir.Span] = {}
        self._unique(spec)
        for e in spec.enums:
            self.enums[e.name] = e
            for v in e.values:
                self._symbol(v, e.name, e.span)
        self.kinds = {c.name: c for c in spec.components}
        for k in self.kinds:
            self._symbol(k, "kind", self.kinds[k].span)
        for r in spec.rulings:
            if isinstance(r.domain, ir.EnumDomain) and r.domain.values:
                for v in r.domain.values:
                    self._symbol(v, r.name, r.span)
        for a in spec.assumptions:
            if isinstance(a.domain, ir.EnumDomain) and a.domain.values:
                for v in a.domain.values:
                    self._symbol(v, a.name, a.span)
        for v in spec.vars:
            if isinstance(v.domain, ir.EnumDomain) and v.domain.values:
                for s in v.domain.values:
                    self._symbol(s, v.name, v.span)
        for c in spec.components:
            for f in c.fields:
                if isinstance(f.domain, ir.EnumDomain) and f.domain.values:
                    for s in f.domain.values:
                        self._symbol(s, f.name, f.span)
        declared = {n.name: n for group in (spec.zones, spec.vars, spec.tokens, spec.scores, spec.options,
                                            spec.assumptions, spec.rulings, spec.defs, spec.procedures)
                    for n in group}
        for value, owner in self.symbols.items():
            if value in declared:
                self.error(declared[value].span, f"'{value}' is both declared here and a value of {owner}",
                           "give one of them another name")
            elif value in BUILTIN_VALUES or value in ("players", "true", "false", "none"):
                self.error(self._symbol_spans.get(value, ir.NOSPAN),
                           f"'{value}' is a name the engine already uses; a value of {owner} cannot take it",
                           "give the value another name")
        self.fields = {f.name for c in spec.components for f in c.fields}
        self.zones = {z.name: z for z in spec.zones}
        self.player_vars = {v.name: v for v in spec.vars if v.per_player}
        self.global_vars = {v.name: v for v in spec.vars if not v.per_player}
        self.tokens = {t.name: t for t in spec.tokens}
        self.scores = {s.name: s for s in spec.scores}
        self.params = {**{o.name: "option" for o in spec.options}, **{a.name: "assume" for a in spec.assumptions},
                       **{r.name: "ruling" for r in spec.rulings}}
        self.defs = {d.name: d for d in spec.defs}
        self.procs = {p.name: p for p in spec.procedures}

    def check_declarations(self, spec: ir.Spec) -> None:
        for c in spec.components:
            for f in c.fields:
                if f.name in CARD_ATTRS:
                    self.error(f.span, f"'{f.name}' is an attribute every card already has (c.{f.name}); "
                               "a field of that name could never be read", "give the field another name")
                self.domain(f.domain)
                if f.default is not None:
                    self.constant_in(f.default, f.domain, f"default of '{c.name}.{f.name}'")
        for cs in spec.card_sets:
            self.card_set(cs)
        for v in spec.vars:
            self.domain(v.domain)
            if v.default is not None:
                self.constant_in(v.default, v.domain, f"default of '{v.name}'")
        for r in spec.rulings:
            self.domain(r.domain)
            self.constant_in(r.provisional, r.domain, f"provisional resolution of ruling '{r.name}'")
        for a in spec.assumptions:
            if a.domain is not None:
                self.domain(a.domain)
                self.constant_in(a.value, a.domain, f"value of assumption '{a.name}'")
        for sc in spec.scores:
            if sc.domain is not None:
                self.domain(sc.domain)
                if not isinstance(sc.domain, ir.IntDomain):
                    self.error(sc.domain.span, f"score item '{sc.name}' needs a number range such as 0..40")
                elif not sc.domain.lo <= 0 <= sc.domain.hi:
                    self.error(sc.domain.span, f"every player starts with 0 for '{sc.name}', outside its range "
                                               f"{sc.domain}", "let the range include 0")
        for t in spec.tokens:
            self.domain(t.hold)
            if isinstance(t.hold, ir.IntDomain) and not t.hold.lo <= 0 <= t.hold.hi:
                self.error(t.hold.span if t.hold.span.line else t.span,
                           f"every player starts with 0 '{t.name}', outside its hold {t.hold}",
                           f"let the hold include 0, e.g. hold 0..{max(t.hold.hi, 0)}")
            if t.when_short == "ruling":
                r = next((r for r in spec.rulings if r.name == t.short_ruling), None)
                if r is None:
                    self.error(t.span, f"token '{t.name}' names ruling '{t.short_ruling}', which is not declared",
                               nearest(t.short_ruling, [r.name for r in spec.rulings]))
                elif not (isinstance(r.domain, ir.EnumDomain) and set(r.domain.values) <= SHORT_RULES):
                    self.error(r.span, f"ruling '{r.name}' decides a token shortage, so its values must be "
                                       f"among partial and unlimited")
        for z in spec.zones:
            if z.name in BUILTIN_ZONES:
                self.error(z.span, f"'{z.name}' is the engine's zone for pieces out of the game; choose another name")

    def resolve(self, spec: ir.Spec) -> ir.Spec:
        def fix(node, **changes):
            return attrs.evolve(node, **changes)

        spec = fix(spec,
                   tokens=tuple(fix(t, supply=self.expr(t.supply, Scope())) for t in spec.tokens),
                   zones=tuple(fix(z, capacity=self.expr(z.capacity, Scope()) if z.capacity else None) for z in spec.zones),
                   vars=tuple(fix(v, default=self.expr(v.default, Scope()) if v.default else None) for v in spec.vars),
                   components=tuple(fix(c, fields=tuple(
                       fix(f, default=self.expr(f.default, Scope()) if f.default else None) for f in c.fields))
                                    for c in spec.components),
                   rulings=tuple(fix(r, provisional=self.expr(r.provisional, Scope())) for r in spec.rulings),
                   assumptions=tuple(fix(a, value=self.expr(a.value, Scope()) if a.value else None) for a in spec.assumptions),
                   card_sets=tuple(fix(cs, rows=tuple(fix(r, fixed=tuple((n, self.expr(e, Scope())) for n, e in r.fixed))
                                                       for r in cs.rows)) for cs in spec.card_sets),
                   defs=tuple(fix(d, body=self.expr(d.body, Scope({n: n for n in d.params}))) for d in spec.defs),
                   procedures=tuple(fix(p, body=self.proc_body(p)) for p in spec.procedures),
                   setup=self.block(spec.setup, Scope()) if spec.setup else None,
                   rounds=fix(spec.rounds,
                              count=self.expr(spec.rounds.count, Scope()) if spec.rounds.count else None,
                              until=self.expr(spec.rounds.until, Scope()) if spec.rounds.until else None,
                              cap=self.expr(spec.rounds.cap, Scope()) if spec.rounds.cap else None,
                              body=self.block(spec.rounds.body, Scope())) if spec.rounds else None,
                   scoring=self.block(spec.scoring, Scope()) if spec.scoring else None,
                   winner=self.winner(spec.winner) if spec.winner else None,
                   examples=tuple(self.example(e) for e in spec.examples),
                   questions=tuple(self.question(q) for q in spec.questions),
                   strategies=tuple(self.strategy(st, spec) for st in spec.strategies))
        self.self_defined(spec)
        if spec.winner is None and spec.rounds is not None and not self.problems_from_syntax:
            self.error(ir.Span(1, 1, 1, 2), "the spec has no 'winner' line",
                       "add: winner among p in players by vp(p) desc else draw")
        return spec

    def self_defined(self, spec: ir.Spec) -> None:
        """A def without parameters that reads itself (directly or through others like it) has no value."""
        plain = {d.name: d for d in spec.defs if not d.params}
        reads = {name: {n.func if isinstance(n, ir.Call) else n.name for n in ir.walk(d.body)
                        if isinstance(n, ir.Call | ir.Name) and (n.func if isinstance(n, ir.Call) else n.name) in plain}
                 for name, d in plain.items()}
        for name, d in plain.items():
            seen, todo = set(), list(reads[name])
            while todo:
                other = todo.pop()
                if other == name:
                    self.error(d.span, f"def '{name}' is defined in terms of itself, so it has no value",
                               "give it parameters and a case that stops, or define it from other names")
                    break
                if other not in seen:
                    seen.add(other)
                    todo.extend(reads[other])

    def proc_body(self, p: ir.Procedure) -> ir.Block:
        saved, self._loop_depth = self._loop_depth, 0  # a break in a procedure may not end its caller's loop
        try:
            return self.block(p.body, Scope({n: n for n in p.params}))
        finally:
            self._loop_depth = saved

    def _unique(self, spec: ir.Spec) -> None:
        seen: dict[str, tuple[str, ir.Span]] = {}
        groups = [("enum", spec.enums), ("component", spec.components), ("zone", spec.zones), ("variable", spec.vars),
                  ("token", spec.tokens), ("score item", spec.scores), ("option", spec.options),
                  ("assumption", spec.assumptions), ("ruling", spec.rulings), ("def", spec.defs),
                  ("procedure", spec.procedures), ("strategy", spec.strategies)]
        groups += [("invariant" if q.kind == "invariant" else "question", (q,)) for q in spec.questions]
        for what, nodes in groups:
            for n in nodes:
                if n.name in seen:
                    other, span = seen[n.name]
                    a = lambda w: ("an " if w[0] in "aeiou" else "a ") + w  # noqa: E731
                    self.error(n.span, f"'{n.name}' is declared twice: as {a(other)} (line {span.line}) and as {a(what)}")
                else:
                    seen[n.name] = (what, n.span)
        for what, nodes in [("example", spec.examples)]:
            titles = set()
            for n in nodes:  # the same title may return once per resolution (`with NAME = VALUE`)
                if n.name in titles:
                    self.error(n.span, f"two examples are called '{n.name}'")
                titles.add(n.name)

    def _symbol(self, value: str, owner: str, span: ir.Span) -> None:
        self._symbol_spans.setdefault(value, span)
        prev = self.symbols.get(value)
        if prev is not None and prev != owner:
            self.error(span, f"'{value}' names two things ({prev} and {owner}); a value name must be unique in a spec")
        self.symbols[value] = owner

    def domain(self, d) -> None:
        match d:
            case ir.IntDomain(lo=lo, hi=hi) if lo > hi:
                self.error(d.span, f"domain {lo}..{hi} is empty")
            case ir.EnumDomain(name=name, values=()) if name not in self.enums:
                self.error(d.span, f"unknown domain '{name}'",
                           nearest(name, list(self.enums) + ["bool", "card", "player"]) or
                           "a domain is A..B, bool, card, player, an enum name or {a, b, c}")

    def _table_readings(self, a) -> list[str]:
        """The readings an assumption over card tables can take: the values of its enum domain."""
        match None if a is None else a.domain:
            case ir.EnumDomain(values=vals, name=name):
                return list(vals or (self.enums[name].values if name in self.enums else ()))
        return []

    def constant_in(self, e, d, what: str) -> None:
        value = None
        match e:
            case ir.Int(value=v):
                value = v
            case ir.Bool(value=v):
                value = v
            case ir.Name(name=n) if n in BUILTIN_VALUES:
                return  # known only when a game starts
            case ir.Name(name=n):
                value = n
            case ir.NoneLit():
                return
            case _:
                return  # computed values are checked when the rules run
        ok = True
        match d:
            case ir.IntDomain(lo=lo, hi=hi):
                ok = isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
            case ir.BoolDomain():
                ok = isinstance(value, bool)
            case ir.EnumDomain(values=vals) if vals:
                ok = value in vals
            case ir.EnumDomain(name=name) if name in self.enums:
                ok = value in self.enums[name].values
        if not ok:
            self.error(e.span, f"{what} is {value!r}, outside its domain {d}")

    def card_set(self, cs: ir.CardSet) -> None:
        comp = self.kinds.get(cs.kind)
        if comp is None:
            self.error(cs.span, f"unknown component '{cs.kind}'", nearest(cs.kind, self.kinds))
            return
        zone = next((z for z in self.spec.zones if z.name == cs.zone), None)
        if zone is None and cs.zone not in BUILTIN_ZONES:
            self.error(cs.span, f"unknown zone '{cs.zone}'", nearest(cs.zone, [z.name for z in self.spec.zones]))
        elif zone is not None and zone.per_player and not cs.per_player:
            self.error(cs.span, f"zone '{cs.zone}' belongs to each player; cards placed there must be 'per player'")
        elif zone is not None and not zone.per_player and cs.per_player:
            self.error(cs.span, f"cards 'per player' need a zone of each player, and '{cs.zone}' is shared",
                       "declare the zone per_player, or drop 'per player'")
        if cs.assumed and cs.assumed not in {a.name for a in self.spec.assumptions}:
            self.error(cs.span, f"unknown assumption '{cs.assumed}'", nearest(cs.assumed, [a.name for a in self.spec.assumptions]))
        fields = {f.name: f for f in comp.fields if not f.is_state}
        table = next((a for a in self.spec.assumptions if a.name == cs.assumed), None)
        readings = self._table_readings(table)
        for row in cs.rows:
            if row.when is not None:
                if table is None:
                    self.error(row.span, f"a row marked '{row.when}:' needs the cards to be 'assumed NAME' with NAME an assumption over a set of values",
                               "write: assume NAME: {a, b} = a \"...\"  and  cards ... assumed NAME { a: 2 x ... }")
                elif row.when not in readings:
                    self.error(row.span, f"'{row.when}' is not a value of assumption '{table.name}'",
                               nearest(row.when, readings) or ("its values: " + ", ".join(readings) if readings else
                                                               f"give '{table.name}' a domain: assume {table.name}: {{a, b}} = a"))
            for f in row.each:
                fd = fields.get(f)
                if fd is None:
                    self.error(row.span, f"component '{cs.kind}' has no field '{f}'", nearest(f, fields))
                elif isinstance(fd.domain, ir.CardDomain | ir.PlayerDomain):
                    self.error(row.span, f"'each {f}' needs a field with a finite list of values")
            for f, e in row.fixed:
                fd = fields.get(f)
                if fd is None:
                    self.error(e.span, f"component '{cs.kind}' has no field '{f}'", nearest(f, fields))
                else:
                    self.constant_in(e, fd.domain, f"'{f}'")
            given = set(row.each) | {f for f, _ in row.fixed}
            for f in fields.values():
                if f.name not in given and f.default is None:
                    self.error(row.span, f"these '{cs.kind}' cards leave field '{f.name}' without a value",
                               f"add '{f.name} = ...' or 'each {f.name}', or give the field a default")

    def winner(self, w: ir.Winner) -> ir.Winner:
        if w.fallback not in FALLBACKS["winner"]:
            self.error(w.span, f"unknown tie fallback '{w.fallback}' for the winner",
                       nearest(w.fallback, FALLBACKS["winner"]) or "use draw, shared or stable")
        scope, var = Scope().with_binding(w.var)
        payoff = w.payoff
        if payoff is not None:
            if payoff.lo >= payoff.hi:
                self.error(payoff.span, f"the payoff's range {payoff.lo}..{payoff.hi} is empty or a single value",
                           "give the lowest and the highest payoff a player can get, e.g. within -2..2")
            payoff = attrs.evolve(payoff, expr=self.expr(payoff.expr, scope))
        return attrs.evolve(w, var=var, coll=self.expr(w.coll, Scope()),
                            where=self.expr(w.where, scope) if w.where else None,
                            keys=tuple(attrs.evolve(k, expr=self.expr(k.expr, scope)) for k in w.keys),
                            payoff=payoff)

    def example(self, ex: ir.Example) -> ir.Example:
        n = ex.players or self.spec.min_players
        if not self.spec.min_players <= n <= self.spec.max_players:
            self.error(ex.span, f"example '{ex.title}' has {n} players; the game is for "
                                f"{self.spec.min_players}..{self.spec.max_players}")
            n = self.spec.max_players  # reported: read the rest as if it fitted (never build a million seats)
        for o in ex.options:
            if self.params.get(o) != "option":
                self.error(ex.span, f"unknown option '{o}'", nearest(o, [x.name for x in self.spec.options]))
        seats = {f"p{i}" for i in range(1, n + 1)}
        scope = Scope({f"p{i}": f"p{i}" for i in range(1, min(self.spec.max_players, MAX_PLAYERS) + 1)})
        params = tuple((name, self.example_param(name, value)) for name, value in ex.params)
        parts = tuple(self.play(p, scope, seats) for p in ex.parts)
        given = next((p.block for p in parts if p.target == "given"), None)
        run = next((p.block for p in parts if p.target == "run"), None)
        expects = tuple((self.expr(e, scope), m) for e, m in ex.expects)
        for o in ex.outcomes:
            for name in o.players:
                if name not in seats:
                    self.error(o.span, f"'{name}' is not a player of this example",
                               nearest(name, seats) or f"players are {', '.join(sorted(seats))}")
        if not expects and not ex.outcomes:
            self.error(ex.span, f"example '{ex.title}' expects nothing", "add: expect CONDITION")
        return attrs.evolve(ex, given=given, run=run, expects=expects, params=params, parts=parts)

    def example_param(self, name: str, value: ir.Expr) -> ir.Expr:
        """`with NAME = VALUE`: a declared ruling, assumption or option, set to a value of its domain."""
        decl = next((d for d in (*self.spec.rulings, *self.spec.assumptions) if d.name == name), None)
        if decl is None and self.params.get(name) != "option":
            self.error(value.span, f"no open ruling, assumption or option is called '{name}'",
                       nearest(name, self.params) or "soan check lists them")
            return value
        domain = ir.BoolDomain() if decl is None else decl.domain
        if domain is None:
            self.error(value.span, f"assumption '{name}' has no values to choose from",
                       "only an assumption declared with a domain (assume NAME: DOMAIN = VALUE ...) can be set")
            return value
        if not isinstance(value, ir.Int | ir.Bool | ir.Name):
            self.error(value.span, f"'{name}' is set to a plain value of {domain}, not a computed one")
            return value
        self.constant_in(value, domain, f"'{name}'")
        return value

    def play(self, p: ir.Play, scope: Scope, seats: set[str]) -> ir.Play:
        block = self.block(p.block, scope) if p.block else None
        args = tuple(self.expr(a, scope) for a in p.args)
        if p.target == "do":
            proc = self.procs.get(p.name)
            if proc is None:
                self.error(p.span, f"unknown procedure '{p.name}'", nearest(p.name, self.procs))
            elif len(proc.params) != len(args):
                self.error(p.span, f"procedure '{p.name}' takes {len(proc.params)} argument(s), given {len(args)}")
        elif p.target == "phase":
            phases = [s.name for root in (self.spec.setup, self.spec.rounds and self.spec.rounds.body, self.spec.scoring)
                      if root is not None for s in ir.walk(root) if isinstance(s, ir.Phase)]
            if p.name not in phases:
                self.error(p.span, f"the game has no phase '{p.name}'", nearest(p.name, phases) or
                           ("phases: " + ", ".join(phases) if phases else "the spec declares no phase"))
        elif p.target in ("setup", "scoring") and getattr(self.spec, p.target) is None:
            self.error(p.span, f"the spec has no '{p.target}' section to play")
        steps = tuple(self.step(st, scope, seats) for st in p.script)
        return attrs.evolve(p, block=block, args=args, script=steps)

    def step(self, st: ir.Step, scope: Scope, seats: set[str]) -> ir.Step:
        if st.player is not None and st.player not in seats:
            self.error(st.span, f"'{st.player}' is not a player of this example",
                       nearest(st.player, seats) or f"players are {', '.join(sorted(seats))}")
        return attrs.evolve(st, items=tuple(self.move_item(i, scope) for i in st.items),
                            offers=tuple(self.step(o, scope, seats) for o in st.offers))

    def move_item(self, item: ir.MoveItem, scope: Scope) -> ir.MoveItem:
        """Settle what a scripted move names: a kind of card (with a condition on
        its fields), a value, or the label of a move (an option's name)."""
        if item.label is not None:
            return item
        v = item.value
        if isinstance(v, ir.Name) and v.name in self.kinds:
            where = None
            if item.where is not None:
                fields = {f.name for f in self.kinds[v.name].fields} | CARD_ATTRS
                # the card asked about is bound like any local: afresh where the scope renames bindings
                inner = scope.with_binding(ITEM)[0]
                where = self.expr(_as_fields(item.where, fields, scope), inner)
            return attrs.evolve(item, value=None, kind=v.name, where=where)
        if item.where is not None:
            self.error(item.where.span, "'where' follows a kind of card in a script",
                       f"e.g. {next(iter(self.kinds), 'card')} where FIELD == VALUE")
        if isinstance(v, ir.Str):
            return attrs.evolve(item, value=None, label=v.value)
        if isinstance(v, ir.Name) and not self._resolvable(v.name, scope):
            return attrs.evolve(item, value=None, label=v.name)  # an option's name: matched against the moves
        return attrs.evolve(item, value=self.expr(v, scope))

    def _resolvable(self, n: str, scope: set[str]) -> bool:
        return (n in scope or n in self.symbols or n in self.global_vars or n in self.zones or n in self.params
                or n in BUILTIN_VALUES or n in self.defs)

    def question(self, q: ir.Question) -> ir.Question:
        """A question sees what a def without parameters sees: declared names,
        builtins and parameters; it quantifies with all(...), any(...), count(...)."""
        return attrs.evolve(q, expr=self.expr(q.expr, Scope()))

    def strategy(self, st: ir.Strategy, spec: ir.Spec) -> ir.Strategy:
        """A strategy's expressions see what a question sees, and `me`; its fallback is a bot, without a cycle."""
        names = {s.name for s in spec.strategies}
        if st.name in BUILT_IN_BOTS:
            self.error(st.span, f"'{st.name}' is a built-in bot; a strategy needs a name of its own",
                       f"e.g. strategy my_{st.name} ...")
        head, _, budget = st.fallback.partition(":")
        if head not in BUILT_IN_BOTS and head not in names:
            self.error(st.span, f"strategy '{st.name}' falls back on '{st.fallback}', which is no bot",
                       nearest(head, set(BUILT_IN_BOTS) | names) or "bots: " + ", ".join(BUILT_IN_BOTS))
        elif budget and head != "mcts":
            self.error(st.span, f"only mcts takes a budget after ':', not '{head}'", "e.g. else mcts:200")
        seen, cur = {st.name}, head
        fallbacks = {s.name: s.fallback.partition(":")[0] for s in spec.strategies if s.name not in BUILT_IN_BOTS}
        while cur in fallbacks:
            if cur in seen:
                self.error(st.span, f"strategy '{st.name}' falls back, through others, on itself",
                           "end the chain with a built-in bot: " + ", ".join(BUILT_IN_BOTS))
                break
            seen.add(cur)
            cur = fallbacks[cur]
        option_names = {o.name for c in ir.walk(spec) if isinstance(c, ir.Choose) for o in c.options} | {"pass"}
        prefers = []
        for pr in st.prefers:
            base = Scope({"me": "me"})
            if pr.kind == "option":
                if pr.name not in option_names:
                    self.error(pr.span, f"no choice in the rules offers an option called '{pr.name}'",
                               nearest(pr.name, option_names) or "options: " + ", ".join(sorted(option_names)))
                prefers.append(attrs.evolve(pr, when=self.expr(pr.when, base) if pr.when else None))
                continue
            inner, key = base.with_binding(pr.name)
            prefers.append(attrs.evolve(pr, name=key, where=self.expr(pr.where, inner) if pr.where else None,
                                        when=self.expr(pr.when, base) if pr.when else None))
        return attrs.evolve(st, prefers=tuple(prefers))

    # ---- statements

    _loop_depth = 0

    def block(self, b: ir.Block | None, scope: Scope) -> ir.Block | None:
        if b is None:
            return None
        inner = scope.inner()
        return attrs.evolve(b, stmts=tuple(self.stmt(s, inner) for s in b.stmts))

    def node(self, n: ir.Node, scope: Scope) -> ir.Node:
        """Resolve any node: blocks, statements and expressions alike."""
        match n:
            case ir.Block():
                return self.block(n, scope)
            case ir.Stmt():
                return self.stmt(n, scope)
            case ir.Expr():
                return self.expr(n, scope)
        return ir.map_children(n, lambda c: self.node(c, scope))

    def binder(self, n: ir.Node, scope: Scope, var: str, outer: tuple[str, ...] = ("coll", "source")) -> ir.Node:
        """A node that binds `var`: the collection it ranges over is resolved
        outside the binding, everything else inside it (where `var` names the
        node's own binding, renamed if it shadows a visible local)."""
        inner, key = scope.with_binding(var)
        changes = {} if key == var else {"var": key}
        for f in attrs.fields(type(n)):
            value = getattr(n, f.name)
            if f.name == "span" or value is None:
                continue
            sc = scope if f.name in outer else inner
            new = ir._map_value(value, lambda c, sc=sc: self.node(c, sc))
            if new is not value:
                changes[f.name] = new
        return attrs.evolve(n, **changes) if changes else n

    def stmt(self, s: ir.Stmt, scope: Scope) -> ir.Stmt:
        generic = lambda: ir.map_children(s, lambda c: self.node(c, scope))  # noqa: E731
        match s:
            case ir.Let(name=name):
                s = generic()  # the value is read before the new binding exists
                if name not in scope.own:
                    scope[name] = scope.key_for(name)
                    scope.own.add(name)
                return s if scope[name] == name else attrs.evolve(s, name=scope[name])
            case ir.Set():
                s = generic()
                t = s.target
                if not isinstance(t, ir.Attr | ir.GlobalVar | ir.Local):
                    self.error(s.span, "only a variable, or a state of a card or a player, can be set",
                               "a list cannot be changed in place: build a new one, e.g. set xs = xs + [x]")
                if isinstance(t, ir.Attr) and t.name in CARD_ATTRS | PLAYER_ATTRS:
                    self.error(t.span, f"'{t.name}' is kept by the engine and cannot be set",
                               "use flip, move or eliminate")
                return s
            case ir.Choose():
                names = set()
                for o in s.options:
                    if o.name in names:
                        self.error(o.span, f"two options are called '{o.name}'")
                    names.add(o.name)
                if s.var is None:
                    return generic()
                return self.binder(s, scope, s.var, outer=("player", "source", "count_lo", "count_hi", "options",
                                                            "pass_if", "orelse"))
            case ir.Pick():
                return self.binder(s, scope, s.var)
            case ir.For() | ir.Repeat() | ir.While():
                self._loop_depth += 1
                try:
                    return self.binder(s, scope, s.var) if isinstance(s, ir.For) else generic()
                finally:
                    self._loop_depth -= 1
            case ir.Break():
                if self._loop_depth == 0:
                    self.error(s.span, "'break' is outside any loop", "break ends the nearest for, repeat or while")
                return s
            case ir.Do(proc=proc, args=args):
                p = self.procs.get(proc)
                if p is None:
                    self.error(s.span, f"unknown procedure '{proc}'", nearest(proc, self.procs))
                elif len(p.params) != len(args):
                    self.error(s.span, f"procedure '{proc}' takes {len(p.params)} argument(s), given {len(args)}")
            case ir.Award(item=item):
                if item not in self.scores:
                    self.error(s.span, f"unknown score item '{item}'",
                               nearest(item, self.scores) or 'declare it: score NAME "title"')
            case ir.Give(token=token) | ir.Return(token=token):
                if token not in self.tokens:
                    self.error(s.span, f"unknown token '{token}'", nearest(token, self.tokens))
            case ir.Say(text=text):
                # `{name}` in a narration line names the binding visible here
                text = re.sub(r"\{([a-z_][a-z0-9_]*)\}", lambda m: "{" + scope.get(m[1], m[1]) + "}", text, flags=re.I)
                return s if text == s.text else attrs.evolve(s, text=text)
        return generic()

    # ---- expressions

    def expr(self, e: ir.Expr | None, scope: Scope) -> ir.Expr | None:
        if e is None:
            return None
        generic = lambda: ir.map_children(e, lambda c: self.node(c, scope))  # noqa: E731
        match e:
            case ir.Name():
                return self.name(e, scope)
            case ir.Attr(name=name):
                known = (self.fields | set(self.player_vars) | {z.name for z in self.spec.zones if z.per_player}
                         | set(self.tokens) | CARD_ATTRS | PLAYER_ATTRS)
                if name not in known:
                    self.error(e.span, f"nothing is called '.{name}'", nearest(name, known))
            case ir.Call(func="vp", args=(player, ir.Name(name=item) as item_node)) if item in self.scores:
                return attrs.evolve(e, args=(self.expr(player, scope), ir.Symbol(item, span=item_node.span)))
            case ir.Call(func="supply", args=(ir.Name(name=tok) as tok_node,)):
                if tok not in self.tokens:
                    self.error(tok_node.span, f"unknown token '{tok}'", nearest(tok, self.tokens))
                return attrs.evolve(e, args=(ir.Symbol(tok, span=tok_node.span),))
            case ir.Call(func="supply"):
                self.error(e.span, "supply() takes a token's name", "e.g. supply(coin)")
                return e
            case ir.Call(func=func, args=args):
                if func in self.defs:
                    d = self.defs[func]
                    if len(d.params) != len(args):
                        self.error(e.span, f"'{func}' takes {len(d.params)} argument(s), given {len(args)}")
                elif func in BUILTIN_FUNCS:
                    lo, hi = BUILTIN_FUNCS[func]
                    if not lo <= len(args) <= hi:
                        self.error(e.span, f"'{func}' takes {lo}{'' if lo == hi else f' to {hi}'} argument(s), "
                                           f"given {len(args)}")
                else:
                    known = list(self.defs) + list(BUILTIN_FUNCS)
                    self.error(e.span, f"unknown function '{func}'", nearest(func, known) or _some_names(func, known))
            case ir.Agg(func=func, var=var):
                if func not in AGG_FUNCS:
                    self.error(e.span, f"'{func}(x in ...)' is not an aggregate",
                               nearest(func, AGG_FUNCS) or f"aggregates are {', '.join(sorted(AGG_FUNCS))}")
                return self.binder(e, scope, var)
            case ir.ListComp(var=var):
                return self.binder(e, scope, var)
            case ir.Ranking(kind=kind, var=var, fallback=fb):
                if fb not in FALLBACKS[kind]:
                    self.error(e.span, f"'{fb}' is not a tie fallback for '{kind}'",
                               nearest(fb, FALLBACKS[kind]) or "use " + ", ".join(sorted(FALLBACKS[kind])))
                return self.binder(e, scope, var)
        return generic()

    def name(self, e: ir.Name, scope: Scope) -> ir.Expr:
        n = e.name
        sp = e.span
        if n in scope:
            return ir.Local(scope[n], span=sp)
        if n in self.symbols:
            return ir.Symbol(n, span=sp)
        if n in self.enums:
            return ir.ListLit(tuple(ir.Symbol(v, span=sp) for v in self.enums[n].values), span=sp)
        if n in self.global_vars:
            return ir.GlobalVar(n, span=sp)
        if n in self.zones or n in BUILTIN_ZONES:
            z = self.zones.get(n)
            if z is not None and z.per_player:
                self.error(sp, f"zone '{n}' belongs to each player", f"name whose: p.{n}")
            return ir.SharedZone(n, span=sp)
        if n in self.params:
            return ir.Param(self.params[n], n, span=sp)
        if n in BUILTIN_VALUES:
            return ir.Builtin(n, span=sp)
        if n in self.defs:
            if self.defs[n].params:
                self.error(sp, f"'{n}' takes {len(self.defs[n].params)} argument(s)")
            return ir.Call(n, (), span=sp)
        known = (set(scope) | set(self.symbols) | set(self.enums) | set(self.global_vars) | set(self.zones)
                 | set(self.params) | BUILTIN_VALUES | set(self.defs))
        hint = nearest(n, known)
        if n in self.player_vars or n in self.tokens:
            hint = f"'{n}' belongs to a player: write p.{n}"
        self.error(sp, f"unknown name '{n}'", hint)
        return e


REMOVABLE = {"enum", "component", "cards", "zone", "player", "global", "token", "score", "option", "assume",
             "ruling", "def", "procedure", "setup", "rounds", "scoring", "winner", "example", "invariant", "question",
             "strategy"}
BUILT_IN_BOTS = ("random", "greedy", "rollout", "mcts")  # interpreter/bots.py; a strategy falls back on one


def _some_names(name: str, known) -> str:
    """A hint for a name with no close match: the few known names nearest it, else the functions there are."""
    names = sorted(set(known))
    near = difflib.get_close_matches(name, names, n=5, cutoff=0.3)
    if near:
        return "no close match; nearest: " + ", ".join(near)
    return "known functions: " + ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")


def item_key(kind: str, value) -> tuple | None:
    """What a declaration is called, for matching a draft's declarations with
    those of the spec it extends.  Notes are a draft's own and have none."""
    match kind:
        case "note" | "extend" | "remove":
            return None
        case "game" | "setup" | "rounds" | "scoring" | "winner":
            return (kind,)
        case "cards":
            return ("cards", value.kind)
        case "var":
            return ("var", value.name)
        case "example":
            return ("example", value.name)  # the title, with its resolutions (`with`) when it has any
        case "zone" | "token":
            return (kind, value[0])
        case "invariant" | "question":  # one family: a draft may restate an invariant as a question
            return ("question", value.name)
    return (kind, value.name)


def _removal_key(kind: str, name: str) -> tuple:
    if kind in ("player", "global"):
        return ("var", name)
    if kind in ("setup", "rounds", "scoring", "winner"):
        return (kind,)
    if kind in ("invariant", "question"):
        return ("question", name)
    return (kind, name)


def gather_items(text: str, path: str, seen: tuple[str, ...] = ()) -> tuple[list, list[Problem], dict, str | None]:
    """Parse a spec and everything it extends into one list of declarations:
    (items, problems, sources, base path)."""
    items, problems = parse_items(text, path)
    sources = {path: text}
    flat = []
    for kind, value in items:
        if kind == "vars":  # one entry per variable, so a draft can replace a single one
            flat.extend(("var", v) for v in value)
        else:
            flat.append((kind, value))
    extends = [v for k, v in flat if k == "extend"]
    removals = [v for k, v in flat if k == "remove"]
    if not extends:
        for kind, name, span in removals:
            problems.append(Problem(span.path or path, span, "'remove' needs an 'extend' line: there is nothing to remove from"))
        return flat, problems, sources, None
    target, span = extends[0]
    for _, extra in extends[1:]:
        problems.append(Problem(path, extra, "a spec extends one base spec; this is a second 'extend'"))
    base_path = str(Path(path).parent / target) if not Path(target).is_absolute() else target
    if base_path in seen or Path(base_path).resolve() == Path(path).resolve():
        problems.append(Problem(path, span, f"'{target}' extends itself (a cycle of extend lines)"))
        return flat, problems, sources, base_path
    if Path(base_path).suffix != ".soan":
        problems.append(Problem(path, span, f"'{target}' is not a spec: extend reads only .soan files"))
        return flat, problems, sources, base_path
    try:
        base_text = read_spec_file(base_path)
    except FileNotFoundError:
        problems.append(Problem(path, span, f"cannot read the base spec '{target}' (looked for {base_path})",
                                "the path is relative to this spec's folder"))
        return flat, problems, sources, base_path
    except (OSError, ValueError) as e:
        problems.append(Problem(path, span, f"cannot read the base spec '{target}': {_why(e)}"))
        return flat, problems, sources, base_path
    base_items, base_problems, base_sources, _ = gather_items(base_text, base_path, seen + (path,))
    problems.extend(base_problems)
    sources.update(base_sources)
    merged = [(k, v) for k, v in base_items if k not in ("note", "extend", "remove")]
    index = {item_key(k, v): i for i, (k, v) in enumerate(merged)}
    for kind, name, rspan in removals:
        if kind not in REMOVABLE:
            problems.append(Problem(path, rspan, f"'{kind}' is not something a draft can remove",
                                    nearest(kind, REMOVABLE)))
            continue
        key = _removal_key(kind, name)
        if key not in index or merged[index[key]] is None:
            known = [str(k[-1]) for k in index if k and k[0] == key[0]]
            problems.append(Problem(path, rspan, f"the base spec has no {kind} '{name}' to remove",
                                    nearest(name, known)))
            continue
        merged[index[key]] = None
    for kind, value in flat:
        if kind in ("extend", "remove"):
            continue
        key = item_key(kind, value)
        if key is not None and key in index and merged[index[key]] is not None:
            merged[index[key]] = (kind, value)  # replaced in place: the draft's order stays the base's
        else:
            merged.append((kind, value))
    return [m for m in merged if m is not None], problems, sources, base_path


def compile_text(text: str, path: str = "<spec>") -> ir.Spec:
    """Parse and check spec text; raise SpecErrors with every problem found."""
    try:
        return _compile_text(text, path)
    except RecursionError:  # only off the command line's deep stack (soan.cli runs commands on one)
        raise SpecErrors([Problem(path, ir.Span(1, 1, 1, 2), "the spec nests too deeply to check with Python's "
                                  "default recursion limit", "the soan command reads up to 1000 levels; from Python, "
                                  "raise sys.setrecursionlimit")], text) from None


def _compile_text(text: str, path: str) -> ir.Spec:
    items, problems, sources, base = gather_items(text, path)
    c = Compiler(path, text)
    c.problems.extend(problems)
    c.problems_from_syntax = bool(problems)
    spec = c.build(items)
    if not problems:
        spec = c.check(spec)
        if not c.problems:
            c.problems.extend(limit_problems(spec))
    else:
        # Still check what did parse, so the designer sees every problem at once.
        try:
            c.check(spec)
        except Exception:  # a half-parsed spec may not check cleanly; the syntax errors come first
            pass
    if c.problems:
        raise SpecErrors(c.problems, text, sources)
    return attrs.evolve(spec, sources=sources, extends=base)


def compile_question(spec: ir.Spec, text: str, path: str = "<question>") -> ir.Question:
    """An ad hoc question ('can EXPR [at end]' or 'always EXPR [at end]'),
    resolved against a checked spec.  Problems point into `text` (shown as
    `path`), with a caret and the nearest known name."""
    q, problems = parse_question(text, path)
    if q is not None:
        c = Compiler(path, text)
        c.declare(spec)
        c.problems.clear()  # a checked spec has no clashes; only the question's problems count
        q = c.question(q)
        problems = [attrs.evolve(p, hint=p.hint or "a question sees the spec's declared names only: quantify over the "
                                 "players with all(p.NAME for p in players), any(...) or count(...)")
                    if p.message.startswith("unknown name") else p for p in c.problems]
    if problems:
        raise SpecErrors(problems, text, {path: text})
    return q


def read_spec_file(path: str | Path) -> str:
    """The text of a spec file: UTF-8, no NUL bytes, at most MAX_SPEC_BYTES (so /dev/zero or a binary
    file is refused at once).  Raises OSError or ValueError."""
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(21, "it is a folder", str(p))
    with open(p, "rb") as f:
        data = f.read(MAX_SPEC_BYTES + 1)
    if len(data) > MAX_SPEC_BYTES:
        raise ValueError(f"it is larger than {MAX_SPEC_BYTES:,} bytes, the most soan reads")
    if b"\0" in data:
        raise ValueError("it is not a text file (it holds NUL bytes)")
    try:
        return data.decode("utf-8-sig")  # a byte-order mark (Windows editors) is not part of the spec
    except UnicodeDecodeError as e:
        raise ValueError(f"it is not UTF-8 text (byte {e.start} cannot be read)") from None


def _why(e: Exception) -> str:
    return e.strerror if isinstance(e, OSError) and e.strerror else str(e)


def load_spec(path: str | Path) -> ir.Spec:
    """Read, parse and check a spec file."""
    if not str(path).strip():  # Path("") is the current folder: say what was really given
        raise SpecErrors([Problem("<empty path>", ir.Span(0, 0), "the spec's path is empty",
                                  "give the path of a .soan file")])
    try:
        text = read_spec_file(path)
    except FileNotFoundError:
        raise SpecErrors([Problem(str(path), ir.Span(0, 0), f"no such spec file: {path}")]) from None
    except (OSError, ValueError) as exc:
        raise SpecErrors([Problem(str(path), ir.Span(0, 0), f"cannot read spec file: {_why(exc)}")]) from None
    return compile_text(text, str(path))
