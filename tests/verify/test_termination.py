"""Termination on small specs whose answer is known by hand: a draining loop
whose cap is proved out of reach, the same loop with a cap that play reaches
(witnessed, a problem), a loop that refills its own zone (never proved), a
loop that fills a row up to three cards, a loop that fills every free slot, a bounded recursion, a `repeat` of
an assumption's count, a loop cap and a round cap only a directed search reaches, a loop over plates each
emptied by a take-back loop (and two ways it falls short), and a buying loop whose ways to pay must cover
every affordable offer (and one where they do not), a round cap only games steered away from every
ending reach, and a pass over the players until all have passed (proved from the workers the setup deals;
witnessed with a short cap, and with workers given to the next player)."""

from __future__ import annotations

from pathlib import Path

import pytest

from soan import api
from soan.verify.claims import proved_claims
from soan.verify.properties import verify
from soan.verify.search import search

SPECS = Path(__file__).parent / "termination_specs"


def findings(name: str, games: int, tmp_path) -> dict:
    tables = api.tables(api.load(str(SPECS / name)), 2)
    out = verify(tables, 120, seed=0, only={"termination"}, witness_dir=tmp_path, max_games=games)
    return {f["subject"]: f for f in out["findings"]}


def test_a_loop_that_moves_a_card_out_of_the_hand_each_pass_never_reaches_a_cap_of_every_card(tmp_path):
    """Each pass discards a card or breaks, and the hand holds at most the deck's 4 cards: cap 4 is proved out of reach."""
    f = findings("drain.soan", 0, tmp_path)
    cap = f["loop cap at line 15"]
    assert cap["verdict"] == "proved"
    assert cap["bounds"]["passes"] == 4 and cap["bounds"]["cap"] == 4
    assert "moves a card out of hand" in cap["detail"]
    assert f["game"]["verdict"] == "proved" and f["game"]["bounds"]["caps_assumed"] == []


def test_the_same_loop_with_a_cap_of_one_is_witnessed_reaching_it(tmp_path):
    """With two cards in hand and a cap of 1, a player who discards once is stopped by the cap: a witnessed problem."""
    f = findings("drain_cap_reached.soan", 20, tmp_path)
    cap = f["loop cap at line 15"]
    assert cap["verdict"] == "witnessed" and cap["problem"]
    assert Path(cap["witness"]).exists()
    assert f["game"]["bounds"]["caps_assumed"] == ["line 15"]
    assert "assumption" in f["game"]["detail"]


def test_a_loop_that_refills_its_own_zone_is_never_proved(tmp_path):
    """A hand refilled from the discard pile it empties into: no proof; with games, the cap is seen reached."""
    assert findings("refill.soan", 0, tmp_path)["loop cap at line 15"]["verdict"] == "unknown"
    assert findings("refill.soan", 20, tmp_path)["loop cap at line 15"]["verdict"] == "witnessed"


def test_a_loop_filling_a_row_to_three_cards_never_reaches_a_cap_of_three(tmp_path):
    """`while count(row) < 3 ... max 3` with a guarded draw into the row: at most 3 passes."""
    cap = findings("fill.soan", 0, tmp_path)["loop cap at line 11"]
    assert cap["verdict"] == "proved" and cap["bounds"]["passes"] == 3


def test_a_bounded_recursion_and_a_repeat_of_an_assumption_end_within_the_hand_counted_decisions(tmp_path):
    """countdown(p, 3) makes 3 decisions per player and `repeat steps` (3) three more: 2 rounds x (2 x 3 + 3) = 18."""
    game = findings("recursion.soan", 0, tmp_path)["game"]
    assert game["verdict"] == "proved"
    assert game["bounds"]["rounds"] == 2 and game["bounds"]["decisions"] == 18


def test_a_cap_seeded_games_miss_is_reached_by_pushing_one_run_of_the_loop(tmp_path):
    """Two ways to stop and one to go on: seeded games stop half-way, the push on the loop's passes reaches cap 6."""
    tables = api.tables(api.load(str(SPECS / "push.soan")), 2)
    seeded = search(tables, 120, 0, 40)
    site = next(iter(seeded.loop_peak))
    assert ("while_limit", site) not in seeded.marks and seeded.loop_peak[site][0] >= 3
    cap = findings("push.soan", 40, tmp_path)["loop cap at line 15"]
    assert cap["verdict"] == "witnessed" and cap["problem"]


def test_a_proved_cap_is_a_claim_the_soundness_hunter_checks():
    """The proved cap becomes a cap_never_reached claim naming the loop's site."""
    tables = api.tables(api.load(str(SPECS / "drain.soan")), 2)
    claims = [c for c in proved_claims(tables) if c.kind == "cap_never_reached"]
    assert [(c.subject, c.value[1:]) for c in claims] == [("line 15", (15, 5))]


def test_a_loop_that_fills_a_free_slot_each_pass_never_reaches_a_cap_of_every_slot(tmp_path):
    """Each pass sets the `holds` of a slot whose `holds` is none, and the board has 3 slots: cap 3 is out of reach."""
    cap = findings("fill_slots.soan", 0, tmp_path)["loop cap at line 22"]
    assert cap["verdict"] == "proved" and cap["bounds"]["passes"] == 3
    assert "holds" in cap["detail"]


def test_a_slot_emptied_again_in_the_loop_is_not_counted_as_filled(tmp_path):
    """The same loop setting a slot's `holds` back to none in a pass: no proof."""
    text = (SPECS / "fill_slots.soan").read_text().replace(
        "          award 1 to p for pts\n", "          award 1 to p for pts\n          set s.holds = none\n")
    assert "set s.holds = none" in text
    tables = api.tables(api.compile_text(text, "slots_emptied.soan"), 2)
    out = verify(tables, 120, seed=0, only={"termination"}, witness_dir=tmp_path, max_games=0)
    cap = next(f for f in out["findings"] if f["subject"] == "loop cap at line 22")
    assert cap["verdict"] == "unknown"


def test_a_loop_that_empties_one_plate_each_pass_never_reaches_a_cap_of_every_plate(tmp_path):
    """Each pass picks a plate holding chips and a loop takes them all back, and nothing puts one back: at most 3 passes, cap 3."""
    f = findings("plates.soan", 20, tmp_path)
    outer = f["loop cap at line 30"]
    assert outer["verdict"] == "proved"
    assert outer["bounds"]["passes"] == 3 and outer["bounds"]["cap"] == 3
    assert "3 values" in outer["detail"]


def test_the_highest_bidder_taking_back_a_chip_each_pass_never_reaches_a_cap_of_every_chip(tmp_path):
    """The best of the players with a chip on the plate is someone, and their biggest chip goes home: at most the board's 4 chips."""
    inner = findings("plates.soan", 20, tmp_path)["loop cap at line 38"]
    assert inner["verdict"] == "proved"
    assert inner["bounds"]["passes"] == 4 and inner["bounds"]["cap"] == 4
    assert "moves a card out of board" in inner["detail"]


def test_a_plate_that_gives_back_one_chip_a_pass_is_not_counted_as_emptied(tmp_path):
    """Four chips on red, one back each pass, cap 3: not proved, and every game reaches the cap (a witnessed problem)."""
    cap = findings("plates_one_back.soan", 20, tmp_path)["loop cap at line 28"]
    assert cap["verdict"] == "witnessed" and cap["problem"]


def test_a_take_back_loop_with_a_cap_below_the_chips_on_the_plate_is_witnessed_reaching_it(tmp_path):
    """Four chips on red and a cap of 3 on the loop that takes them back one by one: witnessed, and the loop over plates not proved."""
    f = findings("plates_short_cap.soan", 20, tmp_path)
    assert f["loop cap at line 36"]["verdict"] == "witnessed" and f["loop cap at line 36"]["problem"]
    assert f["loop cap at line 28"]["verdict"] != "proved"


def test_a_buying_loop_whose_ways_to_pay_cover_every_affordable_offer_never_reaches_a_cap_of_every_offer(tmp_path):
    """cost <= gold + 1 means paying in gold (cost <= gold) or on credit (cost == gold + 1) is offered: each pass buys, at most 3."""
    cap = findings("pay.soan", 20, tmp_path)["loop cap at line 18"]
    assert cap["verdict"] == "proved"
    assert cap["bounds"]["passes"] == 3 and cap["bounds"]["cap"] == 3


def test_a_buying_loop_that_offers_no_way_to_pay_for_one_affordable_offer_is_witnessed_reaching_its_cap(tmp_path):
    """Credit only for two gold missing: the offer one gold too dear is chosen and stays, so play reaches the cap of 3."""
    cap = findings("pay_uncovered.soan", 20, tmp_path)["loop cap at line 18"]
    assert cap["verdict"] == "witnessed" and cap["problem"]


def test_a_pass_over_the_players_until_all_have_passed_never_reaches_a_cap_of_one_more_than_their_workers(tmp_path):
    """Each player holds 2 of their 5 dice as workers (the setup deals 2, placed ones come back): each visit places
    one or passes, so the passes are at most 3, the cap."""
    cap = findings("passing.soan", 20, tmp_path)["loop cap at line 20"]
    assert cap["verdict"] == "proved"
    assert cap["bounds"]["passes"] == 3 and cap["bounds"]["cap"] == 3
    assert "one player's workers holds at most 2 cards" in cap["detail"]


def test_the_same_pass_with_a_cap_of_two_is_witnessed_reaching_it(tmp_path):
    """Two workers placed and then a pass take 3 passes: a cap of 2 is reached (a witnessed problem)."""
    cap = findings("passing_short_cap.soan", 20, tmp_path)["loop cap at line 20"]
    assert cap["verdict"] == "witnessed" and cap["problem"]


def test_workers_given_to_the_next_player_are_not_counted_as_the_setups_two(tmp_path):
    """A placed worker goes to the next player's zone, so one player can start round 2 with 4: no proof, and play
    reaches the cap of 3."""
    unplayed = findings("passing_gift.soan", 0, tmp_path)["loop cap at line 20"]
    assert unplayed["verdict"] == "unknown" and "between two players'" in unplayed["detail"]
    cap = findings("passing_gift.soan", 40, tmp_path)["loop cap at line 20"]
    assert cap["verdict"] == "witnessed" and cap["problem"]


# ---- soundness: random loops over cards, every game listed

_CONDS = ["count(p.hand) > {c}", "count(p.hand) >= {c1}", "count(pile) < {k}", "count(p.hand) > 0 and count(deck) > 0",
          "count(deck) > {c}", "0 < count(p.hand) + count(deck)"]
_STEPS = [
    'may choose c from p.hand by p "discards" {{ move c to pile }} else {{ break }}',
    'choose c from p.hand by p "discards" {{ move c to pile }}',
    "if count(deck) > 0 {{ draw 1 from deck to pile }}",
    "draw 1 from deck to p.hand",
    "if count(p.hand) == 0 {{ move pile to p.hand }}",
    'choose by p "acts" {{ option stop {{ break }} option give {{ choose c from p.hand by p "gives" {{ move c to pile }} }} }}',
    "if count(pile) > 0 {{ move first(pile) to p.hand }}",
    "award 1 to p for pts",
    'choose c from pile by p "takes back" {{ move c to deck }}',
    "for q in players where count(q.hand) > 0 {{ move first(q.hand) to pile }}",
    "if count(p.hand) > 0 {{ award 1 to p for pts  move take(p.hand, 1) to pile }}",
    "for q in players {{ if count(deck) > 0 {{ draw 1 from deck to q.hand }} }}",
]


_PASSES = [
    'choose by p "works or passes" {{ option work when count(p.hand) > 0 {{ choose c from p.hand by p "plays" '
    '{{ move c to pile }} }} option pass {{ set p.passed = true }} }}',
    "if count(p.hand) == 0 {{ set p.passed = true }}",
    'choose by p "passes or not" {{ option pass {{ set p.passed = true }} option wait {{ say "waits" }} }}',
    "if count(pile) > 1 {{ set p.passed = true }}",
]


def _loop_spec(draw) -> str:
    from hypothesis import strategies as st

    cards = draw(st.integers(2, 5))
    dealt = draw(st.integers(0, cards // 2))
    cond = draw(st.sampled_from(_CONDS)).format(c=draw(st.integers(0, 1)), c1=draw(st.integers(1, 2)),
                                               k=draw(st.integers(1, 3)))
    body = [draw(st.sampled_from(_STEPS)).format() for _ in range(draw(st.integers(1, 3)))]
    cap = draw(st.integers(1, 4))
    steps = "\n      ".join(body)
    shape = draw(st.integers(0, 2))
    if shape == 2:  # a pass over the players until all have passed, each visit maybe passing
        steps = "\n      ".join(body + [draw(st.sampled_from(_PASSES)).format()])
        loop = f"""  while any(p in players where not p.passed) max {cap} {{
    for p in players where not p.passed {{
      {steps}
    }}
  }}"""
    elif shape == 1:  # a pass over the players, each visit moving the visited player's cards
        loop = f"""  while any(p in players where count(p.hand) > 0) max {cap} {{
    for p in players {{
      {steps}
    }}
  }}"""
    else:
        loop = f"""  for p in players {{
    while {cond} max {cap} {{
      {steps}
    }}
  }}"""
    return f"""game "Loop" players 2..2
score pts "Points"
component card "Card" {{
  val: 1..1
}}
cards card in deck {{ {cards} x val = 1 }}
zone deck: shared hidden stack
zone pile: shared public stack
zone hand: per_player owner unordered
player {{
  passed: bool
}}
setup {{
  for p in players {{ draw {dealt} from deck to p.hand }}
}}
rounds 1 {{
{loop}
}}
winner among p in players by vp(p) desc else draw
"""


_INNER = [  # what a pass does with the plate it chose
    "while count(on_spot(t)) > {c2} max {cap2} {{\n        do home(first(on_spot(t)))\n      }}",
    "do home(first(on_spot(t)))",
    "while count(on_spot(t)) > 0 max {cap2} {{\n        for q in best q in players where placed(q, t) by q.seat asc else stable {{"
    " do home(first([c in on_spot(t) where c.owner == q])) }}\n      }}",
    "while count(on_spot(t)) > 0 max {cap2} {{\n        choose c from on_spot(t) by head \"moves a chip\" "
    "{{ set c.spot = {other} }}\n      }}",
    "while count(on_spot(t)) > 0 max {cap2} {{\n        may choose c from on_spot(t) by head \"takes back\" "
    "{{ do home(c) }} else {{ break }}\n      }}",
    "while count(on_spot(t)) > 0 max {cap2} {{\n        for q in players where placed(q, t) {{ do home(first(on_spot(t))) }}\n      }}",
]


def _plates_spec(draw) -> str:
    from hypothesis import strategies as st

    colours = ["red", "blue", "green"][:draw(st.integers(2, 3))]
    chips = draw(st.integers(1, 2))
    inner = draw(st.sampled_from(_INNER)).format(c2=draw(st.integers(0, 1)), cap2=draw(st.integers(1, 4)),
                                                 other=draw(st.sampled_from(colours + ["none"])))
    cap = draw(st.integers(1, 3))
    return f"""game "Plates" players 2..2
score pts "Points"
enum colour = {", ".join(colours)}
component chip "Chip" {{
  val: 1..2
  state spot: colour = none
}}
cards chip per player in chips {{ {chips} x val = 1 }}
zone chips: per_player owner unordered
zone board: shared public unordered
global {{
  head: player = none
}}
def on_spot(t) = [c in board where c.spot == t]
def placed(p, t) = any(c in board where c.spot == t and c.owner == p)
setup {{
  pick random p from players {{ set head = p }}
}}
rounds 1 {{
  for p in players {{
    for c in p.chips {{
      choose t from colour by p "puts a chip on" {{
        set c.spot = t
        move c to board
      }}
    }}
  }}
  while any(t in colour where count(on_spot(t)) > 0) max {cap} {{
    choose t from [t in colour where count(on_spot(t)) > 0] by head "settles a plate" {{
      {inner}
    }}
  }}
}}
procedure home(c) {{
  set c.spot = none
  move c to c.owner.chips
}}
winner among p in players by vp(p) desc else draw
"""


def test_no_proved_loop_cap_is_reached_in_any_game_of_a_random_loop_over_plates():
    """For a few dozen random loops over plates (each pass emptying a plate, taking one chip back, moving chips
    to another plate, breaking), no game reaches a cap proved out of reach."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=30, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.composite(lambda draw: _plates_spec(draw))())
    def run(text):
        _check_loop_caps(text)

    run()


@pytest.mark.slow
def test_no_proved_loop_cap_is_reached_in_any_game_of_300_random_loops_over_plates():
    """The same for 300 random loops over plates."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.composite(lambda draw: _plates_spec(draw))())
    def run(text):
        _check_loop_caps(text)

    run()


def _check_loop_caps(text: str) -> None:
    from hypothesis import assume

    from soan.dsl.errors import SpecErrors, SpecRuntimeError
    from soan.verify.claims import contradictions
    from soan.verify.exhaustive import all_games

    try:
        tables = api.tables(api.compile_text(text, "loop.soan"), 2)
        claims = [c for c in proved_claims(tables) if c.kind in ("cap_never_reached", "ends_within")]
        games = all_games(tables)
    except (SpecErrors, SpecRuntimeError):
        assume(False)
    assume(games is not None)
    bad = contradictions(claims, games)
    assert not bad, "a proved loop cap is contradicted:\n" + "\n".join(bad) + "\n\nspec:\n" + text


def _loop_specs():
    from hypothesis import strategies as st

    return st.composite(lambda draw: _loop_spec(draw))()


def test_no_proved_loop_cap_is_reached_in_any_game_of_a_random_card_loop():
    """For a few dozen random loops over cards (drains, refills, fills, breaks), no game reaches a cap proved out of reach."""
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=40, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(_loop_specs())
    def run(text):
        _check_loop_caps(text)

    run()


@pytest.mark.slow
def test_no_proved_loop_cap_is_reached_in_any_game_of_500_random_card_loops():
    """The same for 500 random loops over cards."""
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=500, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(_loop_specs())
    def run(text):
        _check_loop_caps(text)

    run()


def test_a_round_cap_seeded_games_miss_is_reached_by_pushing_the_rounds_played():
    """Four ways to take one of two cards and one to wait: seeded games end early, the push on rounds reaches cap 8."""
    tables = api.tables(api.load(str(SPECS / "round_cap.soan")), 2)
    seeded = search(tables, 120, 0, 40)
    assert not any(k == "round_cap" for k, _ in seeded.marks) and seeded.longest["rounds"][0] >= 4
    out = verify(tables, 120, seed=0, only={"termination"}, max_games=40)
    game = next(f for f in out["findings"] if f["subject"] == "game")
    assert game["verdict"] == "witnessed" and game["problem"] and game["bounds"]["cap"] == 8


def test_a_round_cap_random_play_never_nears_is_reached_by_games_steered_away_from_every_ending(tmp_path):
    """Five ways to win at once and one to wait: seeded games end in the first rounds (too soon for the push on
    rounds), while games whose every seat avoids ending the game wait until the cap of 30 rounds stops them."""
    tables = api.tables(api.load(str(SPECS / "long_game.soan")), 2)
    seeded = search(tables, 120, 0, 40)
    assert not any(k == "round_cap" for k, _ in seeded.marks) and 2 * seeded.longest["rounds"][0] < 30
    out = verify(tables, 120, seed=0, only={"termination"}, witness_dir=tmp_path, max_games=40)
    game = next(f for f in out["findings"] if f["subject"] == "game")
    assert game["verdict"] == "witnessed" and game["problem"] and game["bounds"]["cap"] == 30
    assert Path(game["witness"]).exists()


def test_a_pass_over_the_players_each_placing_one_of_their_own_workers_never_reaches_a_cap_of_three(tmp_path):
    """Each player has 3 workers of their own; each pass visits every player and a turn (its own flag loop)
    places one: cap 3 of the pass loop is proved, with the turn loop's cap 5 (4 cards to discard, then a place)."""
    f = findings("workers.soan", 0, tmp_path)
    outer, turn = f["loop cap at line 39"], f["loop cap at line 24"]
    assert outer["verdict"] == "proved" and outer["bounds"]["passes"] == 3
    assert "one player's workers holds at most 3 cards" in outer["detail"]
    assert turn["verdict"] == "proved" and turn["bounds"]["passes"] == 5


def test_the_pass_loop_with_a_cap_below_the_workers_is_witnessed(tmp_path):
    """The same with cap 2: three workers need three passes, so play reaches the cap."""
    text = (SPECS / "workers.soan").read_text().replace("max 3 {", "max 2 {")
    tables = api.tables(api.compile_text(text, "workers_cap2.soan"), 2)
    out = verify(tables, 120, seed=0, only={"termination"}, witness_dir=tmp_path, max_games=20)
    cap = next(f for f in out["findings"] if f["subject"] == "loop cap at line 39")
    assert cap["verdict"] == "witnessed" and cap["problem"]


def test_workers_that_can_come_back_to_another_player_are_not_counted_per_player(tmp_path):
    """Giving every placed worker back to the first player breaks 'each player holds only their own': no proof."""
    text = (SPECS / "workers.soan").read_text().replace(
        "for p in players { move [d in area where d.owner == p] to p.workers }", "move area to player(1).workers")
    assert "move area to player(1).workers" in text
    tables = api.tables(api.compile_text(text, "workers_given.soan"), 2)
    out = verify(tables, 120, seed=0, only={"termination"}, witness_dir=tmp_path, max_games=0)
    cap = next(f for f in out["findings"] if f["subject"] == "loop cap at line 39")
    assert cap["verdict"] == "unknown" and "own cards" in cap["detail"]
