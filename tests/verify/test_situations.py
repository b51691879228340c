"""Games steered towards a situation the seeded games never reached: an open ruling read only under
a rare test, a designer's question (verify/situations.py)."""

from __future__ import annotations

from soan import api
from soan.dsl import ir
from soan.interpreter.play import replay
from soan.verify import situations
from soan.verify.properties import verify

# Six rounds of two turns; a turn does one of three things (singing scores a point, so greedy
# seats sing) or, the last option, draws one card of the pile (12 cards).  The ruling is read only
# once the pile is empty, after all twelve turns drew: random play draws a quarter of the time, so
# it almost never gets there (0.25^12), and greedy play never does.
PILE = 12
SPEC = """game "Larder" players 2..2
component crate "crate" {
  size: 1..1
}
zone pile: shared hidden stack
zone hand: per_player public unordered
cards crate in pile { PILE x size = 1 }
ruling last_crate: {keep, burn} = keep "What happens to a player who finds the pile empty?" cite "test"
score songs "songs"
rounds 6 {
  for p in players {
    choose by p "a turn" {
      option sing "sings" { award 1 to p for songs }
      option nap "naps" { say "{p} naps" }
      option wait "waits" { say "{p} waits" }
      option fetch "fetches a crate" { draw 1 from pile to p.hand }
    }
    let left = min(2, count(pile))
    if not (left > 0) and last_crate == burn { say "the larder is bare" }
  }
}
winner among p in players by vp(p) desc else draw
question bare "Can the pile run out?" : can count(pile) == 0
"""


def _spec(crates: int = PILE):
    return api.compile_text(SPEC.replace("PILE x", f"{crates} x"), "larder.soan")


def _findings(crates: int = PILE, games: int = 20, steer: bool = True, monkeypatch=None) -> dict:
    spec = _spec(crates)
    if not steer:
        monkeypatch.setattr(situations, "GAMES", 0)
        monkeypatch.setattr(situations, "MAX_GAMES", 0)
    out = verify(api.tables(spec, 2), 120.0, seed=0, max_games=games)
    return {(f["property"], f["subject"]): f for f in out["findings"]}


def test_a_read_site_carries_the_tests_on_the_way_with_lets_inlined():
    """The ruling's one read sits after `not (left > 0)` (the left side of its `and`), with the let's value in place of `left`."""
    (site,) = situations.read_sites(_spec(), "last_crate")
    assert site.params == ()
    (test,) = site.tests
    assert isinstance(test, ir.Not) and "count" in repr(test) and "Local" not in repr(test)


def test_not_and_min_are_rewritten_into_comparisons_that_keep_a_gradient():
    """`not (min(2, count(pile)) > 0)` becomes `count(pile) <= 0`: the constant part folds away, the negation goes inside."""
    (site,) = situations.read_sites(_spec(), "last_crate")
    e = situations.normal(site.tests[0])
    assert isinstance(e, ir.BinOp) and e.op == "<=" and isinstance(e.left, ir.Call) and e.left.func == "count"


def test_the_steer_grows_as_the_pile_shrinks_and_jumps_once_the_ruling_is_read():
    """A state nearer an empty pile grades higher; a state that read the ruling grades above all."""
    spec = _spec()
    tables = api.tables(spec, 2)
    steer = situations.ruling_steer(tables, "last_crate")
    (rec,) = situations.steered_games(tables, steer, 0, games=1)
    grades = []
    replay(tables, rec.log, on_step=lambda st: grades.append(steer(st)))
    assert grades[-1] > grades[0]
    tables_burn = api.tables(spec, 2, {"last_crate": "burn"})
    assert situations.ruling_steer(tables_burn, "last_crate") is not None


def test_verify_witnesses_the_rare_ruling_with_a_steered_game_that_replays(monkeypatch):
    """Seeded random and greedy games miss the empty pile; the steered games reach it, and the ruling's situation is witnessed."""
    assert _findings(steer=False, monkeypatch=monkeypatch)[("rulings", "last_crate")]["verdict"] == "unknown"
    monkeypatch.undo()
    f = _findings()
    ruling = f[("rulings", "last_crate")]
    assert ruling["verdict"] == "witnessed" and ruling["moves"]
    assert "search game read it" in ruling["detail"]


def test_a_situation_that_cannot_arise_is_not_witnessed_by_steering():
    """With 13 crates twelve turns never empty the pile: steering cannot make the ruling read, so no witness is claimed."""
    f = _findings(crates=13)
    assert f[("rulings", "last_crate")]["verdict"] != "witnessed"
    assert f[("questions", "bare")]["verdict"] != "witnessed"


def test_a_question_no_seeded_game_answered_is_answered_by_a_steered_game(monkeypatch):
    """The pile running out is a `can` question random play almost never shows; a steered game shows it, replayed."""
    assert _findings(steer=False, monkeypatch=monkeypatch)[("questions", "bare")]["verdict"] == "unknown"
    monkeypatch.undo()
    f = _findings()
    q = f[("questions", "bare")]
    assert q["verdict"] == "witnessed" and "yes" in q["claim"]
    assert "every seat steered towards it" in q["detail"]


# Two rounds of two turns; a turn forages (draws 3 of the pile) or rests.  Foraging notes how many
# it could take before drawing; the ruling is read only when that was fewer than 3.  With 12 crates
# the four turns never find the pile short (12 drawn at most); with 11 the fourth forage can.
PANTRY = """game "Pantry" players 2..2
component crate "crate" {
  size: 1..1
}
zone pile: shared hidden stack
zone hand: per_player public unordered
cards crate in pile { CRATES x size = 1 }
ruling short_forage: {what_is_left, nothing} = what_is_left "What does a forager get from a pile with fewer than 3?" cite "test"
score crates "crates"
rounds 2 {
  for p in players {
    choose by p "a turn" {
      option forage "forages" {
        LET
        DRAW
        if got < 3 and short_forage == nothing { move p.hand to pile }
      }
      option rest "rests" { say "{p} rests" }
    }
  }
}
scoring {
  for p in players { award count(p.hand) to p for crates }
}
winner among p in players by vp(p) desc else draw
"""


def _pantry(crates: int = 12, let: str = "let got = min(3, count(pile))", draw: str = "draw 3 from pile to p.hand"):
    return api.compile_text(PANTRY.replace("CRATES", str(crates)).replace("LET", let).replace("DRAW", draw),
                            "pantry.soan")


def test_a_ruling_read_only_after_a_short_draw_names_that_pile():
    """`got < 3` on `let got = min(3, count(pile))` right before `draw 3 from pile`: the read needs the draw short."""
    assert situations.short_draw_piles(_pantry(), "short_forage") == {"pile"}


def test_near_misses_of_the_short_draw_pattern_are_not_read_as_one():
    """A draw of fewer cards than the test's bound, a let capped below it, a bare count, or a statement between let and draw: no pile named (the bare count still is one)."""
    assert situations.short_draw_piles(_pantry(draw="draw 2 from pile to p.hand"), "short_forage") is None
    assert situations.short_draw_piles(_pantry(let="let got = min(2, count(pile))"), "short_forage") is None
    assert situations.short_draw_piles(_pantry(let="let got = count(pile)"), "short_forage") == {"pile"}
    between = _pantry(draw='say "{p} looks"\n        draw 3 from pile to p.hand')
    assert situations.short_draw_piles(between, "short_forage") is None


def test_verify_proves_the_ruling_moot_when_the_pile_never_runs_short():
    """12 crates for at most four draws of 3: supplies proves no draw short, so the ruling's situation cannot arise."""
    spec = _pantry()
    out = verify(api.tables(spec, 2), 120.0, seed=0, max_games=20)
    f = {(x["property"], x["subject"]): x for x in out["findings"]}
    assert f[("supplies", "draws from pile")]["verdict"] == "proved"
    r = f[("rulings", "short_forage")]
    assert r["verdict"] == "proved" and "draw from 'pile'" in r["detail"]


def test_verify_does_not_prove_the_ruling_moot_when_the_pile_can_run_short():
    """With 11 crates the fourth forage can find the pile short: the ruling is not proved moot (a game reads it)."""
    spec = _pantry(crates=11)
    out = verify(api.tables(spec, 2), 120.0, seed=0, max_games=20)
    f = {(x["property"], x["subject"]): x for x in out["findings"]}
    assert f[("supplies", "draws from pile")]["verdict"] != "proved"
    assert f[("rulings", "short_forage")]["verdict"] != "proved"


def test_only_rulings_still_proves_the_ruling_moot_from_the_supplies_verdict_it_does_not_show():
    """`--only rulings` works out the supplies verdict a shortage ruling needs, so it says what a full run says, and shows no supplies finding."""
    out = verify(api.tables(_pantry(), 2), 120.0, seed=0, only={"rulings"}, max_games=20)
    assert {x["property"] for x in out["findings"]} == {"rulings"}
    r = next(x for x in out["findings"] if x["subject"] == "short_forage")
    assert r["verdict"] == "proved" and "--only supplies" in r["detail"]


def test_only_rulings_does_not_prove_the_ruling_moot_when_the_pile_can_run_short():
    """With 11 crates and `--only rulings` the ruling is not proved moot either (the fourth forage can find the pile short)."""
    out = verify(api.tables(_pantry(crates=11), 2), 120.0, seed=0, only={"rulings"}, max_games=20)
    r = next(x for x in out["findings"] if x["subject"] == "short_forage")
    assert r["verdict"] != "proved"
