"""Bots that play to win: small games whose best play is known by hand."""

from __future__ import annotations

import random

import pytest

from soan import api
from soan.dsl import compile_text
from soan.interpreter.bots import BotInput, GreedyBot, determinize, make_bot
from soan.interpreter.evaluate import evaluator
from soan.interpreter.mcts import MCTSBot
from soan.interpreter.state import CHANCE, State

# Lowest total wins: each player in turn takes one public chip and scores its value.
LOWEST = """
game "Fewest" players 2..2
component chip { value: 1..9 }
cards chip in row { 1 x value = 1  1 x value = 4  1 x value = 6  1 x value = 9 }
zone row: shared public unordered
zone kept: per_player public unordered
score pts "points"
rounds 2 {
  for p in players {
    choose c from row by p "takes" { move c to p.kept  award c.value to p for pts }
  }
}
winner among p in players by vp(p) ASC else draw
"""

# Add one or two to a shared count; whoever makes it exactly 4 wins at once.
RACE = """
game "Race to four" players 2..2
global { total: 0..4 = 0 }
score pts "points"
rounds until total >= 4 cap 8 {
  for p in players {
    if total < 4 {
      choose by p "adds" {
        option one { set total += 1 }
        option two when total <= 2 { set total += 2 }
      }
      if total == 4 { win p }
    }
  }
}
winner among p in players by vp(p) desc else draw
"""

# Work for a point, or strike: the other player is out of the game (as in Love Letter, the last one left wins).
STRIKE = """
game "Strike" players 2..2
score pts "points"
setup { for p in players where p.seat == 2 { award 3 to p for pts } }
rounds 2 {
  for p in players {
    if not p.eliminated {
      choose by p "acts" {
        option work { award 1 to p for pts }
        option strike { for q in players where q != p and not q.eliminated { eliminate q } }
      }
    }
  }
}
winner among p in players where not p.eliminated by vp(p) desc else draw
"""

# One tile of four lies face down; P1 guesses its size and scores a point if right (three of the four are small).
GUESS = """
game "Guess" players 2..2
enum size = small, large
component tile { size: size }
cards tile in deck { 3 x size = small  1 x size = large }
zone deck: shared hidden stack
zone secret: shared hidden stack
score pts "points"
setup { shuffle deck  draw 1 from deck to secret facedown }
rounds 1 {
  for p in players where p.seat == 1 {
    choose s from [small, large] by p "guesses" {
      if s == first(secret).size { award 1 to p for pts }
    }
  }
}
winner among p in players by vp(p) desc else draw
"""


def _tables(text: str, n: int = 2):
    return api.tables(compile_text(text.replace("ASC", "asc"), "t.soan"), n)


def _moves(rec, seat: int) -> list[str]:
    return [s["move"] for s in rec.log["steps"] if s.get("player") == seat]


@pytest.mark.parametrize("bot", ["greedy", "mcts:200"])
def test_in_a_lowest_wins_game_the_bots_take_the_smallest_chip(bot):
    """Where the lowest total wins, greedy and mcts take the smallest chip left, never the largest."""
    t = _tables(LOWEST)
    for seed in range(3):
        rec = api.play(t, seed, [bot, bot])
        taken = [s["move"] for s in rec.log["steps"] if "move" in s]
        assert taken == ["chip(1)", "chip(4)", "chip(6)", "chip(9)"]
        assert rec.result["winners"] == ["P1"]  # 1 + 6 against 4 + 9: the first mover, taking the smallest, wins


def test_the_evaluation_follows_the_winner_line_direction():
    """The same final scores are a win for the lower seat when lowest wins, and for the higher when highest wins."""
    for text, winner in ((LOWEST, 0), (LOWEST.replace("ASC", "desc"), 1)):
        t = api.tables(compile_text(text.replace("ASC", "asc"), "t.soan"), 2)
        st = State(t).start()
        st.vp["pts"] = [3, 8]
        o = evaluator(t).outcome(st)
        assert o.share[winner] == 1.0 and o.share[1 - winner] == 0.0
        assert o.key(winner) > o.key(1 - winner)


def test_greedy_takes_an_immediate_win():
    """Greedy, at a count of 2, adds two and wins at once rather than adding one."""
    t = _tables(RACE)
    st = State(t).start()
    st.apply(0)  # P1 adds one (total 1)
    st.apply(0)  # P2 adds one (total 2)
    labels = [m.label for m in st.legal_moves()]
    bot = GreedyBot(0, random.Random(0))
    info = BotInput(0, lambda: st.view(0), labels, lambda rng: determinize(st, 0, rng), "s", random.Random(1))
    assert labels[bot.choose(info)] == "two"


def test_mcts_finds_the_winning_first_move_of_the_race():
    """From a count of 0, adding one leaves the opponent at 1, a lost position (3 from the goal); mcts finds it and wins."""
    t = _tables(RACE)
    for seed in range(3):
        rec = api.play(t, seed, ["mcts:300", "mcts:300"])
        assert _moves(rec, 1)[0] == "one"
        assert rec.result["winners"] == ["P1"]


@pytest.mark.parametrize("bot", ["greedy", "mcts:200"])
def test_the_player_behind_knocks_the_leader_out(bot):
    """P1, three points behind, strikes at once and wins as the last one left (a strike scores nothing, so a bot
    valuing its own score would work instead)."""
    t = _tables(STRIKE)
    for seed in range(2):
        rec = api.play(t, seed, [bot, bot])
        assert _moves(rec, 1)[0] == "strike"
        assert rec.result["eliminated"] == ["P2"] and rec.result["winners"] == ["P1"]


def test_bots_keep_to_their_view_of_a_hidden_card():
    """P1 cannot see the face-down tile: mcts guesses small (3 in 4) even when the tile is large, while the same bot
    given the real state would guess large; so its choice does not come from the hidden card."""
    t = _tables(GUESS)
    seen_large = 0
    for seed in range(12):
        st = State(t).start()
        rng = random.Random(seed)
        while st.current_player() == CHANCE:
            st.apply_chance(st.sample_chance(rng))
        if not _large_secret(st):
            continue
        seen_large += 1
        labels = [m.label for m in st.legal_moves()]
        honest = BotInput(0, lambda: st.view(0), labels, lambda r: determinize(st, 0, r), "s", random.Random(seed))
        cheat = BotInput(0, lambda: st.view(0), labels, lambda r: st.clone(), "s", random.Random(seed))
        assert labels[MCTSBot(0, random.Random(0), playouts=200).choose(honest)] == "small"
        assert labels[MCTSBot(0, random.Random(0), playouts=200).choose(cheat)] == "large"
    assert seen_large >= 1


def _large_secret(st) -> bool:
    slot = st.t.slot_of[("secret", -1)]
    return "large" in st.t.card_labels[st.zones[slot][0]]


def test_same_seed_and_bots_give_the_same_log():
    """An mcts game played twice on one seed writes the same log byte for byte."""
    t = _tables(LOWEST)
    assert api.play(t, 5, ["mcts:50", "greedy"]).to_json() == api.play(t, 5, ["mcts:50", "greedy"]).to_json()


def test_a_strategy_prefers_what_it_says_and_falls_back_elsewhere():
    """A declared strategy takes its preferred option wherever it is offered, and is refused as a bot name in a spec
    that does not declare it."""
    text = RACE + 'strategy plodder "always adds one" else mcts:50 { prefer option one }\n'
    t = api.tables(compile_text(text, "t.soan"), 2)
    rec = api.play(t, 0, ["plodder", "random"])
    assert set(_moves(rec, 1)) == {"one"}
    assert api.bot_problem("plodder", t.spec) is None
    assert api.bot_problem("plodder", _tables(RACE).spec) is not None
    assert make_bot("plodder", 0, random.Random(0), t).fallback.playouts == 50


def test_a_shared_win_is_worth_a_share_and_a_seat_the_line_leaves_out_ranks_last():
    """Tied winners under 'else shared' get 1/k each; a seat the winner line's 'where' leaves out is placed behind
    every candidate."""
    text = LOWEST.replace("ASC", "asc").replace("by vp(p) asc else draw", "where vp(p) > 0 by vp(p) asc else shared")
    t = api.tables(compile_text(text, "t.soan"), 2)
    st = State(t).start()
    st.vp["pts"] = [5, 5]
    o = evaluator(t).outcome(st)
    assert o.share == [0.5, 0.5]
    st.vp["pts"] = [0, 5]
    o = evaluator(t).outcome(st)
    assert o.share == [0.0, 1.0] and o.place == [1, 0]


@pytest.mark.parametrize("name, words", [("mcts:0", "whole numbers up to"), ("mcts:5:5:5", "playout policy"), ("greedy:5", "only mcts"),
                                          ("gredy", "did you mean 'greedy'?")])
def test_bad_bot_names_say_what_is_wrong(name, words):
    """A budget of 0, a number for the playout policy, a budget on a bot that takes none, and a misspelling are each refused plainly."""
    message, hint = api.bot_problem(name)
    assert words in message + " " + hint


def _determinize_by_card(state: State, seat: int, rng: random.Random) -> State:
    """determinize as first written (each re-dealt card's every state copied one by one, from copies of the columns
    made first): the reference the faster determinize must equal."""
    from soan.interpreter.runtime import CardRef
    from soan.interpreter.state import Decision

    s = state.clone()
    t = s.t
    bit = 1 << seat
    groups: dict[tuple, list[int]] = {}
    for cid in range(t.n_cards):
        if not s.viewers(cid) & bit:
            groups.setdefault((t.kind[cid], -1 if t.owner[cid] is None else t.owner[cid].i), []).append(cid)
    mapping = {}
    for ids in groups.values():
        if len(ids) < 2:
            continue
        perm = list(ids)
        rng.shuffle(perm)
        mapping.update((old, new) for old, new in zip(ids, perm) if old != new)
    if not mapping:
        return s
    old_loc, old_cs = list(s.loc), {k: list(v) for k, v in s.cs.items()}
    old_fd, old_known = list(s.facedown), list(s.known)
    for old, new in mapping.items():
        slot = old_loc[old]
        s.zones[slot][state.zones[slot].index(old)] = new
        s.loc[new] = slot
        for k in s.cs:
            s.cs[k][new] = old_cs[k][old]
        s.facedown[new], s.known[new] = old_fd[old], old_known[old]

    def remap(v):
        if type(v) is CardRef:
            return t.C[mapping.get(v.id, v.id)]
        return tuple(remap(x) for x in v) if type(v) is tuple else v

    for k, col in s.pv.items():
        s.pv[k] = [remap(v) for v in col]
    for k, v in s.gv.items():
        s.gv[k] = remap(v)
    envs = [f.env for f in s.frames] + ([s.pending.env] if isinstance(s.pending, Decision) else [])
    for env in {id(e): e for e in envs}.values():
        for k, v in env.items():
            env[k] = remap(v)
    for f in s.frames:
        if f.loop is not None and hasattr(f.loop, "items"):
            f.loop.items = remap(f.loop.items)
    return s


def test_determinize_deals_as_the_card_by_card_reference():
    """At every decision of random games of four shipped specs, determinize re-deals the hidden cards exactly as
    the card-by-card reference does with the same draws: zones, places, card states, face, sight, variables and
    the frames' locals, and the generator left in the same state; cards whose kind lacks a state keep none."""
    from gameplay import decision_states

    swapped = 0
    for spec, n in (("specs/kitano-20.soan", 4), ("specs/kitano-20.soan", 3), ("specs/hibachi.soan", 2),
                    ("specs/bbqp-9.soan", 3)):
        for k, st in enumerate(decision_states(spec, n, 5)):
            seat = st.pending.player
            a_rng, b_rng = random.Random(k), random.Random(k)
            a, b = determinize(st, seat, a_rng), _determinize_by_card(st, seat, b_rng)
            assert a.zones == b.zones and a.loc == b.loc and a.cs == b.cs and a.facedown == b.facedown
            assert a.known == b.known and a.pv == b.pv and a.gv == b.gv
            assert [f.env for f in a.frames] == [f.env for f in b.frames] and a.pending.env == b.pending.env
            assert a_rng.random() == b_rng.random()
            swapped += a.loc != st.loc
            t = st.t
            for name, col in a.cs.items():  # a state a card's kind lacks is none on every card of the kind
                assert all(v is None for cid, v in enumerate(col) if name not in t.kind_states[t.kind[cid]])
    assert swapped > 50
