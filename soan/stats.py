"""The statistics soan's comparisons share: paired differences with Student-t
intervals, Holm's step-down control of the family-wise error across many
metrics, the smallest effect a run could have detected, Wilson intervals for
shares, and percentages that never print "0%" for something that happened.

Plain Python (no numpy or scipy): the t distribution comes from the
regularised incomplete beta function.
"""

from __future__ import annotations

import math

ALPHA = 0.05
POWER = 0.8
HOLM = "Holm's step-down method"


# ---- the t distribution ----------------------------------------------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 3e-14:
            break
    return h


def _betai(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1.0 - x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return _betai(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p: float, df: int) -> float:
    """The t value with P(T <= t) = p (p above one half)."""
    target = 2.0 * (1.0 - p)  # two-sided tail
    lo, hi = 0.0, 1.0
    while t_two_sided_p(hi, df) > target:
        hi *= 2.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if t_two_sided_p(mid, df) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


# ---- paired differences -----------------------------------------------------------------------------


def paired(diffs: list[float]) -> dict:
    """Mean of paired differences, its standard error and the two-sided p-value of 'no difference'."""
    n = len(diffs)
    mean = sum(diffs) / n if n else 0.0
    if n < 2:
        return {"n": n, "mean": mean, "se": 0.0, "p": 1.0 if mean == 0 else 0.0, "df": 1}
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    se = math.sqrt(var / n)
    if se == 0.0:
        # every game moved by exactly the same amount: no doubt at all (or no difference at all)
        return {"n": n, "mean": mean, "se": 0.0, "p": 1.0 if mean == 0 else 0.0, "df": n - 1}
    return {"n": n, "mean": mean, "se": se, "p": t_two_sided_p(mean / se, n - 1), "df": n - 1}


def interval(test: dict, level: float) -> tuple[float, float]:
    """The (1 - level) interval of a paired mean."""
    if test["se"] == 0.0:
        return test["mean"], test["mean"]
    half = t_quantile(1.0 - level / 2.0, test["df"]) * test["se"]
    return test["mean"] - half, test["mean"] + half


def detectable(test: dict, level: float, power: float = POWER) -> float:
    """The smallest true difference this run would call a change with the given power."""
    if test["se"] == 0.0:
        return 0.0
    return (t_quantile(1.0 - level / 2.0, test["df"]) + t_quantile(power, test["df"])) * test["se"]


def games_needed(test: dict, effect: float, level: float, power: float = POWER) -> int | None:
    """Games that would detect a true difference of `effect` with the given power (normal approximation)."""
    if test["se"] == 0.0 or effect == 0:
        return None
    sd = test["se"] * math.sqrt(test["n"])
    z = t_quantile(1.0 - level / 2.0, 10_000) + t_quantile(power, 10_000)
    return math.ceil((z * sd / abs(effect)) ** 2)


def holm(ps: list[float], alpha: float = ALPHA) -> list[tuple[bool, float]]:
    """Holm's step-down test over a family: for each p-value, whether it is
    called a change and the level its interval is drawn at.  The chance of any
    false change in the family stays at or below alpha.  A metric is tested at
    alpha / (m - k) in its rank k (from 0) while every smaller p was called;
    from the first one not called on, all share that one's level, so each
    interval leaves out zero exactly when its metric is called a change."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out: list[tuple[bool, float]] = [(False, alpha)] * m
    stopped = None
    for k, i in enumerate(order):
        level = alpha / (m - k)
        if stopped is None and ps[i] <= level:
            out[i] = (True, level)
        else:
            stopped = level if stopped is None else stopped
            out[i] = (False, stopped)
    return out


# ---- shares -------------------------------------------------------------------------------------------


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a share k/n (sensible at 0 and at n)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def pct(x: float, digits: int = 0) -> str:
    """A share as a percentage that never reads 0% (or 100%) for what happened (or failed) at least once:
    below the last digit shown it prints "<1%" (">99%" near the top)."""
    if x <= 0:
        return "0%"
    if x >= 1:
        return "100%"
    floor = 10.0 ** -(2 + digits)
    if x < floor:
        return f"<{floor:.{digits}%}"
    if x > 1 - floor:
        return f">{1 - floor:.{digits}%}"
    return f"{x:.{digits}%}"
