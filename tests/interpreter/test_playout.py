"""Playout policies of the tree search: a small game whose best play is known by hand."""

from __future__ import annotations

import json

import pytest

from soan import api
from soan.dsl import compile_text

# P1 plays safe (a point each: a draw) or risky (two points to P1, but then P2 may pounce for five and win).
# Eleven answers are open to P2 after a risky move and only one of them, the pounce, wins: random playouts
# seldom meet it, so risky looks like a near-certain win; any opponent who looks one step ahead pounces.
TRAP = """
game "Trap" players 2..2
global { risked: 0..1 = 0 }
score pts "points"
rounds 1 {
  for p in players where p.seat == 1 {
    choose by p "plays" {
      option safe { for q in players { award 1 to q for pts } }
      option risky { award 2 to p for pts  set risked = 1 }
    }
  }
  for p in players where p.seat == 2 {
    choose by p "answers" {
      option pounce when risked == 1 { award 5 to p for pts }
""" + "".join(f"      option {x} {{ award 0 to p for pts }}\n" for x in "abcdefghij") + """    }
  }
}
winner among p in players by vp(p) desc else draw
"""


def _first_moves(bot: str, text: str = TRAP, name: str = "trap.soan") -> list[str]:
    """The first move of `bot` (seat 1, against greedy) in ten seeded games of a trap spec, each game's winners checked."""
    t = api.tables(compile_text(text, name), 2)
    moves = []
    for seed in range(10):
        rec = api.play(t, seed, [bot, "greedy"])
        moves.append(rec.log["steps"][0]["move"])
        assert rec.result["winners"] == (["P1", "P2"] if moves[-1] == "safe" else ["P2"])
    return moves


def test_greedy_playouts_see_the_trap_random_playouts_miss():
    """At ten playouts a decision, mcts with greedy playouts plays safe (a draw against greedy) in every game, while
    with random playouts it plays risky, and loses to greedy's pounce, in most of them."""
    assert _first_moves("mcts:10:4:greedy") == ["safe"] * 10
    assert _first_moves("mcts:10:4").count("risky") >= 8


def test_greedy_itself_walks_into_the_trap():
    """One step ahead, risky ends two points up, so greedy plays it and loses to the pounce every time."""
    assert _first_moves("greedy") == ["risky"] * 10


# P1 grabs two points at once or waits for one at the round's end; grabbing hands P2 five at the round's end.
# Between the choice and the round's end the seats take turns stalling, so a playout cut a decision or two after
# the move sees the grab's two points and not its price; one cut at the end of the round sees both.
LATE = """
game "Late" players 2..2
global { grabbed: 0..1 = 0 }
score pts "points"
rounds 2 {
  set grabbed = 0
  for p in players where p.seat == 1 {
    choose by p "plays" {
      option grab { award 2 to p for pts  set grabbed = 1 }
      option wait { }
    }
  }
  for q in players {
    for p in players {
      choose by p "stalls" { option a { } option b { } }
    }
  }
  for p in players where p.seat == 2 {
    if grabbed == 1 { award 5 to p for pts }
  }
  for p in players where p.seat == 1 {
    if grabbed == 0 { award 1 to p for pts }
  }
}
winner among p in players by vp(p) desc else draw
"""


def _late_first_moves(bot: str) -> list[str]:
    t = api.tables(compile_text(LATE, "late.soan"), 2)
    moves = []
    for seed in range(10):
        rec = api.play(t, seed, [bot, "greedy"])
        moves.append(rec.log["steps"][0]["move"])
        assert rec.result["winners"] == (["P1"] if moves[-1] == "wait" else ["P2"])
    return moves


@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_playouts_cut_at_the_round_end_see_the_price_a_cut_mid_round_misses(policy):
    """With playouts cut at the end of the round (`r1`) mcts waits and wins in every game; cut a decision after the
    move leaves the tree, the price falls after the cut, so it grabs and loses, as greedy does."""
    assert _late_first_moves(f"mcts:10:r1:{policy}") == ["wait"] * 10
    assert _late_first_moves(f"mcts:10:1:{policy}") == ["grab"] * 10
    assert _late_first_moves("greedy") == ["grab"] * 10


@pytest.mark.parametrize("name, words", [("mcts:5:5:wild", "playout policy is one of random, greedy"),
                                          ("mcts:5:5:greedy:1", "one option after the playout policy is topK"),
                                          ("mcts:5:5:mast:top0", "one option after the playout policy is topK"),
                                          ("mcts:5:5:mast:top3:top3", "one option after the playout policy is topK"),
                                          ("mcts:5:r0", "r1: to the end of the round"),
                                          ("mcts:5:rx:greedy", "r1: to the end of the round")])
def test_a_bad_playout_policy_is_refused(name, words):
    """An unknown playout policy, an unknown, zero or second option after it, or a depth in rounds below r1, is
    refused with what mcts takes."""
    message, hint = api.bot_problem(name)
    assert words in message + " " + hint


# The trap again, with the pounce eight stalling decisions after the risky move, past where a small tree reaches,
# and three other answers: a random playout pounces one time in four, so risky looks like a likely win. A seat
# that remembers which of its replies have paid (the mast policy) pounces once it has seen the pounce pay.
SLOW_TRAP = """
game "Slow trap" players 2..2
global { risked: 0..1 = 0 }
score pts "points"
rounds 1 {
  for p in players where p.seat == 1 {
    choose by p "plays" {
      option safe { for q in players { award 1 to q for pts } }
      option risky { award 2 to p for pts  set risked = 1 }
    }
  }
  for r in players {
    for q in players {
      for p in players {
        choose by p "stalls" { option x { } option y { } }
      }
    }
  }
  for p in players where p.seat == 2 {
    choose by p "answers" {
      option pounce when risked == 1 { award 5 to p for pts }
      option a { } option b { } option c { }
    }
  }
}
winner among p in players by vp(p) desc else draw
"""


def _slow_trap_first_moves(bot: str) -> list[str]:
    return _first_moves(bot, SLOW_TRAP, "slow_trap.soan")


def test_mast_playouts_learn_the_reply_random_playouts_miss():
    """At 25 playouts a decision (playouts to the end), mcts with mast playouts plays safe (a draw against greedy) in
    every game; with random playouts it plays risky, and loses to greedy's pounce, in most of them."""
    assert _slow_trap_first_moves("mcts:25:1000:mast") == ["safe"] * 10
    assert _slow_trap_first_moves("mcts:25:1000").count("risky") >= 6


def test_a_mast_game_is_the_same_game_twice():
    """Two plays of one seed with mcts's mast policy in a seat write the same log, byte for byte."""
    t = api.tables(compile_text(SLOW_TRAP, "slow_trap.soan"), 2)
    logs = [api.play(t, 3, ["mcts:25:1000:mast", "mcts:8:4:mast"]).log for _ in range(2)]
    assert json.dumps(logs[0], sort_keys=True) == json.dumps(logs[1], sort_keys=True)


# P1 takes a point (`good`) or one of eleven options worth nothing, then each seat stalls twice. Greedy takes the
# point at once; a search of three playouts cannot even try the twelve moves.
PICK = """
game "Pick" players 2..2
score pts "points"
rounds 1 {
  for p in players where p.seat == 1 {
    choose by p "plays" {
      option good { award 1 to p for pts }
""" + "".join(f"      option {x} {{ }}\n" for x in "abcdefghijk") + """    }
  }
  for q in players {
    for p in players {
      choose by p "stalls" { option x { } option y { } }
    }
  }
}
winner among p in players by vp(p) desc else draw
"""


def _pick_first_moves(bot: str) -> list[str]:
    t = api.tables(compile_text(PICK, "pick.soan"), 2)
    return [api.play(t, seed, [bot, "random"]).log["steps"][0]["move"] for seed in range(10)]


def test_a_search_of_greedys_top_moves_keeps_greedys_move_where_it_cannot_tell():
    """With three playouts a decision and twelve moves, mcts searching greedy's three best root moves (`top3`) takes
    the point in every game, as greedy does; without the option it tries three of the twelve and mostly misses it."""
    assert _pick_first_moves("greedy") == ["good"] * 10
    assert _pick_first_moves("mcts:3:1000:mast:top3") == ["good"] * 10
    assert _pick_first_moves("mcts:3:1000:mast").count("good") <= 4


def test_a_search_of_greedys_top_moves_overrules_greedy_where_the_playouts_see_further():
    """On the slow trap, where greedy plays risky and loses every game, mcts with mast playouts searching greedy's two
    best root moves (`top2`: both) plays safe, a draw, in every game."""
    assert _slow_trap_first_moves("greedy") == ["risky"] * 10
    assert _slow_trap_first_moves("mcts:25:1000:mast:top2") == ["safe"] * 10


@pytest.mark.parametrize("bots", [["mcts:25:1000:mast:top2", "mcts:8:4:mast:top1"],
                                  ["mcts:9:r1:random:top3", "mcts:6:2:greedy:top2"]])
def test_a_game_with_a_top_option_is_the_same_game_twice(bots):
    """Two plays of one seed with mcts's topK option in both seats write the same log, byte for byte."""
    t = api.tables(compile_text(SLOW_TRAP, "slow_trap.soan"), 2)
    logs = [api.play(t, 3, bots).log for _ in range(2)]
    assert json.dumps(logs[0], sort_keys=True) == json.dumps(logs[1], sort_keys=True)
