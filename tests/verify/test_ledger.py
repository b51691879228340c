"""Tokens that lie on cards (verify/ledger.py): a supply bounded by the cards
that can hold its tokens, proved exactly tight, witnessed short by one, and
never proved when a rule breaks the ledger."""

from __future__ import annotations

from soan.verify.bounds import Bounds
from soan.verify.ledger import ledger
from soan.verify.properties import verify

from soan import api


def heat_spec(supply: int, rounds: int = 8, extra_round: str = "", extra: str = "") -> str:
    """Two players with two dishes each on their grill; each round every player heats one
    dish by one (a heat token on it), up to 3; a cooled dish gives its tokens back."""
    return f"""game "Heat" players 2..2
token heat supply {supply} hold 0..12 when short partial
score points "points"
component dish "dish" {{
  size: 1..1 = 1
  state heat: 0..3 = 0
}}
cards dish per player in grill {{ 2 x size = 1 }}
zone grill: per_player public row
zone pass: shared public row
rounds {rounds} {{
  for p in players {{
    choose c from [d in p.grill where d.heat < 3] by p "heats a dish" {{
      give 1 heat to p
      set c.heat += 1
    }}
    {extra_round}
  }}
}}
procedure cool(p, c) {{
  return c.heat heat from p
  set c.heat = 0
}}
{extra}
scoring {{
  for p in players {{ award p.heat to p for points }}
}}
winner among p in players by vp(p) desc else draw
"""


def run(text: str, games: int = 40):
    spec = api.compile_text(text, "t.soan")
    t = api.tables(spec, 2)
    result = verify(t, 600.0, 0, max_games=games, only={"supplies"})
    return {f["subject"]: f for f in result["findings"]}, t


def test_a_supply_exactly_as_large_as_the_cards_can_hold_is_proved_never_short():
    """Four dishes holding at most 3 heat tokens each: a supply of 12 is enough, and the proof says so."""
    f, t = run(heat_spec(12))
    assert f["heat"]["verdict"] == "proved"
    assert f["heat"]["bounds"]["most_out"] == 12
    h = ledger(Bounds(t), "heat")
    assert (h.zone, h.field, h.cards, h.most) == ("grill", "heat", 4, 12)


def test_a_supply_one_short_of_what_the_cards_can_hold_is_witnessed_short(tmp_path):
    """With 11 tokens, the sixth round heats the last dish to 3: a game shows the supply run short."""
    f, _ = run(heat_spec(11))
    assert f["heat"]["verdict"] == "witnessed"


def test_a_cooled_dish_gives_its_tokens_back_and_the_ledger_still_holds():
    """Returning a dish's tokens as its heat drops to 0 keeps the invariant: 12 is still enough."""
    text = heat_spec(12, extra_round="""may choose c from [d in p.grill where d.heat == 3] by p "cools a dish" {
      do cool(p, c)
    }""")
    f, _ = run(text)
    assert f["heat"]["verdict"] == "proved"


def test_a_dish_that_leaves_the_grill_hot_breaks_the_ledger():
    """A dish passed on with its tokens still out lets more tokens out than the grill can hold: no ledger, no proof."""
    text = heat_spec(12, rounds=12, extra_round="""may choose c from [d in p.grill where d.heat == 3] by p "passes a dish on" {
      move c to pass
    }""")
    f, t = run(text)
    assert ledger(Bounds(t), "heat") is None
    assert f["heat"]["verdict"] != "proved"


def test_a_heat_dropped_without_giving_tokens_back_breaks_the_ledger():
    """A rule that cools a dish but keeps its tokens out is not a ledger the proof may use."""
    text = heat_spec(12, rounds=12, extra_round="""may choose c from [d in p.grill where d.heat == 3] by p "fans a dish" {
      set c.heat = 0
    }""")
    f, t = run(text)
    assert ledger(Bounds(t), "heat") is None
    assert f["heat"]["verdict"] == "witnessed"


def test_a_give_to_another_player_than_the_cards_owner_breaks_the_ledger():
    """Heat tokens go to the next player while the dish is the heater's: the ledger cannot follow them."""
    text = heat_spec(12).replace("give 1 heat to p\n", "give 1 heat to next(p)\n")
    spec = api.compile_text(text, "t.soan")
    assert ledger(Bounds(api.tables(spec, 2)), "heat") is None


def test_a_ledger_true_in_every_game_but_not_inductive_is_not_used():
    """A give with no field beside it that no game reaches (round 9 of 8) keeps the ledger true in
    every game, yet not inductive: the ledger is not claimed; the supply rests on other proofs."""
    text = heat_spec(12, extra_round="if round > 8 { give 1 heat to p }")
    spec = api.compile_text(text, "t.soan")
    t = api.tables(spec, 2)
    assert ledger(Bounds(t), "heat") is None
    for seed in range(5):  # the invariant holds at the end of real games all the same
        rec = api.play(t, seed, ["random", "random"])
        for i in range(2):
            held = rec.state.pv["heat"][i]
            on_cards = sum(rec.state.cs["heat"][c] for c in rec.state.zones[t.slot_of[("grill", i)]])
            assert held <= on_cards
