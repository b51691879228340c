"""The properties soan derives for any spec, and their verdicts.

Verdicts are three-valued: *proved* (z3 or the engine's construction shows
it, under a stated abstraction), *witnessed* (a real game shows it; the log is
replayed before it is reported), *unknown* (neither within the budget: never
a pass).  A witnessed verdict is a *problem* when it shows something the spec
does not handle (a supply running short with no rule for it, a game that does
not end); otherwise it is information (a ruling's situation arises).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable

from soan.dsl import ir
from soan.dsl.analysis import examples_only_defs, parameter_uses, reachable, rule_roots
from soan.interpreter.runtime import Tables

from . import (climb as cooperative, crosscheck, distinct_keys, free_picks, item_plan, item_progress, item_witness,
               pile_floor, seat_plan, situations, solver, supplies)
from .background import Background
from .bounds import Bounds, Joined
from .findings import Finding
from .flow import opening_steps, setup_branches
from .search import (SearchResult, Witness, _absorb as _absorb_result, account_around, climb, confirm, directed_games,
                     loop_passes, more_games, observe, rounds_played, search)
from .termination import CallReach, CapProof, loop_scopes, prove_cap

SCHEMA_VERSION = 1
# steered games per push when the budget is seconds (with --games N: N / 40, at least 2)
DIRECTED_GAMES = 3
# a push's climb: `share` games' worth of steps per game of --games, a game counted as this many steps
# (decisions and chance events), so a spec of long games plays fewer of them and one of short games more
PUSH_STEPS_PER_GAME = 300
# the short climbs towards 'within 2x' of loose maxima: evaluations per game of --games for each,
# and steps per game of --games shared among them all (each replayed course is also observed: two
# climbs of 2 evaluations per game each cost 7 s on a shipped spec of 450-step games)
NEAR_EVALS_PER_GAME = 2
NEAR_STEPS_PER_GAME = 900
# the cooperative search for the total's proved maximum (verify/climb.py): engine steps per game of --games
COOPERATIVE_STEPS_PER_GAME = 1500
# the cooperative climbs aimed at single loose items (verify/climb.py, item_objective): how many
# items (those nearest the line of 'within 2x' first), engine steps per game of --games for each,
# and the beam's shape (narrow, no look-ahead: on a shipped spec of 450-step games a beam of 8
# spends its work before the game's end, and one of 4 lifts more: an item from 7 to 10 of 18)
ITEM_CLIMBS = 1
ITEM_STEPS_PER_GAME = 100
ITEM_SHAPE = (4, 6, 0, 0)
# where the rules say what an item counts (verify/item_progress.py), every loose item gets a climb
# steered by the seat's progress towards it, in a wider beam: an item scored only once cards are
# gathered over several rounds shows the narrow beam nothing to climb (docs/verify.md has the numbers)
PROGRESS_CLIMBS = True
PROGRESS_STEPS_PER_GAME = 80
PROGRESS_SHAPE = (8, 6, 0, 0)
# a climb towards a bound an item's best game already meets within 2x (aiming at tight) stops after
# this many games per game of --games in a row raise nothing (on the largest shipped spec such climbs
# spent 40% of the default run and their last gain came within 500 games)
TIGHT_PATIENCE_PER_GAME = 3
# ... and, sooner, after this many games per game of --games in a row that neither raise the item nor add
# anything the run keeps (a best or worst game of any item, a witness): a game such a climb plays may
# serve another item or property, so it goes on while its games still do (search.climb's `quiet`).  On
# the shipped specs at the default work such a climb's longest quiet stretch that still ended in a gain
# was 199 games (the climbed item itself rose after it, on one spec at 3 players); 1.5 a game would have
# cut it (benchmarks/README.md, branch s12-pittime)
TIGHT_QUIET_PER_GAME = 2
# the climbs aimed at loose items' own values and conditions (verify/item_witness.py): games per game
# of --games for each item and for all of them, and how many in a row may raise nothing
WITNESS_EVALS_PER_GAME = 3
WITNESS_TOTAL_PER_GAME = 10
WITNESS_PATIENCE_PER_GAME = 2
# the turn-planned games for items still loose after those climbs (verify/item_plan.py): engine steps per
# game of --games for each item and for all of them (on a shipped spec of 250-decision games a plan costs
# about 7,500 steps; 430-decision games do not fit one item's share, so none is planned there)
PLAN_EACH_PER_GAME = 100
PLAN_TOTAL_PER_GAME = 300
# then the wider plans (verify/item_plan.py: WIDE_TRIES courses of each round) for the items still loose:
# engine steps per game of --games for each item and for all of them (two such plans on that spec)
WIDE_EACH_PER_GAME = 350
WIDE_TOTAL_PER_GAME = 650
# where no game fits that share, or the games that fit cover fewer than half the loose items, games
# planned for one seat, the others cheaply (verify/seat_plan.py): engine steps per game of --games for
# each item and for all of them (about 5,000 a game on a shipped spec of 330-decision games, 6,000 on
# one of 440, a re-plan from a game's half-way round about half that: six to nine games, for the items
# fewest points short of 'within 2x'; at 100 and 200 the side dishes of one such spec stayed at 36 of
# the 39 that 'within 2x' of 78 needs, at 150 and 300 they reached 50; at 300 for all, that spec's
# plans at 4 players spent it on three items before synergy's turn, which stayed at 6: at 450, 17)
FOCUS_EACH_PER_GAME = 150
FOCUS_TOTAL_PER_GAME = 450
# the one-seat plans planned ahead after those (seat_plan._plan_ahead), all items together
AHEAD_TOTAL_PER_GAME = 200
PROPERTIES = ("supplies", "tiebreaks", "score", "termination", "conservation", "dead", "rulings", "questions")


class Verifier:
    def __init__(self, tables: Tables, budget: float, seed: int = 0, witness_dir: Path | None = None,
                 progress: Callable[[str], None] | None = None, max_games: int | None = None, jobs: int = 1):
        self.t = tables
        self.jobs = jobs  # processes for games that can be played apart (the same verdicts for any number)
        self.spec = tables.spec
        self.budget = budget
        self.seed = seed
        self.witness_dir = witness_dir
        self.progress = progress or (lambda msg: None)
        self.max_games = max_games
        self.uses = parameter_uses(self.spec, tables.n)  # a read under a seat not at the table is no read
        self._saved: dict[int, str] = {}
        self._rulings: dict | None = None
        self._ruling_pairs: dict = {}  # ruling -> its witness games (see _ruling_games)
        self.rulings_games = SearchResult()  # the rulings study's games, for checking proofs against
        self.token_proofs: dict = {}  # token -> what the bounds prove of its supply (supplies._token_proof)

    def run(self, only: set[str] | None = None) -> tuple[list[Finding], SearchResult]:
        # the rulings' paired study depends on nothing else here: with jobs, a process of its own from the start
        self._study = Background(self._rulings_study_games, enabled=self.jobs > 1 and (not only or "rulings" in only))
        self._plans = None
        try:
            return self._run(only)
        finally:
            for work in (self._study, self._plans):
                if work is not None:
                    work.close()

    def _run(self, only: set[str] | None) -> tuple[list[Finding], SearchResult]:
        self.progress("bounding the rules")
        # one bound per outcome of the setup's opening random picks (a removed suit, say)
        self.branches = setup_branches(self.t)
        self.bs = [Bounds(self.t, loc) for _, loc in self.branches]
        self.b = self.bs[0]
        self.progress("searching games for witnesses")
        self.started = time.perf_counter()
        # the supplies' turn-planned searches depend on the bounds alone, on no game the run plays: with jobs,
        # in a process of their own from here, their games taken (and observed in order) where check() wants
        # them, so the findings are the same for any number of jobs; started only where a token wants them
        # (the token proofs that say so are worked out here once, before the fork, for both processes)
        wanted = self.jobs > 1 and (not only or bool({"supplies", "rulings"} & set(only)))
        names = supplies.planning_tokens(self) if wanted else []
        self._plans = Background(lambda: supplies.planned_games(self, names), enabled=bool(names))
        self._planned: dict | None = None
        # 40% of the budget for seeded and targeted games; the rest climbs towards proved bounds
        self.s = search(self.t, self.budget * 0.4, self.seed, self.max_games,
                        progress=lambda g, sec: self.progress(f"searching: {g} games, {sec:.0f}s of {self.budget:.0f}s"),
                        jobs=self.jobs)
        by_name: dict[str, list[Finding]] = {}
        if not only or "score" in only:  # first: its climbs take what they need of the budget
            self.progress("checking score")
            by_name["score"] = self.p_score()
        left = self._time_left()
        if self.max_games is None and left > 0.5:  # what the climbs left: more seeded games
            more_games(self.t, self.s, left, self.seed,
                       progress=lambda g, sec: self.progress(f"searching: {g} games"), jobs=self.jobs)
        lemmas: list[Finding] = []
        for name in PROPERTIES:
            if (only and name not in only) or name in by_name:
                continue
            if name == "rulings" and "supplies" not in by_name and self._shortage_candidates():
                # a ruling read only when a supply or pile runs short is settled by the supplies verdicts (and
                # the games their search plays): with `--only rulings` they are worked out all the same, not shown
                self.progress("checking supplies (some rulings are read only when one runs short)")
                lemmas = self.p_supplies()
            self.progress(f"checking {name}")
            by_name[name] = getattr(self, "p_" + name)()
        self._shortage_rulings(by_name, lemmas)
        findings = [f for name in PROPERTIES for f in by_name.get(name, [])] + self._errors()
        crosscheck.check(findings + lemmas, self.s, self.witness_dir)
        crosscheck.check(findings + lemmas, self.rulings_games, self.witness_dir)
        return findings, self.s

    def _shortage_tokens(self, ruling: str) -> list:
        """The supplies whose shortage is the only read of `ruling` (none if it is read otherwise)."""
        from soan.dsl.analysis import _uses

        toks = [t for t in self.spec.tokens if t.when_short == "ruling" and t.short_ruling == ruling]
        read = set(self.uses.get(ruling, {"read_by": []})["read_by"])
        if (not toks or read != {f"token {t.name}" for t in toks}
                or any(ruling in _uses(t.supply)[0] for t in toks)):  # a supply's size is read at the start
            return []
        return toks

    def _short_piles(self, ruling: str) -> set[str]:
        """The piles behind whose short draws alone the rules read `ruling` (none if it is read otherwise)."""
        # situations.read_sites walks the rules' bodies whole; a read elsewhere (a token, a declaration, the
        # winner line, a card table) it does not
        if not self.uses.get(ruling, {"read_by": []})["read_by"] or pile_floor.read_elsewhere(self.spec, ruling):
            return set()
        return situations.short_draw_piles(self.spec, ruling)

    def _shortage_candidates(self) -> bool:
        return any(self._shortage_tokens(n) or self._short_piles(n) for n in self._ruling_names())

    def _shortage_rulings(self, by_name: dict, lemmas: list[Finding] = ()) -> None:
        """A ruling the engine reads only when a supply runs short cannot arise once that supply is proved
        never short; nor one the rules read only after a draw found its pile short, once no draw from
        that pile can (the crosscheck still holds both against every game played). `lemmas`: supplies
        verdicts worked out for this when the supplies property itself was not asked for."""
        supplies = {f.subject: f for f in [*by_name.get("supplies", []), *lemmas]}
        rulings = by_name.get("rulings", [])
        for i, f in enumerate(rulings):
            toks = self._shortage_tokens(f.subject) if f.verdict == "unknown" else []
            if not toks:
                continue
            if all(t.name in supplies and supplies[t.name].verdict == "proved" for t in toks):
                names = ", ".join(f"'{t.name}'" for t in toks)
                rulings[i] = Finding("rulings", f.subject, "proved", f"the situation of ruling '{f.subject}' cannot arise",
                                     f"it is read only when {names} runs short, and supplies proves that never happens"
                                     + self._lemma_note([t.name for t in toks], lemmas))
        for i, f in enumerate(rulings):
            # read only behind a test that a draw found its pile short (verify/situations.py)
            piles = self._short_piles(f.subject) if f.verdict == "unknown" else set()
            if piles and all(supplies.get(f"draws from {z}") is not None
                             and supplies[f"draws from {z}"].verdict == "proved" for z in piles):
                names = ", ".join(f"'{z}'" for z in sorted(piles))
                rulings[i] = Finding("rulings", f.subject, "proved", f"the situation of ruling '{f.subject}' cannot arise",
                                     f"it is read only when a draw from {names} has found too few cards, and supplies "
                                     f"proves a draw from it never finds it short"
                                     + self._lemma_note([f"draws from {z}" for z in piles], lemmas))

    @staticmethod
    def _lemma_note(subjects: list[str], lemmas: list[Finding]) -> str:
        shown = {f.subject for f in lemmas}
        return " (worked out for this run though not asked for: `--only supplies` shows it)" if set(subjects) & shown else ""

    def _errors(self) -> list[Finding]:
        """Seeded games that stopped with a rule error: each a problem, the other properties still reported."""
        out, seen = [], set()
        for seed, bots, e in self.s.errors:
            where = (e.span.path, e.span.line) if e.span is not None else None
            if where in seen:
                continue
            seen.add(where)
            line = f"line {e.span.line}" if e.span is not None else "an unknown line"
            out.append(Finding("errors", line, "witnessed", f"a game stops with an error at {line}",
                               f"{e.message} (replay it: soan run SPEC --players {self.t.n} --seed {seed} "
                               f"--bots {','.join(bots)})", problem=True))
        return out

    # ---- helpers

    def _witness(self, w: Witness, label: str) -> tuple[str | None, list[str]]:
        if not confirm(self.t, w):
            return None, []
        path = None
        if self.witness_dir is not None:
            key = id(w.record)
            if key not in self._saved:
                self.witness_dir.mkdir(parents=True, exist_ok=True)
                # one file per game: several findings may share a witness
                p = self.witness_dir / f"seed{w.record.log['seed']}.json"
                taken = set(self._saved.values())
                k = 2
                while str(p) in taken:  # another game of the run under the same seed (a constructed one)
                    p = self.witness_dir / f"seed{w.record.log['seed']}-{k}.json"
                    k += 1
                p.write_text(w.record.to_json_anywhere(), encoding="utf-8")
                self._saved[key] = str(p)
            path = self._saved[key]
        return path, account_around(self.t, w)

    def _sites(self, kind, b: Bounds | None = None):
        return [site for site in (b or self.b).sites if isinstance(site.node, kind)]

    def _abstraction(self) -> str:
        if len(self.branches) == 1:
            return "declared domains, where cards can go, and how often each rule can fire (z3)"
        return (f"declared domains, where cards can go, and how often each rule can fire (z3), "
                f"for each of the {len(self.branches)} outcomes of the setup's opening random picks")

    def _all_rulings(self) -> list[str]:
        return [r.name for r in self.spec.rulings]

    def _ruling_names(self) -> list[str]:
        """What the rulings property judges: the open rulings and the valued assumptions."""
        return self._all_rulings() + [a.name for a in self.spec.assumptions if a.domain is not None]

    def _play_depends(self, but: str) -> list[str]:
        """The rulings and assumptions a count over the whole play rests on (other than `but`): those the
        setup or the rounds read, and the card tables that lay the decks."""
        names = self._ruling_names()
        tables = {c.assumed for c in self.spec.card_sets if c.assumed}
        return sorted(n for n in names if n != but and (
            n in tables or {"setup", "rounds"} & set(self.uses.get(n, {"affects": []})["affects"])))

    # ---- 1. supplies (verify/supplies.py)

    def p_supplies(self) -> list[Finding]:
        return supplies.check(self)

    def planned_ahead(self) -> dict:
        """The supplies' turn-planned games played in another process (supplies.planned_games), or {}
        where none was started: token -> its games in the order played."""
        if self._planned is None:
            self._planned = self._plans.result(lambda: {})
        return self._planned

    def _push(self, what: str, value, goal: int, steer=None, start=None, share: float = 2,
              steer_chance: bool = False) -> None:
        """A directed search: games whose every decision is steered by `steer(state)`
        (see search.directed_games), then a climb from them, `start` (the game that went
        furthest) and the games seen towards a higher `value(record)` (stopping at `goal`
        in its first part), every game it plays observed like the others; `share` games'
        worth of climb steps per game of the budget; `steer_chance`: rolls and random picks steered too."""
        starts = list({id(w.record): w.record for table in (self.s.best, self.s.worst)
                       for _, w in table.values()}.values())
        if start is not None:
            starts.insert(0, start)
        if steer is not None:
            self.progress(f"steering games towards {what}")
            games = DIRECTED_GAMES if self.max_games is None else max(2, self.max_games // 40) if self.max_games else 0
            if games and self.out_of_time():  # the wall-clock limit, which says so
                games, self.s.cut_short = 0, True
            directed = directed_games(self.t, steer, self.seed, games, steer_chance=steer_chance,
                                      on_game=lambda rec: observe(self.s, rec, self.t))
            # while steered games keep going further, a few more (up to three times as many): a fixed rule, no clock
            peak = max((value(r)[0] for r in directed), default=None) if value is not None else None
            extra = 0
            while games and peak is not None and extra < 2 * games and (goal is None or peak < goal) \
                    and not self.out_of_time():
                more = directed_games(self.t, steer, self.seed, 1, first=games + extra, steer_chance=steer_chance,
                                      on_game=lambda rec: observe(self.s, rec, self.t))
                extra += 1
                directed += more
                got = max((value(r)[0] for r in more), default=None)
                if got is None or got <= peak:
                    break
                peak = got
            if value is not None and goal is not None and any(value(r)[0] >= goal for r in directed):
                return
            starts = directed + starts
        if not starts:
            return
        if self.max_games is not None:  # work in engine steps; the wall clock as the outer limit
            seconds = max(0.0, self.budget - (time.perf_counter() - self.started))
            evals, steps = None, int(self.max_games * share * PUSH_STEPS_PER_GAME)
        else:
            seconds, evals, steps = self._time_left() / 2, None, None
            if seconds < 0.2:
                return
        self.progress(f"pushing games towards {what}")
        climb(self.t, value, starts, self.seed, seconds, evals, goal=goal,
              on_game=lambda rec: observe(self.s, rec, self.t), max_steps=steps, jobs=self.jobs)

    # ---- 2. tie-breaks

    def _rankings(self):
        """Every ranking in the rules, with the def or procedure it lies in (None: the main rules)."""
        seen = set()
        roots = [(d.name, d.body) for d in self.spec.defs] + [(p.name, p.body) for p in self.spec.procedures]
        roots += [(None, x) for x in (self.spec.setup, self.spec.rounds, self.spec.scoring) if x is not None]
        for owner, root in roots:
            for n in ir.walk(root):
                if isinstance(n, ir.Ranking) and n.span.site not in seen:
                    seen.add(n.span.site)
                    yield owner, n

    def _unique_card_key(self, e: ir.Expr, var: str, owner: str | None) -> str | None:
        """A key that reads a field of the one card each player holds in a zone
        (`first(p.character).number`) separates players when (1) no two cards
        that can lie in that zone share the field's value, (2) the setup deals
        every player a card there, unconditionally, from a pile large enough,
        before anything that ranks, and (3) no rule takes cards out of it.
        Returns why it holds, or None."""
        defs = {d.name: d for d in self.spec.defs}
        if isinstance(e, ir.Call) and e.func in defs and len(e.args) == 1 and \
                isinstance(e.args[0], ir.Local) and e.args[0].name == var and len(defs[e.func].params) == 1:
            return self._unique_card_key(defs[e.func].body, defs[e.func].params[0], owner)
        match e:
            case ir.Attr(obj=ir.Call(func="first" | "last", args=(ir.Attr(obj=ir.Local(name=v), name=zone),)),
                         name=field) if v == var and zone in self.t.player_zone_names:
                pass
            case _:
                return None
        for b in self.bs:  # (1) in every branch of the setup
            cards = b.flow.cards_in(zone)
            if b.flow.distinct_values(cards, field) != len(cards):
                return None
            # (3) nothing leaves the zone
            if any(src is None or zone in src for src, _, _ in b.flow.moves):
                return None
        # (2) dealt in the setup's unconditional steps
        before: list = []
        for st in _unconditional(self.spec.setup):
            before.append(st)
            if isinstance(st, ir.For) and isinstance(st.coll, ir.AllPlayers):
                for d in _unconditional(st.body):
                    if isinstance(d, ir.Draw) and isinstance(d.count, ir.Int) and d.count.value >= 1 \
                            and isinstance(d.dest, ir.Attr) and d.dest.name == zone \
                            and isinstance(d.dest.obj, ir.Local) and d.dest.obj.name == st.var \
                            and isinstance(d.source, ir.SharedZone):
                        pile = d.source.name
                        start = sum(1 for slot in self.t.start_slot if self.t.zone_slots[slot][0].name == pile)
                        taken = any(isinstance(n, ir.SharedZone) and n.name == pile
                                    for x in before[:-1] if not isinstance(x, ir.Shuffle) for n in ir.walk(x))
                        if taken or start < self.t.n * d.count.value:
                            return None
                        if owner is not None and owner in _called(self.spec, before):
                            return None
                        return (f"each player holds one card of '{zone}' from the setup on (dealt from "
                                f"{pile}, {start} cards), nothing takes it away, and no two such cards "
                                f"share a {field}")
        return None

    def _cap_out_of_reach(self, node: ir.While) -> bool:
        """Whether verify/termination.py proves the loop ends before its cap (its test false)."""
        scopes = loop_scopes(self.spec)
        if node.span.site not in scopes:
            return False
        if not hasattr(self, "_reaches"):
            self._reaches = [CallReach(b.flow, loc) for b, (_, loc) in zip(self.bs, self.branches)]
        return isinstance(prove_cap(self.bs, node, scopes[node.span.site][1], self._reaches), CapProof)

    def p_tiebreaks(self) -> list[Finding]:
        out = []
        items = [(n.kind, n.var, n.keys, n.fallback, n.span, n.coll, owner, n) for owner, n in self._rankings()]
        if self.spec.winner is not None:
            w = self.spec.winner
            items.append(("winner", w.var, w.keys, w.fallback, w.span, w.coll, None, w))
        for kind, var, keys, fallback, span, coll, owner, node in items:
            subject = f"{kind} at line {span.line}"
            claim = f"the {subject} always separates its candidates"
            # seat and distance tell players apart only when no player is a candidate twice
            distinct = self.b._distinct_players(coll)
            injective = next((k for k in keys if _injective(k.expr, var, coll, distinct)), None)
            w = self.s.marks.get(("tie_fallback", span.site))
            unique = None if injective is not None else \
                next((why for k in keys if (why := self._unique_card_key(k.expr, var, owner))), None)
            if injective is None and unique is None:  # verify/distinct_keys.py
                unique = distinct_keys.separated(self.spec, node, owner, distinct)
            if injective is None and unique is None:  # verify/free_picks.py
                unique = free_picks.separated(self.spec, node, distinct, self._cap_out_of_reach,
                                              lambda e, v: self._unique_card_key(e, v, None))
            if injective is not None or unique is not None:
                out.append(Finding("tiebreaks", subject, "proved", claim,
                                   unique or "a key is different for every candidate (seat, distance or position)",
                                   bounds={"site": list(span.site)}))
            elif w is not None:
                path, moves = self._witness(w, f"tie-line{span.line}")
                out.append(Finding("tiebreaks", subject, "witnessed", f"the {subject} can leave a tie",
                                   f"every key tied; the spec's fallback decides: {fallback}", problem=False,
                                   witness=path, moves=moves, depends_on=sorted(w.record.log["consulted_rulings"])))
            else:
                out.append(Finding("tiebreaks", subject, "unknown", claim,
                                   f"no key is known to separate every candidate; no tie in {self.s.games} games "
                                   f"(fallback: {fallback})"))
        return out

    # ---- 3. score range

    def p_score(self) -> list[Finding]:
        depends = sorted(r for r in self._all_rulings() if "scoring" in self.uses[r]["affects"])
        per_branch = [self._item_bounds(b) for b in self.bs]
        items = [item.name for item in self.spec.scores]
        item_bounds = {}
        for k, name in enumerate(items):
            los = [pb[k][0] for pb in per_branch]
            his = [pb[k][1] for pb in per_branch]
            item_bounds[name] = (_worst(los, min), _worst(his, max))
        totals = [b.score_bounds()["total"] for b in self.bs]
        tot_lo, tot_hi = _worst([t[0] for t in totals], min), _worst([t[1] for t in totals], max)
        # the climbs aim at the items' maxima summed, as before the total was read over one sharing of the
        # placements (verify/budget.py): a short climb to half that tighter bound played 20-30% more CPU on
        # a shipped spec and found no better game (docs/verify.md, the total over one sharing)
        self._close_gaps(tot_lo, _worst([b.total_apart() for b in self.bs], max), item_bounds)
        out = [self._range_finding("total", tot_lo, tot_hi, self.s.worst.get("total"), self.s.best.get("total"),
                                   depends)]
        for name in items:
            lo, hi = item_bounds[name]
            out.append(self._range_finding(f"item {name}", lo, hi, self.s.worst.get(f"item:{name}"),
                                           self.s.best.get(f"item:{name}"), depends))
        return out

    def _item_bounds(self, b: Bounds) -> list[tuple[solver.Bound, solver.Bound]]:
        return [b.score_bounds()[item.name] for item in self.spec.scores]

    def _close_gaps(self, tot_lo, tot_hi, item_bounds) -> None:
        """Where the best game seen falls short of a proved bound, climb
        towards the bound from the best games seen (a constructed witness).
        A loose maximum whose best game is past half-way to half the bound
        gets a short climb to that half: a game there makes it 'within 2x'."""
        gaps = []  # (key, sign, goal): the total's maximum first, as it is what designers ask
        if tot_hi.status == "proved":
            gaps.append(("total", 1, tot_hi.value))
        for name, (lo, hi) in item_bounds.items():
            if hi.status == "proved":
                gaps.append((f"item:{name}", 1, hi.value))
            if lo.status == "proved":
                gaps.append((f"item:{name}", -1, lo.value))
        if tot_lo.status == "proved":
            gaps.append(("total", -1, tot_lo.value))
        near = [(key, sign, -(-goal // 2), True) for key, sign, goal in gaps
                if _near_two_x(self._seen(key, sign), sign, goal)]
        gaps = [(*g, False) for g in gaps if _within_reach(self._seen(g[0], g[1]), g[1], g[2])] + near
        for k, (key, sign, goal, short) in enumerate(gaps):
            if self.max_games is not None:  # a number of evaluations; the wall clock only as the outer limit
                seconds = max(0.0, self.budget - (time.perf_counter() - self.started))
                evals = self.max_games * (NEAR_EVALS_PER_GAME if short else 10)
                # the short climbs share one budget of steps: long games and many loose items, fewer each
                steps = self.max_games * NEAR_STEPS_PER_GAME // len(near) if short else None
            else:
                left = self._time_left()
                share = left / 2 if k == 0 and len(gaps) > 1 else left / (len(gaps) - k)
                if share < 0.2:
                    continue
                seconds, evals, steps = share, None, None
            self.progress(f"climbing towards the proved {'maximum' if sign > 0 else 'minimum'} of {key}")
            value = _score_value(key, sign, self.t.n)
            starts = list({id(w.record): w.record for table in (self.s.best, self.s.worst)
                           for _, w in table.values()}.values())
            patience = self.max_games * TIGHT_PATIENCE_PER_GAME if self.max_games and key != "total" else None
            quiet = self.max_games * TIGHT_QUIET_PER_GAME if patience is not None and not short else None
            found = climb(self.t, value, starts, self.seed, seconds, evals, goal=sign * goal,
                          on_game=lambda rec: observe(self.s, rec, self.t), max_steps=steps, jobs=self.jobs,
                          patience=patience, quiet=quiet)
            if self.max_games is not None and self.out_of_time():
                self.s.cut_short = True
            if found is not None:
                v, rec = found
                if self._seen(key, sign) is None or v > sign * self._seen(key, sign):
                    _absorb_result(self.s, rec, self.t)
            if key == "total" and sign > 0 and self.max_games and self._seen(key, sign) < goal:
                self._cooperative(key, sign, goal)
        if self.max_games:
            # the cooperative climbs first: where their beam plays whole games they aim at the bound itself
            self._item_climbs(item_bounds)
            self._witness_items(item_bounds)
            self._plan_items(item_bounds)

    def _witness_items(self, item_bounds) -> None:
        """Loose items: a climb each on the item's own value and conditions (verify/item_witness.py)."""
        loose = []
        for name, (lo, hi) in item_bounds.items():
            if lo.status != "proved" or hi.status != "proved" or self._fit_of(f"item:{name}", item_bounds) != "loose":
                continue
            sign, bound = (1, hi.value) if hi.value > 0 else (-1, lo.value)
            loose.append((name, sign, bound))
        if not loose:
            return
        self.progress("climbing towards loose score items")

        def best_games(name, sign):
            return [w.record for key in (f"item:{name}", "total")
                    for table in ((self.s.best,) if sign > 0 else (self.s.worst, self.s.best))
                    for _, w in [table[key]] if key in table]
        g = self.max_games
        found = item_witness.climb_loose(self.t, loose, best_games, lambda name, sign: self._seen(f"item:{name}", sign),
                                         self.seed, g * WITNESS_EVALS_PER_GAME, g * WITNESS_TOTAL_PER_GAME,
                                         g * WITNESS_PATIENCE_PER_GAME, lambda rec: observe(self.s, rec, self.t), climb,
                                         jobs=self.jobs, stop=self.out_of_time)
        if self.out_of_time():
            self.s.cut_short = True
        for _, _, rec in found:
            _absorb_result(self.s, rec, self.t)

    def _plan_items(self, item_bounds) -> None:
        """Items still loose after the climbs: a game planned turn by turn for each (verify/item_plan.py),
        or for one seat (verify/seat_plan.py), which also aims at a loose penalty's minimum."""
        loose = [(name, 1, hi.value) for name, (lo, hi) in item_bounds.items()
                 if lo.status == hi.status == "proved" and hi.value > 0
                 and self._fit_of(f"item:{name}", item_bounds) == "loose"]
        # a penalty (never above 0) is loose at its minimum: where the maxima are planned for one seat, so is
        # a penalty still loose after the climbs, last (the games before are as they were)
        penalties = [(name, -1, lo.value) for name, (lo, hi) in item_bounds.items()
                     if lo.status == hi.status == "proved" and hi.value <= 0 and lo.value < 0
                     and self._fit_of(f"item:{name}", item_bounds) == "loose"]
        lengths = [len(w.record.log["steps"]) for table in (self.s.best, self.s.worst) for _, w in table.values()]
        shortest = min(lengths, default=0)
        if not (loose or penalties) or not shortest:
            return
        self.progress("planning games turn by turn towards loose score items")
        g = self.max_games
        found = []
        # every seat planned while a game fits one item's share and the games, as long as the longest seen,
        # cover at least half the loose items; past that (long games, many items), one seat planned for
        # about half the steps
        if not self._one_seat_plans(len(loose)):
            penalties = []  # the every-seat plans aim at maxima only
            if loose:
                found = item_plan.plan_loose(self.t, loose, lambda name, sign: self._seen(f"item:{name}", sign),
                                             self.seed, g * PLAN_TOTAL_PER_GAME, g * PLAN_EACH_PER_GAME, shortest,
                                             lambda rec: observe(self.s, rec, self.t),
                                             stop=self.out_of_time,
                                             wide_steps=g * WIDE_TOTAL_PER_GAME, wide_each=g * WIDE_EACH_PER_GAME)
            loose = []
        if loose or penalties:
            signs = {name: sign for name, sign, _ in loose + penalties}

            def best_game(name):
                table = self.s.best if signs[name] > 0 else self.s.worst
                return table[f"item:{name}"][1].record if f"item:{name}" in table else None
            found += seat_plan.plan_focused(self.t, loose + penalties,
                                            lambda name, sign: self._seen(f"item:{name}", sign),
                                            self.seed, g * FOCUS_TOTAL_PER_GAME, g * FOCUS_EACH_PER_GAME, shortest,
                                            lambda rec: observe(self.s, rec, self.t),
                                            stop=self.out_of_time,
                                            best_game=best_game, ahead_steps=g * AHEAD_TOTAL_PER_GAME)
        if self.out_of_time():
            self.s.cut_short = True
        for _, _, rec in found:
            _absorb_result(self.s, rec, self.t)

    def _one_seat_plans(self, n_loose: int) -> bool:
        """Whether loose items get games planned for one seat (verify/seat_plan.py) rather than for every
        seat (verify/item_plan.py): where a game does not fit one item's share, or where the games, as
        long as the longest seen, cover fewer than half the `n_loose` loose maxima."""
        lengths = [len(w.record.log["steps"]) for table in (self.s.best, self.s.worst) for _, w in table.values()]
        if not lengths or not min(lengths):  # no game to plan from
            return False
        g = self.max_games
        return not (min(lengths) * item_plan.STEPS_PER_DECISION <= g * PLAN_EACH_PER_GAME
                    and (g * PLAN_TOTAL_PER_GAME // (max(lengths) * item_plan.STEPS_PER_DECISION)) * 2 >= n_loose)

    def out_of_time(self) -> bool:
        """Whether the wall-clock outer limit (`budget` seconds from the search's start) has passed: only ever
        an outer limit, where the work budget did not stop the run first; the output then says it was cut."""
        return time.perf_counter() - self.started >= self.budget

    def _fit_of(self, key: str, item_bounds) -> str | None:
        """An item's fit as the games seen so far stand (None for the total or an unproved range)."""
        lo, hi = item_bounds.get(key[5:], (None, None)) if key.startswith("item:") else (None, None)
        if lo is None or lo.status != "proved" or hi.status != "proved":
            return None
        return _fit(lo.value, hi.value, self._seen(key, -1), self._seen(key, 1))

    def _item_climbs(self, item_bounds) -> None:
        """Items still loose after the climbs: the games played seldom push that item (every
        seat plays for the total, or at random), so the best seen is low for want of trying.
        A cooperative search aimed at the item alone (every seat feeds one player's item,
        chance chosen) raises it, for the few items nearest to 'within 2x' of their bound."""
        loose = []
        for name, (lo, hi) in item_bounds.items():
            if lo.status != "proved" or hi.status != "proved":
                continue
            key = f"item:{name}"
            if self._fit_of(key, item_bounds) != "loose":
                continue
            sign, goal = (1, hi.value) if hi.value > 0 else (-1, lo.value)  # a penalty: its minimum
            seen = sign * self._seen(key, sign)
            if sign * goal <= 0 or seen >= sign * goal:  # nothing to climb (or a proof a game contradicts)
                continue
            # a penalty's worst comes from poor play, which the seeded games already make: items
            # a seat gains from first
            loose.append((sign < 0, -seen / (sign * goal), name, sign, goal))
        # first every loose item whose counting the rules show, steered by the seat's progress; then, as
        # before, the nearest unsteered climb for the items nearest to 'within 2x', unless a game made them tight.
        # A beam that cannot play one whole game within its work finishes it at random, no better than the
        # seeded games: on a spec of long games (hundreds of steps) no steered climb runs
        shortest = min((len(w.record.log["steps"]) for table in (self.s.best, self.s.worst)
                        for _, w in table.values()), default=0)
        fits = PROGRESS_SHAPE[0] * PROGRESS_SHAPE[1] * shortest <= self.max_games * PROGRESS_STEPS_PER_GAME
        steered = [(x, item_progress.progress_of(self.t, x[2])) for x in sorted(loose)
                   if PROGRESS_CLIMBS and fits and x[3] > 0]
        plain = [(x, None) for x in sorted(loose)[:ITEM_CLIMBS]]
        # a steered climb that raises no loose item's best game ends the steered climbs: where the beam's
        # work runs out long before a game's end, the seeded games already do better
        fruitless = False
        for (_, _, name, sign, goal), guide in [x for x in steered if x[1] is not None] + plain:
            key = f"item:{name}"
            fit = self._fit_of(key, item_bounds)
            if fit == "tight" or (guide is not None and (fit != "loose" or fruitless)):
                continue
            before = [self._seen(f"item:{x[2]}", x[3]) for x in loose]
            self.progress(f"searching for a game in which every seat plays for one's {name}")
            # a steered climb stops once its game is within 2x of the bound, leaving the work to the next item
            found = cooperative.reach(self.t, key, sign, sign * goal if guide is None else -(-goal // 2), self.seed,
                                      self.max_games * (ITEM_STEPS_PER_GAME if guide is None else
                                                        PROGRESS_STEPS_PER_GAME),
                                      on_game=lambda rec: observe(self.s, rec, self.t),
                                      stop=self.out_of_time,
                                      objective=cooperative.item_objective(name, sign, self.t.n, guide),
                                      shape=ITEM_SHAPE if guide is None else PROGRESS_SHAPE, choose_chance=False)
            if self.out_of_time():
                self.s.cut_short = True
            if found is not None and found[0] > sign * self._seen(key, sign):
                _absorb_result(self.s, found[1], self.t)
            if guide is not None:
                fruitless = before == [self._seen(f"item:{x[2]}", x[3]) for x in loose]

    def _cooperative(self, key: str, sign: int, goal: int) -> None:
        """Where the climb stops short of the total's proved maximum: a search in which
        every seat plays for one and chance outcomes are chosen (verify/climb.py), since
        reaching a score is a question of reachability, not strategy.  It runs after the
        climb, so it only adds to what the climb found."""
        self.progress("searching for a game in which every seat plays for one to reach the proved maximum")
        found = cooperative.reach(self.t, key, sign, goal, self.seed, self.max_games * COOPERATIVE_STEPS_PER_GAME,
                                  on_game=lambda rec: observe(self.s, rec, self.t),
                                  stop=self.out_of_time)
        if self.out_of_time():
            self.s.cut_short = True
        if found is not None and found[0] > sign * self._seen(key, sign):
            _absorb_result(self.s, found[1], self.t)

    def _time_left(self) -> float:
        """Seconds of the budget not yet spent, less the share kept for the designer's questions (checked last)."""
        reserve = self.budget * 0.15 if self.spec.questions else 0.0
        return max(0.0, self.budget - reserve - (time.perf_counter() - self.started))

    def _seen(self, key, sign):
        x = (self.s.best if sign > 0 else self.s.worst).get(key)
        return None if x is None else x[0]

    def _range_finding(self, subject, lo, hi, seen_lo, seen_hi, depends) -> Finding:
        bounds = {"proved": [lo.value, hi.value], "witnessed": [seen_lo[0] if seen_lo else None,
                                                                 seen_hi[0] if seen_hi else None]}
        path, moves = (None, [])
        if seen_hi is not None:
            path, moves = self._witness(seen_hi[1], f"best-{subject}")
        if lo.status == hi.status == "proved":
            gap = None if seen_hi is None else hi.value - seen_hi[0]
            bounds["fit"] = fit = _fit(lo.value, hi.value, None if seen_lo is None else seen_lo[0],
                                       None if seen_hi is None else seen_hi[0])
            detail = (f"proved {lo.value}..{hi.value} ({self._abstraction()}); "
                      f"witnessed {bounds['witnessed'][0]}..{bounds['witnessed'][1]}"
                      + ("" if gap is None else f"; gap to the proved maximum: {gap}")
                      + f"; {FIT_WORDS[fit]}")
            if fit == "loose" and subject.startswith("item "):
                why = self.b.loosest_awards(subject[len("item "):])
                if why:
                    detail += "; what keeps it loose: " + "; ".join(why)
            return Finding("score", subject, "proved", f"a player's {subject} score lies in {lo.value}..{hi.value}",
                           detail, bounds=bounds, witness=path, moves=[], depends_on=depends)
        return Finding("score", subject, "unknown", f"a player's {subject} score is bounded",
                       f"{hi.reason or lo.reason}; witnessed {bounds['witnessed'][0]}..{bounds['witnessed'][1]}",
                       bounds=bounds, witness=path, depends_on=depends)

    # ---- 4. termination

    def p_termination(self) -> list[Finding]:
        caps = self._loop_caps()
        return self._game_ends(caps) + caps

    def _game_ends(self, caps: list[Finding]) -> list[Finding]:
        r = self.spec.rounds
        if r is None:
            return [Finding("termination", "game", "proved", "the game ends", "it has no rounds")]
        # the most decisions over every outcome of the setup's opening random picks
        per_branch = [[site.firings for site in self._sites(ir.Choose, b)] for b in self.bs]
        bound = None if any(f is None for d in per_branch for f in d) else max(sum(d) for d in per_branch)
        # a loop cap not proved out of reach is an assumption that may be what ends play
        assumed = [f.subject.removeprefix("loop cap at ") for f in caps if f.verdict != "proved"]
        by_caps = ((f"; the loop cap at {assumed[0]} is" if len(assumed) == 1 else
                    f"; the loop caps at {', '.join(assumed)} are") +
                   " counted as a rule, though a cap is an assumption (see its finding)") if assumed else \
            "; every loop cap is proved out of reach" if caps else ""
        if r.count is not None:
            n = self.b.round_bound
            detail = f"{n} rounds, and every loop has a bound" + by_caps
            if bound is None:
                return [Finding("termination", "game", "unknown", f"the game ends after {n} rounds",
                                "a rule may repeat without a known bound (recursion?)")]
            return [Finding("termination", "game", "proved", f"the game ends after {n} rounds, within {bound} decisions",
                            detail, bounds={"rounds": n, "decisions": bound, "caps_assumed": assumed})]
        cap = self.b.round_bound
        w = self._round_cap_witness()
        longest = self.s.longest.get("rounds")
        if w is None and cap is not None and longest is not None and 2 * longest[0] >= cap:
            # push games towards playing every round the cap allows, when one already went half-way there
            self._push(f"the round cap ({cap})", rounds_played, goal=cap + 1, start=longest[1].record, share=4)
            w = self._round_cap_witness()
        if w is None and cap is not None:
            w = self._steer_to_round_cap(cap)
        if w is not None:
            path, moves = self._witness(w, "round-cap")
            return [Finding("termination", "game", "witnessed", "a game can go on without end",
                            f"it reached the spec's declared cap of {cap} rounds (an assumption, not a rule)",
                            problem=True, bounds={"cap": cap}, witness=path, moves=moves,
                            depends_on=sorted(w.record.log["consulted_rulings"]))]
        longest = self.s.longest.get("rounds", (0, None))[0]
        return [Finding("termination", "game", "unknown", "every game ends before the cap",
                        f"the end condition is not proved; the cap of {cap} rounds was never reached in "
                        f"{self.s.games} games (the longest played {longest} rounds)", bounds={"cap": cap})]

    def _round_cap_witness(self) -> Witness | None:
        return next((w for (k, _), w in self.s.marks.items() if k == "round_cap"), None)

    def _steer_to_round_cap(self, cap: int) -> Witness | None:
        """Games in which every seat steers away from every ending the rules have (each decision
        looks two steps ahead, among at most six moves): a game that still goes on when the cap
        stops it is the witness.  Work is a fixed number of games (fewer once one reached it)."""
        from .search import game_goes_on
        games = 2 if self.max_games is None else (1 if self.max_games else 0)
        if games and self.out_of_time():  # the wall-clock limit, which says so
            games, self.s.cut_short = 0, True
        if not games:
            return None
        self.progress(f"steering games away from their end, towards the round cap ({cap})")
        directed_games(self.t, game_goes_on, self.seed, games, depth=2, max_moves=6, explore=0.0, avoid=True,
                       on_game=lambda rec: observe(self.s, rec, self.t),
                       until=lambda: self._round_cap_witness() is not None)
        return self._round_cap_witness()

    def _loop_caps(self) -> list[Finding]:
        """A `while ... max N` cap is an assumption that ends play the rules did not end:
        reaching it is a problem, and until that is ruled out it is not a pass.  A measure
        read from the loop's condition (verify/termination.py) proves it out of reach; failing
        that, a directed search pushes one run of the loop towards the cap."""
        out = []
        loops = {n.span.site: n for root in rule_roots(self.spec) for n in ir.walk(root) if isinstance(n, ir.While)}
        scopes = loop_scopes(self.spec)
        for site, node in sorted(loops.items()):
            line = node.span.line
            subject = f"loop cap at line {line}"
            if self.b.truth(node.test) is False:
                out.append(Finding("termination", subject, "proved", f"the loop at line {line} never runs",
                                   "its condition is false whenever it is reached", bounds={"site": list(site)}))
                continue
            if not hasattr(self, "_reaches"):  # where cards can go, each procedure call with its own arguments
                self._reaches = [CallReach(b.flow, loc) for b, (_, loc) in zip(self.bs, self.branches)]
            proof = prove_cap(self.bs, node, scopes[site][1], self._reaches) if site in scopes else \
                "the loop is not in the rules"
            if isinstance(proof, CapProof):
                out.append(Finding("termination", subject, "proved",
                                   f"the loop at line {line} always ends before its cap",
                                   f"{proof.why}: at most {proof.passes} passes, and the cap is {proof.cap}"
                                   + self._abstraction_note(),
                                   bounds={"site": list(site), "passes": proof.passes, "cap": proof.cap}))
                continue
            w = self.s.marks.get(("while_limit", site))
            cap = self.b.int_max(node.limit)
            peak = self.s.loop_peak.get(site)
            if w is None and cap is not None and peak is not None and 2 * peak[0] >= cap:
                # push one run of the loop towards its cap, when play already went half-way there
                self._push(f"passes of the loop at line {line}", loop_passes(site), goal=cap + 1,
                           start=peak[1].record, share=0.5)
                w = self.s.marks.get(("while_limit", site))
            if w is not None:
                path, moves = self._witness(w, f"loop-cap-line{line}")
                out.append(Finding("termination", subject, "witnessed", f"the loop at line {line} can reach "
                                   f"its cap", "play went on until the cap stopped it (an assumption, not a rule)",
                                   problem=True, witness=path, moves=moves,
                                   depends_on=sorted(w.record.log["consulted_rulings"])))
                continue
            most = self.s.loop_peak.get(site, (0, None))[0]
            out.append(Finding("termination", subject, "unknown",
                               f"the loop at line {line} always ends before its cap",
                               f"not proved: {proof}; the cap was never reached in {self.s.games} games "
                               f"(one run made at most {most} passes)", bounds={"site": list(site)}))
        return out

    def _abstraction_note(self) -> str:
        if len(self.branches) == 1:
            return " (where cards can go, from the declared card sets)"
        return f" (where cards can go, for each of the {len(self.branches)} outcomes of the setup's opening random picks)"

    # ---- the designer's own invariants and questions

    def p_questions(self) -> list[Finding]:
        if not self.spec.questions:
            return []
        from .questions import check_questions

        recs = {id(w.record): w.record for w in [*self.s.marks.values(), *self.s.consulted.values(),
                                                 *(v[1] for v in self.s.best.values()),
                                                 *(v[1] for v in self.s.worst.values())]}
        spent = time.perf_counter() - self.started
        left = max(self.budget * 0.15, self.budget - spent) if self.max_games is None else \
            max(0.0, self.budget - spent) + 1.0  # the wall-clock limit, with a second for the proofs
        out = check_questions(self.t, self.spec.questions, list(recs.values()), left,
                              seed=self.seed, max_games=self.max_games, witness_dir=self.witness_dir,
                              bounds=Joined(self.bs), progress=self.progress)
        if self.max_games is not None and self.out_of_time():
            self.s.cut_short = True
        return out

    # ---- 5. conservation

    def p_conservation(self) -> list[Finding]:
        checked = f"and checked at every step of {min(self.s.games, 20)} games ({self.s.invariant_steps} states)"
        return [
            Finding("conservation", "cards", "proved", "every card is in exactly one zone",
                    f"by the engine's construction: cards only move, never copy or vanish, {checked}"),
            Finding("conservation", "supplies", "proved", "no supply goes below zero, no holding leaves its domain",
                    f"by the engine's construction: a give takes at most what is left and every holding is "
                    f"domain-checked, {checked}"),
        ]

    # ---- 6. dead parts

    def p_dead(self) -> list[Finding]:
        spec = self.spec
        text_nodes = list(_all_rule_nodes(spec))
        attrs_read = {n.name for n in text_nodes if isinstance(n, ir.Attr)}
        zones_read = {n.name for n in text_nodes if isinstance(n, ir.SharedZone)} | attrs_read
        params_read = {n.name for n in text_nodes if isinstance(n, ir.Param)}
        params_read |= {t.short_ruling for t in spec.tokens if t.short_ruling}
        params_read |= {c.assumed for c in spec.card_sets if c.assumed}
        # a procedure or def counts as used only if the game can reach it (one that only calls itself is dead)
        used_defs, called = reachable(spec)
        awarded = {n.item for n in text_nodes if isinstance(n, ir.Award)}
        symbols = {n.name for n in text_nodes if isinstance(n, ir.Symbol)}
        domains = [f.domain for c in spec.components for f in c.fields] + [v.domain for v in spec.vars]
        domains += [r.domain for r in spec.rulings] + [a.domain for a in spec.assumptions] + [t.hold for t in spec.tokens]
        enum_domains = {d.name for d in domains if isinstance(d, ir.EnumDomain)}  # an enum used as a domain is used
        rolled = any(isinstance(n, ir.Roll) for n in text_nodes)  # a roll reads the die's 'faces'
        fields_read = attrs_read | ({"faces"} if rolled else set())
        checks = [  # (what, declared names, the names rules use, what is wrong)
            ("component", [c.name for c in spec.components], {c.kind for c in spec.card_sets}, "has no cards"),
            ("field", [f"{c.name}.{f.name}" for c in spec.components for f in c.fields],
             {f"{c.name}.{f.name}" for c in spec.components for f in c.fields if f.name in fields_read},
             "is never read"),
            ("zone", [z.name for z in spec.zones], zones_read | {cs.zone for cs in spec.card_sets}, "is never used"),
            ("score item", [s.name for s in spec.scores], awarded, "is never awarded"),
            ("procedure", [p.name for p in spec.procedures], called, "is never run"),
            ("def", [d.name for d in spec.defs], used_defs, "is never used"),
            ("option", [o.name for o in spec.options], params_read, "is never read"),
            ("ruling", [r.name for r in spec.rulings], params_read, "is never read: it decides nothing"),
            ("assumption", [a.name for a in spec.assumptions if a.value is not None], params_read, "is never read"),
            ("enum", [e.name for e in spec.enums],
             {e.name for e in spec.enums if e.name in symbols or e.name in enum_domains
              or any(v in symbols for v in e.values)}, "is never used"),
        ]
        found = [(kind, name, why) for kind, names, used, why in checks for name in names if name not in used]
        # a def only the worked examples call is a helper of the examples, not a forgotten rule: say so
        for_examples = examples_only_defs(spec, used_defs)
        found = [(k, n, "is used only by the examples (the game itself never reads it)" if k == "def" and n in for_examples
                  else why) for k, n, why in found]
        if not found:
            return [Finding("dead", "spec", "proved", "every declared part is used by some rule",
                            "components, fields, zones, score items, procedures, defs, options and rulings")]
        return [Finding("dead", f"{kind} {name}", "witnessed", f"{kind} '{name}' {why}",
                        "nothing in the rules refers to it", problem=False) for kind, name, why in found]

    # ---- 7. open rulings

    def p_rulings(self) -> list[Finding]:
        """Each open ruling and valued assumption, judged on the paired study `soan rulings` makes
        (soan/impact.py) on this run's seed and game count: the two commands never disagree."""
        from soan.dsl.errors import SpecRuntimeError

        names = self._ruling_names()
        try:
            study = self.rulings_study()
        except SpecRuntimeError as e:  # a game stops with a rule error: a finding of its own (errors)
            where = f" at line {e.span.line}" if e.span is not None else ""
            return [self._unmeasured_finding(name, f"the paired study stopped: a game stops with an error{where} "
                                                   f"({e.message})") for name in names]
        by_name = {r["name"]: r for r in study["ranked"] + study["moot"]}
        return [self._ruling_finding(by_name[name], study) for name in names]

    def _unmeasured_finding(self, name: str, why: str) -> Finding:
        what = "ruling" if name in self._all_rulings() else "assumption"
        read = self.uses.get(name, {"read_by": []})["read_by"]
        if not read:
            return Finding("rulings", name, "proved", f"the situation of {what} '{name}' cannot arise",
                           self._moot_why(name))
        w = self.s.consulted.get(name) or self._steered_ruling(name)
        if w is None and (never := pile_floor.unread(self, name)) is not None:
            return Finding("rulings", name, "proved", f"the situation of {what} '{name}' cannot arise", never,
                           depends_on=self._play_depends(name))
        if w is None:
            return Finding("rulings", name, "unknown", f"the situation of {what} '{name}' can arise",
                           f"read by {', '.join(read)}; not reached in {self.s.games} games; {why}")
        path, moves = self._witness(w, f"ruling-{name}")
        return Finding("rulings", name, "witnessed", f"the situation of {what} '{name}' arises",
                       f"a search game read it; what it changes is not measured: {why}", witness=path, moves=moves,
                       depends_on=[name])

    def _steered_ruling(self, name: str) -> Witness | None:
        """The shortest game that reads ruling `name` among a few steered towards the tests around its
        reads (verify/situations.py), each observed like a search game; None if none reads it."""
        steer = situations.ruling_steer(self.t, name)
        if steer is None:
            return None
        self.progress(f"rulings: games steered towards reading {name}")
        for rec in situations.steered_games(self.t, steer, self.seed,
                                            found=lambda rec: name in rec.log["consulted_rulings"]):
            observe(self.s, rec, self.t)
        return self.s.consulted.get(name)

    def _moot_why(self, name: str) -> str:
        from soan.impact import moot_reason

        anywhere = parameter_uses(self.spec).get(name, {"read_by": []})["read_by"]
        return f"{moot_reason(anywhere, [], self.t.n)}: it is moot"

    def rulings_study(self) -> dict:
        """The paired study of `soan rulings SPEC --players N --games G --seed S` (random bots, its default
        step budget); its games at the spec's resolutions are checked against every proof like the search's."""
        if self._rulings is None:
            def progress(what: str, k: int, total: int) -> None:
                self.progress(f"rulings: {what} {k}/{total}")

            self.progress("rulings: the paired study")
            self._rulings, games, self._ruling_pairs = self._study.result(lambda: self._rulings_study_games(progress))
            for rec in games:
                rec.state.t = self.t  # a record from another process comes back without the tables
                observe(self.rulings_games, rec, self.t)
        return self._rulings

    def _rulings_study_games(self, progress=None) -> tuple[dict, list, dict]:
        """The study, its games at the spec's resolutions (in order) and each measured ruling's witness
        games (see _ruling_games): what rulings_study needs, all of it able to pass between processes."""
        from soan import impact
        from soan.rulings import DEFAULT_BUDGET, DEFAULT_GAMES

        games = self.max_games if self.max_games is not None else DEFAULT_GAMES
        played: list = []
        study = impact.analyse(self.spec, self.t.n, games, self.seed, None, dict(self.t.overrides),
                               DEFAULT_BUDGET, None, progress, on_game=played.append)
        pairs = {r["name"]: self._ruling_games(r, r["witness"]) for r in study["ranked"] + study["moot"]
                 if not r["moot"] and r["read"]}
        return study, played, pairs

    def _ruling_finding(self, r: dict, study: dict) -> Finding:
        from soan.stats import pct

        what = "ruling" if r["kind"] == "open ruling" else "assumption"
        arises = f"the situation of {what} '{r['name']}' arises"
        if r["moot"]:
            return Finding("rulings", r["name"], "proved", f"the situation of {what} '{r['name']}' cannot arise",
                           f"{r['moot_reason']}: it is moot")
        n = r["games"]
        from soan.impact import shown

        rules = "".join(f" --rule {k}={shown(v)}" for k, v in self.t.overrides.items())
        same = (f"the same study as soan rulings {self.spec.path} --players {self.t.n} --games {study['games_asked']} "
                f"--seed {study['seed']}{rules}")
        if not r["read"]:
            w = self.s.consulted.get(r["name"]) or self._steered_ruling(r["name"])
            unmeasured = (f"read by {', '.join(r['read_by'])}; " + (
                f"read in none of the {n} paired games (at most {pct(r['read_interval'][1])} of games, 95%): "
                f"what it changes is not measured ({same})" if n else
                "no paired games were played (--games 0): what it changes is not measured"))
            if w is None and (never := pile_floor.unread(self, r["name"])) is not None:
                # no game read it, and none can: a pile never that low (verify/pile_floor.py)
                return Finding("rulings", r["name"], "proved", f"the situation of {what} '{r['name']}' cannot arise",
                               never, depends_on=self._play_depends(r["name"]))
            if w is None:
                return Finding("rulings", r["name"], "unknown", f"the situation of {what} '{r['name']}' can arise",
                               f"{unmeasured}; not reached in the {self.s.games} search games either")
            path, moves = self._witness(w, f"ruling-{r['name']}")
            return Finding("rulings", r["name"], "witnessed", arises, f"a search game read it; {unmeasured}",
                           witness=path, moves=moves, depends_on=[r["name"]])
        read = (f"read in {r['read']} of {n} games ({pct(r['read_share'])}, 95% "
                f"{pct(r['read_interval'][0])}–{pct(r['read_interval'][1])})")
        effects = []
        for a in r["alternatives"]:
            if "failure" in a:
                effects.append(f"= {a['value']}: the rules cannot be carried out ({a['failure']})")
            else:
                effects.append(f"= {a['value']}: {a['verdict']}, winner flips in {a['flips']} "
                               f"({pct(a['flip_share'])}, 95% {pct(a['flip_interval'][0])}–"
                               f"{pct(a['flip_interval'][1])})")
        if r["results_changed"]:
            change = (f"another resolution changes the scores or winner of {r['results_changed']} of them "
                      f"({pct(r['results_changed'] / n)})")
        elif r["matters"]:
            change = (f"another resolution changes the course of {r['matters']} of them but no game's scores "
                      "or winner")
        else:
            change = "no other resolution changed any of them"
        wit = r["witness"]
        shows = {"result": f"the shortest game whose result {r['name']} = {wit['value']} changes",
                 "course": f"the shortest game whose course {r['name']} = {wit['value']} changes",
                 "read": "the shortest game that read it"}[wit["shows"]]
        path, moves = self._ruling_witness(r, wit)
        return Finding("rulings", r["name"], "witnessed", arises,
                       f"{read}; {change}; " + "; ".join(effects) + f". Witness: {shows} ({same})",
                       bounds={"games": n, "read": r["read"], "results_changed": r["results_changed"],
                               "courses_changed": r["matters"],
                               "winner_flips": {a["value"]: a["flips"] for a in r["alternatives"]
                                                if "failure" not in a}},
                       witness=path, moves=moves, depends_on=[r["name"]])

    def _ruling_games(self, r: dict, wit: dict) -> tuple:
        """The study's witness game for a ruling, narrated, and (where another resolution changes it)
        where its account and that of the same seed under that resolution part (else None)."""
        from soan.diff import first_divergence
        from soan.impact import shown
        from soan.interpreter.play import play_game

        bots = ["random"] * self.t.n
        rec = play_game(self.t, wit["seed"], bots, narrate=True)
        if wit["value"] is None:
            return rec, None
        domain = next(x.domain for x in list(self.spec.rulings) + list(self.spec.assumptions) if x.name == r["name"])
        value = next(v for v in self.t.domain_values(domain) if shown(v) == wit["value"])
        alt = play_game(Tables(self.spec, self.t.n, {**self.t.overrides, r["name"]: value}), wit["seed"], bots,
                        narrate=True)
        return rec, first_divergence(rec, alt)

    def _ruling_witness(self, r: dict, wit: dict) -> tuple[str | None, list[str]]:
        """The study's witness game, saved and replayed; where another resolution changes it, the account
        lines where the two games part."""
        rec, d = self._ruling_pairs.get(r["name"]) or self._ruling_games(r, wit)
        rec.state.t = self.t  # it may come from the study's process, without the tables
        w = Witness(rec, len(rec.log["steps"]) if wit["shows"] == "result" else 0)
        path, moves = self._witness(w, f"ruling-{r['name']}")
        if d is None:
            return path, moves
        return path, ([line.strip() for line in d["before"][-2:]] + [f"now: {line.strip()}" for line in d["old"][:3]]
                      + [f"with {r['name']} = {wit['value']}: {line.strip()}" for line in d["new"][:3]])


_unconditional = opening_steps


def _called(spec: ir.Spec, stmts) -> set[str]:
    """The defs and procedures these statements may call, directly or not."""
    bodies = {d.name: d.body for d in spec.defs} | {p.name: p.body for p in spec.procedures}
    todo = [n for st in stmts for n in ir.walk(st)]
    names: set[str] = set()
    while todo:
        n = todo.pop()
        name = n.func if isinstance(n, ir.Call) else n.proc if isinstance(n, ir.Do) else None
        if name in bodies and name not in names:
            names.add(name)
            todo.extend(ir.walk(bodies[name]))
    return names


def _near_two_x(seen: int | None, sign: int, goal: int) -> bool:
    """Whether a loose maximum is worth a short climb to the line of 'within 2x' (half the proved
    bound): the best game seen is past half-way to that line."""
    return sign > 0 and seen is not None and 0 < seen and 2 * seen < goal <= 4 * seen


def _within_reach(seen: int | None, sign: int, goal: int) -> bool:
    """Whether a climb is worth its time: the best game seen is short of the
    proved bound but at least half-way there.  A bound far above all play is
    an over-approximation no climb will meet."""
    if seen is None or sign * seen >= sign * goal:
        return False
    return abs(goal - seen) <= max(abs(goal), abs(seen)) / 2


def _worst(bounds: list[solver.Bound], pick) -> solver.Bound:
    """Across the setup's branches: the largest maximum (or smallest minimum), proved only if every branch is."""
    bad = next((b for b in bounds if b.status != "proved"), None)
    return bad if bad is not None else solver.Bound("proved", pick(b.value for b in bounds))


FIT_WORDS = {"tight": "tight (a game reaches the proved maximum, or a penalty's minimum)",
             "within 2x": "within 2x of the best game seen",
             "loose": "loose (more than 2x the best game seen)",
             "unseen": "no game seen to compare"}


def _fit(proved_min: int, proved_max: int, seen_min: int | None, seen_max: int | None) -> str:
    """How close a proved range is to the games seen, at the end a designer asks about: the
    maximum, or for a penalty (never above 0) the minimum: tight, within 2x, or loose."""
    if seen_min is None or seen_max is None:
        return "unseen"
    proved, seen = (proved_max, seen_max) if proved_max > 0 else (-proved_min, -seen_min)
    if proved == seen:
        return "tight"
    return "within 2x" if seen > 0 and proved <= 2 * seen else "loose"


def _score_value(key: str, sign: int, n: int):
    """A game's value for a climb: the best seat's score for `key` (negated
    when looking for the lowest), steered by the others' scores falling."""
    def value(rec):
        res = rec.result
        vals = [res["scores"][f"P{i + 1}"] if key == "total" else res["breakdown"][f"P{i + 1}"][key[5:]]
                for i in range(n)]
        i = max(range(n), key=lambda i: sign * vals[i])
        return (sign * vals[i], -sign * (sum(vals) - vals[i]))
    return value


def _injective(e: ir.Expr, var: str, coll: ir.Expr, distinct_players: bool) -> bool:
    match e:
        case ir.Attr(obj=ir.Local(name=v), name="seat") if v == var and distinct_players:
            return True
        case ir.Call(func="distance", args=(a, b)) if distinct_players:
            # seats are a cycle: the distance from a fixed seat to each candidate differs
            def is_var(x):
                return isinstance(x, ir.Local) and x.name == var

            def mentions_var(x):
                return any(isinstance(n, ir.Local) and n.name == var for n in ir.walk(x))

            return (is_var(b) and not mentions_var(a)) or (is_var(a) and not mentions_var(b))
        case ir.Call(func="position", args=(ir.Local(name=v),)) if v == var and isinstance(coll, ir.SharedZone):
            return True
    return False


def _all_rule_nodes(spec: ir.Spec):
    for root in rule_roots(spec):
        yield from ir.walk(root)


def verify(tables: Tables, budget: float, seed: int = 0, only: set[str] | None = None,
           witness_dir: Path | None = None, progress=None, max_games: int | None = None, jobs: int = 1) -> dict:
    v = Verifier(tables, budget, seed, witness_dir, progress, max_games, jobs)
    findings, s = v.run(only)
    return {
        "soan_verify": SCHEMA_VERSION,
        "spec": {"name": tables.spec.name, "draft": tables.spec.draft, "path": tables.spec.path},
        "players": tables.n,
        "budget_seconds": budget,
        "search": {"games": s.games, "seconds": round(s.seconds, 2), "seed": seed,
                   "stopped_by_wall_clock": s.cut_short},
        "findings": [f.to_json() for f in findings],
        "summary": {k: sum(1 for f in findings if f.verdict == k) for k in ("proved", "witnessed", "unknown")}
        | {"problems": sum(1 for f in findings if f.problem)},
    }


def dumps(result: dict) -> str:
    return json.dumps(result, ensure_ascii=False, indent=2)
