"""The cooperative climbs aimed at one loose score item (verify/climb.py item_objective,
verify/properties.py _item_climbs): every seat feeds one player's item, so an item the
games played never push rises towards its proved maximum."""

from __future__ import annotations

from soan import api
from soan.verify import climb, properties
from soan.verify.properties import verify

# Two players pick one of twelve dishes each round for thirty rounds: eleven are eaten (3 feast
# points), one is kept (1 larder point).  Play for the total eats; random play keeps about one
# pick in twelve.  The larder's top, 30, needs every one of a player's thirty picks to keep.
LARDER = """game "Larder" players 2..2
component dish "dish" {
  flavour: 1..12 = 1
}
zone menu: shared public unordered
cards dish in menu { 1 x flavour = 1  1 x flavour = 2  1 x flavour = 3  1 x flavour = 4  1 x flavour = 5
  1 x flavour = 6  1 x flavour = 7  1 x flavour = 8  1 x flavour = 9  1 x flavour = 10  1 x flavour = 11
  1 x flavour = 12 }
player {
  feasts: 0..30 = 0 "dishes eaten"
  saved: 0..30 = 0 "dishes kept for later"
}
score feast "feast" 0..90
score larder "larder" 0..30
rounds 30 {
  for p in players {
    choose c from menu by p "a dish" {
      if c.flavour == 12 { set p.saved += 1 } else { set p.feasts += 1 }
    }
  }
}
scoring {
  for p in players {
    award 3 * p.feasts to p for feast
    award p.saved to p for larder
  }
}
winner among p in players by vp(p) desc else draw
"""


def _tables():
    return api.tables(api.compile_text(LARDER, "t.soan"), 2)


def _larder(rec) -> int:
    return max(b["larder"] for b in rec.result["breakdown"].values())


def test_the_item_climb_reaches_the_larders_top_and_the_total_climb_does_not():
    """reach() aimed at the larder item finds a game where one player keeps all thirty dishes (30, the hand-known
    top), and it replays; the same work aimed at the total eats instead and keeps far fewer."""
    tables = _tables()
    value, rec = climb.reach(tables, "item:larder", 1, 30, seed=0, max_work=8_000,
                             objective=climb.item_objective("larder", 1, 2), shape=properties.ITEM_SHAPE,
                             choose_chance=False)
    assert value == 30 and _larder(rec) == 30
    assert api.replay(tables, rec.log).result == rec.result
    _, by_total = climb.reach(tables, "total", 1, 120, seed=0, max_work=8_000, shape=properties.ITEM_SHAPE,
                              choose_chance=False)
    scores = by_total.result["scores"]
    top = max(scores, key=scores.get)
    assert by_total.result["breakdown"][top]["larder"] < 15


def test_verify_makes_the_loose_larder_tight_only_with_the_item_climb(monkeypatch, tmp_path):
    """At --games 30 verify proves the larder 0..30 and, with the item climb, witnesses 30 (tight, its hand-known
    top) in a game that replays; with no item climb the games it plays keep fewer than 15 and the item stays loose."""
    tables = _tables()

    def larder_finding(witness_dir=None):
        r = verify(tables, 600, 0, only={"score"}, max_games=30, witness_dir=witness_dir)
        return next(f for f in r["findings"] if f["subject"] == "item larder")

    got = larder_finding(tmp_path)
    assert got["bounds"]["proved"] == [0, 30] and got["bounds"]["witnessed"][1] == 30
    assert got["bounds"]["fit"] == "tight"
    assert _larder(api.replay(tables, api.load_log(got["witness"]))) == 30
    monkeypatch.setattr(properties, "ITEM_CLIMBS", 0)
    monkeypatch.setattr(properties, "PROGRESS_CLIMBS", False)
    monkeypatch.setattr(properties, "WITNESS_TOTAL_PER_GAME", 0)  # the loose items' own climbs (item_witness)
    monkeypatch.setattr(properties, "PLAN_TOTAL_PER_GAME", 0)  # and their planned games (item_plan)
    monkeypatch.setattr(properties, "WIDE_TOTAL_PER_GAME", 0)  # (item_plan, wider)
    monkeypatch.setattr(properties, "FOCUS_TOTAL_PER_GAME", 0)  # (seat_plan)
    monkeypatch.setattr(properties, "AHEAD_TOTAL_PER_GAME", 0)  # (seat_plan, planned ahead: alone, 16)
    without = larder_finding()["bounds"]
    assert without["witnessed"][1] < 15 and without["fit"] == "loose"


def test_a_penalty_item_is_climbed_towards_its_minimum():
    """item_objective with sign -1 values a state by the lowest item score (negated), so reach() aimed at an
    item's minimum drives it down: the feast falls to 0 for a player who keeps all thirty picks, and it replays."""
    tables = _tables()
    value, rec = climb.reach(tables, "item:feast", -1, 0, seed=0, max_work=20_000,
                             objective=climb.item_objective("feast", -1, 2), shape=(8, 6, 0, 0),
                             choose_chance=False)
    assert value == 0 and min(b["feast"] for b in rec.result["breakdown"].values()) == 0
    assert api.replay(tables, rec.log).result == rec.result


def test_an_item_a_seat_gains_from_is_climbed_before_a_penalty(monkeypatch):
    """With one item climb and a loose penalty that random play already brings nearer its worst than the larder
    its best (8 + the burnt dishes, flavour 11), the climb goes to the larder, which reaches its top 30 (tight);
    the penalty, not climbed, stays far from its proved -38."""
    spec = LARDER.replace('  saved: 0..30 = 0 "dishes kept for later"',
                          '  saved: 0..30 = 0 "dishes kept for later"\n  burnt: 0..30 = 0 "dishes burnt"')
    spec = spec.replace("if c.flavour == 12 { set p.saved += 1 } else { set p.feasts += 1 }",
                        "if c.flavour == 12 { set p.saved += 1 } else { set p.feasts += 1 }\n"
                        "      if c.flavour == 11 { set p.burnt += 1 }")
    spec = spec.replace('score larder "larder" 0..30', 'score larder "larder" 0..30\nscore waste "waste" -38..0')
    spec = spec.replace("    award p.saved to p for larder", "    award p.saved to p for larder\n"
                        "    award 0 - 8 - p.burnt to p for waste")
    tables = api.tables(api.compile_text(spec, "t.soan"), 2)
    monkeypatch.setattr(properties, "WITNESS_TOTAL_PER_GAME", 0)  # the loose items' own climbs (item_witness) after
    r = verify(tables, 600, 0, only={"score"}, max_games=30)
    got = {f["subject"]: f["bounds"] for f in r["findings"]}
    assert got["item waste"]["proved"][0] == -38 and got["item waste"]["witnessed"][0] > -19
    assert got["item larder"]["witnessed"][1] == 30 and got["item larder"]["fit"] == "tight"
