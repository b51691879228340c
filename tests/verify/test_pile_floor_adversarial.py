"""Adversarial specs for verify/pile_floor.py: each is small enough that every game is listed
(verify/exhaustive.py), and pile_floor's answer is checked against the games: never "unread"
where a game reads the ruling, and proved exactly where the hand count says it can be.

The counts by hand: two players, each draw statement fires once per player and round unless said
otherwise; the pile starts with N cards; the ruling `r` is read only when a test finds the pile
(nearly) empty.  A near miss (one card fewer, or a read the count cannot see) goes with each
proved case and must not be proved."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from specgen import small_specs

from soan import api
from soan.dsl.errors import SpecErrors, SpecRuntimeError
from soan.verify.bounds import Bounds
from soan.verify.exhaustive import all_games
from soan.verify.flow import setup_branches
from soan.verify.pile_floor import unread
from soan.verify.properties import Verifier

BASE = """game "T" players 2..PLAYERS
component bucket "bucket" {
  size: 1..1
}
zone pile: shared hidden stack
zone used: shared public stack
zone hand: per_player public unordered
cards bucket in pile { N x size = 1 }
ruling r: {a, b} = a "Is an empty pile refilled?" cite "test"
score songs "songs"
RULES
def src = pile
procedure take_one(p, z) { draw 1 from z to p.hand }
procedure outer(p) { do inner(p, pile) }
procedure inner(p, z) {
  let y = z
  draw 1 from y to p.hand
}
winner among p in players by WINNER desc else draw
"""


def _text(n: int, rules: str, winner: str = "vp(p)", players: int = 2) -> str:
    return (BASE.replace("N x", f"{n} x").replace("RULES", rules).replace("WINNER", winner)
            .replace("2..PLAYERS", f"2..{players}"))


def _take_then_look(take: str, rounds: int = 2) -> str:
    """Each round every player takes from the pile, then one look reads the ruling if the pile is empty."""
    return f"""rounds {rounds} {{
  phase take "take" {{
    for p in players {{
      {take}
    }}
  }}
  phase look "look" {{
    if count(pile) == 0 and r == a {{ say "read" }}
  }}
}}"""


def _proves(spec, players: int = 2, ruling: str = "r") -> bool:
    """Whether pile_floor says `ruling` is never read, on a verifier set up as Verifier.run sets it up."""
    t = api.tables(spec, players)
    v = Verifier(t, 120.0, max_games=0)
    v.branches = setup_branches(t)
    v.bs = [Bounds(t, loc) for _, loc in v.branches]
    v.b = v.bs[0]
    return unread(v, ruling) is not None


def _judge(text: str, players: int = 2) -> tuple[bool, int]:
    """(whether pile_floor says the ruling is never read, how many of all the games read it); every
    game is listed, and a proof with a game reading the ruling fails here whatever the caller expects."""
    spec = api.compile_text(text, "adv.soan")
    proved = _proves(spec, players)
    games = all_games(api.tables(spec, players), max_leaves=20_000)
    assert games is not None and games
    reading = sum("r" in g.rulings for g in games)
    assert not (proved and reading), f"proved unread, yet {reading} of {len(games)} games read it"
    return proved, reading


def test_a_ruling_also_read_in_the_winner_line_is_not_proved_unread():
    """The winner line reads the ruling in every game (read_sites walks only the rules' bodies): no proof, though the
    pile test alone would allow one (it failed before: 'proved', with the one game reading it)."""
    text = _text(3, """rounds 1 {
  phase look "look" {
    if count(pile) == 0 and r == a { say "read" }
  }
}""", winner="(if r == a then vp(p) else 0 - vp(p))")
    assert _judge(text) == (False, 1)
    assert _judge(_text(3, """rounds 1 {
  phase look "look" {
    if count(pile) == 0 and r == a { say "read" }
  }
}""")) == (True, 0)  # the same without the winner's read: 3 cards, none taken



def test_a_ruling_named_by_a_token_or_a_card_table_is_not_proved_unread():
    """A token `when short ruling r` reads r at a short give (the second coin here, in the one game), and an assumption
    naming a card table decides the deck: neither is proved unread from the pile test (both were before)."""
    rules = """rounds 1 {
  phase look "look" {
    for p in players { give 1 coin to p }
    if count(pile) == 0 and r == a { say "read" }
  }
}"""
    token = (_text(3, rules.replace("r == a", "r == partial"))
             .replace("{a, b} = a", "{partial, unlimited} = partial")
             .replace('score songs "songs"', 'score songs "songs"\ntoken coin "coin" supply SUPPLY hold 0..9 when short ruling r'))
    assert _judge(token.replace("SUPPLY", "1")) == (False, 1)
    assert _judge(token.replace("SUPPLY", "2").replace("when short ruling r", "when short partial")) == (True, 0)  # no short give
    table = (_text(3, rules.replace("    for p in players { give 1 coin to p }\n", "").replace("r == a", "tbl == small"))
             .replace("cards bucket in pile { 3 x size = 1 }",
                      'assume tbl: {small, big} = small "Which table?" cite "test"\n'
                      "cards bucket in pile assumed tbl {\n  small: 3 x size = 1\n  big: 5 x size = 1\n}"))
    spec = api.compile_text(table, "adv.soan")
    assert not _proves(spec, ruling="tbl")
    assert not _proves(spec)  # r is read nowhere: nothing for this technique to claim

TAKES = {
    "draw": "draw 1 from pile to p.hand",
    "first": "move first(pile) to p.hand",
    "take": "move take(pile, 1) to p.hand",
    "let card": "let c = first(pile)\n      move c to p.hand",
    "loop card": "for c in take(pile, 1) { move c to p.hand }",
    "choice": 'choose c from pile by p "takes" { move c to p.hand }',
    "pick": "pick random c from pile { move c to p.hand }",
    "either pile": "draw 1 from (if count(used) > 0 then used else pile) to p.hand",
    "def": "draw 1 from src to p.hand",
    "parameter": "do take_one(p, pile)",
    "two calls deep": "do outer(p)",
    "list local": "let cs = take(pile, 1)\n      move cs to p.hand",
    "joined lists": "move first([x in used] + [x in pile]) to p.hand",
}


def test_every_way_of_taking_one_card_is_counted():
    """One card a player and round taken by a draw, a move of first/take/a bound card, a choice, a pick, a def, a
    procedure's parameter or a joined list: 4 taken before the last look, so 4 cards are read (not proved), 5 proved."""
    for name, take in TAKES.items():
        proved, reading = _judge(_text(4, _take_then_look(take)))
        assert not proved and reading > 0, name
        assert _judge(_text(5, _take_then_look(take)))[0], name


def test_takes_the_count_cannot_bound_are_not_proved():
    """A whole pile or a filter moved, a loop while the pile lasts, a count from a variable: the count has no bound
    (or too large a one), so nothing is proved, though with 9 cards the repeat and the variable never empty it."""
    for take in ("move pile to used", "move [x in pile where x.size == 1] to p.hand",
                 "while count(pile) > 0 max 10 { draw 1 from pile to p.hand }"):
        assert _judge(_text(9, _take_then_look(take))) == (False, 1), take
    for take in ("repeat count(p.hand) + 1 times { draw 1 from pile to p.hand }",
                 "let n = count(p.hand) + 1\n      draw n from pile to p.hand"):
        assert _judge(_text(6, _take_then_look(take))) == (False, 1), take  # 1 + 2 per player: 6 taken
        assert _judge(_text(9, _take_then_look(take))) == (False, 0), take


def test_an_exchange_with_the_pile_is_not_counted_and_not_proved():
    """An exchange with a pile card leaves the count as it was, but the count takes it as unbounded: no proof."""
    take = "if count(p.hand) > 0 { exchange first(p.hand) with first(pile) } else { draw 1 from pile to p.hand }"
    assert _judge(_text(3, _take_then_look(take))) == (False, 0)
    assert _judge(_text(9, _take_then_look(take))) == (False, 0)


LOOK_FIRST = """rounds 2 {
  phase look "look" {
    if count(pile) LOW and r == a { say "read" }
  }
  phase take "take" {
    for p in players { draw 1 from pile to p.hand }
  }
}"""


def test_a_look_before_the_draws_cuts_the_last_rounds_draws():
    """The look comes first: the last round's 2 draws come after it, so 2 count; 2 cards read (round 2 finds 0), 3 proved."""
    assert _judge(_text(2, LOOK_FIRST.replace("LOW", "== 0"))) == (False, 1)
    assert _judge(_text(3, LOOK_FIRST.replace("LOW", "== 0"))) == (True, 0)


def test_a_test_of_fewer_than_k_needs_k_more_cards():
    """Behind `count(pile) < 3` the look reads it while 2 or fewer remain: 4 cards read, 5 proved (2 taken, 3 left)."""
    assert _judge(_text(4, LOOK_FIRST.replace("LOW", "< 3"))) == (False, 1)
    assert _judge(_text(5, LOOK_FIRST.replace("LOW", "< 3"))) == (True, 0)
    assert _judge(_text(5, LOOK_FIRST.replace("LOW", "<= 3"))) == (False, 1)  # 3 left is read under <=


def test_a_read_in_an_option_when_counts_every_choice():
    """A player may draw when the pile has cards or the ruling refills it, read in the option's `when`: 2 rounds of 2
    optional draws, the last when read before the last draw: 3 cards read; 4 never read but not proved (the count
    takes in the last draw, after the last read, as the count of a step must); 5 proved."""
    rules = """rounds 2 {
  phase turn "turn" {
    for p in players {
      choose by p "a turn" {
        option sing "sings" { award 1 to p for songs }
        option fetch "draws" when count(pile) > 0 or (r == a and count(used) > 0) {
          if count(pile) > 0 { draw 1 from pile to p.hand }
        }
      }
    }
  }
}"""
    assert _judge(_text(3, rules)) == (False, 1)
    assert _judge(_text(4, rules)) == (False, 0)
    assert _judge(_text(5, rules)) == (True, 0)


def test_more_seats_draw_more_cards():
    """Five cards: two players take 4 and it is proved; three players take 6 and the look reads it."""
    text = _text(5, _take_then_look("draw 1 from pile to p.hand"), players=3)
    assert _judge(text, 2) == (True, 0)
    assert _judge(text, 3) == (False, 1)


def test_a_variable_number_of_rounds_and_nested_phases():
    """Rounds until a condition (cap 2) and the look in a phase within a phase: 4 taken, 4 cards read, 5 proved."""
    rules = """rounds until count(used) > 5 cap 2 {
  phase take "take" {
    for p in players { draw 1 from pile to p.hand }
  }
  phase outer "outer" {
    phase look "look" {
      if count(pile) == 0 and r == a { say "read" }
    }
  }
}"""
    assert _judge(_text(4, rules)) == (False, 1)
    assert _judge(_text(5, rules)) == (True, 0)


FETCH = """rounds 2 {
  phase day "day" {
    for p in players { do fetch(p, false) }
  }
  phase night "night" {
    for p in players { do fetch(p, true) }
  }
}
procedure fetch(p, at_night) {
  BEFORE
  if count(pile) == 0 and (at_night or r == a) { move used to pile }
  if count(pile) > 0 { draw 1 from pile to p.hand }
  AFTER
}"""


def test_a_night_fetch_that_becomes_a_reading_one_keeps_the_night():
    """fetch(p, true) reads nothing, but a `set` of its flag in round 2 or a recursive fetch(p, false) makes the night
    a reading step: the last night is not cut and 7 cards (6 draws, 8 with recursion) are read; plain, 7 are proved."""
    plain = FETCH.replace("BEFORE", "").replace("AFTER", "")
    assert _judge(_text(5, plain)) == (False, 1)
    assert _judge(_text(7, plain)) == (True, 0)  # 4 day draws and the first night's 2
    flag = FETCH.replace("BEFORE", "if round == 2 { set at_night = false }").replace("AFTER", "")
    assert _judge(_text(7, flag)) == (False, 1)
    again = FETCH.replace("BEFORE", "").replace("AFTER", "if at_night and count(p.hand) < 3 { do fetch(p, false) }")
    assert _judge(_text(7, again)) == (False, 1)
    assert _judge(_text(10, again))[0] is False  # recursion: no proof at all


def test_reads_in_the_setup_count_the_whole_game():
    """The setup draws 2 then looks, the rounds take 2 more: a read in the setup is counted over the whole game (5
    proved, not 3), and with 2 cards the setup's look reads it."""
    def text(n):
        return _text(n, """setup {
  draw 2 from pile to used
  if count(pile) == 0 and r == a { say "read" }
}
""" + _take_then_look("draw 1 from pile to p.hand", rounds=1).replace("r == a", "count(used) > 9"))
    assert _judge(text(2)) == (False, 1)
    assert _judge(text(4)) == (False, 0)
    assert _judge(text(5)) == (True, 0)


def test_a_read_in_a_def_counts_the_whole_game():
    """The look before the draws reads the ruling through a def: a def's read has no step, so all 4 draws count (2
    cards read, 3 and 4 neither read nor proved, 5 proved) where a statement's read would cut the last 2."""
    rules = LOOK_FIRST.replace("if count(pile) LOW and r == a", "if refills") + "\ndef refills = count(pile) == 0 and r == a"
    assert _judge(_text(2, rules)) == (False, 1)
    assert _judge(_text(3, rules)) == (False, 0)
    assert _judge(_text(4, rules)) == (False, 0)
    assert _judge(_text(5, rules)) == (True, 0)


# Random specs (specgen.small_specs) with a new ruling read behind a low-pile test put before one or two of their
# statements (in the rounds, the setup or a procedure): each proof checked against every game.
_STMT = re.compile(r"^(\s+)(draw|move|award|give|say|do|if|for|repeat|shuffle|pick|choose|while|let)\b")
FUZZ = dict(deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


def _with_low_reads(text: str, seed: int) -> str | None:
    rnd = random.Random(seed)
    lines = text.split("\n")
    spots = [i for i, line in enumerate(lines) if _STMT.match(line)]
    if not spots:
        return None
    k, pile = rnd.choice([1, 1, 2]), rnd.choice(["deck", "deck", "pool", "discard"])
    for i in sorted(rnd.sample(spots, min(len(spots), rnd.choice([1, 2]))), reverse=True):
        test = rnd.choice([f"count({pile}) < {k} and rr == a", f"not (count({pile}) >= {k}) and rr == a",
                           f"count({pile}) == 0 and (rr == a)"])
        lines.insert(i, f'{_STMT.match(lines[i]).group(1)}if {test} {{ say "read" }}')
    return "\n".join(lines).replace('score pts "Points"', 'score pts "Points"\nruling rr: {a, b} = a "q?" cite "t"', 1)


def _fuzz_one(text: str, seed: int) -> None:
    text = _with_low_reads(text, seed)
    assume(text is not None)
    try:
        spec = api.compile_text(text, "fuzz.soan")
        proved = _proves(spec, ruling="rr")
        games = all_games(api.tables(spec, 2), max_leaves=5000) if proved else None
    except (SpecErrors, SpecRuntimeError):
        assume(False)
    if games is not None:
        assert not any("rr" in g.rulings for g in games), "pile_floor proved rr unread, yet a game reads it:\n" + text


@settings(max_examples=60, **FUZZ)
@given(small_specs(), st.integers(0, 10**9))
def test_no_random_spec_with_a_low_pile_read_is_proved_unread_where_a_game_reads_it(text, seed):
    """Random specs with a ruling read behind `count(pile) < k` tests: every pile_floor proof holds in every game."""
    _fuzz_one(text, seed)


@pytest.mark.slow
@settings(max_examples=3000, **FUZZ)
@given(small_specs(), st.integers(0, 10**9))
def test_no_random_spec_with_a_low_pile_read_is_proved_unread_where_a_game_reads_it_in_3000(text, seed):
    """The same in 3000 specs (about 600 proofs, none contradicted when written)."""
    _fuzz_one(text, seed)
