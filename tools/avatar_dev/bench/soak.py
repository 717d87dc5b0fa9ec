"""`avatar soak --turns N`: the whole voice loop for N turns, watching for what grows.

One kiosk (one VoiceLoop, the real models, loaded once) hears a scripted stream of visitors:
recorded questions in both languages with room noise, barge-ins and backchannels over the reply
(real speech mixed over the reply's echo), and bad input (noise alone, silence, a click, clipped
or very quiet speech). The loudspeaker is a timed sink with no device; what it plays comes back
into the microphone through a simulated room's impulse response (tools/avatar_dev/bench/room.py), so the echo
canceller and the double-talk gate work as on a kiosk.

Accelerated time: the visitor's question and the silence after it are fed as fast as the
endpointer takes them (no real-time waits); only while a reply is being prepared or played is
the microphone paced in real time (echo, barge-in and playback need the clock). A reply is
listened to for `listen_s` seconds, then the visitor walks on (playback stopped); every few turns a
visitor leaves for good (the history and the trace's words are wiped).

After every turn it samples resident memory (RSS), threads (the process's, native ones included),
open file descriptors and the spans the tracer holds. The report gives per-turn latency drift
(voice-to-voice p95 of the last tenth against turns 10-30 %), the RSS slope over the second half,
and a verdict per bound; `avatar soak` exits 1 when one is broken.

This module is the driver (run_soak); the pieces: soak_plan.py (the visitors' script and clips),
soak_mic.py (the microphone and the echo path), soak_sample.py (RSS, threads, fds) and
soak_report.py (TurnRecord, bounds, summary, verdict and text). Their names are re-exported here.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Sequence

from avatar import events as ev
from avatar.asr.word_accuracy import word_errors
from avatar_dev.bench.soak_mic import EchoPath, SoakMicrophone
from avatar_dev.bench.soak_plan import (BAD_KINDS, ECHO_CLIPS, MIX, PHANTOM_KINDS, TurnPlan, _read, fold_umlauts,
                                    overlay_words, plan_turns, question_clips)
from avatar_dev.bench.soak_report import Bounds, TurnRecord, format_report, slope_per_100, summarize
from avatar_dev.bench.soak_sample import open_fds, os_threads, rss_mb
from avatar.errors import AvatarError
from avatar.trace import now

log = logging.getLogger(__name__)

__all__ = ["BAD_KINDS", "ECHO_CLIPS", "MIX", "PHANTOM_KINDS", "Bounds", "EchoPath", "SoakMicrophone",
           "TurnPlan", "TurnRecord", "format_report", "open_fds", "os_threads", "plan_turns",
           "question_clips", "rss_mb", "run_soak", "slope_per_100", "summarize"]


# --- the run ----------------------------------------------------------------------------------
def run_soak(cfg, n_turns: int, *, seed: int = 0, listen_s: float = 2.0, visit_turns: int = 6,
             room_name: str = "office", bounds: Bounds | None = None, stages=None,
             kinds: Sequence[str] | None = None, probe=None, max_minutes: float | None = None,
             progress: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the soak; a JSON-ready report with every turn, the trends and the verdict. `probe`: a
    dev MemProbe (tools/avatar_dev/bench/soak_mem.py) told of every turn, its report added as "tracemalloc".
    `max_minutes`: no turn starts after that long (the report covers the turns done); Ctrl-C too
    ends the run with a report of the turns done ("stopped" says why)."""
    from avatar_dev.bench.room import impulse_response, room
    from avatar.audio.wav_sink import WavFileSink
    from avatar.pipeline.build import _echo_canceller, _turn_taking, load_stages
    from avatar.pipeline.voice_loop import VoiceLoop
    from avatar.trace import TRACER

    if n_turns < 1:
        raise AvatarError("the soak needs at least one turn", hint="avatar soak --turns 100")
    bounds = bounds or Bounds()
    leave_s = 1.0
    cfg = cfg.with_overrides({"pipeline.visitor_timeout_s": leave_s})  # a visitor leaves within a second
    tracer = TRACER
    kept = tracer.keep_past_visits
    tracer.keep_past_visits = False  # as the kiosk without --debug: a visit's spans go with the visitor
    errors_logged = _ErrorCounter()
    logging.getLogger().addHandler(errors_logged)
    plans = plan_turns(n_turns, seed, visit_turns, kinds)
    try:
        stages = stages or load_stages(cfg, tracer, progress=progress)
        echo = EchoPath(impulse_response(room(room_name), seed=seed, system_delay_ms=40.0))
        records: list[TurnRecord] = []
        t0 = now()
        stopped: list[str] = []
        paused_before = [0]

        def on_turn(plan: TurnPlan, seen: dict) -> None:
            rec = _record(plan, seen)
            rec.rss_mb, rec.threads, rec.py_threads = round(rss_mb(), 1), os_threads(), threading.active_count()
            rec.fds, rec.spans = open_fds(), len(tracer.spans())
            rec.pauses, paused_before[0] = mic.loop.pauses - paused_before[0], mic.loop.pauses
            records.append(rec)
            if max_minutes is not None and now() - t0 > 60 * max_minutes and len(records) < n_turns:
                stopped.append(f"time budget ({max_minutes:g} min) spent after {len(records)} turns")
                mic.close()
            progress(f"[{plan.index + 1}/{n_turns}] {plan.kind:<11} {plan.clip[:34]:<34} "
                     f"v2v {_ms(rec.voice_to_voice_ms)}  rss {rec.rss_mb:.0f} MB  threads {rec.threads}  "
                     f"fds {rec.fds}  spans {rec.spans}" + (f"  MISS: {rec.miss}" if rec.miss else "")
                     + (f"  ERRORS: {rec.stage_errors}" if rec.stage_errors else ""))
            if probe is not None:
                probe.on_turn(len(records), rec.rss_mb)

        noise = _read(ECHO_CLIPS / "background_noise_3s.wav")
        mic = SoakMicrophone(plans, echo, int(cfg.audio.frame_ms), listen_s=listen_s, leave_s=leave_s + 0.4,
                             turn_timeout_s=4 * float(cfg.pipeline.stage_timeout_s) + 20.0, on_turn=on_turn,
                             noise=noise)
        sink = WavFileSink(None, float(cfg.audio.output_latency_ms))
        sink.add_listener(echo.heard)
        loop = VoiceLoop(cfg, mic, sink, stages.answerer, stages.asr, stages.tts, tracer,
                         fallback_answerer=stages.fallback, echo_canceller=_echo_canceller(cfg),
                         renew=dict(stages.renew), on_renewed=stages.renewed, **_turn_taking(cfg))
        mic.loop = loop
        loop.subscribe(mic.observe)
        try:
            loop.run_until_done(drain=True, timeout=None)
        except KeyboardInterrupt:
            stopped.append(f"interrupted after {len(records)} turns")
            mic.close()
        finally:
            loop.stop()
            sink.close()
        wall = now() - t0
    finally:
        logging.getLogger().removeHandler(errors_logged)
        tracer.keep_past_visits = kept
    report = summarize(records, bounds, errors_logged.count, wall, {
        "turns": n_turns, "seed": seed, "listen_s": listen_s, "visit_turns": visit_turns, "room": room_name,
        "answer": cfg.answer.kind, "notices": list(stages.notices), "stopped": stopped[0] if stopped else None})
    if probe is not None and probe.report is not None:
        report["tracemalloc"] = probe.report
    return report


class _ErrorCounter(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.ERROR)
        self.count = 0
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def _ms(v: float | None) -> str:
    return "   -   " if v is None else f"{v:5.0f} ms"


def _interruption(events: list, stop: ev.Event, overlay: str) -> tuple[str, float]:
    """The words recognized of what stopped the reply (the first transcript after the stop, dropped
    ones count as nothing heard) and their word accuracy against what the visitor said."""
    after = events[events.index(stop) + 1:]
    text = next((e.text for e in after if isinstance(e, ev.FinalTranscript)), "")
    errors, n = word_errors(fold_umlauts(overlay_words(overlay)), fold_umlauts(text))
    return text, round(max(0.0, 1.0 - errors / n), 3) if n else 0.0


def _record(plan: TurnPlan, seen: dict) -> TurnRecord:
    events = seen["events"]
    rec = TurnRecord(plan.index, plan.kind, plan.clip, plan.lang, overlay=plan.overlay_text,
                     overlay_at_s=round(plan.overlay_at_s, 2), timed_out=seen["timed_out"],
                     wall_s=round(seen["wall_s"], 2))
    metrics = [e for e in events if isinstance(e, ev.TurnMetrics)]
    rec.replies = len(metrics)
    if metrics:
        rec.voice_to_voice_ms = round(metrics[0].voice_to_voice_ms, 1)
        rec.heard_s = (metrics[0].asr or {}).get("speech_s")
        rec.later_v2v_ms = [round(m.voice_to_voice_ms, 1) for m in metrics[1:]]
    stops = [e for e in events if isinstance(e, ev.PlaybackStopped) and e.reason == "barge_in"]
    rec.barge_in_stops = len(stops)
    # answered: a reply of a later turn started after the stop. Not TurnMetrics: a reply cut while its
    # later clauses were still being synthesized never records any, so counting them took an answered
    # interruption for an unanswered one
    rec.answered_after_stop = bool(stops) and any(isinstance(e, ev.PlaybackStarted) and e.turn > stops[0].turn
                                                  for e in events)
    rec.asked_again = sum(isinstance(e, ev.NotUnderstood) for e in events)
    if plan.kind == "barge_in" and stops:
        rec.interruption_text, rec.interruption_accuracy = _interruption(events, stops[0], plan.overlay_text)
    rec.transcripts = [e.text for e in events if isinstance(e, ev.FinalTranscript) and e.text]
    rec.dropped = [e.dropped for e in events if isinstance(e, ev.FinalTranscript) and e.dropped]
    rec.stage_errors = [e.stage for e in events if isinstance(e, ev.StageError)]
    done = [e for e in events if isinstance(e, ev.ReplyDone)]
    rec.gaps, rec.gap_ms = sum(e.gaps for e in done), round(sum(e.gap_ms for e in done), 1)
    if plan.kind == "question" and not rec.replies:
        rec.miss = "no reply" + (f" (transcript dropped: {', '.join(rec.dropped)})" if rec.dropped else
                                 " (no transcript)" if not rec.transcripts else "")
    elif plan.kind == "barge_in" and not rec.barge_in_stops:
        rec.miss = "the interruption did not stop the reply"
    elif plan.kind == "barge_in" and not rec.answered_after_stop:
        rec.miss = ("the interruption's words were not recognised (asked again)" if rec.asked_again
                    else "the interruption was not answered")
    elif plan.kind == "backchannel" and rec.barge_in_stops:
        rec.miss = "a backchannel stopped the reply"
    elif plan.kind == "bad" and plan.clip in PHANTOM_KINDS and rec.replies:
        rec.miss = "a reply to " + plan.clip
    elif plan.kind == "bad" and plan.clip in PHANTOM_KINDS and rec.asked_again:
        rec.miss = "asked to say it again after " + plan.clip
    if rec.timed_out:
        rec.miss = rec.miss or "the turn never ended"
    return rec
