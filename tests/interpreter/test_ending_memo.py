"""The evaluator remembers how ending a game turns out under the values of what the ending reads (reads.py):
positions that agree on those values share one ending, positions that differ in any of them do not, and a remembered
outcome is always the outcome a fresh ending gives."""

from __future__ import annotations

import random

import pytest

from soan import api
from soan.dsl import compile_text
from soan.dsl.errors import SpecRuntimeError
from soan.interpreter import evaluate
from soan.interpreter.evaluate import evaluator, finish_now
from soan.interpreter.reads import ending_reads, steady_defs
from soan.interpreter.state import State

# Each player plays a chip from hand to the shared table each round, or levels one up in their own row.  The scoring
# reads the table (its chips' colours and levels, where a comprehension over the table binds them), the rows' sizes,
# and turns the table's face-down chips face up; SCORING is replaced per test.
BASE = """
game "Memo" players 2..2
enum colour = red, blue
component chip { colour: colour  state level: 0..3 = 0 }
cards chip in bag { 4 x each colour }
zone bag: shared hidden stack
zone hand: per_player owner unordered
zone row: per_player public row
zone table: shared public row
player { pick: card = none }
score pts "points" 0..40
setup {
  shuffle bag
  for p in players { draw 3 from bag to p.hand }
}
rounds 2 {
  for p in players {
    choose c from p.hand by p "plays" { move c to table  set p.pick = c }
  }
}
def reds = count(c in table where c.colour == red)
SCORING
winner among p in players by vp(p) desc else stable
"""

READS_TABLE = """
scoring {
  flip [c in table where c.facedown] faceup
  for p in players {
    award reds + count(c in table where c.level > 0) + count(p.row) to p for pts
  }
}
"""


def _tables(scoring: str, n: int = 2):
    return api.tables(compile_text(BASE.replace("SCORING", scoring), "memo.soan"), n)


def _dealt(t) -> State:
    """A game started and dealt (at P1's first choice)."""
    st = State(t).start()
    while st.current_player() < 0 and not st.is_terminal():
        st.apply_chance(st.sample_chance(random.Random(3)))
    return st


def _moved(st: State, zone: str, owner: int | None = 0) -> State:
    """A copy of `st` with P1's first hand card moved to `zone` (P1's own, or the shared one)."""
    t = st.t
    c = st.clone()
    cid = c.zones[t.slot_of[("hand", 0)]][0]
    c.move_cards([cid], t.slot_of[(zone, -1 if owner is None else owner)], None, None, None)
    return c


def test_the_key_ignores_what_the_ending_never_reads_and_sees_what_it_does():
    """A chip moved between two zones the scoring never names (hand, bag) keeps the key; one put on the table or in a row changes it."""
    t = _tables(READS_TABLE)
    r = ending_reads(t)
    assert r is not None
    st = _dealt(t)
    to_bag = _moved(st, "bag", None)
    assert r.key(to_bag) == r.key(st)
    assert r.key(_moved(st, "table", None)) != r.key(st)
    assert r.key(_moved(st, "row")) != r.key(st)


def test_a_state_read_of_table_chips_is_keyed_by_the_table_chips_only():
    """The scoring reads `level` only of chips bound over the table: a level set on a hand chip keeps the key, on a table chip changes it."""
    t = _tables(READS_TABLE)
    r = ending_reads(t)
    st = _moved(_dealt(t), "table", None)
    hand_chip = st.zones[t.slot_of[("hand", 0)]][0]
    table_chip = st.zones[t.slot_of[("table", -1)]][0]
    a, b = st.clone(), st.clone()
    a.cs["level"][hand_chip] = 2
    b.cs["level"][table_chip] = 2
    assert r.key(a) == r.key(st)
    assert r.key(b) != r.key(st)


def test_a_state_read_through_a_variable_is_keyed_by_its_whole_column():
    """Must not narrow: `p.pick.level` reads a chip wherever it lies, so a level set on a hand chip changes the key."""
    t = _tables("scoring { for p in players where p.pick != none { award p.pick.level to p for pts } }")
    r = ending_reads(t)
    st = _dealt(t)
    a = st.clone()
    a.cs["level"][st.zones[t.slot_of[("hand", 0)]][0]] = 1
    assert r.key(a) != r.key(st)


def test_a_position_read_through_a_variable_keys_every_zone():
    """Must not narrow: `position(p.pick)` reads the zone the chip lies in, whichever it is, so moving a chip to the bag changes the key."""
    t = _tables("scoring { for p in players where p.pick != none { award position(p.pick) to p for pts } }")
    r = ending_reads(t)
    st = _dealt(t)
    assert r.all_zones
    assert r.key(_moved(st, "bag", None)) != r.key(st)


def test_a_position_read_of_table_chips_keys_the_table_only():
    """`position(c)` of a chip bound over the table reads the table alone: a chip put in the bag keeps the key."""
    t = _tables("scoring { for p in players { award sum(position(c) for c in table) to p for pts } }")
    r = ending_reads(t)
    st = _dealt(t)
    assert not r.all_zones
    assert r.key(_moved(st, "bag", None)) == r.key(st)


def test_an_ending_that_may_draw_is_not_analysed():
    """Must not apply: a scoring with a shuffle, or a choice beside a random pick, is ended for real every time (no reads, no memo)."""
    assert ending_reads(_tables("scoring { shuffle bag }")) is None
    assert ending_reads(_tables("scoring { for p in players { choose c from p.hand by p { move c to table } }"
                                "  pick random x from [1, 2] { award x to player(1) for pts } }")) is None


def test_an_ending_whose_only_stops_are_choices_is_analysed_and_keys_what_the_choices_show():
    """A choice of items in the scoring (its first legal move taken) is analysed, with every zone, face-down mark, sight and card state in the key."""
    t = _tables("scoring { for p in players { choose c from p.hand by p { move c to table } } }")
    r = ending_reads(t)
    assert r is not None
    assert r.all_zones and r.facedown and r.visibility and "level" in r.cs
    t = _tables("scoring { for p in players { choose by p { option one { award 1 to p for pts }"
                "  option two when p.pick != none { award 2 to p for pts } } } }")
    r = ending_reads(t)
    assert r is not None
    assert "pick" in r.pv and not r.all_zones  # named options: their conditions are read, no item is shown


def _set_hands(st: State, first: list[int], second: list[int]) -> State:
    """A copy of `st` with the hands holding the chips given (ids 0-3 red, 4-7 blue), the rest in the bag."""
    t = st.t
    c = st.clone()
    bag, h1, h2 = t.slot_of[("bag", -1)], t.slot_of[("hand", 0)], t.slot_of[("hand", 1)]
    c.zones[h1], c.zones[h2] = list(first), list(second)
    c.zones[bag] = [x for x in range(8) if x not in first and x not in second]
    for slot in (bag, h1, h2):
        for x in c.zones[slot]:
            c.loc[x] = slot
    return c


def _agree_with_fresh_endings(t, states) -> list:
    """Each state's outcome from the evaluator (the memo cleared first, the states asked in turn), checked equal to
    ending a copy afresh with the winner line; the fresh outcomes, for the caller to compare."""
    ev = evaluator(t)
    ev.memo.clear()
    fresh = []
    for st in states:
        f = ev._outcome(finish_now(st.clone(), random.Random(0)))
        got = ev.outcome(st.clone(), random.Random(0))
        assert (got.share, got.place, got.margin) == (f.share, f.place, f.margin)
        fresh.append((f.share, f.place, f.margin))
    return fresh


def test_what_a_chooser_has_seen_decides_the_first_move_and_is_in_the_key():
    """Must not narrow: P1 choosing from P2's hand [blue, red] takes hidden card 1 (blue), but having seen the red
    chip names it and takes it first; the states differ only in what P1 has seen, and the key tells them apart."""
    t = _tables("scoring { choose c from player(2).hand by player(1) {"
                " if c.colour == red { award 1 to player(2) for pts } } }")
    r = ending_reads(t)
    unseen = _set_hands(_dealt(t), [1], [4, 0])
    seen = unseen.clone()
    seen.known[0] |= 1  # P1 has looked at the red chip in P2's hand
    assert r.key(seen) != r.key(unseen)
    a, b = _agree_with_fresh_endings(t, [unseen, seen])
    assert a[0] == [1.0, 0.0] and b[0] == [0.0, 1.0]  # blue taken: a tie P1 wins; red taken: P2 wins


def test_a_card_state_shown_in_a_choice_decides_the_first_move_and_is_in_the_key():
    """Must not narrow: P1's two red chips are one move until one has a level (its label then shows it and sorts
    after the other), so the chip taken, and its position awarded, follow a state the scoring never names."""
    t = _tables("scoring { for p in players { choose c from p.hand by p { award position(c) to p for pts } } }")
    r = ending_reads(t)
    plain = _set_hands(_dealt(t), [0, 1], [4])
    levelled = plain.clone()
    levelled.cs["level"][0] = 1
    assert r.key(levelled) != r.key(plain)
    a, b = _agree_with_fresh_endings(t, [plain, levelled])
    assert a[2] != b[2]  # P1 awarded 1 (the first chip) or 2 (the second): the margins differ


def test_defs_the_ending_cannot_change_are_steady_and_one_reading_a_score_it_awards_is_not():
    """`reds` reads only the table, which the scoring never changes; a def of vp() reads the scores the scoring awards."""
    t = _tables(READS_TABLE.replace("scoring {", "def leading = vp(player(1))\nscoring {"))
    steady = steady_defs(t)
    assert "reds" in steady
    assert "leading" not in steady


def test_remembered_outcomes_equal_fresh_endings_in_greedy_games():
    """Every outcome the evaluator gives during greedy games (remembered or not), a choice's ending among them, equals ending a copy afresh with the winner line."""
    for scoring in (READS_TABLE, "scoring { for p in players { award count(p.row) to p for pts } }",
                    "scoring { for p in players { choose c from p.hand by p { move c to table  award c.level to p for pts } } }"):
        t = _tables(scoring)
        ev = evaluator(t)
        ev.memo.clear()
        checked = [0, 0]
        real = evaluate.Evaluator.outcome

        def checking(self, state, rng=None, spare=False, drawn=None):
            if not state.is_terminal():
                fresh = self._outcome(finish_now(state.clone(), random.Random(0)))
                hit = len(self.memo)
                got = real(self, state.clone(), rng, False, drawn)
                checked[0] += 1
                checked[1] += len(self.memo) == hit  # nothing new remembered: the outcome was remembered
                assert (got.share, got.place, got.margin) == (fresh.share, fresh.place, fresh.margin)
            return real(self, state, rng, spare, drawn)

        evaluate.Evaluator.outcome = checking
        try:
            for seed in range(12):
                api.play(t, seed, ["greedy", "greedy"])
        finally:
            evaluate.Evaluator.outcome = real
        assert checked[0] >= 40 and checked[1] > 0  # outcomes checked, some of them remembered


def test_the_winners_of_a_tie_left_to_seat_order_come_from_the_full_ranking_as_the_winner_line_takes_them():
    """Both players on equal points: the winner line's stable fallback gives P1 the win, and so does the evaluator's copy."""
    t = _tables("scoring { for p in players { award 1 to p for pts } }")
    st = _dealt(t)
    ev = evaluator(t)
    ev.memo.clear()
    o = ev.outcome(st.clone(), random.Random(0), spare=True)
    fresh = ev._outcome(finish_now(st.clone(), random.Random(0)))
    assert o.share == fresh.share == [1.0, 0.0]


def test_a_def_reading_a_state_of_zone_bound_cards_that_the_scoring_sets_is_not_steady():
    """Must not apply: `lv` reads `level` only of chips bound over the table, and the scoring sets it, so lv changes while the game ends."""
    t = _tables("def lv = count(c in table where c.level > 0)\n"
                "scoring {\n  award lv to player(2) for pts\n  for c in table { set c.level = 3 }\n"
                "  award lv to player(2) for pts\n}")
    assert "lv" not in steady_defs(t)
    st = _moved(_dealt(t), "table", None)
    ev = evaluator(t)
    ev.memo.clear()
    o = ev.outcome(st.clone(), random.Random(0))
    fresh = ev._outcome(finish_now(st.clone(), random.Random(0)))
    assert (o.share, o.place, o.margin) == (fresh.share, fresh.place, fresh.margin) == ([0.0, 1.0], [1, 0], [-1.0, 1.0])


def test_a_move_into_a_zone_whose_capacity_reads_a_variable_keys_that_variable():
    """Must not narrow: the scoring moves the table's chips into a vault whose capacity is a global variable, so two states differing only there do not share an ending (one overfills the vault)."""
    spec = BASE.replace("SCORING", "scoring { move [c in table] to vault\n award count(vault) to player(1) for pts }")
    spec = spec.replace("zone table:", "global { room: 0..3 = 0 }\nzone vault: shared public row capacity room\nzone table:")
    t = api.tables(compile_text(spec, "memo.soan"), 2)
    assert "room" in ending_reads(t).gv
    st = _moved(_dealt(t), "table", None)
    roomy, full = st.clone(), st.clone()
    roomy.gv["room"] = 1
    ev = evaluator(t)
    ev.memo.clear()
    assert ev.outcome(roomy, random.Random(0)).share == [1.0, 0.0]
    with pytest.raises(SpecRuntimeError, match="over its capacity"):
        ev.outcome(full, random.Random(0))
