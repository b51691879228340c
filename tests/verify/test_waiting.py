"""Cards waiting for a token (verify/waiting.py): the tests on the way to a give are read from
the rules through a procedure call, and a round-by-round search that values the cards passing
them gathers them rounds before the give and finds a supply short by one, which tokens out
alone do not."""

from __future__ import annotations

from soan import api
from soan.interpreter.state import State
from soan.verify import climb, stepwise, waiting

# Three rounds each player picks a fruit from the tree into their basket (8 ripe, 8 raw); in the
# fourth every ripe fruit in a basket not yet sealed gets one seal.  By hand the most seals out
# is 6 (both players pick ripe every time): a supply of 5 runs short at the last seal.  Until the
# fourth round no seal is out, so a search on seals out alone has nothing to climb on.
ORCHARD = """game "Orchard" players 2..2
component fruit {
  ripe: bool
  state sealed: 0..1 = 0
}
cards fruit in tree { 8 x ripe = true  8 x ripe = false }
zone tree: shared public unordered
zone basket: per_player public unordered
token seal supply SUPPLY hold 0..20 when short partial
score seals "seals" 0..20
rounds 4 {
  if round <= 3 {
    for p in players { choose c from tree by p "picks a fruit" { move c to p.basket } }
  } else {
    for p in players { for c in p.basket where c.ripe { do seal_fruit(p, c) } }
  }
}
procedure seal_fruit(p, c) {
  if c.sealed == 0 {
    give 1 seal to p
    set c.sealed = 1
  }
}
scoring { for p in players { award p.seal to p for seals } }
winner among p in players by vp(p) desc else draw
"""


def _tables(supply: int):
    return api.tables(api.compile_text(ORCHARD.replace("SUPPLY", str(supply)), "orchard.soan"), 2)


def _short(state) -> bool:
    return any(kind == "short_supply" and site[0] == "seal" for kind, site in state.first_marks)


def test_the_tests_on_the_way_to_a_give_are_read_through_the_call():
    """The seal's give is reached by a card of the basket that is ripe (the loop's filter) and not yet sealed (the if)."""
    tables = _tables(5)
    paths = waiting.give_paths(tables.spec, "seal", set(tables.player_zone_names))
    assert list(paths) == ["basket"] and len(paths["basket"]) == 1
    assert sorted(type(test).__name__ for _, test in paths["basket"][0]) == ["Attr", "BinOp"]


def test_waiting_cards_are_counted_on_a_state():
    """After the setup no fruit waits; with the whole tree in a basket its 8 ripe fruits wait, the 8 raw ones do not."""
    tables = _tables(5)
    count = waiting.waiting_count(tables, "seal")
    st = State(tables).start()
    assert count(st) == 0
    tree, basket = tables.slot_of[("tree", -1)], tables.slot_of[("basket", 0)]
    st.zones[basket].extend(st.zones[tree])
    st.zones[tree].clear()
    assert count(st) == 8


def test_the_search_gathers_waiting_cards_and_finds_the_supply_short_by_one():
    """With 5 seals the round-by-round search picks ripe fruit in every round and the fourth finds the supply short, for every seed tried; each game replays so."""
    tables = _tables(5)
    for seed in range(3):
        value, rec = stepwise.extend(tables, stepwise.potential_objective(tables, "seal", 5), seed, 20_000,
                                     settled=lambda v: v[0] == 1)
        assert value[0] == 1 and _short(rec.state)
        assert _short(api.replay(tables, rec.log))


def test_a_supply_as_large_as_the_ripe_picks_is_never_found_short():
    """With 6 seals the same search seals the hand-known 6 fruits and finds no shortage."""
    tables = _tables(6)
    value, rec = stepwise.extend(tables, stepwise.potential_objective(tables, "seal", 6), 0, 20_000,
                                 settled=lambda v: v[0] == 1)
    assert value[0] == 0 and not _short(rec.state)
    assert 6 - rec.state.supply["seal"] == 6


def test_seals_out_alone_do_not_gather_ripe_fruit():
    """Valued on seals out alone, the same search (seed 0) leaves its early picks to chance and finds no shortage."""
    tables = _tables(5)
    value, rec = stepwise.extend(tables, climb.supply_objective("seal", 5), 0, 20_000, settled=lambda v: v[0] > 5)
    assert value[0] <= 5 and not _short(rec.state)
