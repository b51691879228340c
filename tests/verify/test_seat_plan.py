"""Focused planned witnesses for loose score items in long games (verify/seat_plan.py): one seat's
runs of decisions searched closely, the others' cheaply, valued by that seat's item were the game
scored now, then its closeness and progress towards the item."""

from __future__ import annotations

from soan import api
from soan.interpreter.play import replay
from soan.interpreter.state import State
from soan.verify import item_plan, item_witness, seat_plan, turn_plan

from tests.verify.test_item_plan import _best, _tables

# the Smokehouse's seeded game: 2 seats x 9 rounds x 2 decisions
DECISIONS = 36


def test_a_focused_plan_reaches_the_hand_known_top_where_no_full_plan_fits_and_the_game_replays():
    """With one item's share at STEPS_PER_DECISION a decision, the full plan plays nothing, while the focused one reaches 15 (every pot of the first seat at grade 3, the hand-known top) from each of three seeds, and its log replays to 15."""
    t = _tables()
    share = DECISIONS * seat_plan.STEPS_PER_DECISION
    for seed in range(3):
        played = []
        assert item_plan.plan_loose(t, [("smoked", 1, 30)], lambda name, sign: 0, seed, share, share, DECISIONS,
                                    played.append) == [] and played == []
        found = seat_plan.plan_focused(t, [("smoked", 1, 30)], lambda name, sign: 0, seed, share, share, DECISIONS,
                                       played.append)
        assert [(name, v) for name, v, _ in found] == [("smoked", 15)]
        assert found[0][2].result["breakdown"]["P1"]["smoked"] == 15
        again = replay(t, found[0][2].log)
        assert _best(again) == 15


def test_a_share_below_one_focused_game_plans_nothing():
    """Where the decisions times STEPS_PER_DECISION exceed the item's share, no game is planned or played."""
    t = _tables()
    played = []
    share = DECISIONS * seat_plan.STEPS_PER_DECISION - 1
    assert seat_plan.plan_focused(t, [("smoked", 1, 30)], lambda name, sign: 0, 0, 100_000, share, DECISIONS,
                                  played.append) == [] and played == []


def test_the_next_seat_is_planned_while_the_share_lasts_and_only_better_games_are_returned():
    """With 15 already seen (the goal, half of 30, met) nothing is planned; with 0 seen and a bound of 40 (goal 20, out of reach) each seat gets one plan, both observed, and the best (15) is returned once."""
    t = _tables()
    played = []
    assert seat_plan.plan_focused(t, [("smoked", 1, 30)], lambda name, sign: 15, 0, 100_000, 100_000, DECISIONS,
                                  played.append) == [] and played == []
    found = seat_plan.plan_focused(t, [("smoked", 1, 40)], lambda name, sign: 0, 0, 100_000, 100_000, DECISIONS,
                                   played.append)
    assert len(played) == 2 and [(name, v) for name, v, _ in found] == [("smoked", 15)]
    assert [rec.result["breakdown"][f"P{k + 1}"]["smoked"] for k, rec in enumerate(played)] == [15, 15]


def test_the_first_plan_focuses_the_seat_that_scored_the_items_best_game():
    """Given a random game as the item's best, the first plan reaches 15 for the seat that scored most there, and replays."""
    t = _tables()
    kept = api.play(t, 3, ["random", "random"])
    seat = max((0, 1), key=lambda i: kept.result["breakdown"][f"P{i + 1}"]["smoked"])
    played = []
    found = seat_plan.plan_focused(t, [("smoked", 1, 30)], lambda name, sign: 0, 0, 100_000, 100_000, DECISIONS,
                                   played.append, best_game=lambda name: kept)
    rec = found[0][2]
    assert len(played) == 1 and rec.result["breakdown"][f"P{seat + 1}"]["smoked"] == 15
    assert _best(replay(t, rec.log)) == 15


def test_a_plan_from_a_kept_opening_plays_that_opening_as_it_was():
    """A game's first two rounds kept (opening_of, up to round 3) and planned on from there: the planned game's log begins with exactly those steps, and replays."""
    t = _tables()
    kept = api.play(t, 5, ["random", "random"])
    start = seat_plan.opening_of(t, kept, 3)
    assert start[0].round == 3 and len(start[1]) == 8
    found = turn_plan.plan(t, seat_plan.seat_state_value(t, "smoked", 1), 0, 100_000, start=start, leaves=60, tries=1)
    steps = [s["index"] for s in found[1].log["steps"]]
    assert steps[:8] == start[1] == [s["index"] for s in kept.log["steps"][:8]]
    assert replay(t, found[1].log).result == found[1].result


# Each of eight rounds a player takes a jar from the market (two of each of five colours) into their
# cellar, ages one of their jars a level (up to 3), or rests; the item counts the levels of a seat's red
# jars.  By hand the top is 6: both red jars at level 3, two takes and six ages, every turn used.  A jar
# taken scores nothing until it is aged, so the score alone cannot tell a red jar from another: random
# play shows at most 3, and plans steered by the item's score and progress (the jars held, their levels
# of any colour) take jars of any colour.  What the award counts at the top of each level (at_top: 3 a
# red jar held) tells them apart.
CELLAR = """game "Cellar" players 2..2
enum colour "colour" = red, blue, green, white, black
component jar "jar" {
  colour: colour
  state level: 0..3 = 0
}
zone market: shared public unordered
zone cellar: per_player public unordered
cards jar in market {
  2 x colour = red
  2 x colour = blue
  2 x colour = green
  2 x colour = white
  2 x colour = black
}
score aged "aged"
rounds 8 {
  for p in players { do work(p) }
}
procedure work(p) {
  choose by p "works" {
    option take "takes a jar" when count(market) > 0 {
      choose j from market by p "takes a jar" { move j to p.cellar }
    }
    option age "ages a jar" when any(j in p.cellar where j.level < 3) {
      choose j from [x in p.cellar where x.level < 3] by p "ages a jar" { set j.level += 1 }
    }
    option rest "rests" { }
  }
}
scoring {
  for p in players { award AMOUNT to p for aged }
}
winner among p in players by vp(p) desc else draw
"""
RED_LEVELS = "sum(j.level for j in p.cellar where j.colour == red)"


def _cellar(amount: str = RED_LEVELS):
    return api.tables(api.compile_text(CELLAR.replace("AMOUNT", amount), "cellar.soan"), 2)


def _cellar_plans(t) -> list[int]:
    out = []
    for seed in range(6):
        found = turn_plan.plan(t, seat_plan.seat_state_value(t, "aged", 0), seed, 100_000, leaves=seat_plan.LEAVES,
                               tries=1, leaves_of=lambda s: seat_plan.LEAVES if s == 0 else seat_plan.OTHER_LEAVES)
        assert replay(t, found[1].log).result == found[1].result
        out.append(found[1].result["breakdown"]["P1"]["aged"])
    return out


def test_what_an_award_counts_at_the_top_of_its_levels_reads_a_held_card_for_what_it_can_become():
    """A red jar taken into the cellar scores 0 now, and at_top reads it as 3 (its level at the top of 0..3); a blue one adds nothing."""
    t = _cellar()
    top = item_witness.at_top(t, "aged")
    st = State(t).start()
    st.apply([m.label for m in st.legal_moves()].index("take"))
    st.apply([m.label for m in st.legal_moves()].index("jar(red)"))
    assert top(st, 0) == 3 and top(st, 1) == 0
    st.apply([m.label for m in st.legal_moves()].index("take"))
    st.apply([m.label for m in st.legal_moves()].index("jar(blue)"))
    assert top(st, 0) == 3 and top(st, 1) == 0


def test_focused_plans_steered_by_the_award_at_the_top_reach_the_hand_known_top_where_the_score_alone_does_not(
        monkeypatch):
    """With at_top in the objective the focused plan reaches 6 (the hand-known top) from at least 5 of 6 seeds, each replaying; without it none reaches more than 3, as random play."""
    t = _cellar()
    with_top = _cellar_plans(t)
    assert max(with_top) == 6 and sum(v == 6 for v in with_top) >= 5
    monkeypatch.setattr(seat_plan, "at_top", lambda tables, name: None)
    assert max(_cellar_plans(t)) <= 3


def test_a_level_read_only_in_a_test_or_subtracted_is_read_as_it_stands_and_an_amount_reading_nothing_printed_not_at_all():
    """A level read only in a filter (jars at level 3 counted) or subtracted (3 - level) is no "more is more": at_top reads such an amount, which reads the jar's printed colour, as it stands (a red jar just taken counts 0 and 3); a count of cards or a constant reads nothing printed and gives nothing to steer by; a level counted through a def's body is raised."""
    def first_red(amount: str, extra: str = ""):
        t = api.tables(api.compile_text(CELLAR.replace("AMOUNT", amount) + extra, "cellar.soan"), 2)
        st = State(t).start()
        st.apply([m.label for m in st.legal_moves()].index("take"))
        st.apply([m.label for m in st.legal_moves()].index("jar(red)"))
        return item_witness.at_top(t, "aged")(st, 0)
    assert first_red("3 * count(j in p.cellar where j.colour == red and j.level == 3)") == 0
    assert first_red("sum(3 - j.level for j in p.cellar where j.colour == red)") == 3
    assert item_witness.at_top(_cellar("2 * count(p.cellar)"), "aged") is None
    assert item_witness.at_top(_cellar("3"), "aged") is None
    assert first_red("sum(worth(j) for j in p.cellar)", "def worth(j) = if j.colour == red then j.level else 0\n") == 3



def test_an_amount_that_reads_a_procedures_other_parameter_is_left_out_of_what_the_awards_count_at_the_top():
    """An award in a procedure called per jar (its amount the jar's level, a parameter other than the seat) reads nothing at_top can bind: left out, at_top reads a red jar just taken as 3 (the red levels at the top) and not 6, and is None where that award is the only one."""
    per_jar = ("\nprocedure bonus(p, j) { award j.level to p for aged }\n")
    both = CELLAR.replace("award AMOUNT to p for aged }",
                          "award AMOUNT to p for aged\n    for j in p.cellar { do bonus(p, j) } }")
    t = api.tables(api.compile_text(both.replace("AMOUNT", RED_LEVELS) + per_jar, "cellar.soan"), 2)
    st = State(t).start()
    st.apply([m.label for m in st.legal_moves()].index("take"))
    st.apply([m.label for m in st.legal_moves()].index("jar(red)"))
    assert item_witness.at_top(t, "aged")(st, 0) == 3
    alone = both.replace("award AMOUNT to p for aged\n", "")
    assert item_witness.at_top(api.tables(api.compile_text(alone + per_jar, "cellar.soan"), 2), "aged") is None

# Each of eight rounds a player takes a jar from the market (2 red, 4 of each of four other colours)
# into their pantry, seals one of their jars, or rests; at the end the unsealed jars go to the compost
# and each red jar left scores 3.  By hand the top is 6: both red jars taken and sealed.  A red jar
# taken scores nothing until sealed, and the award's amount counts no level for at_top to raise; so
# before the seal only the amount read as it stands (the red jars held: 3 each) tells a red jar from
# another.  Random play shows 6 in 9 of 300 games.
PANTRY = """game "Pantry" players 2..2
enum colour "colour" = red, blue, green, white, black
component jar "jar" {
  colour: colour
  state sealed: bool
}
zone market: shared public unordered
zone pantry: per_player public unordered
zone compost: shared public unordered
cards jar in market {
  2 x colour = red
  4 x colour = blue
  4 x colour = green
  4 x colour = white
  4 x colour = black
}
score kept "kept"
rounds 8 {
  for p in players { do work(p) }
}
procedure work(p) {
  choose by p "works" {
    option take "takes a jar" when count(market) > 0 {
      choose j from market by p "takes a jar" { move j to p.pantry }
    }
    option seal "seals a jar" when any(j in p.pantry where not j.sealed) {
      choose j from [x in p.pantry where not x.sealed] by p "seals a jar" { set j.sealed = true }
    }
    option rest "rests" { }
  }
}
scoring {
  for p in players { move [j in p.pantry where not j.sealed] to compost }
  for p in players { award 3 * count(j in p.pantry where j.colour == red) to p for kept }
}
winner among p in players by vp(p) desc else draw
"""


def _pantry_plans() -> list[int]:
    t = api.tables(api.compile_text(PANTRY, "pantry.soan"), 2)
    out = []
    for seed in range(10):
        found = turn_plan.plan(t, seat_plan.seat_state_value(t, "kept", 0), seed, 100_000, leaves=seat_plan.LEAVES,
                               tries=1, leaves_of=lambda s: seat_plan.LEAVES if s == 0 else seat_plan.OTHER_LEAVES)
        assert replay(t, found[1].log).result == found[1].result
        out.append(found[1].result["breakdown"]["P1"]["kept"])
    return out


def test_an_amount_read_as_it_stands_values_cards_the_scoring_would_still_drop(monkeypatch):
    """In the Pantry the amount read as it stands (a red jar held, not yet sealed: 3) steers the focused plan to 6, the hand-known top, from at least 5 of 10 seeds, each replaying; without it at most 2 of 10 reach 6."""
    assert sum(v == 6 for v in _pantry_plans()) >= 5
    monkeypatch.setattr(seat_plan, "at_top", lambda tables, name: None)
    assert sum(v == 6 for v in _pantry_plans()) <= 2


# Each of four rounds every player may add a pot to their shelf; at the round's end each player's coin
# is flipped, and a 1 knocks all their pots off.  The item counts a seat's pots: by hand the top is 4,
# a pot every round and a 2 at every flip, 1 in 16.  The flip comes after every seat's run, so no run
# sees it; a round whose end falls below what it reached (the pots knocked off) played again (`again`)
# gets another flip.
SHELF = """game "Shelf" players 2..2
component coin "coin" {
  faces: 2..2
  state face: 1..2 = 1
}
zone cup: per_player public unordered
cards coin per player in cup { 1 x faces = 2 }
player {
  pots: 0..4 = 0
}
score shelved "shelved"
rounds 4 {
  for p in players {
    choose by p "a turn" {
      option add "adds a pot" { set p.pots += 1 }
      option rest "rests" { }
    }
  }
  for p in players {
    for c in p.cup { roll c }
    if all(c in p.cup where c.face == 1) { set p.pots = 0 }
  }
}
scoring {
  for p in players { award p.pots to p for shelved }
}
winner among p in players by vp(p) desc else draw
"""


def _shelf_plans(again: int, text: str = SHELF) -> list[tuple[int, int]]:
    t = api.tables(api.compile_text(text, "shelf.soan"), 2)
    out = []
    for seed in range(10):
        spent = [0]
        found = turn_plan.plan(t, seat_plan.seat_state_value(t, "shelved", 0), seed, 100_000, spent=spent,
                               leaves=seat_plan.LEAVES, tries=1, again=again,
                               leaves_of=lambda s: seat_plan.LEAVES if s == 0 else seat_plan.OTHER_LEAVES)
        assert replay(t, found[1].log).result == found[1].result
        out.append((found[1].result["breakdown"]["P1"]["shelved"], spent[0]))
    return out


def test_a_round_whose_end_takes_back_what_it_reached_is_played_again():
    """With four more courses for a round that ends below what it reached, the plan keeps 4 pots (the hand-known top) from at least 8 of 10 seeds; with none, from at most 2."""
    assert sum(v == 4 for v, _ in _shelf_plans(4)) >= 8
    assert sum(v == 4 for v, _ in _shelf_plans(0)) <= 2


def test_a_round_that_loses_nothing_is_played_once():
    """Where no flip knocks the pots off (the test reads a face no coin shows), every seed's game and its steps are the same with `again` as without."""
    safe = SHELF.replace("c.face == 1", "c.face == 3")
    assert _shelf_plans(4, safe) == _shelf_plans(0, safe)


def test_later_plans_keep_the_first_half_of_the_items_best_game_so_far_or_start_afresh_in_turn():
    """With the item's best game known, the first plan keeps its setup, then in turn one keeps the first half of its rounds (the best game asked again each time, a planned one once it beat the kept one) and one starts from a fresh deal; MAX_PLANS games while the goal is out of reach, each replaying."""
    t = _tables()
    kept = api.play(t, 3, ["random", "random"])
    played: list = []
    asked: list = []

    def best_game(name):
        asked.append(max([kept] + played, key=_best))
        return asked[-1]
    seat_plan.plan_focused(t, [("smoked", 1, 40)], lambda name, sign: _best(kept), 0, 1_000_000, 1_000_000,
                           DECISIONS, played.append, best_game=best_game)
    assert len(played) == seat_plan.MAX_PLANS and len(asked) == seat_plan.MAX_PLANS // 2 + 1
    assert asked[0] is kept and any(a is not kept for a in asked)
    bases = iter(asked)
    for k, rec in enumerate(played):
        if k == 0 or k % 2 == 1:
            prefix = seat_plan.opening_of(t, next(bases), 1 if k == 0 else 5)[1]
            assert [s["index"] if "index" in s else s["outcome"] for s in rec.log["steps"][:len(prefix)]] == prefix
        assert replay(t, rec.log).result == rec.result


# Each of eight rounds a player picks an apple from the orchard into their basket, sells at the market
# for 1 VP, or idles one of three ways; at the end each apple in the basket is bruised, -1 VP, as far as
# the player's points go (the penalty is -min(apples, points)).  By hand its lowest is -4: four picks and
# four sales, every turn used (a fifth of either leaves the other at 3).  Random play, one turn in five a
# pick and one a sale, shows -4 in 70 of 5^8 games for a seat (about one in 5,600); a plan aimed at the
# penalty's minimum picks while the points run ahead and sells while the apples do.
ORCHARD = """game "Orchard" players 2..2
enum variety "variety" = apple
component fruit "fruit" {
  variety: variety
}
zone orchard: shared public unordered
zone basket: per_player public unordered
cards fruit in orchard { 16 x variety = apple }
score sales "sales"
score bruised "bruised"
rounds 8 {
  for p in players { do work(p) }
}
procedure work(p) {
  choose by p "works" {
    option pick "picks an apple" when count(orchard) > 0 {
      choose f from orchard by p "picks an apple" { move f to p.basket }
    }
    option sell "sells at the market" { award 1 to p for sales }
    option rest "rests" { }
    option nap "naps" { }
    option stroll "strolls" { }
  }
}
scoring {
  for p in players { award 0 - min(count(p.basket), max(vp(p), 0)) to p for bruised }
}
winner among p in players by vp(p) desc else draw
"""


def _orchard():
    return api.tables(api.compile_text(ORCHARD, "orchard.soan"), 2)


def _lowest(rec) -> int:
    return min(rec.result["breakdown"][f"P{i}"]["bruised"] for i in (1, 2))


def test_random_play_seldom_shows_the_orchards_lowest_penalty():
    """In 300 random games of the Orchard no seat's bruised apples come to -4, the hand-known lowest."""
    t = _orchard()
    assert min(_lowest(api.play(t, seed, ["random", "random"])) for seed in range(300)) > -4


def test_a_penalty_gets_plans_aimed_at_its_minimum_which_reach_the_hand_known_lowest_and_replay():
    """Given the penalty as (name, -1, bound -8), the focused plans reach -4 (the hand-known lowest, half the bound) from at least five of six seeds, each returned as the item's value and game, and the game replays to it; the focused seat's penalty is the lowest of the table."""
    t = _orchard()
    reached = 0
    for seed in range(6):
        played: list = []
        found = seat_plan.plan_focused(t, [("bruised", -1, -8)], lambda name, sign: 0, seed, 100_000, 100_000, 16,
                                       played.append)
        assert played and all(replay(t, rec.log).result == rec.result for rec in played)
        if found:
            name, value, rec = found[0]
            assert name == "bruised" and value == _lowest(rec) == _lowest(replay(t, rec.log)) < 0
            reached += value == -4
    assert reached >= 5


def test_a_penalty_already_at_half_its_bound_or_a_bound_of_the_wrong_sign_plans_nothing():
    """With -4 seen against a bound of -8 (half reached) nothing is planned or played; a penalty given with a bound above 0, or a maximum with one below, is no item to plan."""
    t = _orchard()
    played: list = []
    assert seat_plan.plan_focused(t, [("bruised", -1, -8)], lambda name, sign: -4, 0, 100_000, 100_000, 16,
                                  played.append) == [] and played == []
    assert seat_plan.plan_focused(t, [("bruised", -1, 8), ("bruised", 1, -8)], lambda name, sign: 0, 0, 100_000,
                                  100_000, 16, played.append) == [] and played == []


def test_the_first_plan_for_a_penalty_focuses_the_seat_lowest_in_its_worst_game():
    """Given a game where the second seat's penalty is the lower as the item's worst, the first plan keeps its setup and focuses that seat, whose penalty reaches -4."""
    t = _orchard()
    kept = next(rec for rec in (api.play(t, s, ["random", "random"]) for s in range(200))
                if rec.result["breakdown"]["P2"]["bruised"] < rec.result["breakdown"]["P1"]["bruised"])
    played: list = []
    seat_plan.plan_focused(t, [("bruised", -1, -8)], lambda name, sign: 0, 0, 100_000, 100_000, 16,
                           played.append, best_game=lambda name: kept)
    assert played[0].result["breakdown"]["P2"]["bruised"] == -4
