"""A verdict on one property of a spec: what `soan verify` reports, one per subject."""

from __future__ import annotations

import attrs


@attrs.define
class Finding:
    property: str
    subject: str
    verdict: str  # proved | witnessed | unknown
    claim: str
    detail: str = ""
    problem: bool = False
    bounds: dict | None = None
    witness: str | None = None  # path of a replayable log
    moves: list[str] = attrs.field(factory=list)
    # each ruling once, in the order first named (a token's shortage ruling is often also consulted)
    depends_on: list[str] = attrs.field(factory=list, converter=lambda xs: list(dict.fromkeys(xs)))

    def to_json(self) -> dict:
        return attrs.asdict(self)
