"""Placements of one hand's pieces are shared among the places they go (verify/budget.py), on a small
spec whose answer is known by hand, with variants that must not tighten; every game is played
(exhaustive) and none scores above the proved maximum."""

from __future__ import annotations

import pytest

from test_score_bounds import proved_and_best

# Each player has two dice and places one, up to three times a round while any is in hand, at one of
# two places of their own: "take" draws a chip onto their pile, "token" raises their tokens.  The dice
# come back only in a later step.  Scoring: chips times tokens.  Two rounds give four placements, shared
# between the places: at most 2 x 2 = 4, where the chips (at most 4: two dice a round on the take spot) and
# the tokens (at most 6: three turns a round) read apart give 24.
SHARED = """game "Shared" players 2..2
component die "die" { pips: 1..1 = 1 }
component chip "chip" { n: 1..1 = 1 }
zone hand: per_player public unordered
zone take_spot: per_player public unordered
zone token_spot: per_player public unordered
zone deck: shared hidden stack
zone pile: per_player public unordered
cards die per player in hand { DICE }
cards chip in deck { 16 x n = 1 }
player { tokens: 0..99 = 0 }
score both "both"
procedure back(p) { move p.take_spot to p.hand  move p.token_spot to p.hand }
procedure place(p) {
  choose d from p.hand by p "places a die" {
    choose by p "where" {
      option take { move d to p.take_spot  draw TAKE from deck to p.pile  AFTER }
      option token { move d to p.token_spot  set p.tokens += 1 }
    }
  }
}
procedure turns(p) { repeat PLACES times { if count(p.hand) > 0 { do place(p) } } }
rounds ROUNDS {
  phase play { for p in players { TURNS } }
  phase home { for p in players { do back(p) } }
}
scoring { for p in players { award AMOUNT to p for both } }
winner among p in players by vp(p) desc else shared
"""

PLACES_TWO = """    choose by p "where" {
      option take { move d to p.take_spot  draw TAKE from deck to p.pile  AFTER }
      option token { move d to p.token_spot  set p.tokens += 1 }
    }"""

# One place only, whose work after the die is placed is one of two things, or both.
WORK = {"one": """    move d to p.take_spot
    choose by p "what" {
      option chip { draw 1 from deck to p.pile }
      option token { set p.tokens += 1 }
    }""", "if": """    move d to p.take_spot
    if count(p.pile) < 2 { draw 1 from deck to p.pile } else { set p.tokens += 1 }""",
        "both": """    move d to p.take_spot
    draw 1 from deck to p.pile
    set p.tokens += 1"""}


BASE = {"DICE": "2 x pips = 1", "TAKE": "1", "AFTER": "", "PLACES": "3", "ROUNDS": "2", "TURNS": "do turns(p)",
        "AMOUNT": "count(p.pile) * p.tokens"}


def spec(work: str | None = None, **changes) -> str:
    """The spec with its placeholders filled (`work`: one place's work instead of the two places)."""
    text = SHARED if work is None else SHARED.replace(PLACES_TWO, WORK[work])
    for key, value in {**BASE, **changes}.items():
        text = text.replace(key, value)
    return text


def test_counts_raised_at_two_places_share_the_pieces_placed():
    """Four placements in a game shared between chips and tokens: at most 2 x 2 = 4 (not 4 x 6 = 24), and
    a game reaches 4."""
    assert proved_and_best(spec(), "both") == (4, 4)


def test_a_sum_of_counts_raised_at_two_places_is_shared_too():
    """Chips plus twice the tokens: four placements all at the token place, 8 (read apart, 14); a game
    reaches 8."""
    assert proved_and_best(spec(AMOUNT="count(p.pile) + 2 * p.tokens"), "both") == (8, 8)


def test_a_place_handing_out_more_than_one_counts_each():
    """The take place draws two chips: 2 x 2 chips times 2 tokens, 8 (not 4; read apart, 48); a game
    reaches 8."""
    assert proved_and_best(spec(TAKE="2"), "both") == (8, 8)


def test_a_piece_placed_twice_in_a_step_is_not_read_so():
    """A die put on the take place comes straight back to the hand: three placements a round, six in a
    game, 3 x 3 = 9, which a game reaches, so the four-placement budget is not used (it would say 4)."""
    proved, best = proved_and_best(spec(AFTER="move d to p.hand"), "both")
    assert best == 9 and proved >= 9


def test_pieces_coming_back_mid_round_give_each_step_its_own_budget():
    """The dice come home between two placing steps of the round: each step places two a round, eight
    in a game, 4 x 4 = 16, which a game reaches (one budget for the round would say 4)."""
    two = spec(TURNS="do turns(p)  do back(p)  do turns(p)")
    proved, best = proved_and_best(two, "both")
    assert best == 16 and proved >= 16
    apart = spec().replace("phase home {", "phase home { for p in players { do back(p) } }\n"
                           "  phase again { for p in players { do turns(p) } }\n  phase home2 {")
    assert proved_and_best(apart, "both") == (16, 16)


def test_the_other_players_count_is_not_the_placers():
    """Chips go to the next player's pile: a player's chips come from the other's placements, not from
    their own budget, so 4 chips x 4 tokens = 16 is reached (one player only takes, the other only
    raises tokens) and the bound stays at least that."""
    proved, best = proved_and_best(spec().replace("to p.pile", "to next(p).pile"), "both")
    assert best == 16 and proved >= 16


def test_more_pieces_give_a_larger_budget():
    """Three dice: six placements in a game, 3 x 3 = 9 (read apart, 36; a game reaches 9)."""
    assert proved_and_best(spec(DICE="3 x pips = 1"), "both") == (9, 9)


def test_a_place_giving_one_of_two_things_gives_one_per_placement():
    """One place whose work is a chip or a token (options of a choice, or the branches of an if): each
    of the four placements gives one of them, 2 x 2 = 4 (read as both, 4 x 4 = 16); a game reaches 4."""
    assert proved_and_best(spec("one"), "both") == (4, 4)
    assert proved_and_best(spec("if"), "both") == (4, 4)


def test_a_place_giving_both_things_is_read_so():
    """The same place giving a chip and a token each time: 4 x 4 = 16, which a game reaches."""
    assert proved_and_best(spec("both"), "both") == (16, 16)


@pytest.mark.slow
def test_the_shared_budget_is_sound_on_random_variants():
    """Thirty variants (dice, rounds, placements a round, chips a take, tokens a raise, what follows the
    take: the die back, swapped with one in hand, another die placed; one place giving one of two things
    or both, the amount, a pile of the other player) played out in every game: none scores above the
    bound, and the budget is used in several of them."""
    import random

    rng = random.Random(3)
    afters = ["", "", "move d to p.hand", "do back(p)", "if count(p.hand) > 0 { move first(p.hand) to p.token_spot }",
              "if count(p.hand) > 0 { exchange d with first(p.hand) }"]
    amounts = ["count(p.pile) * p.tokens", "count(p.pile) + p.tokens", "count(p.pile) * (1 + p.tokens)",
               "p.tokens * p.tokens - count(p.pile)", "(count(p.pile) * p.tokens) // 2"]
    tightened = 0
    for _ in range(30):
        dice = rng.randint(1, 3)
        rounds = rng.randint(1, 2)
        work = rng.choice([None, None, "one", "if", "both"])
        text = spec(work, DICE=f"{dice} x pips = 1", TAKE=str(rng.randint(1, 2)), AFTER=rng.choice(afters),
                    PLACES=str(rng.randint(1, 3)), ROUNDS=str(rounds), AMOUNT=rng.choice(amounts))
        if rng.random() < 0.2:
            text = text.replace("to p.pile", "to next(p).pile")
        if rng.random() < 0.3:
            text = text.replace("set p.tokens += 1", "set p.tokens += 2")
        proved, best = proved_and_best(text, "both")
        assert best <= proved
        tightened += _read_together(text)
    assert tightened >= 5, f"the budget applies to {tightened} variants only: too few to test it"


def _read_together(text: str) -> bool:
    """Whether the award's amount was bounded lower by reading its counts over the shared placements."""
    from soan import api
    from soan.dsl import ir
    from soan.verify.bounds import Bounds

    b = Bounds(api.tables(api.compile_text(text, "t.soan"), 2))
    site = next(s for s in b.sites if isinstance(s.node, ir.Award) and s.node.item == "both")
    return b.award_amount(site)[1] < b.value_at(site, site.node.amount)[1]
