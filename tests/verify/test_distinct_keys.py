"""Tie-break keys the rules keep different for every candidate (verify/distinct_keys.py), on small
specs whose answer is known by hand: proved where the rules keep the key distinct, witnessed (a
replayed game with a tie) or left unknown where they do not, never proved."""

from __future__ import annotations

from pathlib import Path

from soan import api
from soan.verify.properties import verify

SPECS = Path(__file__).parent / "distinct_keys"


def tiebreaks(name: str, n: int, tmp: Path | None = None) -> dict:
    spec = api.compile_text((SPECS / name).read_text(encoding="utf-8"), name)
    result = verify(api.tables(spec, n), 600.0, 0, only={"tiebreaks"}, witness_dir=tmp, max_games=40)
    return {f["subject"]: f for f in result["findings"] if f["property"] == "tiebreaks"}


def replays_with_tie(name: str, n: int, finding: dict) -> bool:
    spec = api.compile_text((SPECS / name).read_text(encoding="utf-8"), name)
    st = api.replay(api.tables(spec, n), api.load_log(finding["witness"]))
    return any(k[0] == "tie_fallback" for k in st.first_marks)


def test_a_place_written_by_a_counter_loop_over_every_player_is_proved_distinct():
    """`set k += 1  set q.place = k` for every player, before anything reads place: by_place separates."""
    f = tiebreaks("places.soan", 3)
    assert f["order at line 6"]["verdict"] == "proved"
    assert "larger counter" in f["order at line 6"]["detail"]


def test_a_place_read_before_the_first_counter_loop_is_witnessed_tied(tmp_path):
    """The setup ranks by place while every place is still 0: a replayed game shows the tie."""
    f = tiebreaks("places_read_early.soan", 3, tmp_path)
    tie = f["order at line 6"]
    assert tie["verdict"] == "witnessed"
    assert replays_with_tie("places_read_early.soan", 3, tie)


def test_a_place_each_player_chooses_is_witnessed_tied(tmp_path):
    """Players choose their place from 1..3: two may choose alike, so it is witnessed, not proved."""
    f = tiebreaks("places_chosen.soan", 3, tmp_path)
    tie = f["order at line 6"]
    assert tie["verdict"] == "witnessed"
    assert replays_with_tie("places_chosen.soan", 3, tie)


def test_a_counter_loop_that_skips_a_player_is_not_proved():
    """Seat 1 keeps place 0 and the others get 1 and 2: never tied, but outside the idiom, so unknown."""
    f = tiebreaks("places_skipped.soan", 3)
    assert f["order at line 6"]["verdict"] == "unknown"


def test_one_player_s_own_chips_by_their_distinct_values_are_proved_separated():
    """Each player's chips are worth 1, 2 and 3; ranking the pot's chips of one owner by value separates them."""
    f = tiebreaks("chips.soan", 2)
    assert f["order at line 14"]["verdict"] == "proved"


def test_two_chips_of_one_player_with_one_value_are_witnessed_tied(tmp_path):
    """Each player's chips are worth 1, 2 and 2: both 2s in the pot tie, shown by a replayed game."""
    f = tiebreaks("chips_twins.soan", 2, tmp_path)
    tie = f["order at line 14"]
    assert tie["verdict"] == "witnessed"
    assert replays_with_tie("chips_twins.soan", 2, tie)


def test_a_winner_line_behind_an_immediate_win_at_its_threshold_is_proved():
    """Three medals win at once, so when the winner line (among holders of three) is read nobody has three."""
    f = tiebreaks("three_wins.soan", 3)
    assert f["winner at line 21"]["verdict"] == "proved"


def test_a_winner_line_whose_immediate_win_comes_later_is_witnessed_tied(tmp_path):
    """The immediate win at four leaves players with three each at the end: the winner line ties."""
    f = tiebreaks("three_wins_late.soan", 3, tmp_path)
    tie = f["winner at line 21"]
    assert tie["verdict"] == "witnessed"
    assert replays_with_tie("three_wins_late.soan", 3, tie)
