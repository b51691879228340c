"""A seat's progress towards a score item, read from the rules (verify/item_progress.py), steering the
cooperative climbs aimed at loose items (verify/climb.py item_objective)."""

from __future__ import annotations

from soan import api
from soan.verify import climb, properties
from soan.interpreter.state import State
from soan.verify import item_progress
from soan.verify.item_progress import item_reads, progress_of
from test_item_plan import LARDER

# Each of eight turns a player rests (1 nap point at once), fetches a ham, hangs a fetched ham on
# the rack, or smokes a ham on the rack once.  A ham on the rack smoked twice scores 3 at the end.
# Each scoring ham takes its own four turns (fetch, hang, smoke, smoke), so one player's hams top
# out at 2 x 3 = 6; resting at every turn pays more points early, and nothing for the hams.
SMOKEHOUSE = """game "Smokehouse" players 2..2
component ham "ham" {
  weight: 1..1 = 1
  state smoked: 0..2 = 0
}
zone pantry: shared public unordered
zone hands: per_player public unordered
zone rack: per_player public unordered
cards ham in pantry { 8 x weight = 1 }
score naps "naps"
score hams "hams"
score luck "luck"
rounds 8 {
  for p in players {
    choose by p "a turn" {
      option rest "rest" { award 1 to p for naps }
      option fetch "fetch" when count(pantry) > 0 { draw 1 from pantry to p.hands }
      option hang "hang" when count(p.hands) > 0 {
        move first(p.hands) to p.rack
      }
      option smoke "smoke" when any(c in p.rack where c.smoked < 2) {
        set first([x in p.rack where x.smoked < 2]).smoked += 1
      }
    }
  }
}
scoring {
  for p in players {
    for c in p.rack where c.smoked >= 2 { award 3 to p for hams }
    award 1 to p for luck
  }
}
winner among p in players by vp(p) desc else draw
"""


def _tables():
    return api.tables(api.compile_text(SMOKEHOUSE, "t.soan"), 2)


def test_the_reads_of_an_item_name_the_zone_it_counts_the_zone_feeding_it_and_the_state_it_reads():
    """The hams' award counts cards on the rack (its target), reads their smoked state, and the hang rule moves
    them there from the hands (its feeder); the pantry, from which fetching draws into the hands, is no feeder."""
    reads = item_reads(_tables(), "hams")
    assert reads.targets == {"rack"} and reads.feeders == {"hands"}
    assert reads.card_states == {"smoked"} and reads.player_vars == set()


def test_an_item_that_reads_nothing_of_a_seat_has_no_progress():
    """An award of a constant reads no zone, card state or player variable: no progress to steer by."""
    assert progress_of(_tables(), "luck") is None


def test_progress_grows_as_cards_reach_the_feeder_then_the_target_then_get_smoked():
    """A seat's progress is 0 at the start, 1 with a ham in hand, 4 with it on the rack and 5 once smoked once."""
    tables = _tables()
    prog = progress_of(tables, "hams")
    st = api.State(tables).start()
    seen = [prog(st, 0)]
    for label in ("fetch", "hang", "smoke"):
        while True:
            moves = st.legal_moves()
            if st.current_player() == 0:
                st.apply([m.label for m in moves].index(label))
                break
            st.apply([m.label for m in moves].index("rest"))
        seen.append(prog(st, 0))
    assert seen == [0.0, 1.0, 4.0, 5.0]


def test_the_steered_climb_reaches_the_hand_known_top_of_the_hams_and_the_unsteered_one_does_not():
    """reach() aimed at the hams with the progress as the beam's second key finds a game with 6 hams points for
    one player (the hand-known top) that replays; with the seat's total as the second key (resting pays at once)
    the same work stays at 3, for seeds 0 to 2."""
    tables = _tables()
    for seed in range(3):
        value, rec = climb.reach(tables, "item:hams", 1, 6, seed=seed, max_work=6_000,
                                 objective=climb.item_objective("hams", 1, 2, progress_of(tables, "hams")),
                                 shape=properties.PROGRESS_SHAPE, choose_chance=False)
        assert value == 6 and max(b["hams"] for b in rec.result["breakdown"].values()) == 6
        assert api.replay(tables, rec.log).result == rec.result
        plain, _ = climb.reach(tables, "item:hams", 1, 6, seed=seed, max_work=6_000,
                               objective=climb.item_objective("hams", 1, 2),
                               shape=properties.PROGRESS_SHAPE, choose_chance=False)
        assert plain < 6


# A card's tokens (0..3) clear when its level (1..3) goes up, in the same block.
LEVELS = """game "Levels" players 2..2
component pot "pot" {
  size: 1..1 = 1
  state tokens: 0..3 = 0
  state level: 1..3 = 1
}
zone shelf: shared public unordered
zone stove: per_player public unordered
cards pot in shelf { 2 x size = 1 }
score cooked "cooked"
rounds 6 {
  for p in players {
    choose by p "a turn" {
      option take "take" when count(shelf) > 0 { draw 1 from shelf to p.stove }
      option stir "stir" when count(p.stove) > 0 {
        for c in p.stove {
          if c.tokens < 3 { set c.tokens += 1 }
          if c.tokens == 3 and c.level < 3 {
            set c.tokens = 0
            set c.level += 1
          }
        }
      }
    }
  }
}
scoring {
  for p in players { for c in p.stove where c.level == 3 { award c.tokens to p for cooked } }
}
winner among p in players by vp(p) desc else draw
"""


def test_a_state_raised_where_another_is_cleared_weighs_more_than_all_the_cleared_one():
    """The level, raised in the block that clears the tokens, weighs 4 x 2/3 per unit (more than the tokens'
    whole width of 3 x 2/3), so a level up raises the progress although it clears three tokens."""
    tables = api.tables(api.compile_text(LEVELS, "t.soan"), 2)
    assert item_reads(tables, "cooked").card_states == {"tokens", "level"}
    prog = progress_of(tables, "cooked")
    st = api.State(tables).start()
    seen = []
    for label in ("take", "stir", "stir", "stir"):
        while True:
            moves = st.legal_moves()
            if st.current_player() == 0:
                st.apply([m.label for m in moves].index(label))
                break
            st.apply(0)
        seen.append(round(prog(st, 0), 6))
    # on the stove: 4; two stirs: 4 + 2 x 2/3; the third clears the tokens and raises the level: 4 + 8/3
    assert seen == [4.0, round(4 + 2 / 3, 6), round(4 + 4 / 3, 6), round(4 + 8 / 3, 6)]


def test_verify_witnesses_the_hand_known_top_of_the_hams_only_with_the_steered_climb(monkeypatch, tmp_path):
    """At --games 30 verify's steered climb (its beam plays a whole 16-decision game within its work) witnesses
    6 hams points, the hand-known top, in a game that replays; without steered climbs the wider plans reach 6 too, without either its games reach 3."""
    tables = _tables()

    def hams(witness_dir=None):
        r = properties.verify(tables, 600, 0, only={"score"}, max_games=30, witness_dir=witness_dir)
        return next(f for f in r["findings"] if f["subject"] == "item hams")

    got = hams(tmp_path)
    assert got["bounds"]["witnessed"][1] == 6
    assert max(b["hams"] for b in api.replay(tables, api.load_log(got["witness"])).result["breakdown"].values()) == 6
    monkeypatch.setattr(properties, "PROGRESS_CLIMBS", False)
    assert hams()["bounds"]["witnessed"][1] == 6
    monkeypatch.setattr(properties, "WIDE_TOTAL_PER_GAME", 0)  # and no wider plans (verify/item_plan.py)
    assert hams()["bounds"]["witnessed"][1] == 3


def test_the_zone_a_test_reads_around_a_move_into_a_counted_zone_is_an_enabler_and_counts_only_when_asked():
    """The hooks in the Larder spec are read by the test before a ham is laid on a free one: an enabler; a hook built raises the progress by ENABLER_CARD only with enablers=True."""
    tables = api.tables(api.compile_text(LARDER, "larder.soan"), 2)
    reads = item_reads(tables, "hams")
    assert reads.targets == {"hung"} and reads.feeders == set() and reads.enablers == {"hooks"}
    st = State(tables).start()
    with_slots, without = progress_of(tables, "hams", enablers=True), progress_of(tables, "hams")
    before = (with_slots(st, 0), without(st, 0))
    st.apply([m.label for m in st.legal_moves()].index("build"))
    assert with_slots(st, 0) - before[0] == item_progress.ENABLER_CARD
    assert without(st, 0) == before[1]
    # Smokehouse's hams: no test around the hang reads a zone, so no enabler
    assert item_reads(_tables(), "hams").enablers == set()
