"""What a test read as a guard (verify/bounds.py) may read, through the defs it calls: the fields
(`x.f` of any card or player) and the spec's variables.  A `set` of one of them, or a `roll` (which
writes a die's face), between the test and a later statement means the test may no longer hold
there, whether the test names the field itself or reads it through a def (or a def calling one).

The locals a test reads are not followed into defs: a def's body reads only its own parameters,
which stand for the arguments written in the test itself."""

from __future__ import annotations

from soan.dsl import ir

from .state_caps import ROLLED


def reads(bounds, test) -> tuple[frozenset[str], frozenset[str]]:
    """(field names, variable names) that `test` may read, directly or through defs, transitively."""
    cache = bounds.__dict__.setdefault("_guard_reads_cache", {})
    key = id(test)
    hit = cache.get(key)
    if hit is not None and hit[0] is test:
        return hit[1]
    defs = bounds.t.rules.defs_ir
    fields: set[str] = set()
    variables: set[str] = set()
    todo, seen = [test], set()
    while todo:
        for n in ir.walk(todo.pop()):
            match n:
                case ir.Attr(name=name):
                    fields.add(name)
                case ir.GlobalVar(name=name):
                    variables.add(name)
                case ir.Call(func=func) if func in defs and func not in seen:
                    seen.add(func)  # a def met twice (or calling itself) is read once
                    if defs[func].body is not None:
                        todo.append(defs[func].body)
    out = (frozenset(fields), frozenset(variables))
    cache[key] = (test, out)  # the test itself kept, so its id is not reused by another node
    return out


def written(s: ir.Stmt) -> tuple[str, str] | None:
    """What a statement writes that a test may read: ("field", f) for `set x.f`, ("var", v) for
    `set v` of a spec variable, ("field", the die's face) for `roll`; None for anything else (moves
    and procedure calls are read by Bounds itself, locals by the text of the test)."""
    match s:
        case ir.Set(target=ir.Attr(name=name)):
            return ("field", name)
        case ir.Set(target=ir.GlobalVar(name=name)):
            return ("var", name)
        case ir.Roll():
            return ("field", ROLLED)
    return None


def reads_any(bounds, test, what: tuple[str, str]) -> bool:
    """Whether `test` may read what `written` found written."""
    fields, variables = reads(bounds, test)
    return what[1] in (fields if what[0] == "field" else variables)
