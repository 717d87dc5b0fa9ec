"""Playback-to-capture delay from the signals themselves (GCC-PHAT cross-correlation).

The sink's timestamps leave out what no clock sees (driver buffers, the air between speaker and
microphone); this measures the rest from what was played and what the microphone heard.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from avatar.frames import SAMPLE_RATE


@dataclass(frozen=True)
class DelayEstimate:
    delay_ms: float     # how much later the echo is in the microphone than in the reference
    confidence: float   # peak height over the median of the correlation (>~ 5: trustworthy)


def estimate_delay(reference: np.ndarray, mic: np.ndarray, max_delay_ms: float = 500.0) -> DelayEstimate:
    """Delay of `reference` inside `mic` (both 16 kHz, aligned by clock); negative = mic leads."""
    ref = np.asarray(reference, dtype=np.float64).reshape(-1)
    mic = np.asarray(mic, dtype=np.float64).reshape(-1)
    n = min(ref.size, mic.size)
    if n < SAMPLE_RATE // 10 or not ref[:n].any() or not mic[:n].any():
        return DelayEstimate(0.0, 0.0)
    size = 1 << int(np.ceil(np.log2(2 * n)))
    cross = np.fft.rfft(mic[:n], size) * np.conj(np.fft.rfft(ref[:n], size))
    cross /= np.abs(cross) + 1e-12  # phase transform: sharp peak even for coloured speech
    corr = np.fft.irfft(cross, size)
    max_lag = min(int(max_delay_ms * SAMPLE_RATE / 1000), n - 1)
    lags = np.concatenate([corr[:max_lag + 1], corr[-max_lag:]]) if max_lag else corr[:1]
    values = np.abs(lags)
    best = int(np.argmax(values))
    lag = best if best <= max_lag else best - (2 * max_lag + 1)
    confidence = float(values[best] / (np.median(values) + 1e-12))
    return DelayEstimate(lag * 1000.0 / SAMPLE_RATE, confidence)
