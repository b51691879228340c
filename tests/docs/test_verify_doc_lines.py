"""docs/verify.md's by-hand lines for Pitmaster (*By hand: exact roasts, the challenge bonus, the main dishes*) are
real games: each line is played as a plan (every decision of the planning seat and every chance outcome chosen, the
other seats placing on their own grills), reaches the score the doc gives, and its log replays."""

from __future__ import annotations

from pathlib import Path

import pytest

from soan import api
from soan.interpreter.play import record_game, replay
from soan.interpreter.runtime import CardRef
from soan.verify.claims import contradictions, proved_claims
from soan.verify.exhaustive import GameFacts, game_facts

ROOT = Path(__file__).resolve().parents[2]
ANY = None  # a card no line needs: the lowest rank left


def _cards(v) -> list[int]:
    if isinstance(v, CardRef):
        return [v.id]
    if isinstance(v, tuple):
        return [x.id for x in v if isinstance(x, CardRef)]
    return []


class Line:
    """One planned game: P1 follows `rounds` (each round's placements: an area, or ("grill", k, sign) to roast
    k mains), its opening hand and the appeal's meat cards dealt as `deal` and `shows` say (a rank set each, or
    ANY: P1 takes those as side dishes), its grill cards (dealt, then each draw) as `heats`, dropping the one
    `take_heat` names at each prompt, its two idea cards `ideas` (used in round 1), every die rolled to `face`,
    the challenge card the one of `goal`. Chance is chosen, never beyond what the game could draw: shuffles are
    orderings of the cards there, rolls faces of the die."""

    def __init__(self, draft, players, deal, shows, heats, rounds, goal, face=1, ideas=(), take_heat=()):
        self.spec = api.load(str(ROOT / "specs" / f"pitmaster-{draft}.soan"))
        self.t = api.tables(self.spec, players)
        self.n, self.deal, self.shows, self.heats = players, deal, shows, heats
        self.rounds, self.goal, self.face, self.ideas, self.take_heat = rounds, goal, face, ideas, dict(take_heat)
        self.turn: dict = {}  # P1's placements and takes so far, per round

    def rank(self, cid):
        return self.t.fields[cid].get("rank")

    def zone(self, st, name, p=-1):
        return st.zones[self.t.slot_of[(name, p)]]

    def _assign(self, cards, preds, keep=()):
        """Positions into `cards` for each predicate, the specific ones first; ANY takes the lowest rank left that
        no later specific predicate (`keep`) needs."""
        left = list(range(len(cards)))
        out = [None] * len(preds)
        for k, want in enumerate(preds):
            if want is not ANY:
                i = next(i for i in left if self.rank(cards[i]) in want)
                left.remove(i)
                out[k] = i
        spare = sorted(left, key=lambda i: self.rank(cards[i]))
        for want in keep:
            i = next(i for i in spare if self.rank(cards[i]) in want)
            spare.remove(i)
        for k, want in enumerate(preds):
            if want is ANY:
                out[k] = spare.pop(0)
        return out, [i for i in left if i not in out]

    def chance(self, st, rng):
        c = st.pending
        if c.kind == "roll":
            return min(self.face, len(c.outcomes)) - 1
        if c.kind == "pick":
            return next(i for i, (label, _) in enumerate(c.outcomes) if self.goal in label)
        cards = st.zones[c.target]
        name = self.t.zone_slots[c.target][0].name
        if name == "idea_deck":
            first = [i for i in range(len(cards)) if self.t.fields[cards[i]]["effect"] in self.ideas][:len(self.ideas)]
            return first + [i for i in range(len(cards)) if i not in first]
        if name == "grill_deck":  # P1 leads every order (character 1, never fewer appeal tokens)
            heat = lambda i: self.t.fields[cards[i]]["heat"]
            left, out = list(range(len(cards))), []
            for h in self.heats:
                i = next(i for i in left if heat(i) == h)
                left.remove(i)
                others = [j for j in left if heat(j) not in self.heats][:self.n - 1]
                out += [i] + others
                left = [j for j in left if j not in others]
            return out + left
        if name == "meat_deck" and not self.turn.get("dealt"):
            self.turn["dealt"] = 1
            shows = [w for show in self.shows for w in show if w is not ANY]
            preds = list(self.deal) + [ANY] * 5 * (self.n - 1)
            out, rest = self._assign(cards, preds, keep=shows)
            return out + rest
        if name == "meat_deck":
            preds = [w for show in self.shows for w in show]
            out, rest = self._assign(cards, preds)
            return out + rest
        return list(range(len(cards)))

    def choose(self, st, p, moves):
        prompt, labels = st.pending.prompt, [m.label for m in moves]
        at = lambda label: labels.index(label)
        if "exchange" in prompt:
            return at("pass")
        if prompt.startswith("chooses main dishes"):
            if p:
                return 0
            want = {c for c in self.zone(st, "drawn_meat", 0) if self.rank(c) in self.deal[0]}
            return next(i for i, m in enumerate(moves) if set(_cards(m.value)) == want)
        if prompt == "acts in their turn":
            if p == 0 and self.ideas and "use_idea" in labels and st.round == 1:
                return at("use_idea")
            return at("idea_for_vp") if "idea_for_vp" in labels else at("place_worker")
        if prompt == "uses an idea card":
            return 0
        if prompt == "grows a die in hand":  # the largest: d6 to d8, then that d8 to the d12
            dice = [i for i, m in enumerate(moves) if _cards(m.value)]
            return max(dice, key=lambda i: self.t.fields[_cards(moves[i].value)[0]]["faces"])
        plan = self.rounds[st.round - 1] if p == 0 and 1 <= st.round <= len(self.rounds) else None
        if prompt == "places a worker":
            if p == 0:
                self.turn[st.round] = self.turn.get(st.round, 0) + 1
                step = plan[self.turn[st.round] - 1]
                if isinstance(step, tuple):  # the largest die left for the largest roast
                    return max(range(len(moves)), key=lambda i: self.t.fields[_cards(moves[i].value)[0]]["faces"])
                if step in ("smoke_area", "side_area", "sauce_area", "heat_area"):  # the smallest die grows
                    return min(range(len(moves)), key=lambda i: self.t.fields[_cards(moves[i].value)[0]]["faces"])
            return 0
        if prompt == "chooses where":
            if p:
                return at("own_grill")
            step = plan[self.turn[st.round] - 1]
            return at("own_grill" if isinstance(step, tuple) else step)
        if prompt == "may grow the placed worker":
            return at("grow")
        if prompt == "takes a card from 【アピール】":
            step = self.shows[st.round - 1][self.turn.get(("took", st.round), 0)]
            self.turn[("took", st.round)] = self.turn.get(("took", st.round), 0) + 1
            return next(i for i, m in enumerate(moves) if "meat_card" in m.label
                        and (step is ANY or self.rank(_cards(m.value)[0]) in step))
        if prompt == "places the meat":
            k = self.turn[("took", st.round)] - 1
            return at("as_side" if self.shows[st.round - 1][k] is ANY else "as_main")
        if prompt == "puts a value token on a main dish":  # the longest gauge first, then the oldest
            order = list(self.zone(st, "dishes", 0))
            return min(range(len(moves)), key=lambda i: (-self.t.fields[_cards(moves[i].value)[0]]["gauge"],
                                                         order.index(_cards(moves[i].value)[0])))
        if prompt == "roasts main dishes":
            if p:
                return 0
            k = plan[self.turn[st.round] - 1][1]
            return next(i for i, m in enumerate(moves) if len(_cards(m.value)) == k)
        if prompt == "fire = grill ± the worker":
            return at("minus_die") if p else at(plan[self.turn[st.round] - 1][2])
        if prompt == "adjusts the grill":
            return at("discard_grill_card")
        if prompt in self.take_heat and p == 0:
            return next(i for i, m in enumerate(moves)
                        if self.t.fields[_cards(m.value)[0]]["heat"] == self.take_heat[prompt])
        return at("pass") if "pass" in labels else 0

    def play(self) -> GameFacts:
        rec = record_game(self.t, 0, self.choose, ["plan"] * self.n, chance=self.chance)
        replay(self.t, rec.log)  # raises where the log takes another course
        steps = rec.log["steps"]
        return game_facts(rec.state, self.t, sum("move" in x for x in steps),
                      tuple(x.get("move") or x["chance"] for x in steps), None)


HIGH, R7, R56, R6, R8, R5, R79 = {8, 9}, {7}, {5, 6}, {6}, {8}, {5}, {7, 8, 9}
A, S = "appeal_area", "smoke_area"
GRILL = [("grill", 4, "plus_die"), ("grill", 3, "plus_die"), ("grill", 2, "plus_die"), ("grill", 2, "plus_die")]


def main_112(draft, players):
    """10 dishes of ranks 8-9 (8 valued) and 2 of rank 7, the grill at 8."""
    return Line(draft, players, deal=[HIGH] * 4 + [ANY], heats=[6, 2, 0, 0, 0], goal="goal_full_gauge",
                shows=[[HIGH, HIGH, ANY, ANY]] * 3 + [[R7, R7, ANY, ANY]], rounds=[[S, S, A, A]] * 4)


def main_90(draft, players):
    """Ten dishes of ranks 5-6 (4 valued), five of rank 7, the grill at 6."""
    return Line(draft, players, deal=[R56] * 4 + [ANY], heats=[6, 0, 0, 0, 0], goal="goal_full_gauge",
                shows=[[R56] * 4, [R56, R56, R7, R7], [R7, R7, ANY, ANY], [R7, ANY, ANY, ANY]],
                rounds=[[A] * 4, [A] * 4, [S, S, A, A], [S, S, A, "sauce_area"]])


def main_92(draft, players):
    """The 15 dishes of ranks 6-8, four rank-6 ones valued, the grill at 7."""
    return Line(draft, players, deal=[R6] * 4 + [ANY], heats=[6, 1, 0, 0, 0], goal="goal_full_gauge",
                shows=[[R6, R8, R8, R8], [R8, R8, R7, R7], [R7, R7, R7, ANY], [ANY] * 4],
                rounds=[[A] * 4, [A] * 4, [S, A, A, A], [S, S, S, "sauce_area"]])


def full_gauge_45(draft, players):
    """The full-gauge challenge card and the 15 mains of ranks 7-9 at their gauge, the grill at 8."""
    return Line(draft, players, deal=[R79] * 4 + [ANY], heats=[6, 2, 0, 0, 0], goal="goal_full_gauge",
                shows=[[R79] * 4, [R79] * 4, [R79, R79, R79, ANY], [ANY] * 4],
                rounds=[[A] * 4, [A] * 4, [A] * 4, [A, A, "sauce_area", "sauce_area"]])


def exact_35(draft, players):
    """Dice grown in round 1 to d12, d8, d6, d6 on four rank-5 mains: 4 + 9 + 11 + 11 exact roasts. The exacts
    card's reveal draws everyone a grill card: P1's 0 is dropped at the grill phase for the +3."""
    grow = "side_area" if draft == 20 else "sauce_area"
    return Line(draft, players, deal=[R5] * 4 + [ANY], heats=[2, 0, 3, 0, 0, 0], goal="goal_exacts", face=3,
                ideas=("grow_die", "grow_die"),
                take_heat={"discards grill cards down to round + 1": 0, "discards a grill card": 3},
                shows=[[ANY] * 4] * 4, rounds=[[S, S, grow, grow], ["heat_area"] + GRILL[:3], GRILL, GRILL])


# (plan, draft, players, what P1 must reach): the doc's table, row by row
LINES = [(main_112, 20, 3, {"main_vp": 112}), (main_112, 20, 4, {"main_vp": 112}),
         (main_90, 19, 3, {"main_vp": 90}), (main_92, 19, 4, {"main_vp": 92})] + \
        [(full_gauge_45, d, n, {"challenge_vp": 45}) for d in (19, 20) for n in (3, 4)] + \
        [(exact_35, d, n, {"exact": 35, "challenge_vp": 35}) for d in (19, 20) for n in (3, 4)]


@pytest.mark.parametrize("plan,draft,players,reach", LINES, ids=lambda x: getattr(x, "__name__", str(x)))
def test_each_line_is_a_game_that_reaches_the_doc_score(plan, draft, players, reach):
    """Each by-hand line of the doc, played as its plan, gives P1 the points the doc's table says."""
    game = plan(draft, players).play()
    assert {item: game.items[item][0] for item in reach} == reach


@pytest.mark.slow
@pytest.mark.parametrize("draft,players", [(19, 3), (19, 4), (20, 3), (20, 4)])
def test_no_claim_verify_proves_is_contradicted_by_a_planned_game(draft, players):
    """Every claim verify proves about Pitmaster (scores, supplies, piles, tie-breaks, length) holds in the planned
    games of that draft and count, whose dishes and totals go far past what random and searched games reach."""
    games = [plan(d, n).play() for plan, d, n, _ in LINES if (d, n) == (draft, players)]
    tables = api.tables(api.load(str(ROOT / "specs" / f"pitmaster-{draft}.soan")), players)
    assert contradictions(proved_claims(tables), games) == []
