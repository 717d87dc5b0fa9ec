"""Any audio to 16 kHz mono int16: read files, mix channels down, resample."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from avatar.frames import SAMPLE_RATE
from avatar.errors import AudioFileError


def to_pcm_16k(samples: np.ndarray, sample_rate: int) -> np.ndarray:
    """Samples (int16 or float in [-1, 1], shape (N,) or (N, channels)) as 16 kHz mono int16."""
    x = _float_mono(samples)
    if sample_rate != SAMPLE_RATE and x.size:
        import soxr

        x = soxr.resample(x, sample_rate, SAMPLE_RATE, quality="HQ")
    return _int16(x)


class Resampler16k:
    """Audio that arrives in pieces of one continuous signal (a reply streamed by the voice), as 16 kHz
    int16 with the same samples as converting it whole: each piece converted alone would be cut off
    at its edges by the filter and shifted by a fraction of a sample, a click at every join. The last
    few milliseconds of each piece wait in the filter for the next one; `flush()` gives them when no
    piece follows (the caller's output ran dry)."""

    def __init__(self) -> None:
        self._stream = None
        self._rate = SAMPLE_RATE

    @property
    def pending(self) -> bool:
        return self._stream is not None

    def feed(self, samples: np.ndarray, sample_rate: int) -> np.ndarray:
        x = _float_mono(samples)
        tail = self.flush() if self._stream is not None and sample_rate != self._rate else None
        if sample_rate == SAMPLE_RATE:
            out = _int16(x)
        else:
            if self._stream is None:
                import soxr

                self._stream = soxr.ResampleStream(sample_rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
                self._rate = sample_rate
            out = _int16(self._stream.resample_chunk(x))
        return out if tail is None or not tail.size else np.concatenate([tail, out])

    def flush(self) -> np.ndarray:
        if self._stream is None:
            return np.zeros(0, np.int16)
        out = _int16(self._stream.resample_chunk(np.zeros(0, np.float32), last=True))
        self._stream = None
        return out

    def reset(self) -> None:
        self._stream = None


def _float_mono(samples: np.ndarray) -> np.ndarray:
    x = np.asarray(samples)
    if x.dtype == np.int16:
        x = x.astype(np.float32) / 32768.0
    elif np.issubdtype(x.dtype, np.integer):
        x = x.astype(np.float32) / float(np.iinfo(x.dtype).max + 1)
    else:
        x = x.astype(np.float32, copy=False)
    if x.ndim == 2:
        x = x.mean(axis=1)  # the channels of a kiosk microphone or a stereo file carry the same voice
    return x


def _int16(x: np.ndarray) -> np.ndarray:
    return np.clip(np.round(x * 32768.0), -32768, 32767).astype(np.int16)


def read_wav_16k(path: str | os.PathLike) -> np.ndarray:
    """A sound file (any rate, channel count, sample format soundfile reads) as 16 kHz mono int16."""
    import soundfile as sf

    path = Path(path)
    if not path.is_file():
        raise AudioFileError(f"audio file not found: {path}", hint="check the path; inputs are WAV (or FLAC/OGG) files")
    try:
        data, rate = sf.read(str(path), dtype="float32", always_2d=True)
    except (sf.LibsndfileError, RuntimeError, ValueError, OSError) as exc:
        raise AudioFileError(f"cannot read audio file {path}: {exc}",
                             hint="use a WAV, FLAC or OGG file (e.g. convert with `ffmpeg -i IN -ar 16000 -ac 1 OUT.wav`)") from None
    if data.size == 0:
        raise AudioFileError(f"audio file {path} holds no samples", hint="record or choose a non-empty file")
    return to_pcm_16k(data, rate)
