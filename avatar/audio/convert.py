"""Any audio to 16 kHz mono int16: read files, mix channels down, resample."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from avatar.frames import SAMPLE_RATE
from avatar.errors import AudioFileError


def to_pcm_16k(samples: np.ndarray, sample_rate: int) -> np.ndarray:
    """Samples (int16 or float in [-1, 1], shape (N,) or (N, channels)) as 16 kHz mono int16."""
    x = np.asarray(samples)
    if x.dtype == np.int16:
        x = x.astype(np.float32) / 32768.0
    elif np.issubdtype(x.dtype, np.integer):
        x = x.astype(np.float32) / float(np.iinfo(x.dtype).max + 1)
    else:
        x = x.astype(np.float32, copy=False)
    if x.ndim == 2:
        x = x.mean(axis=1)  # the channels of a kiosk microphone or a stereo file carry the same voice
    if sample_rate != SAMPLE_RATE and x.size:
        import soxr

        x = soxr.resample(x, sample_rate, SAMPLE_RATE, quality="HQ")
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
