"""`soan rulebook`: the rules of a spec as a person reads them, generated from the IR.

Components with their counts, the setup, each round and phase, each action (procedure), the scoring,
the end and the winner, in the spec's own names and titles.  Every open ruling (⚑) and assumption (◇) is
marked where the rules read it, with its text and the draft section it cites; an appendix "Rulings before
printing" gives each open ruling's provisional answer and soan's verdict on it: no rule reads it (moot),
or how often games read it and how often another answer changes the winner, measured on a fixed number
of seeded games (soan/impact.py; work in games and engine steps, never seconds), with the commands that
show a game where it matters.

Expressions are told in words ("the number of c in p's hand where c's colour is red"), not in the spec's
syntax; names are the designer's own, with their titles in the glossary of components.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from soan import api
from soan.dsl import ir
from soan.dsl.analysis import _domain_size, parameter_uses

from .cmdline import EXIT_OK, UsageError, _params, _players, _runtime_error
from .console import stage_progress
from .files import check_output_file, write_text

DEFAULT_GAMES = 40  # a small study: enough to tell a ruling that flips winners often from one that never does
DEFAULT_BUDGET = 120_000  # engine steps for the study, base games and replays together
RULING, ASSUMED = "⚑", "◇"
SECTION_WORDS = {"components", "setup", "play", "scoring", "the winner", "winner"}


def add_parser(sub, common) -> None:
    r = sub.add_parser("rulebook", allow_abbrev=False,
                       help="the rules as a person reads them, from the spec: Markdown, or HTML with --html")
    common(r)
    out = r.add_mutually_exclusive_group()
    out.add_argument("--md", metavar="FILE", help="write Markdown here (default: print it)")
    out.add_argument("--html", metavar="FILE", help="write a self-contained HTML page here")
    r.add_argument("--games", "-n", type=int, default=DEFAULT_GAMES, metavar="N",
                   help=f"seeded games for the verdicts on open rulings (default {DEFAULT_GAMES}; 0: no verdicts)")
    r.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="STEPS",
                   help=f"engine steps for those games, replays included (default {DEFAULT_BUDGET:,})")
    r.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="first seed of those games (default 0)")


def cmd_rulebook(args, out, err) -> int:
    from soan.dsl.errors import SpecRuntimeError

    spec = api.load(args.spec)
    n = _players(spec, args)
    params = _params(spec, args)
    if args.games < 0:
        raise UsageError(f"--games must be 0 or more, got {args.games}", "--games 0 leaves the verdicts out")
    if args.budget < 1:
        raise UsageError(f"--budget must be 1 or more engine steps, got {args.budget}")
    target = args.md or args.html
    if target:
        check_output_file(target, "--md" if args.md else "--html")
    study = None
    if args.games and (spec.rulings or any(a.domain is not None for a in spec.assumptions)):
        from soan import impact

        try:
            with stage_progress(err) as progress:
                study = impact.analyse(spec, n, args.games, args.seed, ["random"] * n, params, args.budget, None,
                                       progress)
        except SpecRuntimeError as e:
            return _runtime_error(spec, e, err)
    doc = Rulebook(spec, params, study, args).document()
    if args.html:
        write_text(args.html, to_html(doc, spec), "--html")
        out.print(f"rulebook written to {args.html}", markup=False)
    elif args.md:
        write_text(args.md, to_markdown(doc), "--md")
        out.print(f"rulebook written to {args.md}", markup=False)
    else:
        import sys

        sys.stdout.write(to_markdown(doc))
    return EXIT_OK


# ---- the document: headings, paragraphs, step lists, callouts, tables ---------------------------------------


class Item:
    """One step of the rules, with the steps under it."""

    def __init__(self, text: str, children: list["Item"] | None = None):
        self.text, self.children = text, children or []


# blocks: ("h", level, text, anchor) | ("p", text) | ("steps", [Item]) | ("note", mark, title, text)
#         | ("table", head, rows)


def _anchor(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower()).strip("-") or "section"


# ---- expressions in words ---------------------------------------------------------------------------------

CMP = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
       ">=": "is at least", "has": "contains", "+": "+", "-": "−", "*": "×", "//": "÷", "%": "mod",
       "and": "and", "or": "or"}
PREC = {"or": 1, "and": 2, "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3, "has": 3, "+": 4, "-": 4,
        "*": 5, "//": 5, "%": 5}


class Words:
    """Expressions and statements of one spec told in words."""

    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.kinds = {"ruling": {r.name for r in spec.rulings}, "assume": {a.name for a in spec.assumptions},
                      "option": {o.name for o in spec.options}}
        self.items = {s.name: s.title or s.name for s in spec.scores}

    def name(self, n: str) -> str:
        return ir.shown(n)

    def param(self, name: str) -> str:
        mark = RULING if name in self.kinds["ruling"] else ASSUMED if name in self.kinds["assume"] else "option "
        return f"{mark}{name}"

    def expr(self, e, outer: int = 0) -> str:  # noqa: C901 - one case per kind of expression
        w = self.expr
        match e:
            case None:
                return "nothing"
            case ir.Int(value=v):
                return str(v) if v >= 0 else f"−{-v}"
            case ir.Str(value=v):
                return f"“{v}”"
            case ir.Bool(value=v):
                return "true" if v else "false"
            case ir.NoneLit():
                return "none"
            case ir.Name(name=n) | ir.Local(name=n) | ir.GlobalVar(name=n) | ir.SharedZone(name=n) | ir.Symbol(name=n):
                return self.name(n)
            case ir.Param(name=n):
                return self.param(n)
            case ir.Builtin(name="round"):
                return "the round number"
            case ir.Builtin(name="player_count"):
                return "the number of players"
            case ir.Builtin(name=n):
                return n
            case ir.Attr(obj=o, name="eliminated"):
                return f"{self._owner(o)} is out of the game"
            case ir.Attr(obj=o, name="facedown"):
                return f"{self._owner(o)} lies face down"
            case ir.Attr(obj=o, name=a):
                return f"{self._owner(o)}’s {self._attr(a)}"
            case ir.Index(obj=o, key=ir.Int(value=k)):
                text = f"the {_ordinal(k + 1)} of {w(o, 9)}"
                return f"({text})" if outer >= 9 else text
            case ir.Index(obj=o, key=k):
                text = f"item {w(k)} (from 0) of {w(o, 9)}"
                return f"({text})" if outer >= 9 else text
            case ir.Call(func=f, args=args):
                return self._call(f, args, outer)
            case ir.Agg(func=f, var=v, coll=c, where=cond, value=val):
                return self._agg(f, v, c, cond, val)
            case ir.ListLit(items=items):
                return "[" + ", ".join(w(x) for x in items) + "]" if items else "an empty list"
            case ir.ListComp(var=v, coll=c, where=cond, value=val):
                what = self._over(v, c, cond)
                return f"({w(val)} for each {what})" if val is not None else f"the {what}"
            case ir.BinOp(op=op, left=a, right=b):
                p = PREC[op]
                text = f"{w(a, p)} {CMP[op]} {w(b, p + 1)}"
                if op == "//":
                    text += " (rounded down)"
                return f"({text})" if p < outer else text
            case ir.Not(operand=ir.Attr(obj=o, name="eliminated")):
                return f"{self._owner(o)} is still in the game"
            case ir.Not(operand=ir.Attr(obj=o, name="facedown")):
                return f"{self._owner(o)} lies face up"
            case ir.Not(operand=x):
                return f"not {w(x, 9)}"
            case ir.Neg(operand=x):
                return f"−{w(x, 9)}"
            case ir.Cond(test=t, then=a, orelse=b):
                text = f"{w(a)} if {w(t)}, otherwise {w(b)}"
                return f"({text})" if outer else text
            case ir.RangeExpr(lo=a, hi=b):
                return f"{w(a)} to {w(b)}"
            case ir.AllPlayers():
                return "the players"
            case ir.PlayersFrom(start=s):
                return f"the players in turn, from {w(s)}"
            case ir.Ranking(kind=k, var=v, coll=c, where=cond, keys=keys, fallback=fb):
                head = "the best" if k == "best" else "all"
                tail = {"shared": "a tie leaves all the tied first", "none": "a tie leaves no one first",
                        "draw": "a tie is a draw", "stable": "a tie keeps the order they came in"}[fb]
                return f"{head} {self._over(v, c, cond)}, ranked by {self._keys(keys)} ({tail})"
        return type(e).__name__  # a kind of expression this reader does not know yet: named, never a repr

    def cond(self, e) -> str:
        """A condition where a condition is expected ("if ...", "while ...", "where ..."): no "whether"."""
        text = self.expr(e)
        return text[len("whether "):] if text.startswith("whether ") else text

    def _attr(self, a: str) -> str:
        return {"seat": "seat number"}.get(a, a)

    def _owner(self, o) -> str:
        """The thing an attribute belongs to, in parentheses where it is more than a name: (the first of x)’s y."""
        text = self.expr(o, 9)
        plain = isinstance(o, (ir.Attr, ir.Local, ir.Name, ir.GlobalVar, ir.SharedZone)) or " " not in text
        return text if plain or (text.startswith("(") and text.endswith(")")) else f"({text})"

    def _keys(self, keys) -> str:
        return ", then ".join(f"{self.expr(k.expr)} ({'highest' if k.descending else 'lowest'} first)" for k in keys)

    def _over(self, var: str, coll, where) -> str:
        text = f"{self.name(var)} in {self.expr(coll, 9)}"
        return text + (f" where {self.cond(where)}" if where is not None else "")

    def _agg(self, f: str, var: str, coll, where, value) -> str:
        over = self._over(var, coll, where)
        v = self.expr(value) if value is not None else None
        match f:
            case "count" | "size":
                return f"the number of {over}"
            case "sum":
                return f"the sum of {v} for each {over}"
            case "max":
                return f"the largest {v} for {over}"
            case "min":
                return f"the smallest {v} for {over}"
            case "any":
                return f"whether {v} for some {over}" if v else f"whether there is any {over}"
            case "all" if v is None:
                cond = f", {self.cond(where)}" if where is not None else " holds"
                return f"whether, for every {self.name(var)} in {self.expr(coll, 9)}{cond}"
            case "all":
                return f"whether {v} for every {over}"
            case "distinct":
                return f"the number of different {v} for {over}" if v else f"the number of different {over}"
            case "first":
                return f"the first {over}"
            case "last":
                return f"the last {over}"
        return f"{f} of {over}"

    def _call(self, f: str, args, outer: int) -> str:
        a = [self.expr(x, 9) for x in args]
        match f, len(a):
            case "vp", 1:
                return f"{a[0]}’s points"
            case "vp", 2:
                item = args[1].name if isinstance(args[1], (ir.Name, ir.Symbol, ir.Local)) else a[1]
                return f"{a[0]}’s points for {self.items.get(item, item)}"
            case ("count" | "size"), 1:
                return f"the number of {a[0]}"
            case "sum", 1:
                return f"the sum of {a[0]}"
            case "first", 1:
                return f"the first of {a[0]}"
            case "last", 1:
                return f"the last of {a[0]}"
            case "any", 1:
                return f"whether any of {a[0]} holds"
            case "all", 1:
                return f"whether all of {a[0]} hold"
            case "distinct", 1:
                return f"the number of different {a[0]}"
            case "take", 2:
                return f"the first {a[1]} of {a[0]}"
            case "reverse", 1:
                return f"{a[0]} in reverse order"
            case "abs", 1:
                return f"the size of {a[0]}"
            case "position", 1:
                return f"the position of {a[0]} in its zone (from 0)"
            case "next", 1:
                return f"the player after {a[0]}"
            case "distance", 2:
                return f"the seats from {a[0]} to {a[1]}"
            case "player", 1:
                return f"player {a[0]}"
            case "supply", 1:
                return f"the {a[0]} left in the supply"
            case "sees", 2:
                return f"whether {a[0]} can see {a[1]}"
            case "max", 1:
                return f"the largest of {a[0]}"
            case "min", 1:
                return f"the smallest of {a[0]}"
            case "max", _:
                return "the larger of " + " and ".join(a)
            case "min", _:
                return "the smaller of " + " and ".join(a)
        if not a:
            return f"*{f}*"
        return f"*{f}*(" + ", ".join(self.expr(x) for x in args) + ")"

    # ---- statements -------------------------------------------------------------------------------

    def block(self, b: ir.Block | None) -> list[Item]:
        if b is None:
            return []
        out: list[Item] = []
        for s in b.stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s) -> list[Item]:  # noqa: C901 - one case per kind of statement
        w, blk = self.expr, self.block
        match s:
            case ir.Let(name=n, value=v):
                return [Item(f"Let {self.name(n)} be {w(v)}.")]
            case ir.Set(target=t, op="=", value=v):
                return [Item(f"Set {w(t)} to {w(v)}.")]
            case ir.Set(target=t, op="+=", value=v):
                return [Item(f"Add {w(v)} to {w(t)}.")]
            case ir.Set(target=t, op="-=", value=v):
                return [Item(f"Take {w(v)} off {w(t)}.")]
            case ir.Move(what=x, dest=d, at_top=top, face=face):
                return [Item(f"Move {w(x)} to {w(d, 9)}{self._where(top)}{self._face(face)}.")]
            case ir.Draw(count=c, source=src, dest=d, at_top=top, face=face):
                return [Item(f"Draw {w(c)} from {w(src, 9)} to {w(d, 9)}{self._where(top)}{self._face(face)}.")]
            case ir.Exchange(a=x, b=y):
                return [Item(f"Exchange {w(x)} with {w(y)}: each takes the other’s place.")]
            case ir.Shuffle(zone=z):
                return [Item(f"Shuffle {w(z)}.")]
            case ir.Roll(what=x):
                return [Item(f"Roll {w(x)}.")]
            case ir.Flip(what=x, face=face):
                return [Item(f"Turn {w(x)} {'face down' if face == 'facedown' else 'face up'}.")]
            case ir.Look(who=p, what=x):
                return [Item(f"{w(p)} look(s) at {w(x)} (in secret).")]
            case ir.Choose():
                return [self._choose(s)]
            case ir.Pick(var=v, source=src, weight=wt, body=b):
                how = f", each weighted by {w(wt)}" if wt is not None else ""
                return [Item(f"At random{how}, pick {self.name(v)} from {w(src, 9)}; then:", blk(b))]
            case ir.For(var=v, coll=c, where=cond, body=b, simultaneous=sim):
                if sim:
                    return [Item(f"At the same time, each {self._over(v, c, cond)} decides (no one sees the "
                                 "others’ choices until all have chosen):", blk(b))]
                return [Item(f"For each {self._over(v, c, cond)}:", blk(b))]
            case ir.Repeat(count=c, body=b):
                return [Item(f"Repeat {w(c, 9)} times:", blk(b))]
            case ir.While(test=t, limit=lim, body=b):
                return [Item(f"While {self.cond(t)} (at most {w(lim)} times):", blk(b))]
            case ir.Break():
                return [Item("Stop repeating.")]
            case ir.If(branches=branches, orelse=orelse):
                items = []
                for k, (test, b) in enumerate(branches):
                    items.append(Item(f"{'If' if k == 0 else 'Otherwise, if'} {self.cond(test)}:", blk(b)))
                if orelse is not None:
                    items.append(Item("Otherwise:", blk(orelse)))
                return items
            case ir.Do(proc=p, args=args):
                call = f"*{p}*" + ("(" + ", ".join(w(x) for x in args) + ")" if args else "")
                return [Item(f"Carry out {call} (see Actions).")]
            case ir.Award(amount=a, player=p, item=it):
                return [Item(f"{w(p)} scores {w(a)} for {self.items.get(it, it)}.")]
            case ir.Give(amount=a, token=t, player=p):
                return [Item(f"Give {w(a)} {t} to {w(p)} from the supply.")]
            case ir.Return(amount=a, token=t, player=p):
                return [Item(f"{w(p)} returns {w(a)} {t} to the supply.")]
            case ir.Eliminate(player=p, reason=r):
                return [Item(f"{w(p)} is out of the game" + (f": {r}" if r else "") + ".")]
            case ir.Win(player=p):
                return [Item(f"{w(p)} wins at once.")]
            case ir.EndGame():
                return [Item("The game ends at once.")]
            case ir.Phase(name=n, title=t, body=b):
                return [Item(f"Phase {_titled(t, n)}:", blk(b))]
            case ir.Check(test=t, message=m):
                return [Item(f"This must hold: {self.cond(t)}" + (f" ({m})" if m else "") + ".")]
            case ir.Say(text=t):  # {name} in the text is the value of name when it is said
                return [Item(f"Announce: “{re.sub(r'[{]([^{}]*)[}]', lambda m: m.group(1), t)}”.")]
        return [Item(type(s).__name__)]

    def _where(self, top) -> str:
        return "" if top is None else (" on top" if top else " at the bottom")

    def _face(self, face) -> str:
        return {"facedown": ", face down", "faceup": ", face up"}.get(face, "")

    def _choose(self, c: ir.Choose) -> Item:
        w = self.expr
        who = w(c.player)
        prompt = f" (“{c.prompt}”)" if c.prompt else ""
        passing = ""
        if c.pass_if is not None:
            passing = " They may pass" + ("" if isinstance(c.pass_if, ir.Bool) and c.pass_if.value
                                          else f" if {self.cond(c.pass_if)}") + "."
        if c.options:
            kids = []
            for o in c.options:
                when = f" (only if {self.cond(o.when)})" if o.when is not None else ""
                kids.append(Item(f"{_titled(o.title, o.name)}{when}:", self.block(o.body)))
            item = Item(f"{who} chooses one of these{prompt}:{passing}", kids)
        else:
            how = {None: "one", "up_to": f"up to {w(c.count_hi, 9)}", "exactly": f"exactly {w(c.count_hi, 9)}",
                   "between": f"between {w(c.count_lo, 9)} and {w(c.count_hi, 9)}"}[c.count_kind]
            where = f" where {self.cond(c.where)}" if c.where is not None else ""
            item = Item(f"{who} chooses {how} from {w(c.source, 9)}{where} (called {self.name(c.var)}){prompt}."
                        f"{passing} Then:", self.block(c.body))
        if c.orelse is not None:
            item.children.append(Item("If they pass, or there is nothing to choose:", self.block(c.orelse)))
        return item


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def _titled(title: str | None, name: str) -> str:
    """A title with the designer's name for it where they differ: 'Majorities (マジョリティ) — majority'."""
    if not title or title == name:
        return name
    return f"{title} — {name}"


def _params_in(node) -> list[str]:
    seen = []
    for n in ir.walk(node):
        if isinstance(n, ir.Param) and n.name not in seen:
            seen.append(n.name)
    return seen


# ---- the rulebook -------------------------------------------------------------------------------------------


class Rulebook:
    def __init__(self, spec: ir.Spec, params: dict, study: dict | None, args):
        self.spec, self.params, self.study, self.args = spec, params, study, args
        self.words = Words(spec)
        self.uses = parameter_uses(spec)
        self.rulings = {r.name: r for r in spec.rulings}
        self.assumptions = {a.name: a for a in spec.assumptions}
        self.marked: dict[str, list[str]] = {}  # parameter -> the sections it is marked in
        self.blocks: list[tuple] = []

    # the parts of the document

    def h(self, level: int, text: str) -> None:
        self.blocks.append(("h", level, text, _anchor(text)))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def steps(self, items: list[Item], numbered: bool = True) -> None:
        if items:
            self.blocks.append(("steps", items, numbered))

    def callouts(self, names: list[str], where: str) -> None:
        """The full text of each ruling and assumption read here."""
        for name in names:
            self.marked.setdefault(name, [])
            if where not in self.marked[name]:
                self.marked[name].append(where)
            if name in self.rulings:
                r = self.rulings[name]
                self.blocks.append(("note", RULING, f"Open ruling {name}: played as {self._value(name, r.provisional)}"
                                    f" (one of {self._domain(r.domain)})", r.question + self._cite(r.cite)))
            elif name in self.assumptions:
                a = self.assumptions[name]
                value = f" = {self._value(name, a.value)}" if a.value is not None else ""
                self.blocks.append(("note", ASSUMED, f"Assumption {name}{value}", a.text + self._cite(a.cite)))
            else:
                o = next((o for o in self.spec.options if o.name == name), None)
                if o is not None:
                    self.blocks.append(("note", "+", f"Optional rule {name}",
                                        (o.title or name) + " — " + ("on" if self.params.get(name) else "off")
                                        + " unless --option " + name + self._cite(o.cite)))

    def _value(self, name: str, default) -> str:
        if name in self.params:
            v = self.params[name]
            return ("true" if v else "false") if isinstance(v, bool) else f"{v} (set with --rule)"
        return self.words.expr(default)

    def _domain(self, d) -> str:
        match d:
            case ir.EnumDomain(values=vals, name=n) if vals:
                return ", ".join(vals)
            case ir.EnumDomain(name=n):
                e = next((e for e in self.spec.enums if e.name == n), None)
                return ", ".join(e.values) if e else n
            case ir.IntDomain(lo=lo, hi=hi):
                num = lambda v: str(v) if v >= 0 else f"−{-v}"  # noqa: E731
                return num(lo) if lo == hi else f"{num(lo)} to {num(hi)}"
            case ir.BoolDomain():
                return "true, false"
        return str(d)

    def _cite(self, cite: str | None) -> str:
        return f" (draft: {cite})" if cite else ""

    def _direct(self, unit: str) -> list[str]:
        """The parameters `unit` ('setup', 'def NAME', 'procedure NAME', ...) reads itself, in spec order."""
        order = list(self.rulings) + list(self.assumptions) + [o.name for o in self.spec.options]
        return [n for n in order if unit in self.uses.get(n, {}).get("read_by", [])]

    def _through(self, section: str) -> list[str]:
        """The parameters a section's outcome depends on through the terms and actions it uses."""
        order = list(self.rulings) + list(self.assumptions)
        return [n for n in order if section in self.uses.get(n, {}).get("affects", [])
                and section not in self.uses[n]["read_by"]]

    def _also(self, section: str) -> None:
        names = self._through(section)
        if names:
            self.p("Through the terms and actions it uses, this part also depends on: "
                   + ", ".join(self.words.param(n) for n in names) + ".")

    def _embodied_here(self, *titles: str) -> list[str]:
        """Assumptions no expression reads (the rules are written their way) whose cited draft section
        names one of `titles` (a phase's or a section's own title)."""
        out = []
        for a in self.spec.assumptions:
            if self.uses[a.name]["read_by"] or a.name in self.marked or not a.cite:
                continue
            section = api.cite_section(a.cite)
            if any(t and (section in t or t in a.cite) for t in titles):
                out.append(a.name)
        return out

    def document(self) -> list[tuple]:
        s = self.spec
        title = s.name + (f" — draft {s.draft}" if s.draft is not None else "")
        self.h(1, title)
        self.p(f"For {s.min_players} to {s.max_players} players."
               + (f" Written from {s.source}." if s.source else "")
               + " Generated by soan from the spec " + Path(s.path).name + ": the rules as the spec states them, "
               "with every open ruling (⚑) and assumption (◇) marked where it applies.")
        for note in s.notes:
            self.p(f"Note: {note}")
        self.components()
        self.setup()
        self.play()
        self.actions()
        self.scoring()
        self.winner()
        self.terms()
        self.questions()
        self.examples()
        self.assumption_index()
        self.rulings_appendix()
        return self.blocks

    def components(self) -> None:
        s, w = self.spec, self.words
        first = min([*s.enums, *s.components], key=lambda d: (d.span.path != "", d.span.line), default=None)
        self.h(2, "1. Components" + (self._draft_title(first) if first is not None else ""))
        if s.enums:
            self.p("Kinds of values:")
            self.steps([Item(f"{_titled(e.title, e.name)}: {', '.join(e.values)}.") for e in s.enums])
        rows, long_lists = [], []
        for cs in s.card_sets:
            comp = s.component(cs.kind)
            cards = self._card_rows(cs)
            if len(cards) > 3:
                long_lists.append(Item(f"The {_titled(comp.title if comp else None, cs.kind)} cards:",
                                       [Item(c) for c in cards]))
            rows.append([_titled(comp.title if comp else None, cs.kind), self._count(cs),
                         cs.zone + (" (one set per player)" if cs.per_player else ""),
                         "; ".join(cards) if len(cards) <= 3 else f"{len(cards)} lines, listed below"])
        if rows:
            self.p("Cards and pieces, and where each starts:")
            self.blocks.append(("table", ["component", "how many", "starts in", "each card"], rows))
            self.steps(long_lists, numbered=False)
        for c in s.components:
            fields = []
            for f in c.fields:
                text = f"{f.name}: {self._domain(f.domain)}" if not isinstance(f.domain, ir.EnumDomain) or f.domain.values \
                    else f"{f.name}: one of the {f.domain.name} values ({self._domain(f.domain)})"
                if f.is_state:
                    text += ", changes in play" + (f", starting at {w.expr(f.default)}" if f.default is not None else "")
                elif f.default is not None and not (isinstance(f.domain, ir.IntDomain) and f.domain.lo == f.domain.hi):
                    text += f", {w.expr(f.default)} unless the card list says otherwise"
                fields.append(Item(text))
            self.steps([Item(f"Each {_titled(c.title, c.name)} has:", fields)], numbered=False)
        for cs in s.card_sets:
            if cs.assumed:
                self.callouts([cs.assumed], "1. Components")
        seen = {"public": "everyone sees the cards", "owner": "only its owner sees the cards",
                "hidden": "no one sees the cards"}
        lay = {"stack": "a stack (the top is first)", "row": "a row (left to right)", "unordered": "in no order"}
        zrows = [[_titled(z.title, z.name), "one per player" if z.per_player else "shared", seen[z.visibility],
                  lay[z.order], w.expr(z.capacity) if z.capacity is not None else ""] for z in s.zones]
        if zrows:
            self.p("Zones (places cards lie). A card laid face down is seen by no one but those who looked at it; "
                   "the box holds what is out of the game.")
            self.blocks.append(("table", ["zone", "", "who sees", "lies as", "holds at most"], zrows))
        for z in s.zones:
            if z.capacity is not None:
                self.callouts(self._direct(f"zone {z.name}"), "1. Components")
        if s.tokens:
            trows = []
            for t in s.tokens:
                short = {"partial": "whoever is due tokens gets what is left",
                         "unlimited": "play on as if there were more"}.get(t.when_short, "")
                if t.when_short == "ruling":
                    short = f"see the open ruling {RULING}{t.short_ruling}"
                trows.append([_titled(t.title, t.name), w.expr(t.supply), f"{self._domain(t.hold)}", short])
            self.p("Tokens:")
            self.blocks.append(("table", ["token", "supply", "a player holds", "when the supply runs out"], trows))
            for t in s.tokens:
                self.callouts(self._direct(f"token {t.name}"), "1. Components")
        pv = [v for v in s.vars if v.per_player]
        gv = [v for v in s.vars if not v.per_player]
        for head, vs in (("Each player keeps track of:", pv), ("The game keeps track of:", gv)):
            if vs:
                self.p(head)
                self.steps([Item(f"{v.name}" + (f" ({v.title})" if v.title else "") + f": {self._domain(v.domain)}"
                                 + (f", starting at {w.expr(v.default)}" if v.default is not None else ""))
                            for v in vs])
        if s.scores:
            self.p("The score sheet has these items:")
            self.steps([Item(_titled(sc.title, sc.name) + (f" ({self._domain(sc.domain)} points)" if sc.domain else ""))
                        for sc in s.scores])
        if s.options:
            self.p("Optional rules (off unless switched on):")
            self.steps([Item(_titled(o.title, o.name) + self._cite(o.cite)) for o in s.options])
        self.callouts(self._embodied_here("Components", "コンポーネント"), "1. Components")

    def _count(self, cs: ir.CardSet) -> str:
        comp = self.spec.component(cs.kind)
        total, tables = 0, set()
        for row in cs.rows:
            if row.when is not None:
                tables.add(row.when)
            combos = 1
            for f in row.each:
                fd = next((x for x in comp.fields if x.name == f), None) if comp else None
                if fd is not None:
                    combos *= _domain_size(self.spec, fd.domain)
            total += row.count * combos
        if tables:
            return f"by the card table in use ({ASSUMED}{cs.assumed})"
        return f"{total}" + (" per player" if cs.per_player else "")

    def _card_rows(self, cs: ir.CardSet) -> list[str]:
        parts = []
        for row in cs.rows:
            bits = [f"each {f}" for f in row.each] + [f"{n} = {self.words.expr(v)}" for n, v in row.fixed]
            text = f"{row.count} × " + (", ".join(bits) if bits else "the card")
            if row.when is not None:
                text += f" (when {ASSUMED}{cs.assumed} is {row.when})"
            parts.append(text)
        return parts

    def setup(self) -> None:
        if self.spec.setup is None:
            return
        self.h(2, "2. Setup" + self._draft_title(self.spec.setup))
        self.steps(self.words.block(self.spec.setup))
        self.callouts(self._direct("setup") + self._embodied_here("setup", "Setup", *self._comment_titles(self.spec.setup)),
                      "2. Setup")
        self._also("setup")

    def _draft_title(self, node) -> str:
        """The draft's name for a part, from the spec's heading comment or (for a part that is one phase) the
        phase's title: '2. Setup (■ X)'."""
        titles = [t for t in self._comment_titles(node) if t.strip().lower() not in SECTION_WORDS][:1]
        if not titles and isinstance(node, ir.Block) and len(node.stmts) == 1 and isinstance(node.stmts[0], ir.Phase):
            titles = [node.stmts[0].title] if node.stmts[0].title else []
        return f" ({titles[0]})" if titles else ""

    def _comment_titles(self, node) -> list[str]:
        """The draft's section names the spec's own heading comment gives a part: '# ---- setup (■ X) ----'."""
        path = node.span.path or self.spec.path
        lines = self.spec.text_of(path).splitlines()
        k = node.span.line - 2
        out = []
        while 0 <= k < len(lines) and (lines[k].strip().startswith("#") or not lines[k].strip()):
            out += re.findall(r"\(([^)]+)\)", lines[k]) if "----" in lines[k] else []
            k -= 1
        return out

    def play(self) -> None:
        r = self.spec.rounds
        if r is None:
            return
        w = self.words
        self.h(2, "3. Play" + self._draft_title(r))
        if r.count is not None:
            self.p(f"The game lasts {w.expr(r.count)} rounds. Each round:")
        else:
            self.p(f"Rounds are played until {w.expr(r.until)} at the end of a round"
                   + (f" (at most {w.expr(r.cap)} rounds)" if r.cap is not None else "") + ". Each round:")
        items, phases = [], []
        for st in r.body.stmts:
            if isinstance(st, ir.Phase):
                items.append(Item(f"Phase {_titled(st.title, st.name)} (below)."))
                phases.append(st)
            else:
                items.extend(w.stmt(st))
        self.steps(items)
        loose = [n for n in self._direct("rounds") if not any(n in _params_in(ph) for ph in phases)]
        self.callouts(loose + self._embodied_here(*self._comment_titles(r)), "3. Play")
        for ph in phases:
            head = f"3.{phases.index(ph) + 1} Phase {_titled(ph.title, ph.name)}"
            self.h(3, head)
            self.steps(w.block(ph.body))
            self.callouts([n for n in self._direct("rounds") if n in _params_in(ph)]
                          + self._embodied_here(ph.title or "", ph.name), head)
        self._also("rounds")

    def actions(self) -> None:
        if not self.spec.procedures:
            return
        self.h(2, "4. Actions")
        self.p("The steps the rules call by name (“carry out …”), in the order the spec gives them.")
        for k, proc in enumerate(self.spec.procedures, start=1):
            head = f"4.{k} {proc.name}" + (f"({', '.join(proc.params)})" if proc.params else "")
            self.h(3, head)
            self.steps(self.words.block(proc.body))
            self.callouts(self._direct(f"procedure {proc.name}"), head)

    def scoring(self) -> None:
        if self.spec.scoring is None:
            return
        self.h(2, "5. Scoring" + self._draft_title(self.spec.scoring))
        items, phases = [], []
        for st in self.spec.scoring.stmts:
            items.extend(self.words.stmt(st))
            if isinstance(st, ir.Phase):
                phases.append(st)
        self.steps(items)
        titles = [t for ph in phases for t in (ph.title, ph.name)] + self._comment_titles(self.spec.scoring)
        self.callouts(self._direct("scoring") + self._embodied_here(*titles), "5. Scoring")
        self._also("scoring")

    def winner(self) -> None:
        wn = self.spec.winner
        if wn is None:
            return
        w = self.words
        self.h(2, "6. End of the game and the winner")
        if self.spec.rounds is not None and self.spec.rounds.count is not None:
            self.p(f"The game ends after round {w.expr(self.spec.rounds.count)} and the scoring"
                   " (or at once where a rule says so).")
        who = f"{w.name(wn.var)} in {w.expr(wn.coll, 9)}" + (f" where {w.cond(wn.where)}" if wn.where else "")
        fallback = {"draw": "the game is a draw between them", "shared": "they share the win",
                    "stable": "the first of them in seat order wins"}[wn.fallback]
        self.p(f"The winner is found among {who}, by:")
        self.steps([Item(f"{w.expr(k.expr)}, {'highest' if k.descending else 'lowest'} first.") for k in wn.keys]
                   + [Item(f"If still tied, {fallback}.")])
        self.callouts(self._direct("winner") + self._embodied_here("winner", "Winner"), "6. End of the game")
        self._also("winner")

    def terms(self) -> None:
        if not self.spec.defs:
            return
        self.h(2, "7. Terms")
        self.p("Named quantities the rules above use (in italics there).")
        for d in self.spec.defs:
            head = d.name + (f"({', '.join(d.params)})" if d.params else "")
            self.steps([Item(f"*{head}*: {self.words.expr(d.body)}.")], numbered=False)
            self.callouts(self._direct(f"def {d.name}"), "7. Terms")

    def questions(self) -> None:
        if not self.spec.questions:
            return
        self.h(2, "8. Questions the designer asks of every game")
        self.steps([Item(f"{q.text or q.name} ({q.kind} {self.words.expr(q.expr)}"
                         + (", at the end of a game" if q.at_end else "") + f"; soan prove {Path(self.spec.path).name})")
                    for q in self.spec.questions])

    def examples(self) -> None:
        if not self.spec.examples:
            return
        self.h(2, "9. Worked examples")
        self.p(f"Cases the spec plays through and checks (soan test {Path(self.spec.path).name}):")
        self.steps([Item(ex.name) for ex in self.spec.examples], numbered=False)

    def assumption_index(self) -> None:
        s = self.spec
        if not s.assumptions and not s.rulings:
            return
        self.h(2, "Appendix A. Every assumption and open ruling, and where it is marked")
        rows = []
        for r in s.rulings:
            rows.append([f"{RULING}{r.name}", "open ruling", ", ".join(self.marked.get(r.name, [])) or "—",
                         r.cite or ""])
        for a in s.assumptions:
            where = ", ".join(self.marked.get(a.name, []))
            if not where:
                where = "throughout (the rules are written this way)"
            rows.append([f"{ASSUMED}{a.name}", "assumption", where, a.cite or ""])
        self.blocks.append(("table", ["name", "kind", "marked in", "draft section"], rows))
        unplaced = [a for a in s.assumptions if a.name not in self.marked]
        if unplaced:
            self.p("Assumptions no rule reads and no section title matches: the rules are written the way they say.")
            for a in unplaced:
                self.callouts([a.name], "Appendix A")

    def rulings_appendix(self) -> None:
        s = self.spec
        subjects = list(s.rulings) + [a for a in s.assumptions if a.domain is not None]
        if not subjects:
            return
        self.h(2, "Appendix B. Rulings before printing")
        path = s.path
        study = self.study
        n = study["players"] if study else (self.args.players or s.min_players)
        if study is None:
            self.p("No games were played for these verdicts (--games 0). "
                   f"soan rulings {path} --players {n} measures them.")
        else:
            self.p(f"soan’s verdicts, from {study['games']} seeded games at {n} players (seeds {study['seed']}…, "
                   f"random bots), each game that read a ruling played again under every other answer on the same "
                   f"seed. More games: soan rulings {path} --players {n} --games 200.")
        by_name = {}
        if study:
            by_name = {r["name"]: r for r in study["ranked"] + study["moot"]}
        rows = []
        for d in subjects:
            is_ruling = isinstance(d, ir.Ruling)
            provisional = self._value(d.name, d.provisional if is_ruling else d.value)
            r = by_name.get(d.name)
            verdict, witness = self._verdict(d.name, r, n)
            rows.append([f"{RULING if is_ruling else ASSUMED}{d.name}", d.question if is_ruling else d.text,
                         provisional, verdict, witness])
        self.blocks.append(("table", ["ruling", "question", "provisional answer", "soan’s verdict",
                                      "to see it"], rows))

    def _verdict(self, name: str, r: dict | None, n: int) -> tuple[str, str]:
        path = self.spec.path
        if not self.uses[name]["read_by"]:
            return "moot: no rule reads it, so no answer can change a game", "soan check " + path
        if r is not None and r["moot"]:
            return f"moot: {r['moot_reason']}, so no answer can change a game at {n} players", "soan check " + path
        if r is None:
            return "not measured (--games 0)", f"soan rulings {path} --players {n}"
        if r["games"] == 0:
            return "not measured", f"soan rulings {path} --players {n}"
        read = f"read in {_pct(r['read_share'])} of games"
        if r["read"] == 0:
            return (f"never read in {r['games']} games (it can be: rare, not proved moot)",
                    f"soan rulings {path} --players {n} --games 200")
        parts, witness = [read], ""
        for a in r["alternatives"]:
            if "failure" in a:
                parts.append(f"= {a['value']}: the rules cannot be carried out ({a['failure']})")
                continue
            lo, hi = a["flip_interval"]
            if a["flips"]:
                parts.append(f"= {a['value']} changes the winner in {_pct(a['flip_share'])} of games "
                             f"(95%: {_pct(lo)}–{_pct(hi)})")
            else:
                parts.append(f"= {a['value']}: {a['verdict']}")
            f = a.get("first_flip")
            if f and not witness:
                seed = f["seed"]
                witness = (f"soan run {path} -p {n} -s {seed}  and  soan run {path} -p {n} -s {seed} "
                           f"--rule {name}={a['value']}")
        if not witness:
            seed = r.get("witness_seed")
            witness = (f"soan run {path} -p {n} -s {seed} (a game it changes)" if seed is not None
                       else f"soan rulings {path} --players {n}")
        return "; ".join(parts), witness


def _pct(x: float) -> str:
    from soan.stats import pct

    return pct(x)


# ---- writers ---------------------------------------------------------------------------------------------


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(blocks: list[tuple]) -> str:
    out: list[str] = []

    def items(its: list[Item], depth: int, numbered: bool) -> None:
        for k, it in enumerate(its, start=1):
            mark = f"{k}." if numbered else "-"
            out.append("   " * depth + f"{mark} {it.text}")
            items(it.children, depth + 1, False)

    for b in blocks:
        match b:
            case ("h", level, text, _):
                out.append("")
                out.append("#" * level + " " + text)
                out.append("")
            case ("p", text):
                out.append(text)
                out.append("")
            case ("steps", its, numbered):
                items(its, 0, numbered)
                out.append("")
            case ("note", mark, title, text):
                out.append(f"> {mark} **{title}.** {text}")
                out.append("")
            case ("table", head, rows):
                out.append("| " + " | ".join(head) + " |")
                out.append("|" + "---|" * len(head))
                for row in rows:
                    out.append("| " + " | ".join(_md_escape(str(c)) for c in row) + " |")
                out.append("")
    return "\n".join(out).lstrip("\n").rstrip() + "\n"


# Fonts that carry Japanese (and Chinese and Korean) glyphs on each system, ahead of the generic family,
# so titles such as 【太閤殿下】 never show as boxes.
CJK_FONTS = ('system-ui, -apple-system, "Segoe UI", "Hiragino Sans", "Hiragino Kaku Gothic ProN", "Yu Gothic", '
             '"Meiryo", "Noto Sans CJK JP", "Noto Sans JP", "Source Han Sans JP", "IPAexGothic", "TakaoGothic", '
             '"Droid Sans Fallback", sans-serif')
STYLE = f"""body{{font-family:{CJK_FONTS};max-width:60em;margin:2em auto;padding:0 1em;line-height:1.5;color:#222}}
h1{{border-bottom:2px solid #444}}h2{{border-bottom:1px solid #aaa;margin-top:2em}}
ol,ul{{padding-left:1.6em}}li{{margin:.15em 0}}
.note{{border-left:4px solid #c60;background:#fff6ec;padding:.4em .8em;margin:.6em 0}}
.note.assumed{{border-color:#36c;background:#eef4ff}}
table{{border-collapse:collapse;margin:.6em 0}}td,th{{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}}
th{{background:#f2f2f2}}nav ol{{columns:2}}"""


def _inline(text: str) -> str:
    """Escaped text, with *name* in italics (the terms and actions the rules call by name)."""
    return re.sub(r"\*([^*\s][^*]*)\*", r"<i>\1</i>", html.escape(text))


def to_html(blocks: list[tuple], spec: ir.Spec) -> str:
    title = next((b[2] for b in blocks if b[0] == "h"), spec.name)
    body: list[str] = []

    def items(its: list[Item], numbered: bool) -> str:
        tag = "ol" if numbered else "ul"
        return f"<{tag}>" + "".join(f"<li>{_inline(it.text)}{items(it.children, False) if it.children else ''}</li>"
                                    for it in its) + f"</{tag}>"

    toc = [b for b in blocks if b[0] == "h" and b[1] == 2]
    for b in blocks:
        match b:
            case ("h", 1, text, anchor):
                body.append(f"<h1 id='{anchor}'>{html.escape(text)}</h1>")
            case ("h", level, text, anchor):
                if level == 2 and b is toc[0]:
                    body.append("<nav><b>Contents</b><ol>" + "".join(
                        f"<li><a href='#{t[3]}'>{html.escape(t[2])}</a></li>" for t in toc) + "</ol></nav>")
                body.append(f"<h{level} id='{anchor}'>{html.escape(text)}</h{level}>")
            case ("p", text):
                body.append(f"<p>{_inline(text)}</p>")
            case ("steps", its, numbered):
                body.append(items(its, numbered))
            case ("note", mark, head, text):
                cls = "note assumed" if mark == ASSUMED else "note"
                body.append(f"<div class='{cls}'><b>{html.escape(mark)} {html.escape(head)}.</b> {_inline(text)}</div>")
            case ("table", head, rows):
                body.append("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
                            + "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                                      for row in rows) + "</table>")
    lang = "ja" if re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", spec.source_text) else "en"
    return (f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
