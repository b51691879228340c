"""A yes/no state that only a player's own placements set on their own cards is counted from their
placements (verify/budget.py, a sum reading a state few cards hold: verify/rare_states.py), on a small
spec whose answer is known by hand, with near misses that must not tighten; every game is played
(exhaustive) and none scores above the proved maximum."""

from __future__ import annotations

import pytest

from test_score_bounds import proved_and_best

# Each player has one die, placed once a round at one of two places of their own: "take" draws a chip
# onto their pile, "polish" polishes one of the chips on their pile.  The die comes back in a later step.
# Scoring: 1 a chip, 3 a polished one.  Three rounds give three placements, shared between the places:
# two chips, one polished, 3 + 1 = 4.  Read apart, 3 chips (three takes) and 6 polishes (every
# placement of the table) say 3 x 3 = 9.
POLISH = """game "Polish" players 2..2
component die "die" { pips: 1..1 = 1 }
component chip "chip" { n: 1..1 = 1  state polished: bool }
zone hand: per_player public unordered
zone take_spot: per_player public unordered
zone polish_spot: per_player public unordered
zone gift_spot: per_player public unordered
zone deck: shared hidden stack
zone pile: per_player public unordered
cards die per player in hand { 1 x pips = 1 }
cards chip in deck { 12 x n = 1 }
score worth "worth"
procedure back(p) { move p.take_spot to p.hand  move p.polish_spot to p.hand  move p.gift_spot to p.hand }
procedure place(p) {
  choose d from p.hand by p "places a die" {
    choose by p "where" {
      option take { move d to p.take_spot  draw 1 from deck to p.pile }
      option polish { move d to p.polish_spot  POLISH }
      GIFT
    }
  }
}
rounds ROUNDS {
  phase play { for p in players { do place(p) } }
  phase home { for p in players { do back(p) } }
}
scoring { for p in players { award AMOUNT to p for worth } }
winner among p in players by vp(p) desc else shared
"""

OWN = """if any(c in p.pile where not c.polished) {
        choose c from [x in p.pile where not x.polished] by p "polishes" { set c.polished = true }
      }"""

BASE = {"POLISH": OWN, "GIFT": "", "ROUNDS": "3", "AMOUNT": "sum((if c.polished then 3 else 1) for c in p.pile)"}


def spec(**changes) -> str:
    """The spec with its placeholders filled."""
    text = POLISH
    for key, value in {**BASE, **changes}.items():
        text = text.replace(key, value)
    return text


def test_cards_taken_and_marked_at_two_places_share_the_pieces_placed():
    """Three placements shared between taking chips and polishing them: 3 + 1 = 4 (read apart, 9), and a
    game reaches 4."""
    assert proved_and_best(spec(), "worth") == (4, 4)


def test_more_rounds_give_more_placements():
    """Four placements: two chips, both polished, 6 (read apart, 4 chips all polished: 12); a game
    reaches 6."""
    assert proved_and_best(spec(ROUNDS="4"), "worth") == (6, 6)


def test_polishing_the_other_players_chips_is_not_the_placers():
    """Each polishes a chip of the other's pile: one player takes three chips and the other polishes all
    three, 9, which a game reaches; the bound stays at least that (counted from the owner's own
    placements it would say 3)."""
    proved, best = proved_and_best(spec(POLISH=OWN.replace("p.pile", "next(p).pile")), "worth")
    assert best == 9 and proved >= 9


def test_polishing_every_players_chip_is_not_the_placers():
    """Each polish polishes one chip of every player's pile (the set's card chosen from a pile of the
    loop's player, not the placer's): one player takes three chips and the other's three polishes
    polish them, 9, which a game reaches; the bound stays at least that."""
    every = "for q in players { " + OWN.replace("p.pile", "q.pile").replace('by p "polishes"', 'by q "polishes"') + " }"
    proved, best = proved_and_best(spec(POLISH=every), "worth")
    assert best == 9 and proved >= 9


STEAL = """option steal {
        move d to p.gift_spot
        if count(next(p).pile) > 0 { choose g from next(p).pile by p "takes a chip" { move g to p.pile } }
      }"""


def test_chips_taken_from_the_other_player_carry_their_polish():
    """A third place takes a chip from the other's pile: a chip the other polished ends on the taker's
    pile, so the taker's own placements do not count every polished chip of their pile (they would
    say 4: two chips, one polished); a game reaches 6 (take, take the other's polished chip, polish
    one's own) and the bound stays at least that."""
    proved, best = proved_and_best(spec(GIFT=STEAL), "worth")
    assert best == 6 and proved >= 6


SWAP = """option swap {
        move d to p.gift_spot
        if count(p.pile) > 0 and count(next(p).pile) > 0 {
          choose g from p.pile by p "gives" { choose h from next(p).pile by p "takes" { exchange g with h } }
        }
      }"""


def test_chips_swapped_with_the_other_player_carry_their_polish():
    """A third place swaps one of the player's chips for one of the other's (an exchange: no count
    changes): a chip the other polished comes to the swapper's pile, so the own placements' count of
    polished chips (4) does not hold; a game reaches 6 and the bound stays at least that."""
    proved, best = proved_and_best(spec(GIFT=SWAP), "worth")
    assert best == 6 and proved >= 6


@pytest.mark.slow
def test_counting_marks_from_placements_is_sound_on_random_variants():
    """Twenty-four variants (rounds, whose pile a polish marks, chips given, taken or swapped between players, the amount)
    played out in every game: none scores above the bound, and the placements count the marks in
    several of them."""
    import random

    rng = random.Random(5)
    polishes = [OWN, OWN, OWN.replace("p.pile", "next(p).pile"),
                OWN + "\n      if count(p.pile) > 0 { move first(p.pile) to next(p).pile }",
                OWN + "\n      if count(p.pile) > 0 and count(next(p).pile) > 0 { exchange first(p.pile) with first(next(p).pile) }",
                OWN.replace("set c.polished = true", "set c.polished = true  set c.polished = false")]
    gifts = ["", "", STEAL, SWAP, """option gift {
        move d to p.gift_spot
        if count(p.pile) > 0 { choose g from p.pile by p "gives a chip" { move g to next(p).pile } }
      }"""]
    amounts = ["sum((if c.polished then 3 else 1) for c in p.pile)", "sum((if c.polished then 2 else 0) for c in p.pile)",
               "sum((if c.polished then 1 else 2) for c in p.pile)",
               "sum((if c.polished then 3 else 1) for c in p.pile) + count(p.pile)"]
    tightened = 0
    for _ in range(24):
        text = spec(ROUNDS=str(rng.randint(1, 4)), POLISH=rng.choice(polishes), GIFT=rng.choice(gifts),
                    AMOUNT=rng.choice(amounts))
        proved, best = proved_and_best(text, "worth")
        assert best <= proved
        tightened += _read_together(text)
    assert tightened >= 5, f"the placements count the marks in {tightened} variants only: too few to test it"


def _read_together(text: str) -> bool:
    """Whether the award's amount was bounded lower by reading its counts over the shared placements."""
    from soan import api
    from soan.dsl import ir
    from soan.verify.bounds import Bounds

    b = Bounds(api.tables(api.compile_text(text, "t.soan"), 2))
    site = next(s for s in b.sites if isinstance(s.node, ir.Award) and s.node.item == "worth")
    return b.award_amount(site)[1] < b.value_at(site, site.node.amount)[1]
