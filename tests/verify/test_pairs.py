"""A count of matching pairs awarded once per card of a loop (verify/pairs.py), on a small spec
whose answer is known by hand, with cases where it must not apply; every game is played
(exhaustive) and none scores above the proved maximum."""

from __future__ import annotations

from test_score_bounds import proved_and_best

# Four badges on the table (3 red, 1 blue); each player takes two gems of six (3 red, 3 blue) and
# scores, per badge, the gems of its colour: at most 3 red badges x 2 red gems = 6.
PAIRS = """game "Pairs" players 2..2
enum colour = red, blue
component badge "badge" { colour: colour }
component gem "gem" { colour: colour }
zone badge_row: shared public unordered
zone gem_deck: shared public unordered
zone gems: per_player public unordered
cards badge in badge_row { 3 x colour = red
  1 x colour = blue }
cards gem in gem_deck { 3 x colour = red
  3 x colour = blue }
score pairs "pairs"
procedure take(p) { choose c from gem_deck by p "takes a gem" { move c to p.gems } }
procedure judge(p) {
  for s in badge_row { award count(m in p.gems where m.colour == s.colour) to p for pairs }
}
rounds 2 {
  for p in players { do take(p) }
}
scoring { for p in players { do judge(p) } }
winner among p in players by vp(p) desc else shared
"""


def test_pairs_are_counted_from_the_shorter_side():
    """Two gems a player, each matching at most the 3 red badges: at most 6 pairs (not 4 badges x 2
    gems = 8), and a game reaches 6."""
    assert proved_and_best(PAIRS, "pairs") == (6, 6)


def test_a_match_on_a_state_is_not_counted_so():
    """When the match is on a state (every badge's shade starts red), the pairs are not counted from the
    printed colours (that would say 6): the bound stays 8, and a game reaches 8."""
    spec = PAIRS.replace('component badge "badge" { colour: colour }',
                         'component badge "badge" { colour: colour\n  state shade: colour = red }')
    spec = spec.replace("m.colour == s.colour", "m.colour == s.shade")
    assert proved_and_best(spec, "pairs") == (8, 8)


def test_a_loop_that_moves_cards_is_not_counted_so():
    """When each badge's turn also hands a gem back and takes another, the gems counted differ from
    badge to badge: no pair bound (which would say 6)."""
    spec = PAIRS.replace("for p in players { do judge(p) }", "for p in players { do judge(p) }")
    spec = spec.replace("award count(m in p.gems where m.colour == s.colour) to p for pairs }",
                        "award count(m in p.gems where m.colour == s.colour) to p for pairs\n"
                        "    if count(p.gems) > 0 { move first(p.gems) to gem_deck }\n"
                        "    if count(gem_deck) > 0 { move first(gem_deck) to p.gems } }")
    hi, best = proved_and_best(spec, "pairs")
    assert hi > 6 and best <= hi
