"""Cards spent for good, counted by what is printed on them (verify/per_card.py): a supply as
large as the cards that give it proved exactly tight, one short witnessed, and no proof when
a used card can come back."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_soundness import SOUNDNESS, check_sound

from soan.dsl import ir
from soan.verify.bounds import Bounds
from soan.verify.properties import verify

from soan import api


def idea_spec(supply: int, used_to: str = "discard", rounds: int = 3) -> str:
    """Two players, six idea cards (two print `gain`, a coin); each round each player may use a
    card from their hand, which goes to `used_to`, and its effect acts through a procedure."""
    return f"""game "Ideas" players 2..2
token coin supply {supply} hold 0..12 when short partial
score points "points"
enum effect_kind = gain, nothing
component idea "idea" {{ effect: effect_kind = nothing }}
cards idea in deck {{ 2 x effect = gain
  4 x effect = nothing }}
zone deck: shared hidden stack
zone hand: per_player public row
zone discard: shared public row
setup {{
  for p in players {{ draw 3 from deck to p.hand }}
}}
rounds {rounds} {{
  for p in players {{
    may choose c from p.hand by p "uses an idea card" {{
      move c to {used_to}
      do use_effect(p, c.effect)
    }}
    if count(deck) > 0 and count(p.hand) == 0 {{ draw 1 from deck to p.hand }}
  }}
}}
procedure use_effect(p, e) {{
  if e == gain {{ give 1 coin to p }}
}}
scoring {{ for p in players {{ award p.coin to p for points }} }}
winner among p in players by vp(p) desc else shared
"""


def run(text: str, games: int = 40):
    spec = api.compile_text(text, "t.soan")
    t = api.tables(spec, 2)
    result = verify(t, 600.0, 0, max_games=games, only={"supplies"})
    return {f["subject"]: f for f in result["findings"]}, t


def coin_firings(t) -> int:
    b = Bounds(t)
    return sum(s.firings for s in b.sites if isinstance(s.node, ir.Give) and s.node.token == "coin")


def test_a_supply_as_large_as_the_cards_printed_to_give_it_is_proved_exactly_tight():
    """Two of six cards give a coin, each used once at most: a supply of 2 is proved, and the
    firing count of the give is those 2 cards, not the 6 uses the choice allows."""
    f, t = run(idea_spec(2))
    assert f["coin"]["verdict"] == "proved"
    assert coin_firings(t) == 2


def test_a_supply_one_short_of_the_cards_printed_to_give_it_is_witnessed_short():
    """With one coin, a game that uses both gain cards runs the supply short."""
    f, _ = run(idea_spec(1))
    assert f["coin"]["verdict"] == "witnessed"


def test_a_used_card_that_goes_back_to_the_deck_is_not_counted_once():
    """A used card returned to the deck can be drawn and used again: no proof by the printed cards."""
    text = idea_spec(2, used_to="deck", rounds=8)
    f, t = run(text)
    assert coin_firings(t) > 2
    assert f["coin"]["verdict"] != "proved"


def test_a_test_of_a_printed_field_decides_each_class_of_cards_on_its_own():
    """`if c.kind == K` read for a card of another kind is false, so its branch counts none of them."""
    text = idea_spec(2).replace("do use_effect(p, c.effect)", "if c.kind == idea { do use_effect(p, c.effect) }")
    f, t = run(text)
    assert f["coin"]["verdict"] == "proved"
    assert coin_firings(t) == 2


def test_a_test_the_body_can_change_before_it_runs_is_not_read_as_decided():
    """`if mode == spend` after `set mode = keep` in the body keeps the card in play: the class is
    not spent, however the test reads where the choice starts, and the supply is not proved."""
    text = idea_spec(2, rounds=8).replace(
        """      move c to discard
      do use_effect(p, c.effect)""",
        """      set mode = keep
      if mode == spend { move c to discard } else { move c to deck }
      do use_effect(p, c.effect)""").replace("enum effect_kind = gain, nothing",
                                             "enum effect_kind = gain, nothing\nenum use_mode = spend, keep").replace(
        '    may choose c from p.hand', '    let mode = spend\n    may choose c from p.hand')
    f, t = run(text)
    assert coin_firings(t) > 2
    assert f["coin"]["verdict"] != "proved"


BODIES = [
    "move c to discard\n      do use_effect(p, c.effect)",
    "do use_effect(p, c.effect)\n      move c to discard",
    "if c.effect == gain {{ move c to discard }} else {{ move c to deck }}\n      do use_effect(p, c.effect)",
    "if c.effect == nothing {{ move c to discard }} else {{ move c to deck }}\n      do use_effect(p, c.effect)",  # gain cards come back
    "move c to deck\n      do use_effect(p, c.effect)",  # every card comes back
    "if c.kind == idea {{ do use_effect(p, c.effect) }}\n      move c to discard",
]


@st.composite
def spent_specs(draw) -> str:
    gains, others, rounds = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 3))
    hand = 2 if gains + others >= 4 and draw(st.booleans()) else 1
    supply = draw(st.integers(1, gains + 2))
    body = draw(st.sampled_from(BODIES)).format()
    return f"""game "Ideas" players 2..2
token coin supply {supply} hold 0..9 when short partial
score pts "points"
enum effect_kind = gain, nothing
component idea "idea" {{ effect: effect_kind = nothing }}
cards idea in deck {{ {gains} x effect = gain
  {others} x effect = nothing }}
zone deck: shared public stack
zone hand: per_player public row
zone discard: shared public row
setup {{ for p in players {{ draw {hand} from deck to p.hand }} }}
rounds {rounds} {{
  for p in players {{
    may choose c from p.hand by p "uses an idea card" {{
      {body}
    }}
    if count(deck) > 0 {{ draw 1 from deck to p.hand }}
  }}
}}
procedure use_effect(p, e) {{
  if e == gain {{ give 1 coin to p }}
}}
winner among p in players by p.coin desc else stable
"""


@settings(max_examples=30, **SOUNDNESS)
@given(spent_specs())
def test_no_proof_by_cards_spent_for_good_is_contradicted_by_any_game(text):
    """For random tiny specs of cards used once, or sent back to the deck, no game contradicts a claim verify proves."""
    check_sound(text)
