"""Echo return loss enhancement: how many dB quieter the echo is after the canceller.

ERLE = 10 log10(echo power at the microphone / power left after cancellation), counted only over
10 ms frames where the echo is audible and after the canceller had time to converge.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from avatar_dev.bench.room import impulse_response, room, simulate_mic
from avatar.frames import SAMPLE_RATE, AudioFrame

FRAME = SAMPLE_RATE // 100


def erle_db(echo: np.ndarray, residual: np.ndarray, skip_s: float = 2.0, active_db: float = -50.0) -> float:
    """ERLE (dB) over the frames after `skip_s` whose echo is louder than `active_db` dBFS."""
    e = np.asarray(echo, dtype=np.float64).reshape(-1)
    r = np.asarray(residual, dtype=np.float64).reshape(-1)
    n = min(e.size, r.size) // FRAME * FRAME
    skip = min(int(skip_s * SAMPLE_RATE) // FRAME * FRAME, n)
    ef = e[skip:n].reshape(-1, FRAME)
    rf = r[skip:n].reshape(-1, FRAME)
    power = np.mean(ef ** 2, axis=1)
    active = power > (32768 * 10 ** (active_db / 20)) ** 2
    if not active.any():
        return 0.0
    return float(10 * np.log10(np.sum(ef[active] ** 2) / (np.sum(rf[active] ** 2) + 1e-9)))


@dataclass
class ErleResult:
    room: str
    erle_db: float                     # after convergence
    erle_by_second: list[float] = field(default_factory=list)  # convergence curve
    ms_per_10ms: float = 0.0           # canceller cost
    delay_ms: float | None = None      # delay the canceller measured (None: not measured)
    system_delay_ms: float = 0.0       # simulated buffering the clock does not see


def measure_erle(room_name: str, reply: np.ndarray, make_canceller: Callable[[], Any], *,
                 system_delay_ms: float = 40.0, frame_ms: int = 20, skip_s: float = 2.0,
                 noise_db: float = -70.0, seed: int = 0) -> ErleResult:
    """Play `reply` (int16) in a simulated room, echo only, through a fresh canceller frame by frame."""
    spec = room(room_name)
    h = impulse_response(spec, seed=seed, system_delay_ms=system_delay_ms)
    sim = simulate_mic(reply, h, reply_at_s=0.5, noise_db=noise_db, seed=seed, jitter_ms=spec.jitter_ms)
    aec = make_canceller()
    out = run_canceller(aec, sim.pcm, reply, reply_at_s=0.5, frame_ms=frame_ms)
    per_second = [erle_db(sim.echo[k:k + SAMPLE_RATE], out[k:k + SAMPLE_RATE], skip_s=0.0)
                  for k in range(0, out.size - SAMPLE_RATE + 1, SAMPLE_RATE)]
    est = getattr(aec, "estimate", None)
    return ErleResult(room_name, erle_db(sim.echo, out, skip_s=skip_s + 0.5), per_second,
                      getattr(aec, "ms_per_10ms", 0.0), est.delay_ms if est else None, system_delay_ms)


def run_canceller(aec: Any, mic: np.ndarray, reply: np.ndarray, reply_at_s: float, frame_ms: int = 20,
                  t0: float = 0.0) -> np.ndarray:
    """Feed the played reply and the microphone through `aec` as a sink and a source would."""
    n = SAMPLE_RATE * frame_ms // 1000
    reply = np.asarray(reply, dtype=np.int16).reshape(-1)
    start = int(round(reply_at_s * SAMPLE_RATE))
    out = np.zeros(mic.size // n * n, dtype=np.int16)
    for k in range(0, out.size, n):
        lo, hi = max(k - start, 0), max(k + n - start, 0)  # this frame's share of the reply
        if hi > lo and lo < reply.size:
            aec.add_reference(reply[lo:min(hi, reply.size)], t0 + (start + lo) / SAMPLE_RATE)
        frame = aec.process(AudioFrame(np.asarray(mic[k:k + n], dtype=np.int16), t0 + k / SAMPLE_RATE, k / SAMPLE_RATE))
        out[k:k + n] = frame.pcm
    return out
