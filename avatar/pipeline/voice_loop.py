"""The voice loop: wires audio, endpointer, ASR, answerer and TTS with typed events.

It owns what no stage may know about: cancellation, speculation, barge-in, the visitor's short
history and the watchdog. Threads: one capture thread (source -> echo canceller -> endpointer,
barge-in), one worker per turn (final ASR -> answer -> TTS -> sink), one for partial
transcripts. Observers (HUD, bench, tests) subscribe to events; they never drive the loop.

A turn's stages are consecutive intervals on the one clock, so they add up to its voice-to-voice
latency: endpoint (last speech sample -> work starts), asr, the answerer's own spans (retrieval,
decode, checks, rest as answer), tts_first_audio, hold (speculative reply waiting for the
confirmed end of turn), output (handed to the sink -> first audible sample).

With incremental recognition (`asr.incremental`, avatar/asr/incremental.py) the partial passes
are the recognition itself: each confirms the words two passes agree on, the partial transcript
shown and used for barge-in is confirmed words plus the pass's others, and a turn's final pass
decodes only the audio after the words confirmed when it starts (the whole utterance as fallback).
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from avatar import events as ev
from avatar.answer import forget_visitor
from avatar.answer.base import Answer, HistoryTurn
from avatar.asr.incremental import Commit, IncrementalRecognizer
from avatar.cancel import Cancelled, CancelToken
from avatar.trace import TRACER, Tracer, now
from avatar.pipeline.barge_in import PAUSE, RESUME, STOP, BargeIn, rule_from_config
from avatar.pipeline.stage_call import (StageOutputError, StageRaised, StageTimeout, StageUnavailable,
                                        WatchedStage, checked_timeout)

log = logging.getLogger(__name__)

ANSWER_SPAN_TRACKS = ("answer", "llm", "checks")
PARTIAL_QUIET_MS = 60.0  # no partial transcript starts once the visitor has been quiet this long
KEPT_TURNS = 1000  # per-turn records a loop keeps (metrics, barge-in times): a kiosk runs for weeks
# incremental recognition: passes come every asr.incremental_interval_ms only once the utterance
# is this long (before, nothing can be confirmed yet: FIRST_COMMIT_S), every partial_interval_ms
# before, so a short question's final pass rarely waits behind a partial one
INCREMENTAL_FROM_SAMPLES = int(1.5 * 16000)


@dataclass
class TurnJob:
    """One attempt at answering one utterance (speculative until the end of turn is confirmed)."""
    id: int
    audio: np.ndarray
    speech_end: float  # clock time of the last speech sample (endpointer's estimate)
    started: float  # clock time work started (tentative_end or end_of_turn)
    speculative: bool
    token: CancelToken = field(default_factory=CancelToken)
    confirmed: threading.Event = field(default_factory=threading.Event)
    marks: dict[str, float] = field(default_factory=dict)
    finished: threading.Event = field(default_factory=threading.Event)
    playing: bool = False
    thread: threading.Thread | None = None
    commit: Commit | None = None  # incremental recognition: the words confirmed when the job started
    asr_info: dict = field(default_factory=dict)  # how its final transcript was made (path, fallback, ...)


class VoiceLoop:
    def __init__(self, cfg, source, sink, answerer, asr, tts, tracer: Tracer = TRACER, *,
                 endpointer=None, echo_canceller=None, fallback_answerer=None,
                 hesitation: Callable[[str], float | None] | None = None,
                 backchannel: Callable[[float, str], bool] | None = None,
                 renew: dict[str, Callable[[], Any]] | None = None,
                 on_renewed: Callable[[str, Any], None] | None = None):
        self.cfg = cfg
        self.source = source
        self.tracer = tracer
        # every stage call goes through the watchdog; renew[stage] builds a fresh instance of a
        # stage whose call hung (default: the instance's own renew(), if it has one)
        self.stage_timeout_s = checked_timeout(cfg.pipeline.stage_timeout_s)
        renew = renew or {}

        def watched(name: str, key: str, instance):
            def told(fresh) -> None:
                if key == "sink" and self.echo_canceller is not None and hasattr(fresh, "add_listener"):
                    fresh.add_listener(self.echo_canceller.add_reference)  # the canceller hears the new one
                if on_renewed is not None:
                    on_renewed(key, fresh)

            return WatchedStage(name, instance, self.stage_timeout_s, renew=renew.get(key), on_renewed=told,
                                tracer=tracer)

        self._asr = watched("asr", "asr", asr)
        self._answerer = watched("answer", "answerer", answerer)
        self._fallback = watched("answer-fallback", "fallback", fallback_answerer) if fallback_answerer else None
        self._tts = watched("tts", "tts", tts)
        self._out = watched("output", "sink", sink)
        self._apology_audio: dict[str, list] = {}
        if endpointer is None:
            from avatar.vad.endpointer import Endpointer
            endpointer = Endpointer(cfg.vad)
        self.endpointer = endpointer
        self.echo_canceller = echo_canceller
        self.hesitation = hesitation
        self.backchannel = backchannel
        if echo_canceller is not None and hasattr(sink, "add_listener"):
            sink.add_listener(echo_canceller.add_reference)

        self.lang = cfg.general.lang  # auto | de | en
        self._detected_lang = ""
        # the language of the previous turn (or the visitor's DE/EN choice): the recognizer's prior
        # for a short utterance whose language it is unsure of
        self._prior_lang = ""
        self.languages = list(cfg.general.languages)
        self.history: list[HistoryTurn] = []
        self.metrics: list[ev.TurnMetrics] = []
        self.discarded = 0
        self.barge_ins: list[float] = []  # ms of visitor speech heard before playback stopped (stream time)
        self.pauses = 0  # replies paused at a voice onset (each then stopped or resumed)
        self.barge_in_clock_ms: list[float] = []  # ms from the visitor's first word to playback stopping
        self.audio_offset: float | None = None  # clock time minus stream time (of the source)

        self._observers: list[Callable[[ev.Event], None]] = []
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._capture_done = threading.Event()
        self._next_turn = 1
        self._pending: TurnJob | None = None  # the newest job (speculative or confirmed)
        self._active: TurnJob | None = None  # the job the visitor hears or waits for
        self._speaking = False  # within an utterance (speech start .. end of turn)
        self._voiced = False  # speech now (not in the pause after a tentative end)
        self._utt_start = 0.0  # stream time of the current utterance's first speech sample
        self._utt_during_reply = False
        self._utt_voiced_ms = 0.0
        self._barged = False
        self._paused_at: float | None = None
        self._barge = BargeIn(rule_from_config(cfg, can_pause=hasattr(sink, "pause")), backchannel)
        self._partials_on = cfg.asr.partial_interval_ms > 0 and hasattr(asr, "transcribe")
        # incremental recognition needs the partial passes and a recognizer that takes context and
        # gives word times (WhisperASR); others (the fakes of the tests) decode whole utterances
        self._incremental = (self._partials_on and bool(cfg.asr.incremental)
                             and bool(getattr(asr, "incremental_capable", False)))
        self._incr = IncrementalRecognizer(right_context_s=cfg.asr.incremental_right_context_ms / 1000,
                                           overlap_s=cfg.asr.incremental_overlap_ms / 1000)
        self._partial_fresh = False  # _partial_text was transcribed from the current utterance
        self._want_partial = threading.Event()
        self._partial_token: CancelToken | None = None
        self._last_activity = now()
        self._partial_text = ""
        self._capture_thread: threading.Thread | None = None
        self._partial_thread: threading.Thread | None = None
        self._jobs: list[TurnJob] = []

    # --- the stages (each behind the watchdog: these are the instances in use now) ----------
    @property
    def asr(self):
        return self._asr.instance

    @property
    def answerer(self):
        return self._answerer.instance

    @property
    def fallback_answerer(self):
        return self._fallback.instance if self._fallback else None

    @property
    def tts(self):
        return self._tts.instance

    @property
    def sink(self):
        return self._out.instance

    # --- control ---------------------------------------------------------------------------
    def subscribe(self, fn: Callable[[ev.Event], None]) -> None:
        self._observers.append(fn)

    def emit(self, event: ev.Event) -> None:
        for fn in list(self._observers):
            try:
                fn(event)
            except Exception:  # an observer must never break the loop
                log.exception("observer failed on %s", type(event).__name__)

    def set_language(self, lang: str) -> None:
        if lang not in ("auto", "de", "en"):
            raise ValueError(f"unknown language {lang!r}")
        self.lang = lang
        if lang in self.languages:
            self._prior_lang = lang  # still the prior if the visitor goes back to auto
        self.emit(ev.LanguageChanged(now(), lang=lang))

    def start(self) -> None:
        if self._capture_thread is not None:
            return
        self._capture_thread = threading.Thread(target=self._capture, name="capture", daemon=True)
        self._capture_thread.start()
        if self._partials_on:
            self._partial_thread = threading.Thread(target=self._partials, name="partials", daemon=True)
            self._partial_thread.start()

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            for job in self._jobs:
                job.token.cancel("stopped")
        try:
            self.sink.stop()
        except Exception:
            pass
        try:
            self.source.close()
        except Exception:
            pass
        self._wipe_history(announce=False)

    def close(self, timeout: float = 5.0) -> list[str]:
        """stop(), then wait (up to `timeout` in all) for every thread of the loop to end: capture,
        partials, the turns, stage calls still finishing after a cancel, and the sink's own thread.
        A thread still inside a native call (Whisper, piper) when the interpreter exits aborts the
        process ("terminate called without an active exception"), so commands close their loop.
        Returns the names of threads still running after `timeout` (a hung stage call)."""
        self.stop()
        deadline = now() + timeout
        threads = [self._capture_thread, self._partial_thread, *(job.thread for job in self._jobs)]
        for thread in threads:
            if thread is not None and thread is not threading.current_thread():
                thread.join(max(0.0, deadline - now()))
        left = [name for stage in (self._asr, self._answerer, self._fallback, self._tts, self._out)
                if stage is not None for name in stage.settle(max(0.0, deadline - now()))]
        try:
            closed = getattr(self.sink, "close", None)
            if closed is not None:
                closed()
        except Exception:
            log.debug("closing the sink failed", exc_info=True)
        left += [t.name for t in threads if t is not None and t.is_alive()]
        if left:
            log.warning("voice loop closed with threads still running: %s", ", ".join(left))
        return left

    def run_until_done(self, drain: bool = True, timeout: float | None = None) -> list[ev.TurnMetrics]:
        """Run until the source ends and every turn has been answered (and, with drain, heard)."""
        self.start()
        self._capture_done.wait(timeout)
        deadline = None if timeout is None else now() + timeout
        for job in list(self._jobs):
            left = None if deadline is None else max(0.0, deadline - now())
            if drain:
                job.finished.wait(left)
            else:  # benches only need the first audible sample of each reply
                while not job.finished.is_set() and "audible" not in job.marks:
                    if deadline is not None and now() > deadline:
                        break
                    job.finished.wait(0.01)
        self.stop()
        return self.metrics

    def busy(self) -> bool:
        """A turn is being answered or heard (for a simulated visitor who waits for the reply)."""
        with self._lock:
            working = any(not job.finished.is_set() and not job.token.cancelled for job in self._jobs)
        return working or self._speaking or self.sink.playing

    # --- capture thread --------------------------------------------------------------------
    def _capture(self) -> None:
        try:
            for frame in self.source.frames():
                if self._stopping.is_set():
                    break
                if self.echo_canceller is not None:
                    frame = self.echo_canceller.process(frame)
                self.audio_offset = frame.t - frame.audio_t
                for event in self.endpointer.process(frame):
                    self._on_vad(event)
                if self._speaking and not getattr(self.endpointer, "in_speech", True):
                    self._speaking = self._voiced = False  # a burst too short for a turn (a cough)
                self._check_barge_in(frame)
                self._check_visitor_left()
        except Exception as exc:  # a dead microphone must not kill the kiosk silently
            log.exception("audio capture failed")
            self.emit(ev.StageError(now(), stage="audio", message=str(exc)))
        finally:
            self._capture_done.set()

    def _clock(self, audio_t: float) -> float:
        return audio_t + (self.audio_offset or 0.0)

    def _reply_in_progress(self) -> bool:
        job = self._active
        return job is not None and not job.finished.is_set()

    def _on_vad(self, event: ev.Event) -> None:
        with self._lock:
            self._last_activity = now()
            if isinstance(event, ev.SpeechStart):
                self._speaking = self._voiced = True
                self._utt_start = event.audio_t
                self._utt_during_reply = self._reply_in_progress()
                self._utt_voiced_ms = 0.0
                self._barged = False
                self._partial_text = ""
                self._partial_fresh = False
                self._incr.reset()  # a new utterance: nothing of it is confirmed yet
            elif isinstance(event, ev.TentativeEnd):
                self._voiced = False
                if self._utt_during_reply and not self._barged:
                    return  # a backchannel over the reply: no turn, no event
                self._adapt_end_wait(self._partial_text)
                if self.cfg.pipeline.speculative:
                    self._start_job(event.audio_t, speculative=True)
            elif isinstance(event, ev.Resumed):
                self._voiced = True
                job = self._pending
                if job is not None and job.speculative and not job.confirmed.is_set():
                    job.token.cancel("resumed")
                    self.discarded += 1
                    self.tracer.instant("speculation_discarded", turn=job.id)
                    self._pending = None
            elif isinstance(event, ev.EndOfTurn):
                self._speaking = self._voiced = False
                if self._utt_during_reply and not self._barged:
                    action = self._barge.utterance_ended(
                        self._utt_voiced_ms, self._partial_text if self._partial_fresh else None)
                    self._apply_barge_action(action)
                    if action != STOP:
                        return  # a backchannel over the reply: it goes on, no turn
                job = self._pending
                if job is not None and not job.token.cancelled and not job.confirmed.is_set():
                    job.marks["end_of_turn"] = now()
                    job.confirmed.set()
                    self._active = job
                else:
                    job = self._start_job(event.audio_t, speculative=False)
                    self._active = job
        self.emit(event)

    def _adapt_end_wait(self, text: str) -> None:
        """Adaptive endpointing: wait less after a complete question, longer after a hesitation."""
        if self.hesitation is None or not hasattr(self.endpointer, "end_wait_ms") or not text:
            return
        wait = self.hesitation(text)
        if wait is not None:
            self.endpointer.end_wait_ms = wait

    def _start_job(self, speech_end_audio_t: float, speculative: bool) -> TurnJob:
        if self._partial_token is not None:
            self._partial_token.cancel("final")  # a partial still encoding would hold up the final pass
        old = self._pending
        if old is not None and not old.confirmed.is_set():
            old.token.cancel("superseded")
        job = TurnJob(id=self._next_turn, audio=self.endpointer.utterance(),
                      speech_end=self._clock(speech_end_audio_t), started=now(), speculative=speculative,
                      commit=self._incr.commit() if self._incremental else None)
        self._next_turn += 1
        if not speculative:
            job.confirmed.set()
            job.marks["end_of_turn"] = job.started
        job.thread = threading.Thread(target=self._run_job, args=(job,), name=f"turn-{job.id}", daemon=True)
        self._pending = job
        # finished turns are dropped: they hold the visitor's audio, which must not outlive the visit
        self._jobs = [j for j in self._jobs if not j.finished.is_set()] + [job]
        job.thread.start()
        return job

    def _check_barge_in(self, frame) -> None:
        """The visitor's voice over the reply: pause at the onset, stop for an interruption, resume
        after a backchannel (avatar/pipeline/barge_in.py has the rule)."""
        if not self.cfg.pipeline.barge_in or not self._reply_in_progress():
            return
        utterance_open = self._speaking and self._utt_during_reply
        if utterance_open:
            voiced = getattr(self.endpointer, "voiced_ms", None)  # speech heard, not time since its start
            if voiced is not None:
                self._utt_voiced_ms = voiced
            elif self._voiced:
                self._utt_voiced_ms += len(frame.pcm) / 16
        probability = getattr(self.endpointer, "probability", 1.0 if self._voiced else 0.0)
        if self.echo_canceller is not None and hasattr(self.echo_canceller, "near_end"):
            probability = self.echo_canceller.near_end(probability)  # residual echo is not a voice onset
        words = self._partial_text if self._partial_fresh else None  # None: not transcribed (yet)
        action = self._barge.frame(len(frame.pcm) / 16, probability, utterance_open,
                                   self._utt_voiced_ms if utterance_open else 0.0, words)
        if self._barge.needs_words:
            self._want_partial.set()  # the reply is paused: transcribe the utterance right away
        self._apply_barge_action(action)

    def _apply_barge_action(self, action: str) -> None:
        if action == PAUSE and hasattr(self.sink, "pause"):
            self._paused_at = self.sink.pause()
            self.pauses += 1
            self.tracer.instant("playback_paused")
        elif action == RESUME:
            self._paused_at = None
            if hasattr(self.sink, "resume"):
                self.sink.resume()
            self.tracer.instant("playback_resumed")
        elif action == STOP:
            self._stop_for_barge_in()

    def _stop_for_barge_in(self) -> None:
        with self._lock:
            self._barged = True
            job = self._active
        stopped = self.sink.stop()
        silent = self._paused_at if self._paused_at is not None else stopped
        self._paused_at = None
        if job is not None:
            job.token.cancel("barge_in")
            self.emit(ev.PlaybackStopped(stopped, turn=job.id, reason="barge_in"))
        self.barge_ins.append(self._utt_voiced_ms)
        self.barge_in_clock_ms.append((silent - self._clock(self._utt_start)) * 1000)
        del self.barge_ins[:-KEPT_TURNS], self.barge_in_clock_ms[:-KEPT_TURNS]
        self.tracer.instant("barge_in", turn=job.id if job else None)

    def _check_visitor_left(self) -> None:
        if self.history and not self._speaking and not self._reply_in_progress() and \
                now() - self._last_activity > self.cfg.pipeline.visitor_timeout_s:
            self._wipe_history(announce=True)

    def _wipe_history(self, announce: bool) -> None:
        with self._lock:
            had = bool(self.history)
            self.history.clear()  # privacy: nothing of a visitor outlives their session
            self._partial_text = ""
            self._incr.reset()  # the confirmed words of an utterance are the visitor's words too
            self._prior_lang = self._forced_lang() or ""  # the next visitor may speak the other language
            if announce:  # the timings stay for the HUD's percentiles, the words go
                self.metrics = [replace(m, transcript="", reply="") for m in self.metrics]
        self.tracer.end_visit()  # the words in the trace's spans go too (the ASR span's text)
        forget_visitor()  # and the answerer's word caches (stems of the visitor's words, phone digits)
        if had and announce:
            from avatar.sysmem import trim

            trim()  # idle between visitors: the freed memory goes back to the system (avatar/sysmem.py)
            self.emit(ev.VisitorLeft(now()))

    # --- partial transcripts ------------------------------------------------------------
    def _partials(self) -> None:
        """Partial transcripts while the visitor speaks (subtitles, hesitation, backchannel words)."""
        interval = self.cfg.asr.partial_interval_ms / 1000
        slow = interval
        if self._incremental:  # passes start every incremental_interval_ms (at once after a slower one)
            interval = self.cfg.asr.incremental_interval_ms / 1000
        wait = interval
        while not self._stopping.is_set():
            urgent = self._want_partial.wait(wait)  # a paused reply asks at once
            wait = interval
            self._want_partial.clear()
            if self._capture_done.is_set():
                return
            with self._lock:
                job = self._pending
                working = job is not None and not job.finished.is_set() and not job.playing
                if not self._speaking or working:  # never compete with a final transcription
                    continue
                if not urgent and getattr(self.endpointer, "silence_ms", 0.0) >= PARTIAL_QUIET_MS:
                    continue  # the visitor may be done: the final transcription is about to need the cores
                audio = self.endpointer.utterance()
                token = self._partial_token = CancelToken()
            if len(audio) < (1600 if urgent else 8000):
                continue
            started = now()
            try:
                if self._incremental:
                    tr = self._asr.call(lambda asr: self._incr.partial(
                        asr, audio, lang=self._forced_lang(), prior=self._prior(), cancel=token),
                        token, wait_fresh=False)
                    wait = max(0.0, interval - (now() - started)) if len(audio) >= INCREMENTAL_FROM_SAMPLES \
                        else slow
                else:
                    tr = self._asr.call(lambda asr: asr.transcribe(
                        audio, lang=self._forced_lang(), partial=True, cancel=token, prior=self._prior()),
                        token, wait_fresh=False)
                _check_transcript(tr)
            except Cancelled:
                continue  # a final transcription started: it gets the cores
            except Exception:
                log.debug("partial transcript failed", exc_info=True)
                continue
            if self._speaking:
                self._partial_text, self._partial_fresh = tr.text, True
                if tr.text:
                    self.emit(ev.PartialTranscript(now(), text=tr.text, lang=tr.lang))

    def _forced_lang(self) -> str | None:
        return None if self.lang == "auto" else self.lang

    def _prior(self) -> str | None:
        return self._prior_lang or None

    # --- one turn ------------------------------------------------------------------------
    def _run_job(self, job: TurnJob) -> None:
        stage = "asr"
        lang = self._forced_lang() or self._detected_lang or self.languages[0]
        try:
            with self.tracer.span("asr", turn=job.id, speculative=job.speculative) as info:
                if self._incremental:  # the confirmed words + a pass over the tail after them
                    tr = self._asr.call(lambda asr: IncrementalRecognizer.final(
                        asr, job.audio, job.commit, lang=self._forced_lang(), prior=self._prior(),
                        cancel=job.token), job.token)
                else:
                    tr = self._asr.call(lambda asr: asr.transcribe(
                        job.audio, lang=self._forced_lang(), cancel=job.token, prior=self._prior()), job.token)
                _check_transcript(tr)
                job.asr_info = {"path": getattr(tr, "path", ""), "fallback": getattr(tr, "fallback", ""),
                                "committed_words": getattr(tr, "committed_words", 0),
                                "confirmed_at_start": len(job.commit.words) if job.commit else 0,
                                "encoded_s": getattr(tr, "encoded_s", 0.0),
                                "speech_s": round(len(job.audio) / 16000, 2)}
                info.update(text=tr.text, lang=tr.lang, dropped=tr.dropped,
                            prior_used=bool(getattr(tr, "prior_used", False)), **job.asr_info)
            job.marks["asr"] = now()
            job.token.raise_if_cancelled()
            if job.speculative and not job.confirmed.is_set():
                # the speculative transcript is the best evidence of whether the visitor is done
                self._adapt_end_wait(tr.text)
            self.emit(ev.FinalTranscript(now(), text=tr.text, lang=tr.lang,
                                         lang_prob=getattr(tr, "lang_prob", 0.0), dropped=tr.dropped))
            if tr.dropped or not tr.text.strip():
                return
            lang = tr.lang if self.lang == "auto" and tr.lang in self.languages else (
                self._forced_lang() or self.languages[0])
            if self.lang == "auto" and lang != self._detected_lang:
                self._detected_lang = lang
                self.emit(ev.LanguageChanged(now(), lang=lang))
            self._prior_lang = lang

            stage = "answer"
            answer = self._answer(job, tr.text, lang)
            job.marks["answer"] = now()
            job.token.raise_if_cancelled()

            stage = "tts"
            self._speak(job, answer)
            stage = "output"
            self._finish_turn(job, tr.text, answer)
        except Cancelled:
            pass
        except Exception as exc:
            stage = getattr(exc, "stage", stage)
            if not isinstance(exc, (StageTimeout, StageUnavailable, StageOutputError, StageRaised)):
                log.error("turn %d failed in %s", job.id, stage, exc_info=True)
            self._stage_failed(job, stage, exc, lang)
        finally:
            job.finished.set()

    def _stage_failed(self, job: TurnJob, stage: str, exc: Exception, lang: str) -> None:
        """The turn is lost: say so (event, trace, a short apology), and let the next turn start afresh."""
        restarted = bool(getattr(exc, "restarting", False))  # a fresh instance takes over (said only then)
        self.tracer.instant("stage_failed", turn=job.id, stage=stage, error=type(exc).__name__, message=str(exc),
                            restarted=restarted)
        while not job.confirmed.wait(0.005):  # a speculative turn: the visitor may still be speaking
            if job.token.cancelled or self._stopping.is_set():
                return
        if job.token.cancelled:
            return
        self.emit(ev.StageError(now(), stage=stage, message=str(exc), restarted=restarted))
        self._apologize(job, stage, lang)

    def _apologize(self, job: TurnJob, stage: str, lang: str) -> None:
        """A short spoken apology in the visitor's language (the end of their turn is confirmed)."""
        text = _apology_text(lang)
        self.tracer.instant("apology", turn=job.id, stage=stage, lang=lang)
        self.emit(ev.Apology(now(), turn=job.id, stage=stage, text=text, lang=lang))
        chunks = self._apology_audio.get(lang)
        try:
            if chunks is None:  # synthesized once (a fresh voice if the old one hung), then replayed
                limit = min(self.stage_timeout_s, 1.5)
                chunks = self._tts.call(lambda tts: list(tts.synthesize(text, lang)), job.token, timeout_s=limit)
                for chunk in chunks:
                    _check_chunk(chunk)
                self._apology_audio[lang] = chunks
            with self._lock:
                self._active = job
            for chunk in chunks:
                self._play(job, chunk)
        except Cancelled:
            pass
        except Exception as exc:  # the banner still tells the visitor
            log.warning("the apology could not be spoken: %s", exc)
            self.tracer.instant("apology_silent", turn=job.id, stage=stage, error=type(exc).__name__)

    def _answer(self, job: TurnJob, question: str, lang: str) -> Answer:
        with self._lock:
            history = list(self.history[-self.cfg.answer.history_turns:])

        def ask(answerer) -> Answer:
            return answerer.answer(question, lang, history, cancel=job.token, turn=job.id)

        try:
            with self.tracer.span("answer_total", turn=job.id, track="answerer"):
                # with a fallback, a fresh answerer still loading is not waited for
                answer = self._answerer.call(ask, job.token, wait_fresh=self._fallback is None)
                _check_answer(answer)
                return answer
        except Exception as exc:
            if isinstance(exc, Cancelled) or self._fallback is None:
                raise
            # the diffusion answerer hung or failed: the retrieval answerer is the safe fallback
            self.tracer.instant("answer_fallback", turn=job.id, error=type(exc).__name__)
            self.emit(ev.StageError(now(), stage="answer", message=str(exc), restarted=True))
            answer = self._fallback.call(ask, job.token)
            _check_answer(answer, "answer-fallback")
            answer.checks = replace(answer.checks, fallback_used=True, fallback_reason=type(exc).__name__)
            return answer

    def _speak(self, job: TurnJob, answer: Answer) -> None:
        """Synthesize clause by clause; hand each to the sink as soon as the turn is confirmed.

        Each clause is one watched call (a synthesis that hangs is abandoned like any stage call),
        and so is each hand-over to the sink."""
        streaming = self.cfg.pipeline.streaming_tts
        clauses = self._tts.call(lambda tts: iter(tts.synthesize(answer.reply, answer.lang, cancel=job.token)),
                                 job.token)

        def synthesized():
            while True:
                chunk = self._tts.call(lambda tts: next(clauses, None), job.token)
                if chunk is None:
                    return
                yield _check_chunk(chunk)

        chunks = synthesized()
        if not streaming:  # the sequential baseline: whole reply synthesized before playback
            chunks = [_join_chunks(list(chunks))]
        queued_until = 0.0
        latency = self.cfg.audio.output_latency_ms / 1000
        index = -1
        for index, chunk in enumerate(chunks):
            job.token.raise_if_cancelled()
            if index == 0:
                job.marks["tts_first"] = now()
                while not job.confirmed.wait(0.005):  # speculative reply: held until end of turn
                    job.token.raise_if_cancelled()
                job.token.raise_if_cancelled()
                with self._lock:
                    self._active = job
                    self._barge.reset()
                    self._paused_at = None
                self.emit(ev.ReplyStarted(now(), turn=job.id, question="", lang=answer.lang))
                job.marks["play"] = now()
            start = max(now() + latency, queued_until)
            self._play(job, chunk)
            if index == 0:
                job.playing = True
                self.emit(ev.PlaybackStarted(now(), turn=job.id))
            queued_until = start + len(chunk.pcm) / chunk.sample_rate
            self.emit(ev.ReplyClause(now(), turn=job.id, index=index, text=chunk.text, lang=answer.lang))
            for offset, duration, viseme in getattr(chunk, "visemes", ()) or ():
                self.emit(ev.Viseme(now(), at=start + offset, duration=duration, viseme=viseme))
        if index < 0:
            raise StageOutputError("tts", "no audio for the reply")
        self.emit(ev.ReplyDone(now(), turn=job.id, text=answer.reply, lang=answer.lang, mood=answer.mood,
                               gesture=answer.gesture, checks=answer.checks, decode=answer.decode))

    def _play(self, job: TurnJob, chunk) -> None:
        try:
            self._out.call(lambda sink: sink.play(chunk.pcm, chunk.sample_rate), job.token)
        except (Cancelled, StageTimeout, StageUnavailable):
            raise
        except Exception as exc:  # the sink's own error: the turn was lost in playback, not in TTS
            raise StageRaised("output", exc) from exc

    def _finish_turn(self, job: TurnJob, question: str, answer: Answer) -> None:
        if "play" not in job.marks:
            return
        audible = self._wait_audible(job)
        if audible is None:
            return
        job.marks["audible"] = audible
        metrics = ev.TurnMetrics(now(), turn=job.id, transcript=question, reply=answer.reply, lang=answer.lang,
                                 stages=self._stages(job), voice_to_voice_ms=(audible - job.speech_end) * 1000,
                                 speech_end=job.speech_end, audible=audible,
                                 speculative=job.speculative, discarded=self.discarded,
                                 decode=answer.decode, checks=answer.checks, asr=dict(job.asr_info))
        with self._lock:
            self.metrics.append(metrics)
            del self.metrics[:-KEPT_TURNS]
            self.history.append(HistoryTurn(question, answer.reply, answer.lang))
            del self.history[:-max(1, self.cfg.answer.history_turns)]
        self._record_stage_spans(job, metrics.stages)
        self.emit(metrics)
        while self.sink.playing and not job.token.cancelled:  # the reply plays out (barge-in cancels)
            job.token.wait(0.02)
        if not job.token.cancelled:
            self.emit(ev.PlaybackStopped(now(), turn=job.id, reason="done"))
        self._last_activity = now()

    def _record_stage_spans(self, job: TurnJob, stages: dict[str, float]) -> None:
        """The turn's stages as consecutive spans on track 'turn', so a trace alone shows the waterfall."""
        t = job.speech_end
        for name, ms in stages.items():
            self.tracer.record(name, t, t + ms / 1000, turn=job.id, track="turn")
            t += ms / 1000
        self.tracer.record("voice_to_voice", job.speech_end, job.marks["audible"], turn=job.id, track="voice_to_voice")

    def _wait_audible(self, job: TurnJob) -> float | None:
        deadline = job.marks["play"] + self.stage_timeout_s  # a sink that never plays is a hung stage too
        while not job.token.cancelled:
            t = self.sink.first_audible_after(job.marks["play"])
            if t is not None:
                return t
            if now() > deadline:
                raise StageTimeout("output", self.stage_timeout_s)
            job.token.wait(0.002)
        return None

    def _stages(self, job: TurnJob) -> dict[str, float]:
        m = job.marks
        stages = {
            "endpoint": (job.started - job.speech_end) * 1000,
            "asr": (m["asr"] - job.started) * 1000,
        }
        answer_ms = (m["answer"] - m["asr"]) * 1000
        inner = {}
        for span in self.tracer.spans(job.id):
            if span.track in ANSWER_SPAN_TRACKS:
                inner[span.name] = inner.get(span.name, 0.0) + span.ms
        inner_total = sum(inner.values())
        if inner and inner_total <= answer_ms + 0.5:
            stages.update(inner)
            stages["answer_other"] = max(0.0, answer_ms - inner_total)
        else:
            stages["answer"] = answer_ms
        stages["tts_first_audio"] = (m["tts_first"] - m["answer"]) * 1000
        stages["hold"] = (m["play"] - m["tts_first"]) * 1000
        stages["output"] = (m["audible"] - m["play"]) * 1000
        return {k: round(v, 2) for k, v in stages.items()}


def _check_transcript(tr: Any) -> None:
    """An ASR result that breaks the contract is a failed stage, not a silent turn."""
    if not all(isinstance(getattr(tr, name, None), str) for name in ("text", "lang", "dropped")):
        raise StageOutputError("asr", f"a {type(tr).__name__} instead of a transcript")
    if not tr.text.strip() and not tr.dropped:
        raise StageOutputError("asr", "an empty transcript without saying why it was dropped")


def _check_answer(answer: Any, stage: str = "answer") -> None:
    if not isinstance(answer, Answer) or not isinstance(answer.reply, str):
        raise StageOutputError(stage, f"a {type(answer).__name__} instead of an answer")
    if not answer.reply.strip():
        raise StageOutputError(stage, "an empty reply")


def _check_chunk(chunk: Any) -> Any:
    pcm = getattr(chunk, "pcm", None)
    rate = getattr(chunk, "sample_rate", None)
    if not isinstance(pcm, np.ndarray) or not isinstance(rate, (int, np.integer)) or rate <= 0:
        raise StageOutputError("tts", f"a {type(chunk).__name__} instead of audio")
    if pcm.size == 0:
        raise StageOutputError("tts", "an empty clause")
    return chunk


def _apology_text(lang: str) -> str:
    try:
        from avatar.ui.strings import load_strings

        return load_strings(lang).get("error.apology")
    except Exception:  # a broken locale must not turn an apology into a crash
        return "Sorry, something went wrong. Please ask again."


def _join_chunks(chunks: list) -> Any:
    if not chunks:
        raise StageOutputError("tts", "no audio for the reply")
    rate = chunks[0].sample_rate
    pcm = np.concatenate([c.pcm for c in chunks])
    visemes, offset = [], 0.0
    for c in chunks:
        visemes += [(o + offset, d, v) for o, d, v in (c.visemes or [])]
        offset += len(c.pcm) / c.sample_rate
    return replace(chunks[0], pcm=pcm, text=" ".join(c.text for c in chunks), visemes=visemes)
