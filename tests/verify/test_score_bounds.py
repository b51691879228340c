"""The score bounds' sharper readings, each on a small spec whose answer is known by hand, with a
case where the reading must not apply; every game of each spec is played (exhaustive) and none
scores above the proved maximum."""

from __future__ import annotations

from soan import api
from soan.verify.bounds import Bounds
from soan.verify.exhaustive import all_games


def proved_and_best(text: str, item: str, n: int = 2) -> tuple[int, int]:
    """The proved maximum of `item` for one player, and the most any game of the spec gives a player."""
    t = api.tables(api.compile_text(text, "t.soan"), n)
    lo, hi = Bounds(t).score_bounds()[item]
    assert lo.status == hi.status == "proved"
    games = all_games(t, max_leaves=200_000)
    assert games is not None
    best = max(max(g.items[item]) for g in games if g.completed)
    assert best <= hi.value, f"a game scores {best} {item}, above the proved {hi.value}"
    return hi.value, best


OWN_CHIPS = """game "Own chips" players 2..2
component chip "chip" { size: 1..1 = 1 }
zone stock: per_player public unordered
zone hand: per_player public unordered
cards chip per player in stock { 3 x size = 1 }
score held "held"
procedure take(p) {
  may choose c from p.stock by p "takes a chip" { move c to p.hand }
}
rounds 3 {
  for p in players { do take(p) }
}
scoring { for p in players { award count(p.hand) to p for held } }
winner among p in players by vp(p) desc else shared
"""


def test_a_players_zone_holds_at_most_their_own_set_when_the_rules_keep_sets_apart():
    """Chips dealt 3 per player and only ever taken from one's own stock: one player's hand holds at most
    3 (not the 6 of both sets), and a game reaches 3."""
    assert proved_and_best(OWN_CHIPS, "held") == (3, 3)


def test_a_zone_filled_from_another_players_set_counts_every_set():
    """Taking from the next player's stock lets both sets into one player's hand: the bound stays 6
    (a game reaches 3: each player takes one chip a round)."""
    assert proved_and_best(OWN_CHIPS.replace("from p.stock", "from next(p).stock"), "held") == (6, 3)
