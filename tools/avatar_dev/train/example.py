"""`Example`, one training record: (facts, history, question) -> reply. Its own module, below the
generators that make it (corpus.py, styled.py), so that corpus.py can mix styled.py's examples in
without the two importing each other."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Example:
    lang: str
    facts: list[str]
    question: str
    reply: str
    mood: str
    kind: str                      # fact | followup | decline | smalltalk
    history: list[tuple[str, str]] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
