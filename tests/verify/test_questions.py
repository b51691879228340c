"""The designer's questions and invariants on a small spec whose truth is
known by hand: a `can` witnessed by a replayable game, a `can` proved
impossible by the declared domains (and by conservation of cards and
tokens), an `always` refuted and one proved, an invariant broken, and
unknown (never a pass) when the games are too few or the abstraction too
coarse; and the abstraction never proves what a real game contradicts."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soan import api
from soan.dsl.compiler import compile_question
from soan.verify.questions import check_questions, prove, watch_games

# Three rounds; each turn a player takes a chip (5 in the supply) or rests for a coin.
CHIPS = '''game "Chips" players 2..3
token chip supply 5 hold 0..5 when short partial
score pts "Points" 0..10
player { coins: 0..4 = 0 }
global { leader: player = none }
component tile "Tile" { value: 1..3 }
zone deck: shared hidden stack
zone tray: shared public unordered
cards tile in deck { 2 x each value }
ruling bonus: 0..2 = 1 "Does resting give points? Provisional: 1 (not yet used by the rules)."
rounds 3 {
  for p in players {
    choose by p "acts" {
      option take { give 1 chip to p }
      option rest { set p.coins += 1 }
    }
  }
}
scoring { for p in players { award p.chip to p for pts } }
winner among p in players by vp(p) desc else draw
'''


@pytest.fixture(scope="module")
def spec():
    return api.compile_text(CHIPS, "chips.soan")


def ask(spec, *questions: str, n: int = 2, games: int | None = 60, budget: float = 600.0, tmp: Path | None = None,
        records=()):
    """Findings for ad hoc questions on the Chips spec, by question text."""
    tables = api.tables(spec, n)
    # distinct names: each witness gets its own file
    qs = [attrs.evolve(compile_question(spec, q), name=f"q{k}") for k, q in enumerate(questions)]
    found = check_questions(tables, qs, records, budget, seed=0, max_games=games, witness_dir=tmp)
    return {q: f for q, f in zip(questions, found)}


def test_a_reachable_can_is_witnessed_by_a_game_that_replays(spec, tmp_path):
    """'Can a player end with three chips?' is answered yes by a saved game in which it is so at the end."""
    q = "can any(p.chip >= 3 for p in players) at end"
    f = ask(spec, q, tmp=tmp_path)[q]
    assert (f.property, f.verdict, f.problem) == ("questions", "witnessed", False)
    assert f.bounds["answer"] == "yes" and "yes: it can happen" in f.claim
    log = api.load_log(f.witness)
    st = api.replay(api.tables(spec, 2), log)
    assert max(st.pv["chip"]) >= 3 and f.bounds["step"] == len(log["steps"])
    assert f.moves and any("takes" in line or "acts" in line for line in f.moves)


@pytest.mark.parametrize("q,why", [
    ("can any(p.coins > 4 for p in players)", "coins are declared 0..4"),
    ("can supply(chip) + sum(p.chip for p in players) != 5", "chips only move between supply and players"),
    ("can count(deck) + count(tray) > 6", "six tiles, each in one zone"),
    ("can any(vp(p) > 10 or vp(p, pts) < 0 for p in players) at end", "points are declared 0..10"),
])
def test_an_impossible_can_is_proved_without_playing(spec, q, why):
    """A question the declared domains (or card and token conservation) rule out is proved 'no', with no game."""
    f = ask(spec, q, games=0)[q]
    assert f.verdict == "proved" and f.bounds["answer"] == "no" and f.bounds["games"] == 0, why
    assert not f.problem and f.witness is None


def test_an_always_that_fails_is_refuted_as_a_problem(spec, tmp_path):
    """'Does nobody ever take a chip?' fails in a real game, shown with the step where it first fails."""
    q = "always all(p.chip == 0 for p in players)"
    f = ask(spec, q, tmp=tmp_path)[q]
    assert f.verdict == "witnessed" and f.problem and "no: it can fail" in f.claim
    log = api.load_log(f.witness)
    tables = api.tables(spec, 2)
    chips = []
    api.replay(tables, log, on_step=lambda st: chips.append(sum(st.pv["chip"])))
    step = f.bounds["step"]
    assert chips[step] > 0 and all(c == 0 for c in chips[:step])


def test_an_always_the_domains_settle_is_proved(spec):
    """'Does every player end with at most 10 points?' follows from the score item's domain 0..10."""
    q = "always all(vp(p) <= 10 for p in players) at end"
    f = ask(spec, q, games=0)[q]
    assert f.verdict == "proved" and f.bounds["answer"] == "yes" and not f.problem


def test_a_broken_invariant_is_a_problem_with_its_first_failing_state(spec, tmp_path):
    """An invariant 'no player has two coins' breaks once someone rests twice: a problem, witnessed at that step."""
    text = CHIPS + 'invariant poor "No player ever has two coins" : all(p.coins < 2 for p in players)\n'
    s = api.compile_text(text, "chips.soan")
    [f] = check_questions(api.tables(s, 2), s.questions, (), 5.0, max_games=60, witness_dir=tmp_path)
    assert (f.subject, f.verdict, f.problem) == ("poor", "witnessed", True)
    assert f.claim.startswith("No player ever has two coins") and "broken" in f.claim
    coins = []
    api.replay(api.tables(s, 2), api.load_log(f.witness), on_step=lambda st: coins.append(max(st.pv["coins"])))
    assert coins[f.bounds["step"]] == 2 and max(coins[: f.bounds["step"]]) < 2


def test_without_games_an_open_question_is_unknown(spec):
    """With no games to play (0 games, or 0 seconds), a reachable question z3 cannot settle stays unknown."""
    q = "can any(p.coins == 3 for p in players) at end"
    assert ask(spec, q, games=0)[q].verdict == "unknown"
    f = ask(spec, q, games=None, budget=0.0)[q]
    assert f.verdict == "unknown" and f.bounds["games"] == 0 and not f.problem


def test_an_impossible_question_the_domains_allow_stays_unknown(spec):
    """Four coins in three rounds cannot happen, but only play says so: unknown, never a pass."""
    q = "can any(p.coins == 4 for p in players)"
    f = ask(spec, q, games=80)[q]
    assert f.verdict == "unknown" and f.bounds["games"] == 80 and f.bounds["states"] > 80
    assert "never true" in f.detail and "declared domains allow" in f.detail


def test_at_end_looks_only_at_the_final_state(spec):
    """Round 2 is reached during play but never at the end; round 3 is the final state's round."""
    during, end2, end3 = "can round == 2", "can round == 2 at end", "can round == 3 at end"
    found = ask(spec, during, end2, end3, games=10)
    assert found[during].verdict == "witnessed"
    assert found[end2].verdict == "unknown" and found[end2].bounds["states"] == 10
    assert found[end3].verdict == "witnessed"


def test_a_question_that_cannot_be_worked_out_is_a_problem_for_always(spec):
    """vp() of an unset player cannot be worked out: an 'always' about it is witnessed as a problem with the reason."""
    q = "always vp(leader) >= 0"
    f = ask(spec, q, games=3)[q]
    assert f.verdict == "witnessed" and f.problem and "cannot be worked out" in f.claim
    assert "none" in f.detail


def test_a_ruling_read_only_by_a_question_is_a_dependency_but_not_consulted_by_the_game(spec, tmp_path):
    """Reading a ruling in a question names it among the finding's dependencies and leaves the game's log alone."""
    q = "can bonus == 1 and any(p.chip >= 2 for p in players) at end"
    f = ask(spec, q, tmp=tmp_path)[q]
    assert f.verdict == "witnessed" and "bonus" in f.depends_on
    assert "bonus" not in api.load_log(f.witness)["consulted_rulings"]


def test_games_already_played_answer_questions_first(spec):
    """Records handed in (the verify search's games) are looked at before any new game is played."""
    tables = api.tables(spec, 2)
    recs = [api.play(tables, 1000 + s, ["random"] * 2) for s in range(30)]
    q = compile_question(spec, "can any(p.chip >= 3 for p in players) at end")
    w = watch_games(tables, [q], recs, seconds=5.0, max_games=0)
    hit = w.observations["question"].hit
    assert hit is not None and hit.record in recs and w.games <= 30


def test_the_same_games_give_the_same_answers(spec):
    """A fixed number of games makes the verdicts, witness seeds and steps the same on every run."""
    q = "always all(p.coins < 2 for p in players)"
    a, b = ask(spec, q, games=40)[q], ask(spec, q, games=40)[q]
    assert (a.verdict, a.detail, a.bounds) == (b.verdict, b.detail, b.bounds)


ATOMS = ["p.coins", "p.chip", "supply(chip)", "count(deck)", "count(p.hand)", "round", "vp(p)", "3", "0"]


def _side(draw) -> str:
    a, b = draw(st.sampled_from(ATOMS)), draw(st.sampled_from(ATOMS))
    k = draw(st.integers(-2, 2))
    return f"{a} + {k} * {b}" if k else a


@st.composite
def expressions(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        cmp = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
        quant = draw(st.sampled_from(["any", "all"]))
        body = f"{_side(draw)} {cmp} {_side(draw)}"
        parts.append(f"{quant}({body} for p in players)" if "p." in body or "(p)" in body else f"({body})")
    ops = [draw(st.sampled_from([" and ", " or ", " and not "])) for _ in parts[1:]]
    return parts[0] + "".join(o + p for o, p in zip(ops, parts[1:]))


HAND = CHIPS.replace("zone tray: shared public unordered", "zone tray: shared public unordered\n"
                     "zone hand: per_player owner unordered")


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(expressions(), st.booleans())
def test_the_abstraction_never_proves_what_a_game_contradicts(e, at_end):
    """Whenever a real game makes E true, 'can E' is not proved impossible; whenever it makes E false, 'always E' is not proved."""
    s = api.compile_text(HAND, "hand.soan")
    tables = api.tables(s, 2)
    suffix = " at end" if at_end else ""
    can = compile_question(s, f"can {e}{suffix}")
    always = attrs.evolve(compile_question(s, f"always {e}{suffix}"), name="always")
    w = watch_games(tables, [can, always], (), seconds=5.0, max_games=12)
    if w.observations["question"].hit is not None:
        assert prove(tables, can).status != "proved", e
    if w.observations["always"].hit is not None:
        assert prove(tables, always).status != "proved", e


def test_prove_reads_the_score_range_verify_proves(tmp_path):
    """A question about a player's score is settled by the same proved score range `soan verify` prints:
    one engine for both."""
    from soan.verify.bounds import Bounds

    text = """game "Range" players 2..2
score pts "Points" 0..99
rounds 3 { choose k from 0..2 by player(1) "takes" { award k to player(1) for pts } }
winner among p in players by vp(p) desc else shared
"""
    s = api.compile_text(text, "r.soan")
    assert Bounds(api.tables(s, 2)).score_bounds()["total"][1].value == 6
    f = ask(s, "can any(vp(p) > 6 for p in players)", games=0)
    g = ask(s, "always all(vp(p, pts) <= 6 for p in players)", games=0)
    assert f["can any(vp(p) > 6 for p in players)"].verdict == "proved"
    assert g["always all(vp(p, pts) <= 6 for p in players)"].verdict == "proved"


def test_the_highest_score_among_the_players_is_read_as_the_largest_of_their_scores():
    """`max(vp(p) for p in players) <= 6` is settled by the proved range like `all(vp(p) <= 6 ...)`,
    and a bound below what play reaches is not proved."""
    text = """game "Range" players 2..2
score pts "Points" 0..99
rounds 3 { choose k from 0..2 by player(1) "takes" { award k to player(1) for pts } }
winner among p in players by vp(p) desc else shared
"""
    s = api.compile_text(text, "r.soan")
    top = "always max(vp(p) for p in players) <= 6 at end"
    low = "always max(vp(p) for p in players) <= 5 at end"
    least = "always min(vp(p) for p in players) >= 0 at end"
    assert ask(s, top, games=0)[top].verdict == "proved"
    assert ask(s, low, games=0)[low].verdict == "unknown"
    assert ask(s, least, games=0)[least].verdict == "proved"
