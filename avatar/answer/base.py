"""The answerer interface: a question in, a grounded reply out (the pipeline knows nothing more)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Protocol

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


@dataclass(frozen=True)
class DecodeStats:
    """What producing a reply cost: it travels Answer -> ReplyDone -> TurnMetrics -> HUD.

    A retrieval answer ran no model: steps and tokens 0, decodes 0, only `ms`."""
    steps: int = 0                # forward passes of the chosen reply's decode
    tokens: int = 0               # tokens it committed
    ms: float = 0.0               # that decode's time (the whole answer's, for retrieval)
    decodes: int = 0              # decodes of the turn (the checks' re-decodes included)
    decode_ms_total: float = 0.0  # all of them together
    answer_ms: float | None = None  # question in, checked reply out (None: not measured)

    @property
    def answer_time_ms(self) -> float:
        """The whole answer's time where it was measured, else the decode's."""
        return self.answer_ms if self.answer_ms is not None else self.ms

    @property
    def tokens_per_pass(self) -> float | None:
        return self.tokens / self.steps if self.steps > 0 else None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def of(cls, value: "DecodeStats | Mapping[str, Any] | None") -> "DecodeStats":
        """A DecodeStats from itself, or from the dict an older caller still passes."""
        if isinstance(value, DecodeStats):
            return value
        value = value or {}
        known = {k: value[k] for k in cls.__dataclass_fields__ if value.get(k) is not None}
        if "steps" not in known and value.get("forward_passes") is not None:
            known["steps"] = value["forward_passes"]
        return cls(**known)


@dataclass
class Answer:
    reply: str
    lang: str
    facts: list[Fact] = field(default_factory=list)
    mood: str = "neutral"
    gesture: str = ""
    checks: dict[str, Any] = field(default_factory=dict)
    decode: DecodeStats = field(default_factory=DecodeStats)
    source: str = ""  # which answerer produced it (retrieval, diffusion, fallback)

    def __post_init__(self) -> None:
        self.decode = DecodeStats.of(self.decode)

    def to_json(self) -> dict[str, Any]:
        return {"reply": self.reply, "lang": self.lang, "facts": [f.text for f in self.facts],
                "mood": self.mood, "gesture": self.gesture, "checks": self.checks,
                "decode": self.decode.to_json(), "source": self.source}


class Answerer(Protocol):
    def answer(self, question: str, lang: str, history: list[HistoryTurn] = (),
               cancel: CancelToken = NEVER, turn: int | None = None) -> Answer: ...
