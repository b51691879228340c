"""Tokens on cards of one role (verify/marked.py): the one-token-per-card ledger counted only on
the cards a give can reach, a role fixed before the card comes to the table; proved exactly
tight, witnessed short by one, and never proved when a rule can change the role on the table
or the layout may keep every card as a main."""

from __future__ import annotations

from pathlib import Path

from soan import api
from soan.verify.bounds import Bounds
from soan.verify.card_tokens import card_tokens
from soan.verify.marked import marked
from soan.verify.properties import verify

# Each player draws 3 cards and lays them out, at least one as a side (the layout picks between
# 1 and count - 1 mains); one card a round comes to the market for three rounds, and the first
# player who wants it takes it as a main or a side.  Every round each main on a table not yet
# marked takes one mark.  By hand: at most 2 mains per player from the setup and the 3 market
# cards, 2 x 2 + 3 = 7 marks out at most, all reachable (both lay out two mains, every market
# card taken as a main): a supply of 7 is never short, one of 6 is.
TABLE = """game "Tables" players 2..2
enum dish = main, side
component plate {
  size: 1..1 = 1
  state role: dish = main
  state heat: 0..1 = 0
}
cards plate in deck { 12 x size = 1 }
zone deck: shared hidden stack
zone hand: per_player owner unordered
zone table: per_player public row
zone market: shared public row
token mark supply SUPPLY hold 0..12 when short partial
score points "points"
setup {
  shuffle deck
  for p in players { draw 3 from deck to p.hand }
  for p in players { do lay_out(p) }
  for p in players { move p.hand to p.table }
}
procedure lay_out(p) {
  choose picked between 1 and (HIGH) from p.hand by p "chooses mains" {
    for c in p.hand { set c.role = if picked has c then main else side }
  }
}
rounds 3 {
  draw 1 from deck to market
  for p in players {
    if count(market) > 0 {
      may choose c from market by p "takes the market card" {
        choose by p "as what" {
          option as_main "as a main" { set c.role = main }
          option as_side "as a side" { set c.role = side }
        }
        move c to p.table
      }
    }
  }
  for p in players {
    for d in p.table where d.role == main { do heat(p, d) }
    EXTRA
  }
}
procedure heat(p, c) {
  if c.heat == 0 {
    let before = p.mark
    give 1 mark to p
    if p.mark > before { set c.heat = 1 }
  }
}
scoring { for p in players { award p.mark to p for points } }
winner among p in players by vp(p) desc else draw
"""


def table_spec(supply: int, high: str = "count(p.hand) - 1", extra: str = "") -> str:
    return TABLE.replace("SUPPLY", str(supply)).replace("HIGH", high).replace("EXTRA", extra)


def run(text: str, games: int = 60):
    spec = api.compile_text(text, "t.soan")
    t = api.tables(spec, 2)
    result = verify(t, 600.0, 0, max_games=games, only={"supplies"})
    return {f["subject"]: f for f in result["findings"]}, t


def _marked(t):
    b = Bounds(t)
    h = card_tokens(b, "mark")
    return h, (marked(b, h) if h is not None else None)


def test_a_supply_as_large_as_the_mains_is_proved_never_short():
    """Seven marks for at most 2 + 2 laid-out mains and 3 market cards: proved, where one per card that can lie on the tables (12) is not enough."""
    f, t = run(table_spec(7))
    h, m = _marked(t)
    assert h.most == 12
    assert (m.field, m.value, m.setup, m.rounds, m.most) == ("role", "main", 4, 3, 7)
    assert f["mark"]["verdict"] == "proved" and f["mark"]["bounds"]["most_out"] == 7


def test_a_supply_one_short_of_the_mains_is_witnessed_short():
    """Six marks: not proved, and a game with every possible main marked is the witness."""
    f, _ = run(table_spec(6))
    assert f["mark"]["verdict"] == "witnessed"


def test_a_layout_that_may_keep_every_card_as_a_main_counts_them_all():
    """A layout of between 1 and count mains leaves up to 3 per player: 6 + 3 = 9, so 7 is not proved."""
    f, t = run(table_spec(7, high="count(p.hand)"))
    _, m = _marked(t)
    assert m.setup == 6 and m.most == 9
    assert f["mark"]["verdict"] != "proved"


def test_a_role_changed_on_the_table_is_not_read():
    """A rule that can turn a side on the table into a main breaks the count: no answer from this reading."""
    extra = """may choose e from [x in p.table where x.role == side] by p "turns a side" { set e.role = main }"""
    f, t = run(table_spec(7, extra=extra))
    _, m = _marked(t)
    assert m is None
    assert f["mark"]["verdict"] != "proved"


def test_pitmaster_roast_tokens_are_counted_on_main_dishes():
    """Pitmaster's roast tokens lie only on main dishes: 4 a player from the layout and 16 through the appeal area, 28 at 3 players and 32 at 4 (the hand counts)."""
    spec = api.load(str(Path(__file__).parents[2] / "specs" / "pitmaster-20.soan"))
    for n, setup in ((3, 12), (4, 16)):
        b = Bounds(api.tables(spec, n))
        m = marked(b, card_tokens(b, "roast_token"))
        assert (m.field, m.value, m.setup, m.rounds, m.most) == ("role", "main_dish", setup, 16, setup + 16)


def test_the_turn_planned_search_played_in_another_process_gives_the_same_findings(tmp_path, monkeypatch):
    """With two jobs the turn-planned shortage search runs in a process of its own and the findings are those of one job."""
    import pytest

    from soan.interpreter.play import _can_fork
    from soan.verify import supplies, turn_plan

    if not _can_fork():
        pytest.skip("no fork here: the search runs in this process whatever the jobs")
    spec = api.compile_text(table_spec(6), "t.soan")
    t = api.tables(spec, 2)
    here = []
    plan = turn_plan.plan

    def counted(*a, **k):
        here.append(1)  # appended in the process that plays the search (a child's list is its own)
        return plan(*a, **k)

    monkeypatch.setattr(supplies.turn_plan, "plan", counted)
    out = {}
    for jobs in (1, 2):
        here.clear()
        r = verify(t, 600.0, 0, {"supplies"}, witness_dir=tmp_path / str(jobs), max_games=8, jobs=jobs)
        r["search"].pop("seconds")
        for f in r["findings"]:
            f["witness"] = f["witness"] and Path(f["witness"]).name
        out[jobs] = (r, len(here))
    assert out[1][1] == 1  # one job: the search ran here, as check() wanted it
    assert out[2][1] == 0  # two: it ran in the other process, and its game was taken from there
    assert out[1][0] == out[2][0]
    assert {f["subject"]: f["verdict"] for f in out[1][0]["findings"]}["mark"] == "witnessed"
