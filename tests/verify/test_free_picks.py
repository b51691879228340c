"""Tie-break keys kept different by a free pick (verify/free_picks.py), on small specs whose answer
is known by hand: proved where every player has picked a value no other holds, witnessed (a
replayed game with a tie) where the rules let two players share it, never proved."""

from __future__ import annotations

from pathlib import Path

from soan import api
from soan.verify.properties import verify

SPECS = Path(__file__).parent / "free_picks"


def tiebreaks(name: str, tmp: Path | None = None) -> dict:
    spec = api.compile_text((SPECS / name).read_text(encoding="utf-8"), name)
    result = verify(api.tables(spec, 3), 600.0, 0, only={"tiebreaks"}, witness_dir=tmp, max_games=40)
    return {f["subject"]: f for f in result["findings"] if f["property"] == "tiebreaks"}


def replays_with_tie(name: str, finding: dict) -> bool:
    spec = api.compile_text((SPECS / name).read_text(encoding="utf-8"), name)
    st = api.replay(api.tables(spec, 3), api.load_log(finding["witness"]))
    return any(k[0] == "tie_fallback" for k in st.first_marks)


def test_slots_picked_by_every_player_before_the_scoring_are_proved_distinct():
    """Each passer takes the first slot no other passer holds, and the last round ends when all passed."""
    f = tiebreaks("slots.soan")
    assert f["order at line 31"]["verdict"] == "proved"
    assert "free pick" in f["order at line 31"]["detail"]


def test_an_order_ranked_by_distinct_tiles_then_copied_from_the_slots_is_proved_distinct():
    """Round 1's order ranks distinct tile numbers; later orders copy the slots once everyone passed."""
    f = tiebreaks("slots.soan")
    assert f["order at line 30"]["verdict"] == "proved"
    assert "copied from the free pick 'slot'" in f["order at line 30"]["detail"]


def test_a_pass_loop_whose_cap_cuts_it_short_is_witnessed_tied(tmp_path):
    """With a cap of 2 passes two players may work twice and never pass: both keep slot 0, a tie."""
    f = tiebreaks("slots_cut_short.soan", tmp_path)
    for subject in ("order at line 30", "order at line 31"):
        assert f[subject]["verdict"] == "witnessed"
        assert replays_with_tie("slots_cut_short.soan", f[subject])


def test_a_free_slot_test_that_lets_another_players_slot_through_is_witnessed_tied(tmp_path):
    """A passer who placed no worker is not excluded, so two who pass at once both take slot 1."""
    f = tiebreaks("slots_leaky.soan", tmp_path)
    for subject in ("order at line 30", "order at line 31"):
        assert f[subject]["verdict"] == "witnessed"
        assert replays_with_tie("slots_leaky.soan", f[subject])


def test_slots_cleared_in_the_last_round_too_are_witnessed_tied_at_the_scoring(tmp_path):
    """The clearing also runs in round 3, so the scoring ranks three slots of 0; the copied order stays proved."""
    f = tiebreaks("slots_cleared.soan", tmp_path)
    assert f["order at line 31"]["verdict"] == "witnessed"
    assert replays_with_tie("slots_cleared.soan", f["order at line 31"])
    assert f["order at line 30"]["verdict"] == "proved"
