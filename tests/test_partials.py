"""The partial-transcript thread: a pass belongs to the utterance it heard."""
import threading

import numpy as np

from avatar import config
from avatar.asr.transcript import Transcript
from avatar.pipeline.partials import PartialTranscripts
from avatar.pipeline.stage_call import WatchedStage
from avatar.pipeline.turn_jobs import TurnJobs


class _Endpointer:
    silence_ms = 0.0

    def utterance(self):
        return np.zeros(16000, np.int16)


class _Visitor:
    def forced(self):
        return None

    def prior(self):
        return None


class _SlowASR:
    """Its first pass waits until the test lets it go; every later pass waits until the test ends."""

    def __init__(self):
        self.inside = threading.Event()
        self.release = threading.Event()
        self.second = threading.Event()
        self.done = threading.Event()
        self.calls = 0

    def transcribe(self, audio, lang=None, partial=False, cancel=None, prior=None):
        self.calls += 1
        if self.calls > 1:
            self.second.set()
            self.done.wait(10)
            return Transcript("", "en", 1.0, dropped="empty")
        self.inside.set()
        self.release.wait(10)
        return Transcript("what time is it", "en", 1.0)


def _partials(asr):
    cfg = config.load(sets=["asr.partial_interval_ms=20", "asr.incremental=false"], env={})
    lock = threading.RLock()
    stopping, done = threading.Event(), threading.Event()
    seen = []
    p = PartialTranscripts(cfg, WatchedStage("asr", asr, 5.0), _Endpointer(), _Visitor(), TurnJobs(lock),
                           speaking=lambda: True, emit=seen.append, stopping=stopping, capture_done=done)
    return p, lock, stopping, seen


def _run_over(between):
    """A pass hears utterance A; `between` happens while it runs; what the partials say after it."""
    asr = _SlowASR()
    p, lock, stopping, seen = _partials(asr)
    p.start()
    try:
        assert asr.inside.wait(5)
        with lock:  # as turn-taking and the visitor's end do it: under the loop's lock
            between(p)
        asr.release.set()
        assert asr.second.wait(5)  # the thread went round: the first pass's words were handled
        return p.words(), p.text, seen
    finally:
        stopping.set()
        asr.done.set()
        p.thread.join(5)


def test_a_pass_of_the_last_utterance_gives_its_words_to_no_one_else():
    """A pass over utterance A that ends after B started must not be B's words (B over a reply would be
    judged by A's words: a "mhm" after a question taken for an interruption, or the reverse)."""
    words, text, seen = _run_over(lambda p: p.utterance_started())
    assert words is None and text == "" and not seen


def test_a_pass_that_ends_after_the_visitor_left_keeps_nothing():
    words, text, seen = _run_over(lambda p: p.forget())
    assert words is None and text == "" and not seen


def test_a_pass_of_the_current_utterance_is_its_words():
    words, text, seen = _run_over(lambda p: None)
    assert words == "what time is it" and [e.text for e in seen] == ["what time is it"]
