"""Typed events that flow between the stages and out to observers (HUD, tracer, tests).

Stages emit these; `pipeline/` wires them together; `ui/` only observes them. Every event carries
`t`, the time on the one clock (`avatar.trace.now()`) when it happened.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from avatar.answer_types import CheckReport, DecodeStats


@dataclass(frozen=True)
class Event:
    t: float


# --- voice activity / endpointing -------------------------------------------------------------
@dataclass(frozen=True)
class SpeechStart(Event):
    """The visitor started speaking; `audio_t` is the stream time (s) of the first speech sample."""
    audio_t: float = 0.0


@dataclass(frozen=True)
class TentativeEnd(Event):
    """A short silence: speculative work may start. `audio_t` = stream time of the last speech sample."""
    audio_t: float = 0.0


@dataclass(frozen=True)
class EndOfTurn(Event):
    """The silence lasted: the turn is over. `audio_t` = stream time of the last speech sample."""
    audio_t: float = 0.0


@dataclass(frozen=True)
class Resumed(Event):
    """The visitor went on after a tentative end: speculative work must be cancelled."""
    audio_t: float = 0.0


# --- speech recognition --------------------------------------------------------------------------
@dataclass(frozen=True)
class PartialTranscript(Event):
    text: str = ""
    lang: str = ""


@dataclass(frozen=True)
class FinalTranscript(Event):
    text: str = ""
    lang: str = ""
    lang_prob: float = 0.0
    dropped: str = ""  # why the transcript was dropped (hallucination, empty, noise), "" if kept


# --- answer and speech -------------------------------------------------------------------------
@dataclass(frozen=True)
class ReplyStarted(Event):
    turn: int = 0
    question: str = ""
    lang: str = ""


@dataclass(frozen=True)
class ReplyClause(Event):
    turn: int = 0
    index: int = 0
    text: str = ""
    lang: str = ""
    voice: str = ""  # the voice that speaks it (SpeechChunk.voice: "piper en_US-joe-medium", "pico de-DE", ...)


@dataclass(frozen=True)
class ReplyDone(Event):
    turn: int = 0
    text: str = ""
    lang: str = ""
    mood: str = "neutral"
    gesture: str = ""
    checks: CheckReport = field(default_factory=CheckReport)
    decode: DecodeStats = field(default_factory=DecodeStats)
    # silences the visitor heard inside the reply because its next piece was synthesized too late
    # (the loudspeaker ran dry between pieces): how many, and their estimated length in all
    gaps: int = 0
    gap_ms: float = 0.0


@dataclass(frozen=True)
class Viseme(Event):
    """Mouth shape for the avatar at audible time `at` (clock seconds), for `duration` seconds."""
    at: float = 0.0
    duration: float = 0.0
    viseme: str = "rest"
    level: float = 0.0


@dataclass(frozen=True)
class PlaybackStarted(Event):
    turn: int = 0


@dataclass(frozen=True)
class PlaybackStopped(Event):
    turn: int = 0
    reason: str = "done"  # done | barge_in | cancelled | error


# --- turn bookkeeping --------------------------------------------------------------------------
@dataclass(frozen=True)
class TurnMetrics(Event):
    """One finished turn: per-stage milliseconds and voice-to-voice latency."""
    turn: int = 0
    transcript: str = ""
    reply: str = ""
    lang: str = ""
    stages: dict[str, float] = field(default_factory=dict)
    voice_to_voice_ms: float | None = None
    speech_end: float = 0.0  # clock time of the last speech sample (endpointer's estimate)
    audible: float = 0.0  # clock time the first reply sample was audible
    speculative: bool = False
    discarded: int = 0
    decode: DecodeStats = field(default_factory=DecodeStats)
    checks: CheckReport = field(default_factory=CheckReport)
    # how the final transcript was made: path (tail | trimmed | full), fallback (why not the tail),
    # committed_words (confirmed while the visitor spoke), encoded_s (audio the final pass encoded)
    asr: dict[str, Any] = field(default_factory=dict)
    first_prepared: bool = False  # the reply's first clause was synthesized before the turn (tts.prefill, cache)


@dataclass(frozen=True)
class StageError(Event):
    stage: str = ""
    message: str = ""
    restarted: bool = False


@dataclass(frozen=True)
class Apology(Event):
    """A turn was lost to a failed or hung stage: the visitor is told so (spoken when a voice can)."""
    turn: int = 0
    stage: str = ""
    text: str = ""
    lang: str = ""


@dataclass(frozen=True)
class NotUnderstood(Event):
    """The visitor's words stopped the reply but the recogniser found none in them: rather than
    leave the visitor in silence, the avatar asks them to say it again (spoken when a voice can)."""
    turn: int = 0
    text: str = ""
    lang: str = ""


@dataclass(frozen=True)
class LanguageChanged(Event):
    lang: str = ""


@dataclass(frozen=True)
class VisitorLeft(Event):
    """No speech for the configured time: the visitor's history has been wiped."""


@dataclass(frozen=True)
class Notice(Event):
    """Something the operator should know (e.g. a fallback in use), shown in UI and doctor."""
    key: str = ""
    message: str = ""
