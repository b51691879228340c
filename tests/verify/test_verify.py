"""soan verify on small specs whose truth is known by hand: supplies that run
out after exactly k takes or cannot, total and falling-through tie-breaks, a
known maximum score, a game that can go on without end, and unknown (never a
guess) when the budget is too small."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from soan import api
from soan.cli import main
from soan.verify.properties import verify

from dice_duel import dice_text

ROOT = Path(__file__).resolve().parents[2]


def spec_text(supply: int, rounds: int = 5, ranking: str = "by p.seat asc else stable", extra: str = "") -> str:
    return f"""game "Supply" players 2..2
token chip supply {supply} hold 0..9 when short partial
score points "points"
component die "die" {{
  faces: 6..6 = 6
  state face: 1..6 = 1
}}
cards die in tray {{ 1 x faces = 6 }}
zone tray: shared public unordered
rounds {rounds} {{
  choose by player(1) "takes a chip" {{
    option take {{ give 1 chip to player(1) }}
  }}
  let first_one = best p in players {ranking}
}}
scoring {{
  roll first(tray)
  award first(tray).face to player(1) for points
}}
winner among p in players by vp(p) desc else draw
{extra}
"""


def findings(text: str, budget: float = 600.0, max_games: int | None = 60, tmp: Path | None = None, n: int = 2,
             only: set[str] | None = None):
    spec = api.compile_text(text, "t.soan")
    result = verify(api.tables(spec, n), budget, 0, only=only, witness_dir=tmp, max_games=max_games)
    return {(f["property"], f["subject"]): f for f in result["findings"]}, result


def test_a_supply_that_runs_out_after_exactly_three_takes_is_witnessed(tmp_path):
    """Three chips and five takes: the fourth take finds the supply empty, shown by a replayable game."""
    f, _ = findings(spec_text(3), tmp=tmp_path)
    chip = f[("supplies", "chip")]
    assert chip["verdict"] == "witnessed"
    assert chip["witness"] and Path(chip["witness"]).exists()
    log = api.load_log(chip["witness"])
    spec = api.compile_text(spec_text(3), "t.soan")
    st = api.replay(api.tables(spec, 2), log)
    assert st.first_marks[next(k for k in st.first_marks if k[0] == "short_supply")] == 4
    assert st.pv["chip"][0] == 3


def test_a_supply_large_enough_for_every_take_is_proved():
    """Five chips and five takes at most: z3 proves the supply never runs short."""
    f, _ = findings(spec_text(5))
    assert f[("supplies", "chip")]["verdict"] == "proved"


def test_a_total_tie_break_is_proved_and_a_constant_one_falls_through():
    """Ranking by seat separates every player; ranking by a constant ties and the shared fallback decides."""
    f, _ = findings(spec_text(5))
    assert f[("tiebreaks", "best at line 14")]["verdict"] == "proved"
    g, _ = findings(spec_text(5, ranking="by 0 desc else shared"))
    tie = g[("tiebreaks", "best at line 14")]
    assert tie["verdict"] == "witnessed" and "shared" in tie["detail"]


def test_the_known_maximum_score_is_proved_and_witnessed():
    """One d6 roll scored once: the proved range is 1..6 for P1's points and a real game reaches 6."""
    f, _ = findings(spec_text(5), max_games=200)
    item = f[("score", "item points")]
    assert item["verdict"] == "proved"
    assert item["bounds"]["proved"] == [1, 6] or item["bounds"]["proved"][1] == 6
    assert item["bounds"]["witnessed"][1] == 6


def test_a_game_that_can_go_on_without_end_is_witnessed_at_its_cap():
    """A game that ends only when a player holds ten chips of a five-chip supply stops at its cap, and soan says so."""
    text = spec_text(5).replace("rounds 5 {", "rounds until any(p in players where p.chip >= 10) cap 12 {")
    f, _ = findings(text)
    term = f[("termination", "game")]
    assert term["verdict"] == "witnessed" and term["problem"] and "cap of 12" in term["detail"]


def test_too_little_budget_gives_unknown_not_a_guess():
    """With no time to search, what cannot be proved stays unknown."""
    f, result = findings(spec_text(3), budget=0, max_games=0)
    assert result["search"]["games"] == 0
    assert f[("supplies", "chip")]["verdict"] == "unknown"
    assert f[("supplies", "chip")]["problem"] is False
    assert f[("supplies", "chip")]["witness"] is None


def test_dead_parts_and_moot_rulings_are_found():
    """A ruling nothing reads is moot, and an unused zone is reported as dead."""
    extra = 'zone attic: shared hidden unordered\nruling odd: 0..1 = 0 "never consulted" cite "nowhere"'
    f, _ = findings(spec_text(5, extra=extra))
    assert f[("rulings", "odd")]["verdict"] == "proved"
    assert ("dead", "zone attic") in f


def test_verify_command_json_schema_and_exit_code(tmp_path, capsys):
    """soan verify --json prints the versioned schema; an unknown or a problem makes the exit code 1."""
    spec = tmp_path / "t.soan"
    spec.write_text(spec_text(3), encoding="utf-8")
    code = main(["verify", str(spec), "--players", "2", "--budget", "2", "--json", "--witness-dir", str(tmp_path / "w")])
    out = json.loads(capsys.readouterr().out)
    assert out["soan_verify"] == 1 and out["players"] == 2
    assert {"property", "subject", "verdict", "claim", "bounds", "witness", "depends_on"} <= set(out["findings"][0])
    assert code == (1 if out["summary"]["unknown"] or out["summary"]["problems"] else 0)
    assert main(["verify", str(spec), "--only", "supplys"]) == 2


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4])
def test_kitano_verifies_within_budget_and_every_witness_replays(n, tmp_path):
    """On Kitano every witness replays to its recorded result and the proved score range contains every witnessed score."""
    spec = api.load(ROOT / "specs/kitano-20.soan")
    tables = api.tables(spec, n)
    result = verify(tables, 15, 0, witness_dir=tmp_path)
    for f in result["findings"]:
        if f["witness"]:
            log = api.load_log(f["witness"])
            assert api.replay(tables, log).result == log["result"]
        if f["property"] == "score" and f["verdict"] == "proved":
            lo, hi = f["bounds"]["proved"]
            wlo, whi = f["bounds"]["witnessed"]
            assert lo <= wlo <= whi <= hi


REMOVED_SUIT = """game "Removed" players 2..3
enum colour = red, green, blue
component gem "gem" { colour: colour }
zone bag: shared hidden stack
zone hand: per_player owner unordered
cards gem in bag { 2 x each colour }
score kinds "colours held" 0..3
score steady "two a round" 0..9
setup {
  if player_count == 2 {
    pick random s from colour { move [g in bag where g.colour == s] to box }
  }
  shuffle bag
}
rounds 2 {
  for p in players {
    award 2 to p for steady
    draw min(2, count(bag)) from bag to p.hand
  }
}
scoring {
  for p in players { award distinct(g.colour for g in p.hand) to p for kinds }
}
winner among p in players by vp(p) desc else draw
"""


def test_a_colour_the_setup_removes_lowers_the_proved_maximum():
    """With one colour of three boxed at two players, 'colours held' is proved at most 2 (3 at three players, where nothing is boxed), each outcome of the setup's pick bounded on its own."""
    two, _ = findings(REMOVED_SUIT, max_games=40)
    three, _ = findings(REMOVED_SUIT, max_games=40, n=3)
    assert two[("score", "item kinds")]["bounds"]["proved"] == [0, 2]
    assert "3 outcomes of the setup's opening random picks" in two[("score", "item kinds")]["detail"]
    assert three[("score", "item kinds")]["bounds"]["proved"] == [0, 3]


def test_an_award_in_a_loop_over_players_counts_once_per_player():
    """'award 2 to p' for every player in each of two rounds bounds one player's item by 4, not by 4 times the players."""
    f, _ = findings(REMOVED_SUIT, max_games=40, n=3)
    steady = f[("score", "item steady")]
    assert steady["bounds"]["proved"] == [0, 4]
    assert steady["bounds"]["witnessed"] == [4, 4]


LUCKY = """game "Lucky" players 2..2
component die "die" {
  faces: 6..6 = 6
  state face: 1..6 = 1
}
zone tray: shared public unordered
cards die in tray { 3 x faces = 6 }
score pips "pips" 0..18
rounds 1 { }
scoring {
  for d in tray { roll d }
  for d in tray { award d.face to player(1) for pips }
}
winner among p in players by vp(p) desc else draw
"""


def test_a_climb_reaches_a_maximum_that_needs_every_roll_to_be_a_six(tmp_path):
    """Three d6 summed: proved 18, and the climb over chance outcomes constructs a replayable game that rolls 6, 6, 6."""
    f, _ = findings(LUCKY, max_games=8, tmp=tmp_path)
    pips = f[("score", "item pips")]
    assert pips["bounds"]["proved"][1] == 18
    assert pips["bounds"]["witnessed"][1] == 18
    spec = api.compile_text(LUCKY, "t.soan")
    log = api.load_log(pips["witness"])
    assert api.replay(api.tables(spec, 2), log).result["scores"]["P1"] == 18


UNIQUE = """game "Unique" players 2..3
component hero "hero" { number: 1..4 }
zone heroes: shared hidden stack
zone mine: per_player public unordered
cards hero in heroes { 1 x number = 1  1 x number = 2  1 x number = 3  1 x number = 4 }
score points "points" 0..3
setup {
  shuffle heroes
  for p in players { draw 1 from heroes to p.mine }
}
rounds 1 { for p in players { choose x from [0, 1, 2, 3] by p "scores" { award x to p for points } } }
def number(p) = first(p.mine).number
winner among p in players by vp(p) desc, number(p) asc else draw
"""


def test_a_tie_break_on_unique_dealt_card_numbers_is_proved_total():
    """Every player is dealt one hero, nothing takes it away and no two heroes share a number: the winner line always decides."""
    f, _ = findings(UNIQUE, max_games=20)
    w = next(v for (p, s), v in f.items() if p == "tiebreaks" and s.startswith("winner"))
    assert w["verdict"] == "proved" and "no two such cards share a number" in w["detail"]
    # with a duplicate number the same line is no longer proved
    dup, _ = findings(UNIQUE.replace("1 x number = 4", "1 x number = 3"), max_games=20)
    w = next(v for (p, s), v in dup.items() if p == "tiebreaks" and s.startswith("winner"))
    assert w["verdict"] != "proved"


@pytest.mark.slow
def test_kitano_three_player_maximum_is_proved_and_reached_by_a_replayable_game(tmp_path):
    """At 3 players one utensil leaves Kitano: the proved maximum is 5 + 5×6 = 35, and the climb (fixed games, so every run is the same) finds a real game that reaches it."""
    spec = api.load(ROOT / "specs/kitano-20.soan")
    tables = api.tables(spec, 3)
    result = verify(tables, 20, 0, only={"score"}, witness_dir=tmp_path, max_games=150)
    total = next(f for f in result["findings"] if f["subject"] == "total")
    assert total["verdict"] == "proved" and total["bounds"]["proved"][1] == 35
    assert total["bounds"]["witnessed"][1] == 35
    log = api.load_log(total["witness"])
    assert max(api.replay(tables, log).result["scores"].values()) == 35


PILES = """game "Piles" players 2..2
score pts "Points"
component tile "tile" {{ value: 1..3 = 1 }}
cards tile in deck {{ {n} x value = 1 }}
zone deck: shared public stack
zone hand: per_player public unordered
setup {{ for p in players {{ draw 2 from deck to p.hand }} }}
rounds 3 {{
  {rule}
  award 0 to player(1) for pts
}}
winner among p in players by vp(p) desc else shared
"""


@pytest.mark.parametrize("n, rule, verdict", [
    (4, "if count(deck) > 0 { draw 1 from deck to player(1).hand }", "proved"),   # guarded by its count
    (4, "draw min(2, count(deck)) from deck to player(1).hand", "proved"),       # takes at most what is there
    (7, "draw 1 from deck to player(1).hand", "proved"),                         # 4 + 3 fit in 7 exactly
    (6, "draw 1 from deck to player(1).hand", "witnessed"),                      # one short
    (4, 'say "nothing"', "proved"),                                          # the setup's deal fits in 4
    (3, 'say "nothing"', "witnessed"),                                       # the deal is one short
])
def test_a_pile_is_proved_never_short_or_witnessed_short(n, rule, verdict):
    """Guards, a min with the count, and what fits in the pile from the start prove a pile; one card less is witnessed."""
    f, _ = findings(PILES.format(n=n, rule=rule))
    assert f[("supplies", "draws from deck")]["verdict"] == verdict


def test_a_shortage_random_play_rarely_meets_is_witnessed_by_pushing_games_towards_it():
    """Nineteen chips, ten takes of 0..2: only taking 2 every time runs the supply short (one random
    game in 59,049); the directed search climbs there and witnesses it."""
    text = """game "Greedy hands" players 2..2
token chip supply 19 hold 0..20 when short partial
score pts "points"
rounds 10 { choose k from [0, 1, 2] by player(1) "takes" { give k chip to player(1) } }
scoring { award 0 to player(1) for pts }
winner among p in players by vp(p) desc else draw
"""
    f, _ = findings(text, max_games=40)
    assert f[("supplies", "chip")]["verdict"] == "witnessed"


def test_a_finding_names_each_ruling_it_depends_on_once():
    """A finding's dependencies keep their first order and name each ruling once (a token's shortage ruling is also among those a witness game consulted)."""
    from soan.verify.findings import Finding
    f = Finding("supplies", "anger", "witnessed", "the supply runs short", depends_on=["anger_shortage", "pardon_threshold", "anger_shortage"])
    assert f.depends_on == ["anger_shortage", "pardon_threshold"]
    assert f.to_json()["depends_on"] == ["anger_shortage", "pardon_threshold"]


def test_a_def_only_the_examples_call_is_said_to_serve_the_examples():
    """A def that only worked examples call is reported as used only by the examples, not as never used."""
    text = spec_text(5, extra='def helper = 3\ndef unused = 4\nexample "helper" { expect helper == 3 }\n')
    f, _ = findings(text, budget=1.0, max_games=5)
    assert "used only by the examples" in f[("dead", "def helper")]["claim"]
    assert "is never used" in f[("dead", "def unused")]["claim"]


STEADY_HANDS = """game "Steady hands" players 2..2
token chip supply 20 hold 0..30 when short partial
zone bag: shared hidden unordered
component stone "stone" { weight: 1..1 = 1 }
cards stone in bag { 40 x weight = 1 }
score pts "points"
rounds 30 {
  choose k from [0, 1, 2, 3, 4, 5] by player(1) "takes" {
    if k == 5 { give 1 chip to player(1) draw 1 from bag to box }
  }
  choose j from [0, 1, 2] by player(2) "returns" {
    if j == 2 and player(1).chip > 0 { return 1 chip from player(1) }
  }
}
scoring { award 0 to player(1) for pts }
winner among p in players by vp(p) desc else draw
"""


def test_steered_games_take_the_one_move_in_six_that_empties_a_supply_every_round():
    """Thirty rounds each offering one move in six that takes a chip (20 in the supply) and one in three that
    gives it back: random play never empties it, while games steered by tokens out take the chip and keep it."""
    from soan.verify.search import directed_games, tokens_out

    tables = api.tables(api.compile_text(STEADY_HANDS, "t.soan"), 2)
    recs = directed_games(tables, tokens_out("chip", 20), seed=0, games=2)
    assert any(("short_supply" == k and site[0] == "chip") for r in recs for k, site in r.state.first_marks)
    for r in recs:  # each steered game is a real game: its log replays to the same state
        assert api.replay(tables, r.log).supply == r.state.supply


def test_verify_witnesses_a_shortage_that_only_steady_play_reaches():
    """verify's supply push steers games towards the shortage before climbing, so it is witnessed with a small budget."""
    f, _ = findings(STEADY_HANDS, max_games=8)
    assert f[("supplies", "chip")]["verdict"] == "witnessed"
    assert f[("supplies", "draws from bag")]["verdict"] == "proved"


def test_a_min_with_one_bounded_side_and_a_floored_side_is_bounded():
    """`min(count(bag), max(vp(p), 0))` lies in 0..count(bag) although vp(p) has no known bound: a penalty
    written that way gets a proved range (Pitmaster's spoiled mains)."""
    text = """game "Floors" players 2..2
zone bag: shared hidden unordered
component stone "stone" { weight: 1..1 = 1 }
cards stone in bag { 3 x weight = 1 }
score gain "gain"
score penalty "penalty"
rounds 4 {
  choose k from [0, 1, 2] by player(1) "scores" { award k * round to player(1) for gain }
}
scoring { for p in players { award 0 - min(count(bag), max(vp(p), 0)) to p for penalty } }
winner among p in players by vp(p) desc else draw
"""
    f, _ = findings(text, max_games=20)
    assert f[("score", "item penalty")]["verdict"] == "proved"
    assert f[("score", "item penalty")]["bounds"]["proved"] == [-3, 0]


def _pile_spec(body: str, cards: int = 5) -> str:
    return f"""game "Piles" players 2..2
zone deck: shared hidden stack
zone row: shared public unordered
component stone "stone" {{ weight: 1..1 = 1 }}
cards stone in deck {{ {cards} x weight = 1 }}
score pts "points"
rounds 4 {{
{body}
}}
scoring {{ award count(row) to player(1) for pts }}
winner among p in players by vp(p) desc else draw
"""


def test_a_draw_of_a_local_set_to_the_min_of_the_piles_count_is_proved_never_short():
    """`let k = min(2, count(deck))` then `draw k from deck`: the draw takes at most what the pile holds."""
    f, _ = findings(_pile_spec("  let k = min(2, count(deck))\n  draw k from deck to row"), max_games=10)
    assert f[("supplies", "draws from deck")]["verdict"] == "proved"


def test_a_draw_inside_a_loop_whose_test_counts_the_pile_is_proved_never_short():
    """`while count(deck) > 0 ... { draw 1 from deck }`: every pass starts with the loop's test true."""
    f, _ = findings(_pile_spec("  while count(row) < 2 * round and count(deck) > 0 max 3 { draw 1 from deck to row }"),
                    max_games=10)
    assert f[("supplies", "draws from deck")]["verdict"] == "proved"


def test_a_loop_test_does_not_guard_a_second_draw_after_the_first_in_the_same_pass():
    """Two draws of one card in one pass under `count(deck) > 0`: the second can find the pile empty (five cards,
    two a pass), and is witnessed, not proved."""
    f, _ = findings(_pile_spec("  while count(deck) > 0 max 3 { draw 1 from deck to row  draw 1 from deck to row }"),
                    max_games=10)
    assert f[("supplies", "draws from deck")]["verdict"] == "witnessed"


def test_a_local_min_stops_guarding_once_the_local_changes():
    """`let k = min(2, count(deck))`, then `set k += 1`: the draw of k may take more than the pile holds."""
    f, _ = findings(_pile_spec("  let k = min(2, count(deck))\n  set k += 1\n  draw k from deck to row"), max_games=10)
    assert f[("supplies", "draws from deck")]["verdict"] == "witnessed"


SORTING = """game "Sorting" players 2..2
component apple "apple" { size: 1..1 = 1 }
component pear "pear" { size: 1..1 = 1 }
zone crate: shared public unordered
zone apples: per_player public unordered
zone pears: per_player public unordered
cards apple in crate { 3 x size = 1 }
cards pear in crate { 5 x size = 1 }
score fruit "apples kept"
score others "pears kept"
rounds 8 {
  for p in players {
    if count(crate) > 0 {
      choose c from crate by p "takes a fruit" {
        if c.kind == apple { move c to p.apples } else { move c to p.pears }
      }
    }
  }
}
scoring { for p in players { award count(p.apples) to p for fruit  award count(p.pears) to p for others } }
winner among p in players by vp(p) desc else draw
"""


def test_a_card_moved_under_a_test_of_its_kind_is_only_of_that_kind():
    """`if c.kind == apple { move c to p.apples } else { move c to p.pears }`: only the 3 apples can lie in
    p.apples and only the 5 pears in p.pears, so the items are proved 0..3 and 0..5 (not 0..8) and reached."""
    f, _ = findings(SORTING, max_games=30)
    assert f[("score", "item fruit")]["bounds"]["proved"] == [0, 3]
    assert f[("score", "item others")]["bounds"]["proved"] == [0, 5]
    assert f[("score", "item fruit")]["bounds"]["fit"] == "tight"


def test_a_kind_test_does_not_narrow_a_card_local_changed_inside_its_branch():
    """A branch that sets its card local to another card before moving it may move any kind: no narrowing."""
    text = SORTING.replace("if c.kind == apple { move c to p.apples }",
                           "if c.kind == apple { let d = c  set d = first(crate)  move d to p.apples }")
    f, _ = findings(text, max_games=10)
    assert f[("score", "item fruit")]["bounds"]["proved"][1] > 3


def test_loose_score_items_are_marked_and_say_which_award_keeps_them_loose():
    """An item whose proved maximum is far above every game seen is marked loose, naming the award line."""
    text = SORTING.replace('score others "pears kept"', 'score others "pears kept"\nscore bonus "bonus"').replace(
        "rounds 8 {", "rounds 8 {\n  choose k from [0, 1] by player(1) \"hopes\" { if k == 1 and count(player(1).apples) "
                      "+ count(player(1).pears) == 8 { award 7 to player(1) for bonus } }")
    f, _ = findings(text, max_games=10)
    bonus = f[("score", "item bonus")]
    assert bonus["bounds"]["fit"] == "loose"
    assert "what keeps it loose: line" in bonus["detail"] and "awards up to 7 a time" in bonus["detail"]


def test_verify_rulings_reports_the_paired_study_soan_rulings_makes(tmp_path):
    """verify's rulings findings carry the same numbers as the soan rulings study on the same seed and games, with a witness where the ruling changes the result."""
    from soan import impact
    spec = api.compile_text(dice_text(), "dice.soan")
    result = verify(api.tables(spec, 2), 600.0, 0, only={"rulings"}, witness_dir=tmp_path, max_games=80)
    f = {x["subject"]: x for x in result["findings"] if x["property"] == "rulings"}
    study = impact.analyse(spec, 2, games=80, seed=0)
    rows = {r["name"]: r for r in study["ranked"] + study["moot"]}
    assert f["unused"]["verdict"] == "proved" and rows["unused"]["moot"]
    for name in ("six_is_zero", "cosmetic"):
        r, b = rows[name], f[name]["bounds"]
        assert f[name]["verdict"] == "witnessed"
        assert (b["games"], b["read"], b["results_changed"]) == (r["games"], r["read"], r["results_changed"])
        assert b["winner_flips"] == {a["value"]: a["flips"] for a in r["alternatives"]}
    assert f["six_is_zero"]["bounds"]["winner_flips"]["yes"] > 0 and f["cosmetic"]["bounds"]["results_changed"] == 0
    assert "no other resolution changed any of them" in f["cosmetic"]["detail"]
    # the witness of six_is_zero is a game whose result the other resolution changes: a six was rolled
    log = api.load_log(f["six_is_zero"]["witness"])
    assert "six_is_zero" in log["consulted_rulings"] and any(s.get("chance") == "roll die: 6" for s in log["steps"])
    other = api.play(api.tables(spec, 2, api.parse_params(spec, {"six_is_zero": "yes"})), log["seed"], ["random"] * 2)
    assert other.result["scores"] != log["result"]["scores"]


def test_verify_rulings_measures_valued_assumptions_too():
    """A valued assumption is judged like an open ruling: read, and whether another value changes games."""
    text = dice_text().replace('ruling unused: answer = yes "Nothing reads this (test)" cite "none"',
                               'assume bonus: 0..1 = 0 "A bonus point per die (test)" cite "none"')
    text = text.replace("award first(dice).face to p for pts", "award first(dice).face + bonus to p for pts")
    f, _ = findings(text, max_games=40)
    assert f[("rulings", "bonus")]["verdict"] == "witnessed"
    assert f[("rulings", "bonus")]["claim"] == "the situation of assumption 'bonus' arises"
    assert f[("rulings", "bonus")]["bounds"]["read"] > 0


def test_nested_loops_with_equal_tests_are_read_without_error():
    """`while true max 1 { while true max 1 { ... } }`: each loop's test guards its own passes, and reading
    the inner one does not take the outer one's away (a crash the soundness hunter found)."""
    f, _ = findings(_pile_spec("  while true max 1 { while true max 1 { draw 1 from deck to row } }"), max_games=5)
    assert f[("supplies", "draws from deck")]["verdict"] == "proved"  # four draws of five cards in all
    assert f[("termination", "game")]["verdict"] == "proved"


def test_verify_gives_the_same_findings_for_one_and_two_jobs(tmp_path):
    """The search's seeded games split over two processes give exactly the findings of one (only the seconds differ)."""
    tables = api.tables(api.load(str(ROOT / "specs" / "kitano-20.soan")), 4)  # 4: one setup branch to bound
    # supplies only: the search (what the jobs split) is the same whatever is checked, the proofs are not needed
    one = verify(tables, 600, 0, {"supplies"}, witness_dir=tmp_path / "one", max_games=16, jobs=1)
    two = verify(tables, 600, 0, {"supplies"}, witness_dir=tmp_path / "two", max_games=16, jobs=2)
    for r in (one, two):
        r["search"].pop("seconds")
        for f in r["findings"]:
            f["witness"] = f["witness"] and Path(f["witness"]).name
    assert one == two and one["search"]["games"] >= 16


def test_verify_command_jobs_flag_changes_nothing_but_the_seconds(tmp_path, capsys):
    """'soan verify --jobs 2 --json' prints what '--jobs 1 --json' prints, but for the search's seconds."""
    outs = []
    for j in (1, 2):
        code = main(["verify", str(ROOT / "specs" / "kitano-20.soan"), "--players", "4", "--games", "8", "--json",
                     "--only", "supplies", "--jobs", str(j), "--witness-dir", str(tmp_path)])
        out = json.loads(capsys.readouterr().out)
        out["search"].pop("seconds")
        outs.append((code, out))
    assert outs[0] == outs[1]


def test_a_loop_over_a_def_choosing_between_two_orders_of_the_players_visits_each_once():
    """`def turn_order = if flip == yes then (order q in players by q.seat desc else stable) else players`: a
    loop over it awards each player once, so the item is proved 0..1, not 0..(players)."""
    text = """game "Orders" players 3..3
enum answer = yes, no
ruling flip: answer = no "Which way round? (test)" cite "none"
score once "once"
def turn_order = if flip == yes then (order q in players by q.seat desc else stable) else players
rounds 1 { for p in turn_order { award 1 to p for once } }
winner among p in players by vp(p) desc else draw
"""
    f, _ = findings(text, max_games=5, n=3)
    assert f[("score", "item once")]["bounds"]["proved"] == [0, 1]
    assert f[("score", "item once")]["bounds"]["fit"] == "tight"


def _shortage_ruling_spec(supply: int) -> str:
    text = spec_text(supply).replace("when short partial", "when short ruling chips_out")
    return text + 'ruling chips_out: {partial, unlimited} = partial "What happens when the chips run out?" cite "test"\n'


def test_a_shortage_ruling_cannot_arise_when_its_supply_is_proved_never_short():
    """Five chips for five takes: the supply is proved, so the ruling read only when it runs short cannot arise."""
    f, _ = findings(_shortage_ruling_spec(5))
    assert f[("supplies", "chip")]["verdict"] == "proved"
    r = f[("rulings", "chips_out")]
    assert r["verdict"] == "proved" and "runs short" in r["detail"]


def test_a_shortage_ruling_is_witnessed_when_its_supply_runs_short():
    """Three chips for five takes: the ruling's situation arises in a game, never proved impossible."""
    f, _ = findings(_shortage_ruling_spec(3))
    assert f[("supplies", "chip")]["verdict"] == "witnessed"
    assert f[("rulings", "chips_out")]["verdict"] == "witnessed"


def test_a_loose_maximum_gets_a_short_climb_only_when_its_best_game_is_past_a_quarter_of_the_bound():
    """A best game of 20 under a proved 48 is climbed towards 24 (half of 48: 'within 2x'); one of 7
    under 48, one already within 2x (24 under 48), and a minimum are not."""
    from soan.verify.properties import _near_two_x

    assert _near_two_x(20, 1, 48)
    assert _near_two_x(12, 1, 48)
    assert not _near_two_x(7, 1, 48)
    assert not _near_two_x(24, 1, 48)
    assert not _near_two_x(0, 1, 4)
    assert not _near_two_x(-20, -1, -48)


def test_only_rulings_settles_a_shortage_ruling_as_the_full_run_does():
    """Five chips for five takes: `--only rulings` works out the supply's proof too, so the ruling is proved moot there as well."""
    f, _ = findings(_shortage_ruling_spec(5), only={"rulings"})
    assert not any(p == "supplies" for p, _ in f)
    assert f[("rulings", "chips_out")]["verdict"] == "proved"
