"""A test read as a guard of later statements (verify/bounds.py, verify/guard_reads.py) stops being one
after a `set` of anything it reads, also when it reads it through a def (or a def calling one), and of
a spec variable; it stays one after a `set` of a field it does not read.  Small specs whose answer is
known by hand, every game played (exhaustive), none above the proved maximum."""

from __future__ import annotations

from soan import api
from soan.dsl import ir
from soan.verify.bounds import Bounds
from tests.verify.test_score_bounds import proved_and_best

# Each player holds one card whose level may be raised once a round for four rounds, only while it is
# below a limit read through a def; between the test and the raise the rules set one of the card's
# states (WHAT) to 3.  The limit `cap` starts at 2.
CAPS = """game "Caps" players 2..2
component card "card" {
  gauge: 1..3
  state cap: 1..5 = 2
  state mark: 0..5 = 0
  state level: 0..9 = 0
}
zone hand: per_player public unordered
cards card per player in hand { 1 x gauge = 2 }
global { spare: 0..5 = 2 }
score pts "pts"
def lim(x) = x.cap
def room(x) = lim(x) - x.level
rounds 4 {
  for p in players {
    for c in p.hand {
      choose by p "raises the card or not" {
        option raise { if GUARD { set WHAT = 3  set c.level += 1 } }
        option wait { }
      }
    }
  }
}
scoring { for p in players { award sum(c.level for c in p.hand) to p for pts } }
winner among p in players by vp(p) desc else shared
"""


def _spec(guard: str, what: str) -> str:
    return CAPS.replace("GUARD", guard).replace("WHAT", what)


def _guards_at_raise(text: str) -> tuple:
    """The tests Bounds reads as holding at the `set c.level += 1`."""
    b = Bounds(api.tables(api.compile_text(text, "t.soan"), 2))
    b.score_bounds()
    sites = [s for s in b.sites if isinstance(s.node, ir.Set) and s.node.op == "+="]
    assert len(sites) == 1
    return sites[0].guards


def test_a_test_read_through_a_def_stops_holding_after_a_set_of_the_field_the_def_reads():
    """`if c.level < lim(c)`, lim reading c.cap, then `set c.cap = 3`: the test is no guard of the raise."""
    guards = _guards_at_raise(_spec("c.level < lim(c)", "c.cap"))
    assert not any(isinstance(n, ir.Call) and n.func == "lim" for g in guards for n in ir.walk(g))


def test_a_test_read_through_a_def_calling_a_def_stops_holding_too():
    """`if room(c) > 0`, room calling lim which reads c.cap, then `set c.cap = 3`: no guard of the raise."""
    guards = _guards_at_raise(_spec("room(c) > 0", "c.cap"))
    assert not any(isinstance(n, ir.Call) and n.func == "room" for g in guards for n in ir.walk(g))


def test_a_test_read_through_a_def_still_holds_after_a_set_of_another_field():
    """`set c.mark = 3` between: the def's test still guards the raise, so the level is at most cap (2), as played."""
    text = _spec("c.level < lim(c)", "c.mark")
    guards = _guards_at_raise(text)
    assert any(isinstance(n, ir.Call) and n.func == "lim" for g in guards for n in ir.walk(g))
    assert proved_and_best(text, "pts") == (2, 2)


def test_a_test_of_a_spec_variable_stops_holding_after_a_set_of_it():
    """`if c.level < spare` then `set spare = 3`: the test no longer guards the raise (it read the variable before)."""
    guards = _guards_at_raise(_spec("c.level < spare", "spare"))
    assert not any(isinstance(n, ir.GlobalVar) for g in guards for n in ir.walk(g))


def test_the_level_bound_stays_sound_when_the_limit_read_through_a_def_is_raised_between():
    """The limit read through a def raised to 3 between test and raise: a game reaches 3, no proof says less."""
    for guard in ("c.level < lim(c)", "room(c) > 0", "c.level < c.cap"):
        hi, best = proved_and_best(_spec(guard, "c.cap"), "pts")
        assert best == 3 and hi >= 3, guard
