"""The public API: everything the CLI does, as functions.

    from soan import api
    spec = api.load("specs/GAME-DRAFT.soan")
    record = api.play(api.tables(spec, 4), seed=7, bots=["greedy"] * 4)
    print(record.result["winners"])
"""

from __future__ import annotations

import difflib

from soan.dsl import compile_text, ir, load_spec
from soan.dsl.analysis import parameter_uses, summary
from soan.interpreter.account import narrate
from soan.interpreter.bots import BOTS, SEARCH_BOTS, bot_problem
from soan.interpreter.examples import ExampleResult, run_example
from soan.interpreter.play import (GameRecord, ReplayMismatch, bot_names, default_jobs, load_log, play_game, replay,
                                   simulate, spec_digest)
from soan.interpreter.runtime import Tables, fmt
from soan.interpreter.state import CHANCE, TERMINAL, ShuffleOutcomes, State

__version__ = "0.1.0"
__all__ = ["load", "compile_text", "tables", "play", "replay", "simulate", "run_examples", "check_report", "narrate",
           "assumed_card_tables",
           "parse_params", "load_log", "bot_problem", "spec_digest", "bot_names", "BOT_NAMES", "ReplayMismatch", "GameRecord",
           "State", "ShuffleOutcomes", "Tables", "CHANCE", "TERMINAL"]

BOT_NAMES = sorted(BOTS) + list(SEARCH_BOTS)  # and each strategy a spec declares (bot_problem)
MARK_NAMES = {"tie_fallback": "a tie settled by a fallback", "short_draw": "a draw from a short pile",
              "short_supply": "a token supply running short", "no_choice": "a choice with nothing to choose",
              "round_cap": "the round cap reached", "while_limit": "a loop limit reached",
              "empty_pick": "a random pick from nothing"}

load = load_spec


def tables(spec: ir.Spec, players: int, params: dict | None = None, engine: str | None = None) -> Tables:
    """`engine`: "compiled" (generated Python, interpreter/codegen.py) or "closures"; None: the default."""
    return Tables(spec, players, params, engine=engine)


def play(tables: Tables, seed: int, bots: list[str], narrate: bool = False) -> GameRecord:
    return play_game(tables, seed, bots, narrate=narrate)


def run_examples(spec: ir.Spec) -> list[ExampleResult]:
    return [run_example(spec, ex) for ex in spec.examples]


def parse_params(spec: ir.Spec, raw: dict[str, str]) -> dict:
    """Command-line 'NAME=VALUE' settings of rulings, assumptions and options,
    checked against their domains.  Errors are 'message|hint' ValueErrors."""
    decls = {r.name: r.domain for r in spec.rulings}
    decls.update({a.name: a.domain for a in spec.assumptions if a.domain is not None})
    options = {o.name for o in spec.options}
    enums = {e.name: e.values for e in spec.enums}
    out = {}
    for name, text in raw.items():
        if name in options:
            if text.lower() not in ("true", "false", "on", "off"):
                raise ValueError(f"option '{name}' is on or off, not '{text}'|write --option {name}")
            out[name] = text.lower() in ("true", "on")
            continue
        valueless = next((a for a in spec.assumptions if a.name == name and a.domain is None), None)
        if valueless is not None:
            raise ValueError(f"'{name}' is an assumption without a value: it records what the spec supplies where the "
                             "draft is silent, and there is nothing to set|to play another way, edit the spec "
                             "(soan check lists the rulings and assumptions that take a value)")
        if name not in decls:
            known = list(decls) + list(options)
            near = difflib.get_close_matches(name, known, n=1)
            raise ValueError(f"no open ruling, assumption or option is called '{name}'|"
                             + (f"did you mean '{near[0]}'?" if near else "soan check lists them"))
        d = decls[name]
        match d:
            case ir.IntDomain(lo=lo, hi=hi):
                try:
                    v = int(text)
                except ValueError:
                    raise ValueError(f"'{name}' takes a number in {lo}..{hi}, not '{text}'|") from None
                if not lo <= v <= hi:
                    raise ValueError(f"'{name}' takes a number in {lo}..{hi}, not {v}|")
            case ir.BoolDomain():
                if text not in ("true", "false"):
                    raise ValueError(f"'{name}' is true or false, not '{text}'|")
                v = text == "true"
            case ir.EnumDomain(values=vals, name=ename):
                vals = vals or enums.get(ename, ())
                if text not in vals:
                    near = difflib.get_close_matches(text, vals, n=1)
                    raise ValueError(f"'{name}' is one of {', '.join(vals)}, not '{text}'|"
                                     + (f"did you mean '{near[0]}'?" if near else ""))
                v = text
            case _:
                v = text
        out[name] = v
    return out


def check_report(spec: ir.Spec) -> dict:
    """What `soan check` lists.  Each ruling and assumption carries the draft section it cites (`section`,
    for grouping); an assumption without a value that no expression reads is `embodied`: the rules are
    written the way it says, so it needs no expression to act."""
    uses = parameter_uses(spec)
    rulings = [{"name": r.name, "line": r.span.line, "domain": str(r.domain), "provisional": fmt(_const(r.provisional)),
                "text": r.question, "cite": r.cite, "section": cite_section(r.cite), "read_by": uses[r.name]["read_by"],
                "affects": uses[r.name]["affects"]} for r in spec.rulings]
    assumptions = [{"name": a.name, "line": a.span.line, "text": a.text, "cite": a.cite, "section": cite_section(a.cite),
                    "value": None if a.value is None else fmt(_const(a.value)),
                    "embodied": a.value is None and not uses[a.name]["read_by"],
                    "read_by": uses[a.name]["read_by"], "affects": uses[a.name]["affects"]} for a in spec.assumptions]
    return {"summary": summary(spec), "rulings": rulings, "assumptions": assumptions, "notes": list(spec.notes)}


SECTION_MARKS = "■◎○〇・◇□●"


def cite_section(cite: str | None) -> str:
    """The draft section a cite names first, for grouping: '■ 審査 ○セットボーナス' -> '■ 審査',
    '◎ワークエリア 【火力調整】' -> '◎ワークエリア', 'Play, step 3' -> 'Play'."""
    if not cite:
        return "(no section cited)"
    head = cite
    for cut in (":", " / ", "/", " (", ","):
        head = head.split(cut)[0]
    words = head.split()
    if not words:
        return cite.strip()
    if words[0] in SECTION_MARKS and len(words) > 1:
        return f"{words[0]} {words[1]}"
    return words[0]


def assumed_card_tables(spec: ir.Spec, params: dict | None = None) -> list[str]:
    """The assumptions the spec's card lists rest on (`cards ... assumed NAME`), each with the table in
    use when the assumption has values: what results of play depend on beyond the draft."""
    params = params or {}
    out = []
    for a in spec.assumptions:
        if any(cs.assumed == a.name for cs in spec.card_sets):
            value = params.get(a.name, _const(a.value) if a.value is not None else None)
            out.append(a.name if value is None else f"{a.name}={fmt(value)}")
    return out


def _const(e):
    match e:
        case ir.Int(value=v) | ir.Bool(value=v) | ir.Str(value=v):
            return v
        case ir.Symbol(name=n) | ir.Name(name=n):
            return n
    return None
