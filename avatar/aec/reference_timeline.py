"""The played (reference) signal laid out on the one clock, so the canceller can read any 10 ms of it.

The sink reports every block it plays with the clock time its first sample becomes audible; the
canceller asks for the samples that were audible during a captured frame. Gaps are silence.
"""
from __future__ import annotations

import bisect
import threading

import numpy as np

from avatar.frames import SAMPLE_RATE


class ReferenceTimeline:
    def __init__(self, keep_s: float = 2.0) -> None:
        self._lock = threading.Lock()  # the sink's thread adds, the capture thread reads
        self._starts: list[float] = []  # audible time of each block's first sample, ascending
        self._blocks: list[np.ndarray] = []
        self.keep_s = keep_s

    def add(self, pcm: np.ndarray, t_audible: float) -> None:
        block = np.array(pcm, dtype=np.int16).reshape(-1)
        if block.size == 0:
            return
        with self._lock:
            i = bisect.bisect_right(self._starts, float(t_audible))  # blocks normally arrive in order
            self._starts.insert(i, float(t_audible))
            self._blocks.insert(i, block)

    def read(self, t_start: float, n: int) -> np.ndarray:
        """The `n` samples audible from clock time `t_start` on (zeros where nothing played)."""
        out = np.zeros(n, dtype=np.int16)
        t_end = t_start + n / SAMPLE_RATE
        with self._lock:
            self._forget_before(t_start - self.keep_s)
            i = bisect.bisect_left(self._starts, t_end)
            hits = []
            while i > 0:  # walk back over the blocks that start before the window ends
                i -= 1
                t_block, pcm = self._starts[i], self._blocks[i]
                if t_block + pcm.size / SAMPLE_RATE <= t_start:
                    break  # blocks do not overlap: everything earlier ended earlier
                hits.append((t_block, pcm))
        for t_block, pcm in reversed(hits):  # where reports overlap (time stamps jitter), the latest one holds
            offset = int(round((t_block - t_start) * SAMPLE_RATE))  # block start relative to out[0]
            src0, dst0 = max(0, -offset), max(0, offset)
            count = min(pcm.size - src0, n - dst0)
            if count > 0:
                out[dst0:dst0 + count] = pcm[src0:src0 + count]
        return out

    def clear(self) -> None:
        with self._lock:
            self._starts.clear()
            self._blocks.clear()

    def _forget_before(self, t: float) -> None:
        drop = 0
        while drop < len(self._starts) and self._starts[drop] + self._blocks[drop].size / SAMPLE_RATE < t:
            drop += 1
        if drop:
            del self._starts[:drop], self._blocks[:drop]
