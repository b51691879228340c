"""Text to IR: the Lark parser and the tree-to-IR transformer.

A spec is parsed one top-level declaration at a time, so a syntax error in one
declaration does not hide the problems in the others: every problem is
reported in one run.
"""

from __future__ import annotations

import contextvars
import re
from functools import lru_cache
from importlib import resources

import attrs

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ir
from .errors import Problem, SpecErrors
from .limits import MAX_NESTING

TOP_KEYWORDS = (
    "game", "note", "enum", "component", "cards", "zone", "player", "global", "token",
    "score", "option", "assume", "ruling", "def", "procedure", "setup", "rounds",
    "scoring", "winner", "example", "extend", "remove", "invariant", "question", "strategy",
)

# Plain names for the grammar's terminals, for "expected ..." hints.
_TERMINAL_NAMES = {
    "NAME": "a name", "INT": "a number", "STRING": "a quoted string", "LBRACE": "'{'",
    "RBRACE": "'}'", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'",
    "COLON": "':'", "COMMA": "','", "EQUAL": "'='", "MINUS": "'-'", "DOT": "'.'",
    "MAY": "'may'", "$END": "the end of the file",
}


@lru_cache(maxsize=1)
def grammar_text() -> str:
    return resources.files("soan.dsl").joinpath("soan.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    # cache=True keeps the built parser tables in the temp folder: a command starts in a fraction of the time.
    return Lark(grammar_text(), parser="lalr", propagate_positions=True, maybe_placeholders=True, cache=True)


# The file being read: spans carry it, so a spec built from two files (extend)
# still points each problem at the right one.
_current_path: contextvars.ContextVar[str] = contextvars.ContextVar("soan_path", default="")


def _span(meta) -> ir.Span:
    if getattr(meta, "empty", True):
        return ir.NOSPAN
    return ir.Span(meta.line, meta.column, meta.end_line, meta.end_column, _current_path.get())


def _tok_span(tok: Token) -> ir.Span:
    return ir.Span(tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + len(tok),
                   _current_path.get())


# The text being parsed, so a script's move can be quoted back as written.
_current_text: contextvars.ContextVar[str] = contextvars.ContextVar("soan_text", default="")


def _source_text(meta) -> str:
    if getattr(meta, "empty", True):
        return ""
    text = _current_text.get()
    return text[meta.start_pos:meta.end_pos] if text else ""


def _unquote(tok: Token) -> str:
    s = str(tok)[1:-1]
    return s.replace('\\"', '"').replace("\\\\", "\\")


def _s(tok) -> str | None:
    return None if tok is None else (_unquote(tok) if tok.type == "STRING" else str(tok))


@v_args(meta=True, inline=True)
class ToIR(Transformer):
    """Builds IR nodes; top-level items become ("kind", node) pairs."""

    # ---- metadata
    def game_decl(self, meta, name, *attrs_):
        return ("game", (_unquote(name), attrs_, _span(meta)))

    def draft(self, meta, n):
        return ("draft", int(n))

    def players(self, meta, lo, hi):
        return ("players", (int(lo), int(hi)))

    def source(self, meta, s):
        return ("source", _unquote(s))

    def note_decl(self, meta, s):
        return ("note", _unquote(s))

    def extend_decl(self, meta, s):
        return ("extend", (_unquote(s), _span(meta)))

    def remove_named(self, meta, kind, name):
        return ("remove", (str(kind), str(name), _span(meta)))

    def remove_titled(self, meta, kind, title):
        return ("remove", (str(kind), _unquote(title), _span(meta)))

    # ---- domains
    def sint(self, meta, minus, n):
        return -int(n) if minus else int(n)

    def int_domain(self, meta, lo, hi):
        return ir.IntDomain(lo, hi, span=_span(meta))

    def bool_domain(self, meta):
        return ir.BoolDomain(span=_span(meta))

    def card_domain(self, meta):
        return ir.CardDomain(span=_span(meta))

    def player_domain(self, meta):
        return ir.PlayerDomain(span=_span(meta))

    def named_domain(self, meta, name):
        return ir.EnumDomain(str(name), span=_span(meta))

    def inline_domain(self, meta, *names):
        return ir.EnumDomain("{" + ",".join(map(str, names)) + "}", tuple(map(str, names)), span=_span(meta))

    # ---- vocabulary
    def enum_decl(self, meta, name, title, *values):
        return ("enum", ir.Enum(str(name), _s(title), tuple(map(str, values)), span=_tok_span(name)))

    def field(self, meta, name, domain, default):
        return ir.Field(str(name), domain, default, False, span=_tok_span(name))

    def state_field(self, meta, name, domain, default):
        return ir.Field(str(name), domain, default, True, span=_tok_span(name))

    def component_decl(self, meta, name, title, *members):
        return ("component", ir.Component(str(name), _s(title), members, span=_tok_span(name)))

    def per_player(self, meta):
        return True

    def assumed(self, meta, name):
        return str(name)

    def row_each(self, meta, name):
        return ("each", str(name), _tok_span(name))

    def row_set(self, meta, name, value):
        return ("set", (str(name), value), _tok_span(name))

    def row_when(self, meta, name):
        return str(name)

    def card_row(self, meta, when, count, *specs):
        each = tuple(s[1] for s in specs if s[0] == "each")
        fixed = tuple(s[1] for s in specs if s[0] == "set")
        return ir.CardRow(int(count), each, fixed, when=when, span=_span(meta))

    def cards_decl(self, meta, kind, per_player, zone, assumed, *rows):
        return ("cards", ir.CardSet(str(kind), bool(per_player), str(zone), assumed, rows, span=_tok_span(kind)))

    def zone_words(self, meta, *words):
        return tuple(words)

    def capacity(self, meta, e):
        return e

    def zone_decl(self, meta, name, title, words, capacity):
        return ("zone", (str(name), _s(title), words, capacity, _tok_span(name)))

    def var_decl(self, meta, name, domain, default, title):
        return (str(name), domain, default, _s(title), _tok_span(name))

    def player_vars(self, meta, *decls):
        return ("vars", tuple(ir.Var(n, d, df, t, True, span=sp) for n, d, df, t, sp in decls))

    def global_vars(self, meta, *decls):
        return ("vars", tuple(ir.Var(n, d, df, t, False, span=sp) for n, d, df, t, sp in decls))

    def short_fixed(self, meta, name):
        return (str(name), None, _tok_span(name))

    def short_ruling(self, meta, name):
        return ("ruling", str(name), _tok_span(name))

    def token_decl(self, meta, name, title, supply, hold, short):
        if short is None:
            short = ("", None, _tok_span(name))
        return ("token", (str(name), _s(title), supply, hold, short, _tok_span(name)))

    def score_decl(self, meta, name, title, domain):
        return ("score", ir.ScoreItem(str(name), _s(title), domain, span=_tok_span(name)))

    def cite(self, meta, s):
        return _unquote(s)

    def option_decl(self, meta, name, title, cite):
        return ("option", ir.OptionRule(str(name), _s(title), cite, span=_tok_span(name)))

    def assume_decl(self, meta, name, domain, value, text, cite):
        return ("assume", ir.Assumption(str(name), _unquote(text), cite, domain, value, span=_tok_span(name)))

    def ruling_decl(self, meta, name, domain, value, text, cite):
        return ("ruling", ir.Ruling(str(name), _unquote(text), cite, domain, value, span=_tok_span(name)))

    def params(self, meta, *names):
        return tuple(str(n) for n in names if n is not None)

    def def_decl(self, meta, name, params, body):
        return ("def", ir.Def(str(name), params or (), body, span=_tok_span(name)))

    def proc_decl(self, meta, name, params, body):
        return ("procedure", ir.Procedure(str(name), params or (), body, span=_tok_span(name)))

    def setup_decl(self, meta, body):
        return ("setup", body)

    def rounds_fixed(self, meta, count, body):
        return ("rounds", ir.Rounds(count, None, None, body, span=_span(meta)))

    def rounds_until(self, meta, until, cap, body):
        return ("rounds", ir.Rounds(None, until, cap, body, span=_span(meta)))

    def scoring_decl(self, meta, body):
        return ("scoring", body)

    def winner_decl(self, meta, var, coll, where, keys, fallback, payoff):
        return ("winner", ir.Winner(str(var), coll, where, keys, str(fallback), payoff, span=_span(meta)))

    def payoff(self, meta, expr, lo, hi):
        return ir.Payoff(expr, lo, hi, span=_span(meta))

    def ex_players(self, meta, n):
        return ("players", int(n))

    def ex_option(self, meta, name):
        return ("option", str(name))

    def ex_seed(self, meta, n):
        return ("seed", int(n))

    def ex_with(self, meta, name, value):
        return ("with", (str(name), value, _tok_span(name)))

    def ex_setting(self, meta, name, value):
        return (str(name), value, _tok_span(name))

    def ex_head(self, meta, *settings):
        return ("head", settings)

    def ex_given(self, meta, b):
        return ("part", ir.Play("given", block=b, span=_span(meta)))

    def ex_run(self, meta, b, script):
        return ("part", ir.Play("run", block=b, script=script or (), span=_span(meta)))

    def ex_play(self, meta, target, script):
        return ("part", attrs.evolve(target, script=script or (), span=_span(meta)))

    def pt_setup(self, meta):
        return ir.Play("setup")

    def pt_round(self, meta):
        return ir.Play("round", count=1)

    def pt_rounds(self, meta, n):
        return ir.Play("rounds", count=int(n))

    def pt_phase(self, meta, name):
        return ir.Play("phase", name=str(name))

    def pt_scoring(self, meta):
        return ir.Play("scoring")

    def pt_game(self, meta):
        return ir.Play("game")

    def pt_do(self, meta, name, args):
        return ir.Play("do", name=str(name), args=args or ())

    def script(self, meta, *steps):
        return tuple(steps)

    def step_pass(self, meta, player):
        return ir.Step("pass", str(player), span=_span(meta))

    def step_offered(self, meta, player, *moves):
        offers = []
        for move in moves:
            if move is None:
                continue
            several, items = (False, (move,)) if isinstance(move, ir.MoveItem) else move
            offers.append(ir.Step("move", str(player), "is offered", items=items, several=several, span=_span(meta)))
        return ir.Step("offered", str(player), offers=offers, span=_span(meta))

    def step_move(self, meta, player, verb, move):
        several, items = (False, (move,)) if isinstance(move, ir.MoveItem) else move
        return ir.Step("move", str(player), str(verb), items=items, several=several, span=_span(meta))

    def step_roll(self, meta, n):
        return ir.Step("roll", number=int(n), span=_span(meta))

    def step_random(self, meta, item):
        return ir.Step("random", items=(item,), span=_span(meta))

    def step_shuffle(self, meta):
        return ir.Step("shuffle", span=_span(meta))

    def mv_nothing(self, meta):
        return (True, ())

    def mv_pass(self, meta):
        return (False, (ir.MoveItem("pass", label="pass", span=_span(meta)),))

    def mv_several(self, meta, *items):
        return (True, tuple(items))

    def move_item(self, meta, value, where):
        text = _source_text(meta)
        return ir.MoveItem(text, value=value, where=where, span=_span(meta))

    def ex_expect(self, meta, e, msg):
        return ("expect", (e, _s(msg)))

    def ex_expect_winner(self, meta, *names):
        return ("outcome", ir.Outcome("winner", tuple(map(str, names)), span=_span(meta)))

    def ex_expect_draw(self, meta, *names):
        return ("outcome", ir.Outcome("draw", tuple(str(n) for n in names if n is not None), span=_span(meta)))

    def ex_expect_no_winner(self, meta):
        return ("outcome", ir.Outcome("no_winner", span=_span(meta)))

    def ex_expect_eliminated(self, meta, *names):
        return ("outcome", ir.Outcome("eliminated", tuple(str(n) for n in names if n is not None), span=_span(meta)))

    def ex_expect_account(self, meta, text):
        return ("outcome", ir.Outcome("account", text=_unquote(text), span=_span(meta)))

    def example_decl(self, meta, title, head, *parts):
        players = seed = None
        options, expects, plays, outcomes, expect_at, outcome_at = [], [], [], [], [], []
        params = list(head[1]) if head is not None else []  # settings in the title line come first
        for kind, v in parts:
            if kind == "players":
                players = v
            elif kind == "seed":
                seed = v
            elif kind == "option":
                options.append(v)
            elif kind == "with":
                params.append(v)
            elif kind == "part":
                plays.append(v)
            elif kind == "outcome":
                outcomes.append(v)
                outcome_at.append(len(plays))
            else:
                expects.append(v)
                expect_at.append(len(plays))
        given = next((p.block for p in plays if p.target == "given"), None)
        run = next((p.block for p in plays if p.target == "run"), None)
        return ("example", ir.Example(_unquote(title), players, options, given, run, expects, seed=seed,
                                      params=tuple((n, v) for n, v, _ in params), parts=plays, outcomes=outcomes,
                                      expect_at=expect_at, outcome_at=outcome_at, span=_span(meta)))

    # ---- the designer's questions
    def invariant_decl(self, meta, name, text, expr):
        return ("invariant", ir.Question("invariant", str(name), _s(text), expr, False, span=_tok_span(name)))

    def at_end(self, meta):
        return True

    def q_can(self, meta, expr, at_end):
        return ("can", expr, bool(at_end))

    def q_always(self, meta, expr, at_end):
        return ("always", expr, bool(at_end))

    def question_decl(self, meta, name, text, body):
        kind, expr, at_end = body
        return ("question", ir.Question(kind, str(name), _s(text), expr, at_end, span=_tok_span(name)))

    def strategy_decl(self, meta, name, text, fallback, *prefers):
        return ("strategy", ir.Strategy(str(name), _unquote(text), tuple(prefers), fallback or "greedy",
                                        span=_tok_span(name)))

    def strategy_else(self, meta, name, *budget):
        return ":".join([str(name), *(str(b) for b in budget)])

    def prefer_option(self, meta, name, when):
        return ir.Prefer("option", str(name), None, when, span=_span(meta))

    def prefer_item(self, meta, name, where, when):
        return ir.Prefer("item", str(name), where, when, span=_span(meta))

    def when_clause(self, meta, e):
        return e

    # ---- statements
    def block(self, meta, *stmts):
        return ir.Block(stmts, span=_span(meta))

    def let_stmt(self, meta, name, value):
        return ir.Let(str(name), value, span=_span(meta))

    def set_assign(self, meta, target, value):
        return ir.Set(target, "=", value, span=_span(meta))

    def set_add(self, meta, target, value):
        return ir.Set(target, "+=", value, span=_span(meta))

    def set_sub(self, meta, target, value):
        return ir.Set(target, "-=", value, span=_span(meta))

    def top(self, meta):
        return ("top", True)

    def bottom(self, meta):
        return ("top", False)

    def facedown(self, meta):
        return ("face", "facedown")

    def faceup(self, meta):
        return ("face", "faceup")

    @staticmethod
    def _places(places):
        at_top, face = None, None
        for p in places:
            if p[0] == "top":
                at_top = p[1]
            else:
                face = p[1]
        return at_top, face

    def move_stmt(self, meta, what, dest, *places):
        at_top, face = self._places(places)
        return ir.Move(what, dest, at_top, face, span=_span(meta))

    def draw_stmt(self, meta, count, source, dest, *places):
        at_top, face = self._places(places)
        return ir.Draw(count, source, dest, at_top, face, span=_span(meta))

    def exchange_stmt(self, meta, a, b):
        return ir.Exchange(a, b, span=_span(meta))

    def shuffle_stmt(self, meta, zone):
        return ir.Shuffle(zone, span=_span(meta))

    def roll_stmt(self, meta, what):
        return ir.Roll(what, span=_span(meta))

    def flip_stmt(self, meta, what, face):
        return ir.Flip(what, face[1], span=_span(meta))

    def look_stmt(self, meta, who, what):
        return ir.Look(who, what, span=_span(meta))

    def where(self, meta, e):
        return e

    def weight(self, meta, e):
        return e

    def up_to(self, meta, e):
        return ("up_to", None, e)

    def exactly(self, meta, e):
        return ("exactly", e, e)

    def between(self, meta, lo, hi):
        return ("between", lo, hi)

    def pass_if(self, meta, e):
        return e

    def else_block(self, meta, b):
        return b

    def option_branch(self, meta, name, title, when, body):
        return ir.OptionBranch(str(name), _s(title), when, body, span=_tok_span(name))

    def choose_items(self, meta, may, var, count, source, where, player, prompt, pass_if, body, orelse):
        kind, lo, hi = count if count else (None, None, None)
        if may is not None:
            pass_if = ir.Bool(True, span=_tok_span(may))
        return ir.Choose(player, str(var), source, where, kind, lo, hi, (), pass_if, _s(prompt), body, orelse,
                         span=_span(meta))

    def choose_option(self, meta, may, player, prompt, pass_if, *rest):
        *options, orelse = rest
        if may is not None:
            pass_if = ir.Bool(True, span=_tok_span(may))
        return ir.Choose(player, None, None, None, None, None, None, tuple(options), pass_if, _s(prompt), None,
                         orelse, span=_span(meta))

    def pick_stmt(self, meta, var, source, weight, body):
        return ir.Pick(str(var), source, weight, body, span=_span(meta))

    def for_stmt(self, meta, var, coll, where, body):
        return ir.For(str(var), coll, where, body, False, span=_span(meta))

    def simultaneous_stmt(self, meta, var, coll, where, body):
        return ir.For(str(var), coll, where, body, True, span=_span(meta))

    def repeat_stmt(self, meta, count, body):
        return ir.Repeat(count, body, span=_span(meta))

    def while_stmt(self, meta, test, limit, body):
        return ir.While(test, limit, body, span=_span(meta))

    def break_stmt(self, meta):
        return ir.Break(span=_span(meta))

    def elif_part(self, meta, test, body):
        return (test, body)

    def if_stmt(self, meta, test, body, *rest):
        *elifs, orelse = rest
        return ir.If(((test, body), *elifs), orelse, span=_span(meta))

    def args(self, meta, *items):
        return tuple(i for i in items if i is not None)

    def do_stmt(self, meta, name, args):
        return ir.Do(str(name), args or (), span=_span(meta))

    def award_stmt(self, meta, amount, player, item):
        return ir.Award(amount, player, str(item), span=_span(meta))

    def give_stmt(self, meta, amount, token, player):
        return ir.Give(amount, str(token), player, span=_span(meta))

    def return_stmt(self, meta, amount, token, player):
        return ir.Return(amount, str(token), player, span=_span(meta))

    def eliminate_stmt(self, meta, player, reason):
        return ir.Eliminate(player, _s(reason), span=_span(meta))

    def win_stmt(self, meta, player):
        return ir.Win(player, span=_span(meta))

    def end_stmt(self, meta):
        return ir.EndGame(span=_span(meta))

    def phase_stmt(self, meta, name, title, body):
        return ir.Phase(str(name), _s(title), body, span=_span(meta))

    def check_stmt(self, meta, test, message):
        return ir.Check(test, _s(message), span=_span(meta))

    def say_stmt(self, meta, text):
        return ir.Say(_unquote(text), span=_span(meta))

    # ---- expressions
    def cond(self, meta, test, then, orelse):
        return ir.Cond(test, then, orelse, span=_span(meta))

    def _bin(op):  # noqa: N805 - a factory used in the class body
        def f(self, meta, left, right):
            return ir.BinOp(op, left, right, span=_span(meta))

        return f

    or_ = _bin("or")
    and_ = _bin("and")
    eq = _bin("==")
    ne = _bin("!=")
    lt = _bin("<")
    le = _bin("<=")
    gt = _bin(">")
    ge = _bin(">=")
    has = _bin("has")
    add = _bin("+")
    mul = _bin("*")
    floordiv = _bin("//")
    mod = _bin("%")

    def sub(self, meta, left, _minus, right):
        return ir.BinOp("-", left, right, span=_span(meta))

    def range(self, meta, lo, hi):
        return ir.RangeExpr(lo, hi, span=_span(meta))

    def not_(self, meta, operand):
        return ir.Not(operand, span=_span(meta))

    def neg(self, meta, _minus, operand):
        if isinstance(operand, ir.Int):
            return ir.Int(-operand.value, span=_span(meta))
        return ir.Neg(operand, span=_span(meta))

    def attr(self, meta, obj, name):
        return ir.Attr(obj, str(name), span=_span(meta))

    def index(self, meta, obj, key):
        return ir.Index(obj, key, span=_span(meta))

    def int(self, meta, tok):
        return ir.Int(int(tok), span=_span(meta))

    def string(self, meta, tok):
        return ir.Str(_unquote(tok), span=_span(meta))

    def true(self, meta):
        return ir.Bool(True, span=_span(meta))

    def false(self, meta):
        return ir.Bool(False, span=_span(meta))

    def none(self, meta):
        return ir.NoneLit(span=_span(meta))

    def name(self, meta, tok):
        return ir.Name(str(tok), span=_span(meta))

    def call(self, meta, name, args):
        return ir.Call(str(name), args or (), span=_span(meta))

    def call_filter(self, meta, func, var, coll, where):
        return ir.Agg(str(func), str(var), coll, where, None, span=_span(meta))

    def call_map(self, meta, func, value, var, coll, where):
        return ir.Agg(str(func), str(var), coll, where, value, span=_span(meta))

    def list(self, meta, *items):
        return ir.ListLit(tuple(i for i in items if i is not None), span=_span(meta))

    def list_filter(self, meta, var, coll, where):
        return ir.ListComp(str(var), coll, where, None, span=_span(meta))

    def list_map(self, meta, value, var, coll, where):
        return ir.ListComp(str(var), coll, where, value, span=_span(meta))

    def all_players(self, meta):
        return ir.AllPlayers(span=_span(meta))

    def players_from(self, meta, start):
        return ir.PlayersFrom(start, span=_span(meta))

    def asc_key(self, meta, expr):
        return ir.Key(expr, False, span=_span(meta))

    def desc_key(self, meta, expr):
        return ir.Key(expr, True, span=_span(meta))

    def keys(self, meta, *keys):
        return tuple(keys)

    def best(self, meta, var, coll, where, keys, fallback):
        return ir.Ranking("best", str(var), coll, where, keys, str(fallback), span=_span(meta))

    def order(self, meta, var, coll, where, keys, fallback):
        return ir.Ranking("order", str(var), coll, where, keys, str(fallback), span=_span(meta))


# ---- splitting into top-level chunks -----------------------------------------------------

_TOP_RE = re.compile(r"^(" + "|".join(TOP_KEYWORDS) + r")\b")


def split_top_level(text: str) -> list[tuple[int, str]]:
    """Split a spec into (first line number, text) chunks, one per top-level
    declaration, cutting only at column 0 where braces are balanced."""
    chunks: list[tuple[int, list[str]]] = []
    depth = 0
    for lineno, line in enumerate(text.splitlines(keepends=True), start=1):
        if depth <= 0 and _TOP_RE.match(line):
            chunks.append((lineno, []))
            depth = 0
        if not chunks:
            chunks.append((lineno, []))
        chunks[-1][1].append(line)
        depth += _brace_delta(line)
    return [(start, "".join(lines)) for start, lines in chunks]


def _brace_delta(line: str) -> int:
    delta, in_str, i = 0, False, 0
    while i < len(line):
        ch = line[i]
        if in_str:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "#":
            break
        elif ch == "{":
            delta += 1
        elif ch == "}":
            delta -= 1
        i += 1
    return delta


# ---- syntax errors ---------------------------------------------------------------------------

# Named syntax errors: a few mistakes designers make, recognised by example.
_NAMED_ERRORS = {
    "'=' compares nothing here; to compare two values write '=='": [
        'def f = a = b', 'setup { if a = b { } }', 'winner among p in players where a = b by p desc else draw',
    ],
    "a block is missing its closing '}'": [
        'setup { let a = 1 ', 'procedure p { if a { }', 'rounds 7 { phase main { }',
    ],
    "'move' needs 'to' and a destination zone": [
        'setup { move c }', 'setup { move c deck }',
    ],
    "a statement must start with a keyword such as let, set, move, if, for, choose, do or award": [
        'setup { a = 1 }', 'setup { x }', 'procedure p { foo(1) }',
    ],
}


def _describe_expected(expected) -> str:
    names = []
    for t in sorted(expected):
        if t in _TERMINAL_NAMES:
            names.append(_TERMINAL_NAMES[t])
        elif t.startswith("__ANON") or t.isupper():
            try:
                pattern = lark_parser().get_terminal(t).pattern
                names.append(f"'{pattern.value}'" if pattern.type == "str" else t.lower())
            except KeyError:
                names.append(t.lower())
        else:
            names.append(t)
    names = sorted(set(names))
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


def _syntax_problem(path: str, err: UnexpectedInput, chunk_text: str) -> Problem:
    parser = lark_parser()
    label = None
    try:
        label = err.match_examples(parser.parse, _NAMED_ERRORS, use_accepts=True)
    except Exception:  # match_examples re-parses examples; a failure there only loses the name
        label = None
    line, col = err.line, err.column
    if isinstance(err, UnexpectedCharacters):
        msg = f"unexpected character {chunk_text_char(chunk_text, err.pos_in_stream)!r}"
        hint = None
        if err.allowed:
            hint = "expected " + _describe_expected(err.allowed)
    elif isinstance(err, UnexpectedEOF):
        msg = "the declaration ends too early"
        hint = "expected " + _describe_expected(err.expected)
        line, col = max(line, 1), max(col, 1)
    else:
        assert isinstance(err, UnexpectedToken)
        tok = err.token
        shown = "the end of the declaration" if tok.type == "$END" else repr(str(tok))
        msg = f"unexpected {shown}"
        hint = "expected " + _describe_expected(err.accepts or err.expected)
        if tok.type == "$END":
            lines = chunk_text.rstrip().splitlines()
            line, col = len(lines), len(lines[-1]) + 1 if lines else 1
    if label:
        msg = f"{msg}: {label}"
    msg, hint = _explain_known_slips(chunk_text, line, col, msg, hint)
    return Problem(path, ir.Span(line, col, line, col + 1), f"syntax error, {msg}", hint)


# An `if` expression right after an operator: `award 1 + if c then 2 else 0 to p` reads as `1 + if`.
_IF_AFTER_OPERATOR = re.compile(r"(\+|-|\*|//|%|==|!=|<=|>=|<|>|\band|\bor|\bnot)\s*if\s*$")


def _explain_known_slips(text: str, line: int, col: int, msg: str, hint: str | None) -> tuple[str, str | None]:
    """Two slips whose bare parser message misleads: `let` used inside an expression, and an `if`
    expression after an operator without parentheses.  Both are read off the text before the error."""
    lines = text.splitlines()
    before = lines[line - 1][: col - 1] if 0 < line <= len(lines) else ""
    after = lines[line - 1][col - 1:] if 0 < line <= len(lines) else ""
    # `let NAME =` is refused only where an expression was due: a statement would have taken it
    if re.search(r"\blet\s+$", before) and re.match(r"[A-Za-z_]\w*\s*=", after):
        return ("'let' is a statement, not an expression: it cannot stand inside a def or an expression",
                "name the value with its own def (def n = 3), or write 'let NAME = EXPR' as a statement "
                "in a block of rules before the statement that uses it")
    if _IF_AFTER_OPERATOR.search(before):
        return (f"{msg}: an 'if' expression after an operator needs parentheses",
                "write it in parentheses: 1 + (if COND then A else B)")
    return msg, hint


def chunk_text_char(text: str, pos: int) -> str:
    return text[pos] if 0 <= pos < len(text) else "?"


def parse_items(text: str, path: str) -> tuple[list, list[Problem]]:
    """Parse spec text into (kind, value) items, and the syntax problems found."""
    items: list = []
    problems: list[Problem] = []
    parser = lark_parser()
    token = _current_path.set(path)
    try:
        _parse_chunks(text, path, parser, items, problems)
    finally:
        _current_path.reset(token)
    return items, problems


def _parse_chunks(text, path, parser, items, problems) -> None:
    for start, chunk in split_top_level(text):
        if not chunk.strip() or all(l.strip().startswith("#") or not l.strip() for l in chunk.splitlines()):
            continue
        padded = "\n" * (start - 1) + chunk
        _current_text.set(padded)
        try:
            tree = parser.parse(padded)
        except UnexpectedInput as e:
            problems.append(_syntax_problem(path, e, padded))
            continue
        too_deep = nesting_problem(tree, path, start)
        if too_deep is not None:
            problems.append(too_deep)
            continue
        try:
            result = ToIR().transform(tree)
        except (RecursionError, VisitError) as e:
            if isinstance(e, RecursionError) or isinstance(e.orig_exc, RecursionError):
                # only off the command line's deep stack (soan.cli runs commands on one)
                problems.append(Problem(path, ir.Span(start, 1, start, 2), "this declaration nests too deeply to read "
                                        "with Python's default recursion limit", f"the soan command reads up to "
                                        f"{MAX_NESTING} levels; from Python, raise sys.setrecursionlimit"))
                continue
            if not isinstance(e, VisitError):
                raise
            # a transformer bug must still not leak a traceback to a designer
            problems.append(Problem(path, ir.Span(start, 1, start, 2), f"could not read this declaration ({e.orig_exc})"))
            continue
        items.extend(result.children)


def nesting_problem(tree: Tree, path: str, start: int) -> Problem | None:
    """A located problem if the declaration nests deeper than MAX_NESTING, counted without recursion."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            line, col = _first_position(node, start)
            return Problem(path, ir.Span(line, col, line, col + 1),
                           f"this declaration nests more than {MAX_NESTING} levels deep (blocks inside blocks, "
                           "or the terms of one long expression)",
                           "split it up: name parts with def or procedure")
        if isinstance(node, Tree):
            stack.extend((c, depth + 1) for c in node.children if c is not None)
    return None


def _first_position(node, start: int) -> tuple[int, int]:
    if isinstance(node, Token):
        return node.line or start, node.column or 1
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return meta.line, meta.column
    return start, 1


def parse_expression(text: str, path: str = "<expression>") -> ir.Expr:
    """Parse a lone expression (for tests)."""
    items, problems = parse_items(f"def __q = {text}", path)
    if problems:
        raise SpecErrors(problems, f"def __q = {text}")
    return items[0][1].body


# An ad hoc question is read as the body of a question declaration whose head
# stands on a line of its own, so the question's own text starts at line 2,
# column 1: every position maps back to the text as typed by moving up a line.
_ADHOC_HEAD = "question question:\n"


def parse_question(text: str, path: str = "<question>") -> tuple[ir.Question | None, list[Problem]]:
    """Parse 'can EXPR [at end]' or 'always EXPR [at end]' as typed on a
    command line.  Spans and problems point into `text` itself."""
    token = _current_path.set(path)
    try:
        padded = _ADHOC_HEAD + text
        try:
            tree = lark_parser().parse(padded)
        except UnexpectedInput as e:
            p = _syntax_problem(path, e, padded)
            if p.span.line <= 1:  # the text ended before its question began
                p = attrs.evolve(p, span=ir.Span(2, 1, 2, 2), message="syntax error, the question is empty")
            p = attrs.evolve(p, message=p.message.replace("the end of the declaration", "the end of the question")
                             .replace("the declaration ends", "the question ends"))
            hint = p.hint
            if isinstance(e, UnexpectedToken) and e.token.line == 2 and e.token.column == 1:
                hint = "a question starts with 'can' (can it ever happen?) or 'always' (is it always so?)"
            return None, [attrs.evolve(p, span=_up_a_line(p.span), hint=hint)]
        try:
            items = ToIR().transform(tree).children
        except VisitError as e:
            return None, [Problem(path, ir.Span(1, 1, 1, 2), f"could not read this question ({e.orig_exc})")]
    finally:
        _current_path.reset(token)
    if len(items) != 1 or items[0][0] != "question":
        return None, [Problem(path, ir.Span(1, 1, 1, 2), "this is not a question",
                              "write: can EXPR [at end], or: always EXPR [at end]")]
    q = items[0][1]
    q = attrs.evolve(q, text=text.strip(), span=ir.Span(1, 1, 1, len(text) + 1, path))
    return _shift_up(q), []


def _up_a_line(sp: ir.Span) -> ir.Span:
    return attrs.evolve(sp, line=max(sp.line - 1, 1), end_line=max(sp.end_line - 1, 1))


def _shift_up(node):
    """The node with every span moved up one line (see _ADHOC_HEAD)."""
    node = ir.map_children(node, _shift_up)
    if node.span is ir.NOSPAN or node.span.line == 0:
        return node
    return attrs.evolve(node, span=_up_a_line(node.span))
