"""The answerer interface: a question in, a grounded reply out (the pipeline knows nothing more).

Part of the shared core: the events, the pipeline and the HUD carry these types; the answer stage
names them through avatar/answer/base.py."""
from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, field, fields
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


@dataclass(frozen=True)
class CheckReport:
    """What the answer checks did in one turn: it travels Answer -> ReplyDone -> TurnMetrics -> HUD.

    `enabled`: True when the checker ran, False when it was switched off, None when no checker was
    involved (a retrieval answer: only `retrieval` or `smalltalk` tell what it did). Where JSON is
    written, `to_dict()` gives the record the checks dict always was (docs/INTERFACES.md)."""
    enabled: bool | None = None
    passes: list[str] = field(default_factory=list)   # checks passed by the reply said (none after a fallback)
    failed: list[str] = field(default_factory=list)   # checks whose failure re-decoded or replaced, in order
    grounded: bool | None = None   # None: not run
    relevant: bool | None = None
    agreement: bool | None = None  # a second decode carried the same content
    vote: dict[str, Any] | None = None  # {winner, votes, majority} of a third decode's vote
    schema_ok: bool | None = None
    fallback_used: bool = False
    fallback: str = ""             # "fact|not_known|…:reason" when the reply was replaced
    redecodes: int = 0
    decodes: int = 0
    unsupported: list[str] = field(default_factory=list)      # reply items no fact backs
    schema_problems: list[str] = field(default_factory=list)
    banned: list[str] = field(default_factory=list)           # strings the re-decodes could not write
    ms: dict[str, float] = field(default_factory=dict)        # check -> ms
    skipped: list[str] = field(default_factory=list)          # checks left out for time
    not_needed: list[str] = field(default_factory=list)       # checks with nothing to check
    budget_ms: float | None = None
    # set only where it happened (the dict carried these keys only then)
    spent_ms: float | None = None
    answerable: str | None = None        # the fact that answers a declined question
    asked: Any = None                    # what the question asked about, when the reply was off topic
    overlap: float | None = None         # content overlap of the two decodes
    source: dict[str, Any] | None = None   # {fact, coverage}: the fact the reply came from
    snapped: dict[str, Any] | None = None  # {reason, ratio, fact, from}: a garbled reply became a fact clause
    fallback_reason: str | None = None     # the pipeline's: the answerer failed (the exception's name)
    retrieval: dict[str, Any] | None = None         # the retrieval answerer's record
    retrieval_backed: dict[str, Any] | None = None  # it replaced the checked reply
    smalltalk: str | None = None                    # a greeting, thanks, ... answered without facts
    extra: dict[str, Any] = field(default_factory=dict)  # keys of an older caller's dict not known here

    # the keys the checker's record always carried
    CHECKER_KEYS = ("enabled", "passes", "failed", "grounded", "relevant", "agreement", "vote", "schema_ok",
                    "fallback_used", "fallback", "redecodes", "decodes", "unsupported", "schema_problems",
                    "banned", "ms", "skipped", "not_needed", "budget_ms")

    def __bool__(self) -> bool:
        return bool(self.to_dict())

    @property
    def ran(self) -> bool:
        return self.enabled is True

    def to_dict(self) -> dict[str, Any]:
        """The checks dict: every checker key when the checker ran, else only what was set."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            default = f.default_factory() if f.default_factory is not MISSING else f.default  # type: ignore[misc]
            if (self.enabled is True and f.name in self.CHECKER_KEYS) or value != default:
                out[f.name] = _plain(value)
        return {**out, **self.extra}

    @classmethod
    def of(cls, value: "CheckReport | Mapping[str, Any] | None") -> "CheckReport":
        """A CheckReport from itself, or from the checks dict a JSON file holds (trace, bench record)."""
        if isinstance(value, CheckReport):
            return value
        value = dict(value or {})
        known = {f.name for f in fields(cls)} - {"extra"}
        return cls(**{k: v for k, v in value.items() if k in known},
                   extra={k: v for k, v in value.items() if k not in known})


def _plain(value: Any) -> Any:
    """A copy JSON can write (lists and dicts not shared with the record)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Answer:
    """What an answerer returns; frozen: a later stage that changes it makes a new one (dataclasses.replace)."""
    reply: str
    lang: str
    facts: list[Fact] = field(default_factory=list)
    mood: str = "neutral"
    gesture: str = ""
    checks: CheckReport = field(default_factory=CheckReport)
    decode: DecodeStats = field(default_factory=DecodeStats)
    source: str = ""  # which answerer produced it (retrieval, diffusion, fallback)

    def to_json(self) -> dict[str, Any]:
        return {"reply": self.reply, "lang": self.lang, "facts": [f.text for f in self.facts],
                "mood": self.mood, "gesture": self.gesture, "checks": self.checks.to_dict(),
                "decode": self.decode.to_json(), "source": self.source}


class Answerer(Protocol):
    def answer(self, question: str, lang: str, history: list[HistoryTurn] = (),
               cancel: CancelToken = NEVER, turn: int | None = None) -> Answer: ...
