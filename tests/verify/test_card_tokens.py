"""Tokens that lie one on a card (verify/card_tokens.py): a supply bounded by the cards that can
hold one at once, proved exactly tight, witnessed short by one, and never proved when a card can
hold two tokens, takes a second one after losing its mark without giving it back, or leaves
with its token during play."""

from __future__ import annotations

from pathlib import Path

from soan.verify.bounds import Bounds
from soan.verify.card_tokens import card_tokens
from soan.verify.properties import verify

from soan import api

MARK = """if c.heat == 0 {
          let before = p.mark
          give 1 mark to p
          if p.mark > before { set c.heat = 1 }
        } elif c.heat < 3 {
          set c.heat += 1
        }"""

COOL = """if c.heat > 0 { return 1 mark from p }
  set c.heat = 0"""


def mark_spec(supply: int, heat: str = MARK, cool: str = COOL, extra: str = "") -> str:
    """Two players with two dishes each; each round every player heats a dish (the first level
    puts the dish's one mark token on it, later levels move it) or cools one (its token back)."""
    return f"""game "Marks" players 2..2
token mark supply {supply} hold 0..12 when short partial
score points "points"
component dish "dish" {{
  size: 1..1 = 1
  state heat: 0..3 = 0
}}
cards dish per player in grill {{ 2 x size = 1 }}
zone grill: per_player public row
zone pass: shared public row
rounds 6 {{
  for p in players {{
    choose c from p.grill by p "picks a dish" {{
      choose by p "heats or cools it" {{
        option heat "heats it" {{
        {heat}
        }}
        option cool "cools it" {{ do cool(p, c) }}
      }}
    }}
    {extra}
  }}
}}
procedure cool(p, c) {{
  {cool}
}}
scoring {{
  for p in players {{ award sum(c.heat for c in p.grill) to p for points }}
}}
winner among p in players by vp(p) desc else draw
"""


def run(text: str, games: int = 60):
    spec = api.compile_text(text, "t.soan")
    t = api.tables(spec, 2)
    result = verify(t, 600.0, 0, max_games=games, only={"supplies"})
    return {f["subject"]: f for f in result["findings"]}, t


def test_a_supply_as_large_as_the_cards_is_proved_never_short():
    """Four dishes holding one mark each: a supply of 4 is enough, proved by the one-per-card ledger."""
    f, t = run(mark_spec(4))
    assert f["mark"]["verdict"] == "proved"
    assert f["mark"]["bounds"]["most_out"] == 4
    h = card_tokens(Bounds(t), "mark")
    assert (h.zone, h.field, h.lowest, h.most) == ("grill", "heat", 0, 4)


def test_a_supply_one_short_of_the_cards_is_witnessed_short():
    """A supply of 3 for four dishes is not proved, and a game marking all four dishes is the witness."""
    f, _ = run(mark_spec(3))
    assert f["mark"]["verdict"] == "witnessed"


def test_a_card_taking_a_token_at_every_level_is_not_read_as_one_per_card():
    """A give at every heat (up to three tokens on a dish) breaks the one-token pattern: no proof, and short at 4."""
    heat = """if c.heat < 3 {
          give 1 mark to p
          set c.heat += 1
        }"""
    f, t = run(mark_spec(4, heat=heat))
    assert card_tokens(Bounds(t), "mark") is None
    assert f["mark"]["verdict"] == "witnessed"


def test_a_card_losing_its_mark_without_giving_the_token_back_is_not_proved():
    """Cooling without a return lets a dish take a second token: the ledger refuses, and games find it short."""
    f, t = run(mark_spec(4, cool="set c.heat = 0"))
    assert card_tokens(Bounds(t), "mark") is None
    assert f["mark"]["verdict"] != "proved"


def test_a_card_leaving_the_zone_with_its_token_during_play_is_not_proved():
    """A dish passed out of the grill during play takes its mark out of the count the ledger reads: it refuses (conservatively)."""
    extra = """may choose d from [x in p.grill where x.heat > 0] by p "passes a dish" { move d to pass }"""
    f, t = run(mark_spec(4, extra=extra))
    assert card_tokens(Bounds(t), "mark") is None
    assert f["mark"]["verdict"] != "proved"


def test_pitmaster_roast_tokens_are_read_one_per_main_dish_card():
    """Pitmaster's roast token (given when a dish's roast leaves 0, back when it burns) is read as one per card on the grills."""
    spec = api.load(str(Path(__file__).parents[2] / "specs" / "pitmaster-20.soan"))
    h = card_tokens(Bounds(api.tables(spec, 3)), "roast_token")
    assert (h.zone, h.field, h.lowest) == ("dishes", "roast", 0)
    assert h.most >= 28  # at least the hand count of main dishes that can hold one at 3 players
