"""The token proofs of a verify run (verify/supplies.py): worked out once a run and remembered on the
Verifier, and the turn-planned search's process started only where a token's proofs leave that search
to be taken (the kitchen spec of test_turn_plan: with 6 marks, of which 7 can be out, the search is
wanted and finds the shortage; with 7 the cards prove the supply, so no process is started)."""

from __future__ import annotations

from pathlib import Path

from soan.verify import properties, supplies
from soan.verify.background import Background

from tests.verify.test_turn_plan import _tables


class _Spy(Background):
    """A Background that remembers whether it was asked to start a process."""

    def __init__(self, fn, enabled=True):
        self.asked = enabled
        super().__init__(fn, enabled)


def _run(monkeypatch, supply: int, jobs: int, tmp_path: Path):
    monkeypatch.setattr(properties, "Background", _Spy)
    calls: list[str] = []
    prove = supplies._prove_token

    def counted(v, name, size):
        calls.append(name)
        return prove(v, name, size)
    monkeypatch.setattr(supplies, "_prove_token", counted)
    v = properties.Verifier(_tables(supply), 600, 0, tmp_path / f"w{supply}-{jobs}", max_games=8, jobs=jobs)
    found, _ = v.run({"supplies"})
    return v, {f.subject: f for f in found}, calls


def test_each_token_proof_is_worked_out_once_a_run(monkeypatch, tmp_path):
    """With 6 marks at two jobs, the mark's proofs are worked out once (for the choice of the tokens to plan, the planning process and check() alike), and the planned game shows the supply short."""
    v, found, calls = _run(monkeypatch, 6, 2, tmp_path)
    assert calls == ["mark"]
    assert v._plans.asked is True
    assert found["mark"].verdict == "witnessed"


def test_no_planning_process_where_no_token_wants_one(monkeypatch, tmp_path):
    """With 7 marks the cards prove the supply: no planning process is started, and the proof is reported as before."""
    v, found, calls = _run(monkeypatch, 7, 2, tmp_path)
    assert calls == ["mark"]
    assert v._plans.asked is False
    assert found["mark"].verdict == "proved" and found["mark"].bounds == {"supply": 7, "most_out": 7}


def test_the_remembered_proof_gives_each_caller_a_finding_of_its_own(monkeypatch, tmp_path):
    """Two askings for a proved token's proof give equal findings that are not the same object (one changed leaves the other)."""
    v, _, _ = _run(monkeypatch, 7, 1, tmp_path)
    a, b = supplies._token_proof(v, "mark", 7)[3], supplies._token_proof(v, "mark", 7)[3]
    assert a == b and a is not b and a.bounds is not b.bounds


def test_one_and_two_jobs_give_the_same_supplies_findings(monkeypatch, tmp_path):
    """With 6 marks, the planned games taken from the process (two jobs) give the findings of one job, witness file aside."""
    _, one, _ = _run(monkeypatch, 6, 1, tmp_path)
    _, two, _ = _run(monkeypatch, 6, 2, tmp_path)
    strip = lambda f: {**f.to_json(), "witness": f.witness and Path(f.witness).name}  # noqa: E731
    assert {k: strip(f) for k, f in one.items()} == {k: strip(f) for k, f in two.items()}
