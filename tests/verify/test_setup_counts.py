"""A pile's count after the setup, read exactly along each path (verify/setup_counts.py):
an exchange through a discard that is shuffled back leaves the pile a known size, a pile
exactly large enough is proved never short, one short by one card is witnessed."""

from __future__ import annotations

from soan.verify.bounds import Bounds
from soan.verify.properties import verify
from soan.verify.setup_counts import SetupCounts

from soan import api


def deck_spec(cards: int, rounds: int = 4, draw_in_rounds: str = "for p in players { draw 1 from deck to p.hand }") -> str:
    """Two players are dealt 3 cards each, may exchange up to 2 through a discard that goes back into
    the deck, then each round every player draws one."""
    return f"""game "Deck" players 2..2
score points "points"
component card "card" {{
  number: 1..99 = 1
}}
cards card in deck {{ {cards} x number = 1 }}
zone deck: shared hidden stack
zone discard: shared hidden stack
zone hand: per_player owner unordered
setup {{
  shuffle deck
  for p in players {{ draw 3 from deck to p.hand }}
  for p in players {{
    may choose out between 1 and 2 from p.hand by p "exchanges cards" {{
      move out to discard
      draw count(out) from deck to p.hand
    }}
  }}
  move discard to deck
  shuffle deck
}}
rounds {rounds} {{
  {draw_in_rounds}
}}
scoring {{
  for p in players {{ award count(p.hand) to p for points }}
}}
winner among p in players by vp(p) desc else draw
"""


def deck_finding(text: str):
    t = api.tables(api.compile_text(text, "t.soan"), 2)
    result = verify(t, 600.0, 0, max_games=20, only={"supplies"})
    return next(f for f in result["findings"] if f["subject"] == "draws from deck"), t


def test_the_setup_leaves_the_deck_a_known_size_whatever_the_exchanges():
    """Six cards dealt and every exchanged card shuffled back: 14 cards leave exactly 8, on every path."""
    t = api.tables(api.compile_text(deck_spec(14), "t.soan"), 2)
    sc = SetupCounts(Bounds(t))
    assert sc.least_after("deck") == 8
    assert sc.draws_fit("deck")


def test_a_deck_exactly_large_enough_for_the_rounds_is_proved_never_short():
    """8 cards after the setup and 4 rounds of two draws: the last draw takes the last card."""
    f, _ = deck_finding(deck_spec(14))
    assert f["verdict"] == "proved"
    assert "at least 8 cards" in f["detail"]


def test_a_deck_one_card_short_is_witnessed_short():
    """13 cards leave 7 after the setup: the eighth draw of the rounds finds the deck empty, in every game."""
    f, _ = deck_finding(deck_spec(13))
    assert f["verdict"] == "witnessed"
    assert f["problem"]


def test_a_setup_draw_that_can_find_the_deck_short_is_not_proved():
    """Seven cards: dealing six leaves one, and an exchange of two draws two from it."""
    t = api.tables(api.compile_text(deck_spec(7, rounds=0), "t.soan"), 2)
    assert not SetupCounts(Bounds(t)).draws_fit("deck")


def test_a_draw_only_before_the_last_round_counts_in_fewer_rounds():
    """`if round < 4` draws in three of the four rounds: 6 cards after the setup are enough."""
    text = deck_spec(12, draw_in_rounds="if round < 4 { for p in players { draw 1 from deck to p.hand } }")
    f, _ = deck_finding(text)
    assert f["verdict"] == "proved"
    short, _ = deck_finding(deck_spec(11, draw_in_rounds="if round < 4 { for p in players { draw 1 from deck to p.hand } }"))
    assert short["verdict"] == "witnessed"


def test_a_list_moved_twice_is_not_counted_twice():
    """Exchanged cards sent on from the discard to the box never come back: the deck is not said to
    get them back (the second move of the same list makes the reading give up, not guess)."""
    text = deck_spec(14).replace("      move out to discard\n",
                                 "      move out to discard\n      move out to box\n")
    t = api.tables(api.compile_text(text, "t.soan"), 2)
    least = SetupCounts(Bounds(t)).least_after("deck")
    assert least is None or least <= 14 - 6 - 4
