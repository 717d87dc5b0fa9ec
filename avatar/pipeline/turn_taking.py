"""Turn-taking: what the visitor's utterances do to the turns and to a reply that is playing.

The capture thread hands every endpointer event and every frame here. An utterance's tentative
end starts a speculative turn (`pipeline.speculative`), speech resumed discards it, the end of
turn confirms it or starts one. The visitor's voice over a reply pauses it at the onset, stops it
for an interruption and resumes it after a backchannel (the rule: barge_in.py); an utterance over
a reply that did not stop it starts no turn. The end-of-turn wait adapts to the words heard so far
(`hesitation`: shorter after a complete question, longer after a hesitation).
"""
from __future__ import annotations

from typing import Callable, Protocol

from avatar import events as ev
from avatar.pipeline.barge_in import PAUSE, RESUME, STOP, BargeIn, rule_from_config
from avatar.pipeline.contracts import EchoCanceller, Endpointer, PausableSink, reading
from avatar.pipeline.turn_jobs import TurnJob, TurnJobs
from avatar.pipeline.turn_metrics import TurnLog
from avatar.trace import Tracer


class HeardWords(Protocol):
    """The partial transcripts, as turn-taking needs them (partials.PartialTranscripts)."""
    text: str

    def utterance_started(self) -> None: ...

    def words(self) -> str | None: ...

    def request(self) -> None: ...


class TurnTaking:
    def __init__(self, cfg, endpointer: Endpointer, jobs: TurnJobs, heard: HeardWords, turn_log: TurnLog, *,
                 start_turn: Callable[[float, bool, bool], TurnJob], sink: Callable[[], object],
                 clock: Callable[[float], float], echo_canceller: EchoCanceller | None = None,
                 hesitation: Callable[[str], float | None] | None = None,
                 backchannel: Callable[[float, str], bool] | None = None, tracer: Tracer,
                 emit: Callable[[ev.Event], None]):
        self.pipeline = cfg.pipeline
        self.endpointer = endpointer
        self.jobs = jobs
        self.lock = jobs.lock
        self.heard = heard
        self.log = turn_log
        self.start_turn = start_turn  # (speech end, stream time; speculative; stopped a reply) -> the new job
        self.sink = sink  # the sink in use now (a hung one is replaced)
        self.clock = clock  # stream time -> clock time
        self.echo_canceller = echo_canceller
        self.hesitation = hesitation
        self.tracer = tracer
        self.emit = emit
        self.speaking = False  # within an utterance (speech start .. end of turn)
        self._voiced = False  # speech now (not in the pause after a tentative end)
        self._utt_start = 0.0  # stream time of the current utterance's first speech sample
        self._utt_during_reply = False
        self._utt_voiced_ms = 0.0
        self._barged = False
        self._paused_at: float | None = None
        self._barge = BargeIn(rule_from_config(cfg, can_pause=isinstance(sink(), PausableSink)), backchannel)

    # --- the endpointer's events ---------------------------------------------------------
    def on_vad(self, event: ev.Event) -> bool:
        """One endpointer event; False when it is a backchannel over the reply (no turn, no event)."""
        with self.lock:
            if isinstance(event, ev.SpeechStart):
                self._speech_started(event.audio_t)
            elif isinstance(event, ev.TentativeEnd):
                self._voiced = False
                if self._utt_during_reply and not self._barged:
                    return False  # a backchannel over the reply: no turn, no event
                self.adapt_end_wait(self.heard.text)
                if self.pipeline.speculative:
                    self.start_turn(event.audio_t, True, self._barged)
            elif isinstance(event, ev.Resumed):
                self._voiced = True
                job = self.jobs.discard_speculation()
                if job is not None:
                    self.log.discarded += 1
                    self.tracer.instant("speculation_discarded", turn=job.id)
            elif isinstance(event, ev.EndOfTurn):
                return self._end_of_turn(event.audio_t)
        return True

    def _speech_started(self, audio_t: float) -> None:
        self.speaking = self._voiced = True
        self._utt_start = audio_t
        self._utt_during_reply = self.jobs.reply_in_progress()
        self._utt_voiced_ms = 0.0
        self._barged = False
        self.heard.utterance_started()

    def _end_of_turn(self, audio_t: float) -> bool:
        self.speaking = self._voiced = False
        if self._utt_during_reply and not self._barged:
            action = self._barge.utterance_ended(self._utt_voiced_ms, self.heard.words())
            self._apply(action)
            if action != STOP:
                return False  # a backchannel over the reply: it goes on, no turn
        if self.jobs.confirm() is None:
            self.jobs.active = self.start_turn(audio_t, False, self._barged)
        return True

    def adapt_end_wait(self, text: str) -> None:
        """Adaptive endpointing: wait less after a complete question, longer after a hesitation."""
        if self.hesitation is None or not text:
            return
        wait = self.hesitation(text)
        if wait is not None:
            self.endpointer.end_wait_ms = wait

    # --- every frame ---------------------------------------------------------------------
    def after_frame(self, frame) -> None:
        """After the frame's events: a burst too short for a turn ends, the voice over a reply acts."""
        if self.speaking and not reading(self.endpointer, "in_speech", True):
            self.speaking = self._voiced = False  # a burst too short for a turn (a cough)
        self._check_barge_in(frame)

    def _check_barge_in(self, frame) -> None:
        """The visitor's voice over the reply: pause at the onset, stop for an interruption, resume
        after a backchannel (avatar/pipeline/barge_in.py has the rule)."""
        if not self.pipeline.barge_in or not self.jobs.reply_in_progress():
            return
        utterance_open = self.speaking and self._utt_during_reply
        if utterance_open:
            voiced = reading(self.endpointer, "voiced_ms", None)  # speech heard, not time since its start
            if voiced is not None:
                self._utt_voiced_ms = voiced
            elif self._voiced:
                self._utt_voiced_ms += len(frame.pcm) / 16
        probability = reading(self.endpointer, "probability", 1.0 if self._voiced else 0.0)
        if self.echo_canceller is not None:
            probability = self.echo_canceller.near_end(probability)  # residual echo is not a voice onset
        action = self._barge.frame(len(frame.pcm) / 16, probability, utterance_open,
                                   self._utt_voiced_ms if utterance_open else 0.0, self.heard.words())
        if self._barge.needs_words:
            self.heard.request()  # the reply is paused: transcribe the utterance right away
        self._apply(action)

    def reply_starts(self, job: TurnJob) -> None:
        """The first clause of `job`'s reply (or its apology, its request to say it again) is about to
        play: barge-in starts afresh for it."""
        with self.lock:
            self.jobs.active = job
            self._barge.reset()
            self._paused_at = None

    def _apply(self, action: str) -> None:
        sink = self.sink()
        if action == PAUSE and isinstance(sink, PausableSink):
            self._paused_at = sink.pause()
            self.log.pauses += 1
            self.tracer.instant("playback_paused")
        elif action == RESUME:
            self._paused_at = None
            if isinstance(sink, PausableSink):
                sink.resume()
            self.tracer.instant("playback_resumed")
        elif action == STOP:
            self._stop_for_barge_in()

    def _stop_for_barge_in(self) -> None:
        with self.lock:
            self._barged = True
            job = self.jobs.active
        stopped = self.sink().stop()
        silent = self._paused_at if self._paused_at is not None else stopped
        self._paused_at = None
        if job is not None:
            job.token.cancel("barge_in")
            self.emit(ev.PlaybackStopped(stopped, turn=job.id, reason="barge_in"))
        self.log.barged_in(self._utt_voiced_ms, (silent - self.clock(self._utt_start)) * 1000)
        self.tracer.instant("barge_in", turn=job.id if job else None)
