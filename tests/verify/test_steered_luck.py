"""Steered games that steer rolls too (search.directed_games, steer_chance): a supply that only
lucky rolls run short is witnessed by a replayable game, one as large as every roll can ask for
is proved and never seen short."""

from __future__ import annotations

from soan.verify.properties import verify
from soan.verify.search import Witness, confirm, directed_games, tokens_out

from soan import api


def luck_spec(supply: int) -> str:
    """Two players roll a d6 each round for six rounds; a six gives a star: 12 stars at most."""
    return f"""game "Luck" players 2..2
token star supply {supply} hold 0..12 when short partial
score points "points"
component die "die" {{
  faces: 6..6
  state face: 1..6 = 1
}}
cards die per player in cup {{ 1 x faces = 6 }}
zone cup: per_player public row
rounds 6 {{
  for p in players {{
    for d in p.cup {{
      roll d
      if d.face == 6 {{ give 1 star to p }}
    }}
  }}
}}
scoring {{ for p in players {{ award p.star to p for points }} }}
winner among p in players by vp(p) desc else shared
"""


def tables(supply: int):
    return api.tables(api.compile_text(luck_spec(supply), "t.soan"), 2)


def test_steering_the_rolls_makes_every_roll_a_six_in_a_replayable_game():
    """With the rolls steered, the first game rolls twelve sixes; the record replays as it was played."""
    t = tables(12)
    [rec] = directed_games(t, tokens_out("star", 12), seed=0, games=1, steer_chance=True, explore=0.0)
    assert 12 - rec.state.supply["star"] == 12
    assert confirm(t, Witness(rec, len(rec.log["steps"])))


def test_without_steering_the_rolls_the_same_game_is_left_to_luck():
    """The same directed game with rolls drawn as they fall gets far fewer than twelve sixes."""
    t = tables(12)
    [rec] = directed_games(t, tokens_out("star", 12), seed=0, games=1, explore=0.0)
    assert 12 - rec.state.supply["star"] < 6


def test_a_supply_one_short_of_all_sixes_is_witnessed_short():
    """Eleven stars: a game of twelve sixes runs the supply short, and verify shows it."""
    result = verify(tables(11), 600.0, 0, max_games=8, only={"supplies"})
    f = {x["subject"]: x for x in result["findings"]}
    assert f["star"]["verdict"] == "witnessed"


def test_a_supply_as_large_as_all_sixes_is_proved_and_never_seen_short():
    """Twelve stars: even the luckiest game cannot run it short, and the proof says so."""
    result = verify(tables(12), 600.0, 0, max_games=8, only={"supplies"})
    f = {x["subject"]: x for x in result["findings"]}
    assert f["star"]["verdict"] == "proved"

