"""Where the speech in a whole recording starts and ends (offline, for benches: the "true" end of speech).

Silero over the whole file with a fresh state, as faster-whisper's VAD filter does; an energy
threshold would count a recording's noise floor as speech.
"""
from __future__ import annotations

import numpy as np

from avatar.frames import SAMPLE_RATE
from avatar.vad.silero import CHUNK, SileroVAD

SPEECH_PROB = 0.5
MIN_RUN_CHUNKS = 3  # ~100 ms: a click is not where speech ends


def speech_span(pcm: np.ndarray, silero: SileroVAD | None = None) -> tuple[float, float] | None:
    """(stream seconds of the first speech sample, of the last), or None when there is no speech."""
    vad = silero or SileroVAD()
    vad.reset()
    n = len(pcm) // CHUNK
    speech = np.array([vad(pcm[i * CHUNK:(i + 1) * CHUNK]) >= SPEECH_PROB for i in range(n)], dtype=bool)
    vad.reset()
    runs, start = [], None
    for i, s in enumerate(list(speech) + [False]):
        if s and start is None:
            start = i
        elif not s and start is not None:
            if i - start >= MIN_RUN_CHUNKS:
                runs.append((start, i))
            start = None
    if not runs:
        return None
    return runs[0][0] * CHUNK / SAMPLE_RATE, runs[-1][1] * CHUNK / SAMPLE_RATE
