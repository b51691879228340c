"""Adversarial cases for the total read over one sharing of a player's placements (verify/budget.py,
total_max): shapes where its conditions hold on the surface but a careless reading would claim too
little (a place whose work feeds two items, work through a procedure also called elsewhere, loops in
the work, counters raised for another player, penalties, an item best with no placements at a place,
a die moved twice in one choice, dice swapped through an exchange, shared work areas, marked cards and
a cut at scoring).  Every game of each small spec is played (exhaustive) and none totals above the
proved maximum; where the answer is known by hand the proved and reached totals are checked too."""

from __future__ import annotations

import random
import re

import pytest

from soan import api
from soan.verify.bounds import Bounds
from soan.verify.exhaustive import all_games

# Each player has one die, placed once a round at one of two places of their own: "take" draws a chip
# onto their pile, "coin" gives 2 coins.  The die comes back in a later step of the round.
SPEC = """game "Coins" players 2..3
component die "die" { pips: 1..3 = 1 }
component chip "chip" { n: 1..2 = 1 }
zone hand: per_player public unordered
zone take_spot: per_player public unordered
zone coin_spot: per_player public unordered
zone deck: shared hidden stack
zone pool: per_player public unordered
zone pile: per_player public unordered
player { tok: 0..40 = 0 }
cards die per player in hand { DICE }
EXTRACARDS
cards chip in deck { 12 x n = 1 }
score chips "chips"
score coins "coins"
score bonus "bonus"
procedure back(p) { move p.take_spot to p.hand  move p.coin_spot to p.hand }
PROCS
procedure place(p) {
  choose d from p.hand by p "places a die" {
    WORK
  }
}
rounds ROUNDS {
  phase play { for p in players { PLACE } }
  phase home { for p in players { do back(p) } }
  EXTRAPHASE
}
scoring { for p in players { award count(p.pile) to p for chips  SCORING } }
winner among p in players by vp(p) desc else shared
"""

PLACES = """choose by p "where" {
      option take { move d to p.take_spot  draw 1 from deck to p.pile  TAKE }
      option coin { move d to p.coin_spot  award 2 to p for coins  COIN }
    }"""

BASE = {"WORK": PLACES, "TAKE": "", "COIN": "", "ROUNDS": "3", "PLACE": "do place(p)", "DICE": "1 x pips = 1",
        "SCORING": "", "EXTRACARDS": "", "PROCS": "", "EXTRAPHASE": ""}


def spec(**changes) -> str:
    """The spec with its placeholders filled (WORK first: it holds others)."""
    text = SPEC
    for key, value in {**BASE, **changes}.items():
        text = re.sub(rf"\b{key}\b", lambda _: value, text)
    return text


def proved_and_best(text: str, n: int = 2, leaves: int = 300_000) -> tuple[int, int]:
    """The proved maximum of one player's total and the most any game of the spec gives a player in
    all; fails when a game totals above the proved maximum."""
    t = api.tables(api.compile_text(text, "t.soan"), n)
    lo, hi = Bounds(t).score_bounds()["total"]
    assert lo.status == hi.status == "proved"
    games = all_games(t, max_leaves=leaves)
    assert games is not None
    best = max(max(g.scores) for g in games if g.completed)
    assert best <= hi.value, f"a game totals {best}, above the proved {hi.value}"
    return hi.value, best


def test_work_that_feeds_a_second_item_through_a_loop_is_read_in_full():
    """A coin placement also gives a bonus point twice (`repeat 2 times`): 4 a coin placement, 12 in three
    rounds, which a game reaches; the sharing may not read the loop once."""
    assert proved_and_best(spec(COIN="repeat 2 times { award 1 to p for bonus }")) == (12, 12)


def test_work_through_a_procedure_also_called_in_another_step_counts_both():
    """The coin placement calls pay (a coin and a token), which another step of the round also calls for
    everyone; the tokens score at the end: three coin rounds give 3 x 3 + 3 coins and 6 tokens, 18, which
    a game reaches."""
    text = spec(PROCS="procedure pay(p) { award 1 to p for coins  set p.tok += 1 }", COIN="do pay(p)",
                EXTRAPHASE="phase extra { for p in players { do pay(p) } }",
                SCORING="award p.tok to p for bonus")
    assert proved_and_best(text) == (18, 18)


def test_tokens_a_placement_gives_the_next_player_are_not_the_placers_share():
    """Taking a chip gives the next player two tokens, worth a point each at the end: one player places
    on coins (6) while the other takes three times for them (6 tokens), 12; the bound stays above it."""
    proved, best = proved_and_best(spec(TAKE="set next(p).tok += 2", SCORING="award p.tok to p for bonus"))
    assert best == 12 and proved >= 12


def test_a_penalty_in_a_placements_work_does_not_lower_the_others():
    """Taking a chip costs a coin (an award of -1) and the pile scores twice: with x takes x + 2(3 - x)
    - x + x, at most 6 (all coins, or all takes), which a game reaches."""
    assert proved_and_best(spec(TAKE="award 0 - 1 to p for coins", SCORING="award count(p.pile) to p for bonus")) == (6, 6)


def test_an_item_won_only_with_no_takes_is_added_at_its_maximum():
    """A bonus of 7 when the pile is empty: all coins, 6 + 7 = 13, which a game reaches."""
    assert proved_and_best(spec(SCORING="if count(p.pile) == 0 { award 7 to p for bonus }")) == (13, 13)


def test_an_amount_falling_with_the_pile_is_read_at_its_low_end():
    """A bonus of 6 - 2 a chip: all coins, 6 + 6 = 12, which a game reaches; the sharing must read the
    falling part at the fewest chips."""
    assert proved_and_best(spec(SCORING="award 6 - 2 * count(p.pile) to p for bonus")) == (12, 12)


def test_an_award_in_a_loop_over_the_pile_reading_the_pile_is_read_per_card():
    """A bonus of the pile's size for each chip (the square): three takes, 3 + 9 = 12, which a game
    reaches."""
    assert proved_and_best(spec(SCORING="for c in p.pile { award count(p.pile) to p for bonus }")) == (12, 12)


def test_a_die_moved_twice_in_one_choice_is_not_one_placement():
    """The chosen die goes to the take spot and then, in a second `if`, on to the coin spot: every round
    gives a chip and two coins, 9 in all, which a game reaches; the sharing may not count one
    placement for the two moves."""
    work = """if count(p.pile) >= 0 { move d to p.take_spot  draw 1 from deck to p.pile }
    if count(p.pile) >= 0 { move d to p.coin_spot  award 2 to p for coins }"""
    assert proved_and_best(spec(WORK=work)) == (9, 9)


def test_a_die_swapped_through_an_exchange_before_its_move_is_not_budgeted_by_the_hand():
    """The chosen die is first exchanged with one of the player's pool dice (the hand keeps its count),
    and then that die (now in the pool) is placed: three turns a round place three dice though the
    hand holds one: 6 coins in one round, which a game reaches."""
    work = """choose x from p.pool by p "swaps" { exchange d with x }
    """ + PLACES
    text = spec(WORK=work, ROUNDS="1", PLACE="do place(p)  do place(p)  do place(p)",
                EXTRACARDS="cards die per player in pool { 3 x pips = 2 }")
    proved, best = proved_and_best(text)
    assert best == 6 and proved >= 6


def test_three_players_share_their_own_placements_only():
    """At three players the chips also score twice through a bonus: with x takes x + 2x + 2(3 - x), 9 at
    three takes, which a game reaches."""
    assert proved_and_best(spec(SCORING="award 2 * count(p.pile) to p for bonus"), n=3) == (9, 9)


# Placements on a shared work area of one space, taken back by their owner: the area's space is
# shared by the players, each player's dice by the items.
AREA = """game "Area" players 2..2
component die "die" { pips: 1..3 = 1 }
component chip "chip" { n: 1..1 = 1 }
zone hand: per_player public unordered
zone area: shared public unordered
zone spot: per_player public unordered
zone deck: shared hidden stack
zone pile: per_player public unordered
cards die per player in hand { 1 x pips = 1  1 x pips = 2 }
cards chip in deck { 12 x n = 1 }
score chips "chips"
score coins "coins"
procedure place(p) {
  choose d from p.hand by p "places a die" {
    choose by p "where" {
      option take "the shared area" when count(area) < 1 { move d to area  draw 1 from deck to p.pile }
      option coin { move d to p.spot  award d.pips to p for coins }
    }
  }
}
rounds 2 {
  phase play { for p in players { do place(p) }  for p in players { do place(p) } }
  phase home { for p in players { move [x in area where x.owner == p] to p.hand  move p.spot to p.hand } }
}
scoring { for p in players { award 3 * count(p.pile) to p for chips } }
winner among p in players by vp(p) desc else shared
"""


def test_a_shared_area_of_one_space_is_read_with_each_players_own_dice():
    """Two dice a player (1 and 2 pips), two rounds, a shared area of one space worth a chip (3 points) and
    a spot of one's own worth the pips: the first player takes the area each round with the small die
    and puts the large one on the spot, 2 x (3 + 2) = 10, which a game reaches."""
    proved, best = proved_and_best(AREA)
    assert best == 10 and proved >= 10


# Marked chips and a cut at scoring: sides are cut down to the mains' count before they score.
MARKED = """game "Marked" players 2..2
enum rr = main, side
component die "die" { pips: 1..3 = 1 }
component chip "chip" { n: 1..2 = 1  state role: rr = main  state marked: bool }
zone hand: per_player public unordered
zone a_spot: per_player public unordered
zone b_spot: per_player public unordered
zone deck: shared hidden stack
zone trash: shared public stack
zone pile: per_player public unordered
player { tok: 0..40 = 0 }
cards die per player in hand { 1 x pips = 1 }
cards chip in deck { 2 x n = 1  2 x n = 2 }
score chips "chips"
score coins "coins"
score bonus "bonus"
def mains(p) = [c in p.pile where c.role == main]
def sides(p) = [c in p.pile where c.role == side]
procedure take(p) {
  choose c from deck by p "takes a chip" {
    choose by p "as" { option m { set c.role = main } option s { set c.role = side } }
    move c to p.pile
  }
}
procedure mark(p) {
  if any(c in p.pile where not c.marked) {
    choose c from [x in p.pile where not x.marked] by p "marks" { set c.marked = true }
  }
}
procedure judge(p) {
  let over = count(sides(p)) - count(mains(p))
  if over > 0 { choose out exactly over from sides(p) by p "cuts" { move out to trash } }
}
procedure place(p) {
  choose d from p.hand by p "places a die" {
    choose by p "where" {
      option a { move d to p.a_spot  do take(p) }
      option b { move d to p.b_spot  do mark(p)  set p.tok += 1 }
    }
  }
}
rounds 2 {
  phase play { for p in players { do place(p) } }
  phase home { for p in players { move p.a_spot to p.hand  move p.b_spot to p.hand } }
}
scoring {
  for p in players { do judge(p) }
  for p in players {
    award sum(c.n + (if c.marked then 2 else 0) for c in p.pile) to p for chips
    award count(sides(p)) * (2 + p.tok) to p for bonus
    award count(c in mains(p) where c.marked) * 2 to p for coins
  }
}
winner among p in players by vp(p) desc else shared
"""


def test_marked_chips_and_a_cut_at_scoring_share_the_placements():
    """Takes give chips (a main or a side), the other place marks a chip and gives a token; sides are cut
    to the mains' count, then chips score their value (+2 marked), sides 2 + tokens each and marked
    mains 2: in two rounds a take and a mark (a main of 2, marked: 4 + 2) or two takes (a main and a side
    of 2: 4 + 2) give 6, the best game, within the proved total."""
    proved, best = proved_and_best(MARKED)
    assert best == 6 and proved >= best


@pytest.mark.slow
def test_random_placement_work_never_totals_above_the_bound():
    """Forty random variants (what each place's work does, what scores at the end, the dice, the turns and
    rounds, two or three players) played out in every game: none totals above the proved maximum."""
    rng = random.Random(2026)
    works = ["", "draw 1 from deck to p.pile", "award 1 to p for bonus", "set p.tok += 1", "set next(p).tok += 1",
             "award 0 - 1 to p for coins", "repeat 2 times { award 1 to p for coins }", "do pay(p)",
             "award count(p.pile) to p for coins", "award d.pips to p for bonus",
             "choose by p \"extra\" { option x { draw 1 from deck to p.pile } option y { set p.tok += 2 } }",
             "if count(p.pile) > 1 { award 3 to p for coins } else { draw 1 from deck to p.pile }"]
    scorings = ["", "award p.tok to p for bonus", "award p.tok * count(p.pile) to p for bonus",
                "award count(c in p.pile where c.n == 1) to p for coins", "award 6 - count(p.pile) to p for bonus",
                "if count(p.pile) > 0 { award 2 * count(p.pile) to p for bonus } else { award 1 to p for bonus }",
                "if count(p.pile) == 0 { award 5 to p for coins }"]
    checked = 0
    for _ in range(40):
        dice = rng.choice(["1 x pips = 1", "1 x pips = 1  1 x pips = 3"])
        place = "do place(p)  do place(p)" if "  " in dice else "do place(p)"
        text = spec(TAKE=rng.choice(works), COIN=rng.choice(works), DICE=dice, PLACE=place,
                    ROUNDS=str(rng.randint(1, 2 if "  " in dice else 3)), SCORING=rng.choice(scorings),
                    PROCS="procedure pay(p) { award 1 to p for coins  set p.tok += 1 }",
                    EXTRAPHASE=rng.choice(["", "phase extra { for p in players { do pay(p) } }"]))
        proved_and_best(text, n=rng.choice([2, 2, 3]))
        checked += 1
    assert checked == 40
