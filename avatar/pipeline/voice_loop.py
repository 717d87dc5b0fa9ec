"""The voice loop: wires audio, endpointer, ASR, answerer and TTS with typed events.

It owns what no stage may know about: cancellation, speculation, barge-in, the visitor's short
history and the watchdog. Threads: one capture thread (source -> echo canceller -> endpointer,
turn-taking and barge-in), one worker per turn (final ASR -> answer -> TTS -> sink), one for
partial transcripts. Observers (HUD, bench, tests) subscribe to events; they never drive the loop.

`VoiceLoop` only wires the parts together, one concern each:
  stages.py        the stages behind the watchdog (stage_call.py) and the fallback answerer
  contracts.py     what the loop expects of the stages, and the checks on what they return
  turn_taking.py   utterances -> turns (speculative, confirmed, discarded); barge-in (barge_in.py)
  partials.py      partial transcripts and incremental recognition
  turn_jobs.py     the turns in flight (TurnJob, one worker thread each)
  turn_runner.py   one turn: final ASR -> answer -> TTS -> sink, the apology for a lost one
  turn_metrics.py  how a turn's stages add up to its voice-to-voice latency; what is kept of turns
  visitor.py       the visitor's language and history, forgotten when they leave
  knowledge_watch.py  the venue's pack read again when the operator edits it (used between turns)
  reply_prefill.py the venue's facts and fixed lines synthesized while the kiosk is idle (tts.prefill)
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from avatar import events as ev
from avatar.answer import forget_visitor
from avatar.answer_types import HistoryTurn
from avatar.pipeline.contracts import EchoCanceller, Endpointer
from avatar.pipeline.partials import PartialTranscripts
from avatar.pipeline.reply_prefill import ReplyPrefill
from avatar.pipeline.stages import LoopStages
from avatar.pipeline.turn_jobs import TurnJob, TurnJobs
from avatar.pipeline.turn_metrics import TurnLog
from avatar.pipeline.turn_runner import TurnRunner
from avatar.pipeline.turn_taking import TurnTaking
from avatar.pipeline.visitor import VisitorSession
from avatar.trace import TRACER, Tracer, now

log = logging.getLogger(__name__)


class VoiceLoop:
    def __init__(self, cfg, source, sink, answerer, asr, tts, tracer: Tracer = TRACER, *,
                 endpointer: Endpointer | None = None, echo_canceller: EchoCanceller | None = None,
                 fallback_answerer=None,
                 hesitation: Callable[[str], float | None] | None = None,
                 backchannel: Callable[[float, str], bool] | None = None,
                 renew: dict[str, Callable[[], Any]] | None = None,
                 on_renewed: Callable[[str, Any], None] | None = None):
        """renew[stage] builds a fresh instance of a stage whose call hung (default: the instance's
        own renew(), if it has one); on_renewed(stage, fresh) hears of it (stages.py)."""
        self.cfg = cfg
        self.source = source
        self.tracer = tracer
        self._stages = LoopStages(cfg, asr=asr, answerer=answerer, tts=tts, sink=sink, fallback=fallback_answerer,
                                  echo_canceller=echo_canceller, renew=renew, on_renewed=on_renewed, tracer=tracer,
                                  emit=self.emit)
        if endpointer is None:
            from avatar.vad.endpointer import Endpointer as SileroEndpointer
            endpointer = SileroEndpointer(cfg.vad)
        self.endpointer = endpointer
        self.echo_canceller = echo_canceller
        self.audio_offset: float | None = None  # clock time minus stream time (of the source)

        self._observers: list[Callable[[ev.Event], None]] = []
        self._lock = threading.RLock()  # one lock for the capture, partials and turn threads
        self._stopping = threading.Event()
        self._capture_done = threading.Event()
        self._capture_thread: threading.Thread | None = None
        self.visitor = VisitorSession(cfg, self._lock)
        self.turn_log = TurnLog(self._lock, tracer)
        self._jobs = TurnJobs(self._lock)
        self._partials = PartialTranscripts(cfg, self._stages.asr, endpointer, self.visitor, self._jobs,
                                            speaking=lambda: self._turn_taking.speaking, emit=self.emit,
                                            stopping=self._stopping, capture_done=self._capture_done)
        self._turn_taking = TurnTaking(cfg, endpointer, self._jobs, self._partials, self.turn_log,
                                       start_turn=self._start_turn, sink=lambda: self.sink, clock=self._clock,
                                       echo_canceller=echo_canceller, hesitation=hesitation,
                                       backchannel=backchannel, tracer=tracer, emit=self.emit)
        self._runner = TurnRunner(cfg, self._stages, self._partials, self.visitor, self._jobs, self.turn_log,
                                  floor=self._turn_taking, tracer=tracer, emit=self.emit, stopping=self._stopping)
        self._prefill = ReplyPrefill(lambda: self._stages.tts.instance, lambda: self._stages.answerer.instance,
                                     cfg.general.languages, idle=lambda: not self.busy(), stopping=self._stopping,
                                     tracer=tracer) if cfg.tts.prefill else None
        self._knowledge_watch = None  # knowledge_watch.KnowledgeWatch, when the kiosk follows the pack's edits

    # --- the stages (each behind the watchdog: these are the instances in use now) ----------
    @property
    def asr(self):
        return self._stages.asr.instance

    @property
    def answerer(self):
        return self._stages.answerer.instance

    @property
    def fallback_answerer(self):
        return self._stages.fallback.instance if self._stages.fallback else None

    @property
    def tts(self):
        return self._stages.tts.instance

    @property
    def sink(self):
        return self._stages.sink

    # --- what observers read ---------------------------------------------------------------
    @property
    def history(self) -> list[HistoryTurn]:
        return self.visitor.history

    @property
    def metrics(self) -> list[ev.TurnMetrics]:
        return self.turn_log.metrics

    @property
    def discarded(self) -> int:
        """Speculative turns cancelled because the visitor went on speaking."""
        return self.turn_log.discarded

    @property
    def pauses(self) -> int:
        """Replies paused at a voice onset (each then stopped or resumed)."""
        return self.turn_log.pauses

    @property
    def barge_ins(self) -> list[float]:
        """Per barge-in: ms of visitor speech heard before playback stopped (stream time)."""
        return self.turn_log.barge_ins

    @property
    def barge_in_clock_ms(self) -> list[float]:
        """Per barge-in: ms from the visitor's first word to playback stopping."""
        return self.turn_log.barge_in_clock_ms

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
        self.visitor.choose(lang)
        self.emit(ev.LanguageChanged(now(), lang=lang))

    def use_pack(self, pack) -> bool:
        """A knowledge pack the operator edited goes into use between turns; False (nothing changed)
        while the visitor speaks or a turn is being answered or heard: try again later."""
        if self.busy():
            return False
        for answerer in (self.answerer, self.fallback_answerer):
            use = getattr(answerer, "use_pack", None)  # a stand-in answerer (tests, demo) keeps its own
            if use is not None:
                use(pack)
        if self._prefill is not None:
            self._prefill.refresh()  # the new pack's facts are what the voice prepares now
        return True

    def follow_knowledge(self, watch) -> None:
        """Run `watch` (knowledge_watch.KnowledgeWatch) with the loop: started and stopped with it."""
        self._knowledge_watch = watch

    def start(self) -> None:
        if self._capture_thread is not None:
            return
        self._capture_thread = threading.Thread(target=self._capture, name="capture", daemon=True)
        self._capture_thread.start()
        self._partials.start()
        if self._knowledge_watch is not None:
            self._knowledge_watch.start()
        if self._prefill is not None:
            self._prefill.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._knowledge_watch is not None:
            self._knowledge_watch.stop(timeout=0.0)
        if self._prefill is not None:
            self._prefill.stop()
        self._jobs.cancel_all("stopped")
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
        threads = [self._capture_thread, self._partials.thread, *self._jobs.threads(),
                   self._knowledge_watch.thread if self._knowledge_watch is not None else None,
                   self._prefill.thread if self._prefill is not None else None]
        for thread in threads:
            # is_alive: a start that Ctrl-C or SIGTERM interrupted leaves a thread not (yet) started, and
            # joining one raises; one that starts after this sees _stopping and ends at once
            if thread is not None and thread is not threading.current_thread() and thread.is_alive():
                thread.join(max(0.0, deadline - now()))
        left = self._stages.settle(max(0.0, deadline - now()))
        try:
            self.sink.close()
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
        self._jobs.wait(drain, None if timeout is None else now() + timeout)
        self.stop()
        return self.metrics

    def busy(self) -> bool:
        """A turn is being answered or heard (for a simulated visitor who waits for the reply)."""
        return self._jobs.working() or self._turn_taking.speaking or self.sink.playing

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
                    self.visitor.touch()
                    if self._turn_taking.on_vad(event):
                        self.emit(event)
                self._turn_taking.after_frame(frame)
                self._check_visitor_left()
        except Exception as exc:  # a dead microphone must not kill the kiosk silently
            log.exception("audio capture failed")
            self.emit(ev.StageError(now(), stage="audio", message=str(exc)))
        finally:
            self._capture_done.set()

    def _clock(self, audio_t: float) -> float:
        return audio_t + (self.audio_offset or 0.0)

    def _start_turn(self, speech_end_audio_t: float, speculative: bool, barge_in: bool = False) -> TurnJob:
        commit = self._partials.final_starts()
        return self._jobs.start(self.endpointer.utterance(), self._clock(speech_end_audio_t), speculative, commit,
                                self._runner.run, barge_in=barge_in)

    def _prior(self) -> str | None:
        """The recognizer's prior language for the next utterance (None for a new visitor)."""
        return self.visitor.prior()

    # --- the visitor's session -------------------------------------------------------------
    def _check_visitor_left(self) -> None:
        if self.visitor.history and not self._turn_taking.speaking and not self._jobs.reply_in_progress() and \
                self.visitor.idle_s() > self.cfg.pipeline.visitor_timeout_s:
            self._wipe_history(announce=True)

    def _wipe_history(self, announce: bool) -> None:
        with self._lock:
            had = self.visitor.forget()
            self._partials.forget()
            if announce:  # the timings stay for the HUD's percentiles, the words go
                self.turn_log.forget_words()
        self.tracer.end_visit()  # the words in the trace's spans go too (the ASR span's text)
        forget_visitor()  # and the answerer's word caches (stems of the visitor's words, phone digits)
        if had and announce:
            from avatar.sysmem import trim

            trim()  # idle between visitors: the freed memory goes back to the system (avatar/sysmem.py)
            self.emit(ev.VisitorLeft(now()))
