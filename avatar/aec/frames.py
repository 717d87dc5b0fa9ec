"""Audio frames for simulations: the project's AudioFrame, or a stand-in with the same fields."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SimFrame:
    """Same fields as avatar.audio.AudioFrame (used only where that module cannot be imported)."""
    pcm: np.ndarray
    t: float
    audio_t: float


def make_frame(pcm: np.ndarray, t: float, audio_t: float):
    try:
        from avatar.audio import AudioFrame
    except ImportError:
        AudioFrame = SimFrame
    return AudioFrame(pcm=np.asarray(pcm, dtype=np.int16), t=t, audio_t=audio_t)
