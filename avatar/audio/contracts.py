"""The audio stage's contracts: where frames come from (AudioSource) and where replies play (AudioSink)."""
from __future__ import annotations

from typing import Callable, Iterator, Protocol, runtime_checkable

import numpy as np

from avatar.frames import AudioFrame


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
