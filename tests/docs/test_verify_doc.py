"""docs/verify.md's `--json` sample is a real run, cut down: the run it names is made again and must
give the same finding and summary (re-generate the sample with `python tests/docs/test_verify_doc.py`)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "verify.md"
# The run the sample shows: fixed work (--games), so its verdicts are the same on every machine.
COMMAND = ["verify", "specs/kitano-20.soan", "--players", "3", "--games", "40", "--json"]
KEPT = ("property", "subject", "verdict", "claim", "detail", "problem", "bounds", "witness", "moves", "depends_on")


def run_sample(tmp: Path) -> dict:
    """The JSON of COMMAND run from the repository root, witnesses written under `tmp`."""
    from soan.cli import main

    out = tmp / "verify.json"
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        saved = sys.stdout
        with out.open("w", encoding="utf-8") as f:
            sys.stdout = f
            try:
                main(COMMAND + ["--witness-dir", str(tmp / "soan-witnesses")])
            finally:
                sys.stdout = saved
    finally:
        os.chdir(cwd)
    return json.loads(out.read_text(encoding="utf-8"))


def sample_text(result: dict) -> str:
    """The sample as the doc shows it: the head, the total score finding, the summary."""
    total = next(f for f in result["findings"] if f["property"] == "score" and f["subject"] == "total")
    finding = {k: total[k] for k in KEPT}
    if finding["witness"]:
        finding["witness"] = "soan-witnesses/kitano-20-p3/" + Path(finding["witness"]).name
    lines = ["{", '  "soan_verify": 1,',
             f'  "spec": {json.dumps(result["spec"], ensure_ascii=False)},',
             f'  "players": {result["players"]},',
             f'  "budget_seconds": {json.dumps(result["budget_seconds"])},',
             '  "search": {"games": %d, "seconds": ..., "seed": %d},' % (result["search"]["games"], result["search"]["seed"]),
             '  "findings": [', "    {"]
    body = [f"      {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in finding.items()]
    lines += [",\n".join(body), "    },", "    ...", "  ],",
              f'  "summary": {json.dumps(result["summary"])}', "}"]
    return "\n".join(lines)


def doc_sample() -> str:
    text = DOC.read_text(encoding="utf-8")
    return re.search(r"## `--json`.*?```json\n(.*?)\n```", text, re.S).group(1)


@pytest.mark.slow
def test_the_verify_json_sample_is_what_the_run_gives(tmp_path):
    """The sample in docs/verify.md is the named run's total score finding and summary, as the run gives them now."""
    assert doc_sample() == sample_text(run_sample(tmp_path))


if __name__ == "__main__":  # write the sample into the doc from a fresh run
    import tempfile

    new = sample_text(run_sample(Path(tempfile.mkdtemp())))
    text = DOC.read_text(encoding="utf-8")
    DOC.write_text(text.replace(doc_sample(), new), encoding="utf-8")
    print(new)
