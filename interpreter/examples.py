"""Running a spec's examples: a given situation, a step of the rules, and the
expected results.  The draft's worked examples live in the spec this way."""

from __future__ import annotations

import attrs

from soan.dsl import ir
from soan.dsl.errors import SpecRuntimeError

from .runtime import Tables, fmt
from .state import Frame, State


@attrs.frozen
class ExampleResult:
    title: str
    passed: bool
    failures: tuple[str, ...] = ()
    span: ir.Span = ir.NOSPAN


def run_example(spec: ir.Spec, ex: ir.Example) -> ExampleResult:
    n = ex.players or spec.min_players
    try:
        tables = Tables(spec, n, {o: True for o in ex.options})
        st = State(tables)
        env = {f"p{i + 1}": tables.P[i] for i in range(n)}
        rules = tables.rules
        for label, block in (("given", ex.given), ("run", ex.run)):
            if block is None:
                continue
            st.frames = [Frame(rules.block(block), env)]
            st.run()
            if st.pending is not None:
                what = "a chance event" if st.current_player() < 0 else f"a decision by P{st.current_player() + 1}"
                return ExampleResult(ex.title, False, (f"the '{label}' block stops at {what}; "
                                                       "an example must not need one",), ex.span)
        failures = []
        for expr, message in ex.expects:
            value = rules.x(expr)(st, env)
            if value is not True:
                detail = _explain(rules, expr, st, env)
                failures.append(f"line {expr.span.line}: expected {message or _source(spec, expr)}{detail}")
        return ExampleResult(ex.title, not failures, tuple(failures), ex.span)
    except SpecRuntimeError as e:
        return ExampleResult(ex.title, False, (f"line {e.span.line}: {e.message}",), ex.span)


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
