"""The game log's schema (docs/log-format.md), checked before a log is replayed.

A log that does not fit, or disagrees with itself (a move index below zero, more
bots than players, a result naming a player the game did not have), is refused
with the field named, so a replay never runs on a log it cannot trust.
"""

from __future__ import annotations

import re

from soan.dsl.limits import MAX_DECISIONS, MAX_PLAYERS

LOG_FORMATS = (1, 2, 3)  # 3: random streams and "in_force"; 2: the streams (in_force optional); 1: still replays
_HEX64 = re.compile(r"[0-9a-f]{64}")


class LogProblem(ValueError):
    """`field` is the JSON path of the field at fault, e.g. steps[3].index."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _need(cond: bool, field: str, message: str) -> None:
    if not cond:
        raise LogProblem(field, message)


def _scalar(v) -> bool:
    return isinstance(v, (bool, str)) or _is_int(v)


def validate_log(log) -> None:
    """Raise LogProblem at the first field that does not fit the schema or disagrees with the rest."""
    _need(isinstance(log, dict), "(top level)", "a game log is a JSON object")
    _need(log.get("soan_log") in LOG_FORMATS, "soan_log",
          f"format {log.get('soan_log')!r} is not one soan reads ({', '.join(map(str, LOG_FORMATS))})")
    fields = {"soan_log", "spec", "players", "seed", "bots", "params", "steps", "result", "consulted_rulings"}
    if log["soan_log"] >= 3 or (log["soan_log"] == 2 and "in_force" in log):
        fields.add("in_force")
    missing = sorted(fields - set(log))
    _need(not missing, missing[0] if missing else "", "missing")
    extra = sorted(set(log) - fields)
    _need(not extra, extra[0] if extra else "", "not a field of a soan game log")

    spec = log["spec"]
    _need(isinstance(spec, dict), "spec", "must be an object with name, draft, path and sha256")
    for key in ("name", "draft", "path", "sha256"):
        _need(key in spec, f"spec.{key}", "missing")
    _need(isinstance(spec["name"], str), "spec.name", "must be a string")
    _need(spec["draft"] is None or _is_int(spec["draft"]), "spec.draft", "must be a whole number or null")
    _need(isinstance(spec["path"], str) and spec["path"] != "", "spec.path", "must be the spec's path (a string)")
    _need(isinstance(spec["sha256"], str) and _HEX64.fullmatch(spec["sha256"]) is not None, "spec.sha256",
          "must be 64 hexadecimal digits")

    n = log["players"]
    _need(_is_int(n) and 1 <= n <= MAX_PLAYERS, "players", f"must be a whole number from 1 to {MAX_PLAYERS}")
    _need(_is_int(log["seed"]), "seed", "must be a whole number")
    bots = log["bots"]
    _need(isinstance(bots, list) and all(isinstance(b, str) and b for b in bots), "bots", "must be a list of bot names")
    _need(len(bots) == n, "bots", f"names {len(bots)} bots for {n} players")
    params = log["params"]
    _need(isinstance(params, dict) and all(_scalar(v) for v in params.values()), "params",
          "must map rulings, assumptions and options to their values")
    if "in_force" in log:
        in_force = log["in_force"]
        _need(isinstance(in_force, dict) and all(_scalar(v) for v in in_force.values()), "in_force",
              "must map every ruling, assumption and option to the value it had")
        for k, v in params.items():
            _need(in_force.get(k) == v, f"in_force.{k}", f"is {in_force.get(k)!r}, but params sets it to {v!r}")
    consulted = log["consulted_rulings"]
    _need(isinstance(consulted, list) and all(isinstance(c, str) for c in consulted), "consulted_rulings",
          "must be a list of ruling names")

    steps = log["steps"]
    _need(isinstance(steps, list), "steps", "must be a list")
    _need(len(steps) <= MAX_DECISIONS, "steps", f"a game has at most {MAX_DECISIONS:,} steps")
    for k, step in enumerate(steps):
        where = f"steps[{k}]"
        _need(isinstance(step, dict), where, "must be an object")
        if "chance" in step:
            _need(set(step) == {"chance", "outcome"}, where, "a chance step has exactly 'chance' and 'outcome'")
            _need(isinstance(step["chance"], str), f"{where}.chance", "must be a string")
            out = step["outcome"]
            _need(_is_int(out) and out >= 0 or isinstance(out, list) and all(_is_int(i) and i >= 0 for i in out),
                  f"{where}.outcome", "must be an outcome number or, for a shuffle, a list of positions")
        else:
            _need(set(step) == {"player", "move", "index"}, where, "a move has exactly 'player', 'move' and 'index'")
            _need(_is_int(step["player"]) and 1 <= step["player"] <= n, f"{where}.player",
                  f"must be a seat from 1 to {n} (the log's players)")
            _need(isinstance(step["move"], str), f"{where}.move", "must be the move's label")
            _need(_is_int(step["index"]) and step["index"] >= 0, f"{where}.index",
                  "must be the move's number among the legal moves, 0 or more")

    result = log["result"]
    _need(isinstance(result, dict), "result", "must be an object")
    seats = {f"P{i + 1}" for i in range(n)}
    scores = result.get("scores")
    _need(isinstance(scores, dict) and all(_is_int(v) for v in scores.values()), "result.scores",
          "must map each player to a score")
    _need(set(scores) == seats, "result.scores", f"names {', '.join(sorted(scores)) or 'nobody'}, "
                                                 f"but the log has {n} players")
    winners = result.get("winners")
    _need(isinstance(winners, list) and set(winners) <= seats, "result.winners", "must list players of this game")
