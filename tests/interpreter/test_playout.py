"""Playout policies of the tree search: a small game whose best play is known by hand."""

from __future__ import annotations

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


def _first_moves(bot: str) -> list[str]:
    t = api.tables(compile_text(TRAP, "trap.soan"), 2)
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


@pytest.mark.parametrize("name, words", [("mcts:5:5:wild", "playout policy is one of random, greedy"),
                                          ("mcts:5:5:greedy:1", "whole numbers")])
def test_a_bad_playout_policy_is_refused(name, words):
    """An unknown playout policy, or a fourth part after it, is refused with what mcts takes."""
    message, hint = api.bot_problem(name)
    assert words in message + " " + hint
