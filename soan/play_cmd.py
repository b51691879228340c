"""`soan play`: play a draft yourself in the terminal, against bots or hot-seat with other people.

At each of your decisions the table is shown as your seat may see it (the view bots get: cards hidden from
you are '?'), with scores, tokens and the legal moves numbered under the spec's own prompt.  What the other
seats did since your last decision is told too, but a move that names cards you cannot see is told without
them.  Input is read line by line from standard input, so it works in a terminal, a pseudo-terminal and a
pipe alike; bad input is answered with a plain message and the prompt again.

The game is a function of the spec, the seed, the bots and the people's answers (the engine is
deterministic), so `undo` plays the game again from the start with every answer but the last one, and a
finished game's log replays with `soan replay`.  `quit` (or end of input) saves the game so far; an
unfinished log is not one `soan replay` checks (it replays whole games), so it is continued with
`soan play SPEC --resume FILE` instead.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from soan.dsl.errors import SpecRuntimeError
from soan.interpreter.account import event_line, score_titles
from soan.interpreter.play import bot_chooser, game_log, record_game, spec_digest
from soan.interpreter.runtime import CardRef
from soan.interpreter.state import PASS, State
from soan.interpreter.streams import Streams

from . import api
from .cmdline import EXIT_OK, UsageError, _bots, _params, _players, _runtime_error
from .files import check_output_file, write_text
from .run_cmd import _print_result

HUMAN = "human"  # the name a person's seat has in the log's list of bots
HELP = """Type a move's number (or its text exactly) to take it.  Commands:
  show   the table again
  log    the game so far, as your seat saw it
  undo   take back your last move (the game is played again without it)
  help   this text
  quit   stop here; the game so far is saved (end of input, Ctrl-D, does the same)"""


def add_parser(sub, common) -> None:
    p = sub.add_parser("play", allow_abbrev=False,
                       help="play a draft yourself in the terminal, against bots or hot-seat with others")
    common(p)
    p.add_argument("--seat", type=int, action="append", default=[], metavar="K",
                   help="a seat you play, 1 for P1 (repeat for hot-seat play; default 1)")
    p.add_argument("--bots", "-b", default=None, metavar="B1,B2,...",
                   help="bots for the other seats in seat order; the last fills the rest (default random)")
    p.add_argument("--seed", "-s", type=int, default=None, metavar="S", help="random seed (default 0)")
    p.add_argument("--save", metavar="FILE",
                   help="where the game log is written, at the end or when you quit (default soan-play-SPEC-sSEED.json)")
    p.add_argument("--resume", metavar="FILE",
                   help="continue a game saved by soan play (its players, seats, bots, seed and rulings)")


class _Undo(Exception):
    pass


class _Quit(Exception):
    pass


def cmd_play(args, out, err) -> int:
    spec = api.load(args.spec)
    script: list[dict] = []
    if args.resume:
        given = [o for o, v in (("--players", args.players), ("--seed", args.seed), ("--bots", args.bots),
                                ("--seat", args.seat), ("--rule", args.rule), ("--option", args.option)) if v]
        if given:
            raise UsageError(f"{', '.join(given)} cannot change a resumed game: the saved log sets them",
                             f"soan play {args.spec} --resume {args.resume}")
        log = _saved_game(args.resume, spec, UsageError)
        n, seed, names = log["players"], log["seed"], list(log["bots"])
        params = api.parse_params(spec, {k: str(v).lower() if isinstance(v, bool) else str(v)
                                         for k, v in log["params"].items()})
        seats = [i for i, b in enumerate(names) if b == HUMAN]
        script = [s for s in log["steps"] if "move" in s and names[s["player"] - 1] == HUMAN]
    else:
        n = _players(spec, args)
        params = _params(spec, args)
        seed = 0 if args.seed is None else args.seed
        seats = sorted({k - 1 for k in (args.seat or [1])})
        bad = [k for k in (args.seat or []) if not 1 <= k <= n]
        if bad:
            raise UsageError(f"--seat {bad[0]} is not a seat of a {n}-player game", f"seats are 1 to {n}")
        others = [i for i in range(n) if i not in seats]
        if others:
            bots = iter(_bots(args.bots or "random", len(others), spec))
            names = [HUMAN if i in seats else next(bots) for i in range(n)]
        elif args.bots:
            raise UsageError("--bots names bots, but every seat is played by a person", "drop --bots or a --seat")
        else:
            names = [HUMAN] * n
    save = args.save or args.resume or f"soan-play-{Path(spec.path).stem}-s{seed}.json"
    check_output_file(save, "--save")
    tables = api.tables(spec, n, params)
    session = Session(tables, seed, names, seats, out, script, save)
    out.print(f"{spec.name}" + (f", draft {spec.draft}" if spec.draft is not None else "")
              + f": {n} players, seed {seed}; you play " + ", ".join(f"P{i + 1}" for i in seats)
              + ("" if len(seats) == n else "; bots: " + ", ".join(f"P{i + 1} {b}" for i, b in enumerate(names)
                                                               if b != HUMAN))
              + ".  Type help for the commands.", markup=False)
    try:
        log, state = session.play()
    except SpecRuntimeError as e:
        return _runtime_error(spec, e, err)
    except ScriptMismatch as e:
        raise UsageError(f"{args.resume} does not continue on {args.spec}: {e}",
                         "resume with the spec the game was played on") from None
    write_text(save, _log_text(log), "--save")
    if log["result"] is None:
        out.print(f"\nThe game so far ({len(log['steps'])} steps) is saved to {save}.  It is unfinished: "
                  f"soan replay checks finished games only.  Continue it with: soan play {args.spec} --resume {save}",
                  markup=False)
        return EXIT_OK
    session.tell_end(state)
    from soan.interpreter.play import GameRecord

    _print_result(GameRecord(log, state), tables, out)
    out.print(f"game log written to {save} (replay it with: soan replay {save})", markup=False)
    return EXIT_OK


def _log_text(log: dict) -> str:
    return json.dumps(log, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def _saved_game(path: str, spec, UsageError) -> dict:
    from soan.interpreter.logschema import LogProblem, validate_log

    try:
        log = api.load_log(path)
    except FileNotFoundError:
        raise UsageError(f"no such saved game: {path}") from None
    except (OSError, ValueError) as e:
        raise UsageError(f"{path} is not a game saved by soan play: {getattr(e, 'strerror', None) or e}") from None
    try:  # an unfinished game has no result yet: the rest of the schema must hold all the same
        validate_log({**log, "result": log.get("result") or {"scores": {f"P{i + 1}": 0 for i in
                                                                      range(log.get("players") or 0)},
                                                           "winners": []}}
                     if isinstance(log, dict) and isinstance(log.get("players"), int) else log)
    except LogProblem as e:
        raise UsageError(f"{path} is not a valid saved game: field {e.field}: {e.message}") from None
    if HUMAN not in log["bots"]:
        raise UsageError(f"{path} is a game of bots, with nobody's seat to take", f"soan replay {path} tells it")
    if log["spec"]["name"] != spec.name or log["spec"]["sha256"] != spec_digest(spec):
        raise UsageError(f"{path} was played on another text of {log['spec']['name']} than {spec.path}",
                         "resume with the spec the game was played on")
    if not spec.min_players <= log["players"] <= spec.max_players:
        raise UsageError(f"{path}: {log['players']} players, but {spec.name} is for {spec.min_players} to "
                         f"{spec.max_players}")
    return log


class ScriptMismatch(Exception):
    pass


class Session:
    """One game at the terminal.  `answers` holds each person's answer in order; the game is played again
    from the start with them whenever it must go back (undo)."""

    def __init__(self, tables, seed: int, names: list[str], seats: list[int], out, script: list[dict],
                 save: str | None = None):
        self.t, self.seed, self.names, self.seats, self.out, self.save = tables, seed, names, seats, out, save
        self.steps: list[dict] = []
        self.script = list(script)  # a resumed game's logged moves of the people's seats, in order
        self.answers: list[int] = []
        self.asked = 0
        self.seen = {p: 0 for p in seats}  # how far into the account each seat has been told
        # account line -> (the move's value, the seats that saw its cards as it was taken): a seat may read the
        # move's cards if it saw them then or sees them when told (a card laid face down, then revealed)
        self.masks: dict[int, tuple] = {}
        self.noting = None  # (account line, move value, seats that saw its cards before) of the move being taken
        self.state: State | None = None
        self.last_seat: int | None = None
        self.titles: dict[str, str] = {}

    # ---- the game loop -------------------------------------------------------------------------

    def play(self) -> tuple[dict, State]:
        """Play to the end or to quit; the log (result None if unfinished) and the last state."""
        while True:
            steps = self.steps = []
            streams = Streams(self.seed)
            bots = bot_chooser(self.seed, self.names, streams, self.t)
            self.asked = 0
            self.masks.clear()

            def choose(st, p, moves):
                i = self.decide(st, p, moves) if self.names[p] == HUMAN else bots(st, p, moves)
                self.noting = (len(st.events), moves[i].value, self._seeing(st, moves[i].value))
                return i

            try:
                rec = record_game(self.t, self.seed, choose, self.names, narrate=True, on_step=self._stepped,
                                  streams=streams, steps=steps)
                return rec.log, rec.state
            except _Undo:
                self.answers.pop()
                self.out.print("(taken back: the game is played again up to that decision)", markup=False)
            except _Quit:
                return game_log(self.t, self.seed, self.names, steps, self.state), self.state

    def _stepped(self, st: State) -> None:
        self.state = st
        self.titles = self.titles or score_titles(st)
        if self.noting is not None:
            line, value, before = self.noting
            self.masks[line] = (value, before | self._seeing(st, value))
            self.noting = None

    def _seeing(self, st: State, value) -> int:
        """The seats that may see every card a move names (all of them for a move that names none)."""
        mask = (1 << self.t.n) - 1
        for cid in _cards(value):
            mask &= st.viewers(cid)
        return mask

    def decide(self, st: State, p: int, moves) -> int:
        forced = len(moves) < 2
        if self.script and (forced or self.asked >= len(self.answers)):
            step = self.script.pop(0)
            i = step["index"]
            if step["player"] != p + 1 or not 0 <= i < len(moves) or moves[i].label != step["move"]:
                raise ScriptMismatch(f"P{p + 1}'s saved move '{step['move']}' is not legal here")
            if not forced:
                self.answers.append(i)
                self.asked += 1
            return i
        if forced:
            return 0  # nobody is asked about a forced move; the account tells it
        if self.asked < len(self.answers):  # playing the game again after an undo
            i = self.answers[self.asked]
            self.asked += 1
            return i
        i = self.ask(st, p, moves)
        self.answers.append(i)
        self.asked += 1
        return i

    # ---- one decision at the terminal ----------------------------------------------------------

    def ask(self, st: State, p: int, moves) -> int:
        out = self.out
        if self.save:  # saved before every question, so Ctrl-C or a closed terminal loses nothing
            write_text(self.save, _log_text(game_log(self.t, self.seed, self.names, self.steps, st)), "--save")
        if len(self.seats) > 1 and p != self.last_seat:
            out.print(f"\n── P{p + 1}'s turn: pass the keyboard to P{p + 1} and press Enter ──", markup=False)
            if self._line(f"P{p + 1}, press Enter > ") is None:
                raise _Quit()
            if out.is_terminal:
                out.clear()  # the last seat's table must not stay on the screen for the next person
            else:
                out.print("", markup=False)
        self.last_seat = p
        self.seen[p] = min(self.seen[p], len(st.events))  # after an undo, the account starts again earlier
        news = self.account(st, [p], self.seen[p], len(st.events))
        if news:
            out.print("\nSince your last decision:", markup=False)
            for line in news:
                out.print(line, markup=False)
        self.seen[p] = len(st.events)
        self.show(st, p, moves)
        while True:
            line = self._line(f"P{p + 1}: move 1-{len(moves)}, or help, show, log, undo, quit > ")
            if line is None:
                raise _Quit()
            word = line.strip()
            low = word.lower()
            if low in ("quit", "q", "exit"):
                raise _Quit()
            if low in ("help", "h", "?"):
                out.print(HELP, markup=False)
            elif low in ("show", "s"):
                self.show(st, p, moves)
            elif low in ("log", "l"):
                lines = self.account(st, [p], 0, len(st.events))
                out.print("\n".join(lines) if lines else "(nothing has happened yet)", markup=False)
            elif low in ("undo", "u"):
                if not self.answers:
                    out.print("nothing to undo: this is your first decision", markup=False)
                else:
                    raise _Undo()
            elif word.isdigit() and 1 <= int(word) <= len(moves):
                return int(word) - 1
            elif word in [m.label for m in moves]:
                return [m.label for m in moves].index(word)
            elif not word:
                continue
            else:
                out.print(f"'{word}' is neither a move number (1 to {len(moves)}) nor a command; "
                          "type help for the commands", markup=False)

    def _line(self, prompt: str) -> str | None:
        self.out.print(prompt, end="", markup=False)
        self.out.file.flush()
        try:
            line = sys.stdin.readline()
        except (OSError, ValueError):  # no input to read from (closed, or not readable): as at its end
            line = ""
        if not line:
            self.out.print("", markup=False)
            return None
        return line

    def account(self, st: State, readers: list[int], start: int, end: int) -> list[str]:
        """The account's lines from event `start` to `end` as every seat in `readers` may read them: a move
        that names a card one of them cannot see is told without its cards."""
        lines = []
        for k in range(start, end):
            e = st.events[k]
            value, seen = self.masks.get(k, (None, -1))
            if e[0] == "move" and any(q != e[1] and not (seen | self._seeing(st, value)) & (1 << q) for q in readers):
                _, who, prompt, _label, secret = e
                lines.append(f"  P{who + 1} {prompt}" + ("  (secretly)" if secret else "  (not shown to you)"))
                continue
            line = event_line(e, self.titles)
            if line is not None:
                lines.append(line)
        return lines

    def show(self, st: State, p: int, moves) -> None:
        out, t = self.out, self.t
        v = st.view(p)
        phase = next((e for e in reversed(st.events) if e[0] == "phase"), None)
        where = f"round {st.round}" if st.round else "setup"
        if phase is not None:
            where += f", {phase[2] or phase[1]}"
        out.print(f"\n══ P{p + 1} · {where} ══", markup=False)
        out.print("Scores: " + " · ".join(f"{k} {row['vp']}" + (" (out)" if row["eliminated"] else "")
                                        for k, row in v["players"].items()), markup=False)
        for name, tok in t.tokens.items():
            out.print(f"{_titled(name, tok.title)}: " + " · ".join(f"{k} {row[name]}" for k, row in v["players"].items())
                      + f"  (supply {v['supply'][name]})", markup=False)
        for name, var in t.player_vars.items():
            out.print(f"{_titled(name, var.title)}: " + " · ".join(f"{k} {row[name]}" for k, row in v["players"].items()),
                      markup=False)
        for name, var in t.global_vars.items():
            out.print(f"{_titled(name, var.title)}: {v['globals'][name]}", markup=False)
        mine, shared, others = [], [], []
        for slot, (z, owner) in enumerate(t.zone_slots):
            label = t.zone_label(slot)
            if label not in v["zones"]:
                continue
            cards = [_card_shown(st, cid, p) for cid in st.zones[slot]]
            if owner is None:
                shared.append(f"  {_titled(z.name, z.title)}: {_cards_text(cards, z.order)}")
            elif owner.i == p:
                mine.append(f"  {_titled(z.name, z.title)}: {_cards_text(cards, z.order)}")
            elif cards:
                others.append(f"  P{owner.i + 1} {_titled(z.name, z.title)}: {_cards_text(cards, z.order)}")
        for head, rows in (("Yours:", mine), ("On the table:", shared), ("The others':", others)):
            if rows:
                out.print(head, markup=False)
                for row in rows:
                    out.print(row, markup=False)
        prompt = st.pending.prompt or "chooses"
        out.print(f"P{p + 1} {prompt}:", markup=False)
        width = len(str(len(moves)))
        for k, m in enumerate(moves, start=1):
            out.print(f"  {k:>{width}}. {'(pass)' if m.value is PASS else m.label}", markup=False)

    def tell_end(self, st: State) -> None:
        """The rest of the account once the game is over, as every person at the table may read it."""
        lines = self.account(st, self.seats, min(self.seen.values()), len(st.events))
        if lines:
            self.out.print("\nTo the end of the game:", markup=False)
            for line in lines:
                self.out.print(line, markup=False)


def _card_shown(st: State, cid: int, p: int) -> str:
    """A card as seat `p` sees it (as in the view: '?' where it cannot), a die's face always shown: the view
    leaves out states at their starting value, and a die showing 1 would look as if it showed nothing."""
    if not st.viewers(cid) & (1 << p):
        return "?"
    text = st.card_text(cid)
    if "face" in st.t.kind_states[st.t.kind[cid]] and "face=" not in text:
        face = f"face={st.cs['face'][cid]}"
        text = text[:-1] + f", {face}]" if text.endswith("]") else f"{text} [{face}]"
    return text


def _titled(name: str, title: str | None) -> str:
    return f"{name} {title}" if title and title != name else name


def _cards_text(cards: list[str], order: str) -> str:
    """A zone's cards as a person reads them: hidden ones counted; in an unordered zone equal cards counted."""
    if not cards:
        return "empty"
    hidden = cards.count("?")
    if hidden == len(cards):
        return f"{hidden} hidden"
    if order == "unordered":
        counts: dict[str, int] = {}
        for c in cards:
            if c != "?":
                counts[c] = counts.get(c, 0) + 1
        shown = [c if k == 1 else f"{c} ×{k}" for c, k in counts.items()]
        return ", ".join(shown) + (f"; {hidden} hidden" if hidden else "")
    return ", ".join("(hidden)" if c == "?" else c for c in cards)


def _cards(value) -> list[int]:
    if type(value) is CardRef:
        return [value.id]
    if type(value) in (tuple, list):
        return [cid for v in value for cid in _cards(v)]
    return []
