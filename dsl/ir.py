"""The intermediate representation of a spec: frozen attrs nodes with source spans.

Every node carries a `span` (line and column in the spec file).  Spans are kept
out of equality so that two drafts compare equal where their rules are equal,
wherever the rules stand in the file.  `children()` is the one generic child
walk that every analysis shares.
"""

from __future__ import annotations

from typing import Iterator

import attrs


@attrs.frozen
class Span:
    line: int = 0
    col: int = 0
    end_line: int = 0
    end_col: int = 0
    path: str = ""  # the file, when a spec extends another and this node came from there

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"

    @property
    def site(self) -> tuple[str, int, int]:
        """Where a rule stands, for keying what happens there: the file too, so
        that with `extend` two rules at the same line of different files stay apart."""
        return (self.path, self.line, self.col)


NOSPAN = Span()


def _span_field():
    return attrs.field(kw_only=True, default=NOSPAN, eq=False, repr=False)


@attrs.frozen
class Node:
    span: Span = _span_field()


def children(node: Node) -> Iterator[Node]:
    """Yield the direct child nodes of `node`, in field order."""
    for f in attrs.fields(type(node)):
        if f.name == "span":
            continue
        value = getattr(node, f.name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    yield item
                elif isinstance(item, tuple):
                    yield from (x for x in item if isinstance(x, Node))


def map_children(node: Node, fn) -> Node:
    """A copy of `node` with `fn` applied to each direct child node (inside
    tuples too); the node itself when nothing changed.  The one generic
    rewrite that the resolver and other passes share."""
    changes = {}
    for f in attrs.fields(type(node)):
        if f.name == "span":
            continue
        old = getattr(node, f.name)
        new = _map_value(old, fn)
        if new is not old:
            changes[f.name] = new
    return attrs.evolve(node, **changes) if changes else node


def _map_value(value, fn):
    if isinstance(value, Node):
        return fn(value)
    if isinstance(value, tuple):
        mapped = tuple(_map_value(v, fn) for v in value)
        return value if all(a is b for a, b in zip(mapped, value)) else mapped
    return value


def walk(node: Node) -> Iterator[Node]:
    """Yield `node` and every node below it, depth first."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(children(n))))


def free_locals(e: Node) -> set[str]:
    """The locals `e` reads that it does not bind itself: an aggregate's, a comprehension's or a ranking's
    variable is bound in its condition, value and keys, not in the collection it runs over."""
    out: set[str] = set()

    def go(n, bound):
        if isinstance(n, Local):
            if n.name not in bound:
                out.add(n.name)
            return
        if isinstance(n, (ListComp, Agg, Ranking)):
            go(n.coll, bound)
            for ch in children(n):
                if ch is not n.coll:
                    go(ch, bound | {n.var})
            return
        for ch in children(n):
            go(ch, bound)

    go(e, frozenset())
    return out


def _tuple(x) -> tuple:
    return tuple(x)


# ---- domains -------------------------------------------------------------------


_is_int = attrs.validators.instance_of(int)
_is_str = attrs.validators.instance_of(str)
_is_bool = attrs.validators.instance_of(bool)


@attrs.frozen
class IntDomain(Node):
    lo: int = attrs.field(validator=_is_int)
    hi: int = attrs.field(validator=_is_int)

    def __str__(self) -> str:
        return f"{self.lo}..{self.hi}"


@attrs.frozen
class BoolDomain(Node):
    def __str__(self) -> str:
        return "bool"


@attrs.frozen
class CardDomain(Node):
    def __str__(self) -> str:
        return "card"


@attrs.frozen
class PlayerDomain(Node):
    def __str__(self) -> str:
        return "player"


@attrs.frozen
class EnumDomain(Node):
    """A named enum, or (when `values` is given) an inline set of symbols."""

    name: str
    values: tuple[str, ...] = attrs.field(default=(), converter=_tuple)

    def __str__(self) -> str:
        return self.name if not self.values else "{" + ", ".join(self.values) + "}"


Domain = IntDomain | BoolDomain | CardDomain | PlayerDomain | EnumDomain


# ---- expressions ----------------------------------------------------------------


@attrs.frozen
class Expr(Node):
    pass


@attrs.frozen
class Int(Expr):
    value: int = attrs.field(validator=_is_int)


@attrs.frozen
class Str(Expr):
    value: str


@attrs.frozen
class Bool(Expr):
    value: bool


@attrs.frozen
class NoneLit(Expr):
    pass


@attrs.frozen
class Name(Expr):
    """A name as written; the resolver replaces it with one of the nodes below."""

    name: str


@attrs.frozen
class Local(Expr):
    """A local: `name` is its binding's key, unique among the bindings in
    reach (see the resolver's Scope); `shown(name)` is the name as written."""

    name: str


def shown(key: str) -> str:
    """A local's name as the designer wrote it (a shadowing binding's key is `name~k`)."""
    return key.split("~", 1)[0]


@attrs.frozen
class Symbol(Expr):
    """An enum value or a component kind, used as a value."""

    name: str


@attrs.frozen
class GlobalVar(Expr):
    name: str


@attrs.frozen
class SharedZone(Expr):
    name: str


@attrs.frozen
class Param(Expr):
    """A ruling, assumption or option: a named parameter of the spec."""

    kind: str  # "ruling" | "assume" | "option"
    name: str


@attrs.frozen
class Builtin(Expr):
    """A value the engine provides: round, player_count, head of play, ..."""

    name: str


@attrs.frozen
class Attr(Expr):
    obj: Expr
    name: str


@attrs.frozen
class Index(Expr):
    obj: Expr
    key: Expr


@attrs.frozen
class Call(Expr):
    func: str
    args: tuple[Expr, ...] = attrs.field(converter=_tuple)


@attrs.frozen
class Agg(Expr):
    """count/sum/max/min/any/all/distinct/first over `var in coll where cond`, of `value`."""

    func: str
    var: str
    coll: Expr
    where: Expr | None
    value: Expr | None


@attrs.frozen
class ListLit(Expr):
    items: tuple[Expr, ...] = attrs.field(converter=_tuple)


@attrs.frozen
class ListComp(Expr):
    var: str
    coll: Expr
    where: Expr | None
    value: Expr | None  # None: keep the elements themselves (a filter)


@attrs.frozen
class BinOp(Expr):
    op: str = attrs.field(validator=attrs.validators.in_(
        ("or", "and", "==", "!=", "<", "<=", ">", ">=", "has", "+", "-", "*", "//", "%")))
    left: Expr
    right: Expr


@attrs.frozen
class Not(Expr):
    operand: Expr


@attrs.frozen
class Neg(Expr):
    operand: Expr


@attrs.frozen
class Cond(Expr):
    test: Expr
    then: Expr
    orelse: Expr


@attrs.frozen
class RangeExpr(Expr):
    lo: Expr
    hi: Expr


@attrs.frozen
class AllPlayers(Expr):
    pass


@attrs.frozen
class PlayersFrom(Expr):
    start: Expr


@attrs.frozen
class Key(Node):
    expr: Expr
    descending: bool = attrs.field(validator=_is_bool)


@attrs.frozen
class Ranking(Expr):
    """`best`/`order` x in coll where cond by keys else fallback.

    `best` gives the elements that come first; `order` gives all of them sorted.
    The fallback says what a tie left after every key means: shared (all of the
    tied come first), none (nobody), draw (a drawn result), stable (the
    collection's own order decides).
    """

    kind: str = attrs.field(validator=attrs.validators.in_(("best", "order")))
    var: str = attrs.field(validator=_is_str)
    coll: Expr = attrs.field()
    where: Expr | None
    keys: tuple[Key, ...] = attrs.field(converter=_tuple)
    fallback: str = "stable"


# ---- statements ---------------------------------------------------------------------


@attrs.frozen
class Stmt(Node):
    pass


@attrs.frozen
class Block(Node):
    stmts: tuple[Stmt, ...] = attrs.field(converter=_tuple)


@attrs.frozen
class Let(Stmt):
    name: str
    value: Expr


@attrs.frozen
class Set(Stmt):
    target: Expr
    op: str = attrs.field(validator=attrs.validators.in_(("=", "+=", "-=")))
    value: Expr = attrs.field()


@attrs.frozen
class Move(Stmt):
    what: Expr
    dest: Expr
    at_top: bool | None  # None: the zone's default end
    face: str | None  # "facedown" | "faceup" | None (face up)


@attrs.frozen
class Draw(Stmt):
    count: Expr
    source: Expr
    dest: Expr
    at_top: bool | None
    face: str | None


@attrs.frozen
class Exchange(Stmt):
    a: Expr
    b: Expr


@attrs.frozen
class Shuffle(Stmt):
    zone: Expr


@attrs.frozen
class Roll(Stmt):
    what: Expr


@attrs.frozen
class Flip(Stmt):
    what: Expr
    face: str = attrs.field(validator=attrs.validators.in_(("facedown", "faceup")))


@attrs.frozen
class Look(Stmt):
    who: Expr
    what: Expr


@attrs.frozen
class OptionBranch(Node):
    name: str
    title: str | None
    when: Expr | None
    body: Block


@attrs.frozen
class Choose(Stmt):
    """A decision.  Either of items (`var` bound to an item, or to a list when
    `count` is given) or of named options.  `may`/`pass_if` allow passing;
    `orelse` runs on a pass or when nothing can be chosen."""

    player: Expr
    var: str | None
    source: Expr | None
    where: Expr | None
    count_kind: str | None  # None (one item) | "up_to" | "exactly" | "between"
    count_lo: Expr | None
    count_hi: Expr | None
    options: tuple[OptionBranch, ...] = attrs.field(converter=_tuple)
    pass_if: Expr | None = None
    prompt: str | None = None
    body: Block | None = None
    orelse: Block | None = None


@attrs.frozen
class Pick(Stmt):
    """A chance event: one element of `source`, uniformly or by `weight`."""

    var: str
    source: Expr
    weight: Expr | None
    body: Block


@attrs.frozen
class For(Stmt):
    var: str
    coll: Expr
    where: Expr | None
    body: Block
    simultaneous: bool = False


@attrs.frozen
class Repeat(Stmt):
    count: Expr
    body: Block


@attrs.frozen
class While(Stmt):
    test: Expr
    limit: Expr
    body: Block


@attrs.frozen
class Break(Stmt):
    pass


@attrs.frozen
class If(Stmt):
    branches: tuple[tuple[Expr, Block], ...] = attrs.field(converter=_tuple)
    orelse: Block | None = None


@attrs.frozen
class Do(Stmt):
    proc: str
    args: tuple[Expr, ...] = attrs.field(converter=_tuple)


@attrs.frozen
class Award(Stmt):
    amount: Expr
    player: Expr
    item: str


@attrs.frozen
class Give(Stmt):
    amount: Expr
    token: str
    player: Expr


@attrs.frozen
class Return(Stmt):
    amount: Expr
    token: str
    player: Expr


@attrs.frozen
class Eliminate(Stmt):
    player: Expr
    reason: str | None


@attrs.frozen
class Win(Stmt):
    player: Expr


@attrs.frozen
class EndGame(Stmt):
    pass


@attrs.frozen
class Phase(Stmt):
    name: str
    title: str | None
    body: Block


@attrs.frozen
class Check(Stmt):
    test: Expr
    message: str | None


@attrs.frozen
class Say(Stmt):
    text: str


# ---- declarations ------------------------------------------------------------------------


@attrs.frozen
class Enum(Node):
    name: str
    title: str | None
    values: tuple[str, ...] = attrs.field(converter=_tuple)


@attrs.frozen
class Field(Node):
    name: str
    domain: Domain
    default: Expr | None
    is_state: bool


@attrs.frozen
class Component(Node):
    name: str
    title: str | None
    fields: tuple[Field, ...] = attrs.field(converter=_tuple)


@attrs.frozen
class CardRow(Node):
    count: int
    each: tuple[str, ...] = attrs.field(converter=_tuple)
    fixed: tuple[tuple[str, Expr], ...] = attrs.field(converter=_tuple)
    # A row written `VALUE: N x ...` exists only while the set's `assumed` parameter has that value:
    # one card table per reading, chosen like a ruling with --rule.
    when: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen
class CardSet(Node):
    kind: str
    per_player: bool
    zone: str
    assumed: str | None
    rows: tuple[CardRow, ...] = attrs.field(converter=_tuple)


@attrs.frozen
class Zone(Node):
    name: str
    title: str | None
    per_player: bool
    visibility: str = attrs.field(validator=attrs.validators.in_(("public", "owner", "hidden")))
    order: str = attrs.field(validator=attrs.validators.in_(("stack", "row", "unordered")))
    capacity: Expr | None = None


@attrs.frozen
class Var(Node):
    name: str
    domain: Domain
    default: Expr | None
    title: str | None
    per_player: bool


@attrs.frozen
class Token(Node):
    name: str
    title: str | None
    supply: Expr
    hold: Domain
    when_short: str  # partial | unlimited | ruling
    short_ruling: str | None


@attrs.frozen
class ScoreItem(Node):
    name: str
    title: str | None
    domain: Domain | None


@attrs.frozen
class OptionRule(Node):
    name: str
    title: str | None
    cite: str | None


@attrs.frozen
class Assumption(Node):
    name: str
    text: str
    cite: str | None
    domain: Domain | None
    value: Expr | None


@attrs.frozen
class Ruling(Node):
    name: str
    question: str
    cite: str | None
    domain: Domain
    provisional: Expr


@attrs.frozen
class Def(Node):
    name: str
    params: tuple[str, ...] = attrs.field(converter=_tuple)
    body: Expr = attrs.field(default=None)


@attrs.frozen
class Procedure(Node):
    name: str
    params: tuple[str, ...] = attrs.field(converter=_tuple)
    body: Block = attrs.field(default=None)


@attrs.frozen
class Rounds(Node):
    count: Expr | None  # a fixed number of rounds
    until: Expr | None  # or: until this holds at the end of a round ...
    cap: Expr | None  # ... with a declared cap for simulation
    body: Block = attrs.field(default=None)


@attrs.frozen
class Payoff(Node):
    """What the bots play for instead of the win alone: `expr` (the winner line's variable bound to each
    player) is the player's payoff, a whole number from `lo` to `hi`."""

    expr: Expr
    lo: int
    hi: int


@attrs.frozen
class Winner(Node):
    var: str
    coll: Expr
    where: Expr | None
    keys: tuple[Key, ...] = attrs.field(converter=_tuple)
    fallback: str = "draw"
    payoff: Payoff | None = None


@attrs.frozen
class MoveItem(Node):
    """One move as a script names it: a value (`p2`, `red`, `first(p1.hand)`),
    a component kind with an optional condition on the card's own fields
    (`card where colour == red`), or a bare label (an option's name).  The
    compiler settles which: `kind` for a kind, `value` for anything that
    resolves, else `label`.  `text` is the item as written."""

    text: str
    value: Expr | None = None
    kind: str | None = None
    where: Expr | None = None
    label: str | None = None


@attrs.frozen
class Step(Node):
    """One line of an example's script.

    move: `player verb item` or `player verb [item, ...]` (a choice of several)
    or `player verb nothing`; pass: `player passes`; offered: `player is
    offered {item, ...}` (checks the decision at hand, answers nothing);
    roll: `roll N`; random: `random item`; shuffle: `shuffle unchanged`."""

    kind: str = attrs.field(validator=attrs.validators.in_(("move", "pass", "offered", "roll", "random", "shuffle")))
    player: str | None = None
    verb: str | None = None
    items: tuple[MoveItem, ...] = attrs.field(default=(), converter=_tuple)
    several: bool = False  # the move is a list (or nothing): a choice of several items
    number: int | None = None
    offers: tuple["Step", ...] = attrs.field(default=(), converter=_tuple)  # offered: each move listed, as a move step


@attrs.frozen
class Play(Node):
    """One part of an example, played in order: a `given` or `run` block, or a
    part of the game (setup, a round, N rounds, a phase, the scoring, the rest
    of the game, a procedure), with the script that answers its decisions."""

    target: str = attrs.field(validator=attrs.validators.in_(
        ("given", "run", "setup", "round", "rounds", "phase", "scoring", "game", "do")))
    count: int | None = None
    name: str | None = None
    args: tuple[Expr, ...] = attrs.field(default=(), converter=_tuple)
    block: Block | None = None
    script: tuple[Step, ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen
class Outcome(Node):
    """An expectation about how the game ended: `winner p1[, p2]`, `draw
    [p1, p2]`, `no winner`, `eliminated [p1, ...]` (exactly these), or an
    `account` line that appears in the game's account."""

    kind: str = attrs.field(validator=attrs.validators.in_(("winner", "draw", "no_winner", "eliminated", "account")))
    players: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    text: str | None = None


@attrs.frozen
class Example(Node):
    title: str
    players: int | None
    options: tuple[str, ...] = attrs.field(converter=_tuple)
    given: Block | None = None
    run: Block | None = None
    expects: tuple[tuple[Expr, str | None], ...] = attrs.field(default=(), converter=_tuple)
    seed: int | None = None
    # `with NAME = VALUE`: a ruling, assumption or option resolved another way for this example
    params: tuple[tuple[str, Expr], ...] = attrs.field(default=(), converter=_tuple)
    parts: tuple[Play, ...] = attrs.field(default=(), converter=_tuple)
    outcomes: tuple[Outcome, ...] = attrs.field(default=(), converter=_tuple)
    # How many parts are played before each expectation is checked: an `expect`
    # between two parts checks the state between them.
    expect_at: tuple[int, ...] = attrs.field(default=(), converter=_tuple)
    outcome_at: tuple[int, ...] = attrs.field(default=(), converter=_tuple)

    @property
    def name(self) -> str:
        """The title, with the example's resolutions when it has any."""
        if not self.params:
            return self.title
        return self.title + " [" + ", ".join(f"{n}={_const_text(v)}" for n, v in self.params) + "]"


def _const_text(e) -> str:
    match e:
        case Int(value=v):
            return str(v)
        case Bool(value=v):
            return "true" if v else "false"
        case Name(name=n) | Symbol(name=n):
            return n
        case Str(value=v):
            return v
    return "?"


@attrs.frozen
class Question(Node):
    """A designer's own question about every game of the spec.

    `can`: is `expr` ever true?  `always`: is it never false?  An `invariant`
    is an `always` whose failure is a flaw in the spec, not an answer.  With
    `at_end` only the final state of a game counts; otherwise every state
    reached during play (after the setup starts)."""

    kind: str = attrs.field(validator=attrs.validators.in_(("invariant", "can", "always")))
    name: str = attrs.field(validator=_is_str)
    text: str | None = attrs.field()
    expr: Expr = attrs.field()
    at_end: bool = attrs.field(default=False, validator=_is_bool)


@attrs.frozen
class Prefer(Node):
    """One preference of a strategy: `option` takes the option (or pass) called
    `name` wherever it is offered; `item` takes a move whose item, bound to
    `name`, makes `where` true (any move, without `where`).  With `when`, only
    while that holds.  Expressions see the spec's declared names and `me`,
    the deciding player."""

    kind: str = attrs.field(validator=attrs.validators.in_(("option", "item")))
    name: str = attrs.field(validator=_is_str)
    where: Expr | None = None
    when: Expr | None = None


@attrs.frozen
class Strategy(Node):
    """A named way to play, usable as a bot: its preferences in order, first
    applicable one wins; `fallback` (a bot name) decides everything else."""

    name: str = attrs.field(validator=_is_str)
    text: str = attrs.field(validator=_is_str)
    prefers: tuple[Prefer, ...] = attrs.field(converter=_tuple)
    fallback: str = "greedy"


@attrs.frozen
class Spec(Node):
    name: str
    draft: int | None
    min_players: int
    max_players: int
    source: str | None
    notes: tuple[str, ...] = attrs.field(converter=_tuple)
    enums: tuple[Enum, ...] = attrs.field(converter=_tuple)
    components: tuple[Component, ...] = attrs.field(converter=_tuple)
    card_sets: tuple[CardSet, ...] = attrs.field(converter=_tuple)
    zones: tuple[Zone, ...] = attrs.field(converter=_tuple)
    vars: tuple[Var, ...] = attrs.field(converter=_tuple)
    tokens: tuple[Token, ...] = attrs.field(converter=_tuple)
    scores: tuple[ScoreItem, ...] = attrs.field(converter=_tuple)
    options: tuple[OptionRule, ...] = attrs.field(converter=_tuple)
    assumptions: tuple[Assumption, ...] = attrs.field(converter=_tuple)
    rulings: tuple[Ruling, ...] = attrs.field(converter=_tuple)
    defs: tuple[Def, ...] = attrs.field(converter=_tuple)
    procedures: tuple[Procedure, ...] = attrs.field(converter=_tuple)
    setup: Block | None = None
    rounds: Rounds | None = None
    scoring: Block | None = None
    winner: Winner | None = None
    examples: tuple[Example, ...] = attrs.field(default=(), converter=_tuple)
    questions: tuple[Question, ...] = attrs.field(default=(), converter=_tuple)  # invariants too, in written order
    strategies: tuple[Strategy, ...] = attrs.field(default=(), converter=_tuple)
    path: str = attrs.field(default="<spec>", eq=False)
    source_text: str = attrs.field(default="", eq=False, repr=False)
    # Every file the spec was built from (itself first, then what it extends): path -> text.
    sources: dict = attrs.field(factory=dict, eq=False, repr=False)
    extends: str | None = attrs.field(default=None, eq=False)

    def text_of(self, path: str | None) -> str:
        return self.sources.get(path or self.path, self.source_text)

    def component(self, name: str) -> Component | None:
        return next((c for c in self.components if c.name == name), None)

    def zone(self, name: str) -> Zone | None:
        return next((z for z in self.zones if z.name == name), None)
