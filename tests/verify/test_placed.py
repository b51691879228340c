"""Pieces placed in one step of a round are distinct and stay there (verify/placed.py), on a small spec
whose answer is known by hand, with variants that must not tighten; every game is played (exhaustive)
and none scores above the proved maximum."""

from __future__ import annotations

import pytest

from test_score_bounds import proved_and_best

# Each player has three dice (reach 3, 2 and 1) and places one three times a round on their own spot;
# a die placed works `reach` times.  Between placing and working a procedure draws a note (it moves
# cards, but none from the spot).  The spot is cleared only in a later step.  A round gives at most
# 3 + 2 + 1 = 6 (the three dice, each once), not 3 placements x 3 = 9.
PLACED = """game "Placed" players 2..2
component die "die" { reach: 1..3 }
component note "note" { n: 1..1 = 1 }
zone hand: per_player public unordered
zone spot: per_player public unordered
zone notes: per_player public unordered
zone deck: shared hidden stack
cards die per player in hand { 1 x reach = 3
  1 x reach = 2
  1 x reach = 1 }
cards note in deck { 4 x n = 1 }
player { worked: 0..99 = 0 }
score work "work"
score tally "tally"
procedure refresh(p) { if count(deck) > 0 { draw 1 from deck to p.notes } }
procedure place(p) {
  choose d from p.hand by p "places a die" {
    move d to p.spot
    do refresh(p)
    repeat d.reach times {
      award 1 to p for work
      set p.worked += 1
    }
    AFTER
  }
}
rounds 1 {
  phase play { for p in players { do place(p)  do place(p)  do place(p) } }
  phase back { for p in players { move p.spot to p.hand } }
}
scoring { for p in players { award p.worked to p for tally } }
winner among p in players by vp(p) desc else shared
"""


def test_the_work_of_pieces_placed_in_a_round_is_the_best_of_distinct_pieces():
    """Three dice placed a round, each once: at most 6 (not 9), and a game reaches 6."""
    assert proved_and_best(PLACED.replace("AFTER", ""), "work") == (6, 6)


def test_a_counter_raised_by_the_work_of_placed_pieces_is_bounded_alike():
    """The same work counted on a player's counter and awarded at scoring: at most 6 (not 9)."""
    assert proved_and_best(PLACED.replace("AFTER", ""), "tally") == (6, 6)


def test_a_piece_taken_back_in_the_same_step_is_not_read_so():
    """When the placed die goes back to the hand right after its work, the 3 can be placed three times
    a round: 9, which a game reaches, so nothing is cut."""
    assert proved_and_best(PLACED.replace("AFTER", "move d to p.hand"), "work") == (9, 9)


def test_a_piece_swapped_out_of_its_place_in_the_same_step_is_not_read_so():
    """When the placed die is exchanged with one in the hand after its work, it can come again in the
    same round (3 + 3 + 3): 9, which a game reaches, so nothing is cut."""
    spec = PLACED.replace("AFTER", "if count(p.hand) > 0 { exchange d with first(p.hand) }")
    assert proved_and_best(spec, "work") == (9, 9)


# The same, with a second place: a die put on the bench is swapped there for the player's spare die
# (reach 1), after the same procedure call.  The swap takes from the bench only, so the spot still
# keeps its dice through the step: at most 6.
BENCHED = PLACED.replace("AFTER", "").replace("""zone notes:""", """zone bench: per_player public unordered
zone spare: per_player public unordered
zone notes:""").replace("""cards note in deck""", """cards die per player in spare { 1 x reach = 1 }
cards note in deck""").replace("""  choose d from p.hand by p "places a die" {
    move d to p.spot""", """  choose d from p.hand by p "places a die" {
   choose by p "where" {
   option bench {
    move d to p.bench
    do refresh(p)
    if count(p.spare) > 0 { exchange d with first(p.spare) }
   }
   option spot {
    move d to p.spot""").replace("""      set p.worked += 1
    }
""", """      set p.worked += 1
    }
   }
   }
""")


def test_a_swap_after_a_procedure_call_is_read_where_the_swapped_piece_lies():
    """The bench's swap follows a procedure call that moves other cards (a note drawn): the die it
    swaps is still known to lie on the bench, not on the spot, so the spot's work stays 6 (a game
    reaches 6)."""
    assert proved_and_best(BENCHED, "work") == (6, 6)


@pytest.mark.slow
def test_the_placed_work_bound_is_sound_on_random_variants():
    """Twenty variants (dice reaches, placements a round, rounds, what follows the work: nothing, the
    die taken back, swapped out, another call) played out in every game: none scores above the bound."""
    import random

    rng = random.Random(7)
    afters = ["", "move d to p.hand", "if count(p.hand) > 0 { exchange d with first(p.hand) }", "do refresh(p)"]
    for _ in range(20):
        after = rng.choice(afters)
        rounds = rng.choice([1, 2])
        places = rng.randint(1, 2 if rounds == 2 and after in afters[1:3] else 3)
        reaches = [rng.randint(1, 3) for _ in range(3)]
        spec = PLACED.replace("AFTER", after).replace("rounds 1 {", f"rounds {rounds} {{")
        spec = spec.replace("do place(p)  do place(p)  do place(p)", "  ".join(["do place(p)"] * places))
        spec = spec.replace("""cards die per player in hand { 1 x reach = 3
  1 x reach = 2
  1 x reach = 1 }""", "cards die per player in hand { " + "\n  ".join(f"1 x reach = {r}" for r in reaches) + " }")
        for item in ("work", "tally"):
            proved, best = proved_and_best(spec, item)
            assert best <= proved


def test_a_list_read_before_the_placement_is_followed_where_its_cards_go():
    """A list of the hand's dice read before the placement still names the placed die after it: taking
    each of the list's dice back to the hand takes from the spot too, so the 3 can be placed three
    times a round (9, which a game reaches) and nothing is cut."""
    spec = PLACED.replace("procedure place(p) {", "procedure place(p) {\n  let l = [c in p.hand]").replace(
        "    AFTER\n  }\n}", "  }\n  for x in l { move x to p.hand }\n}")
    for item in ("work", "tally"):
        assert proved_and_best(spec, item) == (9, 9)


def test_a_zone_a_local_holds_is_read_as_the_zone_after_the_placement():
    """A local holding the hand itself (not a list of its cards) names only the hand's cards when read
    after the placement: taking its dice back takes none from the spot, so the work stays 6 (a game
    reaches 6)."""
    spec = PLACED.replace("procedure place(p) {", "procedure place(p) {\n  let l = p.hand").replace(
        "    AFTER\n  }\n}", "  }\n  for x in l { move x to p.hand }\n}")
    assert proved_and_best(spec, "work") == (6, 6)


@pytest.mark.slow
def test_the_placed_work_bound_is_sound_with_lists_and_zones_read_before_the_placement():
    """Twenty variants with a list of the hand's (or notes') cards, or the zone itself, read before the
    placement and used after it (dice taken back through it, a procedure sweeping it, swapping with
    it), played out in every game: none scores above the bound."""
    import random

    rng = random.Random(11)
    procs = {"sweep": "procedure sweep(p, z) { for x in z { move x to p.hand } }",
             "swapit": "procedure swapit(p, z) { if count(p.hand) > 0 and count(z) > 0 { exchange first(p.hand) with first(z) } }",
             "toss": "procedure toss(p) { if count(p.notes) > 0 { move first(p.notes) to deck } }"}
    afters = ["", "do sweep(p, l)", "do swapit(p, l)", "for x in l { move x to p.hand }",
              "for x in l { if x != d { move x to p.hand } }", "do toss(p)"]
    for _ in range(20):
        after, before = rng.choice(afters), rng.choice(["", "do sweep(p, l)", "do toss(p)"])
        let = rng.choice(["[c in p.hand]", "p.hand", "[c in p.notes]", "p.notes"])
        rounds, places = rng.choice([1, 2]), rng.randint(1, 3)
        used = "\n".join(text for name, text in procs.items() if name in after + before)
        spec = PLACED.replace("AFTER", after).replace("rounds 1 {", f"rounds {rounds} {{").replace(
            "procedure place(p) {", f"{used}\nprocedure place(p) {{\n  let l = {let}\n  {before}")
        spec = spec.replace("do place(p)  do place(p)  do place(p)", "  ".join(["do place(p)"] * places))
        for item in ("work", "tally"):
            proved, best = proved_and_best(spec, item)
            assert best <= proved


# Three shared dice (reach 1, 3, 1) all dealt to the first player, who goes through the hand's dice as
# they lay at the start: each is taken back to the hand (from the spot, when an earlier pass placed
# it) and a die is placed.  The 3 placed in the first pass is the next pass's die: it comes back and
# is placed again, 3 + 3 + 1 = 7 a round, above the best three dice (5).
LOOPED = """game "Looped" players 2..2
component die "die" { reach: 1..3 }
zone pool: shared public unordered
zone hand: per_player public unordered
zone spot: per_player public unordered
cards die in pool { 1 x reach = 1
  1 x reach = 3
  1 x reach = 1 }
score work "work"
setup { for p in players { if count(pool) > 0 { move pool to p.hand } } }
procedure place(p) {
  choose d from p.hand by p "places a die" {
    move d to p.spot
    repeat d.reach times { award 1 to p for work }
  }
}
rounds 1 {
  phase play { for p in players { LOOP } }
  phase back { for p in players { move p.spot to p.hand } }
}
winner among p in players by vp(p) desc else shared
"""


def test_a_loops_later_cards_are_read_where_earlier_passes_moved_them():
    """A loop over the hand's dice as they lay at its start meets, in a later pass, a die an earlier
    pass placed: taking it back takes from the spot, so nothing is cut (three passes of up to 3: 9; a
    game reaches 7, above the best three dice's 5)."""
    assert proved_and_best(LOOPED.replace("LOOP", "for x in p.hand { move x to p.hand  do place(p) }"), "work") == (9, 7)


def test_a_loop_placing_its_own_cards_still_reads_the_rest_where_they_lay():
    """A loop that places each of its own dice in turn moves only the die of that pass: the rest still
    lie in the hand, and three placed dice a round give at most 5 (a game reaches 5)."""
    spec = LOOPED.replace("LOOP", "for x in p.hand { move x to p.spot  repeat x.reach times { award 1 to p for work } }")
    assert proved_and_best(spec, "work") == (5, 5)
