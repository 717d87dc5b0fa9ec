"""A scripted stand-in for the voice loop: two visitor turns (German, then English) as the real
loop would emit them, spans included. `avatar run --demo` shows it; the UI tests drive it.

The timings are made up but shaped like the real pipeline's (see docs/UI.md); nothing is measured.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

from avatar import events as ev
from avatar.answer_types import CheckReport, DecodeStats
from avatar.cancel import CancelToken
from avatar.stage_names import (ASR, CHECKS, DECODE, ENDPOINT, OUTPUT, RETRIEVAL, TTS_FIRST_AUDIO, VOICE_TO_VOICE,
                                check_span)
from avatar.trace import Span, Tracer, now, sleep_until

# A rough letter -> viseme table, good enough to make the demo's mouth move plausibly.
_LETTER_VISEMES = {**dict.fromkeys("aä", "A"), **dict.fromkeys("eé", "E"), **dict.fromkeys("iyj", "I"),
                   **dict.fromkeys("oö", "O"), **dict.fromkeys("uüw", "U"), **dict.fromkeys("mbp", "M"),
                   **dict.fromkeys("fv", "F"), **dict.fromkeys("lnrdt", "L"), **dict.fromkeys("szßcx", "S"),
                   **dict.fromkeys("kgqh", "E")}

# what a window or console running the demo says (locale key notice.demo): its turns are scripted
DEMO_NOTICE = "demo: scripted turns, no models; the figures are made up"


@dataclass(frozen=True)
class DemoTurn:
    lang: str
    partials: tuple[str, ...]
    question: str
    clauses: tuple[str, ...]
    mood: str
    gesture: str
    stages: dict[str, float]
    checks: dict[str, float]  # per check span, ms
    decode: DecodeStats = field(default_factory=DecodeStats)
    check_results: CheckReport = field(default_factory=CheckReport)


DEMO_TURNS = (
    DemoTurn(
        lang="de",
        partials=("Wann hat", "Wann hat das Museum"),
        question="Wann hat das Museum heute geöffnet?",
        clauses=("Heute sind wir von 10 bis 18 Uhr für Sie da,", "der Eintritt kostet 9 Euro."),
        mood="info", gesture="",
        stages={"endpoint": 180.0, "asr": 152.0, "retrieval": 3.1, "decode": 36.0, "tts_first_audio": 131.0,
                "output": 20.0},
        checks={"grounding": 5.2, "self_consistency": 38.0, "schema": 0.8},
        decode=DecodeStats(steps=9, tokens=48, ms=36.0, decodes=2),
        check_results=CheckReport(enabled=True, passes=["grounding", "self_consistency", "schema"], grounded=True,
                                  agreement=True, schema_ok=True, decodes=2),
    ),
    DemoTurn(
        lang="en",
        partials=("Where is the", "Where is the café"),
        question="Where is the café?",
        clauses=("The café is on the ground floor,", "in the foyer next to the museum shop."),
        mood="happy", gesture="point_left",
        stages={"endpoint": 160.0, "asr": 138.0, "retrieval": 2.4, "decode": 29.0, "tts_first_audio": 118.0,
                "output": 20.0},
        checks={"grounding": 4.1, "self_consistency": 31.0, "schema": 0.7},
        decode=DecodeStats(steps=8, tokens=44, ms=29.0, decodes=2),
        check_results=CheckReport(enabled=True, passes=["grounding", "self_consistency", "schema"], grounded=True,
                                  agreement=True, schema_ok=True, decodes=2),
    ),
)


def varied_turns(n: int, seed: int = 1) -> tuple[DemoTurn, ...]:
    """n demo turns alternating German and English with made-up spread in every stage (for
    screenshots of the debug panel and report plots; not measurements)."""
    import random
    from dataclasses import replace

    rng = random.Random(seed)
    out = []
    for i in range(n):
        base = DEMO_TURNS[i % len(DEMO_TURNS)]
        stages = {k: round(v * rng.uniform(0.8, 1.35), 1) for k, v in base.stages.items()}
        checks = {k: round(v * rng.uniform(0.8, 1.5), 1) for k, v in base.checks.items()}
        out.append(replace(base, stages=stages, checks=checks))
    return tuple(out)


def visemes_for(text: str, start: float, step_s: float = 0.075) -> list[ev.Viseme]:
    out = []
    t = start
    for ch in text.lower():
        if ch in _LETTER_VISEMES:
            out.append(ev.Viseme(t=start, at=t, duration=step_s, viseme=_LETTER_VISEMES[ch], level=0.7))
            t += step_s
        elif ch in " ,.;:!?":
            out.append(ev.Viseme(t=start, at=t, duration=step_s, viseme="rest", level=0.0))
            t += step_s * (3 if ch in ",.;:!?" else 1)
    return out


def turn_script(turn: int, spec: DemoTurn, t0: float, detected: bool = True) -> list[tuple[float, object]]:
    """(clock time, Event or Span) pairs of one turn starting at t0, in the order the loop emits them."""
    s = spec.stages
    out: list[tuple[float, object]] = [(t0, ev.SpeechStart(t0, audio_t=0.0))]
    for i, text in enumerate(spec.partials):
        out.append((t0 + 0.6 * (i + 1), ev.PartialTranscript(t0 + 0.6 * (i + 1), text=text, lang=spec.lang)))
    speech_end = t0 + 0.6 * (len(spec.partials) + 1)
    t = speech_end + s[ENDPOINT] / 1000
    out.append((speech_end + 0.16, ev.TentativeEnd(speech_end + 0.16, audio_t=speech_end - t0)))
    out.append((t, ev.EndOfTurn(t, audio_t=speech_end - t0)))
    out.append((t, Span(ENDPOINT, speech_end, t, turn)))
    asr_end = t + s[ASR] / 1000
    out.append((asr_end, Span(ASR, t, asr_end, turn)))
    out.append((asr_end, ev.FinalTranscript(asr_end, text=spec.question, lang=spec.lang, lang_prob=0.97)))
    if detected:
        out.append((asr_end, ev.LanguageChanged(asr_end, lang=spec.lang)))
    out.append((asr_end, ev.ReplyStarted(asr_end, turn=turn, question=spec.question, lang=spec.lang)))
    t = asr_end
    for name, ms in ((RETRIEVAL, s[RETRIEVAL]), (DECODE, s[DECODE])):
        out.append((t + ms / 1000, Span(name, t, t + ms / 1000, turn)))
        t += ms / 1000
    checks_start = t
    for name, ms in spec.checks.items():
        out.append((t + ms / 1000, Span(check_span(name), t, t + ms / 1000, turn, args={"ok": True})))
        t += ms / 1000
    out.append((t, Span(CHECKS, checks_start, t, turn)))
    reply = " ".join(spec.clauses)
    out.append((t, ev.ReplyDone(t, turn=turn, text=reply, lang=spec.lang, mood=spec.mood, gesture=spec.gesture,
                                checks=spec.check_results, decode=spec.decode)))
    tts_end = t + s[TTS_FIRST_AUDIO] / 1000
    out.append((tts_end, Span(TTS_FIRST_AUDIO, t, tts_end, turn)))
    audible = tts_end + s[OUTPUT] / 1000
    out.append((audible, Span(OUTPUT, tts_end, audible, turn)))
    out.append((audible, Span(VOICE_TO_VOICE, speech_end, audible, turn)))
    out.append((audible, ev.PlaybackStarted(audible, turn=turn)))
    clause_t = audible
    for i, clause in enumerate(spec.clauses):
        out.append((clause_t, ev.ReplyClause(clause_t, turn=turn, index=i, text=clause, lang=spec.lang)))
        for v in visemes_for(clause, clause_t):
            out.append((clause_t, v))
        clause_t += 0.075 * len(clause) * 0.85
    stages = {**s, "checks": (t - checks_start) * 1000, **{f"check.{k}": v for k, v in spec.checks.items()}}
    out.append((audible, ev.TurnMetrics(audible, turn=turn, transcript=spec.question, reply=reply, lang=spec.lang,
                                        stages=stages, voice_to_voice_ms=(audible - speech_end) * 1000,
                                        speculative=True, decode=spec.decode, checks=spec.check_results)))
    out.append((clause_t, ev.PlaybackStopped(clause_t, turn=turn, reason="done")))
    out.sort(key=lambda pair: pair[0])
    return out


def demo_script(t0: float, turns: tuple[DemoTurn, ...] = DEMO_TURNS, gap_s: float = 2.0,
                first_turn: int = 1) -> list[tuple[float, object]]:
    items: list[tuple[float, object]] = []
    t = t0
    for i, spec in enumerate(turns):
        script = turn_script(first_turn + i, spec, t)
        items += script
        t = script[-1][0] + gap_s
    return items


class DemoLoop:
    """Plays the demo script in real time on its own thread, with the VoiceLoop's interface."""

    def __init__(self, tracer: Tracer | None = None, turns: tuple[DemoTurn, ...] = DEMO_TURNS,
                 start_delay_s: float = 1.5, visitor_leaves: bool = False, speed: float = 1.0):
        self.tracer = tracer
        self.speed = speed  # > 1 plays the script faster (tests)
        self.turns = turns
        self.start_delay_s = start_delay_s
        self.visitor_leaves = visitor_leaves
        self.language_requests: list[str] = []
        self._observers: list[Callable[[ev.Event], None]] = []
        self._cancel = CancelToken()
        self._thread: threading.Thread | None = None

    def subscribe(self, fn: Callable[[ev.Event], None]) -> None:
        self._observers.append(fn)

    def set_language(self, lang: str) -> None:
        self.language_requests.append(lang)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._play, name="demo-loop", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._cancel.cancel("stopped")

    def run_until_done(self) -> None:
        self.start()
        self._thread.join()

    def _emit(self, item: object) -> None:
        if isinstance(item, Span):
            if self.tracer is not None:
                self.tracer.add(item)
            return
        for fn in list(self._observers):
            fn(item)

    def _play(self) -> None:
        script = demo_script(now() + self.start_delay_s, self.turns)
        if self.visitor_leaves:
            t_end = script[-1][0] + 3.0
            script.append((t_end, ev.VisitorLeft(t_end)))
        start = now()
        for t, item in script:
            due = start + (t - start) / self.speed
            if self._cancel.wait(max(0.0, due - now())):
                return
            sleep_until(due)
            self._emit(item)
