"""Audio waiting to be played, shared by the file and speaker sinks: what a sound card's buffer does.

The output thread (or device callback) takes fixed blocks; a block is padded with silence when the
queue runs dry. Every block taken is recorded with its audible time and passed to the listeners
(the echo canceller's reference), so what was heard, and when, is known exactly.
"""
from __future__ import annotations

import bisect
import logging
import threading
from collections import deque

import numpy as np

from avatar.audio.contracts import Listener
from avatar.audio.convert import Resampler16k
from avatar.frames import SAMPLE_RATE
from avatar.trace import now, sleep_until

log = logging.getLogger(__name__)

# played segments kept (one per stretch of continuous audio, a few per reply): enough for any
# question about the current turn, bounded for a kiosk that plays for weeks (the oldest go first)
MAX_SEGMENTS = 4096


class PlaybackQueue:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._chunks: deque[np.ndarray] = deque()
        self._offset = 0            # samples of _chunks[0] already played
        self._queued = 0
        self._listeners: list[Listener] = []
        self._resampler = Resampler16k()
        self._resample_lock = threading.Lock()  # put() resamples outside _lock: the output thread never waits for it
        self._busy_until = 0.0      # audible end of the last block that held audio
        self.paused = False         # hold the queue (barge-in onset): silence goes out meanwhile
        self.segments: list[tuple[float, int]] = []  # (audible clock time of first sample, samples)
        self._seg_starts: list[float] = []

    def put(self, pcm: np.ndarray, sample_rate: int) -> None:
        # one resampler across puts: a clause streamed in pieces joins without a click
        with self._resample_lock:
            pcm16 = self._resampler.feed(pcm, sample_rate)
            self._append(pcm16)

    def _append(self, pcm16: np.ndarray) -> None:
        if pcm16.size:
            with self._lock:
                self._chunks.append(pcm16)
                self._queued += pcm16.size

    def clear(self) -> int:
        """Drop everything queued; returns how many samples were dropped."""
        with self._resample_lock:
            self._resampler.reset()
        with self._lock:
            self.paused = False
            dropped = self._queued
            self._chunks.clear()
            self._offset = 0
            self._queued = 0
            return dropped

    @property
    def queued_samples(self) -> int:
        return self._queued

    def take(self, n: int, t_audible: float) -> tuple[np.ndarray, int]:
        """The next n samples (silence-padded) to be heard at t_audible; (block, samples of real audio)."""
        block = np.zeros(n, np.int16)
        got = self._fill(block, 0)
        # the queue ran dry: the resampler's last milliseconds follow now (a busy lock means a put is
        # under way, and more audio with it)
        if got < n and not self.paused and self._resampler.pending and self._resample_lock.acquire(blocking=False):
            try:
                self._append(self._resampler.flush())
            finally:
                self._resample_lock.release()
            got = self._fill(block, got)
        if got:
            with self._lock:
                self._record(t_audible, got)
        self._notify(block, t_audible)
        return block, got

    def _fill(self, block: np.ndarray, got: int) -> int:
        n, start = len(block), got
        with self._lock:
            while got < n and self._chunks and not self.paused:
                head = self._chunks[0]
                k = min(n - got, len(head) - self._offset)
                block[got:got + k] = head[self._offset:self._offset + k]
                got += k
                self._offset += k
                if self._offset >= len(head):
                    self._chunks.popleft()
                    self._offset = 0
            self._queued -= got - start
        return got

    def skip(self, n: int, t_audible: float) -> None:
        """A block of silence went out (the player fell behind); the listeners still hear it."""
        self._notify(np.zeros(n, np.int16), t_audible)

    def _notify(self, block: np.ndarray, t_audible: float) -> None:
        for fn in list(self._listeners):
            try:
                fn(block, t_audible)
            except Exception:  # a listener (echo canceller) must never stop the playback
                log.exception("playback listener failed")

    def _record(self, t: float, n: int) -> None:
        # a block continuing the previous one extends its segment instead of adding one
        if self.segments:
            t0, n0 = self.segments[-1]
            if abs(t0 + n0 / SAMPLE_RATE - t) < 0.0025:
                self.segments[-1] = (t0, n0 + n)
                self._busy_until = t + n / SAMPLE_RATE
                return
        self.segments.append((t, n))
        self._seg_starts.append(t)
        if len(self.segments) > MAX_SEGMENTS:
            drop = len(self.segments) - MAX_SEGMENTS + MAX_SEGMENTS // 8
            del self.segments[:drop], self._seg_starts[:drop]
        self._busy_until = t + n / SAMPLE_RATE

    @property
    def busy_until(self) -> float:
        return self._busy_until

    def add_listener(self, fn: Listener) -> None:
        self._listeners.append(fn)

    def first_audible_after(self, t: float) -> float | None:
        """Audible clock time of the first played sample at or after t (None if nothing played since)."""
        with self._lock:
            i = bisect.bisect_left(self._seg_starts, t)
            before = self.segments[i - 1] if i > 0 else None
            after = self.segments[i][0] if i < len(self.segments) else None
        if before is not None and before[0] + before[1] / SAMPLE_RATE > t:
            return t  # t falls inside the previous segment
        return after


class QueuedSink:
    """The AudioSink methods every sink shares; subclasses drain `_queue` from their output thread."""

    _queue: PlaybackQueue
    block: int

    def play(self, pcm: np.ndarray, sample_rate: int) -> None:
        self._queue.put(pcm, sample_rate)

    def stop(self) -> float:
        """Drop the queue at once; the block already handed to the device still plays out."""
        self._queue.clear()
        return max(now(), self._queue.busy_until)

    def pause(self) -> float:
        """Hold what is queued (silence from the next block on); returns when output fell silent."""
        self._queue.paused = True
        return max(now(), self._queue.busy_until)

    def resume(self) -> None:
        self._queue.paused = False

    @property
    def playing(self) -> bool:
        return self._queue.queued_samples > 0 or self._queue.busy_until > now()

    def add_listener(self, fn: Listener) -> None:
        self._queue.add_listener(fn)

    @property
    def segments(self) -> list[tuple[float, int]]:
        return list(self._queue.segments)

    def first_audible_after(self, t: float) -> float | None:
        return self._queue.first_audible_after(t)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until everything queued has been heard (True) or the timeout passed (False)."""
        deadline = None if timeout is None else now() + timeout
        while self.playing:
            if deadline is not None and now() >= deadline:
                return False
            sleep_until(now() + self.block / SAMPLE_RATE)
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:  # pragma: no cover - overridden
        pass
