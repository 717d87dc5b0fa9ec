"""Scripted stand-ins for the stages, so the pipeline's own logic is tested without models."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from avatar import events as ev
from avatar.answer.base import Answer
from avatar.trace import now, sleep_until


@dataclass
class Frame:
    pcm: np.ndarray
    t: float
    audio_t: float


class ScriptedSource:
    """Silent 20 ms frames for `seconds`, paced in real time like a microphone."""

    def __init__(self, seconds: float, frame_ms: int = 20):
        self.n = int(seconds * 1000 / frame_ms)
        self.frame_ms = frame_ms
        self.closed = False

    def frames(self):
        t0 = now()
        step = self.frame_ms / 1000
        for i in range(self.n):
            if self.closed:
                return
            sleep_until(t0 + (i + 1) * step)
            yield Frame(np.zeros(int(16000 * step), np.int16), t0 + i * step, i * step)

    def close(self):
        self.closed = True


class ScriptedEndpointer:
    """Emits the given VAD events when the stream reaches their audio time."""

    def __init__(self, script: list[tuple[float, type]]):
        self.script = sorted(script, key=lambda x: x[0])
        self.end_wait_ms = 480

    def process(self, frame):
        out = []
        end = frame.audio_t + len(frame.pcm) / 16000
        while self.script and self.script[0][0] < end:
            at, kind = self.script.pop(0)
            out.append(kind(now(), audio_t=at))
        return out

    def utterance(self):
        return np.ones(16000, np.int16)

    def reset(self):
        pass


@dataclass
class Transcript:
    text: str
    lang: str
    lang_prob: float = 0.9
    dropped: str = ""
    ms: float = 0.0


class FakeASR:
    def __init__(self, text="wann öffnet das museum", lang="de", dropped="", delay=0.02):
        self.text, self.lang, self.dropped, self.delay = text, lang, dropped, delay
        self.calls = 0
        self.priors: list = []  # the prior language of each call (the voice loop's previous turn)

    def transcribe(self, pcm, lang=None, partial=False, cancel=None, prior=None):
        self.calls += 1
        self.priors.append(prior)
        time.sleep(self.delay)
        return Transcript("" if self.dropped else self.text, self.lang, dropped=self.dropped)


class FakeAnswerer:
    def __init__(self, reply="Das Museum öffnet um 10 Uhr.", delay=0.01, hang=False):
        self.reply, self.delay, self.hang = reply, delay, hang
        self.calls = []

    def answer(self, question, lang, history=(), cancel=None, turn=None):
        self.calls.append((question, lang, list(history)))
        if self.hang:
            time.sleep(30)
        time.sleep(self.delay)
        return Answer(self.reply, lang, source="fake")


@dataclass
class Chunk:
    pcm: np.ndarray
    sample_rate: int
    text: str
    visemes: list = field(default_factory=list)
    part: int = 0
    voice: str = "fake voice"


class FakeTTS:
    def __init__(self, clause_seconds=0.3, clauses=2):
        self.clause_seconds, self.clauses = clause_seconds, clauses

    def synthesize(self, text, lang, cancel=None):
        for i in range(self.clauses):
            time.sleep(0.005)
            yield Chunk(np.full(int(22050 * self.clause_seconds), 1000, np.int16), 22050, f"{text} [{i}]",
                        [(0.0, 0.1, "A")])


class PiecesTTS(FakeTTS):
    """Each clause streamed in three pieces (a piper voice with tts.stream): text on the first only."""

    def synthesize(self, text, lang, cancel=None):
        for i in range(self.clauses):
            for part in range(3):
                time.sleep(0.002)
                yield Chunk(np.full(int(22050 * self.clause_seconds / 3), 1000, np.int16), 22050,
                            f"{text} [{i}]" if part == 0 else "", [(0.0, 0.05, "A")], part)


class FakeSink:
    """Plays in (simulated) real time: audio queued at play() is audible from then on."""

    def __init__(self):
        self.lock = threading.Lock()
        self.played: list[tuple[float, int]] = []
        self.busy_until = 0.0
        self.stops: list[float] = []
        self.listeners = []

    def play(self, pcm, sample_rate):
        with self.lock:
            start = max(now(), self.busy_until)
            self.played.append((start, len(pcm)))
            self.busy_until = start + len(pcm) / sample_rate

    @property
    def playing(self):
        return now() < self.busy_until

    def stop(self):
        with self.lock:
            self.busy_until = 0.0
            t = now()
            self.stops.append(t)
            return t

    def pause(self):
        with self.lock:
            self.paused_at = now()
            self.held = max(0.0, self.busy_until - self.paused_at)
            self.busy_until = self.paused_at + 1e6  # still "playing" (held) until resumed or stopped
            self.pause_count = getattr(self, "pause_count", 0) + 1
            return self.paused_at

    def resume(self):
        with self.lock:
            self.busy_until = now() + getattr(self, "held", 0.0)

    def first_audible_after(self, t):
        with self.lock:
            return next((s for s, _ in self.played if s >= t), None)

    def add_listener(self, fn):
        self.listeners.append(fn)

    def close(self):
        pass


class Recorder:
    def __init__(self):
        self.events = []

    def __call__(self, e):
        self.events.append(e)

    def of(self, kind):
        return [e for e in self.events if isinstance(e, kind)]


def script(*items):
    return list(items)


SPEECH = ev.SpeechStart
TENTATIVE = ev.TentativeEnd
END = ev.EndOfTurn
RESUMED = ev.Resumed
