"""Echo cancellation: the microphone minus what the loudspeaker played, so the avatar never hears itself.

Wraps the WebRTC audio-processing module shipped in the `livekit` package (AEC3, noise
suppression, high-pass filter, optional gain control). The played signal comes in through
`add_reference(pcm, t_audible)` (register it as the sink's listener) and is fed as the reverse
stream in lockstep with the captured 10 ms frames, aligned by clock time; what the clock cannot see
(driver buffers, the air) is the stream delay: `cfg.echo.delay_ms`, or measured from the signals.
"""
from __future__ import annotations

import dataclasses
import logging
from collections import deque
from typing import Any, Callable

import numpy as np

from avatar.aec.delay_estimator import DelayEstimate, estimate_delay
from avatar.aec.reference_timeline import ReferenceTimeline
from avatar.aec.ring import RingEstimate
from avatar.events import Notice
from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.settings import Echo
from avatar.trace import now

log = logging.getLogger(__name__)

CHUNK = SAMPLE_RATE // 100  # the module works on exactly 10 ms
_ESTIMATE_AFTER_S = 3.0     # seconds of played audio collected before the delay is measured
_MIN_CONFIDENCE = 6.0       # correlation peak over median below which the measurement is ignored
_REF_ACTIVE = 64            # int16 amplitude of the played signal above which the loudspeaker counts as playing
_ECHO_COHERENCE = 0.75      # a captured frame this correlated with the played signal (best lag) is mostly its echo
_ECHO_CERTAIN = 0.9         # ... and this correlated: the echo alone (its level is learned from such frames)
_PIECES, _MIN_PIECE = 4, 80  # a frame is matched in up to 4 pieces of 80 samples (5 ms) or more (_match_pieces)
_COHERENCE_LAGS_S = (-0.06, 0.25)  # where the played signal is searched: echo up to 60 ms early, 250 ms late
_ERL_RATE = 0.05            # how fast the echo's level (microphone minus played, dB) is learned
_LAG_SPREAD_S = 0.02        # the echo's delay varies this much (time stamps jitter)
_DOUBLE_TALK_EXCESS_DB = 6.0  # a frame this much louder than the loudest echo possible holds another voice
_AUDIBLE_DB = 30.0          # captured frames quieter than this (int16 energy, dB) are not checked: nothing to hear
_SUPPRESS = 0.0             # what is left of a suppressed frame (voice detectors hear speech at -40 dB too)
_TAIL_CHUNKS = 40           # a reverberant room rings on for a while after the loudspeaker stops (RT60 ~0.5-1 s)
_CLEAN_RATE = 0.02          # how fast the share of played-signal-alone frames is learned (~50 audible frames)
_CLEAN_SHARE = 0.72         # at least this share of the echo's frames match the played signal (>= _ECHO_CERTAIN, in pieces): a clean path (live loopback captures: never under 0.77 once learned; the echo bench's rooms: never over 0.67)
_RING_SHARE = 0.5           # under this share the room rings (the echo bench's rooms: 0.0-0.33 after a reply; a loopback with a visitor over the reply dips to 0.67)
_CLEAN_AFTER = 100          # audible frames of echo seen before the path may count as clean (~2 s of reply)
_FLOOR_S = 3.0              # the microphone's noise floor: its quietest frame over this long (minimum statistics)
_FLOOR_MARGIN_DB = 6.0      # a frame within this much of the floor is the room's own noise: neither a visitor nor the echo
_CLEAN_VOICE_PROB = 0.2     # on a clean path, a frame the canceller kept and the played signal does not explain is a voice onset when the voice detector gives it this much


def _energy_db(pcm: np.ndarray) -> float:
    x = pcm.astype(np.float64)
    return 10.0 * np.log10(float(np.dot(x, x)) / max(1, x.size) + 1.0)


class EchoCanceller:
    def __init__(self, cfg_echo: Echo, notify: Callable[[Notice], None] | None = None,
                 reference_lead_ms: float = 0.0) -> None:
        self.enabled = bool(cfg_echo.enabled)
        self.delay_ms = float(cfg_echo.delay_ms)
        self.notices: list[Notice] = []
        self.estimate: DelayEstimate | None = None
        self.frames = 0          # 10 ms chunks processed
        self.process_s = 0.0     # time spent in the module, on the one clock
        self._notify = notify
        self._timeline = ReferenceTimeline()
        # read the reference this much later than the capture time: the canceller only removes an echo
        # whose played signal it was given first, and a real audio stack's time stamps jitter by
        # several ms (PulseAudio: the echo came 0-10 ms *before* its time stamp), so the reference is
        # fed this margin early and the stream delay told accordingly. Only for a sink that hands
        # its audio over ahead of time (a device's buffer: cfg.echo.reference_lead_ms); a WAV sink's
        # blocks are exact and arrive just in time, so reading ahead would read silence.
        self.reference_lead_ms = float(reference_lead_ms)
        self._lead_s = self.reference_lead_ms / 1000.0
        self._want_estimate = self.enabled and cfg_echo.estimate_delay
        self._est_ref: list[np.ndarray] = []
        self._est_mic: list[np.ndarray] = []
        self._est_active = 0
        self._apm = None
        self._rtc = None
        # double talk: the canceller removes the echo but not the visitor, so a frame whose output keeps
        # most of its input energy while the loudspeaker plays holds a voice that is not the avatar's
        self.doubletalk_db = cfg_echo.doubletalk_db
        self.kept_db = 0.0           # last frame: output energy over input energy
        self.echo_dominated = False  # last frame: the avatar's own voice (residual echo, or echo the canceller missed)
        self.suppressed = 0          # frames suppressed that way
        self.double_talk = False     # last frame: louder than the played signal's echo can be (a visitor over the reply)
        self.unexplained = False     # last frame: audible while the loudspeaker played, kept, and not the avatar's own voice
        self._erl_db: float | None = None  # microphone level minus played level, learned on frames of echo alone
        self._echo_lag: float | None = None  # where in the searched stretch the echo's played signal is (samples)
        self.reference_active = False  # last frame: the loudspeaker was playing, or its sound still rings in the room
        self._ref_quiet_chunks = _TAIL_CHUNKS  # 10 ms chunks since the loudspeaker last played
        self._levels: deque[tuple[float, float]] = deque()  # (time, microphone level dB) of the last _FLOOR_S, rising
        self.floor_db = 0.0          # the microphone's noise floor (dB, like the echo levels)
        # during the first reply, the room's ring after loud words counts as the avatar's own echo too,
        # not as a visitor (avatar/aec/ring.py)
        self.ring = cfg_echo.ring
        self._ring = RingEstimate()
        self._direct_db: float | None = None  # last frame: the loudest echo the played signal at its delay makes (dB)
        # how much of the echo the played signal explains at one lag: most frames on a direct path (a
        # loopback, a loudspeaker next to the microphone: 70-90 % of them), few in a reverberant room (the
        # echo bench's rooms: 18-28 %); learned on the audible frames while the loudspeaker plays
        self._clean_share = 0.0
        self._clean_seen = 0
        if self.enabled:
            self._apm = self._load(cfg_echo)

    # -- wiring ------------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """True when echo is really being cancelled (not pass-through)."""
        return self._apm is not None

    def add_reference(self, pcm: np.ndarray, t_audible: float) -> None:
        """Sink listener: `pcm` (16 kHz int16) became audible at clock time `t_audible`."""
        if self._apm is not None:
            self._timeline.add(pcm, t_audible)

    def process(self, mic_frame: AudioFrame) -> AudioFrame:
        """The frame with the echo removed (same type, time stamps and length)."""
        if self._apm is None:
            return mic_frame
        pcm = np.asarray(mic_frame.pcm, dtype=np.int16).reshape(-1)
        size = pcm.size
        if size % CHUNK:  # the last frame of a file may be short: pad it to whole 10 ms
            pcm = np.concatenate([pcm, np.zeros(CHUNK - size % CHUNK, np.int16)])
        out = np.empty_like(pcm)
        start = now()
        ref_active = False
        for k in range(0, pcm.size, CHUNK):
            t_capture = mic_frame.t + k / SAMPLE_RATE
            ref = self._timeline.read(t_capture + self._lead_s, CHUNK)
            if np.abs(ref).max(initial=0) > _REF_ACTIVE:
                self._ref_quiet_chunks = 0
            else:
                self._ref_quiet_chunks += 1
            ref_active = ref_active or self._ref_quiet_chunks < _TAIL_CHUNKS
            out[k:k + CHUNK] = self._process_chunk(ref, pcm[k:k + CHUNK])
            if self._want_estimate:
                self._collect(ref, pcm[k:k + CHUNK])
        self.frames += pcm.size // CHUNK
        self.reference_active = ref_active
        self.kept_db = _energy_db(out) - _energy_db(pcm)
        self.echo_dominated = self.double_talk = self.unexplained = False
        mic_db = _energy_db(pcm[:size])
        self._track_floor(mic_frame.t, mic_db)
        if not ref_active:
            self._ring.rung_out()
        else:
            self._ring.played_s += size / SAMPLE_RATE
        if ref_active and self.doubletalk_db > -100.0:
            # a frame too quiet to hear, or no louder than the room's own noise, is neither a visitor nor
            # the avatar's own voice (in the reply's gaps on a clean path it looked like double talk)
            audible = mic_db > max(_AUDIBLE_DB, self.floor_db + _FLOOR_MARGIN_DB)
            coherence, lag, ref_db = self._match(mic_frame.t, pcm[:size]) if audible else (0.0, 0, None)
            pieces: float | None = None  # _match_pieces, once asked
            heard_played = audible and ref_db[lag] > _AUDIBLE_DB  # the played signal is there to be heard
            if heard_played and coherence >= _ECHO_CERTAIN:  # the echo alone: its level and delay
                erl = mic_db - ref_db[lag]
                self._erl_db = erl if self._erl_db is None else self._erl_db + _ERL_RATE * (erl - self._erl_db)
                self._echo_lag = lag if self._echo_lag is None else self._echo_lag + _ERL_RATE * (lag - self._echo_lag)
            echo_db = self._loudest_echo_db(mic_frame.t, size, ref_db)
            if audible and self._direct_db is not None and coherence < _ECHO_CERTAIN \
                    and mic_db > self._direct_db + _DOUBLE_TALK_EXCESS_DB:
                self._ring.measure(mic_frame.t, mic_db)  # louder than the direct echo: how fast the ring falls
            # a frame too quiet to hear is neither a visitor nor the avatar's own voice
            if audible and echo_db is not None and coherence < _ECHO_CERTAIN and mic_db > echo_db + _DOUBLE_TALK_EXCESS_DB:
                # more sound than the loudest echo the played signal can make: a visitor talking over
                # the reply. The canceller's suppressor often takes such an onset away (> 10 dB) before
                # it has noticed the double talk; the endpointer then hears the microphone as it was
                self.double_talk = True
                if self.kept_db <= self.doubletalk_db:
                    out = pcm.copy()
                    self.kept_db = 0.0
            elif audible and (_own_voice(coherence, self.kept_db, self.doubletalk_db)
                              or (pieces := self._match_pieces(mic_frame.t, pcm[:size])) >= _ECHO_CERTAIN):
                # while the loudspeaker plays, a frame that is the played signal (almost) alone, one the
                # canceller let through although it is mostly the played signal (not converged yet, or
                # the echo path moved), or one it took most of (its residual: through a real audio
                # stack 40-55 dB, enough for a voice detector) is the avatar's own voice: silenced, so
                # that neither the endpointer nor the barge-in rule hears it
                self.echo_dominated = True
                self.suppressed += 1
                out = (out.astype(np.float32) * _SUPPRESS).astype(np.int16)
                self.kept_db = _energy_db(out) - _energy_db(pcm)
            self.unexplained = audible and not self.echo_dominated and self.kept_db > self.doubletalk_db
            if heard_played and not self.unexplained:
                # is the echo path clean? Learned on the frames taken as the avatar's own voice: one
                # that holds another sound (a visitor talking over the reply) tells nothing about it
                if coherence < _ECHO_CERTAIN and pieces is None:
                    pieces = self._match_pieces(mic_frame.t, pcm[:size])
                self._learn_path(coherence >= _ECHO_CERTAIN or pieces >= _ECHO_CERTAIN)
        self.process_s += now() - start
        return dataclasses.replace(mic_frame, pcm=out[:size])

    def _track_floor(self, t: float, level_db: float) -> None:
        """The noise floor: the quietest frame of the last _FLOOR_S (speech and the echo pause between
        words often enough for the floor to show)."""
        levels = self._levels
        while levels and levels[-1][1] >= level_db:  # an older, louder frame can never be the minimum again
            levels.pop()
        levels.append((t, level_db))
        while levels[0][0] < t - _FLOOR_S:
            levels.popleft()
        self.floor_db = levels[0][1]

    def _loudest_echo_db(self, t: float, n: int, ref_db: np.ndarray | None) -> float | None:
        """The loudest echo the played signal can make in the frame at `t` (dB), raised during the
        first reply and in a room that rings to what still rings of the words played before
        (avatar/aec/ring.py); None before the echo's level and delay are learned, or for a quiet
        frame (`ref_db` None) where no ring counts. The direct echo alone is kept in `_direct_db`."""
        self._direct_db = None
        if self._erl_db is None or self._echo_lag is None:
            return None
        # the ring counts during the first reply (nothing learned yet) and in a room that rings: one
        # whose echo the played signal does not explain at one lag (`rings`, learned)
        ringing = self.ring and (self._ring.first_reply or self.rings)
        if ref_db is None:
            if not ringing:
                return None
            ref_db = self._played_db(t, n)  # a quiet frame: its played level, for the ring it leaves
        k, w = int(round(self._echo_lag)), int(_LAG_SPREAD_S * SAMPLE_RATE)
        echo_db = self._direct_db = float(ref_db[max(0, k - w):k + w + 1].max(initial=0.0)) + self._erl_db
        if ringing:
            ring_db = self._ring.level_db(t, self.rings)
            self._ring.observe(t, echo_db)
            if ring_db is not None:
                echo_db = max(echo_db, ring_db)
        return echo_db

    def _played_db(self, t: float, n: int) -> np.ndarray:
        """The played energy (dB) at every lag of the stretch `_match` searches, for a frame of `n` samples."""
        ref = self._stretch(t, n)
        return 10.0 * np.log10(np.convolve(ref * ref, np.ones(n), "valid") / n + 1.0)

    def _stretch(self, t: float, n: int) -> np.ndarray:
        """The played signal around a frame of `n` samples at `t`: every lag `_match` searches."""
        early, late = _COHERENCE_LAGS_S
        return self._timeline.read(t - late, n + int((late - early) * SAMPLE_RATE)).astype(np.float64)

    def _match(self, t: float, mic: np.ndarray) -> tuple[float, int, np.ndarray]:
        """How much a captured frame is the played signal: the best normalized correlation with it
        around the frame's time (1.0: the loudspeaker and nothing else; a visitor's voice lowers it),
        at which lag (samples into the searched stretch), and the played energy (dB) at every lag."""
        m = mic.astype(np.float64)
        mm = float(m @ m)
        if m.size == 0 or mm <= 0.0:
            return 0.0, 0, np.zeros(1)
        ref = self._stretch(t, m.size)
        if not ref.any():
            return 0.0, 0, np.zeros(1)
        score, energy = _coherence(ref, m, mm)
        best = int(np.argmax(score))
        return float(score[best]), best, 10.0 * np.log10(energy / m.size + 1.0)

    def _match_pieces(self, t: float, mic: np.ndarray) -> float:
        """How much of a captured frame the played signal explains when each piece of it (up to four,
        of 5 ms or more) may have its own lag.

        Through a real audio stack the echo's delay jumps by a few ms now and then (a resampler or a
        buffer catching up: through PulseAudio under load the best lag went 3, 15, -21 ms from frame to
        frame). A frame that straddles such a jump matches the played signal at no single lag (0.56-0.71,
        and the reply paused itself on its own voice), while its halves matched at theirs (0.93-1.0).
        Returns the share of the frame's energy the pieces explain that way, as a correlation (at least
        the halves' share: each piece may take its half's lag); a visitor's voice lowers every piece as
        it lowers the whole. Only the own-voice decision uses it (see process())."""
        m = mic.astype(np.float64)
        mm, pieces = float(m @ m), min(_PIECES, m.size // _MIN_PIECE)
        if pieces < 2 or mm <= 0.0:
            return 0.0
        ref = self._stretch(t, m.size)
        explained = 0.0
        edges = [int(e) for e in np.linspace(0, m.size, pieces + 1)]
        for a, b in zip(edges[:-1], edges[1:]):
            piece = m[a:b]
            pm = float(piece @ piece)
            if pm > 0.0:
                explained += float(_coherence(ref[a:ref.size - m.size + b], piece, pm)[0].max()) ** 2 * pm
        return float(np.sqrt(explained / mm))

    def _learn_path(self, explained: bool) -> None:
        """One audible frame of echo while the loudspeaker plays: did the played signal explain it?"""
        self._clean_seen += 1
        self._clean_share += _CLEAN_RATE * (float(explained) - self._clean_share)

    @property
    def rings(self) -> bool:
        """Whether the room's ring counts as echo after the first reply: the path is learned (as many
        frames as clean_path needs) and is not clean, i.e. most of the echo comes by other ways than
        one direct lag (reflections, the reverberant tail). A loopback or a direct path never rings;
        between _RING_SHARE and _CLEAN_SHARE (a visitor over a loopback's reply lowers its share while
        he speaks) a path is neither clean nor ringing."""
        return self._clean_seen >= _CLEAN_AFTER and self._clean_share < _RING_SHARE

    @property
    def clean_path(self) -> bool:
        """Whether the echo path is direct: most frames of the echo are the played signal (each 5 ms piece
        at one lag, _match_pieces), learned on the frames taken as the avatar's own voice."""
        return self._clean_seen >= _CLEAN_AFTER and self._clean_share >= _CLEAN_SHARE

    def near_end(self, probability: float) -> float:
        """The speech probability of the last frame, or 0 when the loudspeaker was playing and the
        canceller took most of the frame away (what the VAD heard was the avatar's residual echo).

        On a clean echo path a frame the canceller kept and the played signal does not explain is
        sound from the room, not the avatar: if the voice detector finds it at all likely speech
        (>= 0.2) it counts as a voice (1.0). A visitor as loud as the reply mixes with its echo, the
        frames around his first words are suppressed as the avatar's own, and the detector, hearing two
        voices in pieces, rises slowly: through PulseAudio 0.04-0.61 over the 140 ms of "Where" that
        were kept, and the reply played on (docs/PERF.md). In a reverberant room the room's ring makes
        such frames from the avatar's own voice too, so there the probability stands as it is."""
        if self._apm is None or not self.reference_active:
            return probability
        if self.unexplained and self.clean_path and probability >= _CLEAN_VOICE_PROB:
            return 1.0
        if self.double_talk:
            return probability
        if self.kept_db > self.doubletalk_db and not self.echo_dominated:
            return probability
        return 0.0

    def reset(self) -> None:
        """Forget the played signal (the module keeps its learned echo path)."""
        self._timeline.clear()

    @property
    def ms_per_10ms(self) -> float:
        return 1000.0 * self.process_s / self.frames if self.frames else 0.0

    # -- internals ---------------------------------------------------------------------------------
    def _load(self, cfg_echo: Echo):
        try:
            from livekit import rtc

            apm = rtc.AudioProcessingModule(
                echo_cancellation=True,
                noise_suppression=cfg_echo.noise_suppression,
                high_pass_filter=cfg_echo.high_pass,
                auto_gain_control=cfg_echo.auto_gain,
            )
            apm.set_stream_delay_ms(int(round(self.delay_ms + self.reference_lead_ms)))
        except Exception as exc:  # a missing or broken native library must not stop the kiosk
            self._tell("echo_canceller_missing",
                       f"echo cancellation is off ({type(exc).__name__}: {exc}); the avatar may hear itself. "
                       "Install the 'livekit' package or use a headset.")
            return None
        self._rtc = rtc
        return apm

    def _process_chunk(self, ref: np.ndarray, mic: np.ndarray) -> np.ndarray:
        rtc = self._rtc
        self._apm.process_reverse_stream(rtc.AudioFrame(bytearray(ref.tobytes()), SAMPLE_RATE, 1, CHUNK))
        frame = rtc.AudioFrame(bytearray(mic.tobytes()), SAMPLE_RATE, 1, CHUNK)
        self._apm.process_stream(frame)
        return np.frombuffer(frame.data, dtype=np.int16)

    def _collect(self, ref: np.ndarray, mic: np.ndarray) -> None:
        """Keep played and heard audio side by side until there is enough to measure the delay."""
        if not self._est_ref and not ref.any():
            return  # start collecting with the first played sample
        self._est_ref.append(ref.copy())
        self._est_mic.append(mic.copy())
        self._est_active += int(np.abs(ref).max() > 64)
        enough = self._est_active * CHUNK >= _ESTIMATE_AFTER_S * SAMPLE_RATE
        if enough or len(self._est_ref) * CHUNK >= 4 * _ESTIMATE_AFTER_S * SAMPLE_RATE:
            self._want_estimate = False
            est = estimate_delay(np.concatenate(self._est_ref), np.concatenate(self._est_mic))
            self._est_ref, self._est_mic = [], []
            self.estimate = est
            if est.confidence >= _MIN_CONFIDENCE:
                self._apply_delay(est)

    def _apply_delay(self, est: DelayEstimate) -> None:
        # est is measured against the reference as it is read now (already self._lead_s early)
        if est.delay_ms >= 0:
            self.delay_ms = est.delay_ms
            self._apm.set_stream_delay_ms(int(round(est.delay_ms)))
        else:  # the echo arrives before its time stamp says: read the reference further ahead (plus a margin)
            self._lead_s += (-est.delay_ms + 10.0) / 1000.0
            self.delay_ms = 10.0
            self._apm.set_stream_delay_ms(10)
        log.info("echo delay measured: %.1f ms (confidence %.1f)", est.delay_ms, est.confidence)

    def _tell(self, key: str, message: str) -> None:
        notice = Notice(t=now(), key=key, message=message)
        self.notices.append(notice)
        log.warning(message)
        if self._notify is not None:
            self._notify(notice)


def _coherence(ref: np.ndarray, m: np.ndarray, mm: float) -> tuple[np.ndarray, np.ndarray]:
    """Normalized correlation of `m` (energy `mm`) with `ref` at every lag ("valid"), and the played
    energy per lag."""
    energy = np.convolve(ref * ref, np.ones(m.size), "valid")
    return np.abs(np.correlate(ref, m, "valid")) / (np.sqrt(energy * mm) + 1e-9), energy


def _own_voice(coherence: float, kept_db: float, doubletalk_db: float) -> bool:
    """While the loudspeaker plays (and no louder voice is there): is the captured frame the avatar's own?"""
    return kept_db <= doubletalk_db or coherence >= _ECHO_COHERENCE
