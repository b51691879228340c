"""A draw right after the rules refill an empty pile from the players (verify/refill.py):
proved never short when the pile's cards can only be in the pile or with the players,
witnessed short when a rule can put them anywhere else."""

from __future__ import annotations

from soan.verify.properties import verify

from soan import api


def pile_spec(extra_round: str = "", fallback: str = "shared") -> str:
    """Three chips; every round each player takes one, and an empty pile first takes back
    all the chips of whoever holds most."""
    return f"""game "Chips" players 2..2
score points "points"
component chip "chip" {{
  hot: 1..1 = 1
}}
cards chip in pile {{ 3 x hot = 1 }}
zone pile: shared public stack
zone stash: per_player public unordered
zone spent: shared public unordered
procedure shortage {{
  let most = best q in players where count(q.stash) > 0 by count(q.stash) desc else {fallback}
  for q in most {{ move q.stash to pile }}
}}
rounds 6 {{
  for p in players {{
    if count(pile) == 0 {{ do shortage }}
    draw 1 from pile to p.stash
    {extra_round}
  }}
}}
scoring {{
  for p in players {{ award count(p.stash) to p for points }}
}}
winner among p in players by vp(p) desc else draw
"""


def pile_finding(text: str):
    t = api.tables(api.compile_text(text, "t.soan"), 2)
    result = verify(t, 600.0, 0, max_games=20, only={"supplies"})
    return next(f for f in result["findings"] if f["subject"] == "draws from pile")


def test_a_pile_refilled_from_the_players_when_empty_is_proved_never_short():
    """Twelve draws from three chips: each time the pile is empty someone holds chips and gives them back."""
    f = pile_finding(pile_spec())
    assert f["verdict"] == "proved"
    assert "refilled from the players' stash" in f["detail"]


def test_a_refill_that_can_find_the_chips_spent_is_not_proved_and_is_witnessed():
    """Chips spent to a discard never come back: the refill finds nobody holding any and the draw is short."""
    f = pile_finding(pile_spec(extra_round="move p.stash to spent"))
    assert f["verdict"] == "witnessed"
    assert f["problem"]


def test_a_refill_whose_tie_can_leave_nobody_is_not_proved():
    """`else none` gives nobody on a tie for most, so the refill may put nothing back."""
    f = pile_finding(pile_spec(fallback="none"))
    assert f["verdict"] != "proved"
