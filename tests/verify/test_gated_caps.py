"""A card state capped lower while one of its yes/no states is false (verify/gated_caps.py), read by a
sum that fixes that state (verify/rare_states.py), on a small spec whose answer is known by hand,
with variants that must not tighten; every game is played (exhaustive) and none scores above the
proved maximum."""

from __future__ import annotations

from test_score_bounds import proved_and_best

# Each player's 2 gems rise a level a round while below 1 (2 when shiny); one gem of the table is
# polished in round 1.  Points: a shiny gem's level x 2, another's x 1: at most 2 x 2 + 1 = 5 (not 6,
# which counts an unpolished gem up to level 2).
GATED = """game "Gated" players 2..2
component gem "gem" { cap: 1..1 = 1
  state shiny: bool = false
  state level: 0..3 = 0 }
zone gems: per_player public unordered
cards gem per player in gems { 2 x cap = 1 }
score points "points"
def limit(c) = c.cap + (if c.shiny then 1 else 0)
procedure polish(p) { choose c from p.gems by p "polishes a gem" { set c.shiny = true } }
procedure heat(p) {
  for c in p.gems {
    if c.level < limit(c) { set c.level += 1 }
  }
}
rounds 3 {
  if round == 1 { do polish(first(players)) }
  for p in players { do heat(p) }
}
scoring { for p in players { award sum((if c.shiny then 2 else 1) * c.level for c in p.gems) to p for points } }
winner among p in players by vp(p) desc else shared
"""


def test_a_level_raised_under_a_limit_that_reads_the_flag_is_capped_lower_while_the_flag_is_false():
    """An unpolished gem rises only to 1: at most 2 x 2 + 1 = 5 (not 6), and a game reaches 5."""
    assert proved_and_best(GATED, "points") == (5, 5)


def test_a_flag_cleared_while_the_level_stays_is_not_read_so():
    """When round 3 takes the polish off every gem and leaves its level at 2, an unpolished gem can hold
    2: a game scores 3 x 2 + 3 = 9 with unpolished gems worth 3 a level, so no lower cap (which would
    say 6) is used."""
    spec = GATED.replace("  for p in players { do heat(p) }\n}",
                         "  if round == 3 { for p in players { for c in p.gems { set c.shiny = false } } }\n"
                         "  for p in players { do heat(p) }\n}")
    spec = spec.replace("(if c.shiny then 2 else 1)", "(if c.shiny then 1 else 3)")
    assert proved_and_best(spec, "points") == (12, 9)


def test_a_flag_cleared_right_after_the_level_is_put_down_keeps_the_cap():
    """When round 3 first puts every gem's level back to 0 and then takes the polish off, an unpolished
    gem still holds at most 1: the bound stays 5 (games reach 2)."""
    spec = GATED.replace("  for p in players { do heat(p) }\n}",
                         "  if round == 3 { for p in players { for c in p.gems { set c.level = 0\n"
                         "    set c.shiny = false } } }\n  for p in players { do heat(p) }\n}")
    assert proved_and_best(spec, "points") == (5, 2)
