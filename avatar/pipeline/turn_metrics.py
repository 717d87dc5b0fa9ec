"""Stage accounting: where a turn's voice-to-voice latency went, and what a loop keeps of its turns.

A turn's stages are consecutive intervals on the one clock, so they add up to its voice-to-voice
latency: endpoint (last speech sample -> work starts), asr, the answerer's own spans (retrieval,
decode, checks, rest as answer_other; `answer` when they do not fit), tts_first_audio, hold
(speculative reply waiting for the confirmed end of turn), output (handed to the sink -> first
audible sample). The turn runner marks the boundaries in `TurnJob.marks` (asr, answer,
tts_first, play, audible); `stage_times` turns them into milliseconds.
"""
from __future__ import annotations

import threading
from dataclasses import replace

from avatar import events as ev
from avatar.answer_types import Answer
from avatar.pipeline.turn_jobs import TurnJob
from avatar.stage_names import ANSWER, ANSWER_OTHER, ASR, ENDPOINT, HOLD, OUTPUT, TTS_FIRST_AUDIO, VOICE_TO_VOICE
from avatar.trace import Tracer, now

ANSWER_SPAN_TRACKS = ("answer", "llm", "checks")
# the loop's own stages; every other key of stage_times() is the answer stage (its spans, or "answer")
LOOP_STAGES = (ENDPOINT, ASR, TTS_FIRST_AUDIO, HOLD, OUTPUT)
KEPT_TURNS = 1000  # per-turn records a loop keeps (metrics, barge-in times): a kiosk runs for weeks


def stage_times(job: TurnJob, tracer: Tracer) -> dict[str, float]:
    """Milliseconds per stage, in order; they add up to the turn's voice-to-voice latency."""
    m = job.marks
    stages = {
        ENDPOINT: (job.started - job.speech_end) * 1000,
        ASR: (m["asr"] - job.started) * 1000,
    }
    answer_ms = (m["answer"] - m["asr"]) * 1000
    inner: dict[str, float] = {}
    for span in tracer.spans(job.id):
        if span.track in ANSWER_SPAN_TRACKS:
            inner[span.name] = inner.get(span.name, 0.0) + span.ms
    inner_total = sum(inner.values())
    if inner and inner_total <= answer_ms + 0.5:
        stages.update(inner)
        stages[ANSWER_OTHER] = max(0.0, answer_ms - inner_total)
    else:
        stages[ANSWER] = answer_ms
    stages[TTS_FIRST_AUDIO] = (m["tts_first"] - m["answer"]) * 1000
    stages[HOLD] = (m["play"] - m["tts_first"]) * 1000
    stages[OUTPUT] = (m["audible"] - m["play"]) * 1000
    return {k: round(v, 2) for k, v in stages.items()}


def record_stage_spans(tracer: Tracer, job: TurnJob, stages: dict[str, float]) -> None:
    """The turn's stages as consecutive spans on track 'turn', so a trace alone shows the waterfall."""
    t = job.speech_end
    for name, ms in stages.items():
        tracer.record(name, t, t + ms / 1000, turn=job.id, track="turn")
        t += ms / 1000
    tracer.record(VOICE_TO_VOICE, job.speech_end, job.marks["audible"], turn=job.id, track="voice_to_voice")


class TurnLog:
    """What the loop keeps of its turns (at most KEPT_TURNS each): metrics for the HUD's percentiles,
    speculation discarded, replies paused, barge-ins. The words go when the visitor leaves."""

    def __init__(self, lock: threading.RLock, tracer: Tracer):
        self.lock = lock
        self.tracer = tracer
        self.metrics: list[ev.TurnMetrics] = []
        self.discarded = 0  # speculative jobs cancelled because the visitor went on speaking
        self.pauses = 0  # replies paused at a voice onset (each then stopped or resumed)
        self.barge_ins: list[float] = []  # ms of visitor speech heard before playback stopped (stream time)
        self.barge_in_clock_ms: list[float] = []  # ms from the visitor's first word to playback stopping

    def finished(self, job: TurnJob, question: str, answer: Answer) -> ev.TurnMetrics:
        """The turn's first reply sample was audible (`job.marks["audible"]`): its metrics, kept,
        and its stages recorded as spans."""
        audible = job.marks["audible"]
        metrics = ev.TurnMetrics(now(), turn=job.id, transcript=question, reply=answer.reply, lang=answer.lang,
                                 stages=stage_times(job, self.tracer),
                                 voice_to_voice_ms=(audible - job.speech_end) * 1000,
                                 speech_end=job.speech_end, audible=audible,
                                 speculative=job.speculative, discarded=self.discarded,
                                 decode=answer.decode, checks=answer.checks, asr=dict(job.asr_info),
                                 first_prepared=job.first_prepared)
        with self.lock:
            self.metrics.append(metrics)
            del self.metrics[:-KEPT_TURNS]
        return metrics

    def barged_in(self, voiced_ms: float, clock_ms: float) -> None:
        self.barge_ins.append(voiced_ms)
        self.barge_in_clock_ms.append(clock_ms)
        del self.barge_ins[:-KEPT_TURNS], self.barge_in_clock_ms[:-KEPT_TURNS]

    def forget_words(self) -> None:
        """The visitor left: the timings stay for the HUD's percentiles, the words go."""
        with self.lock:
            self.metrics = [replace(m, transcript="", reply="") for m in self.metrics]
