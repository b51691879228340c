"""The compiled engine's shortcuts on the decision path do what the general code does: a choice of one
card makes the moves item_classes would, a decision's body that never stops runs without a frame, and a
card variable set at once still refuses a value outside its domain."""

from __future__ import annotations

from pathlib import Path

import pytest

from soan import api
from soan.dsl import compile_text
from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.compile import _card_labels, item_classes, item_moves
from soan.interpreter.play import Streams, bot_chooser, record_game
from soan.interpreter.runtime import as_list, count_of
from soan.interpreter.state import Decision, State, Straight

KITANO = Path(__file__).resolve().parents[2] / "specs" / "kitano-20.soan"
PITMASTER = Path(__file__).resolve().parents[2] / "specs" / "pitmaster-20.soan"

TAKE = """
game "Take a chip" players 2..2
component chip { worth: 1..3 }
cards chip in pile {
  1 x worth = 1
  1 x worth = 2
  1 x worth = 3
}
zone pile: shared public unordered
zone kept: per_player public unordered
player { last: card = none }
score s
rounds 1 {
  for p in players {
    choose c from pile by p "takes" {
      move c to p.kept
      set p.last = c
      award c.worth to p for s
    }
  }
}
winner among p in players by vp(p) desc else shared
"""


def _moves(moves):
    return [(m.label, m.value, m.sort_key) for m in moves]


def test_one_card_choices_offer_the_moves_item_classes_makes_at_every_kitano_decision():
    """At every decision of seeded Kitano games, item_moves over each zone's cards and over all cards (several
    zones, hidden and face-down cards, states off their defaults) equals the moves made from item_classes."""
    tables = api.tables(api.load(str(KITANO)), 4)
    checked = 0

    def check(st: State):
        nonlocal checked
        if not isinstance(st.pending, Decision):
            return
        groups = [[st.t.C[c] for c in cards] for cards in st.zones] + [[st.t.C[c] for c in range(st.t.n_cards)]]
        for items in groups:
            for p in range(st.t.n):
                want = [(label, members[0], key) for label, key, members in item_classes(st, tuple(items), p)]
                assert _moves(item_moves(st, tuple(items), p)) == want
                checked += 1

    for seed in (1, 2):
        streams = Streams(seed)
        record_game(tables, seed, bot_chooser(seed, ["random"] * 4, streams, tables), ["random"] * 4,
                    on_step=check, streams=streams)
    assert checked > 1000
    st = State(tables).start()
    assert item_moves(st, (), 0) == []  # nothing to choose from: no moves, as item_classes gives none


def _label_by_definition(st: State, cid: int, chooser: int, several_zones: bool) -> str:
    """A card's label in a choice, card by card from State.viewers and State.card_text (what _card_labels makes in
    one pass): its text where the chooser sees it (with its zone if the items lie in several), else its place."""
    slot = st.loc[cid]
    zone = st.t.zone_label(slot)
    if not st.viewers(cid) & (1 << chooser):
        return f"hidden card {st.zones[slot].index(cid) + 1} in {zone}"
    return f"{st.card_text(cid)} in {zone}" if several_zones else st.card_text(cid)


@pytest.mark.parametrize("spec,n", [(KITANO, 4), (PITMASTER, 3)])
def test_a_choices_card_labels_made_in_one_pass_are_each_cards_own(spec, n):
    """At every step of seeded random games, _card_labels over each zone's cards (hands with states off their
    defaults, face-down and hidden cards) and over all cards names every card as State.card_text and viewers do."""
    tables = api.tables(api.load(str(spec)), n)
    checked = stated = 0

    def check(st: State):
        nonlocal checked, stated
        for cids in [list(z) for z in st.zones if z] + [list(range(st.t.n_cards))]:
            several = len({st.loc[c] for c in cids}) > 1
            for p in range(n):
                want = [_label_by_definition(st, c, p, several) for c in cids]
                assert _card_labels(st, cids, 1 << p, several) == want
                checked += 1
                stated += any("=" in w for w in want)

    streams = Streams(1)
    record_game(tables, 1, bot_chooser(1, ["random"] * n, streams, tables), ["random"] * n, on_step=check,
                streams=streams)
    assert checked > 1000 and stated > 100  # cards with states off their defaults were among them


def test_a_count_of_a_zone_reads_its_ids_and_counts_what_as_list_gives():
    """count_of gives len(as_list(...)) for every zone of a dealt Kitano game (from its ids, without making cards),
    for a list of cards, for none and for a single value."""
    tables = api.tables(api.load(str(KITANO)), 4)
    st = State(tables).start()
    assert any(len(z) > 1 for z in st.zones)
    for zone in tables.Z:
        assert count_of(st, zone) == len(as_list(st, zone)) == len(st.zones[zone.slot])
    cards = tuple(tables.C[:3])
    assert (count_of(st, cards), count_of(st, None), count_of(st, cards[0]), count_of(st, 7)) == (3, 0, 1, 1)


def test_a_body_that_never_stops_runs_without_a_frame_and_plays_the_same_game():
    """Each player takes one of chips worth 1, 2, 3 and scores its worth: the compiled engine marks the body
    Straight, the scores are the worths of the chips kept, and the log equals the closure engine's."""
    spec = compile_text(TAKE, "take.soan")
    compiled, closures = api.tables(spec, 2, engine="compiled"), api.tables(spec, 2, engine="closures")
    assert type(State(compiled).start().pending.body) is Straight
    assert type(State(closures).start().pending.body) is not Straight
    for seed in range(10):
        a, b = api.play(compiled, seed, ["random"] * 2), api.play(closures, seed, ["random"] * 2)
        assert a.log == b.log
        st = a.state
        for i in range(2):
            kept = st.zones[compiled.slot_of[("kept", i)]]
            assert len(kept) == 1 and st.pv["last"][i].id == kept[0]
            assert st.vp["s"][i] == compiled.fields[kept[0]]["worth"]
        assert sorted(st.vp["s"]) != [1, 1]  # two different chips


@pytest.mark.parametrize("engine", ["compiled", "closures"])
def test_a_card_variable_set_to_a_player_is_a_located_error(engine):
    """`set p.last = p` puts a player into a card variable: both engines stop with the rule's line."""
    bad = TAKE.replace("set p.last = c", "set p.last = p")
    tables = api.tables(compile_text(bad, "take.soan"), 2, engine=engine)
    with pytest.raises(SpecRuntimeError) as e:
        api.play(tables, 1, ["random"] * 2)
    assert "outside its domain card" in e.value.message
    assert e.value.span.line == bad.splitlines().index("      set p.last = p") + 1


TALLY = """
game "Straight scoring" players 3..3
component chip { worth: 1..3 }
cards chip in pile {
  1 x worth = 1
  1 x worth = 2
  1 x worth = 3
}
zone pile: shared public unordered
zone kept: per_player public unordered
score base
score bonus
procedure reward(p, n) {
  award n to p for bonus
  if n > 4 {
    say "{p} gets a big bonus"
  }
}
setup {
  for c in pile {
    move c to player(c.worth).kept
  }
}
rounds 1 {
}
scoring {
  phase tally "tally" {
    for p in players {
      let total = sum(c.worth for c in p.kept)
      award total to p for base
      do reward(p, total * 2)
    }
  }
}
winner among p in players by vp(p) desc else shared
"""


def test_a_straight_run_is_one_generated_function_that_scores_as_the_closures_do():
    """Player k keeps the chip worth k and scores k, then a bonus of 2k through a procedure (a big-bonus line
    for 6): the compiled engine runs the tally as one generated function naming its spec lines, and its
    result and account equal the closure engine's."""
    spec = compile_text(TALLY, "tally.soan")
    compiled, closures = api.tables(spec, 3, engine="compiled"), api.tables(spec, 3, engine="closures")
    a, b = api.play(compiled, 1, ["random"] * 3, narrate=True), api.play(closures, 1, ["random"] * 3, narrate=True)
    assert a.result["breakdown"] == {"P1": {"base": 1, "bonus": 2}, "P2": {"base": 2, "bonus": 4},
                                     "P3": {"base": 3, "bonus": 6}}
    assert a.result["winners"] == ["P3"]
    assert a.log == b.log and a.state.events == b.state.events
    assert ("say", "P3 gets a big bonus") in a.state.events
    runs = [src for src in compiled.rules.x.sources if src.startswith("def r")]
    tally = next(src for src in runs if 'phase tally "tally"' in src.splitlines()[1])
    assert "for _L" in tally and "tally.soan:31: do reward(p, total * 2)" in tally
    assert "tally.soan:14: award n to p for bonus" in tally  # the procedure written out in place


def test_a_straight_loop_counts_its_passes_against_the_step_budget(monkeypatch):
    """With a budget of 10 loop passes, 4 x 3 nested passes stop on the 11th pass, in the inner loop
    (1 + 2 + 3 + 3 + 2 passes counted, the first pass of a loop not counted), on both engines."""
    import soan.interpreter.compile as compile_mod
    import soan.interpreter.state as state_mod
    import soan.interpreter.stmtgen as stmtgen_mod
    for mod in (compile_mod, state_mod, stmtgen_mod):
        monkeypatch.setattr(mod, "MAX_LOOP_PASSES", 10)
    text = TALLY.replace("  for c in pile {\n    move c to player(c.worth).kept\n  }",
                         '  for x in 1..4 {\n    for y in 1..3 {\n      say "{x} {y}"\n    }\n  }')
    inner = text.splitlines().index("    for y in 1..3 {") + 1
    for engine in ("compiled", "closures"):
        tables = api.tables(compile_text(text, "loops.soan"), 3, engine=engine)
        with pytest.raises(SpecRuntimeError) as e:
            api.play(tables, 1, ["random"] * 3)
        assert "more than 10 times and was stopped in this for loop" in e.value.message
        assert e.value.span.line == inner


LEVELS = """
game "Levels" players 2..2
component chip { worth: 1..3
  state level: 0..3 = 0 }
cards chip in pile {
  1 x worth = 1
  1 x worth = 2
  1 x worth = 3
}
zone pile: shared public unordered
zone kept: per_player public unordered
player { top: card = none
  rank: 0..9 = 0 }
score s
setup {
  move [c in pile where c.worth < 3] to player(1).kept
  for c in pile {
    set c.level = c.worth
    set player(2).top = c
    set player(2).rank = c.worth + 5
  }
}
rounds 1 {
}
scoring {
  for p in players {
    award count(p.kept) + p.rank to p for s
  }
}
winner among p in players by vp(p) desc else shared
"""


@pytest.mark.parametrize("engine", ["compiled", "closures"])
def test_sets_and_moves_inside_a_straight_run_store_what_the_rules_say(engine):
    """P1 takes the two chips worth under 3 (a list moved at once); the last chip gets level 3 and is P2's top,
    P2's rank 8: scores 2 and 8 on both engines."""
    tables = api.tables(compile_text(LEVELS, "levels.soan"), 2, engine=engine)
    r = api.play(tables, 1, ["random"] * 2)
    assert r.result["scores"] == {"P1": 2, "P2": 8}
    st = r.state
    last = st.pv["top"][1]
    assert tables.fields[last.id]["worth"] == 3 and st.cs["level"][last.id] == 3
    assert sorted(tables.fields[c]["worth"] for c in st.zones[tables.slot_of[("kept", 0)]]) == [1, 2]


@pytest.mark.parametrize("engine", ["compiled", "closures"])
@pytest.mark.parametrize("old, new, message", [
    ("set c.level = c.worth", "set c.level = c.worth + 1", "outside its domain 0..3"),
    ("set player(2).rank = c.worth + 5", "set player(2).rank = c.worth + 7", "outside its domain 0..9"),
    ("set player(2).top = c", "set c.worth = 2", "a chip card has no state 'worth'"),
    ("set player(2).top = c", "set c.worth.level = 2", "cannot set 'level' of 3"),
], ids=["card state", "player number", "fixed field", "not a card or player"])
def test_a_bad_set_inside_a_straight_run_is_a_located_error(engine, old, new, message):
    """A set that cannot be stored stops the game at its own line with the same message on both engines."""
    text = LEVELS.replace(old, new)
    tables = api.tables(compile_text(text, "levels.soan"), 2, engine=engine)
    with pytest.raises(SpecRuntimeError) as e:
        api.play(tables, 1, ["random"] * 2)
    assert message in e.value.message
    assert e.value.span.line == text.splitlines().index("    " + new) + 1


@pytest.mark.parametrize("engine", ["compiled", "closures"])
def test_awards_inside_a_straight_run_add_to_every_player_named_and_check_the_score_range(engine):
    """`award 1 to players` gives each player 1 on top of the tally (scores 3 and 9); a score declared 0..8
    stops the game at the award that would take P2 to 9."""
    text = LEVELS.replace("    award count(p.kept) + p.rank to p for s\n  }",
                          "    award count(p.kept) + p.rank to p for s\n  }\n  award 1 to players for s")
    r = api.play(api.tables(compile_text(text, "levels.soan"), 2, engine=engine), 1, ["random"] * 2)
    assert r.result["scores"] == {"P1": 3, "P2": 9}
    capped = text.replace("score s\n", "score s 0..8\n")
    with pytest.raises(SpecRuntimeError) as e:
        api.play(api.tables(compile_text(capped, "levels.soan"), 2, engine=engine), 1, ["random"] * 2)
    assert "P2's s score would become 9, outside its domain 0..8" in e.value.message
    assert e.value.span.line == capped.splitlines().index("  award 1 to players for s") + 1


def test_a_def_that_never_reaches_itself_is_called_with_its_arguments():
    """`def bonus(p, k) = count(p.kept) * k` becomes a function of its arguments and scores as the closures do
    (P1 keeps two chips: 2 x 3 = 6, P2 none; each also 1 for the chip left on top of the pile, on top of the
    tallies 2 and 8); a def whose body ranks (it needs the env) keeps the call with an env."""
    text = (LEVELS.replace("score s\n", "score s\ndef bonus(p, k) = count(p.kept) * k\n"
                                        "def top_chip = first(order c in pile by c.worth desc else stable)\n")
            .replace("  }\n}\nwinner", "    award count([top_chip]) + bonus(p, 3) to p for s\n  }\n}\nwinner"))
    spec = compile_text(text, "levels.soan")
    compiled, closures = api.tables(spec, 2, engine="compiled"), api.tables(spec, 2, engine="closures")
    a, b = api.play(compiled, 1, ["random"] * 2), api.play(closures, 1, ["random"] * 2)
    assert a.result["scores"] == {"P1": 9, "P2": 9} and a.log == b.log
    sources = "\n".join(compiled.rules.x.sources)
    assert "def _A_bonus(st, _a0, _a1):" in sources and "_A_bonus(st, " in sources
    assert "def _A_top_chip" not in sources and "_D_top_chip(st, {})" in sources


def test_a_symbol_choice_keys_its_moves_as_the_general_path_does_and_sorts_beside_numbers_and_players():
    """item_classes' inline path for a spec's words gives each the label and sort key fmt and symbol_rank give,
    so a choice mixing words and numbers still sorts (words after numbers, in their declared order)."""
    t = api.tables(api.load(str(KITANO)), 3)
    st = State(t).start()
    words = [v for e in t.spec.enums for v in e.values][:3]
    items = (*reversed(words), 2, 1)
    classes = item_classes(st, items, 0)
    for label, key, members in classes:
        x = members[0]
        if isinstance(x, str):
            assert (label, key) == (x, (2, t.symbol_rank(x)))
    order = [members[0] for _, _, members in sorted(classes, key=lambda c: c[1])]
    assert order == [1, 2, *words]
