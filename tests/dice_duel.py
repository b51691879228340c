"""A dice duel whose rulings have answers known by hand, shared by the tests of
soan rulings, verify's rulings property and examples that set a ruling."""

from __future__ import annotations

from soan import api

# Two players each roll the same die once.  A six scores 6, or nothing if
# six_is_zero says so: the ruling is read only when a six is rolled, and it
# flips the winner exactly when one player rolls a six and the other does not
# (2 * 1/6 * 5/6 = 10/36 of games; six against six is a draw either way).
DICE = """game "Dice duel" draft 1 players 2..3

enum answer = yes, no
enum tie_order = low_seat, high_seat
ruling six_is_zero: answer = no "Does a six score nothing? (test)" cite "none"
ruling cosmetic: answer = yes "Either answer does the same (test)" cite "none"
ruling unused: answer = yes "Nothing reads this (test)" cite "none"
{tie_ruling}component die { faces: 6..6 = 6  state face: 1..6 = 1 }
cards die in dice { 1 x faces = 6 }
zone dice: shared public unordered
player { tokens: 0..5 = 0 }
score pts "points" 0..6

rounds 1 {
  for p in players {
    roll first(dice)
    if first(dice).face == 6 {
      if six_is_zero == no { award 6 to p for pts }
    } else {
      award first(dice).face to p for pts
    }
    if cosmetic == yes { set p.tokens += 1 } else { set p.tokens += 1 }
  }
}

winner among p in players by vp(p) desc{tiebreak} else draw
"""


TIE_RULING = 'ruling tie_rule: tie_order = low_seat "Who wins a tie for first? (test)" cite "none"\n'


def dice_text(tiebreak: str = "") -> str:
    return DICE.replace("{tiebreak}", tiebreak).replace("{tie_ruling}", TIE_RULING if tiebreak else "")


def dice_spec(tiebreak: str = ""):
    return api.compile_text(dice_text(tiebreak), "dice.soan")
