"""The round-by-round search (verify/stepwise.py): a shortage that needs a card bought in
one round for a sale in the next, and calls aimed earlier in the round at the sale, is
witnessed; its witness replays; a supply exactly as large as the most that can be out is
never found short."""

from __future__ import annotations

from pathlib import Path

from soan import api
from soan.verify import climb, stepwise, supplies

SPECS = Path(__file__).resolve().parents[2] / "specs"

# Each round both players call a fish, then sell every crate they hold at 3 coins a crate for
# each player who called cod (the crates are all cod), then may pay a coin for one crate.  A
# crate bought is sold in the next round at the earliest.  By hand: 2 coins out after the
# setup, 0 after both buy in round 1, 12 after both sell at 6 in round 2, 10 after both buy
# again, and 22 after the round 3 sale: the most ever out.  A supply of 21 runs short at that
# last sale; 22 never does.  Buying lowers the coins out at once, so a search on coins out
# alone never buys.
MARKET = """game "Fish market" players 2..2
enum fish = cod, eel
component crate {
  catch: fish
}
cards crate in dock { 12 x catch = cod }
zone dock: shared public unordered
zone sold: shared public unordered
zone hold: per_player owner unordered
token coin supply SUPPLY hold 0..100 when short partial
player {
  call: fish = none "the fish called this round"
}
score coins "coins" 0..100
def price(f) = 3 * count(q in players where q.call == f)
setup { for p in players { give 1 coin to p } }
rounds 3 {
  for p in players { choose f from fish by p "calls a fish" { set p.call = f } }
  for p in players {
    for f in fish {
      let k = count(c in p.hold where c.catch == f)
      if k > 0 {
        move [c in p.hold where c.catch == f] to sold
        give k * price(f) coin to p
      }
    }
  }
  for p in players {
    if p.coin >= 1 {
      may choose by p "buys a crate" {
        option buy "pays a coin for a crate" {
          return 1 coin from p
          choose c from dock by p "picks a crate" { move c to p.hold }
        }
      }
    }
  }
}
scoring { for p in players { award p.coin to p for coins } }
winner among p in players by vp(p) desc else draw
"""


def _tables(supply: int):
    return api.tables(api.compile_text(MARKET.replace("SUPPLY", str(supply)), "market.soan"), 2)


def _short(state) -> bool:
    return any(kind == "short_supply" and site[0] == "coin" for kind, site in state.first_marks)


def test_the_zone_a_sale_turns_into_coins_is_found():
    """convertible_zones names the players' hold (moved out beside a give of coins) and nothing for another token."""
    spec = _tables(21).spec
    assert stepwise.convertible_zones(spec, "coin", {"hold"}) == {"hold"}
    assert stepwise.convertible_zones(spec, "gem", {"hold"}) == set()


def test_the_round_by_round_search_finds_the_shortage_by_one_and_it_replays():
    """With 21 coins the search grows a game whose round 3 sale finds the supply short, for every seed tried, and each game replays so."""
    tables = _tables(21)
    for seed in range(3):
        value, rec = stepwise.extend(tables, stepwise.potential_objective(tables, "coin", 21), seed, 20_000,
                                     settled=lambda v: v[0] == 1)
        assert value[0] == 1 and _short(rec.state)
        assert _short(api.replay(tables, rec.log))


def test_a_supply_exactly_as_large_as_the_most_out_is_never_found_short():
    """With 22 coins the search reaches the hand-known 22 out at the last sale (20 after the final buys) but no shortage."""
    tables = _tables(22)
    value, rec = stepwise.extend(tables, stepwise.potential_objective(tables, "coin", 22), 0, 20_000,
                                 settled=lambda v: v[0] == 1)
    assert value[0] == 0 and not _short(rec.state)
    assert 22 - rec.state.supply["coin"] == 20


def test_coins_out_alone_never_buy_a_crate():
    """Valued on coins out alone (no worth for a crate held) the same search never buys, so it stays at the setup's 2 coins."""
    tables = _tables(21)
    value, rec = stepwise.extend(tables, climb.supply_objective("coin", 21), 0, 20_000, settled=lambda v: v[0] > 21)
    assert value == (2,) and not _short(rec.state)


def test_hibachi_bank_is_found_short_at_two_players_and_the_game_replays():
    """On the shipped Hibachi at 2 players (bank 18,000 yen, 14,800 after the setup) the search, at verify's default
    work, grows a game whose sale finds the bank short, and the game replays to the shortage."""
    tables = api.tables(api.load_spec(SPECS / "hibachi.soan"), 2)
    supply = tables.supply_size("yen")
    value, rec = stepwise.extend(tables, stepwise.potential_objective(tables, "yen", supply), 0,
                                 120 * supplies.STEPWISE_STEPS_PER_GAME, settled=lambda v: v[0] == 1)
    assert value[0] == 1
    replayed = api.replay(tables, rec.log)
    assert any(kind == "short_supply" and site[0] == "yen" for kind, site in replayed.first_marks)
