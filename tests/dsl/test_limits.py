"""Limits when soan is used from Python: a spec too deep for the caller's recursion limit is a located problem."""

import sys

import pytest

from soan import api
from soan.dsl.errors import SpecErrors

TINY = '''game "Tiny" players 2..3
score pts "Points"
rounds 1 {
  for p in players { award 1 to p for pts }
}
winner among p in players by vp(p) desc else draw
'''


@pytest.fixture
def default_recursion_limit():
    """Python's default recursion limit (the soan command raises it for the whole process)."""
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(saved)


def test_a_deep_spec_from_python_is_a_problem_not_a_recursion_error(default_recursion_limit):
    """With Python's default recursion limit, 300 nested ifs give a located SpecErrors naming the limit, not a RecursionError."""
    text = TINY.replace("rounds 1 {", "rounds 1 {" + "if true {" * 300 + "}" * 300)
    with pytest.raises(SpecErrors) as info:
        api.compile_text(text, "deep.soan")
    assert "deep.soan:3:1: error:" in info.value.render() and "recursion limit" in info.value.render()
