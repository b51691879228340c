"""Playing Pitmaster draft 20: random games at 3 and 4 players with the game's
invariants checked after every step, the optional extra challenge, rulings
changed from outside, and replay."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gameplay import ShippedSpec, play_random, zone
from soan import api
from soan.interpreter.state import CHANCE, State

COLOUR_SET = Counter({"d4": 2, "d6": 3, "d8": 2, "d12": 1})
AREAS = ("appeal_area", "heat_area", "smoke_area", "side_area", "sauce_area")
CAPPED = ("heat_area", "smoke_area", "side_area", "sauce_area")

PITMASTER = ShippedSpec("pitmaster-20.soan")
tables_for = PITMASTER.tables


def spec():
    return PITMASTER.spec


_STATIC: dict = {}


def static(t):
    """What the checks need from the tables, worked out once per table set."""
    key = id(t)
    if key not in _STATIC:
        n = t.n
        dice = [c for c in range(t.n_cards) if t.kind[c] == "die"]
        areas = [t.slot_of[(a, -1)] for a in AREAS]
        _STATIC[key] = {
            "meat": [c for c in range(t.n_cards) if t.kind[c] == "meat_card"],
            "gauge": {c: t.fields[c]["gauge"] for c in range(t.n_cards) if t.kind[c] == "meat_card"},
            "dice": [(c, None if t.owner[c] is None else t.owner[c].i, t.fields[c]["size"], t.fields[c]["faces"])
                     for c in dice],
            "allowed": {i: {t.slot_of[(z, i)] for z in ("stock", "workers", "on_grill")} | set(areas) for i in range(n)},
            "in_play": {i: {t.slot_of[(z, i)] for z in ("workers", "on_grill")} | set(areas) for i in range(n)},
            "box": t.slot_of[("box", -1)],
            "capped": [t.slot_of[(a, -1)] for a in CAPPED],
        }
    return _STATIC[key]


def check_invariants(s: State) -> None:
    t = s.t
    n = t.n
    st = static(t)
    # Every card (die, meat, grill, storage, idea, challenge, character) lies in exactly one zone.
    # (A leaner form of gameplay.check_core_invariants: these games are the suite's longest.)
    seen = [0] * t.n_cards
    for slot, z in enumerate(s.zones):
        for c in z:
            seen[c] += 1
            assert s.loc[c] == slot
    assert all(k == 1 for k in seen), "a card is missing or in two places"
    # Each player's dice, in hand, placed or in the stock, are exactly that colour's set, lie only
    # where that player's dice may lie, and (from round 1 on) four of them are workers.
    sizes = [Counter() for _ in range(n)]
    in_play = [0] * n
    for c, owner, size, faces in st["dice"]:
        if owner is None:  # the fourth colour of a 3-player game stays in the box
            assert n == 3 and s.loc[c] == st["box"]
            continue
        assert s.loc[c] in st["allowed"][owner], f"P{owner + 1}'s die is in {t.zone_label(s.loc[c])}"
        sizes[owner][size] += 1
        in_play[owner] += s.loc[c] in st["in_play"][owner]
        assert 1 <= s.cs["face"][c] <= faces
    for i in range(n):
        assert sizes[i] == COLOUR_SET
        if s.round >= 1:
            assert in_play[i] == 4, "from round 1 on, a player always has four workers"
    # No supply goes below zero; holdings stay within their domain; tokens are conserved.
    for name, left in s.supply.items():
        assert left >= 0, f"supply {name} is negative"
        hold = t.tokens[name].hold
        assert hold.lo <= min(s.pv[name]) and max(s.pv[name]) <= hold.hi
    assert s.supply["appeal"] + sum(s.pv["appeal"]) == (13 if n == 3 else 18)
    if t.params["value_shortage"] == "partial":
        assert s.supply["value_token"] + sum(s.pv["value_token"]) == 24
    roast, valued = s.cs["roast"], s.cs["valued"]
    assert sum(s.pv["value_token"]) == sum(s.pv["char_value"]) + sum(1 for c in st["meat"] if valued[c])
    # One roast token per card whose gauge has started (◎グリル), whatever its level.
    assert sum(s.pv["roast_token"]) == sum(1 for c in st["meat"] if roast[c] > 0)
    check_burnt = t.params["burnt_is_main"] == "no"
    for c in st["meat"]:
        assert 0 <= roast[c] <= st["gauge"][c] + (1 if valued[c] else 0), "a roast level passed its gauge"
        if check_burnt and s.facedown[c]:
            assert roast[c] == 0 and not valued[c], "a burnt card kept its tokens"
    # Work areas hold no more workers than their limit (3 at 4 players, 2 at 3).
    cap = 3 if n == 4 else 2
    assert all(len(s.zones[slot]) <= cap for slot in st["capped"])
    # The rounds never pass four.  (Variables leaving their domains stop the engine by itself.)
    assert 0 <= s.round <= 4
    if s.current_player() >= 0:
        labels = [m.label for m in s.legal_moves()]
        assert labels and len(set(labels)) == len(labels)


def play_checked(n: int, seed: int, params: dict | None = None) -> State:
    return play_random(tables_for(n, params), seed, check_invariants, max_steps=5000)


def check_ending(s: State) -> None:
    res = s.result
    assert res["rounds"] == 4, "the game ends after round 4"
    assert len(res["winners"]) == 1 and not res["draw"], "character numbers leave no tie"
    scores = res["scores"]
    best = max(scores.values())
    assert scores[res["winners"][0]] == best


@pytest.mark.parametrize("n", [3, 4])
def test_random_games_keep_every_invariant_and_end_after_round_four(n):
    """80 random games per player count keep every card in one place, each colour's dice whole, supplies non-negative and tokens conserved at every step, and end after round 4 with one winner."""
    for seed in range(80):
        s = play_checked(n, seed)
        check_ending(s)


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4])
def test_many_random_games_keep_every_invariant(n):
    """300 more random games per player count, with the invariants checked at every step."""
    for seed in range(1000, 1300):
        check_ending(play_checked(n, seed))


def test_the_extra_challenge_adds_a_second_challenge_card_in_round_three():
    """With the optional rule on, two challenge cards lie face up at the end; without it, one."""
    for seed in range(5):
        plain = play_checked(4, seed)
        extra = play_checked(4, seed, {"extra_challenge": True})
        assert len(zone(plain, "challenges")) == 1
        assert len(zone(extra, "challenges")) == 2


def test_other_resolutions_of_open_rulings_also_keep_the_invariants():
    """Games under other answers to the open rulings (wrapping dice, compulsory grill adjustment, per-dish signs, roastable burnt meat, ideas between a placement's steps, short token supplies) keep every invariant."""
    params = {"die_edge": "wrap", "grill_adjust": "must_act", "grill_sign": "per_dish", "burnt_is_main": "yes",
              "idea_mid_turn": "yes", "grill_reshuffle": "grill_phase_only", "roast_shortage": "partial",
              "value_shortage": "unlimited", "dynamo_reading": "four_of_a_suit",
              "full_house_reading": "exactly", "genesis_reading": "all_distinct", "set_dishes": "mains_only"}
    for n in (3, 4):
        for seed in range(10):
            check_ending(play_checked(n, seed, params))


def labels_seen(n: int, seeds, params: dict | None = None) -> set[str]:
    labels: set[str] = set()
    for seed in seeds:
        rng = random.Random(seed)
        s = State(tables_for(n, params)).start()
        while not s.is_terminal():
            if s.current_player() == CHANCE:
                s.apply_chance(s.sample_chance(rng))
                continue
            moves = s.legal_moves()
            labels.update(m.label for m in moves)
            s.apply(rng.randrange(len(moves)))
    return labels


def test_idea_cards_between_a_placements_steps_only_under_the_ruling():
    """The window for idea cards between a placement's steps (the go_on move) opens only when ruling idea_mid_turn is yes, and no turn goes on after its placement (no end_turn move)."""
    plain = labels_seen(4, range(3))
    mid = labels_seen(4, range(3), {"idea_mid_turn": "yes"})
    assert "go_on" not in plain and "end_turn" not in plain
    assert "go_on" in mid and "end_turn" not in mid
    assert "place_worker" in plain and "use_idea" in plain


def test_setup_deals_what_the_draft_says():
    """At round 1's first turn each player has a character, two d4 and two d6 in hand, two idea cards, one grill card and five meat dishes with at least one main and one side; the appeal area shows 4 storage and 4 meat cards, and one challenge card lies face up."""
    for n in (3, 4):
        rng = random.Random(11)
        s = State(tables_for(n)).start()
        while s.round == 0 or s.current_player() == CHANCE:  # up to round 1's first turn
            if s.current_player() == CHANCE:
                s.apply_chance(s.sample_chance(rng))
            else:
                s.apply(rng.randrange(len(s.legal_moves())))
        t = s.t
        for i in range(n):
            assert len(zone(s, "character", i)) == 1
            hand = sorted(t.fields[c]["size"] for c in zone(s, "workers", i))
            assert hand == ["d4", "d4", "d6", "d6"]
            # one grill card, plus one if round 1's challenge card gave one
            assert 1 <= len(zone(s, "grill", i)) <= 2
            roles = Counter(s.cs["role"][c] for c in zone(s, "dishes", i))
            assert sum(roles.values()) == 5 and roles["main_dish"] >= 1 and roles["side_dish"] >= 1
            # two idea cards, plus one if round 1's challenge card gave one
            assert 2 <= len(zone(s, "ideas", i)) <= 3
        assert len(zone(s, "appeal_storage")) == 4 and len(zone(s, "appeal_meat")) == 4
        assert len(zone(s, "challenges")) == 1


def test_a_game_replays_to_the_same_result():
    """A logged game at each player count replays move for move to the same result."""
    for n in (3, 4):
        t = tables_for(n)
        rec = api.play(t, 7, ["random"] * n)
        assert api.replay(t, rec.log).result == rec.result
