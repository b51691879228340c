"""A pile counted per resolution of a laid card (verify/deck_uses.py): a card laid from the
hand resolves once, each effect once per resolution, and a draw that puts as many back nets
to zero; a deck exactly large enough is proved, one short by one is witnessed, and a card that
can come back to the hand (or a laid card not cleared each round) is never counted once."""

from __future__ import annotations

from soan.verify.bounds import Bounds
from soan.verify.deck_uses import resolutions
from soan.verify.properties import verify

from soan import api

RESET = "for p in players { set p.played = none }"


def lay_spec(coins: str, rounds: int = 3, reset: str = RESET, after: str = "",
             opening: str = "") -> str:
    """Two players, each with a taker and a swapper card in hand and two coins dealt from the deck;
    each round everyone lays a card, and a laid action card resolves: the taker may take a coin
    (draw 1) and swap, the swapper only swap (draw 2, then put two coins back under the deck)."""
    return f"""game "Lay" players 2..2
score points "points"
enum action_type = taker, swapper
enum effect = take, swap
component coin "coin" {{
  value: 1..9 = 1
}}
component act "act" {{
  type: action_type
}}
zone deck: shared hidden stack
zone hand: per_player owner unordered
zone laid: per_player owner unordered
zone used: per_player public row
cards coin in deck {{ {coins} }}
cards act per player in hand {{ 1 x each type }}
player {{
  played: card = none "the card laid this round"
}}
def menu(t) = if t == taker then [take, swap] else [swap]
setup {{
  {opening}
  shuffle deck
  for p in players {{ draw 2 from deck to p.hand }}
}}
rounds {rounds} {{
  {reset}
  simultaneous for p in players {{
    choose c from p.hand by p "lays a card" {{
      move c to p.laid
      set p.played = c
    }}
  }}
  for p in players {{ move p.laid to p.used }}
  for p in players {{
    if p.played.kind == act {{ do resolve(p, p.played) }}
  }}
  {after}
}}
procedure resolve(p, card) {{
  let done = []
  for k in 0..1 {{
    choose e from [x in menu(card.type) where not done has x] by p "applies an effect" pass if k > 0 {{
      set done = done + [e]
      do apply(p, e)
    }} else {{
      break
    }}
  }}
}}
procedure apply(p, e) {{
  if e == take {{
    draw 1 from deck to p.hand
  }} elif e == swap {{
    let n = min(2, count(deck))
    draw 2 from deck to p.hand
    repeat n times {{
      choose c from [c in p.hand where c.kind == coin] by p "puts a coin back" {{
        move c to deck bottom
      }}
    }}
  }}
}}
scoring {{
  for p in players {{ award count(p.hand) to p for points }}
}}
winner among p in players by vp(p) desc else draw
"""


def deck_finding(text: str):
    t = api.tables(api.compile_text(text, "t.soan"), 2)
    result = verify(t, 600.0, 0, max_games=20, only={"supplies"})
    return next(f for f in result["findings"] if f["subject"] == "draws from deck")


def test_a_deck_exactly_large_enough_for_one_resolution_per_card_is_proved():
    """8 coins leave 4 after the deal: the two takers keep 2 for good, and a swap holds 2 more out while it runs."""
    f = deck_finding(lay_spec("8 x value = 1"))
    assert f["verdict"] == "proved"
    assert "at least 4 cards" in f["detail"]
    assert "keep at most 2 cards for good" in f["detail"] and "at most 2 more" in f["detail"]


def test_a_deck_one_coin_short_is_witnessed_short():
    """7 coins leave 3: both takers take a coin, and the second one's swap draws 2 from the 1 left."""
    f = deck_finding(lay_spec("7 x value = 1"))
    assert f["verdict"] == "witnessed"
    assert f["problem"]


def test_a_card_that_comes_back_to_the_hand_is_not_counted_once():
    """Laid cards go back to the hand at the end of each round: a taker resolves every round, and the deck runs short."""
    text = lay_spec("8 x value = 1", after="for p in players { move p.used to p.hand }")
    t = api.tables(api.compile_text(text, "t.soan"), 2)
    assert resolutions(t.spec, Bounds(t)) == []
    assert deck_finding(text)["verdict"] == "witnessed"


def test_a_laid_card_not_cleared_each_round_is_not_counted_once():
    """Without `set p.played = none` each round, a player whose hand ran out would resolve last round's card again."""
    text = lay_spec("8 x value = 1", reset="")
    t = api.tables(api.compile_text(text, "t.soan"), 2)
    assert resolutions(t.spec, Bounds(t)) == []
    assert deck_finding(text)["verdict"] != "proved"


def test_the_laid_cards_procedure_is_found_with_its_field_and_kinds():
    """The procedure resolved on the laid card: one call site, the card parameter, from the hand, action cards only."""
    t = api.tables(api.compile_text(lay_spec("8 x value = 1"), "t.soan"), 2)
    (r,) = resolutions(t.spec, Bounds(t))
    assert (r.proc, r.param, r.calls, set(r.zones), set(r.kinds)) == ("resolve", "card", 1, {"hand"}, {"act"})
    assert set(r.tree) == {"resolve", "apply"}


def test_a_pile_a_random_pick_shrinks_is_read_from_each_outcome():
    """A random value's coins leave the game first (a filtered move the setup's count cannot follow): 8 of each
    value leave 4 after the deal whichever goes, proved; with 7 coins of value 2, removing the 8 ones leaves 3."""
    opening = "pick random v from [1, 2] { move [c in deck where c.value == v] to box }"
    f = deck_finding(lay_spec("8 x value = 1\n  8 x value = 2", opening=opening))
    assert f["verdict"] == "proved"
    assert "at least 4 cards" in f["detail"]
    short = deck_finding(lay_spec("8 x value = 1\n  7 x value = 2", opening=opening))
    assert short["verdict"] != "proved"


def test_an_effect_offered_again_each_pass_is_not_counted_once():
    """Without the done list a taker may take twice in one resolution: 8 coins no longer suffice, and a game shows it."""
    text = lay_spec("8 x value = 1").replace("[x in menu(card.type) where not done has x]", "menu(card.type)")
    assert text != lay_spec("8 x value = 1")
    f = deck_finding(text)
    assert f["verdict"] == "witnessed"


def test_an_exchange_that_puts_back_fewer_than_it_draws_does_not_net_to_zero():
    """A swap that draws 2 and puts only 1 back keeps a coin each time: 8 coins are not proved enough."""
    text = lay_spec("8 x value = 1").replace("repeat n times", "repeat 1 times")
    assert text != lay_spec("8 x value = 1")
    assert deck_finding(text)["verdict"] != "proved"
