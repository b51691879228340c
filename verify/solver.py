"""Every z3 construction soan makes lives here.  Each solver call has a
resource limit (z3's rlimit: work, the same on any machine) and, only as an
outer limit, a time limit far above what the resource limit allows, so that
a verdict does not depend on how busy the machine is; its answer is
three-valued: a proof, a counterexample, or unknown (which is never reported
as a pass)."""

from __future__ import annotations

import attrs
import z3

TIMEOUT_MS = 120_000  # an outer limit only: the resource limit below decides
RLIMIT = 5_000_000


@attrs.frozen
class Bound:
    status: str  # "proved" | "unknown"
    value: int | None
    reason: str = ""


def _limit(s) -> None:
    s.set("timeout", TIMEOUT_MS)
    s.set("rlimit", RLIMIT)


def max_total(terms: list[tuple[str, int, int, int | None]], cap: tuple[int, int] | None = None) -> Bound:
    """The largest Σ amount_i × firings_i, where amount_i lies in [lo_i, hi_i]
    and 0 ≤ firings_i ≤ F_i, optionally with the total also inside `cap`
    (a declared domain).  terms: (name, lo, hi, F)."""
    return _optimise(terms, cap, maximise=True)


def min_total(terms: list[tuple[str, int, int, int | None]], cap: tuple[int, int] | None = None) -> Bound:
    return _optimise(terms, cap, maximise=False)


def _unbounded(terms, what: str) -> Bound | None:
    """Unknown, saying which, when a term's amount or its firing count has no known bound."""
    unknown_amount = next((name for name, lo, hi, _ in terms if lo is None or hi is None), None)
    if unknown_amount is not None:
        return Bound("unknown", None, f"the amount {what} {unknown_amount} has no known bound")
    unbounded = next((name for name, _, _, f in terms if f is None), None)
    if unbounded is not None:
        return Bound("unknown", None, f"the rule at {unbounded} can fire an unknown number of times")
    return None


def _optimise(terms, cap, maximise: bool) -> Bound:
    if cap is None and (why := _unbounded(terms, "at")) is not None:
        return why
    # a term with an unknown amount or firing count leaves only the declared domain (the cap)
    terms = [(name, lo, hi, None if lo is None or hi is None else f) for name, lo, hi, f in terms]
    opt = z3.Optimize()
    _limit(opt)
    total = z3.IntVal(0)
    for k, (name, lo, hi, firings) in enumerate(terms):
        if firings is None:
            continue  # handled by the cap below: an unbounded term leaves only the declared domain
        a = z3.Int(f"amount_{k}")
        f = z3.Int(f"firings_{k}")
        opt.add(a >= lo, a <= hi, f >= 0, f <= firings)
        # each firing may give a different amount: the sum of f amounts lies in [f*lo, f*hi]
        s = z3.Int(f"sum_{k}")
        opt.add(s >= f * lo, s <= f * hi)
        total = total + s
    t = z3.Int("total")
    if any(f is None for _, _, _, f in terms):
        opt.add(t >= cap[0], t <= cap[1])
    else:
        opt.add(t == total)
        if cap is not None:
            opt.add(t >= cap[0], t <= cap[1])
    h = opt.maximize(t) if maximise else opt.minimize(t)
    result = opt.check()
    if result != z3.sat:
        return Bound("unknown", None, f"z3 answered {result}")
    value = opt.upper(h) if maximise else opt.lower(h)
    if not z3.is_int_value(value):
        return Bound("unknown", None, "z3 found no finite optimum")
    return Bound("proved", value.as_long())


def never_exceeds(demand_terms: list[tuple[str, int, int, int | None]], supply: int) -> Bound:
    """Proved when no choice of amounts and firings within their bounds makes
    the demand exceed the supply (z3 finds the constraints unsatisfiable)."""
    if (why := _unbounded(demand_terms, "given at")) is not None:
        return why
    s = z3.Solver()
    _limit(s)
    total = z3.IntVal(0)
    for k, (name, lo, hi, firings) in enumerate(demand_terms):
        f = z3.Int(f"firings_{k}")
        part = z3.Int(f"part_{k}")
        s.add(f >= 0, f <= firings, part >= f * max(lo, 0), part <= f * max(hi, 0))
        total = total + part
    s.add(total > supply)
    r = s.check()
    if r == z3.unsat:
        return Bound("proved", supply)
    if r == z3.sat:
        m = s.model()
        return Bound("unknown", m.eval(total).as_long(), "the over-approximation allows more than the supply")
    return Bound("unknown", None, f"z3 answered {r}")


# ---- the designer's questions: is a small formula satisfiable? ----------------------------------


def satisfiable(formula: tuple, ranges: dict[str, tuple[int | None, int | None]]) -> tuple[str, str]:
    """'sat', 'unsat' or 'unknown' (with a reason) for a formula given as
    nested tuples (built by verify/questions.py):

        ("int", k) ("bool", b) ("ivar", name) ("bvar", name)
        ("add", a, b) ("sub", a, b) ("mul", a, b) ("neg", a)
        ("eq", a, b) ("lt", a, b) ("le", a, b)      on integers
        ("iff", a, b) ("and", a, b) ("or", a, b) ("not", a) ("implies", a, b)
        ("ite", c, a, b)

    Every integer unknown lies within its `ranges` entry (None: no bound on
    that side)."""
    s = z3.Solver()
    _limit(s)
    ints: dict[str, z3.ArithRef] = {}
    bools: dict[str, z3.BoolRef] = {}

    def build(f):
        op = f[0]
        if op == "int":
            return z3.IntVal(f[1])
        if op == "bool":
            return z3.BoolVal(f[1])
        if op == "ivar":
            if f[1] not in ints:
                v = ints[f[1]] = z3.Int(f[1])
                lo, hi = ranges.get(f[1], (None, None))
                if lo is not None:
                    s.add(v >= lo)
                if hi is not None:
                    s.add(v <= hi)
            return ints[f[1]]
        if op == "bvar":
            if f[1] not in bools:
                bools[f[1]] = z3.Bool(f[1])
            return bools[f[1]]
        args = [build(a) for a in f[1:]]
        match op:
            case "add":
                return args[0] + args[1]
            case "sub":
                return args[0] - args[1]
            case "mul":
                return args[0] * args[1]
            case "neg":
                return -args[0]
            case "eq" | "iff":
                return args[0] == args[1]
            case "lt":
                return args[0] < args[1]
            case "le":
                return args[0] <= args[1]
            case "and":
                return z3.And(*args)
            case "or":
                return z3.Or(*args)
            case "not":
                return z3.Not(args[0])
            case "implies":
                return z3.Implies(args[0], args[1])
            case "ite":
                return z3.If(args[0], args[1], args[2])
        raise ValueError(f"unknown formula operator {op!r}")

    s.add(build(formula))
    r = s.check()
    if r == z3.sat:
        return "sat", ""
    if r == z3.unsat:
        return "unsat", ""
    return "unknown", f"z3 answered unknown ({s.reason_unknown()})"
