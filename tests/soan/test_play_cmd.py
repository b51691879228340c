"""soan play: a person at the terminal against bots, in a real pseudo-terminal and through a pipe."""

from __future__ import annotations

import fcntl
import io
import json
import os
import re
import select
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from clirun import flat, soan

ROOT = Path(__file__).resolve().parents[2]
KITANO = ROOT / "specs" / "kitano-20.soan"
PROMPT = re.compile(r"> $")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
OUTER_LIMIT = 300  # seconds: only so that a hung game fails the test instead of hanging it


def _own_terminal() -> None:
    """In the child: a session of its own with the pseudo-terminal as its controlling terminal, as a shell gives
    a command, so Ctrl-C typed at the terminal interrupts it."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    # A shell starts a foreground command with Ctrl-C's signal at its default and unblocked, whatever the shell
    # itself had; the test process may have inherited or left it otherwise (one full-tier run saw ^C ignored).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """`soan ARGS` running in a pseudo-terminal: read up to each prompt, answer it."""

    def __init__(self, *args, cwd):
        self.master, slave = os.openpty()
        env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
        self.proc = subprocess.Popen([sys.executable, "-m", "soan", *map(str, args)], stdin=slave, stdout=slave,
                                     stderr=slave, cwd=cwd, env=env, close_fds=True, preexec_fn=_own_terminal)
        os.close(slave)
        self.seen = ""
        self.deadline = time.monotonic() + OUTER_LIMIT

    def read_until_prompt(self) -> str | None:
        """The text up to the next prompt, or None when the program has ended."""
        chunk = ""
        while time.monotonic() < self.deadline:
            ready, _, _ = select.select([self.master], [], [], 1.0)
            if not ready:
                if self.proc.poll() is not None:
                    return None
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the other end closed: the program ended
                return None
            if not data:
                return None
            text = ANSI.sub("", data.decode("utf-8", errors="replace")).replace("\r", "")
            chunk += text
            self.seen += text
            if PROMPT.search(chunk):
                return chunk
        raise AssertionError("soan play did not reach its next prompt within the outer limit:\n" + self.seen[-2000:])

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode("utf-8"))

    def close(self) -> int:
        try:
            code = self.proc.wait(timeout=OUTER_LIMIT)
        finally:
            os.close(self.master)
        return code


def _decision_lines(screen: str) -> list[str]:
    return [ln for ln in screen.splitlines() if re.match(r"\s+\d+\. ", ln)]


def test_a_whole_kitano_game_in_a_pseudo_terminal_replays(tmp_path):
    """A person plays P1 of a whole 3-player Kitano game in a pseudo-terminal (a bad answer and an undo on the
    way), never sees the other seats' hands, and the saved log replays with soan replay."""
    save = tmp_path / "game.json"
    term = Terminal("play", KITANO, "--players", 3, "--seat", 1, "--bots", "greedy,random", "--seed", 4,
                    "--save", save, cwd=tmp_path)
    decisions = 0
    answered_badly = undone = False
    while (screen := term.read_until_prompt()) is not None:
        moves = _decision_lines(screen)
        if not answered_badly and decisions == 1:
            term.send("seventeen")
            answered_badly = True
            continue
        if not undone and decisions == 3:
            term.send("undo")
            undone = True
            decisions -= 1
            continue
        # the last move listed: a different choice from the bots' first, and legal by construction
        term.send(str(max(len(moves), 1)))
        decisions += 1
    assert term.close() == 0, term.seen[-3000:]
    out = term.seen
    assert "Traceback" not in out
    assert "is neither a move number" in out
    assert "(taken back: the game is played again up to that decision)" in out
    assert decisions >= 8, "an exchange and seven rounds' cards at least"
    assert "Final scores" in out and f"game log written to {save}" in out
    for line in out.splitlines():
        if re.match(r"\s+P[23] hand ", line):
            assert line.rstrip().endswith("hidden"), f"another seat's hand shown: {line}"
    log = json.loads(save.read_text(encoding="utf-8"))
    assert log["bots"] == ["human", "greedy", "random"] and log["result"] is not None
    replay = subprocess.run([sys.executable, "-m", "soan", "replay", str(save)], capture_output=True, text=True,
                            cwd=tmp_path, timeout=OUTER_LIMIT)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "same course and result" in replay.stdout


def _play(capsys, monkeypatch, answers: str, *args):
    monkeypatch.setattr(sys, "stdin", io.StringIO(answers))
    return soan(capsys, "play", KITANO, *args)


def test_end_of_input_saves_the_game_so_far_and_resume_finishes_it(capsys, monkeypatch, tmp_path):
    """End of input stops the game and saves it, saying soan replay checks finished games only; --resume plays
    the saved answers again and the finished game's log replays."""
    save = tmp_path / "g.json"
    code, out, err = _play(capsys, monkeypatch, "1\n2\n", "--players", 3, "--save", save)
    assert code == 0, err
    assert "It is unfinished: soan replay checks finished games only" in flat(out)
    part = json.loads(save.read_text(encoding="utf-8"))
    assert part["result"] is None and [s["move"] for s in part["steps"] if s.get("player") == 1][:2] == \
        ["nothing", "action(gold)"]
    code, out, err = _play(capsys, monkeypatch, "1\n" * 300, "--resume", save)
    assert code == 0, err
    whole = json.loads(save.read_text(encoding="utf-8"))
    assert whole["steps"][:len(part["steps"])] == part["steps"] and whole["result"] is not None
    code, out, _ = soan(capsys, "replay", save)
    assert code == 0 and "same course and result" in out


def test_undo_gives_the_same_game_as_never_having_answered(capsys, monkeypatch, tmp_path):
    """Answering, taking it back and answering otherwise gives the very game of answering otherwise at once."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    _play(capsys, monkeypatch, "1\n3\nundo\n2\n" + "1\n" * 300, "--players", 3, "--save", a)
    _play(capsys, monkeypatch, "1\n2\n" + "1\n" * 300, "--players", 3, "--save", b)
    assert a.read_text(encoding="utf-8") == b.read_text(encoding="utf-8")


def test_other_seats_hidden_moves_are_told_without_their_cards(capsys, monkeypatch, tmp_path):
    """Another seat's exchange (cards from its hidden hand, laid face down) is told without naming the cards,
    and the cards its variables hold are '?' until they are seen."""
    code, out, _ = _play(capsys, monkeypatch, "1\n", "--players", 3, "--save", tmp_path / "g.json")
    assert code == 0
    assert "P2 exchanges cards  (not shown to you)" in out
    assert "P2 exchanges cards:" not in out
    assert not re.search(r"#\d", out), "a card's number names the card"


def test_hot_seat_hands_the_keyboard_over_between_people(capsys, monkeypatch, tmp_path):
    """With two --seat, each person's decision is preceded by a hand-over prompt when the seat changes."""
    code, out, _ = _play(capsys, monkeypatch, "\n1\n\n1\n", "--players", 3, "--seat", 1, "--seat", 2,
                         "--save", tmp_path / "g.json")
    assert code == 0
    assert "pass the keyboard to P1" in out and "pass the keyboard to P2" in out
    assert "you play P1, P2; bots: P3 random" in out


@pytest.mark.parametrize("args, message", [
    (("--seat", 5), "--seat 5 is not a seat of a 3-player game"),
    (("--seat", 1, "--seat", 2, "--seat", 3, "--bots", "greedy"), "every seat is played by a person"),
    (("--bots", "gredy"), "unknown bot 'gredy'"),
])
def test_bad_command_lines_are_plain_errors(capsys, monkeypatch, args, message):
    """A seat outside the game, bots with no seat left for them, or an unknown bot: exit 2 with a message."""
    code, out, err = _play(capsys, monkeypatch, "", "--players", 3, *args)
    assert code == 2 and message in flat(err)


def test_ctrl_c_loses_nothing_the_game_so_far_is_saved_before_each_decision(tmp_path):
    """Ctrl-C at a prompt in a pseudo-terminal ends soan play (exit 130), and the game up to that decision is
    in the save file, ready for --resume."""
    save = tmp_path / "g.json"
    term = Terminal("play", KITANO, "--players", 3, "--save", save, cwd=tmp_path)
    term.read_until_prompt()
    term.send("1")
    term.read_until_prompt()
    os.write(term.master, b"\x03")
    while term.read_until_prompt() is not None:
        pass
    assert term.close() == 130
    log = json.loads(save.read_text(encoding="utf-8"))
    assert log["result"] is None and [s["move"] for s in log["steps"] if s.get("player") == 1] == ["nothing"]


def test_a_person_can_play_against_a_strategy_and_a_search_bot(capsys, monkeypatch, tmp_path):
    """`--bots passer,mcts:5:5` on a strategy file seats a strategy (it needs the spec's tables) and a search bot
    beside the person; the finished game replays with those bots."""
    save = tmp_path / "g.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    code, out, err = soan(capsys, "play", ROOT / "specs" / "strategies" / "bbqp-9.soan", "--players", 3,
                          "--bots", "passer,mcts:5:5", "--seed", 2, "--save", save)
    assert code == 0, err
    log = json.loads(save.read_text(encoding="utf-8"))
    assert log["bots"] == ["human", "passer", "mcts:5:5"] and log["result"] is not None
    code, out, _ = soan(capsys, "replay", save)
    assert code == 0 and "same course and result" in out
