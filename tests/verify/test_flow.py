"""Where cards can go (verify/flow.py): a card a variable names is known to lie where the rules last
moved it, so a second move of the same variable is known to take from there."""

from __future__ import annotations

from soan import api
from soan.verify.flow import Flow

SPEC = """game "Twice" players 2..2
score pts "points"
component card "card" {
  n: 1..9 = 1
}
cards card in deck { 4 x n = 1 }
zone deck: shared hidden stack
zone hand: per_player owner unordered
zone spent: shared public unordered
setup { for p in players { draw 2 from deck to p.hand } }
rounds 2 {
  for p in players {
    choose c from p.hand by p "sends a card round" {
      move c to deck
      PROC
    }
  }
}
procedure pass_on(p, c) {
  move c to spent
}
winner among p in players by count(p.hand) desc else stable
"""


def _second_move(text: str):
    spec = api.compile_text(text, "t.soan")
    flow = Flow(api.tables(spec, 2))
    moves = sorted((site, zones) for site, zones in flow.taken_from.items() if site[1] in (14, 15, 20))
    return moves


def test_a_card_moved_twice_is_taken_the_second_time_from_where_the_first_move_put_it():
    """`move c to deck` then `move c to p.hand`: the second move takes from the deck as well."""
    moves = _second_move(SPEC.replace("PROC", "move c to p.hand"))
    second = [zones for (_, line, _), zones in moves if line == 15]
    assert second and "deck" in second[0]


def test_a_card_a_procedure_moves_is_taken_from_there_by_the_procedures_next_move():
    """A card passed to a procedure after the caller moved it is known to lie where the caller put it."""
    moves = _second_move(SPEC.replace("PROC", "do pass_on(p, c)"))
    inside = [zones for (_, line, _), zones in moves if line == 20]
    assert inside and "deck" in inside[0]


def test_a_card_chosen_afresh_is_not_taken_from_where_its_own_move_puts_it():
    """`choose c from p.hand { move c to deck ... }`: that move takes from the hand only, while a card
    held over a loop (`let c` before `repeat`) may come round again to where the move put it."""
    moves = _second_move(SPEC.replace("PROC", "move c to p.hand"))
    first = [zones for (_, line, _), zones in moves if line == 14]
    assert first == [{"hand"}]
    looped = SPEC.replace("""    choose c from p.hand by p "sends a card round" {
      move c to deck
      PROC
    }""", """    let c = first(p.hand)
    repeat 2 times {
      move c to deck
    }""")
    spec = api.compile_text(looped, "t.soan")
    flow = Flow(api.tables(spec, 2))
    inside = [z for (_, line, _), z in flow.taken_from.items() if line == 15]
    assert inside and "deck" in inside[0]
