"""The cooperative search pushes tokens out of a supply (verify/climb.py
supply_objective): a shortage that needs every seat to give up a coin now for more
later is witnessed, and the witness replays to a give that finds the supply short."""

from __future__ import annotations

from soan import api
from soan.verify import climb, supplies
from soan.verify.properties import verify

# Each turn a player takes a coin, or digs, digs deeper and plants (three decisions for
# five coins); at each of the three steps the player may take a coin instead.  Four
# rounds of three players take at most 12 x 5 = 60 coins, one more than the 59 in the
# supply: it runs short only when all twelve turns dig, deepen and plant.  One-step
# greed takes the coin; one changed decision gains nothing, so a climb stays at the coin.
ORCHARD = """game "Orchard" players 3..3
token coin supply 59 hold 0..60 when short partial
player {
  hole: 0..2 = 0 "how deep the hole dug this turn is"
}
score coins "coins" 0..60
rounds 4 {
  for p in players {
    choose by p "tends the orchard" {
      option take "takes a coin" { give 1 coin to p }
      option dig "digs a hole" { set p.hole = 1 }
    }
    if p.hole == 1 {
      choose by p "works on the hole" {
        option take "takes a coin" { give 1 coin to p }
        option deepen "digs deeper" { set p.hole = 2 }
      }
    }
    if p.hole == 2 {
      choose by p "fills the hole" {
        option take "takes a coin" { give 1 coin to p }
        option plant "plants a tree that fruits at once" { give 5 coin to p }
      }
    }
    set p.hole = 0
  }
}
scoring { for p in players { award p.coin to p for coins } }
winner among p in players by vp(p) desc else draw
"""


def _tables():
    return api.tables(api.compile_text(ORCHARD, "orchard.soan"), 3)


def _short(state) -> bool:
    return any(kind == "short_supply" and site[0] == "coin" for kind, site in state.first_marks)


def test_random_play_never_empties_the_orchard_supply():
    """Three hundred random games of Orchard never find the coin supply short."""
    tables = _tables()
    assert not any(_short(api.play(tables, s, ["random"] * 3).state) for s in range(300))


def test_the_cooperative_search_takes_every_coin_and_its_game_replays():
    """reach() with the supply's objective finds a game whose give finds the 59 coins short, and it replays so."""
    tables = _tables()
    value, rec = climb.reach(tables, "supply:coin", 1, 60, seed=0, max_work=20_000,
                             objective=climb.supply_objective("coin", 59), settled=lambda v: v[0] > 59,
                             shape=supplies.COOPERATIVE_SUPPLY_SHAPE, choose_chance=False)
    assert value == 60 and _short(rec.state)
    assert [step.get("move") for step in rec.log["steps"]][:3] == ["dig", "deepen", "plant"]
    assert _short(api.replay(tables, rec.log))


def test_verify_witnesses_the_shortage_only_with_the_cooperative_search(monkeypatch, tmp_path):
    """At --games 40 verify witnesses the coin supply short and its witness file replays to the shortage; with the
    cooperative search given no work, steered games and the push leave it unknown."""
    tables = _tables()

    def coin(witness_dir=None):
        r = verify(tables, 600, 0, only={"supplies"}, max_games=40, witness_dir=witness_dir)
        return next(f for f in r["findings"] if f["property"] == "supplies" and f["subject"] == "coin")

    found = coin(tmp_path)
    assert found["verdict"] == "witnessed"
    assert _short(api.replay(tables, api.load_log(found["witness"])))
    monkeypatch.setattr(supplies, "COOPERATIVE_SUPPLY_STEPS_PER_GAME", 0)
    assert coin()["verdict"] == "unknown"
