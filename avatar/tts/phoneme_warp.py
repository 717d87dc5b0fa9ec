"""Phoneme timings borrowed from one voice for another's audio: the mouth of a voice that reports none.

SVOX Pico gives audio only. espeak-ng says the same text with a phoneme event for every sound; its
phonemes are moved onto the other voice's audio piece by piece: both are cut into stretches of speech
at their pauses, and when the two have as many stretches, each of espeak-ng's is stretched onto its
counterpart (a phrase pause lands where the other voice pauses); otherwise its whole speech is stretched
onto the other's. How close this comes, measured on piper, whose own timings are known:
evals/tts/lip_sync.py, docs/PERF.md ("Pico's mouth").
"""
from __future__ import annotations

import numpy as np

_FRAME_S = 0.01
_QUIET = 0.06      # a frame quieter than this share of the clause's loudest frame is silence
_MIN_PAUSE_S = 0.08  # a shorter silence is a stop consonant, not a pause


def speech_runs(pcm: np.ndarray, rate: int) -> list[tuple[float, float]]:
    """(start s, end s) of each stretch of speech, split at pauses of at least _MIN_PAUSE_S."""
    hop = max(1, int(_FRAME_S * rate))
    n = len(pcm) // hop
    if n == 0:
        return []
    frames = pcm[:n * hop].astype(np.float32).reshape(n, hop)
    rms = np.sqrt(np.mean(frames ** 2, axis=1))
    loud = rms > (float(rms.max()) * _QUIET if rms.max() > 0 else 1.0)
    runs: list[list[int]] = []
    gap = int(round(_MIN_PAUSE_S / _FRAME_S))
    for i in np.flatnonzero(loud):
        if runs and i - runs[-1][1] <= gap:
            runs[-1][1] = int(i) + 1
        else:
            runs.append([int(i), int(i) + 1])
    return [(a * _FRAME_S, b * _FRAME_S) for a, b in runs]


def warp_map(source: list[tuple[float, float]], target: list[tuple[float, float]]):
    """A function from source time to target time: stretch by stretch when both have as many, else
    the whole speech onto the whole speech (times outside it keep their distance to it)."""
    if not source or not target:
        return None
    if len(source) != len(target):
        source, target = [(source[0][0], source[-1][1])], [(target[0][0], target[-1][1])]
    xs, ys = [], []
    for (a0, a1), (b0, b1) in zip(source, target):
        xs += [a0, a1]
        ys += [b0, b1]
    xs_a, ys_a = np.array(xs), np.array(ys)

    def to_target(t: float) -> float:
        if t <= xs_a[0]:
            return max(0.0, ys_a[0] - (xs_a[0] - t))
        if t >= xs_a[-1]:
            return ys_a[-1] + (t - xs_a[-1])
        return float(np.interp(t, xs_a, ys_a))

    return to_target


def warp_phonemes(timed: list[tuple[str, float, float]], source_pcm: np.ndarray, source_rate: int,
                  target_pcm: np.ndarray, target_rate: int) -> list[tuple[str, float, float]] | None:
    """(phoneme, start s, duration s) of `timed` (timings in the source audio) moved onto the target
    audio; None when either has no speech."""
    to_target = warp_map(speech_runs(source_pcm, source_rate), speech_runs(target_pcm, target_rate))
    if to_target is None or not timed:
        return None
    total = len(target_pcm) / target_rate
    out = []
    for phoneme, start, duration in timed:
        a, b = min(total, to_target(start)), min(total, to_target(start + duration))
        out.append((phoneme, a, max(0.0, b - a)))
    return out
