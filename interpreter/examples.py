"""Running a spec's examples: the draft's worked examples as tests.

An example sets up a situation (`given`), plays parts of the game (a block of
statements, the setup, rounds, a phase, the scoring, a procedure or the rest
of the game), answers every decision on the way from its script and fixes or
draws every chance event, and then checks what it expects.  Every failure is
a located problem: the script line, the `play` part or the `expect` it
concerns, with a hint.
"""

from __future__ import annotations

import random
from itertools import permutations

import attrs

from soan.dsl import ir
from soan.dsl.compiler import ITEM
from soan.dsl.errors import Problem, SpecRuntimeError

from .account import narrate
from .compile import RoundsLoop
from .runtime import CardRef, Tables, fmt
from .state import PASS, Chance, Decision, Frame, State

MAX_LISTED = 12  # legal moves listed in a message


@attrs.frozen
class ExampleResult:
    title: str
    passed: bool
    failures: tuple[str, ...] = ()
    span: ir.Span = ir.NOSPAN
    problems: tuple[Problem, ...] = ()
    reached: frozenset = frozenset()  # (what, kind) pairs the example's play reached, when traced

    def render(self, spec: ir.Spec) -> str:
        """Every failure, located in the spec with the line, a caret and a hint."""
        return "\n".join(p.render(spec.text_of(p.path)) for p in self.problems)


class ScriptError(Exception):
    def __init__(self, message: str, span: ir.Span, hint: str | None = None):
        super().__init__(message)
        self.message, self.span, self.hint = message, span, hint


def example_params(ex: ir.Example) -> dict:
    params = {o: True for o in ex.options}
    for name, value in ex.params:
        match value:
            case ir.Int(value=v) | ir.Bool(value=v):
                params[name] = v
            case ir.Name(name=v) | ir.Symbol(name=v):
                params[name] = v
    return params


def run_example(spec: ir.Spec, ex: ir.Example, trace: bool = False) -> ExampleResult:
    n = ex.players or spec.min_players
    path = ex.span.path or spec.path

    problems: list[Problem] = []

    def fail(message: str, span: ir.Span, hint: str | None = None, tables=None) -> ExampleResult:
        problems.append(Problem(span.path or path, span, message, hint))
        reached = frozenset(tables.reached) if tables is not None else frozenset()
        failures = tuple(f"line {p.span.line}: {p.message}" for p in problems)
        return ExampleResult(ex.name, False, failures, ex.span, tuple(problems), reached)

    tables = None
    try:
        tables = Tables(spec, n, example_params(ex), trace=trace)
        st = State(tables, narrate=True)
        env = {f"p{i + 1}": tables.P[i] for i in range(n)}
        runner = _Runner(spec, tables, st, env, ex)
        expect_at = ex.expect_at or (len(ex.parts),) * len(ex.expects)
        outcome_at = ex.outcome_at or (len(ex.parts),) * len(ex.outcomes)
        for k in range(len(ex.parts) + 1):
            # an expectation written between two parts checks the state between them
            for (expr, message), at in zip(ex.expects, expect_at):
                if at != k:
                    continue
                value = tables.rules.x(expr)(st, env)
                if value is not True:
                    detail = _explain(tables.rules, expr, st, env)
                    problems.append(Problem(expr.span.path or path, expr.span,
                                            f"expected {message or _source(spec, expr)}{detail}"))
            for o, at in zip(ex.outcomes, outcome_at):
                msg = _check_outcome(st, o) if at == k else None
                if msg:
                    problems.append(Problem(o.span.path or path, o.span, msg[0], msg[1]))
            if k < len(ex.parts):
                runner.play(ex.parts[k], first=k == 0)
        failures = tuple(f"line {p.span.line}: {p.message}" for p in problems)
        return ExampleResult(ex.name, not problems, failures, ex.span, tuple(problems), frozenset(tables.reached))
    except ScriptError as e:
        return fail(e.message, e.span, e.hint, tables)
    except SpecRuntimeError as e:
        return fail(e.message, e.span, e.hint, tables)


class _Runner:
    def __init__(self, spec, tables: Tables, st: State, env: dict, ex: ir.Example):
        self.spec, self.t, self.st, self.env, self.ex = spec, tables, st, env, ex
        self.rules = tables.rules
        self.rng = random.Random(f"soan/{ex.seed}/chance") if ex.seed is not None else None

    # ---- the parts --------------------------------------------------------------------------

    def play(self, part: ir.Play, first: bool) -> None:
        st, rules = self.st, self.rules
        if st.result is not None:
            raise ScriptError("the game has already ended before this part", part.span,
                              "expectations about the end go after the part that ends the game")
        script = part.script
        pos = 0
        match part.target:
            case "given" | "run":
                pos = self.drive(part, [Frame(rules.block(part.block), self.env)], pos)
            case "setup":
                pos = self.drive(part, [Frame(rules.block(self.spec.setup), {})], pos)
            case "round" | "rounds":
                body = rules.block(self.spec.rounds.body)
                for _ in range(part.count):
                    self.next_round(part)
                    pos = self.drive(part, [Frame(body, {})], pos)
                    if st.result is not None:
                        break
            case "phase":
                node = self.phase(part.name)
                if st.round == 0:
                    st.round = 1  # a phase of the rounds is played in a round
                pos = self.drive(part, [Frame((rules.stmt(node, False),), {})], pos)
            case "scoring":
                pos = self.drive(part, [Frame(rules.end_ops, {})], pos)
            case "game":
                ops = rules.main_ops if first else (self.rest_of_rounds(),) + rules.end_ops
                pos = self.drive(part, [Frame(ops, {})], pos)
            case "do":
                call = ir.Do(part.name, part.args, span=part.span)
                pos = self.drive(part, [Frame((rules.stmt(call, False),), self.env)], pos)
        self.offered_at_end(part, script, pos)

    def offered_at_end(self, part, script, pos) -> None:
        if pos < len(script):
            step = script[pos]
            raise ScriptError(f"the script goes on after the {_part_name(part)} ends: "
                              f"no decision or chance event is left for '{_step_text(step)}'", step.span,
                              "remove the line, or play a larger part of the game (play round, play game)")

    def phase(self, name: str) -> ir.Phase:
        for root in (self.spec.rounds.body if self.spec.rounds else None, self.spec.setup, self.spec.scoring):
            if root is None:
                continue
            for node in ir.walk(root):
                if isinstance(node, ir.Phase) and node.name == name:
                    return node
        raise SpecRuntimeError(f"the game has no phase '{name}'")

    def next_round(self, part) -> None:
        st, r = self.st, self.spec.rounds
        if r.count is not None:
            total = self.rules.x(r.count)(st, {})
            if st.round >= total:
                raise ScriptError(f"the game has only {total} rounds; round {st.round + 1} cannot be played", part.span)
        st.round += 1
        st.event("round", st.round)

    def rest_of_rounds(self):
        """The rounds not played yet, as the game's own rounds loop plays them."""
        r, rules = self.spec.rounds, self.rules
        body = rules.block(r.body)
        total, until, cap = rules.x(r.count), rules.x(r.until), rules.x(r.cap)
        site = getattr(r.span, "site", (r.span.line, r.span.col))  # the key the game's own rounds loop uses

        def op(st, f):
            n = total(st, {}) if total is not None else None
            c = cap(st, {}) if cap is not None else None
            if n is not None and st.round >= n:
                return
            if n is None and (st.round >= c or (st.round > 0 and until(st, {}))):
                return
            st.round += 1
            st.event("round", st.round)
            st.frames.append(Frame(body, {}, RoundsLoop(n, until, c, site)))

        return op

    # ---- the script -------------------------------------------------------------------------

    def drive(self, part: ir.Play, frames: list, pos: int) -> int:
        """Run `frames` to their end, answering decisions and chance from the
        part's script (starting at line `pos`); return the next unused line."""
        st, script = self.st, part.script
        st.frames = frames
        st.run()
        while st.pending is not None:
            if isinstance(st.pending, Decision):
                d = st.pending
                while pos < len(script) and script[pos].kind == "offered":
                    self.check_offered(d, script[pos])
                    pos += 1
                if pos >= len(script):
                    raise ScriptError(f"{_decision_text(st, d)} is not answered: the script of this "
                                      f"{_part_name(part)} has no line for it", _end_span(part),
                                      f"legal moves: {_moves_text(d)}; answer with a line such as "
                                      f"p{d.player + 1} chooses {_example_move(d)}")
                step = script[pos]
                if step.kind not in ("move", "pass"):
                    raise ScriptError(f"'{_step_text(step)}' fixes a chance event, but the game is at "
                                      f"{_decision_text(st, d)}", step.span, f"legal moves: {_moves_text(d)}")
                if int(step.player[1:]) - 1 != d.player:
                    raise ScriptError(f"'{_step_text(step)}' is for {step.player.upper()}, but the game is at "
                                      f"{_decision_text(st, d)}", step.span,
                                      f"P{d.player + 1}'s legal moves: {_moves_text(d)}")
                st.apply(self.match_move(d, step))
                pos += 1
            else:
                c = st.pending
                step = script[pos] if pos < len(script) else None
                if step is not None and step.kind in ("roll", "random", "shuffle"):
                    outcome = self.chance_outcome(c, step)
                    pos += 1
                elif self.rng is not None:
                    outcome = st.sample_chance(self.rng)
                else:
                    raise ScriptError(f"chance event '{c.text}' is not fixed and the example has no seed",
                                      step.span if step is not None else _end_span(part),
                                      _chance_hint(c))
                st.apply_chance(outcome)
        return pos

    def match_move(self, d: Decision, step: ir.Step) -> int:
        if step.kind == "pass":
            found = [i for i, m in enumerate(d.moves) if m.value is PASS]
            if not found:
                raise ScriptError(f"{step.player.upper()} cannot pass at {_decision_text(self.st, d)}", step.span,
                                  f"legal moves: {_moves_text(d)}")
            return found[0]
        found = [i for i, m in enumerate(d.moves) if self.move_matches(d, m, step.items, step.several)]
        if len(found) == 1:
            return found[0]
        what = _step_text(step)
        if not found:
            raise ScriptError(f"'{what}' is not a legal move at {_decision_text(self.st, d)}"
                              + self.why_not(d, step), step.span, f"legal moves: {_moves_text(d)}")
        raise ScriptError(f"'{what}' matches {len(found)} legal moves at {_decision_text(self.st, d)}: "
                          + "; ".join(d.moves[i].label for i in found[:MAX_LISTED]), step.span,
                          "say which one, e.g. with a condition: KIND where FIELD == VALUE")

    def why_not(self, d: Decision, step: ir.Step) -> str:
        several = any(isinstance(m.value, tuple) for m in d.moves)
        if d.options is not None:
            return " (it is a choice between named options)"
        if several and not step.several:
            return " (this choice takes several items: write them as [a, b], or nothing)"
        if step.several and not several:
            return " (this choice takes one item)"
        return self.where_instead(step.items)

    def where_instead(self, items) -> str:
        """Where the cards a move names lie, when none of them is among the choices."""
        st, t = self.st, self.t
        places = []
        for item in items:
            if item.kind is not None:
                cards = [c for c in t.C if t.kind[c.id] == item.kind and self.item_matches(item, c, None)]
            elif item.value is not None:
                v = self.rules.x(item.value)(st, self.env)
                cards = [v] if type(v) is CardRef else []
            else:
                cards = []
            if not cards and item.kind is not None:
                places.append(f"no {item.kind} card is {item.text[len(item.kind):].strip()}")
            zones = sorted({t.zone_label(st.loc[c.id]) for c in cards})
            if zones:
                places.append(f"'{item.text}' lies in {', '.join(zones)}")
        return f" ({'; '.join(places)})" if places else ""

    def move_matches(self, d: Decision, m, items, several: bool) -> bool:
        if m.value is PASS:
            return not several and len(items) == 1 and items[0].text == "pass"
        if d.options is not None:
            return not several and len(items) == 1 and (items[0].label or items[0].text) == m.label
        if isinstance(m.value, tuple):
            xs = m.value
            if len(xs) != len(items):
                return False
            if not xs:
                return True
            return any(all(self.item_matches(it, x, None) for it, x in zip(items, perm))
                       for perm in _orders(xs))
        return not several and len(items) == 1 and self.item_matches(items[0], m.value, m.label)

    def item_matches(self, item: ir.MoveItem, x, label: str | None) -> bool:
        st = self.st
        if item.label is not None:
            return item.label == label or item.label == fmt(x) or (type(x) is CardRef and item.label == st.card_text(x.id))
        if item.kind is not None:
            if type(x) is not CardRef or self.t.kind[x.id] != item.kind:
                return False
            if item.where is None:
                return True
            return self.rules.x(item.where)(st, {**self.env, ITEM: x}) is True
        v = self.rules.x(item.value)(st, self.env)
        if type(v) is CardRef and type(x) is CardRef:
            return v is x or (st.card_text(v.id) == st.card_text(x.id) and st.loc[v.id] == st.loc[x.id])
        return v == x and type(v) is type(x)

    def check_offered(self, d: Decision, step: ir.Step) -> None:
        st = self.st
        if int(step.player[1:]) - 1 != d.player:
            raise ScriptError(f"'{step.player} is offered' is for {step.player.upper()}, but the game is at "
                              f"{_decision_text(st, d)}", step.span)
        covered = set()
        for offer in step.offers:
            hits = {i for i, m in enumerate(d.moves) if self.move_matches(d, m, offer.items, offer.several)}
            if not hits:
                raise ScriptError(f"{_decision_text(st, d)} does not offer '{_offer_text(offer)}'", offer.span,
                                  f"it offers exactly: {_moves_text(d)}")
            covered |= hits
        missing = [m.label for i, m in enumerate(d.moves) if i not in covered]
        if missing:
            raise ScriptError(f"{_decision_text(st, d)} offers more than the script lists: "
                              + ", ".join(missing[:MAX_LISTED]), step.span, f"it offers exactly: {_moves_text(d)}")

    def chance_outcome(self, c: Chance, step: ir.Step):
        text = _step_text(step)
        if step.kind == "roll":
            if c.kind != "roll":
                raise ScriptError(f"'{text}' fixes a roll, but the chance event here is '{c.text}'", step.span,
                                  _chance_hint(c))
            faces = len(c.outcomes)
            if not 1 <= step.number <= faces:
                raise ScriptError(f"{c.text} cannot show {step.number}: its faces are 1..{faces}", step.span)
            return step.number - 1
        if step.kind == "shuffle":
            if c.kind != "shuffle":
                raise ScriptError(f"'{text}' fixes a shuffle, but the chance event here is '{c.text}'", step.span,
                                  _chance_hint(c))
            return list(range(c.outcomes))
        if c.kind != "pick":
            raise ScriptError(f"'{text}' fixes a random pick, but the chance event here is '{c.text}'", step.span,
                              _chance_hint(c))
        item = step.items[0]
        found = [i for i, x in enumerate(c.values) if self.item_matches(item, x, c.outcomes[i][0])]
        if len(found) != 1:
            raise ScriptError(f"'{item.text}' {'is not' if not found else 'is more than one'} of the outcomes of "
                              f"'{c.text}'", step.span, "outcomes: " + ", ".join(o[0] for o in c.outcomes[:MAX_LISTED]))
        return found[0]


def _check_outcome(st: State, o: ir.Outcome) -> tuple[str, str | None] | None:
    res = st.result
    names = sorted(p.upper() for p in o.players)
    if o.kind == "eliminated":
        out = sorted(f"P{i + 1}" for i, e in enumerate(st.elim) if e)
        if out != names:
            return (f"expected {'nobody' if not names else ', '.join(names)} eliminated, but "
                    f"{'nobody was' if not out else ', '.join(out) + (' was' if len(out) == 1 else ' were')}", None)
        return None
    if o.kind == "account":
        lines = narrate(st)
        if any(o.text in line for line in lines):
            return None
        return (f"expected the account to say '{o.text}', but no line does",
                "the account's last lines: " + " | ".join(l.strip() for l in lines[-4:]))
    if res is None:
        return ("expected how the game ends, but it has not ended", "play it to its end: play game (or play scoring)")
    won = sorted(res["winners"])
    told = ("a draw between " if res["draw"] else "won by ") + ", ".join(won) if won else "no winner"
    if o.kind == "winner" and (res["draw"] or won != names):
        return (f"expected {' and '.join(names)} to win, but the game ended with {told}", None)
    if o.kind == "draw" and (not res["draw"] or (names and won != names)):
        return (f"expected a draw{' between ' + ', '.join(names) if names else ''}, but the game ended with {told}", None)
    if o.kind == "no_winner" and won:
        return (f"expected no winner, but the game ended with {told}", None)
    return None


def _orders(xs):
    if len(xs) <= 6:
        return permutations(xs)
    return [xs]  # a longer list is matched in the order written


def _part_name(part: ir.Play) -> str:
    return {"given": "given block", "run": "run block", "do": f"procedure '{part.name}'",
            "phase": f"phase '{part.name}'", "rounds": f"{part.count} rounds"}.get(part.target, part.target)


def _end_span(part: ir.Play) -> ir.Span:
    return part.span


def _decision_text(st: State, d: Decision) -> str:
    prompt = f"'{d.prompt}'" if d.prompt else "a choice"
    return f"P{d.player + 1}'s decision {prompt} (line {d.site[-2]})"  # a site ends with (line, column)


def _moves_text(d: Decision) -> str:
    labels = [m.label for m in d.moves]
    more = len(labels) - MAX_LISTED
    return ", ".join(labels[:MAX_LISTED]) + (f", ... ({more} more)" if more > 0 else "")


def _example_move(d: Decision) -> str:
    m = d.moves[0]
    if m.value is PASS:
        return "pass"
    if m.value == ():
        return "nothing"
    return m.label if d.options is not None else f'"{m.label}"'


def _chance_hint(c: Chance) -> str:
    if c.kind == "roll":
        return f"fix it with a line: roll N (1..{len(c.outcomes)}), or give the example a seed"
    if c.kind == "shuffle":
        return "fix it with a line: shuffle unchanged, or give the example a seed"
    return "fix it with a line: random VALUE (one of " + ", ".join(o[0] for o in c.outcomes[:MAX_LISTED]) \
        + "), or give the example a seed"


def _step_text(step: ir.Step) -> str:
    items = ", ".join(i.text for i in step.items)
    match step.kind:
        case "pass":
            return f"{step.player} passes"
        case "offered":
            return f"{step.player} is offered {{" + ", ".join(_offer_text(o) for o in step.offers) + "}"
        case "roll":
            return f"roll {step.number}"
        case "random":
            return f"random {items}"
        case "shuffle":
            return "shuffle unchanged"
    if step.several:
        return f"{step.player} {step.verb} " + (f"[{items}]" if items else "nothing")
    return f"{step.player} {step.verb} {items}"


def _offer_text(offer: ir.Step) -> str:
    items = ", ".join(i.text for i in offer.items)
    return (f"[{items}]" if items else "nothing") if offer.several else items


def _source(spec: ir.Spec, e: ir.Expr) -> str:
    lines = spec.text_of(e.span.path).splitlines()
    sp = e.span
    if sp.line and sp.line == sp.end_line and sp.line <= len(lines):
        return lines[sp.line - 1][sp.col - 1: sp.end_col - 1].strip()
    return "the condition"


def _explain(rules, expr, st, env) -> str:
    """For a failed comparison, say what the left side actually was."""
    if isinstance(expr, ir.BinOp) and expr.op in ("==", "!=", "<", "<=", ">", ">="):
        left = rules.x(expr.left)(st, env)
        right = rules.x(expr.right)(st, env)
        return f", but it was {fmt(left)} (against {fmt(right)})"
    return ", but it was false"
