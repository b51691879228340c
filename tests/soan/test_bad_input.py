"""Bad input never crashes, hangs or passes silently: one regression case per class of failure found (issue 16).

Every case runs the real command line in-process and checks the exit code and the message a designer sees."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from clirun import KITANO, ROOT, TINY, soan


LOCATED = re.compile(r"^\S.*:\d+:\d+: error: ", re.M)


def write(tmp_path: Path, text: str, name: str = "spec.soan") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def assert_located(code: int, err: str, path: Path, message: str) -> None:
    """Exit 2 with a file:line:col error naming `message`, and no internal error."""
    assert code == 2, err
    assert re.search(rf"^{re.escape(str(path))}:\d+:\d+: error: .*{message}", err, re.M), err
    assert "internal error" not in err and "Traceback" not in err


def assert_usage(code: int, err: str, *words: str) -> None:
    """Exit 2 with an 'soan: error:' line naming every one of `words`, and no internal error."""
    assert code == 2, err
    assert "soan: error: " in err, err
    for w in words:
        assert w in err, (w, err)
    assert "internal error" not in err and "Traceback" not in err


# ---- deep nesting and long expressions -------------------------------------------------------------


@pytest.mark.parametrize("body", [
    "if true {" * 400 + "for p in players { award 1 to p for pts }" + "}" * 400,
    "for p in players { award (" + "+".join(["1"] * 900) + ") - 899 to p for pts }",
    "for p in players { if " + " and ".join(["true"] * 900) + " { award 1 to p for pts } }",
    "for p in players { if false { } " + "elif false { } " * 200 + "else { award 1 to p for pts } }",
], ids=["400 nested ifs", "900-term sum", "900-term and", "200-branch elif"])
def test_deep_nesting_checks_and_plays(capsys, tmp_path, body):
    """Blocks nested 400 deep and expressions of 900 terms check and play like any other spec."""
    path = write(tmp_path, TINY.replace("rounds 1 {", "rounds 1 {" + body + "\n") )
    code, _, err = soan(capsys, "check", path)
    assert code == 0, err
    code, out, err = soan(capsys, "run", path, "-q")
    assert code == 0, err
    assert "Final scores" in out


def test_nesting_beyond_the_limit_is_a_located_error(capsys, tmp_path):
    """An expression of 40,000 terms on one line is a located 'nests more than 1000 levels' error, and the echoed line is cut short."""
    path = write(tmp_path, TINY + "def y = " + "1+" * 40000 + "1\n")
    code, _, err = soan(capsys, "check", path)
    assert_located(code, err, path, "nests more than 1000 levels deep")
    assert len(err) < 2000


# ---- limits checked at soan check, and the step budget of every game ------------------------------------

HUGE = "1" + "0" * 30


@pytest.mark.parametrize("change, message", [
    (("players 2..3", f"players 3..{HUGE}"), "players is beyond the most soan plays"),
    (('score pts "Points"', 'score pts "Points"\ntoken gem supply -8 hold 0..10 when short partial'),
     "the supply of token 'gem' is -8; it must be 0 or more"),
    (("rounds 1 {", 'rounds 1 { repeat -3 times { say "hi" }'), "the number of repeats is -3"),
    (("rounds 1 {", f'rounds 1 {{ repeat {HUGE} times {{ say "x" }}'), "beyond the largest number soan reads"),
    (("rounds 1 {", f'rounds 1 {{ while true max {HUGE} {{ say "x" }}'), "beyond the largest number soan reads"),
    (("rounds 1 {", 'rounds 1 { while true max 0 { say "x" }'), "a while loop's cap is 0; it must be 1 or more"),
    (('score pts "Points"', f'score pts "Points"\ncomponent c {{ v: 1..3 }}\ncards c in deck {{ {HUGE} x v = 1 }}\n'
                            'zone deck: shared'), "copies is beyond the largest number"),
    (('score pts "Points"', 'score pts "Points"\ncomponent c { v: 1..1000 }\ncards c per player in hand '
                            '{ 1000 x each v }\nzone hand: per_player'), "cards at 3 players; soan plays at most 100,000"),
    (('score pts "Points"', f'score pts "Points"\nplayer {{ gold: 0..{HUGE} }}'), "goes beyond the largest number"),
], ids=["huge player count", "negative supply", "negative repeat", "huge repeat", "huge while cap", "zero while cap",
        "huge copies", "too many cards", "huge domain"])
def test_sizes_are_checked_when_the_spec_is_read(capsys, tmp_path, change, message):
    """Negative supplies and counts, and sizes beyond the documented maximums, are located errors at soan check, and run refuses them too."""
    path = write(tmp_path, TINY.replace(*change))
    code, _, err = soan(capsys, "check", path)
    assert_located(code, err, path, re.escape(message))
    code, _, err = soan(capsys, "run", path)
    assert_located(code, err, path, re.escape(message))


def test_a_runaway_loop_stops_at_the_step_budget_naming_the_loop(capsys, tmp_path):
    """A million repeats inside a million repeats stop at the step budget with the inner loop located, exit 2."""
    path = write(tmp_path, TINY.replace("rounds 1 {", 'rounds 1 { repeat 1000000 times { repeat 1000000 times { say "x" } }'))
    code, _, err = soan(capsys, "run", path, "-q")
    assert_located(code, err, path, "went round its loops more than 2,000,000 times and was stopped in this repeat loop")
    assert "repeat 1000000 times { say" in err


def test_a_computed_negative_repeat_repeats_nothing(capsys, tmp_path):
    """'repeat player_count - 5 times' (a count computed below zero) repeats nothing, as documented, and the game plays."""
    path = write(tmp_path, TINY.replace("rounds 1 {", 'rounds 1 { repeat player_count - 5 times { say "never" }'))
    code, out, err = soan(capsys, "run", path)
    assert code == 0, err
    assert "never" not in out


def test_a_huge_computed_range_is_a_located_error(capsys, tmp_path):
    """A range of a trillion values computed in play is a located error, not exhausted memory."""
    path = write(tmp_path, TINY.replace("rounds 1 {", "rounds 1 { let n = count(x in 0..1000000 * 1000000)"))
    code, _, err = soan(capsys, "run", path)
    assert_located(code, err, path, "has more than 1,000,000 values")


# ---- files: output paths checked before work, write errors, closed pipes, what extend reads -------------------


@pytest.mark.parametrize("args, option", [
    (("run", KITANO, "--log", "/proc/no-such/game.json"), "--log"),
    (("run", KITANO, "--log", "{tmp}"), "--log"),
    (("diff", KITANO, KITANO, "-n", "0", "--html", "/proc/no-such/report.html"), "--html"),
    (("verify", KITANO, "--games", "2", "--witness-dir", "/proc/no-such"), "--witness-dir"),
    (("verify", KITANO, "--games", "2", "--witness-dir", "{file}"), "--witness-dir"),
    (("prove", KITANO, "--games", "2", "--witness-dir", "/proc/no-such"), "--witness-dir"),
], ids=["log in /proc", "log is a folder", "html in /proc", "witness-dir in /proc", "witness-dir is a file",
        "prove witness-dir"])
def test_an_unwritable_output_path_is_refused_before_any_work(capsys, tmp_path, args, option):
    """An output path that cannot be written is an error naming the option before anything is played, exit 2."""
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    args = [str(a).format(tmp=tmp_path, file=a_file) for a in args]
    code, out, err = soan(capsys, *args)
    assert_usage(code, err, option)
    assert "Final scores" not in out


def test_a_log_that_cannot_be_written_loses_no_game(capsys, tmp_path):
    """'run --log' into a folder that does not exist says so and plays nothing, so no game is lost."""
    code, out, err = soan(capsys, "run", KITANO, "--log", tmp_path / "missing" / "game.json")
    assert_usage(code, err, "--log", "does not exist")
    assert out == ""


def test_a_full_disk_on_stdout_is_a_clear_error():
    """Output to /dev/full is an error naming the cause, exit 2, not an internal error."""
    import subprocess
    import sys
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "soan", "run", KITANO], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert "No space left on device" in p.stderr and "internal error" not in p.stderr


def test_a_closed_pipe_after_head_exits_0():
    """'soan run SPEC | head -1' exits 0 with the first line, like other command-line tools."""
    import subprocess
    import sys
    p = subprocess.Popen([sys.executable, "-m", "soan", "run", KITANO], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = p.stdout.readline()
    p.stdout.close()
    assert p.wait(timeout=60) == 0
    assert b"Kitano" in first and p.stderr.read() == b""


def test_a_closed_stdout_is_an_error_not_silence():
    """With stdout closed, check exits 2 saying there is nowhere to print, instead of exiting 0 with the output lost."""
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-m", "soan", "check", KITANO], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, timeout=60, preexec_fn=lambda: __import__("os").close(1))
    assert p.returncode == 2, p.stderr
    assert "standard output is closed" in p.stderr


@pytest.mark.parametrize("target, message", [
    ("/dev/zero", "extend reads only .soan files"),
    ("binary.soan", "not a text file"),
    ("latin1.soan", "not UTF-8 text"),
    ("huge.soan", "larger than 2,000,000 bytes"),
])
def test_extend_reads_only_bounded_text_specs(capsys, tmp_path, target, message):
    """'extend' of a device, a binary, a non-UTF-8 or an oversized file is a located error, never a hang or a crash."""
    (tmp_path / "binary.soan").write_bytes(b"\x7fELF\x00\x01" * 100)
    (tmp_path / "latin1.soan").write_bytes('game "caf\xe9"'.encode("latin-1"))
    (tmp_path / "huge.soan").write_text("# " + "x" * 2_100_000)
    path = write(tmp_path, f'extend "{target}"\n')
    code, _, err = soan(capsys, "check", path)
    assert_located(code, err, path, re.escape(message))


def test_a_spec_path_that_is_a_device_or_folder_is_refused(capsys, tmp_path):
    """'soan check /dev/zero' and 'soan check FOLDER' say why they cannot be read, exit 2, without hanging."""
    for target, message in (("/dev/zero", "larger than"), (tmp_path, "folder")):
        code, _, err = soan(capsys, "check", target)
        assert code == 2 and message in err and "internal error" not in err


# ---- logs: the schema is checked before replay; a changed spec is exit 1 unless allowed ----------------------

import json  # noqa: E402


@pytest.fixture
def game_log(capsys, tmp_path):
    """A Kitano game log written by 'soan run --log' (4 players, seed 5, random and greedy bots)."""
    path = tmp_path / "game.json"
    code, _, err = soan(capsys, "run", KITANO, "-p", "4", "-s", "5", "-b", "random,greedy", "--log", path, "-q")
    assert code == 0, err
    return path


def tamper(path: Path, change) -> Path:
    log = json.loads(path.read_text())
    change(log)
    path.write_text(json.dumps(log))
    return path


def _set(*keys_and_value):
    *keys, value = keys_and_value

    def change(log):
        target = log
        for k in keys[:-1]:
            target = target[k]
        if value is KeyError:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
    return change


def _first_move(log):
    return next(i for i, s in enumerate(log["steps"]) if "move" in s)


def test_an_untouched_log_replays(capsys, game_log):
    """The log replays with exit 0, naming its seed and bots."""
    code, out, err = soan(capsys, "replay", game_log)
    assert code == 0, err
    assert "same course and result" in out and "seed 5, bots random, greedy, greedy, greedy" in out


@pytest.mark.parametrize("change, field", [
    (_set("seed", "seven"), "seed"),
    (_set("spec", "path", None), "spec.path"),
    (_set("spec", "sha256", KeyError), "spec.sha256"),
    (_set("players", 3), "bots"),
    (_set("bots", ["random"] * 5), "bots"),
    (lambda log: log["steps"][_first_move(log)].update(index=-1), r"steps\[\d+\].index"),
    (lambda log: log["steps"][0].update(extra=1), r"steps\[0\]"),
    (_set("in_force", "pardon_threshold", 7), "in_force.pardon_threshold"),
    (_set("params", {"pardon_threshold": 9}), "in_force.pardon_threshold"),
    (_set("soan_log", 99), "soan_log"),
], ids=["seed a string", "spec.path null", "no sha256", "players 4 to 3", "extra bots", "index -1", "unknown key",
        "in_force changed", "params changed", "unknown format"])
def test_a_log_that_breaks_its_schema_is_refused_naming_the_field(capsys, game_log, change, field):
    """A tampered log is refused before replay with exit 2 and the field at fault named."""
    code, _, err = soan(capsys, "replay", tamper(game_log, change))
    assert code == 2, err
    assert re.search(rf"field {field}", err), err
    assert "internal error" not in err


@pytest.mark.parametrize("change, field", [
    (_set("seed", 6), "fields seed and bots"),
    (_set("bots", ["greedy", "random", "random", "random"]), "fields seed and bots"),
    (_set("consulted_rulings", []), "field consulted_rulings"),
], ids=["another seed", "other bots", "rulings read"])
def test_a_log_whose_seed_bots_or_rulings_disagree_with_its_moves_differs(capsys, game_log, change, field):
    """A log whose seed, bots or consulted rulings were changed does not replay as 'same course and result': exit 1, field named."""
    code, out, err = soan(capsys, "replay", tamper(game_log, change))
    assert code == 1, err
    assert "replay differs" in out and field in out


def test_a_log_nested_100000_deep_is_not_a_log(capsys, tmp_path):
    """A JSON file nested 100,000 deep is refused as not a game log, exit 2, without a RecursionError."""
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = soan(capsys, "replay", path)
    assert_usage(code, err, "not a soan game log")


def test_replaying_a_folder_is_a_usage_error(capsys, tmp_path):
    """'soan replay FOLDER' says it is a folder, exit 2."""
    code, _, err = soan(capsys, "replay", tmp_path)
    assert_usage(code, err, "folder")


def test_a_changed_spec_is_exit_1_unless_allowed(capsys, game_log, tmp_path):
    """Replaying against a changed spec exits 1 naming spec.sha256; with --allow-changed-spec it replays (exit 0) with a note."""
    changed = tmp_path / "kitano-20.soan"
    changed.write_text(Path(KITANO).read_text() + "\n# a comment added later\n")
    code, out, _ = soan(capsys, "replay", game_log, "--spec", changed)
    assert code == 1 and "replay refused" in out and "spec.sha256" in out
    code, out, err = soan(capsys, "replay", game_log, "--spec", changed, "--allow-changed-spec")
    assert code == 0, err
    assert "note:" in err and "same course and result" in out


def test_a_log_replayed_against_another_game_is_refused(capsys, tmp_path):
    """A Pitmaster log replayed with --spec Kitano exits 1 naming both games; allowed anyway, it differs (exit 1), never a TypeError."""
    log = tmp_path / "pit.json"
    assert soan(capsys, "run", ROOT / "specs/pitmaster-20.soan", "--log", log, "-q")[0] == 0
    code, out, _ = soan(capsys, "replay", log, "--spec", KITANO)
    assert code == 1 and "the log is a game of Pitmaster" in out
    code, out, err = soan(capsys, "replay", log, "--spec", KITANO, "--allow-changed-spec")
    assert code == 1 and "replay differs" in out and "internal error" not in err


# ---- the command line -----------------------------------------------------------------------------------------

HIBACHI = str(ROOT / "specs" / "hibachi.soan")


@pytest.mark.parametrize("args, words", [
    (("run", KITANO, "--rule", "pardon_threshold=4", "--rule", "pardon_threshold=5"), ("given twice", "pardon_threshold")),
    (("run", KITANO, "--bots", "random,random,random,random,random"), ("--bots names 5 bots for 3 players",)),
    (("run", KITANO, "--bots", ",,"), ("--bots takes bot names separated by commas",)),
    (("run", KITANO, "--bots", "random,,greedy"), ("--bots takes bot names",)),
    (("simulate", KITANO, "--bots", "randon"), ("unknown bot 'randon'", "did you mean 'random'?")),
    (("verify", KITANO, "--budget", "nan"), ("--budget must be a finite number",)),
    (("verify", KITANO, "--budget", "inf"), ("--budget must be a finite number",)),
    (("prove", KITANO, "--budget", "5", "--games", "5"), ("--budget and --games",)),
    (("verify", KITANO, "--games", "-1"), ("--games must be 0 or more",)),
    (("diff", KITANO, KITANO, "-n", "0", "--verify", "--verify-games", "-1"), ("--verify-games must be 1 or more",)),
    (("diff", KITANO, KITANO, "-n", "0", "--verify-games", "3"), ("--verify-games", "add --verify")),
    (("run", KITANO, "--json", "--quiet"), ("--json and --quiet",)),
    (("run", KITANO, "--rule", "=3"), ("--rule takes NAME=VALUE",)),
    (("run", HIBACHI, "--rule", "head_by_lot=false"), ("assumption without a value", "nothing to set")),
    (("rnu", KITANO), ("invalid choice", "did you mean 'run'?")),
    (("run", KITANO, "--rule", "pardon_treshold=4"), ("did you mean 'pardon_threshold'?",)),
    (("run", KITANO, "--sede", "4"), ("did you mean '--seed'?",)),
], ids=["duplicate rule", "extra bots", "empty bot list", "empty bot name", "unknown bot", "budget nan", "budget inf",
        "prove budget and games", "verify negative games", "verify-games -1", "verify-games without verify",
        "json and quiet", "rule without name", "valueless assumption", "mistyped command", "mistyped ruling",
        "mistyped option"])
def test_command_line_misuse_is_an_error_with_a_hint(capsys, args, words):
    """Duplicate rules, wrong bot lists, non-finite budgets and conflicting flags are exit 2 with the option named and a hint."""
    code, out, err = soan(capsys, *args)
    assert_usage(code, err, *words)
    assert "Final scores" not in out


def test_rulings_in_force_are_in_the_header_and_the_log(capsys, tmp_path):
    """'run' prints every ruling's value (the ones set marked *) under its header, and the log records them all."""
    log = tmp_path / "g.json"
    code, out, _ = soan(capsys, "run", KITANO, "--rule", "pardon_threshold=5", "--log", log)
    assert code == 0
    header = out.splitlines()[1]
    assert header.startswith("rulings in force: ") and "pardon_threshold=5*" in header and "anger_shortage=" in header
    recorded = json.loads(log.read_text())
    assert recorded["in_force"]["pardon_threshold"] == 5 and recorded["params"] == {"pardon_threshold": 5}


@pytest.mark.parametrize("args", [
    ("simulate", KITANO, "-n", "2", "--json"),
    ("verify", KITANO, "--games", "2", "--only", "supplies", "--json"),
    ("prove", KITANO, "always true", "--games", "1", "--json"),
    ("diff", KITANO, KITANO, "-n", "0", "--json"),
])
def test_every_json_output_records_the_rulings_in_force(capsys, tmp_path, args):
    """simulate, verify, prove and diff --json each carry the rulings and options the run used."""
    code, out, err = soan(capsys, *args, "--witness-dir", tmp_path) if args[0] in ("verify", "prove") else soan(capsys, *args)
    assert code in (0, 1), err
    forced = json.loads(out)["in_force"]
    forced = forced.get("new", forced)
    assert forced["pardon_threshold"] == 3


# ---- definitions that never end, and supplies computed below zero ------------------------------------------------


def test_a_def_defined_in_terms_of_itself_is_located_at_check(capsys, tmp_path):
    """'def x = x + 1' is a located error naming x at soan check (it was reported at :0:0 with no name when run)."""
    path = write(tmp_path, TINY + "def x = x + 1\n")
    code, _, err = soan(capsys, "check", path)
    assert_located(code, err, path, "def 'x' is defined in terms of itself")
    assert f"{path}:7:5:" in err


def test_a_def_that_calls_itself_without_end_is_named_when_run(capsys, tmp_path):
    """A def with a parameter that calls itself for ever stops with a located error naming the def, exit 2."""
    path = write(tmp_path, TINY.replace("award 1 to p", "award f(1) to p") + "def f(n) = f(n + 1)\n")
    code, _, err = soan(capsys, "run", path)
    assert_located(code, err, path, "def 'f' calls itself without end")


def test_a_def_calling_one_that_calls_itself_without_end_names_that_one(capsys, tmp_path):
    """A def that only calls another def which recurses for ever: the error names the one that calls itself, exit 2."""
    path = write(tmp_path, TINY.replace("award 1 to p", "award g(1) to p") + "def f(n) = f(n + 1)\ndef g(n) = f(n) + 1\n")
    code, _, err = soan(capsys, "run", path)
    assert_located(code, err, path, "def 'f' calls itself without end")


@pytest.mark.parametrize("command", [("run",), ("verify", "--only", "conservation", "--games", "3")])
def test_a_supply_computed_below_zero_is_a_located_error(capsys, tmp_path, command):
    """A supply of 'player_count - 8' is a located error naming the token in run and verify, never an AssertionError."""
    path = write(tmp_path, TINY.replace('score pts "Points"', 'score pts "Points"\ntoken gem supply player_count - 8 '
                                        "hold 0..10 when short partial"))
    code, _, err = soan(capsys, command[0], path, *command[1:], "--witness-dir", tmp_path) if command[0] == "verify" \
        else soan(capsys, command[0], path)
    assert_located(code, err, path, "the supply of token 'gem' comes to -6 at 2 players")


def test_an_empty_extra_argument_is_a_usage_error(capsys):
    """'soan run SPEC ""' (found by the fuzz harness: an IndexError, exit 3) is exit 2 naming the empty argument."""
    code, _, err = soan(capsys, "run", KITANO, "")
    assert_usage(code, err, "unrecognized arguments", "empty argument")


def test_no_command_is_an_error_with_the_commands_listed(capsys):
    """'soan' alone prints the usage and an error listing the commands, exit 2 (found by the fuzz harness: no error line)."""
    code, out, err = soan(capsys)
    assert_usage(code, err, "give a command", "check, run")
    assert "usage: soan" in out


def test_a_deeply_nested_spec_is_verified_and_compared(capsys, tmp_path):
    """A spec with 480 nested ifs and a 990-deep parenthesised number goes through verify and diff --verify, exit 0."""
    deep = write(tmp_path, TINY.replace("rounds 1 {", "rounds 1 {" + "if true {" * 480 + "}" * 480), "deep.soan")
    parens = write(tmp_path, TINY.replace("award 1 to p", "award " + "(" * 990 + "1" + ")" * 990 + " to p"), "parens.soan")
    code, _, err = soan(capsys, "verify", deep, "--games", "2", "--witness-dir", tmp_path / "w")
    assert code in (0, 1) and "error" not in err, err
    code, out, err = soan(capsys, "diff", deep, parens, "-n", "2", "--verify", "--verify-games", "2")
    assert code == 0, err
    assert "Rules:" in out


def test_a_zone_capacity_that_is_not_a_number_is_a_located_error(capsys, tmp_path):
    """A capacity naming a zone (found by the fuzz harness: a TypeError, exit 3) is a located error when cards move there."""
    path = write(tmp_path, TINY.replace('score pts "Points"', 'score pts "Points"\ncomponent c { v: 1..3 }\n'
                                        'cards c in deck { 3 x v = 1 }\nzone deck: shared\n'
                                        'zone pile: shared capacity deck').replace(
        "rounds 1 {", "rounds 1 { move first(deck) to pile"))
    code, _, err = soan(capsys, "run", path)
    assert_located(code, err, path, "the capacity of zone 'pile' is")


def test_an_unknown_rule_names_the_option_it_came_from(capsys, tmp_path):
    """'--rule pardon_threshold=4' on a spec without that ruling says which option is at fault (found by the fuzz harness)."""
    path = write(tmp_path, TINY)
    code, _, err = soan(capsys, "run", path, "--rule", "pardon_threshold=4")
    assert_usage(code, err, "--rule pardon_threshold=4: no open ruling")


def test_errors_are_never_wrapped_even_at_a_set_width(capsys, tmp_path):
    """With --width 20, a located error still starts its line with the whole file:line:col (found by the fuzz harness)."""
    missing = tmp_path / "a-spec-that-is-not-there.soan"
    code, _, err = soan(capsys, "check", missing, "--width", "20")
    assert code == 2
    assert err.startswith(f"{missing}:0:0: error: no such spec file")


def test_check_json_of_a_bad_spec_also_says_where_on_stderr(capsys, tmp_path):
    """'check --json' of a missing spec prints JSON naming the file and the located error on stderr, exit 2 (found by the fuzz harness: stderr was empty)."""
    missing = tmp_path / "missing.soan"
    code, out, err = soan(capsys, "check", missing, "--json")
    assert code == 2
    assert json.loads(out)["problems"][0]["file"] == str(missing)
    assert err.startswith(f"{missing}:0:0: error: no such spec file")
