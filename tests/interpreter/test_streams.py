"""Per-purpose random streams: the same draws for the same purposes whatever
else a draft changes, logs of format 2 written byte for byte, format 1 still read."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from pathlib import Path

import pytest

from soan import api
from soan.interpreter.play import LOG_FORMAT
from soan.interpreter.streams import Streams, keyed_choice, uniform

ROOT = Path(__file__).resolve().parents[2]
LOGS = Path(__file__).parent / "logs"

BASE = """\
game "Streams" draft 1 players 2..2

enum colour = red, blue, green, gold
component tile {{ colour: colour }}
cards tile in bag {{ 3 x each colour }}
zone bag: shared hidden stack
zone row: shared public row
score pts "points" 0..10
{extra}
setup {{
  {shuffles}
  for p in players {{ draw 2 from bag to row }}
}}

rounds 1 {{
  for p in players {{
    choose t from row by p "takes a tile" {{ award 1 to p for pts  move t to bag }}
  }}
}}

winner among p in players by vp(p) desc else draw
"""


def spec_text(shuffles="shuffle bag", extra="") -> str:
    return BASE.format(shuffles=shuffles, extra=extra)


def load(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return api.load(p)


def chance_outcomes(rec) -> list:
    return [s["outcome"] for s in rec.log["steps"] if "chance" in s]


def test_the_same_purpose_draws_the_same_and_another_purpose_draws_afresh():
    """A stream's draw depends only on its name: the same name gives the same number, another name another."""
    assert uniform("soan/1/roll/die/r1/1") == uniform("soan/1/roll/die/r1/1")
    assert uniform("soan/1/roll/die/r1/1") != uniform("soan/1/roll/die/r1/2")
    assert 0 < uniform("x") < 1


def test_a_keyed_choice_keeps_its_move_while_it_stays_legal():
    """The random bot's keyed choice is the same move after other moves are added or removed."""
    labels = [f"move {i}" for i in range(12)]
    i = keyed_choice("soan/3/bot/0/r1/takes/1", labels)
    chosen = labels[i]
    others = [lab for lab in labels if lab != chosen]
    smaller = others[:5] + [chosen] + others[5:8]
    assert smaller[keyed_choice("soan/3/bot/0/r1/takes/1", smaller)] == chosen
    assert list(reversed(labels))[keyed_choice("soan/3/bot/0/r1/takes/1", list(reversed(labels)))] == chosen


def test_keyed_choices_are_uniform():
    """Over many decisions every one of four moves is taken about a quarter of the time."""
    counts = Counter(keyed_choice(f"soan/{s}/bot/0/r1/x/1", ["a", "b", "c", "d"]) for s in range(4000))
    assert all(850 < counts[i] < 1150 for i in range(4)), counts


def test_a_keyed_choice_takes_the_move_with_the_smallest_key():
    """The keyed choice is the move whose key uniform(stream/label) is smallest, equal labels numbered #2, #3, ...."""
    rng = random.Random(5)
    for k in range(300):
        labels = [f"m{rng.randrange(12)}" for _ in range(rng.randrange(1, 20))]
        base = f"soan/{k}/bot/1/r2/takes/1"
        seen: Counter = Counter()
        keys = []
        for lab in labels:
            seen[lab] += 1
            keys.append(uniform(f"{base}/{lab}" if seen[lab] == 1 else f"{base}/{lab}#{seen[lab]}"))
        assert keyed_choice(base, labels) == keys.index(min(keys))


def test_a_keyed_choice_whose_smallest_keys_round_alike_takes_the_first_of_them(monkeypatch):
    """Where two digests give the same number the earlier move is taken, as comparing the numbers does."""
    import soan.interpreter.streams as streams

    monkeypatch.setattr(streams, "_digest_uniform", lambda d: d[0] // 64)  # coarse numbers: ties are common
    rng = random.Random(9)
    for k in range(300):
        labels = [f"move {i}" for i in range(rng.randrange(2, 12))]
        base = f"soan/{k}/bot/0/r1/x/1"
        coarse = [streams._digest_uniform(hashlib.blake2b(f"{base}/{lab}".encode(), digest_size=8).digest())
                  for lab in labels]
        assert keyed_choice(base, labels) == coarse.index(min(coarse))


def test_a_comment_and_a_duplicated_shuffle_change_no_draw(tmp_path):
    """A draft with a comment and its deck shuffled twice plays exactly the same games, log for log."""
    a = api.tables(load(tmp_path, "a.soan", spec_text()), 2)
    b = api.tables(load(tmp_path, "b.soan", "# a note for the printer\n" + spec_text("shuffle bag\n  shuffle bag")), 2)
    for seed in range(5):
        ra, rb = api.play(a, seed, ["random"] * 2), api.play(b, seed, ["random"] * 2)
        moves_a = [s for s in ra.log["steps"] if "move" in s]
        moves_b = [s for s in rb.log["steps"] if "move" in s]
        assert moves_a == moves_b and ra.result == rb.result
        assert chance_outcomes(rb)[0] == chance_outcomes(ra)[0]
        assert chance_outcomes(rb)[1] == list(range(12)), "shuffling an untouched shuffled zone keeps its order"


def test_a_shuffle_keeps_the_other_cards_in_order_when_one_is_gone(tmp_path):
    """Removing a card before a shuffle leaves the relative order of the other cards as it was."""
    tables = api.tables(load(tmp_path, "a.soan", spec_text()), 2)
    from soan.interpreter.state import State

    st = State(tables).start()
    full = list(st.zones[st.pending.target])
    order_full = [full[i] for i in Streams(4).chance(st)]
    st2 = State(tables).start()
    slot = st2.pending.target
    gone = st2.zones[slot].pop(5)
    order_less = [st2.zones[slot][i] for i in Streams(4).chance(st2)]
    assert order_less == [c for c in order_full if c != gone]


def test_shuffles_are_uniform_over_seeds(tmp_path):
    """The first card after a shuffle is each of the four colours about a quarter of the time."""
    tables = api.tables(load(tmp_path, "a.soan", spec_text()), 2)
    from soan.interpreter.state import State

    counts = Counter()
    for seed in range(1200):
        st = State(tables).start()
        st.apply_chance(Streams(seed).chance(st))
        counts[tables.card_labels[st.zones[st.t.zone_slots.index(next(z for z in st.t.zone_slots
                                                                       if z[0].name == "bag"))][0]]] += 1
    assert len(counts) == 4 and all(230 < c < 370 for c in counts.values()), counts


def test_same_spec_seed_and_bots_give_the_same_log_byte_for_byte():
    """The logs of the current format shipped in tests are what playing their seed and bots writes today, byte for byte."""
    for path in sorted(LOGS.glob(f"*-format{LOG_FORMAT}.json")):
        log = json.loads(path.read_text(encoding="utf-8"))
        spec = api.load(ROOT / log["spec"]["path"])
        rec = api.play(api.tables(spec, log["players"]), log["seed"], log["bots"])
        rec.log["spec"]["path"] = log["spec"]["path"]
        assert rec.to_json() == path.read_text(encoding="utf-8"), path.name


@pytest.mark.parametrize("fmt", [1, 2, LOG_FORMAT])
def test_logs_of_every_format_still_replay(fmt):
    """Shipped logs of format 1 (one chance generator), 2 (the first streams) and the current format all replay to their results."""
    logs = [p for p in sorted(LOGS.glob("*.json")) if json.loads(p.read_text(encoding="utf-8"))["soan_log"] == fmt]
    assert logs, f"a shipped log of format {fmt}"
    for path in logs:
        log = api.load_log(path)
        spec = api.load(ROOT / log["spec"]["path"])
        st = api.replay(api.tables(spec, log["players"]), log)
        assert st.result == log["result"]
