"""When does the visitor speak, and when is the turn over?

Audio is judged in 32 ms chunks (Silero's unit at 16 kHz): a chunk is speech when webrtcvad
(cheap, but fooled by noise) hears voice in its last 30 ms and Silero confirms it. From that:

    idle --speech_start_ms of speech--> speaking   (SpeechStart)
    speaking --tentative_end_ms of silence--> pausing   (TentativeEnd: start work speculatively)
    pausing --speech_start_ms of speech--> speaking   (Resumed: drop the speculative work)
    pausing --end_wait_ms of silence--> idle   (EndOfTurn)

A burst with less than min_speech_ms of speech (a cough, a click) gets its SpeechStart but never a
TentativeEnd or EndOfTurn; the next SpeechStart starts afresh.

The capture thread feeds `process()`; other threads (the partial transcripts) read `utterance()`.
The audio buffer is guarded by one lock: a reader that compacted the buffer without it lost the
frame the capture thread appended meanwhile, and every later slice came out shifted by it, so the
utterances lost their start by more and more over a long run (docs/PERF.md, "The deaf kiosk found").
"""
from __future__ import annotations

import threading

import numpy as np

from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.events import EndOfTurn, Event, Resumed, SpeechStart, TentativeEnd
from avatar.trace import now
from avatar.vad.silero import CHUNK, SileroVAD

WEBRTC_SAMPLES = 480        # webrtcvad's 30 ms frame: the end of each chunk
HYSTERESIS = 0.15           # once speaking, Silero may dip this far below the threshold (its own rule)
MAX_UTTERANCE_S = 30.0      # Whisper's window: older audio of an endless utterance is let go
# Silero's LSTM state drifts over a long stream and then misses short utterances (51 of 58 clips
# heard in one stream, 58 with this reset): start it afresh after ~0.5 s of clear non-speech
QUIET_PROB, QUIET_CHUNKS_RESET = 0.1, 16
IDLE, SPEAKING, PAUSING = "idle", "speaking", "pausing"


class Endpointer:
    def __init__(self, cfg, silero: SileroVAD | None = None):
        import webrtcvad

        self.cfg = cfg
        self._webrtc = webrtcvad.Vad(int(cfg.webrtc_mode))
        self._silero = silero or SileroVAD()
        self._keep_idle = int((cfg.preroll_ms + cfg.speech_start_ms) * SAMPLE_RATE / 1000) + 2 * CHUNK
        self._lock = threading.Lock()  # the audio buffer: process() writes it, utterance() reads it from any thread
        self.reset()

    def reset(self) -> None:
        """Forget everything: state, audio, the pending utterance (e.g. after playback or a language switch)."""
        with self._lock:
            self._reset()

    def _reset(self) -> None:
        self._silero.reset()
        self.state = IDLE
        self.end_wait_ms = float(self.cfg.end_of_turn_ms)
        self.probability = 0.0       # Silero's latest speech probability (for the HUD)
        self._quiet_chunks = 0
        self.voiced_ms = 0.0         # speech heard in the current utterance
        self.silence_ms = 0.0        # quiet since the utterance's last speech (0 while speech is heard)
        self._base_t: float | None = None  # stream time of sample 0
        self._pos = 0                # samples judged so far
        self._pending = np.zeros(0, np.int16)
        self._buf: list[np.ndarray] = []
        self._buf_start = 0          # sample index of _buf's first sample
        self._buf_len = 0
        self._utt_start: int | None = None
        self._utt_end: int | None = None
        self._run_start: int | None = None  # first sample of the current run of speech chunks
        self._last_voiced_end = 0
        self._last_utterance = np.zeros(0, np.int16)

    # -- public -------------------------------------------------------------------------------------
    def process(self, frame: AudioFrame) -> list[Event]:
        with self._lock:
            return self._process(frame)

    def _process(self, frame: AudioFrame) -> list[Event]:
        if self._base_t is None:
            self._base_t = frame.audio_t
        self._append(frame.pcm)
        self._pending = np.concatenate([self._pending, frame.pcm]) if self._pending.size else frame.pcm
        events: list[Event] = []
        while self._pending.size >= CHUNK:
            chunk, self._pending = self._pending[:CHUNK], self._pending[CHUNK:]
            events += self._step(chunk)
        if self.state == IDLE and self._utt_start is None:
            self._trim(self._keep_idle)
        elif self._buf_len > 2 * MAX_UTTERANCE_S * SAMPLE_RATE:  # someone talks on and on: bound the memory
            self._trim(int(MAX_UTTERANCE_S * SAMPLE_RATE))
            self._utt_start = max(self._utt_start or 0, self._buf_start)
        return events

    def utterance(self) -> np.ndarray:
        """The audio of the current utterance (pre-roll included) so far, or of the last finished one."""
        with self._lock:
            if self._utt_start is None:
                return self._last_utterance
            return self._slice(self._utt_start, self._buf_start + self._buf_len)

    @property
    def in_speech(self) -> bool:
        return self.state != IDLE

    # -- the decision per chunk -------------------------------------------------------------------
    def _step(self, chunk: np.ndarray) -> list[Event]:
        start, end = self._pos, self._pos + CHUNK
        self._pos = end
        self.probability = self._silero(chunk)
        self._quiet_chunks = self._quiet_chunks + 1 if self.probability < QUIET_PROB else 0
        if self._quiet_chunks >= QUIET_CHUNKS_RESET:
            self._silero.reset()
            self._quiet_chunks = 0
        threshold = self.cfg.silero_threshold - (HYSTERESIS if self.state == SPEAKING else 0.0)
        speech = self.probability >= threshold and \
            self._webrtc.is_speech(chunk[-WEBRTC_SAMPLES:].tobytes(), SAMPLE_RATE)
        ms = _ms(CHUNK)
        events: list[Event] = []
        if speech:
            self.silence_ms = 0.0
            if self._run_start is None:
                self._run_start = start
            run_ms = _ms(end - self._run_start)
            if self.state == IDLE and run_ms >= self.cfg.speech_start_ms:
                self.state = SPEAKING
                self.voiced_ms = run_ms
                self.end_wait_ms = float(self.cfg.end_of_turn_ms)
                self._utt_start = max(self._buf_start, self._run_start - int(self.cfg.preroll_ms * SAMPLE_RATE / 1000))
                self._last_voiced_end = end
                events.append(SpeechStart(now(), self._audio_t(self._run_start)))
            elif self.state == SPEAKING:
                self.voiced_ms += ms
                self._last_voiced_end = end
            elif self.state == PAUSING and run_ms >= self.cfg.speech_start_ms:
                self.state = SPEAKING
                self.voiced_ms += run_ms
                self._last_voiced_end = end
                events.append(Resumed(now(), self._audio_t(self._run_start)))
            return events
        self._run_start = None
        if self.state == IDLE:
            return events
        silence_ms = self.silence_ms = _ms(end - self._last_voiced_end)
        if self.voiced_ms < self.cfg.min_speech_ms:
            if silence_ms >= max(self.end_wait_ms, self.cfg.tentative_end_ms):
                self._finish(keep=False)  # too short for a turn: a cough, a click, a door
            return events
        if self.state == SPEAKING and silence_ms >= self.cfg.tentative_end_ms:
            self.state = PAUSING
            events.append(TentativeEnd(now(), self._audio_t(self._last_voiced_end)))
        if self.state == PAUSING and silence_ms >= self.end_wait_ms:
            events.append(EndOfTurn(now(), self._audio_t(self._last_voiced_end)))
            self._finish(keep=True)
        return events

    def _finish(self, keep: bool) -> None:
        if keep:
            self._last_utterance = self._slice(self._utt_start, self._buf_start + self._buf_len)
        self.state = IDLE
        self.voiced_ms = self.silence_ms = 0.0
        self._utt_start = None
        self._trim(self._keep_idle)

    # -- audio bookkeeping ----------------------------------------------------------------------------
    def _append(self, pcm: np.ndarray) -> None:
        self._buf.append(np.asarray(pcm, np.int16))
        self._buf_len += len(pcm)

    def _trim(self, keep: int) -> None:
        """Keep only the last `keep` samples (while idle: what a pre-roll may need; the lock held)."""
        excess = self._buf_len - keep
        if excess <= 0:
            return
        audio = np.concatenate(self._buf)[excess:]
        self._buf = [audio]
        self._buf_start += excess
        self._buf_len = len(audio)

    def _slice(self, a: int, b: int) -> np.ndarray:
        """Samples a..b of the stream (the lock held)."""
        if not self._buf:
            return np.zeros(0, np.int16)
        audio = np.concatenate(self._buf) if len(self._buf) > 1 else self._buf[0]
        if len(self._buf) > 1:
            self._buf = [audio]
        return audio[max(0, a - self._buf_start): max(0, b - self._buf_start)].copy()

    def _audio_t(self, sample: int) -> float:
        return (self._base_t or 0.0) + sample / SAMPLE_RATE


def _ms(samples: int) -> float:
    return samples * 1000.0 / SAMPLE_RATE
