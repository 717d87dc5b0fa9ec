"""The played (reference) signal laid out on the one clock, so the canceller can read any 10 ms of it.

The sink reports every block it plays with the clock time its first sample becomes audible; the
canceller asks for the samples that were audible during a captured frame. Gaps are silence.
"""
from __future__ import annotations

import threading
from collections import deque

import numpy as np

SAMPLE_RATE = 16000


class ReferenceTimeline:
    def __init__(self, keep_s: float = 5.0) -> None:
        self._lock = threading.Lock()  # the sink's thread adds, the capture thread reads
        self._blocks: deque[tuple[float, np.ndarray]] = deque()
        self.keep_s = keep_s

    def add(self, pcm: np.ndarray, t_audible: float) -> None:
        block = np.asarray(pcm, dtype=np.int16).reshape(-1)
        if block.size == 0:
            return
        with self._lock:
            self._blocks.append((float(t_audible), block.copy()))

    def read(self, t_start: float, n: int) -> np.ndarray:
        """The `n` samples audible from clock time `t_start` on (zeros where nothing played)."""
        out = np.zeros(n, dtype=np.int16)
        t_end = t_start + n / SAMPLE_RATE
        with self._lock:
            while self._blocks and self._end(self._blocks[0]) < t_start - self.keep_s:
                self._blocks.popleft()
            blocks = [b for b in self._blocks if b[0] < t_end and self._end(b) > t_start]
        for t_block, pcm in blocks:
            offset = int(round((t_block - t_start) * SAMPLE_RATE))  # block start relative to out[0]
            src0, dst0 = max(0, -offset), max(0, offset)
            count = min(pcm.size - src0, n - dst0)
            if count > 0:
                out[dst0:dst0 + count] = pcm[src0:src0 + count]
        return out

    def clear(self) -> None:
        with self._lock:
            self._blocks.clear()

    @staticmethod
    def _end(block: tuple[float, np.ndarray]) -> float:
        return block[0] + block[1].size / SAMPLE_RATE
