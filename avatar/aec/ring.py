"""The room's ring during the first reply: how loud the echo may still be a while after the loudspeaker played.

The double-talk check (`EchoCanceller`) calls a captured frame a visitor when it is louder than the
loudest echo the played signal can make. Looking only at what was played at the echo's delay, the
reverberation of a loud word (the room still ringing in the pause after it) counts as a visitor,
and the kiosk pauses its own reply; in the first reply of a session (the canceller has not
converged, AEC3 lets stretches of the echo through) this happens most (docs/PERF.md, "own-echo").

An assumed ring (what was played up to 200 ms earlier, faded by 60 dB/s) removes those pauses in
simulated rooms, but applied always it hid a real visitor in a room without any ring (a loopback
through PulseAudio, where the visitor's words fall into the reply's pauses; docs/PERF.md). So the
assumed ring stands for the first reply (from the first played sample until the loudspeaker has
played at least `FIRST_REPLY_S` and then fallen silent long enough for the room to ring out, the
canceller's tail). After it the ring counts only where the canceller found that the room rings
(`EchoCanceller.rings`: the played signal at one lag explains few of the echo's frames; a
loopback's nearly all), and it falls as fast as this room's was measured to: every frame louder
than the direct echo can be, above the noise floor, tells how slowly the ring after the loud frames
before it must fall to explain it (`measure`); the ring falls at a low percentile of those rates
(a visitor's frame asks for a slow fall, but visitors are few of such frames, and one louder than
anything played shortly before asks for nothing). The assumed 60 dB/s hid visitors in the office
(RT60 0.4 s, a ~150 dB/s fall): barge-ins 19 -> 17 of 20 when it stood in every reply. Choosing
between a loopback and a room by the depth of the played signal's gaps was tried and did not
separate them (the fall it sees is capped by how deep the gap is).
"""
from __future__ import annotations

from collections import deque

import numpy as np

BIN_S = 0.02           # delay resolution
PRIOR_DB_PER_S = 60.0  # the assumed ring of the first reply falls this fast ...
PRIOR_S = 0.2          # ... and any ring is gone after this long
FIRST_REPLY_S = 1.0    # played audio (s) before a silence of the loudspeaker can end the first reply
RATE_PERCENTILE = 40.0  # the measured ring falls at this percentile of the rates its frames asked for (20: one false stop more in 400 bench turns)
RATE_MIN_SAMPLES = 30   # frames measured before the room's own rate replaces the assumed one
RATE_SAMPLES = 400      # the rates of this many latest frames are kept
RATE_LIMITS = (20.0, 600.0)  # dB/s: a measured rate is clipped to this


class RingEstimate:
    def __init__(self) -> None:
        self._history: deque[tuple[float, float]] = deque()  # (time, direct echo level dB) of recent frames
        self.played_s = 0.0       # loudspeaker time so far (the canceller adds it, frame by frame)
        self.first_reply = True   # the assumed ring stands (until the first reply has ended)
        self._rates: deque[float] = deque(maxlen=RATE_SAMPLES)  # dB/s each measured frame asked for
        self._rate: float | None = None  # this room's measured fall (dB/s), once enough frames said it

    def rung_out(self) -> None:
        """The loudspeaker has been silent long enough for the room to ring out (the canceller's tail)."""
        self._history.clear()
        if self.played_s >= FIRST_REPLY_S:
            self.first_reply = False

    @property
    def rate_db_per_s(self) -> float:
        """How fast the ring falls: assumed during the first reply, measured after it (when measured)."""
        if self.first_reply or self._rate is None:
            return PRIOR_DB_PER_S
        return self._rate

    def level_db(self, t: float, room_rings: bool = False) -> float | None:
        """The loudest ring the frames played before `t` can make now (dB, like the echo levels);
        None after the first reply (unless the canceller found that the room rings, `room_rings`) or
        when nothing was played shortly before."""
        if not (self.first_reply or room_rings):
            return None
        return self._ring_db(t, self.rate_db_per_s)

    def _ring_db(self, t: float, rate: float) -> float | None:
        best = None
        for t_j, d_j in self._history:
            delay = t - t_j
            if BIN_S / 2 <= delay <= PRIOR_S:
                ring = d_j - rate * delay
                best = ring if best is None or ring > best else best
        return best

    def measure(self, t: float, mic_db: float) -> None:
        """A frame at `t`, `mic_db` loud, louder than its direct echo can be and above the noise floor:
        the slowest fall that explains it by a frame played shortly before (none when it is louder
        than all of them: not the room's ring)."""
        need = None
        for t_j, d_j in self._history:
            delay = t - t_j
            if BIN_S / 2 <= delay <= PRIOR_S and d_j > mic_db:
                rate = (d_j - mic_db) / delay
                need = rate if need is None or rate < need else need
        if need is None:
            return
        lo, hi = RATE_LIMITS
        self._rates.append(min(max(need, lo), hi))
        if len(self._rates) >= RATE_MIN_SAMPLES:
            self._rate = float(np.percentile(self._rates, RATE_PERCENTILE))

    def observe(self, t: float, echo_db: float) -> None:
        """A captured frame at `t` while the loudspeaker plays: the direct echo level its played signal makes."""
        self._history.append((t, echo_db))
        while self._history and t - self._history[0][0] > PRIOR_S + BIN_S:
            self._history.popleft()
