"""What the voice loop expects of the stages it is handed, and the checks on what they return.

The stages' own contracts are in docs/INTERFACES.md; these Protocols name the part the loop calls.
A result that breaks its contract (wrong type, empty) is a failed stage (`StageOutputError`), not
a silent turn.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from avatar import events as ev
from avatar.answer_types import Answer
from avatar.pipeline.stage_call import StageOutputError


class Endpointer(Protocol):
    """avatar/vad/endpointer.py. Its readings `in_speech`, `voiced_ms`, `probability` and
    `silence_ms` are optional (a scripted stand-in has none): read them with `reading()`."""
    end_wait_ms: float  # settable: adaptive endpointing

    def process(self, frame) -> list[ev.Event]: ...

    def utterance(self) -> np.ndarray: ...

    def reset(self) -> None: ...


def reading(endpointer: Endpointer, name: str, default: Any) -> Any:
    """One of the endpointer's optional readings (see `Endpointer`), or `default` without it."""
    return getattr(endpointer, name, default)


class EchoCanceller(Protocol):
    """avatar/aec/echo_canceller.py: cleans each captured frame of the reply's echo."""

    def process(self, frame) -> Any: ...

    def add_reference(self, pcm: np.ndarray, t_audible: float) -> None: ...

    def near_end(self, probability: float) -> float: ...


@runtime_checkable
class PausableSink(Protocol):
    """A sink that can hold a reply at a voice onset (every sink of avatar/audio/ can)."""

    def pause(self) -> float: ...

    def resume(self) -> None: ...


def check_transcript(tr: Any) -> None:
    """An ASR result that breaks the contract is a failed stage, not a silent turn."""
    if not all(isinstance(getattr(tr, name, None), str) for name in ("text", "lang", "dropped")):
        raise StageOutputError("asr", f"a {type(tr).__name__} instead of a transcript")
    if not tr.text.strip() and not tr.dropped:
        raise StageOutputError("asr", "an empty transcript without saying why it was dropped")


def check_answer(answer: Any, stage: str = "answer") -> None:
    if not isinstance(answer, Answer) or not isinstance(answer.reply, str):
        raise StageOutputError(stage, f"a {type(answer).__name__} instead of an answer")
    if not answer.reply.strip():
        raise StageOutputError(stage, "an empty reply")


def check_chunk(chunk: Any) -> Any:
    pcm = getattr(chunk, "pcm", None)
    rate = getattr(chunk, "sample_rate", None)
    if not isinstance(pcm, np.ndarray) or not isinstance(rate, (int, np.integer)) or rate <= 0:
        raise StageOutputError("tts", f"a {type(chunk).__name__} instead of audio")
    if pcm.size == 0:
        raise StageOutputError("tts", "an empty clause")
    return chunk
