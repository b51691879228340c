"""Values as a designer reads them in text and HTML output: never a Python repr.

`{'coins': 8}` reads "coins 8", `['P1', 'P3']` reads "P1, P3", `[-3, 35]` as
a range reads "-3..35", True reads "true" (the spec's own spelling), None
reads "none", 2.50 reads "2.5".
"""

from __future__ import annotations


def num(v: float, digits: int = 2) -> str:
    """A number as a person writes it: 3, 2.5, -0.25 (never 3.0 or 2.5000000001)."""
    if isinstance(v, bool):
        return show(v)
    if isinstance(v, int) or float(v).is_integer():
        return str(int(v))
    return f"{v:.{digits}f}".rstrip("0").rstrip(".")


def show(v, empty: str = "none") -> str:
    """Any value of soan's results as plain words: mappings as 'key value, ...', sequences as 'a, b'."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return num(v)
    if isinstance(v, dict):
        return ", ".join(f"{show(k)} {show(x)}" for k, x in v.items()) or empty
    if isinstance(v, (list, tuple, set, frozenset)):
        items = sorted(v, key=str) if isinstance(v, (set, frozenset)) else v
        return ", ".join(show(x) for x in items) or empty
    return str(v)


def span(pair, empty: str = "none") -> str:
    """A [lo, hi] pair as the spec writes a range: lo..hi (one number when both ends agree)."""
    if pair is None:
        return empty
    lo, hi = pair
    if lo is None and hi is None:
        return empty
    if lo == hi:
        return show(lo)
    return f"{show(lo)}..{show(hi)}"


def bounds(b: dict | None) -> str:
    """A finding's numbers (verify's `bounds`) in words: 'proved -3..35, witnessed -1..34', 'supply 8'."""
    if not b:
        return ""
    parts = []
    for k, v in b.items():
        name = k.replace("_", " ")
        if isinstance(v, (list, tuple)) and len(v) == 2 and all(x is None or isinstance(x, (int, float)) for x in v):
            parts.append(f"{name} {span(v, 'not seen')}")
        elif k == "site" and isinstance(v, (list, tuple)) and len(v) == 3:
            parts.append(f"at {v[0]}:{v[1]}:{v[2]}" if v[0] else f"at line {v[1]}, column {v[2]}")
        else:
            parts.append(f"{name} {show(v)}")
    return ", ".join(parts)


def spec_title(name: str, draft) -> str:
    """The game's name and its draft ('NAME draft 20'), or only the name when the spec gives no draft number."""
    return name + (f" draft {draft}" if draft is not None else "")
