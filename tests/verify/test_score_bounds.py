"""The score bounds' sharper readings, each on a small spec whose answer is known by hand, with a
case where the reading must not apply; every game of each spec is played (exhaustive) and none
scores above the proved maximum."""

from __future__ import annotations

from soan import api
from soan.verify.bounds import Bounds
from soan.verify.exhaustive import all_games


def proved_and_best(text: str, item: str, n: int = 2) -> tuple[int, int]:
    """The proved maximum of `item` for one player, and the most any game of the spec gives a player."""
    t = api.tables(api.compile_text(text, "t.soan"), n)
    lo, hi = Bounds(t).score_bounds()[item]
    assert lo.status == hi.status == "proved"
    games = all_games(t, max_leaves=200_000)
    assert games is not None
    best = max(max(g.items[item]) for g in games if g.completed)
    assert best <= hi.value, f"a game scores {best} {item}, above the proved {hi.value}"
    return hi.value, best


OWN_CHIPS = """game "Own chips" players 2..2
component chip "chip" { size: 1..1 = 1 }
zone stock: per_player public unordered
zone hand: per_player public unordered
cards chip per player in stock { 3 x size = 1 }
score held "held"
procedure take(p) { move p.stock to p.hand }
rounds 3 {
  for p in players { do take(p) }
}
scoring { for p in players { award count(p.hand) to p for held } }
winner among p in players by vp(p) desc else shared
"""


def test_a_players_zone_holds_at_most_their_own_set_when_the_rules_keep_sets_apart():
    """Chips dealt 3 per player and only ever taken from one's own stock (all at once, each round): one
    player's hand holds at most 3 (not the 6 of both sets), and a game reaches 3."""
    assert proved_and_best(OWN_CHIPS, "held") == (3, 3)


def test_a_zone_filled_from_another_players_set_counts_every_set():
    """Taking from the next player's stock lets both sets into one player's hand: the bound stays 6
    (a game reaches 3: each player takes the other's three)."""
    assert proved_and_best(OWN_CHIPS.replace("move p.stock", "move next(p).stock"), "held") == (6, 3)


LATCH = """game "Latch" players 2..2
score bonus "bonus"
player { done: bool }
procedure mark(p) { set p.done = true }
procedure unmark(p) { set p.done = false }
procedure reward(p) {
  choose by p "takes" {
    option nothing { do mark(player(1)) }
    option bonus { award 1 to p for bonus }
  }
}
procedure act(p) {
  choose by p "acts" {
    option rest { }
    option finish { FINISH }
  }
}
rounds 2 {
  phase play {
    while any(q in players where not q.done) max 3 {
      TURNS
    }
  }
  phase tidy { for p in players { set p.done = false } }
}
winner among p in players by vp(p) desc else shared
"""


def latch(finish: str = "set p.done = true  award 1 to p for bonus",
          turns: str = "for p in players where not p.done { do act(p) }") -> str:
    return LATCH.replace("FINISH", finish).replace("TURNS", turns)


def test_an_award_after_setting_the_flag_its_turns_test_fires_once_a_round():
    """A player acts only while `not p.done`, and finishing sets p.done before the award; the flag is
    cleared only in a later step of the round: the award fires once a round (2), not once a pass (6)."""
    assert proved_and_best(latch(), "bonus") == (2, 2)


def test_an_if_not_flag_around_the_turn_latches_the_award_too():
    """`if not p.done { do act(p) }` inside a loop over every player guards the turn like a filter does."""
    turns = "for p in players { if not p.done { do act(p) } }"
    assert proved_and_best(latch(turns=turns), "bonus") == (2, 2)


def test_a_flag_cleared_in_the_same_step_lets_the_award_fire_every_pass():
    """The flag cleared after every pass (in the same step as the award): a player finishes in each of the
    3 passes of each round, 6 in all, and the bound is 6."""
    turns = "for p in players where not p.done { do act(p) }\n      for p in players { set p.done = false }"
    assert proved_and_best(latch(turns=turns), "bonus") == (6, 6)


def test_a_flag_cleared_again_before_the_award_does_not_latch_it():
    """`set p.done = true  set p.done = false  award ...`: the flag is down again when the award fires, so
    a player finishes in every pass: 6."""
    finish = "set p.done = true  set p.done = false  award 1 to p for bonus"
    assert proved_and_best(latch(finish=finish), "bonus") == (6, 6)


def test_an_award_repeated_inside_one_turn_is_not_latched_to_once():
    """Two awards in one turn after the flag is set: twice a round (4 in a game), bounded by every pass (12)."""
    finish = "set p.done = true  repeat 2 times { award 1 to p for bonus }"
    assert proved_and_best(latch(finish=finish), "bonus") == (12, 4)


def test_a_flag_set_by_one_procedure_latches_an_award_in_the_next():
    """`do mark(p)  do reward(p)`: the flag a procedure leaves set on its parameter holds in the caller and in
    the next procedure, whatever another option of that procedure does: once a round (2)."""
    assert proved_and_best(latch(finish="do mark(p)  do reward(p)"), "bonus") == (2, 2)


def test_a_procedure_that_clears_the_flag_in_between_does_not_latch_the_award():
    """`do mark(p)  do unmark(p)  do reward(p)`: the flag is down again at the award: every pass (6)."""
    assert proved_and_best(latch(finish="do mark(p)  do unmark(p)  do reward(p)"), "bonus") == (6, 6)


TURN = """game "Turn" players 2..2
score bonus "bonus"
score extra "extra"
procedure turn(p) {
  let done = false
  while not done max 3 {
    choose by p "acts" {
      option finish { FINISH }
      option wait { award 1 to p for extra }
    }
  }
}
rounds 2 { for p in players { do turn(p) } }
winner among p in players by vp(p) desc else shared
"""


def test_what_a_turn_does_before_setting_done_fires_once_per_turn():
    """`while not done max 3`, one option awarding and then setting done: the award fires once per turn (2 in
    two rounds), the other option every pass (6)."""
    text = TURN.replace("FINISH", "award 1 to p for bonus  set done = true")
    assert proved_and_best(text, "bonus") == (2, 2)
    assert proved_and_best(text, "extra") == (6, 6)


def test_a_done_flag_set_back_to_false_in_the_loop_ends_nothing():
    """`set done = true  set done = false`: the loop goes on, so the award fires every pass (6)."""
    text = TURN.replace("FINISH", "award 1 to p for bonus  set done = true  set done = false")
    assert proved_and_best(text, "bonus") == (6, 6)


def test_a_loop_before_setting_done_still_multiplies_within_the_turn():
    """Two awards in a `repeat 2` before `set done = true`: twice per turn, 4 in two rounds."""
    text = TURN.replace("FINISH", "repeat 2 times { award 1 to p for bonus }  set done = true")
    assert proved_and_best(text, "bonus") == (4, 4)


VALUES = """game "Values" players 2..2
component gem "gem" { v: 0..20 }
zone pool: shared public unordered
zone hand: per_player public unordered
cards gem in pool { 1 x v = 1  1 x v = 2  1 x v = 3  1 x v = 10 }
score worth "worth"
rounds 4 {
  for p in players { may choose c from pool by p "takes a gem" { move c to p.hand } }
}
scoring { for p in players { award SUM to p for worth } }
winner among p in players by vp(p) desc else shared
"""


def test_a_sum_over_a_zones_cards_is_at_most_the_largest_values_those_cards_have():
    """`sum(c.v for c in p.hand)` over gems worth 1, 2, 3 and 10 (declared 0..20): at most 16, what all four
    are worth, not 4 x 20; a game reaches 16 (the other player passes)."""
    assert proved_and_best(VALUES.replace("SUM", "sum(c.v for c in p.hand)"), "worth") == (16, 16)


def test_a_sum_over_a_list_that_names_each_card_twice_is_not_read_as_distinct_cards():
    """`[x in p.hand] + [x in p.hand]` counts each gem twice: it is read as 8 items of up to 20 each (160), and a game reaches 32."""
    assert proved_and_best(VALUES.replace("SUM", "sum(c.v for c in [x in p.hand] + [x in p.hand])"), "worth") == (160, 32)


SPENT = """game "Spent" players 2..2
component coin "coin" { v: 1..1 = 1 }
zone pool: shared public unordered
zone spent: shared public unordered
cards coin in pool { 3 x v = 1 }
score used "used"
rounds 4 {
  for p in players {
    may choose c from pool by p "spends a coin" {
      move c to spent
      award 1 to p for used
    }
  }
  REFILL
}
winner among p in players by vp(p) desc else shared
"""


def test_a_choice_that_discards_the_chosen_card_for_good_runs_once_per_card():
    """Each coin spent goes to a pile no rule takes from: at most 3 spends in a game, and all 3 may be one
    player's (not 3 shared out among the players), though the loop offers 4."""
    assert proved_and_best(SPENT.replace("REFILL", ""), "used") == (3, 3)


def test_a_discard_that_the_rules_take_back_is_no_limit():
    """`move spent to pool` each round: a coin can be spent again, so a player spends one every round (4)."""
    assert proved_and_best(SPENT.replace("REFILL", "move spent to pool"), "used") == (4, 4)


FIRST_ROUND = """game "First round" players 2..2
score early "early"
rounds 3 {
  for p in players { choose by p "claims" { option claim { if TEST { award 5 to p for early } } option skip { } } }
}
winner among p in players by vp(p) desc else shared
"""


def test_a_branch_under_round_equals_a_number_runs_in_one_round_only():
    """`if round == 1 { award 5 }` in a three-round game: at most 5, not 15."""
    assert proved_and_best(FIRST_ROUND.replace("TEST", "round == 1"), "early") == (5, 5)


def test_a_branch_under_a_range_of_rounds_is_not_read_as_one_round():
    """`if round >= 2`: two rounds award 5 each (10); the bound stays every round's (15)."""
    assert proved_and_best(FIRST_ROUND.replace("TEST", "round >= 2"), "early") == (15, 10)


ROW = """game "Row" players 2..2
component tile "tile" { v: 1..1 = 1 }
zone deck: shared hidden stack
zone row: shared public row
cards tile in deck { 10 x v = 1 }
score seen "seen"
rounds 2 { draw DRAWN from deck to row }
scoring { for p in players { award count(row) to p for seen } }
winner among p in players by vp(p) desc else shared
"""


def test_a_zone_holds_at_most_the_cards_that_can_arrive_there():
    """One tile drawn into the row in each of two rounds: the row holds at most 2 of the deck's 10."""
    assert proved_and_best(ROW.replace("DRAWN", "1"), "seen") == (2, 2)


def test_the_cards_that_arrive_count_each_move_by_its_size():
    """Three tiles a round: 6 arrive, and the row holds 6."""
    assert proved_and_best(ROW.replace("DRAWN", "3"), "seen") == (6, 6)


EMPTY_HAND = """game "Empty hand" players 2..2
component card "card" { v: 1..1 = 1 }
zone hand: shared public unordered
zone pile: shared public unordered
cards card in hand { 2 x v = 1 }
score played "played"
rounds 1 {
  while count(hand) > 0 max 4 {
    PLAY
  }
}
scoring { move pile to hand }
winner among p in players by vp(p) desc else shared
"""


def test_a_loop_whose_cap_is_proved_out_of_reach_runs_only_the_passes_proved():
    """Each pass plays one of the 2 cards: the loop makes at most 2 passes (its cap of 4 is proved out of
    reach), so at most 2 plays."""
    play = 'choose c from hand by player(1) "plays" { move c to pile  award 1 to player(1) for played }'
    assert proved_and_best(EMPTY_HAND.replace("PLAY", play), "played") == (2, 2)


def test_a_loop_that_may_pass_without_playing_keeps_its_cap():
    """`may choose`: a pass may play nothing, so the cap is not proved out of reach: the bound is the 4
    passes (a game plays 2)."""
    play = 'may choose c from hand by player(1) "plays" { move c to pile  award 1 to player(1) for played }'
    assert proved_and_best(EMPTY_HAND.replace("PLAY", play), "played") == (4, 2)


SLOTS = """game "Slots" players 2..2
component slot "slot" { size: 1..1 = 1  state dish: card }
component food "food" { v: 1..1 = 1 }
zone slots: per_player public row
zone pantry: per_player public unordered
zone cooking: per_player public row
cards slot per player in slots { 2 x size = 1 }
cards food per player in pantry { 4 x v = 1 }
score cooked "cooked"
procedure place(p) {
  may choose m from p.pantry by p "cooks" {
    choose g from [s in p.slots where s.dish == none] by p "on a slot" {
      set g.dish = m
      move m to p.cooking
    }
  }
}
rounds 4 {
  for p in players { do place(p) }
  FREE
}
scoring { for p in players { award count(p.cooking) to p for cooked } }
winner among p in players by vp(p) desc else shared
"""


def test_a_zone_whose_every_card_takes_a_free_slot_for_good_holds_no_more_than_the_slots():
    """Each food cooked is laid on a slot that held none, and no rule frees a slot: a player cooks at most 2
    (their slots), though four rounds could bring 4 foods."""
    assert proved_and_best(SLOTS.replace("FREE", ""), "cooked") == (2, 2)


def test_slots_freed_again_hold_no_limit():
    """`set g.dish = none` each round frees the slots: a player cooks one a round, 4."""
    free = "for p in players { for g in p.slots { set g.dish = none } }"
    assert proved_and_best(SLOTS.replace("FREE", free), "cooked") == (4, 4)


AREA = """game "Area" players 2..2
component worker "worker" { v: 1..1 = 1 }
zone hand: per_player public unordered
zone area: shared public unordered capacity 1
zone rest: shared public unordered
cards worker per player in hand { 4 x v = 1 }
score gain "gain"
procedure place(p) {
  may choose w from p.hand by p "places" {
    if count(area) < 1 {
      move w to area
      award 1 to p for gain
    }
  }
}
rounds 2 {
  phase work {
    repeat 2 times {
      for p in players { do place(p) }
      MIDDLE
    }
  }
  phase tidy { move area to rest }
}
winner among p in players by vp(p) desc else shared
"""


def test_what_follows_a_placement_on_a_full_work_area_runs_at_most_its_capacity_a_round():
    """A work area of capacity 1, emptied only in a later step: one placement a round for all players, so at
    most 2 in two rounds (the turns offer 4)."""
    assert proved_and_best(AREA.replace("MIDDLE", ""), "gain") == (2, 2)


def test_a_work_area_emptied_in_the_same_step_is_no_limit():
    """Emptied after every turn of the round: a player places twice a round, 4."""
    assert proved_and_best(AREA.replace("MIDDLE", "move area to rest"), "gain") == (4, 4)


def test_a_card_taken_back_out_of_the_discard_by_its_local_is_not_spent():
    """`move c to spent  move c to pool`: the second move takes the coin out of the pile it was spent into
    (the local names it there now), so the pile is no sink and a player spends every round (4)."""
    text = SPENT.replace("REFILL", "").replace("move c to spent", "move c to spent  move c to pool")
    assert proved_and_best(text, "used") == (4, 4)


CARD_SUM = """game "Card sum" players 2..2
component gem "gem" { value: 1..4 }
zone pool: shared public unordered
zone hand: per_player public unordered
cards gem in pool { 1 x value = 1  1 x value = 2  1 x value = 4 }
score gems "gems"
rounds 2 {
  for p in players { choose g from pool by p "takes a gem" { move g to p.hand } }
}
scoring { for p in players { AWARD } }
winner among p in players by vp(p) desc else shared
"""


def test_an_award_once_per_card_is_bounded_by_the_largest_cards_the_list_can_hold():
    """Gems worth 1, 2 and 4, a hand that takes one a round for two rounds, each gem in hand scored at its
    worth: at most 4 + 2 = 6 (not 2 x 4 = 8), and a game reaches 6."""
    assert proved_and_best(CARD_SUM.replace("AWARD", "for g in p.hand { award g.value to p for gems }"),
                           "gems") == (6, 6)


def test_an_award_repeated_inside_the_card_loop_is_not_read_as_once_per_card():
    """The same award made once per player for each gem in hand fires twice per gem: the bound stays
    2 x 2 x 4 = 16 (a game reaches 12), never the 6 of once per card."""
    award = "for g in p.hand { for q in players { award g.value to p for gems } }"
    assert proved_and_best(CARD_SUM.replace("AWARD", award), "gems") == (16, 12)


GROW = """game "Grow" players 2..2
component die "die" { size: 1..3 }
zone stock: per_player public unordered
zone hand: per_player public unordered
zone area: shared public unordered capacity 1
cards die per player in stock { 1 x size = 1  1 x size = 2  1 x size = 3 }
score placed "placed"
setup { for p in players { move take([d in p.stock where d.size < 3], 2) to p.hand } }
rounds 2 {
  phase work {
    for p in players {
      repeat 2 times {
        choose d from p.hand by p "places a die" {
          choose by p "where" {
            option area "the area" when count(area) < 1 {
              move d to area
              GROW
              award 1 to p for placed
            }
            option aside "aside" { move d to p.stock }
          }
        }
      }
    }
  }
  phase tidy {
    for p in players {
      move [d in area where d.owner == p] to p.hand
      move [d in p.stock where d.size < 3] to p.hand
    }
  }
}
winner among p in players by vp(p) desc else shared
"""


def test_an_exchange_with_a_card_on_a_full_area_makes_no_room_on_it():
    """A die placed on an area that holds one may be swapped there for a bigger one from the stock: the
    swap takes no card off the area, so the area still gives at most one placement a round, 2 in two
    rounds (a game reaches 2), not the 4 of two turns a round."""
    grow = "if count(p.stock) > 0 { exchange d with first(p.stock) }"
    assert proved_and_best(GROW.replace("GROW", grow), "placed") == (2, 2)


def test_a_move_off_a_full_area_in_the_same_step_makes_room():
    """Taking the die back off the area in the same step frees it for the next placement: the bound
    stays two turns a round, 4 (a game reaches 4)."""
    assert proved_and_best(GROW.replace("GROW", "move d to p.stock"), "placed") == (4, 4)


DISPLAY = """game "Display" players 2..2
component gem "gem" { value: 1..1 = 1 }
zone bag: shared hidden stack
zone display: shared public row
zone hand: per_player public unordered
cards gem in bag { 9 x value = 1 }
score gems "gems"
rounds 3 {
  phase refill { draw REFILL from bag to display }
  phase take {
    for p in players {
      repeat 3 times {
        if count(display) > 0 { choose g from display by p "takes a gem" { move g to p.hand } }
      }
    }
  }
}
scoring { for p in players { award count(p.hand) to p for gems } }
winner among p in players by vp(p) desc else shared
"""


def test_cards_taken_from_a_display_number_at_most_what_ever_comes_to_it():
    """A display refilled one gem a round for three rounds, each player taking up to three a round: a
    hand holds at most the 3 gems that ever come to the display (not 3 x 3 = 9), and a game reaches 3."""
    assert proved_and_best(DISPLAY.replace("REFILL", "1"), "gems") == (3, 3)


def test_a_display_refilled_faster_than_the_turns_leaves_the_turns_as_the_bound():
    """Refilled three a round, the display lets 9 gems through, as many as three turns a round take:
    the bound is 9 and a game reaches 9."""
    assert proved_and_best(DISPLAY.replace("REFILL", "3"), "gems") == (9, 9)
