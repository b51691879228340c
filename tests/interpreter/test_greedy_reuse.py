"""Greedy scores a split move's end once: the last follow-up's best copy is the position the move ends in."""

from __future__ import annotations

import random

from soan import api
from soan.dsl import compile_text
from soan.interpreter.bots import BotInput, GreedyBot, determinize
from soan.interpreter.evaluate import Evaluator, evaluator
from soan.interpreter.state import State

# A move in two halves: P1 picks a colour, then a size; red-large is worth 5, anything else less.
# With `SCORING` the end-of-game scoring shuffles a deck (a chance event) before counting.
SPLIT = """
game "Split" players 2..2
enum colour = red, blue
enum size = small, large
component tile { n: 1..3 }
cards tile in deck { 1 x n = 1  1 x n = 2  1 x n = 3 }
zone deck: shared hidden stack
score pts "points"
rounds 1 {
  for p in players where p.seat == 1 {
    choose c from [red, blue] by p "colour" {
      choose s from [small, large] by p "size" {
        if c == red and s == large { award 5 to p for pts }
        elif c == red { award 1 to p for pts }
        else { award 2 to p for pts }
      }
    }
  }
}
SCORING
winner among p in players by vp(p) desc else draw
"""


def _choose(text: str, calls: list) -> str:
    """Greedy's first choice for P1, counting the evaluator's outcomes in `calls`."""
    t = api.tables(compile_text(text, "t.soan"), 2)
    st = State(t).start()
    labels = [m.label for m in st.legal_moves()]
    ev = evaluator(t)
    real = Evaluator.outcome

    def counted(self, *a, **k):
        calls.append(1)
        return real(self, *a, **k)

    Evaluator.outcome = counted
    try:
        bot = GreedyBot(0, random.Random(0))
        info = BotInput(0, lambda: st.view(0), labels, lambda rng: determinize(st, 0, rng), "s", random.Random(1))
        i = bot.choose(info)
    finally:
        Evaluator.outcome = real
    assert ev is evaluator(t)
    return labels[i]


def test_a_split_move_is_scored_once_per_follow_up_when_its_ending_draws_nothing():
    """Greedy picks red (then large, 5 points) scoring the four colour-size pairs once each, not each colour again."""
    calls: list = []
    assert _choose(SPLIT.replace("SCORING", ""), calls) == "red"
    assert len(calls) == 4  # two sizes after red, two after blue; the two colours' ends are those copies


def test_a_split_move_whose_ending_draws_is_scored_again():
    """Where the ending shuffles (a chance event), the end of each colour is scored again: same choice, two more outcomes."""
    calls: list = []
    scoring = "scoring { shuffle deck  for p in players { award 0 to p for pts } }"
    assert _choose(SPLIT.replace("SCORING", scoring), calls) == "red"
    assert len(calls) == 6
