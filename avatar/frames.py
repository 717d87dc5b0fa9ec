"""The unit of audio every stage may import: 16 kHz mono int16 frames.

Shared core (like errors.py, trace.py, events.py): stages never import each other, so the frame
type and the one sample rate live here rather than in avatar/audio/.
"""
from __future__ import annotations

from dataclasses import dataclass

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
