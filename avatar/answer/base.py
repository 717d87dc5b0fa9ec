"""The answerer interface: a question in, a grounded reply out (the pipeline knows nothing more)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Protocol

from avatar.cancel import NEVER, CancelToken


@dataclass(frozen=True)
class Fact:
    """One statement of a venue's knowledge pack, in one language."""
    id: str
    lang: str
    text: str
    topic: str = ""
    score: float = 0.0


@dataclass(frozen=True)
class HistoryTurn:
    question: str
    reply: str
    lang: str


@dataclass
class Answer:
    reply: str
    lang: str
    facts: list[Fact] = field(default_factory=list)
    mood: str = "neutral"
    gesture: str = ""
    checks: dict[str, Any] = field(default_factory=dict)
    decode: dict[str, Any] = field(default_factory=dict)
    source: str = ""  # which answerer produced it (retrieval, diffusion, fallback)

    def to_json(self) -> dict[str, Any]:
        return {"reply": self.reply, "lang": self.lang, "facts": [f.text for f in self.facts],
                "mood": self.mood, "gesture": self.gesture, "checks": self.checks,
                "decode": self.decode, "source": self.source}


class Answerer(Protocol):
    def answer(self, question: str, lang: str, history: list[HistoryTurn] = (),
               cancel: CancelToken = NEVER, turn: int | None = None) -> Answer: ...


def stream_text(answer: Answer) -> Iterator[str]:
    """Reply text pieces as they become final; a whole checked answer is one piece."""
    yield answer.reply
