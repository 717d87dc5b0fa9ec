"""A WAV file as if it were a loudspeaker: played at real-time pace by its own thread, every block timed.

The file holds the whole timeline (silence while idle), so it lines up with the input WAV
sample for sample from `started_at`, and `segments` say when each sample became audible.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from avatar.frames import SAMPLE_RATE
from avatar.audio.playback_queue import PlaybackQueue, QueuedSink
from avatar.errors import AudioFileError
from avatar.trace import now, sleep_until


class WavFileSink(QueuedSink):
    def __init__(self, path: str | os.PathLike | None, output_latency_ms: float = 20.0, block_ms: int = 10):
        self.path = Path(path) if path is not None else None  # None: time the playback, keep no file
        self.latency = output_latency_ms / 1000.0
        self.block = SAMPLE_RATE * block_ms // 1000
        self._queue = PlaybackQueue()
        self._file = None
        if self.path is not None:
            import soundfile as sf

            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = sf.SoundFile(str(self.path), "w", samplerate=SAMPLE_RATE, channels=1, subtype="PCM_16")
            except (sf.LibsndfileError, RuntimeError, OSError) as exc:
                raise AudioFileError(f"cannot write audio file {self.path}: {exc}",
                                     hint="choose a writable path ending in .wav") from None
        self._closed = threading.Event()
        self.started_at = now()  # clock time of the file's first sample (audible `latency` later)
        self._thread = threading.Thread(target=self._run, name="wav-sink", daemon=True)
        self._thread.start()

    def close(self) -> None:
        if not self._closed.is_set():
            self._closed.set()
            self._thread.join(timeout=2.0)
            if self._file is not None:
                self._file.close()

    def _run(self) -> None:
        """The "sound card": one block per block period, silence when nothing is queued."""
        dur = self.block / SAMPLE_RATE
        slot = self.started_at
        ends = slot  # where the last block reported ends: a loudspeaker plays one block after the other
        silence = np.zeros(self.block, np.int16)
        while not self._closed.is_set():
            sleep_until(slot)
            taken_at = now()
            if taken_at - slot > dur:
                # the thread was starved past this slot: it went by as silence, as on a device that underran
                start = max(slot, ends)
                self._queue.skip(self.block, start + self.latency)
                self._write(silence)
            else:
                # audio queued after the slot began cannot be heard before it was queued, nor before the
                # block before it has been played: a thread woken a few ms late used to report blocks
                # overlapping by those ms, and the soak's echo (the later block) then differed from the
                # canceller's reference (the earlier one) in the overlap
                start = max(slot, taken_at, ends)
                block, _ = self._queue.take(self.block, start + self.latency)
                self._write(block)
            ends = start + dur
            slot += dur

    def _write(self, block: np.ndarray) -> None:
        if self._file is not None:
            self._file.write(block)
