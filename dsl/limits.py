"""The sizes soan accepts, checked when a spec is read (documented in the README, "Limits").

A spec that goes beyond one of these is reported as a located problem at
`soan check`, never found out later as a hang, a crash or exhausted memory.
Each maximum is far above what any draft needs (the shipped drafts nest at most
20 levels deep and deal at most a few hundred cards).
"""

from __future__ import annotations

MAX_NESTING = 1000  # levels of one declaration's syntax tree: nested blocks, and the terms of one long expression
MAX_SPEC_BYTES = 2_000_000  # a spec file (and each file it extends)
MAX_PLAYERS = 64  # the most players a game may declare
MAX_CARDS = 100_000  # cards and pieces dealt in one game, over all card sets and players
MAX_COUNT = 1_000_000  # any one count written in a spec: copies of a card, a supply, a repeat, a loop cap, rounds
MAX_STEPS = 2_000_000  # rule steps one game may take before it is stopped (loops count every pass)
MAX_SHOWN_LINE = 200  # characters of a source line echoed under an error message

# The recursion soan needs to read MAX_NESTING levels, with room to spare; the command line runs in a thread
# with a stack big enough for it.
RECURSION_LIMIT = 60_000
STACK_BYTES = 512 * 1024 * 1024
