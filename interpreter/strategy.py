"""A strategy the spec declares (`strategy NAME "text" else BOT { prefer ... }`),
played as a bot.

At each decision the preferences are tried in order; the first one that
applies to some legal move decides among the moves it applies to, and where
none applies the fallback bot decides.  The preferences' expressions are
read in a state sampled from the seat's own view (BotInput.sample), never in
the real one, so a strategy can no more see a hidden card than any bot.
"""

from __future__ import annotations

import random

from soan.dsl.errors import SpecRuntimeError

from .runtime import ExprCompiler
from .state import PASS


class StrategyBot:
    def __init__(self, tables, name: str, seat: int, rng: random.Random):
        from .bots import make_bot

        decl = next(s for s in tables.spec.strategies if s.name == name)
        self.name = name
        self.seat, self.rng = seat, rng
        self.fallback = make_bot(decl.fallback, seat, rng, tables)
        x = ExprCompiler(tables, tables.rules)
        self.prefers = [(p.kind, p.name, x(p.where), x(p.when)) for p in decl.prefers]
        self.me = tables.P[seat]

    def choose(self, info) -> int:
        rng = info.rng or self.rng
        sample = info.sample(rng)
        moves = sample.pending.moves
        env = {"me": self.me}
        for kind, name, where, when in self.prefers:
            if when is not None and not _holds(when, sample, env):
                continue
            if kind == "option":
                hits = [i for i, m in enumerate(moves) if m.label == name
                        and (m.value is PASS or sample.pending.options is not None)]
            else:
                hits = []
                for i, m in enumerate(moves):
                    if m.value is PASS or sample.pending.options is not None:
                        continue
                    if where is None or _holds(where, sample, {**env, name: m.value}):
                        hits.append(i)
            if hits:
                if len(hits) == 1:
                    return hits[0]
                pick = self.fallback.choose(info)  # several moves fit: the fallback's pick if it is one of them
                return pick if pick in hits else hits[rng.randrange(len(hits))]
        return self.fallback.choose(info)


def _holds(fn, state, env) -> bool:
    """Whether a preference's expression holds; one that cannot be read for this move (a field the item
    does not have) does not."""
    try:
        return bool(fn(state, env))
    except (SpecRuntimeError, TypeError, AttributeError, KeyError, IndexError):
        return False
