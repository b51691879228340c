"""verify never proves what a game contradicts: the shapes that once made it
print "proved" for false claims (a local changed with `set`, the accumulator
idiom, shadowed names, negative counts, lists naming a player twice, card
fields named like built-ins, recursion), each with its hand-known answer, and
the cross-check that turns any proof a game contradicts into an internal error."""

from __future__ import annotations

import pytest

from soan import api
from soan.cli import main
from soan.verify import solver
from soan.verify.bounds import Bounds
from soan.verify.crosscheck import UnsoundProof
from soan.verify.properties import verify

STALE_LOCAL = """game "Stale local" players 2..2
token coin "Coins" supply 3 hold 0..10 when short partial
score pts "Points"
rounds 3 {
  let n = 1
  set n = 2
  give n coin to player(1)
  for p in players { choose k from [0, 1] by p "scores" { award 1 to p for pts } }
}
winner among p in players by vp(p) desc else shared
"""

ACCUMULATOR = """game "Accumulator" players 2..2
score pts "Points"
rounds 3 {
  for p in players {
    let total = 0
    for k in [1, 2, 3] { set total += k }
    choose x from 0..2 by p "adds" { set total += x }
    award total to p for pts
  }
}
winner among p in players by vp(p) desc else shared
"""


def run(text: str, games: int = 40, n: int = 2):
    spec = api.compile_text(text, "t.soan")
    result = verify(api.tables(spec, n), 600.0, 0, max_games=games)  # a work budget; the wall clock never cuts it here
    return {(f["property"], f["subject"]): f for f in result["findings"]}


def score_max(text: str, item: str = "total", n: int = 2) -> int | None:
    f = run(text, n=n)[("score", item)]
    return f["bounds"]["proved"][1] if f["verdict"] == "proved" else None


def test_the_issue_reproducer_a_local_changed_with_set_is_witnessed_short():
    """`let n = 1; set n = 2` gives 2 coins a round from a supply of 3: short, witnessed, never proved."""
    f = run(STALE_LOCAL)[("supplies", "coin")]
    assert f["verdict"] == "witnessed"


def test_the_accumulator_idiom_is_bounded_at_or_above_the_best_game():
    """let, then += in a loop, then award: the proved bound covers the real top (3 rounds of 6 + 2 = 24)."""
    top = score_max(ACCUMULATOR)
    assert top is not None and top >= 24


def test_a_number_chosen_from_a_range_is_bounded_by_the_range():
    """`choose k from 0..2 { award k }` three times: proved 0..6, not 'fires an unbounded number of times'."""
    text = """game "Range" players 2..2
score pts "Points"
rounds 3 { choose k from 0..2 by player(1) "takes" { award k to player(1) for pts } }
winner among p in players by vp(p) desc else shared
"""
    f = run(text)[("score", "total")]
    assert f["verdict"] == "proved" and f["bounds"]["proved"] == [0, 6]


SHADOW = """game "Shadow" players 2..2
token coin "Coins" supply 3 hold 0..10 when short partial
score pts "Points"
rounds 1 {
  let n = 1
  if true { let n = 5  give n coin to player(2) }
  give n coin to player(1)
  award 0 to player(1) for pts
}
winner among p in players by vp(p) desc else shared
"""


def test_a_let_inside_an_if_shadows_only_there_and_the_supply_is_witnessed_short():
    """The inner `let n = 5` gives 5 from a supply of 3: short in every game, never proved enough."""
    f = run(SHADOW)[("supplies", "coin")]
    assert f["verdict"] == "witnessed"


def test_a_def_parameter_named_like_a_callers_local_reads_its_argument():
    """def twice(n) = n * 2 called with 3 where the caller's n is 1: the bound is 6 a round, not 2."""
    text = """game "Param" players 2..2
score pts "Points"
def twice(n) = n * 2
rounds 2 {
  let n = 1
  award twice(3) + n - n to player(1) for pts
}
winner among p in players by vp(p) desc else shared
"""
    assert score_max(text) == 12


def test_a_negative_repeat_fires_nothing_and_termination_counts_no_negative_decisions():
    """`repeat 0 - 3 times` runs no time in play, and the analysis counts 0 firings, not -3."""
    text = """game "Negative" players 2..2
score pts "Points"
rounds 2 {
  repeat 0 - 3 times { choose k from [1, 2] by player(1) "takes" { award k to player(1) for pts } }
  choose k from [0, 1] by player(2) "takes" { award k to player(2) for pts }
}
winner among p in players by vp(p) desc else shared
"""
    f = run(text)
    assert f[("termination", "game")]["bounds"]["decisions"] == 2
    assert f[("score", "total")]["bounds"]["proved"][1] == 2


def test_rounds_until_with_a_cap_of_zero_still_runs_one_round():
    """The interpreter runs the first round before it reads the cap: the bound counts that round."""
    text = """game "Cap" players 2..2
score pts "Points"
rounds until round >= 5 cap 0 {
  choose k from [0, 3] by player(1) "takes" { award k to player(1) for pts }
}
winner among p in players by vp(p) desc else shared
"""
    top = score_max(text)
    assert top is not None and top >= 3


def test_a_player_named_twice_in_a_list_gets_the_award_twice_in_the_bound():
    """`award 2 to [p, p]` gives p 4 a round: the bound per player counts both."""
    text = """game "Twice" players 2..2
score pts "Points"
rounds 1 {
  for p in players { award 2 to [p, p] for pts }
}
winner among p in players by vp(p) desc else shared
"""
    top = score_max(text)
    assert top is not None and top >= 4


def test_a_card_field_called_seat_is_not_read_as_a_players_seat():
    """A card's own `seat` field of 0..9 is bounded by its domain, not by the player count."""
    text = """game "Seat field" players 2..2
score pts "Points"
component tile "tile" { seat: 0..9 = 9 }
cards tile in pile { 1 x seat = 9 }
zone pile: shared public unordered
rounds 1 { for c in pile { award c.seat to player(1) for pts } }
winner among p in players by vp(p) desc else shared
"""
    top = score_max(text)
    assert top is not None and top >= 9


def test_recursion_closed_by_a_flag_is_bounded_and_open_recursion_is_unknown():
    """A procedure that calls itself once with a flag that closes the branch fires a known number of
    times; one that calls itself with the same arguments is unbounded (termination unknown)."""
    closed = """game "Closed" players 2..2
score pts "Points"
procedure act(p, again) {
  award 1 to p for pts
  if not again { do act(p, true) }
}
rounds 2 { do act(player(1), false) }
winner among p in players by vp(p) desc else shared
"""
    assert score_max(closed) == 4
    b = Bounds(api.tables(api.compile_text(closed.replace("do act(p, true)", "do act(p, again)"), "t.soan"), 2))
    assert any(site.firings is None for site in b.sites)


def test_set_inside_a_branch_is_joined_with_not_taking_it():
    """`if c { set x = 9 }` leaves x as 1 or 9 afterwards; the bound covers both."""
    text = """game "Branch" players 2..2
score pts "Points"
rounds 1 {
  let x = 1
  choose k from [0, 1] by player(1) "picks" { if k == 1 { set x = 9 } }
  award x to player(1) for pts
}
winner among p in players by vp(p) desc else shared
"""
    assert score_max(text) == 9


def test_a_proof_a_game_contradicts_is_an_internal_error(monkeypatch):
    """A deliberately unsound bound (every maximum proved 0) is caught by the cross-check, never printed."""
    monkeypatch.setattr(solver, "max_total", lambda terms, cap=None: solver.Bound("proved", 0))
    with pytest.raises(UnsoundProof, match="soan proved"):
        run(ACCUMULATOR)


def test_the_cli_reports_an_unsound_proof_as_an_internal_error_with_the_game(monkeypatch, tmp_path, capsys):
    """soan verify exits 3 and names the claim and the saved game when a proof contradicts a game."""
    path = tmp_path / "acc.soan"
    path.write_text(ACCUMULATOR, encoding="utf-8")
    monkeypatch.setattr(solver, "max_total", lambda terms, cap=None: solver.Bound("proved", 0))
    code = main(["verify", str(path), "--players", "2", "--games", "20", "--witness-dir", str(tmp_path / "w")])
    err = capsys.readouterr().err
    assert code == 3
    assert "soan proved" in err and "unsound-seed" in err


def test_where_cards_can_go_follows_a_set_in_a_branch_and_a_recursive_procedure():
    """A card local re-set inside a branch, and a card passed on by a procedure that calls
    itself, both reach the zone they are moved to: the flow sees every such card there."""
    text = """game "Flow" players 2..2
score pts "Points"
component tile "tile" { value: 1..9 = 1 }
cards tile in pile { 2 x value = 1 }
cards tile in vault { 1 x value = 9 }
zone pile: shared public stack
zone vault: shared public stack
zone shown: shared public unordered
zone kept: shared public unordered
procedure pass_on(c, k) {
  if k > 0 { do pass_on(c, k - 1) } else { move c to kept }
}
rounds 1 {
  let c = first(pile)
  choose k from [0, 1] by player(1) "swaps" { if k == 1 { set c = first(vault) } }
  move c to shown
  do pass_on(first(vault), 2)
  award sum(x.value for x in shown) + sum(x.value for x in kept) to player(1) for pts
}
winner among p in players by vp(p) desc else shared
"""
    spec = api.compile_text(text, "t.soan")
    b = Bounds(api.tables(spec, 2))
    vault_card = next(cid for cid in range(b.t.n_cards) if b.t.fields[cid]["value"] == 9)
    assert vault_card in b.flow.cards_in("shown")
    assert vault_card in b.flow.cards_in("kept")


SHADOWED = """game "Names" players 2..2
token coin "Coins" supply 30 hold 0..30 when short partial
score pts "Points"
component tile "tile" { value: 1..9 = 1 }
cards tile in pile { 3 x value = 2 }
zone pile: shared public stack
zone shown: shared public unordered
def bonus(n) = n + 1
procedure pay(n, p) { give n coin to p }
rounds 2 {
  let n = 1
  if true { let n = 3  give n coin to player(2) }
  for n in [2, 4] { do pay(n, player(1)) }
  choose n from 0..2 by player(1) "picks" { award bonus(n) to player(1) for pts }
  let c = first(pile)
  for p in players { choose c from pile by p "shows" { move c to shown } }
  move c to shown
  award n to player(2) for pts
}
winner among p in players by vp(p) desc else shared
"""

RENAMED = (SHADOWED.replace("let n = 3  give n coin", "let n2 = 3  give n2 coin")
           .replace("for n in [2, 4] { do pay(n,", "for n3 in [2, 4] { do pay(n3,")
           .replace('choose n from 0..2 by player(1) "picks" { award bonus(n)',
                    'choose n4 from 0..2 by player(1) "picks" { award bonus(n4)')
           .replace("choose c from pile by p \"shows\" { move c to shown }",
                    "choose c2 from pile by p \"shows\" { move c2 to shown }"))


def test_the_analyses_read_bindings_through_the_resolver_not_names():
    """A spec that reuses names in inner blocks, loops, choices, defs and procedures gets the same
    firings, per-player counts, values, card flow and verdicts as the same spec with every name
    distinct: no analysis keeps an idea of scope of its own, and neither does the interpreter."""
    assert RENAMED != SHADOWED and RENAMED.count("n4") == 2
    a, b = (api.compile_text(x, "t.soan") for x in (SHADOWED, RENAMED))
    ba, bb = Bounds(api.tables(a, 2)), Bounds(api.tables(b, 2))
    shape = lambda bs: [(type(s.node).__name__, s.node.span.line, s.firings, s.per_player,  # noqa: E731
                         bs.value_at(s, s.node.amount) if hasattr(s.node, "amount") else None) for s in bs.sites]
    assert shape(ba) == shape(bb)
    assert ba.flow.reach == bb.flow.reach
    fa, fb = run(SHADOWED), run(RENAMED)
    assert {k: (v["verdict"], v["bounds"]) for k, v in fa.items()} == {k: (v["verdict"], v["bounds"]) for k, v in fb.items()}
    ra, rb = (api.play(api.tables(s, 2), seed=3, bots=["random", "random"]) for s in (a, b))
    assert ra.result == rb.result


BASE = """game "Base" players 2..2
score pts "Points"
component tile "tile" { value: 1..3 = 1 }
cards tile in big { 9 x value = 1 }
cards tile in small { 1 x value = 1 }
zone big: shared public stack
zone small: shared public stack
procedure from_big(p) {
  draw 1 from big to p.hand
}
zone hand: per_player public unordered
rounds 2 { do from_big(player(1)) }
winner among p in players by vp(p) desc else shared
"""

VARIANT = """extend "base.soan"
game "Variant" players 2..2
# the draw below stands at the same line and column as the base's draw from big




procedure from_small(p) {
  draw 1 from small to p.hand
}
rounds 2 { do from_big(player(1))  do from_small(player(1)) }
"""


def test_rules_at_the_same_line_and_column_of_two_files_are_kept_apart(tmp_path):
    """With `extend`, a short draw from one pile is never reported against a draw of another
    pile that stands at the same line and column of the base file."""
    (tmp_path / "base.soan").write_text(BASE, encoding="utf-8")
    (tmp_path / "variant.soan").write_text(VARIANT, encoding="utf-8")
    spec = api.load(str(tmp_path / "variant.soan"))
    draws = {n.source.name: n.span for n in __import__("soan.dsl", fromlist=["ir"]).ir.walk(spec)
             if type(n).__name__ == "Draw"}
    assert (draws["big"].line, draws["big"].col) == (draws["small"].line, draws["small"].col)
    result = verify(api.tables(spec, 2), 600.0, 0, max_games=20)
    f = {(x["property"], x["subject"]): x for x in result["findings"]}
    assert f[("supplies", "draws from small")]["verdict"] == "witnessed"
    assert f[("supplies", "draws from big")]["verdict"] != "witnessed"


def test_a_ruling_read_as_a_zone_capacity_is_not_moot():
    """A ruling that sizes a zone is read in every game that places there: it can arise, it is not moot."""
    text = """game "Capacity" players 2..2
score pts "Points"
ruling room: 1..3 = 1 "How many tiles fit on the shelf?" cite "test"
component tile "tile" { value: 1..3 = 1 }
cards tile in pile { 3 x value = 1 }
zone pile: shared public stack
zone shelf: shared public unordered capacity room
rounds 1 { if count(shelf) < 1 { move first(pile) to shelf }  award count(shelf) to player(1) for pts }
winner among p in players by vp(p) desc else shared
"""
    f = run(text)[("rulings", "room")]
    assert f["verdict"] != "proved"


def test_a_procedure_that_only_calls_itself_is_dead():
    """Nothing runs `loop_on`, though it runs itself: the dead-parts check names it."""
    text = """game "Dead" players 2..2
score pts "Points"
procedure loop_on(p) { do loop_on(p) }
rounds 1 { award 1 to player(1) for pts }
winner among p in players by vp(p) desc else shared
"""
    assert ("dead", "procedure loop_on") in run(text)


def test_a_proved_answer_to_a_question_that_a_game_contradicts_is_an_internal_error(monkeypatch):
    """Were z3 to 'prove' a question false that a game shows true, the run stops as a bug in soan."""
    from soan.verify import questions

    text = ACCUMULATOR.replace("winner among", 'question big "Can a score pass 10?" : can any(vp(p) > 10 for p in players) at end\nwinner among')
    monkeypatch.setattr(questions, "prove", lambda tables, q, bounds=None: questions.Proof("proved", "unsat"))
    with pytest.raises(UnsoundProof, match="question 'big'"):
        run(text)


def test_termination_counts_the_decisions_of_every_outcome_of_the_setups_opening_pick():
    """A random suit leaves the game in the setup: with the big suit gone one decision a round remains,
    with the small one gone three; the proved count of decisions covers the larger."""
    text = """game "Branches" players 2..2
enum suit = big, small
score pts "Points"
component tile "tile" { suit: suit = big }
cards tile in deck { 3 x suit = big
  1 x suit = small }
zone deck: shared public stack
setup { pick random s from suit { move [c in deck where c.suit == s] to box } }
rounds 2 { for c in deck { choose k from [0, 1] by player(1) "keeps" { award k to player(1) for pts } } }
winner among p in players by vp(p) desc else shared
"""
    f = run(text)
    assert f[("termination", "game")]["bounds"]["decisions"] >= 6
    assert f[("score", "total")]["bounds"]["proved"][1] >= 6


def test_a_game_that_stops_with_a_rule_error_is_a_finding_and_the_rest_still_report():
    """Dividing by a chosen zero stops some games: verify names the line and still reports every property."""
    text = """game "Error" players 2..2
score pts "Points"
rounds 1 { choose k from [0, 1, 2] by player(1) "divides" { award 6 // k to player(1) for pts } }
winner among p in players by vp(p) desc else shared
"""
    f = run(text)
    assert f[("errors", "line 3")]["problem"] is True
    assert ("termination", "game") in f and ("score", "total") in f


def test_a_tie_break_on_seat_among_a_list_naming_a_player_twice_is_not_proved_total():
    """`best q in [p, p] by q.seat` ties the player with themself: the seat key does not separate them."""
    text = """game "Same seat" players 2..2
score pts "Points"
rounds 1 {
  for p in players {
    let top = best q in [p, p] by q.seat asc else shared
    award count(top) to p for pts
  }
}
winner among p in players by vp(p) desc else shared
"""
    f = run(text)
    tie = next(v for (prop, subject), v in f.items() if prop == "tiebreaks" and subject.startswith("best"))
    assert tie["verdict"] != "proved"


def test_the_counter_idiom_is_bounded_by_how_often_it_can_count():
    """let n = 0, then n += 1 for each player who chooses so, then award n: at most 2 at 2 players, 2 rounds → 4."""
    text = """game "Counter" players 2..2
score pts "Points"
rounds 2 {
  let n = 0
  for p in players { choose k from [0, 1] by p "joins" { if k == 1 { set n += 1 } } }
  award n to player(1) for pts
}
winner among p in players by vp(p) desc else shared
"""
    assert score_max(text) == 4


def test_a_list_built_in_a_loop_is_bounded_by_the_loops_length():
    """set xs = xs + [x] three times at most, then one point per element: at most 3."""
    text = """game "List" players 2..2
score pts "Points"
rounds 1 {
  let xs = []
  for c in [1, 2, 3] { choose k from [0, 1] by player(1) "keeps" { if k == 1 { set xs = xs + [c] } } }
  for x in xs { award 1 to player(1) for pts }
}
winner among p in players by vp(p) desc else shared
"""
    assert score_max(text) == 3


def test_the_issue_reproducer_exits_1_when_witnessed_findings_fail_the_run(tmp_path):
    """`--fail-on witnessed` makes the witnessed shortage fail the run (exit 1); by default only
    problems and unknowns do, and a shortage the spec handles (`when short partial`) is neither."""
    path = tmp_path / "stale.soan"
    path.write_text(STALE_LOCAL, encoding="utf-8")
    base = ["verify", str(path), "--players", "2", "--games", "20", "--witness-dir", str(tmp_path / "w"), "--json"]
    assert main(base + ["--fail-on", "witnessed"]) == 1
    assert main(base) == 0
    assert main(base + ["--fail-on", "witnesed"]) == 2


@pytest.mark.parametrize("where, rules", [
    ("a pick in the rounds, nothing to decide after it",
     "rounds 1 {\n  pick random k from [0, 1] { for c in deck { award c.val to player(1) for pts } }\n  move deck to box\n}"),
    ("a pick in the setup, the deck emptied at the end",
     "setup { pick random c from deck { move c to box } }\n"
     "rounds 1 { for c in deck { award c.val to player(1) for pts } }\nscoring { move deck to box }"),
])
def test_setup_branches_are_read_where_the_setup_stops_not_at_the_games_end(where, rules):
    """Only the setup's own picks branch, and cards are placed where the setup leaves them:
    a loop over the deck later on still sees its cards (found by the soundness hunter)."""
    text = f"""game "Picks" players 2..2
score pts "Points"
component card "Card" {{ val: 0..3 }}
cards card in deck {{ 1 x val = 1  1 x val = 2 }}
zone deck: shared public stack
{rules}
winner among p in players by p.seat asc else stable
"""
    assert score_max(text) >= 2, where


def test_an_award_that_reads_a_score_is_bounded_without_reading_itself():
    """`award 0 - min(count(pile), max(vp(p), 0))` reads the score it changes: the bound is worked
    out without looping on itself, and stays sound."""
    text = """game "Penalty" players 2..2
score pts "Points" -9..9
component card "Card" { val: 0..3 }
cards card in pile { 2 x val = 1 }
zone pile: shared public stack
rounds 2 { choose k from [0, 2] by player(1) "takes" { award k to player(1) for pts } }
scoring { for p in players { award 0 - min(count(pile), max(vp(p), 0)) to p for pts } }
winner among p in players by vp(p) desc else shared
"""
    f = run(text)[("score", "total")]
    assert f["bounds"]["witnessed"][1] <= (f["bounds"]["proved"][1] if f["verdict"] == "proved" else 99)



SEATED = """game "Seated" players 2..3
score pts "Points"
ruling third_bonus: 0..3 = 1 "What does the third seat score each round?" cite "test"
def bonus(p) = if p.seat == 3 then third_bonus else 0
rounds 2 { for p in players { award bonus(p) to p for pts } }
winner among p in players by vp(p) desc else shared
"""


def test_a_ruling_only_the_third_seat_reads_is_moot_at_two_players_and_read_at_three():
    """A ruling read only under `p.seat == 3` is proved moot at 2 players, saying why, and read at 3."""
    f2 = run(SEATED)[("rulings", "third_bonus")]
    assert f2["verdict"] == "proved" and "at 2 players" in f2["detail"] and "moot" in f2["detail"]
    f3 = run(SEATED, n=3)[("rulings", "third_bonus")]
    assert f3["verdict"] == "witnessed"


def test_the_else_of_a_chain_of_seat_tests_stays_read_since_a_player_of_nothing_reaches_it():
    """`if p.seat == 1 .. else if p.seat == 2 .. else R` reads R at 2 players: a `p` of nothing fails both tests."""
    from soan.dsl.analysis import parameter_uses

    text = SEATED.replace("if p.seat == 3 then third_bonus else 0",
                          "if p.seat == 1 then 0 else if p.seat == 2 then 0 else third_bonus")
    spec = api.compile_text(text, "t.soan")
    assert parameter_uses(spec, 2)["third_bonus"]["read_by"] == ["def bonus"]
    guarded = api.compile_text(text.replace("else third_bonus", "else if p.seat == 3 then third_bonus else 0"), "t.soan")
    assert parameter_uses(guarded, 2)["third_bonus"]["read_by"] == []
    assert parameter_uses(guarded, 3)["third_bonus"]["read_by"] == ["def bonus"]


def test_a_card_field_called_seat_turns_the_seat_reading_off():
    """When cards have a field `seat`, `x.seat == 3` may be a card's: the read is kept at 2 players."""
    from soan.dsl.analysis import parameter_uses

    text = SEATED.replace('score pts "Points"', 'score pts "Points"\ncomponent chair "chair" { seat: 1..5 = 5 }')
    spec = api.compile_text(text, "t.soan")
    assert parameter_uses(spec, 2)["third_bonus"]["read_by"] == ["def bonus"]


def test_player_count_in_a_test_is_the_count_itself():
    """A ruling read under `player_count >= 3` is not read at 2 players and is at 3."""
    from soan.dsl.analysis import parameter_uses

    text = SEATED.replace("if p.seat == 3 then third_bonus else 0", "if player_count >= 3 and p.seat > 0 then third_bonus else 0")
    spec = api.compile_text(text, "t.soan")
    assert parameter_uses(spec, 2)["third_bonus"]["read_by"] == []
    assert parameter_uses(spec, 3)["third_bonus"]["read_by"] == ["def bonus"]


SETUP_DRAW_BEFORE_PICK = """game "Generated" players 2..2
token coin supply 1 hold 0..40 when short partial
token gem supply 0 hold 0..40 when short partial
score pts "Points"
player { v: -40..40 = 0 }
ruling amt: 0..3 = 0 "How many points is a bonus worth?"
component card "Card" {
  val: 0..3
}
cards card in deck { 1 x val = 0  1 x val = 0 }
cards card in pool { 1 x val = 0 }
zone deck: shared public stack
zone pool: shared public stack
zone discard: shared public stack
ruling limit: 1..3 = 1 "How many cards may a hand hold?"
zone hand: per_player public unordered capacity limit
def twice(n) = n * 2
def plus(acc) = acc + 1
procedure gain(p, n) {
  give n coin to p
  award n to p for pts
}
procedure down(p, k) {
  if k > 0 {
    award 1 to p for pts
    give 1 coin to p
    do down(p, k - 1)
  }
}
procedure put(c, k) {
  if k > 0 {
    do put(first(pool), k - 1)
  } else {
    move c to discard
  }
}
procedure forever(k) {
  do forever(k)
}
setup {
  for p in players { draw 1 from deck to p.hand }
  pick random q from players { set q.v = 1 }
}
rounds 1 {
  let n = 0
  let p = next(player(1))
  award n to next(player(1)) for pts
}
scoring {
  for c in player(1).hand {
    award c.val to player(1) for pts
    choose by player(1) "keeps or scores" {
      option keep { say "kept" }
      option score { award 1 to player(1) for pts }
    }
    if c.val >= 1 { break }
  }
}
winner among p in players by vp(p) desc else shared
"""


def test_a_setup_draw_before_an_opening_pick_still_counts_towards_what_the_hand_holds():
    """Cards drawn to a hand before the setup's random pick reach it in every branch of the pick: P1 can score 1, not 0..0."""
    assert score_max(SETUP_DRAW_BEFORE_PICK) == 1
