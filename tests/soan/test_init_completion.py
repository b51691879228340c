"""soan init writes a complete draft that checks, runs and verifies; soan completion prints scripts that load."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clirun import flat, soan

ROOT = Path(__file__).resolve().parents[2]
KITANO = ROOT / "specs" / "kitano-20.soan"


def test_init_writes_a_draft_that_checks_runs_tests_and_verifies(capsys, tmp_path):
    """The new draft reads without problems, plays a game at every player count, passes its example, and
    soan verify finds no problem and leaves nothing unknown."""
    code, out, err = soan(capsys, "init", "tea-garden", "--dir", tmp_path)
    assert code == 0, err
    path = tmp_path / "tea-garden.soan"
    assert f"wrote {path}" in out
    text = path.read_text(encoding="utf-8")
    assert 'game "Tea Garden" draft 1' in text and "@" not in text
    code, out, err = soan(capsys, "check", path)
    assert code == 0 and "— ok" in out, err
    assert "market_refill" in out and "start_by_lot" in out, "the template shows an open ruling and an assumption"
    for n in (2, 3, 4):
        code, out, err = soan(capsys, "run", path, "--players", n, "--seed", 3)
        assert code == 0 and "Final scores" in out, err
    code, out, _ = soan(capsys, "test", path)
    assert code == 0 and "1 passed, 0 failed" in out
    code, out, err = soan(capsys, "verify", path, "--players", 3, "--games", 40, "--witness-dir", tmp_path / "w")
    assert code == 0, out + err
    assert "0 problems), 0 unknown" in flat(out)


def test_init_refuses_to_overwrite(capsys, tmp_path):
    """A second init of the same name leaves the first file alone and exits 2 with a hint."""
    soan(capsys, "init", "draft", "--dir", tmp_path)
    path = tmp_path / "draft.soan"
    path.write_text("# my work\n", encoding="utf-8")
    code, out, err = soan(capsys, "init", "draft.soan", "--dir", tmp_path)
    assert code == 2
    assert "already exists; soan init never overwrites a draft" in flat(err) and "hint: choose another name" in err
    assert path.read_text(encoding="utf-8") == "# my work\n"


@pytest.mark.parametrize("name, message", [("a/b", "is not a name for a spec file"), ("", "is not a name")])
def test_init_refuses_a_name_that_is_a_path(capsys, tmp_path, name, message):
    """A name with a folder in it (or none at all) is refused with a hint to use --dir."""
    code, _, err = soan(capsys, "init", name, "--dir", tmp_path)
    assert code == 2 and message in err


def _bash(script: str) -> str:
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _soan_cmd() -> str:
    return f"soan() {{ {sys.executable} -m soan \"$@\"; }}; "


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion_loads_and_completes_commands_options_and_rulings():
    """The bash script loads and registers _soan; it completes commands, a command's options, bot names and
    the spec's rulings with their values (asked of soan itself)."""
    base = _soan_cmd() + "source <(soan completion bash); "
    assert "complete -F _soan soan" in _bash(base + "complete -p soan")

    def complete(*words: str) -> list[str]:
        arr = " ".join(f"'{w}'" for w in words)
        return _bash(base + f"COMP_WORDS=({arr}); COMP_CWORD={len(words) - 1}; _soan; "
                     'printf "%s\\n" "${COMPREPLY[@]}"').split()

    assert set(complete("soan", "r")) >= {"run", "replay", "rulings", "record"}
    assert "init" in complete("soan", "in") and "completion" in complete("soan", "comp")
    assert "--seat" in complete("soan", "play", str(KITANO), "--se")
    assert complete("soan", "run", str(KITANO), "--bots", "gr") == ["greedy"]
    assert "pardon_threshold=3" in complete("soan", "run", str(KITANO), "--rule", "pard")
    assert complete("soan", "run", str(KITANO), "--rule", "taiko_count", "=", "") == ["same_suit", "whole_collection"]


def test_the_hidden_helper_lists_rulings_and_valued_assumptions(capsys):
    """`soan completion --rulings SPEC` prints NAME=VALUE for each value of each ruling and valued assumption."""
    code, out, _ = soan(capsys, "completion", "--rulings", KITANO)
    words = out.split()
    assert code == 0
    assert {"anger_shortage=partial", "anger_shortage=unlimited", "taiko_lacks_suit=spares"} <= set(words)
    assert "head_seat_by_lot=" not in out, "an assumption without values takes no --rule"


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_command(capsys, shell):
    """The zsh and fish scripts list every soan command and ask soan for the spec's rulings; where the shell
    is installed, it reads the script without a syntax error."""
    code, out, _ = soan(capsys, "completion", shell)
    assert code == 0
    for cmd in ("check", "run", "play", "rulebook", "init", "completion", "replay", "verify"):
        assert cmd in out
    assert "soan completion --rulings" in out
    if shutil.which(shell):
        check = [shell, "-n"] if shell == "zsh" else [shell, "--no-execute"]
        done = subprocess.run(check, input=out, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


def test_completion_without_a_shell_is_a_plain_error(capsys):
    """`soan completion` alone says which shells it knows (exit 2)."""
    code, _, err = soan(capsys, "completion")
    assert code == 2 and "bash, zsh or fish" in err


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_commands_and_rulings(capsys, tmp_path):
    """Loaded into fish, the script completes commands and, after --rule, the spec's rulings with values."""
    script = tmp_path / "soan.fish"
    code, out, _ = soan(capsys, "completion", "fish")
    script.write_text(out, encoding="utf-8")
    shim = f"function soan; {sys.executable} -m soan $argv; end; source {script}; "

    def complete(line: str) -> list[str]:
        done = subprocess.run(["fish", "-c", shim + f"complete -C '{line}'"], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return [ln.split("\t")[0] for ln in done.stdout.splitlines()]

    assert {"run", "rulings", "rulebook"} <= set(complete("soan ru"))
    assert "pardon_threshold=3" in complete(f"soan run {KITANO} --rule pard")


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_script_registers_with_compinit(capsys, tmp_path):
    """Sourced after compinit, the zsh script registers _soan for soan."""
    script = tmp_path / "_soan"
    code, out, _ = soan(capsys, "completion", "zsh")
    script.write_text(out, encoding="utf-8")
    done = subprocess.run(["zsh", "-f", "-c", f"autoload -U compinit; compinit -u -D; source {script}; "
                                               "print -r -- $_comps[soan]"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "_soan", done.stderr
