"""Chosen luck (verify/luck.py): the menus a chance event offers, and the turn-planned search choosing them.

A supply that only a stacked deck lets run short is found short when some of each round's courses
choose their luck, not when every course draws it (the same work), and its game replays; a supply as
large as the most that can be out is never found short, however the deck is stacked."""

from __future__ import annotations

import random

from soan import api
from soan.interpreter.play import replay
from soan.interpreter.state import CHANCE, State
from soan.verify import luck, stepwise, turn_plan

# Twenty fuel cards, four of each heat 0 to 4, shuffled once.  Each of 4 rounds each player draws
# one to their stove and may cook: cooking gives a mark while the stove's heat (the sum of its
# cards) is below the round's number.  By hand: 8 cooks are the most (one a round a player), and
# all 8 give a mark only with a pile dealt low: each player's first card 0, the first two summing
# under 2, the first three under 3, the four under 4 (a pile stacked lowest first, dealt 0 0 0 0 1 1
# 1 1 in turn, does it).  A pile dealt at random does so about once in a few thousand deals.  So a
# supply of 7 marks is short only with the pile stacked; one of 8 is never short.
STOVE = """game "Stove" players 2..2
component fuel {
  heat: 0..4
}
cards fuel in pile {
  4 x heat = 0
  4 x heat = 1
  4 x heat = 2
  4 x heat = 3
  4 x heat = 4
}
zone pile: shared hidden stack
zone stove: per_player public row
token mark supply SUPPLY hold 0..12 when short partial
score points "points"
setup {
  shuffle pile
}
rounds 4 {
  for p in players {
    draw 1 from pile to p.stove
    choose by p "cooks or rests" {
      option cook "cooks" {
        if sum(f.heat for f in p.stove) < round { give 1 mark to p }
      }
      option rest "rests" { }
    }
  }
}
scoring { for p in players { award p.mark to p for points } }
winner among p in players by vp(p) desc else draw
"""

WORK = 20_000


def _tables(supply: int):
    return api.tables(api.compile_text(STOVE.replace("SUPPLY", str(supply)), "stove.soan"), 2)


def _short(state) -> bool:
    return any(kind == "short_supply" and site[0] == "mark" for kind, site in state.first_marks)


def _plan(supply: int, seed: int, chosen: int):
    t = _tables(supply)
    return t, turn_plan.plan(t, stepwise.potential_objective(t, "mark", supply), seed, WORK,
                             settled=lambda v: v[0] == 1, chosen=chosen)


def test_a_shuffle_menu_is_the_random_order_then_it_sorted_by_each_field():
    """At the pile's shuffle the menu is the random ordering, then it sorted lowest heat first and highest first, ties in the random order."""
    t = _tables(7)
    st = State(t).start()
    assert st.current_player() == CHANCE
    m = luck.menu(st, random.Random(3))
    heat = [t.fields[cid]["heat"] for cid in st.zones[st.pending.target]]
    assert len(m) == 3 and sorted(m[0]) == list(range(20))
    assert [heat[i] for i in m[1]] == sorted(heat) and [heat[i] for i in m[2]] == sorted(heat, reverse=True)
    ties = [i for i in m[1] if heat[i] == 2]
    assert ties == [i for i in m[0] if heat[i] == 2]


def test_a_roll_menu_is_every_face_and_a_course_shows_its_highest_or_lowest():
    """A d6 roll offers its six faces; courses 0-1 show the sixth face, 2-3 the first, 4-5 one drawn at random."""
    spec = """game "Die" players 1..1
component die {
  faces: 6..6
  state face: 1..6 = 1
}
cards die in cup { 1 x faces = 6 }
zone cup: shared public unordered
score points "points"
rounds 1 { for d in cup { roll d } }
scoring { for p in players { award first(cup).face to p for points } }
winner among p in players by vp(p) desc else draw
"""
    t = api.tables(api.compile_text(spec, "die.soan"), 1)
    st = State(t).start()
    assert luck.menu(st, random.Random(0)) == [0, 1, 2, 3, 4, 5]
    shown = [luck.Course(i).draw(st, random.Random(0)) for i in range(6)]
    assert shown[:4] == [5, 5, 0, 0] and [luck.Course(i).roll for i in range(6)][4:] == ["random", "random"]


def test_chosen_luck_finds_the_shortage_only_a_stacked_pile_allows_and_it_replays():
    """With 7 marks, the plan whose last two courses a round choose their luck takes an 8th mark out from seeds 0-2, and each game replays; drawing every course's luck, the same work finds none."""
    for seed in range(3):
        t, (value, rec) = _plan(7, seed, chosen=2)
        assert value[0] == 1 and _short(rec.state)
        again = replay(t, rec.log)  # raises where the game takes another course
        assert _short(again)
        _, (drawn, rec0) = _plan(7, seed, chosen=0)
        assert drawn[0] == 0 and not _short(rec0.state)


def test_chosen_luck_never_finds_an_exact_supply_short():
    """With 8 marks, the most that can be out, the plans that choose their luck (three seeds) take all 8 out and none finds it short."""
    for seed in range(3):
        _, (value, rec) = _plan(8, seed, chosen=2)
        assert value[0] == 0 and not _short(rec.state)
        assert rec.state.supply["mark"] == 0


def test_a_pile_stacked_again_keeps_the_cards_drawn_and_rewrites_its_shuffle():
    """Stacking the undrawn rest of a shuffled pile again leaves the cards drawn where they were; the shuffle's outcome rewritten to match replays to the same pile, and a pile someone has seen is not stacked."""
    t = _tables(7)
    st = State(t).start()
    slot = st.pending.target
    before = list(st.zones[slot])
    order = list(range(20))
    random.Random(1).shuffle(order)
    deals = luck.Deals()
    st.apply_chance(order)
    deals.shuffled(slot, 0, before, [before[i] for i in order])
    drawn = [before[i] for i in order[:1]]  # the first player drew the top card
    k = deals.pile(st, slot)
    assert k == 1 and st.zones[slot] == [before[i] for i in order[1:]]
    rest = st.zones[slot]
    by_heat = sorted(range(len(rest)), key=lambda i: t.fields[rest[i]]["heat"])
    index, outcome = deals.restack(st, slot, by_heat)
    assert index == 0 and [before[i] for i in outcome][:1] == drawn
    fresh = State(t).start()
    fresh.apply_chance(outcome)
    assert fresh.zones[slot] == st.zones[slot]  # the rules ran on to the same draw
    st.known[st.zones[slot][0]] = 1  # a card of the pile seen
    assert deals.pile(st, slot) is None


def test_a_round_that_stacks_the_pile_again_rewrites_the_shuffle_and_the_steps_replay_to_the_same_game():
    """A round played with luck drawn, then one whose chosen luck stacks the rest of the pile lowest first: the shuffle's outcome is rewritten, and the steps, replayed, reach the very state the search stood at."""
    t = _tables(7)
    objective = stepwise.potential_objective(t, "mark", 7)
    rng = random.Random(5)
    work = turn_plan._Work()
    deals = luck.Deals()
    first, steps, _, rewritten = turn_plan._round(State(t).start(), objective, rng, work, 10**6, 20, None, None, deals, 0)
    assert rewritten == {} and 0 in {index for index, _, _ in deals.open.values()}
    second, taken, _, rewritten = turn_plan._round(first, objective, rng, work, 10**6, 20, None, luck.Course(0),
                                                   deals, len(steps))
    assert list(rewritten) == [0] and rewritten[0] != steps[0]
    steps = steps + taken
    steps[0] = rewritten[0]
    (slot,) = deals.open
    pile = second.zones[slot]
    assert pile == sorted(pile, key=lambda cid: t.fields[cid]["heat"])  # what is left of the pile, lowest first
    replayed = State(t).start()
    for s in steps:
        replayed.apply_chance(s) if replayed.current_player() == CHANCE else replayed.apply(s)
    assert replayed.zones == second.zones and replayed.supply == second.supply
