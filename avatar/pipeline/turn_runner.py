"""Running one turn on its worker thread: final ASR -> answer -> TTS -> sink, each stage watched.

A speculative turn (started at the tentative end) does all of it but holds its first clause until
the end of turn is confirmed; the visitor resuming, a barge-in or a newer turn cancels it (its
token). The reply is synthesized clause by clause and each clause handed to the sink as soon as
it is ready (`pipeline.streaming_tts`; off: the whole reply first, the sequential baseline). A
stage that fails, hangs (stage_call.py) or breaks its contract (contracts.py) loses the turn: the
visitor hears a short apology in their language once their turn has ended.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import replace
from typing import Any, Callable, Protocol

import numpy as np

from avatar import events as ev
from avatar.answer_types import Answer, HistoryTurn
from avatar.cancel import Cancelled
from avatar.locales import load_strings
from avatar.pipeline.contracts import check_chunk, check_transcript
from avatar.pipeline.partials import PartialTranscripts
from avatar.pipeline.stage_call import StageFailure, StageOutputError, StageRaised, StageTimeout, StageUnavailable
from avatar.pipeline.stages import LoopStages
from avatar.pipeline.turn_jobs import TurnJob, TurnJobs
from avatar.pipeline.turn_metrics import TurnLog, record_stage_spans
from avatar.pipeline.visitor import VisitorSession
from avatar.stage_names import ASR
from avatar.trace import Tracer, now

log = logging.getLogger(__name__)


class Floor(Protocol):
    """Turn-taking, as a running turn needs it (turn_taking.TurnTaking)."""

    def adapt_end_wait(self, text: str) -> None: ...

    def reply_starts(self, job: TurnJob) -> None: ...


class TurnRunner:
    def __init__(self, cfg, stages: LoopStages, recognition: PartialTranscripts, visitor: VisitorSession,
                 jobs: TurnJobs, turn_log: TurnLog, *, floor: Floor, tracer: Tracer,
                 emit: Callable[[ev.Event], None], stopping: threading.Event):
        self.streaming = bool(cfg.pipeline.streaming_tts)
        self.output_latency_s = cfg.audio.output_latency_ms / 1000
        self.stages = stages
        self.recognition = recognition
        self.visitor = visitor
        self.jobs = jobs
        self.log = turn_log
        self.floor = floor
        self.tracer = tracer
        self.emit = emit
        self.stopping = stopping
        self._fixed_audio: dict[tuple[str, str], list] = {}  # (what, lang) -> the apology's or re-prompt's audio

    def run(self, job: TurnJob) -> None:
        stage = "asr"
        lang = self.visitor.current()
        try:
            tr = self._transcribe(job)
            if tr is None:
                if job.barge_in:  # the visitor stopped the reply to say something: silence is no answer
                    self._ask_again(job, lang)
                return
            lang = self.visitor.reply_lang(tr.lang)  # remembered when the turn is confirmed (_hold_first_clause)
            job.heard_lang = tr.lang
            stage = "answer"
            answer = self.stages.answer(tr.text, lang, self.visitor.recent(), job.token, job.id)
            job.marks["answer"] = now()
            job.token.raise_if_cancelled()
            stage = "tts"
            self._speak(job, answer)
            stage = "output"
            self._finish(job, tr.text, answer)
        except Cancelled:
            pass
        except Exception as exc:
            if isinstance(exc, StageFailure):
                stage = exc.stage
            else:
                log.error("turn %d failed in %s", job.id, stage, exc_info=True)
            self._failed(job, stage, exc, lang)
        finally:
            job.finished.set()

    # --- recognition ---------------------------------------------------------------------
    def _transcribe(self, job: TurnJob) -> Any | None:
        """The final transcript (announced); None when there is nothing to answer."""
        forced, prior = self.visitor.forced, self.visitor.prior
        with self.tracer.span(ASR, turn=job.id, speculative=job.speculative) as info:
            tr = self.stages.asr.call(lambda asr: self.recognition.final(
                asr, job.audio, job.commit, lang=forced(), prior=prior(), cancel=job.token), job.token)
            check_transcript(tr)
            job.asr_info = asr_record(tr, job)
            info.update(text=tr.text, lang=tr.lang, dropped=tr.dropped,
                        prior_used=bool(getattr(tr, "prior_used", False)), **job.asr_info)
        job.marks["asr"] = now()
        job.token.raise_if_cancelled()
        if job.speculative and not job.confirmed.is_set():
            # the speculative transcript is the best evidence of whether the visitor is done
            self.floor.adapt_end_wait(tr.text)
        self.emit(ev.FinalTranscript(now(), text=tr.text, lang=tr.lang,
                                     lang_prob=tr.lang_prob, dropped=tr.dropped))
        if tr.dropped or not tr.text.strip():
            return None
        return tr

    def _take_language(self, transcript_lang: str) -> None:
        """The confirmed turn's language becomes the visitor's (the UI follows a new one)."""
        lang, changed = self.visitor.heard(transcript_lang)
        if changed:
            self.emit(ev.LanguageChanged(now(), lang=lang))

    # --- the reply -----------------------------------------------------------------------
    def _clauses(self, job: TurnJob, answer: Answer):
        """The reply's audio, clause by clause; each clause is one watched call (a synthesis that
        hangs is abandoned like any stage call). Not streaming: the whole reply as one piece."""
        tts = self.stages.tts
        clauses = tts.call(lambda t: iter(t.synthesize(answer.reply, answer.lang, cancel=job.token)), job.token)

        def synthesized():
            while True:
                chunk = tts.call(lambda t: next(clauses, None), job.token)
                if chunk is None:
                    return
                yield check_chunk(chunk)

        return synthesized() if self.streaming else [join_chunks(list(synthesized()))]

    def _speak(self, job: TurnJob, answer: Answer) -> None:
        """Synthesize clause by clause; hand each to the sink as soon as the turn is confirmed (each
        hand-over to the sink is a watched call too)."""
        queued_until = 0.0
        index = clause = -1
        gaps, gap_s = 0, 0.0
        for index, chunk in enumerate(self._clauses(job, answer)):
            job.token.raise_if_cancelled()
            if index == 0:
                job.first_prepared = bool(getattr(chunk, "cached", False))
                self._hold_first_clause(job, answer)
            elif not self.stages.sink.playing:  # ran dry: the visitor hears a silence until this piece plays
                gaps += 1
                gap_s += max(0.0, now() + self.output_latency_s - queued_until)
            start = max(now() + self.output_latency_s, queued_until)
            self._play(job, chunk)
            if index == 0:
                job.playing = True
                self.emit(ev.PlaybackStarted(now(), turn=job.id))
            queued_until = start + len(chunk.pcm) / chunk.sample_rate
            if not getattr(chunk, "part", 0):  # a streamed clause's later pieces continue its audio, not its text
                clause += 1
                self.emit(ev.ReplyClause(now(), turn=job.id, index=clause, text=chunk.text, lang=answer.lang,
                                         voice=getattr(chunk, "voice", "")))
            for offset, duration, viseme in chunk.visemes or ():
                self.emit(ev.Viseme(now(), at=start + offset, duration=duration, viseme=viseme))
        if index < 0:
            raise StageOutputError("tts", "no audio for the reply")
        self.emit(ev.ReplyDone(now(), turn=job.id, text=answer.reply, lang=answer.lang, mood=answer.mood,
                               gesture=answer.gesture, checks=answer.checks, decode=answer.decode,
                               gaps=gaps, gap_ms=round(gap_s * 1000, 1)))

    def _hold_first_clause(self, job: TurnJob, answer: Answer) -> None:
        """The first clause is ready: a speculative reply waits for the end of turn, then starts."""
        job.marks["tts_first"] = now()
        while not job.confirmed.wait(0.005):  # speculative reply: held until end of turn
            job.token.raise_if_cancelled()
        job.token.raise_if_cancelled()
        self._take_language(job.heard_lang)  # the turn is the visitor's: its language is the next turn's prior
        self.floor.reply_starts(job)
        self.emit(ev.ReplyStarted(now(), turn=job.id, question="", lang=answer.lang))
        job.marks["play"] = now()

    def _play(self, job: TurnJob, chunk) -> None:
        try:
            self.stages.out.call(lambda sink: sink.play(chunk.pcm, chunk.sample_rate), job.token)
        except (Cancelled, StageTimeout, StageUnavailable):
            raise
        except Exception as exc:  # the sink's own error: the turn was lost in playback, not in TTS
            raise StageRaised("output", exc) from exc

    def _finish(self, job: TurnJob, question: str, answer: Answer) -> None:
        """The reply is audible: the turn's metrics and history; then it plays out."""
        if "play" not in job.marks:
            return
        audible = self._wait_audible(job)
        if audible is None:
            return
        job.marks["audible"] = audible
        metrics = self.log.finished(job, question, answer)
        self.visitor.add(HistoryTurn(question, answer.reply, answer.lang))
        record_stage_spans(self.tracer, job, metrics.stages)
        self.emit(metrics)
        self._play_out(job)
        if not job.token.cancelled:
            self.emit(ev.PlaybackStopped(now(), turn=job.id, reason="done"))
        self.visitor.touch()

    def _play_out(self, job: TurnJob) -> None:
        """Wait while what was handed to the sink plays (a barge-in cancels the job and ends the wait)."""
        while self.stages.sink.playing and not job.token.cancelled:
            job.token.wait(0.02)

    def _end_of_turn(self, job: TurnJob) -> bool:
        """Wait for the visitor's turn to be confirmed over (a speculative turn: they may still be
        speaking); False when the job was cancelled or the loop is stopping."""
        while not job.confirmed.wait(0.005):
            if job.token.cancelled or self.stopping.is_set():
                return False
        return not job.token.cancelled

    def _wait_audible(self, job: TurnJob) -> float | None:
        timeout_s = self.stages.timeout_s
        deadline = job.marks["play"] + timeout_s  # a sink that never plays is a hung stage too
        while not job.token.cancelled:
            t = self.stages.sink.first_audible_after(job.marks["play"])
            if t is not None:
                return t
            if now() > deadline:
                raise StageTimeout("output", timeout_s)
            job.token.wait(0.002)
        return None

    # --- a lost turn ---------------------------------------------------------------------
    def _failed(self, job: TurnJob, stage: str, exc: Exception, lang: str) -> None:
        """The turn is lost: say so (event, trace, a short apology), and let the next turn start afresh."""
        # a fresh instance takes over (said only then)
        restarted = isinstance(exc, StageFailure) and bool(exc.restarting)
        self.tracer.instant("stage_failed", turn=job.id, stage=stage, error=type(exc).__name__, message=str(exc),
                            restarted=restarted)
        if not self._end_of_turn(job):
            return
        self.emit(ev.StageError(now(), stage=stage, message=str(exc), restarted=restarted))
        self._apologize(job, stage, lang)

    def _apologize(self, job: TurnJob, stage: str, lang: str) -> None:
        """A short spoken apology in the visitor's language (the end of their turn is confirmed)."""
        text = spoken_text("error.apology", lang)
        self.tracer.instant("apology", turn=job.id, stage=stage, lang=lang)
        self.emit(ev.Apology(now(), turn=job.id, stage=stage, text=text, lang=lang))
        self._say(job, "apology", text, lang, stage=stage)

    def _ask_again(self, job: TurnJob, lang: str) -> None:
        """The visitor's utterance stopped the reply, but no words were recognised in it: rather than
        leave them waiting in silence, the avatar asks them to say it again (once their turn has
        ended; a speculative turn the visitor resumed is cancelled instead)."""
        if not self._end_of_turn(job):
            return
        text = spoken_text("conversation.not_understood", lang)
        self.tracer.instant("not_understood", turn=job.id, lang=lang)
        self.emit(ev.NotUnderstood(now(), turn=job.id, text=text, lang=lang))
        self._say(job, "not_understood", text, lang)

    def _say(self, job: TurnJob, what: str, text: str, lang: str, stage: str = "") -> None:
        """Speak a short fixed line (synthesized once per language, a fresh voice if the old one hung,
        then replayed); if it cannot be spoken the banner still tells the visitor."""
        chunks = self._fixed_audio.get((what, lang))
        try:
            if chunks is None:
                limit = min(self.stages.timeout_s, 1.5)
                chunks = self.stages.tts.call(lambda tts: list(tts.synthesize(text, lang)), job.token, timeout_s=limit)
                for chunk in chunks:
                    check_chunk(chunk)
                self._fixed_audio[(what, lang)] = chunks
            self.floor.reply_starts(job)  # heard like a reply: the visitor can talk over it (barge-in afresh)
            for chunk in chunks:
                self._play(job, chunk)
            self._play_out(job)
        except Cancelled:
            pass
        except Exception as exc:  # the banner still tells the visitor
            log.warning("the %s could not be spoken: %s", what, exc)
            self.tracer.instant(f"{what}_silent", turn=job.id, stage=stage, error=type(exc).__name__)


def asr_record(tr: Any, job: TurnJob) -> dict:
    """How the final transcript was made (TurnMetrics.asr). The fields past text, lang and dropped
    are WhisperASR's (`Transcript`); a stand-in without them records defaults."""
    return {"path": getattr(tr, "path", ""), "fallback": getattr(tr, "fallback", ""),
            "committed_words": getattr(tr, "committed_words", 0),
            "confirmed_at_start": len(job.commit.words) if job.commit else 0,
            "encoded_s": getattr(tr, "encoded_s", 0.0),
            "speech_s": round(len(job.audio) / 16000, 2)}


_FALLBACK_TEXT = {"error.apology": "Sorry, something went wrong. Please ask again.",
                  "conversation.not_understood": "Sorry, I didn't catch that. Please say it again."}


def spoken_text(key: str, lang: str) -> str:
    """A fixed line the avatar says (the locale's `key`), in English if the locale is broken."""
    try:
        return load_strings(lang).get(key)
    except Exception:  # a broken locale must not turn an apology into a crash
        return _FALLBACK_TEXT[key]


def join_chunks(chunks: list) -> Any:
    if not chunks:
        raise StageOutputError("tts", "no audio for the reply")
    pcm = np.concatenate([c.pcm for c in chunks])
    visemes, offset = [], 0.0
    for c in chunks:
        visemes += [(o + offset, d, v) for o, d, v in (c.visemes or [])]
        offset += len(c.pcm) / c.sample_rate
    return replace(chunks[0], pcm=pcm, text=" ".join(c.text for c in chunks if c.text), visemes=visemes)
