"""The fuzz harness (issue 16): mutated shipped specs, random command lines and tampered logs.

The property (fuzzkit.check_outcome): exit code 0, 1 or 2; exit 2 with a located message or the option or
argument at fault named; no traceback or internal error; each case finishes within 10 s of CPU, 120 s of wall clock (the step budget stops
runaway games); the process's memory stays bounded.  A short run is in the fast tier; the slow tier runs
2,600 cases (800 specs, 1,200 command lines, 600 logs).  Every failure the harness finds becomes a fixed case in tests/soan/test_bad_input.py.
"""

from __future__ import annotations

import atexit
import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzzkit import ROOT, SPECS, soan_case

FAST = settings(max_examples=40, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW_SPECS = settings(FAST, max_examples=800)  # about 0.4 s each: checked, then played
SLOW_CLI = settings(FAST, max_examples=1200)
SLOW_LOGS = settings(FAST, max_examples=600)

WORK = Path(tempfile.mkdtemp(prefix="soan-fuzz-"))
atexit.register(shutil.rmtree, WORK, ignore_errors=True)
for _p in SPECS:  # the mutants sit next to copies of every spec, so their extend lines still find their base
    shutil.copy(_p, WORK)
TEXTS = {p: Path(p).read_text(encoding="utf-8") for p in SPECS}

# ---- mutations of the shipped specs --------------------------------------------------------------------------

TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\.\.|[=!<>+\-]=|//|\s+|.', re.S)
TOKENS = {p: TOKEN.findall(t) for p, t in TEXTS.items()}
EXTREME = ["0", "-1", "1000000", "1000001", "1" + "0" * 30, "-" + "9" * 12, "9" * 5000, "00", "-0"]
LOOKALIKE = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "i": "і", "s": "ѕ", "1": "１", "0": "０",
             "=": "＝", "{": "｛", ".": "．"}
INVISIBLE = ["\u200b", "\u00a0", "\ufeff", "\u202e", "\t", "\r", "\x00", "\x0c"]


def _words(tokens):
    return [i for i, t in enumerate(tokens) if not t.isspace() and not t.startswith("#")]


@st.composite
def mutation(draw, tokens):
    """One change to a token list: a swap, a deletion, a duplication, an extreme number, deep nesting or a look-alike."""
    kind = draw(st.sampled_from(["swap", "delete", "duplicate", "delete_line", "duplicate_line", "number", "nest_parens",
                                 "nest_blocks", "lookalike", "invisible"]))
    words = _words(tokens)
    i = words[draw(st.integers(0, len(words) - 1))]
    t = list(tokens)
    if kind == "swap":
        j = words[draw(st.integers(0, len(words) - 1))]
        t[i], t[j] = t[j], t[i]
    elif kind == "delete":
        t[i] = ""
    elif kind == "duplicate":
        t[i] = t[i] + " " + t[i]
    elif kind in ("delete_line", "duplicate_line"):
        lines = "".join(t).splitlines(keepends=True)
        k = draw(st.integers(0, len(lines) - 1))
        lines[k] = "" if kind == "delete_line" else lines[k] * draw(st.integers(2, 3))
        t = TOKEN.findall("".join(lines))
    elif kind == "number":
        numbers = [k for k in words if t[k].isdigit()] or [i]
        t[draw(st.sampled_from(numbers))] = draw(st.sampled_from(EXTREME))
    elif kind == "nest_parens":
        numbers = [k for k in words if t[k].isdigit()] or [i]
        depth = draw(st.sampled_from([1, 40, 400, 999, 1001, 2500]))
        k = draw(st.sampled_from(numbers))
        t[k] = "(" * depth + t[k] + ")" * depth
    elif kind == "nest_blocks":
        braces = [k for k in words if t[k] == "{"] or [i]
        depth = draw(st.sampled_from([1, 30, 300, 998, 1200]))
        t[draw(st.sampled_from(braces))] = "{" + " if true {" * depth + "}" * depth
    elif kind == "lookalike":
        chars = [c for c in t[i] if c in LOOKALIKE]
        if chars:
            c = draw(st.sampled_from(chars))
            t[i] = t[i].replace(c, LOOKALIKE[c], 1)
        else:
            t[i] = t[i] + "\u200b"
    else:
        t[i] = t[i] + draw(st.sampled_from(INVISIBLE))
    return t


@st.composite
def mutant_spec(draw):
    path = draw(st.sampled_from(SPECS))
    tokens = TOKENS[path]
    for _ in range(draw(st.integers(1, 3))):
        tokens = draw(mutation(tokens))
    return path, "".join(tokens)


def check_mutant(case, seed: int) -> None:
    path, text = case
    mutant = WORK / f"mutant-{Path(path).name}"
    mutant.write_text(text, encoding="utf-8")
    code, _, _ = soan_case("check", mutant)
    if code == 0:  # it still reads: it must also play, or say clearly why it cannot
        soan_case("run", mutant, "-q", "-s", seed)


@FAST
@given(mutant_spec(), st.integers(0, 50))
def test_mutated_specs_fail_clearly(case, seed):
    """Shipped specs with tokens swapped, deleted or duplicated, extreme numbers, deep nesting or look-alike characters are checked and played with exit 0, 1 or 2, never a crash or a hang."""
    check_mutant(case, seed)


@pytest.mark.slow
@SLOW_SPECS
@given(mutant_spec(), st.integers(0, 1000))
def test_mutated_specs_fail_clearly_long_run(case, seed):
    """The same property on 800 mutated specs."""
    check_mutant(case, seed)


# ---- random command lines ----------------------------------------------------------------------------------------

TINY = WORK / "tiny.soan"
TINY.write_text('game "Tiny" players 2..3\nscore pts "Points"\nrounds 1 {\n  for p in players { award 1 to p for pts }\n}\n'
                "winner among p in players by vp(p) desc else draw\n", encoding="utf-8")
(WORK / "a-file").write_text("x")
(WORK / "a-folder").mkdir(exist_ok=True)
KITANO = str(WORK / "kitano-20.soan")
SPEC_ARGS = [str(TINY), str(TINY), KITANO, str(WORK / "missing.soan"), str(WORK / "a-folder"), "/dev/null", "",
             str(WORK / "a-file")]
OUT_FILES = [str(WORK / "out.json"), str(WORK / "a-folder"), "/proc/no/such", "/dev/full", str(WORK / "missing" / "x")]
VALUES = {
    "--players": ["1", "2", "3", "4", "65", "-1", "x", "9" * 30], "--seed": ["0", "7", "-5", "x", "1e3", "9" * 40],
    "--bots": ["random", "greedy", ",,", "random,greedy,random,greedy,random", "rnd", "", ",random", "greedy,"],
    "--rule": ["pardon_threshold=4", "pardon_threshold=99", "x=1", "=", "pardon_threshold", "anger_shortage=partial",
               "pardon_threshold=", "pardon_threshold=4"],
    "--option": ["x", "", "pts"], "--log": OUT_FILES, "--html": OUT_FILES, "--witness-dir": OUT_FILES[1:] + [str(WORK / "w")],
    "-n": ["0", "1", "2", "-3", "x"], "--games": ["0", "1", "2", "-1", "nan", "x"],
    "--budget": ["0", "0.2", "-1", "nan", "inf", "-inf", "x", "1e309"], "--only": ["supplies", "termination", "bogus", ""],
    "--verify-games": ["1", "-1", "0", "x"], "--width": ["20", "80", "3", "x", "100001"],
    "--spec": SPEC_ARGS,
}
FLAGS = ["--json", "--quiet", "--verify", "--allow-changed-spec", "--verbose", "-q", "-v", "--help", "--bogus", "-x"]
COMMANDS = ["check", "run", "simulate", "replay", "test", "diff", "verify", "prove", "rnu", "chek", "", "--version"]


@st.composite
def command_line(draw):
    command = draw(st.sampled_from(COMMANDS))
    argv = [command] if command else []
    positional = {"diff": 2, "prove": 1}.get(command, 1)
    for _ in range(draw(st.integers(0, positional + 1))):
        argv.append(draw(st.sampled_from(SPEC_ARGS + [str(WORK / "out.json"), "can true", "always round > 99"])))
    options = draw(st.lists(st.sampled_from(sorted(VALUES) + FLAGS), max_size=5))
    for o in options:
        argv.append(o)
        if o in VALUES:
            argv.append(draw(st.sampled_from(VALUES[o])))
    # Long legitimate work is not what this harness looks for: keep the default searches and game counts short.
    if command in ("verify", "prove") and "--budget" not in options:
        argv[1:1] = ["--games", "1"]
    if command in ("simulate", "diff"):
        argv[1:1] = ["-n", "2"]
    if command == "diff":
        argv[1:1] = ["--verify-games", "1"] if "--verify" in options else []
    return argv


@FAST
@given(command_line())
def test_random_command_lines_fail_clearly(argv):
    """Random command lines (unknown commands and options, bad numbers, unwritable paths, conflicting flags) exit 0, 1 or 2 with the option or argument named."""
    soan_case(*argv)


@pytest.mark.slow
@SLOW_CLI
@given(command_line())
def test_random_command_lines_fail_clearly_long_run(argv):
    """The same property on 1,200 command lines."""
    soan_case(*argv)


# ---- tampered logs -----------------------------------------------------------------------------------------------

_LOG = WORK / "base-log.json"
_made = soan_case("run", KITANO, "-p", "4", "-s", "3", "-b", "random,greedy", "--log", _LOG, "-q")
BASE_LOG = json.loads(_LOG.read_text())
JSON_VALUES = [None, -1, 0, 1, 3, 4, 99, "seven", "", [], {}, True, 1.5, 10 ** 30, [1, 2], {"x": 1}, "P1", ["random"]]


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:30]):  # the first steps are enough to reach every kind of field
            yield from _paths(v, prefix + (i,))


LOG_PATHS = [p for p in _paths(BASE_LOG) if p]


@st.composite
def tampered_log(draw):
    log = json.loads(json.dumps(BASE_LOG))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(LOG_PATHS))
        parent = log
        try:
            for k in path[:-1]:
                parent = parent[k]
            action = draw(st.sampled_from(["set", "set", "delete", "add"]))
            if action == "set":
                parent[path[-1]] = json.loads(json.dumps(draw(st.sampled_from(JSON_VALUES))))  # a fresh copy
            elif action == "delete":
                del parent[path[-1]]
            elif isinstance(parent, dict):
                parent["extra"] = 1
        except (KeyError, IndexError, TypeError):
            pass  # an earlier change removed this path
    text = json.dumps(log)
    cut = draw(st.sampled_from([None, None, None, len(text) // 2, 1]))
    return text if cut is None else text[:cut]


@FAST
@given(tampered_log(), st.booleans())
def test_tampered_logs_fail_clearly(text, allow):
    """Logs with fields changed, removed, added or cut short replay with exit 0, 1 or 2, and a refused one names the field."""
    path = WORK / "tampered.json"
    path.write_text(text)
    soan_case("replay", path, *(["--allow-changed-spec"] if allow else []))


@pytest.mark.slow
@SLOW_LOGS
@given(tampered_log(), st.booleans())
def test_tampered_logs_fail_clearly_long_run(text, allow):
    """The same property on 600 tampered logs."""
    path = WORK / "tampered.json"
    path.write_text(text)
    soan_case("replay", path, *(["--allow-changed-spec"] if allow else []))


def test_a_case_that_keeps_working_is_a_hang_by_its_cpu_time(monkeypatch):
    """The hang limit counts the case's CPU seconds, so a busy machine (which only slows the wall clock) trips nothing a quiet one would not."""
    import threading

    import fuzzkit

    stop = threading.Event()

    def spin(argv):
        while not stop.is_set():
            pass

    monkeypatch.setattr(fuzzkit, "main", spin)
    monkeypatch.setattr(fuzzkit, "CASE_SECONDS", 0.3)
    try:
        with pytest.raises(AssertionError, match="of CPU without finishing"):
            fuzzkit.run(["play"])
    finally:
        stop.set()  # the spinning case's thread ends with the test
