"""Partial transcripts while the visitor speaks: subtitles, hesitation, a backchannel's words.

One thread transcribes the open utterance every `asr.partial_interval_ms`; it never competes with
a final transcription (none starts while a turn is being transcribed or answered, and a turn's
start cancels a pass in flight), and none starts once the visitor has been quiet PARTIAL_QUIET_MS
(the final pass is about to need the cores). A reply paused at a voice onset asks for a pass at
once (`request()`): its barge-in decision waits for the words.

With incremental recognition (`asr.incremental`, avatar/asr/incremental.py) the partial passes
are the recognition itself: each confirms the words two passes agree on, the partial transcript
shown and used for barge-in is confirmed words plus the pass's others, and a turn's final pass
decodes only the audio after the words confirmed when it starts (the whole utterance as fallback).
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

import numpy as np

from avatar import events as ev
from avatar.asr.incremental import Commit, IncrementalRecognizer, incremental_rules
from avatar.cancel import Cancelled, CancelToken
from avatar.pipeline.contracts import Endpointer, check_transcript, reading
from avatar.pipeline.stage_call import WatchedStage
from avatar.pipeline.turn_jobs import TurnJobs
from avatar.pipeline.visitor import VisitorSession
from avatar.trace import now

log = logging.getLogger(__name__)

PARTIAL_QUIET_MS = 60.0  # no partial transcript starts once the visitor has been quiet this long
# incremental recognition: passes come every asr.incremental_interval_ms only once the utterance
# is this long (before, nothing can be confirmed yet: FIRST_COMMIT_S), every partial_interval_ms
# before, so a short question's final pass rarely waits behind a partial one; those earlier passes
# are the plain ones (no word alignment, no confirmation: ~15% cheaper)
INCREMENTAL_FROM_SAMPLES = int(1.5 * 16000)


class PartialTranscripts:
    def __init__(self, cfg, asr: WatchedStage, endpointer: Endpointer, visitor: VisitorSession, jobs: TurnJobs, *,
                 speaking: Callable[[], bool], emit: Callable[[ev.Event], None], stopping: threading.Event,
                 capture_done: threading.Event):
        self.asr = asr
        self.endpointer = endpointer
        self.visitor = visitor
        self.jobs = jobs
        self.lock = jobs.lock
        self.speaking = speaking
        self.emit = emit
        self.stopping = stopping
        self.capture_done = capture_done
        self.on = cfg.asr.partial_interval_ms > 0
        # a plain pass hears only the utterance's last this-many samples (0: all of it): over a long
        # utterance whose words are not confirmed (German) a whole pass took ~550 ms and the final
        # pass, which cannot stop a decode in flight, often waited for one (docs/PERF.md)
        self.window = cfg.asr.partial_window_ms * 16
        self.slow_s = cfg.asr.partial_interval_ms / 1000
        self.incremental_s = cfg.asr.incremental_interval_ms / 1000
        # incremental recognition needs the partial passes and a recognizer that takes context and
        # gives word times (WhisperASR's `incremental_capable`); others (the fakes of the tests)
        # decode whole utterances
        self.incremental = (self.on and bool(cfg.asr.incremental)
                            and bool(getattr(asr.instance, "incremental_capable", False)))
        self._incr = IncrementalRecognizer(**incremental_rules(cfg))
        self.text = ""
        self._fresh = False  # text was transcribed from the current utterance
        # which utterance a pass belongs to: a pass that ends after the next utterance started (or
        # the visitor left) must not hand its words to what came after
        self._utterance = 0
        self._wanted = threading.Event()
        self._token: CancelToken | None = None
        self.thread: threading.Thread | None = None

    # --- what the loop asks --------------------------------------------------------------
    def start(self) -> None:
        if self.on and self.thread is None:
            self.thread = threading.Thread(target=self._run, name="partials", daemon=True)
            self.thread.start()

    def utterance_started(self) -> None:
        self._utterance += 1
        self.text, self._fresh = "", False
        self._incr.reset()  # a new utterance: nothing of it is confirmed yet

    def words(self) -> str | None:
        """What was heard of the current utterance so far; None while it has not been transcribed."""
        return self.text if self._fresh else None

    def request(self) -> None:
        """Transcribe the utterance right away (a paused reply waits for its words)."""
        self._wanted.set()

    def final_starts(self) -> Commit | None:
        """A turn's final transcription starts: a partial pass still encoding would hold it up, so it
        is cancelled; with incremental recognition, the words confirmed so far."""
        if self._token is not None:
            self._token.cancel("final")
        return self._incr.commit() if self.incremental else None

    def final(self, asr: Any, audio: np.ndarray, commit: Commit | None, lang: str | None, prior: str | None,
              cancel: CancelToken) -> Any:
        """The turn's transcript: the confirmed words and a pass over the tail after them, or (not
        incremental) one pass over the whole utterance."""
        if self.incremental:
            return self._incr.final(asr, audio, commit, lang=lang, prior=prior, cancel=cancel)
        return asr.transcribe(audio, lang=lang, cancel=cancel, prior=prior)

    def forget(self) -> None:
        """The visitor left: the confirmed words of an utterance are the visitor's words too."""
        self._utterance += 1
        self.text, self._fresh = "", False
        self._incr.reset()

    # --- the thread ----------------------------------------------------------------------
    def _run(self) -> None:
        interval = self.incremental_s if self.incremental else self.slow_s  # incremental: at once after a slower one
        wait = interval
        while not self.stopping.is_set():
            urgent = self._wanted.wait(wait)  # a paused reply asks at once
            wait = interval
            self._wanted.clear()
            if self.capture_done.is_set():
                return
            with self.lock:
                if not self.speaking() or self.jobs.final_running():  # never compete with a final transcription
                    continue
                if not urgent and reading(self.endpointer, "silence_ms", 0.0) >= PARTIAL_QUIET_MS:
                    continue  # the visitor may be done: the final transcription is about to need the cores
                audio = self.endpointer.utterance()
                token = self._token = CancelToken()
                utterance = self._utterance
            if len(audio) < (1600 if urgent else 8000):
                continue
            started = now()
            try:
                tr = self._pass(audio, token)
                if self.incremental:
                    wait = max(0.0, interval - (now() - started)) if self._confirming(audio) else self.slow_s
                check_transcript(tr)
            except Cancelled:
                continue  # a final transcription started: it gets the cores
            except Exception:
                log.debug("partial transcript failed", exc_info=True)
                continue
            with self.lock:
                if utterance != self._utterance or not self.speaking():
                    continue  # the pass heard an utterance that is over: its words are not the current one's
                self.text, self._fresh = tr.text, True
            if tr.text:
                self.emit(ev.PartialTranscript(now(), text=tr.text, lang=tr.lang))

    def _confirming(self, audio: np.ndarray) -> bool:
        """The next pass is an incremental one (word times, every asr.incremental_interval_ms): the
        utterance is long enough to confirm words, and not one in a language whose words are not
        confirmed (asr.incremental_languages): those get the plain passes, as without incremental."""
        return self.incremental and len(audio) >= INCREMENTAL_FROM_SAMPLES and self._incr.confirming(audio)

    def _pass(self, audio: np.ndarray, token: CancelToken) -> Any:
        """One partial pass over the utterance so far (behind the watchdog, never waiting for a fresh ASR)."""
        forced, prior = self.visitor.forced, self.visitor.prior
        if self._confirming(audio):
            return self.asr.call(lambda asr: self._incr.partial(asr, audio, lang=forced(), prior=prior(), cancel=token),
                                 token, wait_fresh=False)
        if self.window and len(audio) > self.window:
            audio = audio[len(audio) - self.window:]  # the latest words: what subtitles and a barge-in read
        return self.asr.call(lambda asr: asr.transcribe(audio, lang=forced(), partial=True, cancel=token, prior=prior()),
                             token, wait_fresh=False)
