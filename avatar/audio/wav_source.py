"""A WAV file as if it were a microphone: 16 kHz mono frames, at real-time pace by default."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Iterator

import numpy as np

from avatar.audio.convert import read_wav_16k
from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.trace import now, sleep_until


class WavFileSource:
    def __init__(self, path: str | os.PathLike, frame_ms: int = 20, realtime: bool = True,
                 tail_silence_s: float = 1.0, lead_silence_s: float = 0.0):
        self.path = Path(path)
        self.frame_ms = frame_ms
        self.realtime = realtime
        audio = read_wav_16k(self.path)  # fails here, at open, not in the middle of a run
        self.speech_samples = len(audio)
        self.lead_samples = int(round(lead_silence_s * SAMPLE_RATE))
        tail = int(round(tail_silence_s * SAMPLE_RATE))  # lets the endpointer see the turn end
        self.pcm = np.concatenate([np.zeros(self.lead_samples, np.int16), audio, np.zeros(tail, np.int16)])
        self.started_at: float | None = None  # clock time of stream second 0 (realtime mode)
        self._closed = threading.Event()

    @property
    def duration_s(self) -> float:
        return len(self.pcm) / SAMPLE_RATE

    @property
    def file_end_audio_t(self) -> float:
        """Stream time just after the file's last sample (before the appended silence)."""
        return (self.lead_samples + self.speech_samples) / SAMPLE_RATE

    def frames(self) -> Iterator[AudioFrame]:
        n = max(1, SAMPLE_RATE * self.frame_ms // 1000)
        t0 = self.started_at = now()
        for start in range(0, len(self.pcm), n):
            if self._closed.is_set():
                return
            pcm = self.pcm[start:start + n]
            audio_t = start / SAMPLE_RATE
            if self.realtime:
                # a device hands a frame over once its last sample has been captured
                sleep_until(t0 + audio_t + len(pcm) / SAMPLE_RATE)
                yield AudioFrame(pcm, t0 + audio_t, audio_t)
            else:
                yield AudioFrame(pcm, now(), audio_t)

    def close(self) -> None:
        self._closed.set()
