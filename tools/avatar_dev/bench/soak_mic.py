"""The soak's microphone (tools/avatar_dev/bench/soak.py): the scripted visitors fed to the VoiceLoop, and the
loudspeaker's sound back into the microphone through a simulated room (tools/avatar_dev/bench/room.py).

The visitor's question and the silence after it are fed as fast as the endpointer takes them; only
while a reply is being prepared or played is the microphone paced in real time, with the echo and
what the visitor says over the reply mixed in.
"""
from __future__ import annotations

import threading
from typing import Callable, Iterator, Sequence

import numpy as np

from avatar import events as ev
from avatar_dev.bench.soak_plan import TurnPlan
from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.trace import now, sleep_until


class EchoPath:
    """What the sink played (its listener), through a room impulse response, at the clock time a
    microphone frame covers. Played blocks are kept only as long as the response is."""

    def __init__(self, h: np.ndarray):
        self.h = np.asarray(h, np.float64)
        self._blocks: list[tuple[int, np.ndarray]] = []  # (first sample on the clock grid, samples)
        self._lock = threading.Lock()

    def heard(self, block: np.ndarray, t_audible: float) -> None:
        if not np.any(block):
            return
        with self._lock:
            self._blocks.append((int(round(t_audible * SAMPLE_RATE)), np.asarray(block, np.float64)))

    def echo(self, t_end: float, n: int) -> np.ndarray:
        """The echo in the n samples that end at clock time t_end."""
        from avatar_dev.bench.room import convolve

        i1 = int(round(t_end * SAMPLE_RATE))
        i0 = i1 - n - self.h.size + 1
        with self._lock:
            self._blocks = [(s, b) for s, b in self._blocks if s + b.size > i0 - SAMPLE_RATE]
            blocks = [(s, b) for s, b in self._blocks if s < i1 and s + b.size > i0]
        if not blocks:
            return np.zeros(n)
        x = np.zeros(i1 - i0)
        for s, b in blocks:
            lo, hi = max(s, i0), min(s + b.size, i1)
            x[lo - i0:hi - i0] = b[lo - s:hi - s]
        return convolve(x, self.h)[x.size - n:x.size]


class SoakMicrophone:
    """The scripted visitors as a microphone source for the VoiceLoop (see the module docstring)."""

    def __init__(self, plans: Sequence[TurnPlan], echo: EchoPath, frame_ms: int, *, listen_s: float,
                 leave_s: float, turn_timeout_s: float, on_turn: Callable[[TurnPlan, dict], None],
                 noise: np.ndarray | None = None, rng=None):
        self.plans = list(plans)
        self.echo_path = echo
        self.n = SAMPLE_RATE * frame_ms // 1000
        self.listen_s = listen_s
        self.leave_s = leave_s
        self.turn_timeout_s = turn_timeout_s
        self.on_turn = on_turn
        self.noise = noise
        self.rng = rng or np.random.default_rng(0)
        self.loop = None  # set once the loop is built
        self.events: list[ev.Event] = []  # this turn's (cleared when the next one starts)
        self._events_lock = threading.Lock()
        self._closed = threading.Event()
        self._audio_t = 0.0
        self._noise_pos = 0

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, (ev.TurnMetrics, ev.PlaybackStarted, ev.PlaybackStopped, ev.StageError,
                              ev.FinalTranscript, ev.VisitorLeft, ev.NotUnderstood)):
            with self._events_lock:
                self.events.append(event)

    def _seen(self) -> list[ev.Event]:
        with self._events_lock:
            return list(self.events)

    def close(self) -> None:
        self._closed.set()

    # frames: fast (no waiting) or paced (real time, the loudspeaker's echo mixed in)
    def _frame(self, pcm: np.ndarray, t: float) -> AudioFrame:
        frame = AudioFrame(pcm.astype(np.int16), t, self._audio_t)
        self._audio_t += self.n / SAMPLE_RATE
        return frame

    def _room_tone(self) -> np.ndarray:
        if self.noise is None or not self.noise.size:
            return np.zeros(self.n)
        idx = (self._noise_pos + np.arange(self.n)) % self.noise.size
        self._noise_pos += self.n
        return self.noise[idx].astype(np.float64) * 0.05  # room tone, ~26 dB under the noise clip

    def _fast(self, pcm: np.ndarray) -> Iterator[AudioFrame]:
        pcm = np.concatenate([pcm, np.zeros((-pcm.size) % self.n, np.int16)])
        for k in range(0, pcm.size, self.n):
            if self._closed.is_set():
                return
            t = now()
            mic = pcm[k:k + self.n] + self._room_tone() + self.echo_path.echo(t, self.n)
            yield self._frame(np.clip(np.round(mic), -32768, 32767), t)

    def frames(self) -> Iterator[AudioFrame]:
        silence = lambda s: np.zeros(int(s * SAMPLE_RATE), np.int16)
        for plan in self.plans:
            if self._closed.is_set():
                return
            with self._events_lock:
                self.events.clear()
            start = now()
            yield from self._fast(silence(0.3))
            yield from self._fast(plan.audio)
            yield from self._fast(silence(1.0))  # > the longest end-of-turn wait: the turn is confirmed
            timed_out = yield from self._wait_for_replies(plan)
            if plan.leaves:  # the visitor goes: quiet until the loop forgets them
                yield from self._paced(self.leave_s)
            self.on_turn(plan, {"events": self._seen(), "timed_out": timed_out, "wall_s": now() - start})

    def _paced(self, seconds: float, overlay: np.ndarray | None = None,
               until: Callable[[], bool] | None = None) -> Iterator[AudioFrame]:
        t = now()
        k = 0
        end = t + seconds
        while not self._closed.is_set() and t < end and not (until and until()):
            t += self.n / SAMPLE_RATE
            sleep_until(t)
            mic = self._room_tone() + self.echo_path.echo(t, self.n)
            if overlay is not None and k < overlay.size:
                piece = overlay[k:k + self.n].astype(np.float64)
                mic[:piece.size] += piece
                k += self.n
            yield self._frame(np.clip(np.round(mic), -32768, 32767), t)

    def _wait_for_replies(self, plan: TurnPlan):
        """Paced microphone until the loop is idle; the overlay goes in over the reply. True: timed out."""
        loop = self.loop
        deadline = now() + self.turn_timeout_s
        overlay_done = plan.overlay is None
        idle_since = None
        while not self._closed.is_set():
            if now() > deadline:
                return True
            events = self._seen()
            started = [e for e in events if isinstance(e, ev.PlaybackStarted)]
            busy = loop.busy()
            if not busy:
                idle_since = idle_since or now()
                if now() - idle_since >= 0.3 and (overlay_done or not started):
                    return False
            else:
                idle_since = None
            if started and not overlay_done and loop.sink.playing:
                wait = plan.overlay_at_s - (now() - started[-1].t)
                if wait > 0:
                    yield from self._paced(wait)
                # the visitor speaks over the reply, then is quiet while the loop decides
                yield from self._paced(plan.overlay.size / SAMPLE_RATE, overlay=plan.overlay)
                overlay_done = True
                continue
            if started and overlay_done and self.listen_s > 0 and loop.sink.playing:
                last = started[-1]
                done = any(isinstance(e, ev.TurnMetrics) and e.turn == last.turn for e in events)
                if done and now() - last.t >= self.listen_s:
                    loop.sink.stop()  # the visitor has heard enough and walks on
            yield from self._paced(0.1)
        return False
