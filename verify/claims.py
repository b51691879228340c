"""Every claim `soan verify` proves, in one shape, and the games that contradict them.

This is an adapter over today's verifier (`verify.properties.Verifier`): it
runs it without games (proofs only) and reads the findings whose verdict is
"proved".  All reading of verify's findings lives here, so the soundness test
and the exhaustive enumerator need not know verify's output format.

A claim is contradicted by a game when:
- score_max / score_min: a completed game gives some player a total (or an
  item's points) above the maximum / below the minimum (a game stopped by a
  rule error has no final score, so it is left out of score claims);
- supply_never_short: the game found the token's supply short;
- pile_never_short: a draw at one of the pile's sites found it short;
- tiebreak_total: the ranking at that site left a tie to its fallback;
- ends_within: the game played more rounds, or took more decisions, than the
  bound (games stopped by an error count with what they did up to the error);
- cap_never_reached: a `while ... max N` loop at that site reached its cap (the
  game marked `while_limit` there);
- ruling_moot: the game read the ruling verify calls moot;
- holding_in_domain: a player ends the game holding a number of the token
  outside its declared `hold` (checked at the end of each game only);
- question_never ("can E" proved "no"): E is true in a state the question
  looks at (every stop of the game, or its end for `at end`);
- question_always ("always E" or an invariant proved to hold): E is false, or
  cannot be worked out, in such a state.
"""

from __future__ import annotations

import attrs

from soan.dsl import ir
from soan.interpreter.runtime import Tables

KINDS = ("score_max", "score_min", "supply_never_short", "pile_never_short", "tiebreak_total", "ends_within",
         "cap_never_reached", "ruling_moot", "holding_in_domain", "question_never", "question_always")


@attrs.frozen
class Claim:
    kind: str  # one of KINDS
    subject: str  # "total", "item NAME", a token name, "line L" of a draw, a ranking's "line:col", "game", a ruling
    value: object  # the bound (int), (rounds, decisions) for ends_within, a site (file, line, column), or None
    text: str  # the claim as verify printed it


def proved_claims(tables: Tables) -> list[Claim]:
    """Every claim verify proves for this spec at this player count (no games played)."""
    from .properties import Verifier

    v = Verifier(tables, budget=0.0, seed=0, max_games=0)
    findings, _ = v.run({"supplies", "score", "tiebreaks", "termination", "rulings", "conservation", "questions"})
    out: list[Claim] = []
    rankings = _ranking_sites(v)
    tiebreaks = [f for f in findings if f.property == "tiebreaks"]
    # p_tiebreaks reports the rankings in the order _ranking_sites lists them
    assert len(tiebreaks) == len(rankings), "verify's tie-break findings no longer follow its rankings"
    for f, site in zip(tiebreaks, rankings):
        if f.verdict == "proved":
            out.append(Claim("tiebreak_total", f"{site[1]}:{site[2]}", site, f.claim))
    for f in findings:
        if f.verdict != "proved":
            continue
        if f.property == "score":
            lo, hi = f.bounds["proved"]
            out.append(Claim("score_max", f.subject, hi, f.claim))
            out.append(Claim("score_min", f.subject, lo, f.claim))
        elif f.property == "supplies":
            if f.subject.startswith("draws from "):
                # the engine marks a short draw at its site: (file, line, column)
                sites = {s.node.span.site for s in v._sites(ir.Draw) if _pile_name(s.node) == f.subject[len("draws from "):]}
                for site in sorted(sites):
                    out.append(Claim("pile_never_short", f"line {site[1]}", site, f.claim))
            else:
                out.append(Claim("supply_never_short", f.subject, None, f.claim))
        elif f.property == "termination" and f.subject.startswith("loop cap at "):
            site = tuple(f.bounds["site"])
            out.append(Claim("cap_never_reached", f"line {site[1]}", site, f.claim))
        elif f.property == "termination":
            b = f.bounds or {}
            value = (b["rounds"], b["decisions"]) if "rounds" in b else None
            out.append(Claim("ends_within", "game", value, f.claim))
        elif f.property == "rulings":
            out.append(Claim("ruling_moot", f.subject, None, f.claim))
        elif f.property == "questions":
            kind = "question_never" if f.bounds["kind"] == "can" else "question_always"
            out.append(Claim(kind, f.subject, None, f.claim))
        elif f.property == "conservation" and f.subject == "supplies":  # "... no holding leaves its domain"
            for tok in tables.spec.tokens:
                if isinstance(tok.hold, ir.IntDomain):
                    out.append(Claim("holding_in_domain", tok.name, (tok.hold.lo, tok.hold.hi), f.claim))
    return out


def contradictions(claims: list[Claim], games) -> list[str]:
    """One message per (claim, first game that breaks it): the claim and the game's course."""
    out = []
    for c in claims:
        for g in games:
            why = _breaks(c, g)
            if why:
                out.append(f"{c.kind} {c.subject} ({c.text}) is false: {why}; game {g.show()}")
                break
    return out


def _breaks(c: Claim, g) -> str | None:
    if c.kind in ("score_max", "score_min"):
        if g.error is not None:
            return None
        vals = g.scores if c.subject == "total" else g.items[c.subject[len("item "):]]
        for i, x in enumerate(vals):
            if (c.kind == "score_max" and x > c.value) or (c.kind == "score_min" and x < c.value):
                return f"P{i + 1} ends with {x} for {c.subject}"
        return None
    if c.kind == "supply_never_short":
        hit = [site for kind, site in g.marks if kind == "short_supply" and site[0] == c.subject]
        return f"the supply of {c.subject} ran short at line {hit[0][1][0]}" if hit else None
    if c.kind == "pile_never_short":
        return f"the draw at {c.subject} found its pile short" if ("short_draw", c.value) in g.marks else None
    if c.kind == "tiebreak_total":
        return f"the ranking at {c.subject} left a tie to its fallback" \
            if ("tie_fallback", c.value) in g.marks else None
    if c.kind == "ends_within":
        if c.value is None:
            return None
        rounds, decisions = c.value
        if g.rounds > rounds:
            return f"the game played {g.rounds} rounds"
        if g.decisions > decisions:
            return f"the game took {g.decisions} decisions"
        return None
    if c.kind == "cap_never_reached":
        return f"the loop at {c.subject} reached its cap" if ("while_limit", c.value) in g.marks else None
    if c.kind == "holding_in_domain":
        lo, hi = c.value
        for i, x in enumerate(g.holdings.get(c.subject, ())):
            if not lo <= x <= hi:
                return f"P{i + 1} ends holding {x} {c.subject}, outside {lo}..{hi}"
        return None
    if c.kind in ("question_never", "question_always"):
        true, false = g.questions.get(c.subject, (False, False))
        if c.kind == "question_never" and true:
            return f"question {c.subject} is true in a state of this game"
        if c.kind == "question_always" and false:
            return f"question {c.subject} is false (or cannot be worked out) in a state of this game"
        return None
    if c.kind == "ruling_moot":
        return f"the game read ruling {c.subject}" if c.subject in g.rulings else None
    raise ValueError(f"unknown claim kind {c.kind}")


def _ranking_sites(v) -> list[tuple[str, int, int]]:
    """Each ranking's site as the engine marks it: (file, line, column)."""
    sites = [n.span.site for _, n in v._rankings()]
    if v.spec.winner is not None:
        sites.append(v.spec.winner.span.site)
    return sites


def _pile_name(d: ir.Draw) -> str:
    src = d.source
    return src.name if isinstance(src, ir.SharedZone | ir.Attr) else f"line {d.span.line}"
