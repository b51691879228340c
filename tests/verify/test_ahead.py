"""Playing ahead in child processes (verify/ahead.py): the same games, in the same order, for any --jobs."""

from __future__ import annotations

from pathlib import Path

from soan import api
from soan.interpreter.play import play_game
from soan.verify import search
from soan.verify.ahead import Ahead
from soan.verify.properties import verify

# two seats pick a number and roll a die each round: the climb's random changes and sweeps both have
# room to work (decisions and chance), and its games are short
PICKS = """game "Picks" players 2..2
component die "die" {
  faces: 6..6 = 6
  state face: 1..6 = 1
}
zone tray: shared public unordered
cards die in tray { 1 x faces = 6 }
score picked "picked" 0..60
score pips "pips" 0..18
rounds 3 {
  for p in players {
    choose x from [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] by p "picks" { award x to p for picked }
    for d in tray { roll d }
    for d in tray { award d.face to p for pips }
  }
}
winner among p in players by vp(p) desc else draw
"""


def _climb_games(jobs: int, monkeypatch) -> tuple:
    tables = api.tables(api.compile_text(PICKS, "picks.soan"), 2)
    starts = [play_game(tables, s, ["random", "random"]) for s in range(3)]
    made = []
    monkeypatch.setattr(search, "Ahead", lambda *a: made.append(Ahead(*a)) or made[-1])
    played = []
    found = search.climb(tables, lambda rec: (rec.result["scores"]["P1"], 0), starts, 7, max_evals=150,
                         on_game=lambda rec: played.append(rec.to_json()), jobs=jobs)
    return found[0], found[1].to_json(), played, made[0]


def test_a_climb_plays_the_same_games_in_the_same_order_with_one_job_or_two(monkeypatch):
    """A climb whose next tries are played ahead in a child process plays exactly the games, in the order, that it plays alone, and takes most of its tries from the forecast games."""
    v1, best1, games1, ahead1 = _climb_games(1, monkeypatch)
    v2, best2, games2, ahead2 = _climb_games(2, monkeypatch)
    assert (v1, best1) == (v2, best2)
    assert games1 == games2 and len(games1) >= 150
    assert ahead1.forecast_games == 0  # one job: nothing is played ahead
    # two jobs: the child process played forecast games, and a good share of the climb's tries were among them
    assert ahead2.forecast_games > 0 and ahead2.forecast_used >= len(games2) // 4


RULED = PICKS.replace('score pips "pips" 0..18', 'score pips "pips" 0..18\n'
                      'ruling six_bonus: {plain, extra} = plain "Does a six add one? (test)" cite "none"').replace(
    "for d in tray { award d.face to p for pips }",
    "for d in tray { award d.face to p for pips  if d.face == 6 and six_bonus == extra { award 1 to p for pips } }")


def test_verify_score_and_rulings_are_the_same_with_one_job_or_two(tmp_path):
    """The score climbs and the rulings' paired study, played in two processes, give exactly the findings of one."""
    tables = api.tables(api.compile_text(RULED, str(tmp_path / "ruled.soan")), 2)
    one = verify(tables, 600, 0, {"score", "rulings"}, witness_dir=tmp_path / "one", max_games=12, jobs=1)
    two = verify(tables, 600, 0, {"score", "rulings"}, witness_dir=tmp_path / "two", max_games=12, jobs=2)
    for r in (one, two):
        r["search"].pop("seconds")
        for f in r["findings"]:
            f["witness"] = f["witness"] and Path(f["witness"]).name
    assert one == two
    kinds = {(f["property"], f["verdict"]) for f in one["findings"]}
    assert ("rulings", "witnessed") in kinds and ("score", "proved") in kinds
