"""A work area of capacity K pays at most K a round (verify/bounds.py, work areas): a worker
swapped in place (an exchange) frees no place, so the bound stands; one taken back does."""

from __future__ import annotations

from soan.verify.properties import verify

from soan import api


def area_spec(supply: int, swap: str) -> str:
    """Two players with three workers each; a shared area of capacity 2 (emptied only at the end
    of the round) pays a coin per worker placed; `swap` runs right after the placement."""
    return f"""game "Area" players 2..2
token coin supply {supply} hold 0..24 when short partial
score points "points"
component worker "worker" {{ size: 1..2 }}
cards worker per player in workers {{ 3 x size = 1 }}
cards worker per player in stock {{ 3 x size = 2 }}
zone workers: per_player public row
zone stock: per_player public row
zone area: shared public row capacity 2
zone home: per_player public row
rounds 4 {{
  phase place "place" {{
    repeat 3 times {{
      for p in players {{
        if count(area) < 2 {{
          may choose d from p.workers by p "places a worker" {{
            move d to area
            {swap}
            give 1 coin to p
          }}
        }}
      }}
    }}
  }}
  phase back "back" {{
    for p in players {{ move [x in area where x.owner == p] to p.workers }}
  }}
}}
scoring {{ for p in players {{ award p.coin to p for points }} }}
winner among p in players by vp(p) desc else shared
"""


def area_verdict(supply: int, swap: str) -> str:
    result = verify(api.tables(api.compile_text(area_spec(supply, swap), "t.soan"), 2), 600.0, 0, max_games=16,
                    only={"supplies"})
    return {x["subject"]: x for x in result["findings"]}["coin"]["verdict"]


SWAP = "if count(p.stock) > 0 { exchange d with first(p.stock) }"


def test_swapping_a_placed_worker_frees_no_place_in_the_area():
    """A worker swapped for a bigger one at once (an exchange) leaves the area as full: two coins a
    round, 8 in four rounds, proved exactly tight."""
    assert area_verdict(8, SWAP) == "proved"


def test_an_area_one_coin_short_is_witnessed_even_with_the_swap():
    """Seven coins: the fourth round's second placement finds the supply empty."""
    assert area_verdict(7, SWAP) == "witnessed"


def test_a_worker_taken_back_from_the_area_mid_round_frees_a_place():
    """A worker moved out of the area in the same step (not swapped) lets a third placement in: no proof."""
    assert area_verdict(8, "move d to p.workers") != "proved"
