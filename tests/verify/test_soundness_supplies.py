"""No supply or pile proof may contradict a game: random tiny specs built around the
shapes the newer supply techniques read (tokens that lie on cards, an exchange through
a discard in the setup, a refill from the players), each with variants that must break
the proof, checked against every game of the spec listed exhaustively."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_soundness import SOUNDNESS, check_sound

LEDGER_GIVES = [
    "give {a} heat to p\n      set c.heat += {a}",
    "set c.heat += 1\n      give 1 heat to p",
    "give 1 heat to next(p)\n      set c.heat += 1",  # another player's tokens: no ledger
    "give 2 heat to p\n      set c.heat += 1",  # more tokens than the field rises: no ledger
]
LEDGER_COOLS = [
    "return c.heat heat from p\n      set c.heat = 0",
    "set c.heat = 0",  # tokens kept out: no ledger
    "move c to out",  # the card leaves the grill with its tokens: no ledger
    "return c.heat heat from next(p)\n      set c.heat = 0",  # another player gives them back: no ledger
    "return 1 heat from p\n      set c.heat = 0",  # fewer back than the field falls: no ledger
]


@st.composite
def ledger_specs(draw) -> str:
    dishes, top, rounds = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    supply = draw(st.integers(1, 2 * dishes * top + 1))
    give = draw(st.sampled_from(LEDGER_GIVES)).format(a=draw(st.integers(1, 2)))
    cool = draw(st.sampled_from(LEDGER_COOLS)) if draw(st.booleans()) else None
    cooling = (f'\n    may choose c from [d in p.grill where d.heat > 0] by p "cools a dish" {{\n      {cool}\n    }}'
               if cool else "")
    return f"""game "Heat" players 2..2
token heat supply {supply} hold 0..9 when short partial
score pts "points"
component dish "dish" {{
  size: 1..1 = 1
  state heat: 0..{top} = 0
}}
cards dish per player in grill {{ {dishes} x size = 1 }}
zone grill: per_player public row
zone out: shared public row
rounds {rounds} {{
  for p in players {{
    choose c from [d in p.grill where d.heat < {top}] by p "heats a dish" {{
      {give}
    }}{cooling}
  }}
}}
winner among p in players by p.heat desc else stable
"""


@st.composite
def exchange_specs(draw) -> str:
    deal, rounds = draw(st.integers(1, 2)), draw(st.integers(0, 2))
    cards = draw(st.integers(2 * deal, 2 * deal + 2 * rounds + 3))
    back = draw(st.sampled_from(["move discard to deck", "move discard to box", ""]))
    gate = draw(st.sampled_from(["", "if round < 2 { ", "if round == 1 { "]))
    again = draw(st.sampled_from(["", "\n      move out to box"]))  # the same list moved on: counted once
    end = " }" if gate else ""
    return f"""game "Deck" players 2..2
score pts "points"
component card "card" {{
  number: 1..9 = 1
}}
cards card in deck {{ {cards} x number = 1 }}
zone deck: shared hidden stack
zone discard: shared hidden stack
zone hand: per_player owner unordered
setup {{
  for p in players {{ draw {deal} from deck to p.hand }}
  for p in players {{
    may choose out between 1 and {deal} from p.hand by p "exchanges cards" {{
      move out to discard{again}
      draw count(out) from deck to p.hand
    }}
  }}
  {back}
}}
rounds {rounds} {{
  {gate}for p in players {{ draw 1 from deck to p.hand }}{end}
}}
winner among p in players by count(p.hand) desc else stable
"""


@st.composite
def refill_specs(draw) -> str:
    chips, rounds = draw(st.integers(1, 3), label="chips"), draw(st.integers(1, 3))
    fallback = draw(st.sampled_from(["shared", "stable", "none"]))
    spend = draw(st.sampled_from(["", "may choose by p \"spends\" { option spend { move p.stash to spent } }"]))
    refill = draw(st.sampled_from(["move q.stash to pile", "move take(q.stash, 1) to pile"]))
    return f"""game "Chips" players 2..2
score pts "points"
component chip "chip" {{
  hot: 1..1 = 1
}}
cards chip in pile {{ {chips} x hot = 1 }}
zone pile: shared public stack
zone stash: per_player public unordered
zone spent: shared public unordered
procedure shortage {{
  let most = best q in players where count(q.stash) > 0 by count(q.stash) desc else {fallback}
  for q in most {{ {refill} }}
}}
rounds {rounds} {{
  for p in players {{
    if count(pile) == 0 {{ do shortage }}
    draw 1 from pile to p.stash
    {spend}
  }}
}}
winner among p in players by count(p.stash) desc else stable
"""


@settings(max_examples=25, **SOUNDNESS)
@given(st.one_of(ledger_specs(), exchange_specs(), refill_specs()))
def test_no_supply_or_pile_proof_is_contradicted_by_any_game(text):
    """For random tiny specs around tokens on cards, setup exchanges and refills, no game
    contradicts a supply or pile verify proves."""
    check_sound(text)


@pytest.mark.slow
@settings(max_examples=400, **SOUNDNESS)
@given(st.one_of(ledger_specs(), exchange_specs(), refill_specs()))
def test_no_supply_or_pile_proof_is_contradicted_in_400_specs(text):
    """The same for 400 specs."""
    check_sound(text)
