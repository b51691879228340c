"""The cooperative search for a proved maximum (verify/climb.py): every seat plays
for one and chance outcomes are chosen, and what it finds is a real game that
replays."""

from __future__ import annotations

from soan import api
from soan.verify import climb, properties
from soan.verify.properties import verify

# Three players give one favour each per round for five rounds; a player's praise is
# the favours it got, and one who got all fifteen adds the die rolled at the start.
# The top, 15 + 6 = 21, needs all fifteen decisions to agree and the roll to be a six.
PATRONS = """game "Patrons" players 3..3
component die "die" {
  faces: 6..6 = 6
  state face: 1..6 = 1
}
zone tray: shared public unordered
cards die in tray { 1 x faces = 6 }
player {
  favours: 0..15 = 0 "favours received"
}
score praise "praise" 0..15
score bonus "bonus" 0..6
setup { roll first(tray) }
rounds 5 {
  for p in players {
    choose q from players by p "favours" { set q.favours += 1 }
  }
}
scoring {
  for p in players {
    award p.favours to p for praise
    if p.favours == 15 { award first(tray).face to p for bonus }
  }
}
winner among p in players by vp(p) desc else draw
"""


def _tables():
    return api.tables(api.compile_text(PATRONS, "t.soan"), 3)


def test_random_play_stays_far_below_the_top_that_needs_every_seat_and_a_six():
    """Three hundred random games of Patrons never give one player all fifteen favours (their best is far below 21)."""
    tables = _tables()
    best = max(max(api.play(tables, s, ["random"] * 3).result["scores"].values()) for s in range(300))
    assert best < 15


def test_the_cooperative_search_reaches_the_top_with_every_favour_and_a_six():
    """reach() finds a game where one player gets all fifteen favours and the die shows six (21), and it replays."""
    tables = _tables()
    value, rec = climb.reach(tables, "total", 1, 21, seed=0, max_work=20_000)
    assert value == 21
    scores = rec.result["scores"]
    top = max(scores, key=scores.get)
    assert rec.result["breakdown"][top] == {"praise": 15, "bonus": 6}
    assert api.replay(tables, rec.log).result == rec.result


def test_the_same_seed_and_work_give_the_same_game():
    """The search's budget is work, not time: two runs with one seed give the same game, step for step."""
    tables = _tables()
    a = climb.reach(tables, "total", 1, 21, seed=3, max_work=20_000)
    b = climb.reach(tables, "total", 1, 21, seed=3, max_work=20_000)
    assert a[1].log["steps"] == b[1].log["steps"]


def test_verify_witnesses_the_top_only_with_the_cooperative_search(monkeypatch, tmp_path):
    """At --games 8 verify's score check witnesses 21, calls the total tight and writes a witness file that replays
    to 21 (not another game's under the same seed); with the cooperative search given no work, the other searches
    stop short of it (the six is not found)."""
    tables = _tables()

    def total_finding(witness_dir=None):
        r = verify(tables, 600, 0, only={"score"}, max_games=8, witness_dir=witness_dir)
        return next(f for f in r["findings"] if f["property"] == "score" and f["subject"] == "total")

    total = total_finding(tmp_path)
    bounds = total["bounds"]
    assert bounds["proved"] == [0, 21] and bounds["witnessed"][1] == 21 and bounds["fit"] == "tight"
    assert max(api.replay(tables, api.load_log(total["witness"])).result["scores"].values()) == 21
    monkeypatch.setattr(properties, "COOPERATIVE_STEPS_PER_GAME", 0)
    assert total_finding()["bounds"]["witnessed"][1] < 21


# The setup shuffles three gifts worth 1, 2, 3 and deals one to each player; the scoring
# reads a player's gift, so it cannot run before the deal.  The top is 6 favours + 3.
GIFTS = """game "Gifts" players 3..3
component gift "gift" {
  worth: 1..3 = 1
}
zone deck: shared hidden row
zone hand: per_player hidden unordered
cards gift in deck { 1 x worth = 1  1 x worth = 2  1 x worth = 3 }
player {
  favours: 0..6 = 0 "favours received"
}
score praise "praise" 0..6
score present "present" 0..3
setup {
  shuffle deck
  for p in players { draw 1 from deck to p.hand }
}
rounds 2 {
  for p in players {
    choose q from players by p "favours" { set q.favours += 1 }
  }
}
scoring {
  for p in players {
    award p.favours to p for praise
    award first(p.hand).worth to p for present
  }
}
winner among p in players by vp(p) desc else draw
"""


def test_the_search_starts_from_a_setup_whose_scoring_cannot_run_yet():
    """reach() ranks states whose scoring cannot run yet (no gift dealt) last instead of stopping, and finds 6 + 3."""
    tables = api.tables(api.compile_text(GIFTS, "gifts.soan"), 3)
    value, rec = climb.reach(tables, "total", 1, 9, seed=0, max_work=5000)
    assert value == 9
    assert max(api.replay(tables, rec.log).result["scores"].values()) == 9


# Each round a player may push a counter that holds at most 4; ten rounds of random pushes
# break the rules (a value outside the counter's declared range) in most games.
OVERFLOW = """game "Overflow" players 2..2
player {
  pushes: 0..4 = 0 "pushes"
}
score pushed "pushed" 0..4
rounds 10 {
  for p in players {
    may choose by p "pushes" {
      option push "push the counter" { set p.pushes += 1 }
    }
  }
}
scoring {
  for p in players { award p.pushes to p for pushed }
}
winner among p in players by vp(p) desc else draw
"""


def test_a_beam_whose_random_finish_breaks_the_rules_gives_no_game_instead_of_failing():
    """When the work runs out and the furthest state's random play-out breaks a declared range, the search returns nothing (the seeded games report the spec's fault) rather than raising."""
    tables = api.tables(api.compile_text(OVERFLOW, "t.soan"), 2)
    outcomes = [climb.cooperative_beam(tables, "total", 1, seed=s, max_steps=4, width=1) for s in range(20)]
    assert None in outcomes
    for found in outcomes:
        if found is not None:
            assert found[1].result["scores"]
