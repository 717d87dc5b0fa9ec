"""The unit of audio that flows from a source to the endpointer, and the source/sink contracts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Protocol, runtime_checkable

import numpy as np

SAMPLE_RATE = 16000  # every stage speaks 16 kHz mono int16


@dataclass(frozen=True)
class AudioFrame:
    pcm: np.ndarray   # int16, shape (N,)
    t: float          # clock time (avatar.trace.now()) the first sample was captured
    audio_t: float    # stream seconds of the first sample

    @property
    def duration(self) -> float:
        return len(self.pcm) / SAMPLE_RATE

    @property
    def end_audio_t(self) -> float:
        return self.audio_t + self.duration


@runtime_checkable
class AudioSource(Protocol):
    def frames(self) -> Iterator[AudioFrame]:
        """Blocking; ends at the end of the stream (or after close())."""
        ...

    def close(self) -> None: ...


Listener = Callable[[np.ndarray, float], None]  # (played block, 16 kHz int16; clock time it is audible)


@runtime_checkable
class AudioSink(Protocol):
    def play(self, pcm: np.ndarray, sample_rate: int) -> None:
        """Enqueue audio without blocking."""
        ...

    def stop(self) -> float:
        """Drop all queued audio at once (barge-in); the clock time output stopped being audible."""
        ...

    @property
    def playing(self) -> bool: ...

    def add_listener(self, fn: Listener) -> None: ...

    def close(self) -> None: ...
