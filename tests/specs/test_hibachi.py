"""Playing Hibachi TJ's rules: invariants at every step of random games at 2, 3
and 4 players, the adjustable toss skill, the deliberate miss, the optional new
head chef, the bank's shortage rule, determinism and replay."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction

import pytest

from gameplay import ShippedSpec, check_core_invariants, play_random
from soan import api
from soan.interpreter.state import CHANCE, State

HIBACHI = ShippedSpec("hibachi.soan")
GAMES_PER_COUNT = 15         # 0.2 to 0.5 s a game with the checks: the file runs in about 20 s


def spec():
    return HIBACHI.spec


def tables_for(n: int, **params):
    return HIBACHI.tables(n, params)


# Where each kind of piece may lie (per-player zones by name).
PLACES = {
    "ingredient": {"ingredient_deck", "discard", "frame", "pantry", "looking"},
    "chili": {"chili_pile", "chilis"},
    "recipe": {"recipe_deck", "menu", "recipes", "cooked"},
    "chip": {"chips", "kitchen", "off_board"},
}
TOTALS = {"ingredient": 54, "chili": 10, "recipe": 18}


def check_invariants(s: State) -> None:
    t = s.t
    check_core_invariants(s)
    # Each kind stays in its own places, in full; chips stay with their colour.
    per_kind = Counter()
    for slot, zone in enumerate(s.zones):
        z, owner = t.zone_slots[slot]
        for c in zone:
            kind = t.kind[c]
            if kind == "chip" and t.owner[c] is None:
                assert z.name == "box", "an unused colour's chip left the box"
                continue
            assert z.name in PLACES[kind], f"a {kind} lies in {z.name}"
            per_kind[kind] += 1
            if kind == "chip":
                assert owner is None or owner == t.owner[c], "a chip lies in another player's zone"
                on = (s.cs["on_plate"][c] is not None) + (s.cs["on_space"][c] is not None)
                assert on == (1 if z.name == "kitchen" else 0), "a chip's spot disagrees with where it lies"
    assert {k: per_kind[k] for k in TOTALS} == TOTALS
    assert per_kind["chip"] == 6 * t.n
    # Money never negative, the bank never below zero; no yen lost, and none made unless the bank pays
    # beyond what it holds (ruling bank_short = unlimited).
    assert s.supply["yen"] >= 0
    assert all(v >= 0 for v in s.pv["yen"])
    if t.params["bank_short"] == "partial":
        assert s.supply["yen"] + sum(s.pv["yen"]) == t.params["bank_total"]
    else:
        assert s.supply["yen"] + sum(s.pv["yen"]) >= t.params["bank_total"]
    # A completed recipe is a point; nobody passes three.
    for i in range(t.n):
        cooked = len(s.zones[t.slot_of[("cooked", i)]])
        assert cooked == s.vp["cooked_recipes"][i] <= 3


def play_checked(tables, seed: int, on_step=None) -> State:
    return play_random(tables, seed, check_invariants, on_step)


def check_ending(s: State) -> None:
    res = s.result
    cooked = {f"P{i + 1}": len(s.zones[s.t.slot_of[("cooked", i)]]) for i in range(s.t.n)}
    if res["winners"]:
        # the only way to win: the immediate win at three recipes
        assert len(res["winners"]) == 1 and cooked[res["winners"][0]] == 3
        assert res["reason"] == "immediate win"
    else:
        # a game stopped by the round cap, or with no recipe left to cook, has no winner
        assert all(v < 3 for v in cooked.values())
    assert res["rounds"] <= s.t.params["stop_after_rounds"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_keep_invariants(n):
    """Random games at each player count keep every card and chip in one place, money and supplies non-negative and no yen lost at every step, and end with a three-recipe winner or no winner."""
    tables = tables_for(n)
    for seed in range(GAMES_PER_COUNT):
        s = play_checked(tables, 1000 * n + seed)
        check_ending(s)


def test_partial_bank_conserves_yen():
    """With the bank paying only what it has (bank_short = partial), yen are neither made nor lost at any step."""
    tables = tables_for(4, bank_short="partial")
    for seed in range(5):
        check_ending(play_checked(tables, 4000 + seed))


def test_perfect_skill_never_voids_a_chip():
    """With toss_skill 10 and deliberate misses forbidden every chip lands where it was aimed: none is ever void, so nobody gets a chili card."""
    tables = tables_for(3, toss_skill=10, deliberate_miss="forbidden")

    def no_void(s):
        assert not s.zones[s.t.slot_of[("off_board", -1)]]
        assert all(not s.zones[s.t.slot_of[("chilis", i)]] for i in range(s.t.n))

    check_ending(play_checked(tables, 7, no_void))


def _advance_to(s: State, rng, prompt: str) -> bool:
    """Play random moves until a decision with this prompt; False if the game ends first."""
    while not s.is_terminal():
        if s.current_player() == CHANCE:
            s.apply_chance(s.sample_chance(rng))
        elif s.pending.prompt == prompt:
            return True
        else:
            s.apply(rng.randrange(len(s.legal_moves())))
    return False


def test_deliberate_miss_is_void_without_chance_and_earns_a_chili():
    """A chip thrown off the board on purpose goes off the board at once, with no chance event, and earns its owner a chili card."""
    tables = tables_for(2, toss_skill=10)
    s = State(tables).start()
    rng = random.Random(3)
    assert _advance_to(s, rng, "aims at")
    labels = [m.label for m in s.legal_moves()]
    assert "off_the_board" in labels
    thrower = s.current_player()
    s.apply(labels.index("off_the_board"))
    off = s.zones[s.t.slot_of[("off_board", -1)]]
    assert len(off) == 1 and s.t.owner[off[0]].i == thrower
    assert s.current_player() != CHANCE
    # with perfect skill and no other deliberate miss, the round's only void chip is this one
    while s.round <= 1 and not s.is_terminal():
        if s.current_player() == CHANCE:
            s.apply_chance(s.sample_chance(rng))
        else:
            moves = [i for i, m in enumerate(s.legal_moves()) if m.label != "off_the_board"]
            s.apply(rng.choice(moves))
    assert len(s.zones[s.t.slot_of[("chilis", thrower)]]) == 1, "one void chip, one chili card (one chili cannot pay for a recipe)"


def test_deliberate_miss_can_be_forbidden():
    """With deliberate_miss = forbidden a player can only aim at a plate or an action space."""
    s = State(tables_for(2, deliberate_miss="forbidden")).start()
    assert _advance_to(s, random.Random(1), "aims at")
    assert "off_the_board" not in [m.label for m in s.legal_moves()]
    assert len(s.legal_moves()) == 10


def test_new_head_chef_may_be_declined():
    """The winner of the new head chef space may pass (the start player stays) or take the bottle (they start)."""
    for take in (False, True):
        found = False
        for seed in range(20):
            s = State(tables_for(3)).start()
            if not _advance_to(s, random.Random(seed), "becomes the new head chef"):
                continue
            chef, before = s.current_player(), s.gv["head"].i
            labels = [m.label for m in s.legal_moves()]
            assert labels == ["take_bottle", "pass"]
            if before == chef:
                continue      # look for a winner who is not already the start player
            s.apply(labels.index("take_bottle" if take else "pass"))
            assert s.gv["head"].i == (chef if take else before)
            found = True
            break
        assert found


def _flight_chances(tables, seed: int) -> dict:
    """The chance outcomes of the first toss's flight in a game ({} if round 1 has none)."""
    s = State(tables).start()
    rng = random.Random(seed)
    while s.round <= 1 and not s.is_terminal():
        if s.current_player() == CHANCE:
            outcomes = s.chance_outcomes()
            if isinstance(outcomes, list) and any(label == "lands_elsewhere" for label, _ in outcomes):
                return dict(outcomes)
            s.apply_chance(s.sample_chance(rng))
        else:
            s.apply(0)
    assert s.round == 2
    return {}


@pytest.mark.parametrize("skill, aim, elsewhere, void", [
    (7, Fraction(7, 10), Fraction(2, 10), Fraction(1, 10)),
    (0, None, Fraction(2, 3), Fraction(1, 3)),
    (10, None, None, None),      # one possible outcome: no chance event at all
])
def test_toss_skill_sets_the_landing_chances(skill, aim, elsewhere, void):
    """The declared toss_skill gives the toss its chances: on the aim 3s, elsewhere 2(10 - s), void 10 - s (outcomes of weight 0 are not offered)."""
    got = _flight_chances(tables_for(2, toss_skill=skill), 1)
    want = {k: v for k, v in {"lands_on_aim": aim, "lands_elsewhere": elsewhere, "lands_off_board": void}.items()
            if v is not None}
    assert got == want


def test_same_seed_gives_the_same_log_and_the_log_replays():
    """Two games with the same seed write identical logs, and the log replays to the same result."""
    t = tables_for(4)
    a = api.play(t, 11, ["random"] * 4)
    b = api.play(t, 11, ["random"] * 4)
    assert a.to_json() == b.to_json()
    log = json.loads(a.to_json())
    assert api.replay(t, log).result == log["result"]


def test_each_seat_may_toss_with_its_own_skill():
    """toss_skill_pN gives one seat its own skill: perfect throwers at both seats leave no chance in the flight, one imperfect seat brings it back."""
    assert _flight_chances(tables_for(2, toss_skill_p1=10, toss_skill_p2=10), 1) == {}
    mixed = _flight_chances(tables_for(2, toss_skill_p1=10, toss_skill_p2=0), 1)
    assert mixed == {"lands_elsewhere": Fraction(2, 3), "lands_off_board": Fraction(1, 3)}
