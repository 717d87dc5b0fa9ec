"""Echo simulation for tests and benches: a loudspeaker, a room and a microphone, made of numbers.

A room is a synthetic impulse response (direct path, a few early reflections, an exponentially
decaying diffuse tail with the room's RT60). The avatar's reply is convolved with it and mixed into
the microphone signal together with the visitor's speech at chosen times and levels and optional
noise; the result is a WAV for the normal file source path plus the ground truth (where the
visitor speaks, what the echo alone was).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from avatar.errors import ConfigError
from avatar.frames import SAMPLE_RATE


@dataclass(frozen=True)
class Room:
    name: str
    volume_m3: float              # with rt60 it sets how much reverberation reaches the microphone
    rt60_s: float                 # time for the diffuse tail to fall by 60 dB
    distance_m: float             # loudspeaker to microphone (a kiosk: both in one housing)
    echo_gain_db: float = -16.0   # direct path relative to the played signal (echo ~ -31 dBFS: mic headroom)
    directivity: float = 0.5      # loudspeaker gain towards the microphone (it faces the visitor)
    reflections_ms: tuple[float, ...] = ()  # early reflections after the direct path (desk, walls)
    reflection_gain_db: float = -6.0        # first reflection relative to the direct path (later ones weaker)
    jitter_ms: float = 0.0        # the echo's delay jumps between 0 and this every 40-120 ms (an audio stack under load)
    ser_db: tuple[float, float] | None = None  # the visitor's level over the echo drawn from this range (None: the bench's)

    @property
    def direct_delay_ms(self) -> float:
        return 1000.0 * self.distance_m / 343.0

    @property
    def drr_db(self) -> float:
        """Direct-to-reverberant ratio from the critical distance, 0.057 * sqrt(Q V / RT60) (Sabine)."""
        if self.rt60_s <= 0.0:
            return math.inf  # no room: the direct path alone
        critical_m = 0.057 * (self.directivity * self.volume_m3 / self.rt60_s) ** 0.5
        return 20.0 * math.log10(critical_m / self.distance_m)


ROOMS: dict[str, Room] = {
    "office": Room("office", volume_m3=60, rt60_s=0.4, distance_m=0.4, reflections_ms=(2.5, 6.0, 11.0)),
    "lobby": Room("lobby", volume_m3=1500, rt60_s=1.0, distance_m=0.4, reflections_ms=(2.5, 14.0, 23.0, 31.0)),
    "hall": Room("hall", volume_m3=8000, rt60_s=1.8, distance_m=0.4, reflections_ms=(2.5, 37.0, 55.0, 80.0)),
    # the hard case: a small glass atrium, loudspeaker mounted far from the microphone
    "atrium": Room("atrium", volume_m3=400, rt60_s=2.0, distance_m=1.2, echo_gain_db=-24.0,
                   reflections_ms=(4.0, 12.0, 21.0, 33.0)),
    # the live loopback test (tests/test_devices_live.py): the microphone is the loudspeaker's monitor
    # through PulseAudio: no room and no ring, the echo at the reply's own level with a delay that
    # jumps 0-25 ms (as captured there under load), a visitor played into the same sink as loud as it
    "loopback": Room("loopback", volume_m3=0.0, rt60_s=0.0, distance_m=0.0, echo_gain_db=-1.0,
                     jitter_ms=25.0, ser_db=(-3.0, 3.0)),
}


def room(name: str) -> Room:
    try:
        return ROOMS[name]
    except KeyError:
        raise ConfigError(f"unknown simulated room '{name}'", hint=f"choose one of {', '.join(ROOMS)}") from None


def impulse_response(spec: Room, seed: int = 0, system_delay_ms: float = 0.0) -> np.ndarray:
    """The loudspeaker-to-microphone impulse response (float, 16 kHz); `system_delay_ms` adds
    the playback/capture buffering that no clock sees."""
    rng = np.random.default_rng(seed)
    start = int(round((spec.direct_delay_ms + system_delay_ms) * SAMPLE_RATE / 1000))
    length = start + int(spec.rt60_s * SAMPLE_RATE)
    direct = 10 ** (spec.echo_gain_db / 20)
    if spec.rt60_s <= 0.0:  # no room: a delayed copy
        h = np.zeros(start + 1)
        h[start] = direct
        return h
    h = np.zeros(length)
    h[start] = direct
    for i, ms in enumerate(spec.reflections_ms):
        k = start + int(round(ms * SAMPLE_RATE / 1000))
        if k < length:  # each later reflection 2 dB weaker, random sign (odd/even bounces)
            h[k] += direct * 10 ** ((spec.reflection_gain_db - 2.0 * i) / 20) * rng.choice((-1.0, 1.0))
    tail_start = start + int(round((spec.reflections_ms[0] if spec.reflections_ms else 2.0) * SAMPLE_RATE / 1000))
    t = np.arange(length - tail_start) / SAMPLE_RATE
    tail = rng.standard_normal(t.size) * np.exp(-6.9078 * t / spec.rt60_s)  # 60 dB over rt60
    tail = np.convolve(tail, [0.5, 0.5], mode="same")  # walls absorb highs: soften the tail
    tail *= direct * np.sqrt(10 ** (-spec.drr_db / 10) / (np.sum(tail ** 2) + 1e-20))
    h[tail_start:] += tail
    return h


def convolve(signal: np.ndarray, h: np.ndarray, n: int | None = None) -> np.ndarray:
    """`signal` through the impulse response `h` (FFT convolution), cut to `n` samples."""
    x = np.asarray(signal, dtype=np.float64).reshape(-1)
    n = x.size if n is None else n
    if x.size == 0 or n == 0:
        return np.zeros(n)
    size = 1 << int(np.ceil(np.log2(x.size + h.size - 1)))
    y = np.fft.irfft(np.fft.rfft(x, size) * np.fft.rfft(h, size), size)[: x.size + h.size - 1]
    out = np.zeros(n)
    out[: min(n, y.size)] = y[:n]
    return out


def delay_jumps(jitter_ms: float, n: int, seed: int = 0) -> np.ndarray | None:
    """Extra echo delay (samples) at each of `n` samples: 0 to `jitter_ms`, a new value every
    40-120 ms; None for a room whose delay holds still (`Room.jitter_ms` 0)."""
    if jitter_ms <= 0.0:
        return None
    rng = np.random.default_rng(seed)
    out = np.zeros(n, np.int64)
    k, top = 0, int(jitter_ms * SAMPLE_RATE / 1000)
    while k < n:
        step = int(rng.integers(int(0.04 * SAMPLE_RATE), int(0.12 * SAMPLE_RATE)))
        out[k:k + step] = int(rng.integers(0, top + 1))
        k += step
    return out


def echo_of(signal: np.ndarray, h: np.ndarray, at: int, n: int, jumps: np.ndarray | None = None) -> np.ndarray:
    """The echo (n samples from sample `at` on) of `signal` played from sample `at`: through `h`, or,
    with `jumps` (`delay_jumps`, indexed by absolute sample), `h`'s delayed copy with a delay that jumps.
    Linear in `signal`, so a stretch's echo can be taken away again."""
    if jumps is None:
        return convolve(signal, h, n)
    x = np.asarray(signal, dtype=np.float64).reshape(-1)
    tap = int(np.flatnonzero(h)[0]) if np.any(h) else 0
    src = np.arange(n) - tap - jumps[at:at + n]
    out = np.zeros(n)
    ok = (src >= 0) & (src < x.size)
    out[ok] = h[tap] * x[src[ok]]
    return out


def speech_bounds(pcm: np.ndarray, floor_db: float = 20.0) -> tuple[float, float]:
    """Seconds of the first and last 10 ms frame of speech: 30 ms in a row within `floor_db` of
    the clip's loudest frame (a lone click does not count)."""
    x = np.asarray(pcm, dtype=np.float64).reshape(-1)
    frames = x[: x.size // 160 * 160].reshape(-1, 160)
    if frames.shape[0] < 3:
        return 0.0, frames.shape[0] * 0.01
    energy = 10 * np.log10(np.mean(frames ** 2, axis=1) + 1e-9)
    loud = energy > energy.max() - floor_db
    sustained = np.flatnonzero(loud[:-2] & loud[1:-1] & loud[2:])
    if sustained.size == 0:
        return 0.0, frames.shape[0] * 0.01
    return sustained[0] * 0.01, (sustained[-1] + 3) * 0.01


def level_dbfs(pcm: np.ndarray) -> float:
    """RMS level of the speech part of a clip in dB relative to full scale (int16)."""
    x = np.asarray(pcm, dtype=np.float64).reshape(-1)
    a, b = speech_bounds(x)
    part = x[int(a * SAMPLE_RATE): int(b * SAMPLE_RATE)]
    return 20 * np.log10(np.sqrt(np.mean(part ** 2)) / 32768 + 1e-12) if part.size else -120.0


@dataclass(frozen=True)
class Utterance:
    """The visitor's speech placed in the microphone signal."""
    pcm: np.ndarray
    at_s: float               # where the clip (not its first word) starts in the microphone signal
    level_db: float = -26.0   # RMS of its speech part at the microphone, dBFS
    text: str = ""


@dataclass
class SimulatedMic:
    pcm: np.ndarray           # int16: what the microphone records (echo + speech + noise)
    echo: np.ndarray          # float: the echo alone (for ERLE)
    near: np.ndarray          # float: the visitor's speech alone
    speech: list[tuple[float, float, str]] = field(default_factory=list)  # ground truth: (first word s, last word s, text)

    @property
    def duration_s(self) -> float:
        return self.pcm.size / SAMPLE_RATE

    def write(self, path: str | os.PathLike) -> Path:
        import soundfile as sf

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        sf.write(str(path), self.pcm, SAMPLE_RATE, subtype="PCM_16")
        return path


def simulate_mic(reply: np.ndarray, h: np.ndarray, reply_at_s: float = 0.0, speech: list[Utterance] = (),
                 noise: np.ndarray | None = None, noise_db: float = -60.0, duration_s: float | None = None,
                 seed: int = 0, jitter_ms: float = 0.0) -> SimulatedMic:
    """The microphone signal while `reply` (int16, 16 kHz) plays from `reply_at_s` through room `h`
    (its delay jumping by up to `jitter_ms`, `Room.jitter_ms`)."""
    rng = np.random.default_rng(seed)
    reply = np.asarray(reply, dtype=np.float64).reshape(-1)
    ends = [reply_at_s + reply.size / SAMPLE_RATE + 0.5] + [u.at_s + u.pcm.size / SAMPLE_RATE + 0.3 for u in speech]
    n = int(round((duration_s if duration_s is not None else max(ends)) * SAMPLE_RATE))
    played = np.zeros(n)
    k = int(round(reply_at_s * SAMPLE_RATE))
    if k < n:
        played[k:k + reply.size] = reply[: n - k]
    echo = echo_of(played, h, 0, n, delay_jumps(jitter_ms, n, seed))
    near = np.zeros(n)
    truth = []
    for u in speech:
        clip = np.asarray(u.pcm, dtype=np.float64).reshape(-1)
        clip = clip * 10 ** ((u.level_db - level_dbfs(clip)) / 20)
        k = int(round(u.at_s * SAMPLE_RATE))
        if k >= n:
            continue
        near[k:k + clip.size] += clip[: n - k]
        a, b = speech_bounds(clip)
        truth.append((u.at_s + a, u.at_s + b, u.text))
    mic = echo + near
    if noise is not None or noise_db > -120:
        mic += _noise(noise, n, noise_db, rng)
    return SimulatedMic(np.clip(np.round(mic), -32768, 32767).astype(np.int16), echo, near, truth)


def _noise(noise: np.ndarray | None, n: int, level_db: float, rng: np.random.Generator) -> np.ndarray:
    """Background noise at `level_db` dBFS RMS: a looped recording, or white noise without one."""
    if noise is None or np.asarray(noise).size == 0:
        base = rng.standard_normal(n)
    else:
        src = np.asarray(noise, dtype=np.float64).reshape(-1)
        start = int(rng.integers(0, src.size))
        base = np.resize(np.roll(src, -start), n)
    rms = np.sqrt(np.mean(base ** 2)) + 1e-12
    return base * (32768 * 10 ** (level_db / 20) / rms)
