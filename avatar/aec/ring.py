"""The room's ring during the first reply: how loud the echo may still be a while after the loudspeaker played.

The double-talk check (`EchoCanceller`) calls a captured frame a visitor when it is louder than the
loudest echo the played signal can make. Looking only at what was played at the echo's delay, the
reverberation of a loud word (the room still ringing in the pause after it) counts as a visitor,
and the kiosk pauses its own reply; in the first reply of a session (the canceller has not
converged, AEC3 lets stretches of the echo through) this happens most (docs/PERF.md, "own-echo").

An assumed ring (what was played up to 200 ms earlier, faded by 60 dB/s) removes those pauses in
simulated rooms, but applied always it hid a real visitor in a room without any ring (a loopback
through PulseAudio, where the visitor's words fall into the reply's pauses; docs/PERF.md). So it
stands only for the first reply: from the first played sample until the loudspeaker has played at
least `FIRST_REPLY_S` and then fallen silent long enough for the room to ring out (the canceller's
tail). Measuring the ring per room from the played signal's gaps was tried and did not separate a
loopback from a room well enough (the fall it sees is capped by how deep the gap is).
"""
from __future__ import annotations

from collections import deque

BIN_S = 0.02           # delay resolution
PRIOR_DB_PER_S = 60.0  # the assumed ring falls this fast ...
PRIOR_S = 0.2          # ... and is gone after this long
FIRST_REPLY_S = 1.0    # played audio (s) before a silence of the loudspeaker can end the first reply


class RingEstimate:
    def __init__(self) -> None:
        self._history: deque[tuple[float, float]] = deque()  # (time, direct echo level dB) of recent frames
        self.played_s = 0.0       # loudspeaker time so far (the canceller adds it, frame by frame)
        self.first_reply = True   # the assumed ring stands (until the first reply has ended)

    def rung_out(self) -> None:
        """The loudspeaker has been silent long enough for the room to ring out (the canceller's tail)."""
        self._history.clear()
        if self.played_s >= FIRST_REPLY_S:
            self.first_reply = False

    def level_db(self, t: float) -> float | None:
        """The loudest ring the frames played before `t` can make now (dB, like the echo levels);
        None after the first reply or when nothing was played shortly before."""
        if not self.first_reply:
            return None
        best = None
        for t_j, d_j in self._history:
            delay = t - t_j
            if BIN_S / 2 <= delay <= PRIOR_S:
                ring = d_j - PRIOR_DB_PER_S * delay
                best = ring if best is None or ring > best else best
        return best

    def observe(self, t: float, echo_db: float) -> None:
        """A captured frame at `t` while the loudspeaker plays: the direct echo level its played signal makes."""
        if not self.first_reply:
            return
        self._history.append((t, echo_db))
        while self._history and t - self._history[0][0] > PRIOR_S + BIN_S:
            self._history.popleft()
