"""A ruling read only when a pile is empty at a draw, and a pile that cannot run that low before the
last read (verify/pile_floor.py): proved where the hand count says so, and witnessed by a steered
game, never proved, in the near misses where a directed play can empty the pile."""

from __future__ import annotations

from pathlib import Path

from soan import api
from soan.interpreter.play import load_log, replay
from soan.verify import situations
from soan.verify.bounds import Bounds
from soan.verify.exhaustive import all_games
from soan.verify.flow import setup_branches
from soan.verify.pile_floor import unread
from soan.verify.properties import Verifier, verify

# Three rounds of a day and a night, two players.  By day a turn does one of three idle things or
# fetches a bucket; every night each player fetches one and, holding two, returns one to `used`.
# A fetch refills an empty pile from `used` (at night always; by day as the ruling says), so the
# ruling is read only at a day fetch that finds the pile empty.  Before the last day ends at most
# 3 x 2 day fetches and 2 x 2 night fetches draw: 10 (the round-3 night comes after every read).
# The last day fetch can find the pile empty only after 9 draws: with 9 buckets a game whose
# every day turn fetches reads it (random play: a quarter of the turns, (1/4)^6 of the games);
# with 11 none can (at least 1 left up to the last day).  With 10 none can either, but the count
# above includes the reading fetch itself, so that case stays unknown: no claim either way.
WELL = """game "Well" players 2..2
component bucket "bucket" {
  size: 1..1
}
zone pile: shared hidden stack
zone used: shared public stack
zone hand: per_player public unordered
cards bucket in pile { BUCKETS x size = 1 }
ruling refill_rule: {any_draw, night_only} = any_draw "Is an empty pile refilled at a day fetch?" cite "test"
score songs "songs"
rounds 3 {
  DAY
  NIGHT
}
procedure fetch(p, at_night) {
  if count(pile) == 0 and (at_night or refill_rule == any_draw) {
    move used to pile
    shuffle pile
  }
  if count(pile) > 0 { draw 1 from pile to p.hand }
}
winner among p in players by vp(p) desc else draw
"""
DAY = """phase day "day" {
    for p in players {
      choose by p "a turn" {
        option sing "sings" { award 1 to p for songs }
        option nap "naps" { say "{p} naps" }
        option wait "waits" { say "{p} waits" }
        option fetch "fetches a bucket" { do fetch(p, false) }
      }
    }
  }"""
NIGHT = """phase night "night" {
    for p in players {
      do fetch(p, NIGHT_FLAG)
      if count(p.hand) > 1 {
        choose b from p.hand by p "returns a bucket" { move b to used }
      }
    }
  }"""


IDLE = """        option nap "naps" { say "{p} naps" }
        option wait "waits" { say "{p} waits" }
"""


def _spec(buckets: int = 11, night_first: bool = False, night_flag: str = "true", idle: bool = True):
    night = NIGHT.replace("NIGHT_FLAG", night_flag)
    day = DAY if idle else DAY.replace(IDLE, "")  # without the idle options: a tree small enough to list
    steps = (night, day) if night_first else (day, night)
    text = WELL.replace("BUCKETS x", f"{buckets} x").replace("DAY\n  NIGHT", "\n  ".join(steps))
    return api.compile_text(text, "well.soan")


def _ruling(spec, monkeypatch=None, witness_dir: Path | None = None) -> dict:
    """The rulings finding on refill_rule (with `monkeypatch`: no steered games)."""
    if monkeypatch is not None:
        monkeypatch.setattr(situations, "GAMES", 0)
        monkeypatch.setattr(situations, "MAX_GAMES", 0)
    out = verify(api.tables(spec, 2), 120.0, seed=0, max_games=40, witness_dir=witness_dir, only={"rulings"})
    (f,) = [f for f in out["findings"] if f["subject"] == "refill_rule"]
    return f


def _unread(spec, players: int = 2, ruling: str = "refill_rule") -> str | None:
    """pile_floor's reason on a verifier set up as Verifier.run sets it up."""
    t = api.tables(spec, players)
    v = Verifier(t, 120.0, max_games=0)
    v.branches = setup_branches(t)
    v.bs = [Bounds(t, loc) for _, loc in v.branches]
    v.b = v.bs[0]
    return unread(v, ruling)


def test_eleven_buckets_outlast_the_last_day_so_the_ruling_is_proved_unread():
    """10 draws at most before the last day ends (the last night cut off), 11 buckets: proved, with that count."""
    f = _ruling(_spec(11))
    assert f["verdict"] == "proved" and f["claim"].endswith("cannot arise")
    assert "at most 10" in f["detail"] and "at least 1" in f["detail"] and "'day'" in f["detail"]


def test_the_whole_game_count_alone_would_not_prove_it():
    """Counted over the whole game the nights draw 6 and the pile could fall to -1: the proof needs the last night cut off."""
    reason = _unread(_spec(11))
    assert reason is not None and "at most 10" in reason
    # night first, the last day is the last step: nothing to cut, and 13 buckets cover the whole game's 12 draws
    whole = _unread(_spec(13, night_first=True))
    assert whole is not None and "whole game" in whole and "at most 12" in whole


def test_nine_buckets_are_not_proved_and_a_steered_game_reads_the_ruling(monkeypatch, tmp_path):
    """With 9 buckets every day turn fetching empties the pile before the last day fetch: no proof, the seeded
    games miss it, a steered game reads it and replays."""
    assert _unread(_spec(9)) is None
    assert _ruling(_spec(9), monkeypatch)["verdict"] == "unknown"
    monkeypatch.undo()
    f = _ruling(_spec(9), witness_dir=tmp_path)
    assert f["verdict"] == "witnessed" and f["moves"] and f["witness"]
    spec = _spec(9)
    end = replay(api.tables(spec, 2), load_log(f["witness"]))
    assert "refill_rule" in end.consulted


def test_night_before_day_leaves_no_step_to_cut_and_is_not_proved(monkeypatch):
    """Night first: the last day is the round's last step, the whole game's 12 draws cover 11 buckets, and a
    steered game does empty the pile before the last day fetch."""
    assert _unread(_spec(11, night_first=True)) is None
    assert _ruling(_spec(11, night_first=True), monkeypatch)["verdict"] == "unknown"
    monkeypatch.undo()
    assert _ruling(_spec(11, night_first=True))["verdict"] == "witnessed"


def test_a_night_fetch_that_can_read_the_ruling_keeps_the_night_in_the_count(monkeypatch):
    """`fetch(p, false)` at night reads the ruling when the pile is empty: the night is a read step, nothing is
    cut, and with 11 buckets the last night fetch can find the pile empty (witnessed)."""
    assert _unread(_spec(11, night_flag="false")) is None
    assert _ruling(_spec(11, night_flag="false"), monkeypatch)["verdict"] == "unknown"
    monkeypatch.undo()
    assert _ruling(_spec(11, night_flag="false"))["verdict"] == "witnessed"


def test_every_game_of_each_variant_agrees_with_the_proofs():
    """Every game listed (two options a day turn): the ruling is read exactly up to the bucket counts the hand count
    gives (9 by day, 11 night first or with the night reading), and proved unread from one more draw's worth
    (11, 13, 13): never where a game reads it."""
    for kw, reached, proved in (({}, 9, 11), ({"night_first": True}, 11, 13), ({"night_flag": "false"}, 11, 13)):
        for buckets in range(reached, proved + 1):
            spec = _spec(buckets, idle=False, **kw)
            games = all_games(api.tables(spec, 2))
            assert games is not None
            read = any("refill_rule" in g.rulings for g in games)
            assert read == (buckets <= reached), (kw, buckets)
            assert (_unread(spec) is not None) == (buckets >= proved), (kw, buckets)


def test_ten_buckets_stay_unknown():
    """Ten buckets cannot run out before the last day fetch either, but the count includes that fetch: no proof, no witness."""
    assert _unread(_spec(10)) is None
    assert _ruling(_spec(10))["verdict"] == "unknown"


def test_pitmaster_grill_pile_never_empties_before_a_main_phase_draw_at_three_players():
    """Pitmaster-20 at 3: 3 at setup, 3 a grill phase (the last one after every read), 2 heat adjustments a
    round, 2 idea, 5 storage and 3 challenge draws: 30 of 32 cards; at 4 players it can empty (no proof)."""
    spec = api.load(str(Path(__file__).parents[2] / "specs" / "pitmaster-20.soan"))
    reason = _unread(spec, 3, "grill_reshuffle")
    assert reason is not None and "at most 30" in reason and "at least 2" in reason
    assert _unread(spec, 4, "grill_reshuffle") is None


def test_the_pile_floor_proof_names_the_rulings_and_card_tables_the_count_rests_on():
    """Pitmaster-20 at 3: the count of 30 draws rests on when storage cards act and on the invented card tables, so the proof names them (not the ruling itself)."""
    spec = api.load(str(Path(__file__).parents[2] / "specs" / "pitmaster-20.soan"))
    t = api.tables(spec, 3)
    v = Verifier(t, 120.0, max_games=0)
    deps = v._play_depends("grill_reshuffle")
    assert {"storage_timing", "storage_table", "idea_table", "challenge_table"} <= set(deps)
    assert "grill_reshuffle" not in deps
