"""One decoded reply record, as the answerer's decoder produced it (the checks' input)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Candidate:
    """The record `<de>|<en> <mood> <sep> spoken text <eos>` decoded once.

    `variant` says which decode made it (0 = the answerer's default order and seed; k > 0 = another
    seed/unmasking order), `decode_info` carries the decoder's numbers (steps, tokens, ms).
    """
    text: str
    lang: str
    mood: str = "neutral"
    token_ids: list[int] = field(default_factory=list)
    decode_info: dict[str, Any] = field(default_factory=dict)
    gesture: str = ""
    variant: int = 0
