"""Fault injection: a stage that hangs, raises or returns garbage loses one turn, never the kiosk.

Each faulty stage misbehaves on its first call only, as a real fault would (a hung model call, a
bad input, a corrupt result); a hang holds the stage's lock like WhisperASR does, so a next turn
that called into the same instance would hang behind it. The watchdog abandons the call, gives the
next turn a fresh instance, apologizes to the visitor, and leaves no threads behind.
"""
import dataclasses
import threading

import numpy as np
import pytest

from avatar import config
from avatar import events as ev
from avatar.answer.base import Answer
from avatar.cancel import Cancelled, CancelToken
from avatar.errors import ConfigError
from avatar.pipeline.stage_call import StageTimeout, StageUnavailable, WatchedStage, checked_timeout
from avatar.pipeline.voice_loop import VoiceLoop
from avatar.trace import Tracer

from fakes import (END, SPEECH, TENTATIVE, Chunk, FakeASR, FakeAnswerer, FakeSink, FakeTTS, Recorder,
                   ScriptedEndpointer, ScriptedSource, Transcript)

TWO_TURNS = [(0.1, SPEECH), (0.6, TENTATIVE), (0.8, END), (2.6, SPEECH), (3.1, TENTATIVE), (3.3, END)]
TIMEOUT_S = 0.5


class Fault:
    """The first call misbehaves; a hang holds the instance's lock until the test releases it."""

    def __init__(self, kind: str):
        self.kind = kind
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.calls = 0

    def strike(self, garbage):
        """Run the fault on the first call; returns (True, garbage) when the call must return garbage."""
        self.calls += 1
        with self.lock:  # every call takes the lock: a second call into a hung instance would block
            if self.calls > 1:
                return False, None
            if self.kind == "hang":
                self.release.wait(30)
                return False, None
            if self.kind == "raise":
                raise RuntimeError("injected fault")
            return True, garbage[self.kind]


class FaultyASR(FakeASR):
    def __init__(self, kind):
        super().__init__(delay=0.01)
        self.fault = Fault(kind)

    def transcribe(self, pcm, lang=None, partial=False, cancel=None, prior=None):
        bad, value = self.fault.strike({"wrong_type": 42, "empty": Transcript("", "de")})
        return value if bad else super().transcribe(pcm, lang, partial, cancel)

    def renew(self):
        return FakeASR(delay=0.01)


class FaultyAnswerer(FakeAnswerer):
    def __init__(self, kind):
        super().__init__()
        self.fault = Fault(kind)

    def answer(self, question, lang, history=(), cancel=None, turn=None):
        bad, value = self.fault.strike({"wrong_type": {"reply": "x"}, "empty": Answer("", lang)})
        return value if bad else super().answer(question, lang, history, cancel, turn)

    def renew(self):
        return FakeAnswerer()


class FaultyTTS(FakeTTS):
    """Misbehaves on the reply to the first question (the apology and later replies are fine)."""

    def __init__(self, kind):
        super().__init__(clause_seconds=0.2)
        self.fault = Fault(kind)
        self.texts = []

    def synthesize(self, text, lang, cancel=None):
        self.texts.append(text)
        if text == FakeAnswerer().reply:
            garbage = {"wrong_type": ["not audio"], "empty": [Chunk(np.zeros(0, np.int16), 22050, text)],
                       "no_chunks": []}
            bad, value = self.fault.strike(garbage)
            if bad:
                yield from value
                return
        yield from super().synthesize(text, lang, cancel)

    def renew(self):
        return FakeTTS(clause_seconds=0.2)


@pytest.fixture(autouse=True)
def no_stage_threads_left_over():
    """Each test starts counting from a clean slate: a released hang from an earlier test is over."""
    for t in stage_threads():
        t.join(5)
    yield
    for t in stage_threads():
        t.join(5)


class FaultySink(FakeSink):
    """Playback that hangs or raises on the first clause handed to it."""

    def __init__(self, kind):
        super().__init__()
        self.fault = Fault(kind)

    def play(self, pcm, sample_rate):
        self.fault.strike({})
        super().play(pcm, sample_rate)


def stage_threads():
    return [t for t in threading.enumerate() if t.name.startswith("stage-") and t.is_alive()]


def run_two_turns(**stages):
    cfg = config.load(sets=["asr.partial_interval_ms=0", f"pipeline.stage_timeout_s={TIMEOUT_S}"], env={})
    rec = Recorder()
    tracer = Tracer()
    loop = VoiceLoop(cfg, ScriptedSource(4.2), FakeSink(), stages.get("answerer") or FakeAnswerer(),
                     stages.get("asr") or FakeASR(delay=0.01), stages.get("tts") or FakeTTS(clause_seconds=0.2),
                     tracer, endpointer=ScriptedEndpointer(list(TWO_TURNS)))
    loop.subscribe(rec)
    metrics = loop.run_until_done(timeout=30)
    return loop, rec, tracer, metrics


FAULTS = [("asr", kind) for kind in ("hang", "raise", "wrong_type", "empty")] + \
         [("answer", kind) for kind in ("hang", "raise", "wrong_type", "empty")] + \
         [("tts", kind) for kind in ("hang", "raise", "wrong_type", "empty", "no_chunks")]


@pytest.mark.parametrize("stage,kind", FAULTS)
def test_a_faulty_stage_loses_one_turn_and_the_next_is_answered(stage, kind):
    faulty = {"asr": FaultyASR, "answer": FaultyAnswerer, "tts": FaultyTTS}[stage](kind)
    before = len(stage_threads())
    try:
        loop, rec, tracer, metrics = run_two_turns(**{"answerer" if stage == "answer" else stage: faulty})
        left = len(stage_threads()) - before
    finally:
        faulty.fault.release.set()

    # the visitor was told: an error event, and a spoken apology in their language
    errors = rec.of(ev.StageError)
    assert errors and errors[0].stage == stage
    apologies = rec.of(ev.Apology)
    assert [a.turn for a in apologies] == [1] and apologies[0].stage == stage and apologies[0].lang == "de"
    assert "Entschuldigung" in apologies[0].text
    # the trace records it
    failed = [s for s in tracer._instants if s.name == "stage_failed"]
    assert failed and failed[0].args["stage"] == stage and failed[0].turn == 1
    # the next turn is answered, within 2 s of the visitor's last word
    assert [m.turn for m in metrics] == [2]
    assert metrics[0].reply == FakeAnswerer().reply and metrics[0].voice_to_voice_ms < 2000
    # nothing piled up: a hang leaves its one abandoned call, nothing else stays behind
    assert left <= (1 if kind == "hang" else 0)
    if kind == "hang":
        abandoned = [s for s in tracer._instants if s.name == "stage_abandoned"]
        assert abandoned and abandoned[0].args["stage"] == stage
        assert errors[0].restarted  # a fresh instance answered the next turn
        assert faulty.fault.calls == 1  # nothing ever waited on the hung instance's lock


@pytest.mark.parametrize("kind", ["hang", "raise"])
def test_a_faulty_playback_loses_one_turn_and_a_fresh_sink_plays_the_next(kind):
    sink = FaultySink(kind)
    fresh = FakeSink()
    cfg = config.load(sets=["asr.partial_interval_ms=0", f"pipeline.stage_timeout_s={TIMEOUT_S}"], env={})
    rec, tracer = Recorder(), Tracer()
    before = len(stage_threads())
    loop = VoiceLoop(cfg, ScriptedSource(4.2), sink, FakeAnswerer(), FakeASR(delay=0.01),
                     FakeTTS(clause_seconds=0.2), tracer, endpointer=ScriptedEndpointer(list(TWO_TURNS)),
                     renew={"sink": lambda: fresh})
    loop.subscribe(rec)
    try:
        metrics = loop.run_until_done(timeout=30)
        left = len(stage_threads()) - before
    finally:
        sink.fault.release.set()
    assert rec.of(ev.StageError)[0].stage == "output" and rec.of(ev.Apology)[0].turn == 1
    assert [m.turn for m in metrics] == [2] and metrics[0].voice_to_voice_ms < 2000
    assert left <= (1 if kind == "hang" else 0)
    if kind == "hang":  # the hung sink was replaced: the apology and the next reply play on the fresh one
        assert loop.sink is fresh and len(fresh.played) >= 3
    else:  # a sink that raised once is used again
        assert loop.sink is sink and len(sink.played) >= 3


def test_a_hung_asr_with_its_lock_held_does_not_deafen_the_next_turns():
    asr = FaultyASR("hang")
    before = len(stage_threads())
    try:
        loop, rec, tracer, metrics = run_two_turns(asr=asr)
        assert len(stage_threads()) - before == 1  # the abandoned call only, however many turns follow
        assert asr.fault.calls == 1  # the next turn never called into the hung instance
        assert loop.asr is not asr  # it was replaced by a fresh one
    finally:
        asr.fault.release.set()
    assert [m.turn for m in metrics] == [2]


def test_a_hung_stage_without_a_replacement_fails_fast_and_is_used_again_once_free():
    fault = Fault("hang")
    watched = WatchedStage("asr", fault, timeout_s=0.2, tracer=Tracer())
    before = len(stage_threads())
    call = lambda f: f.strike({})  # noqa: E731
    with pytest.raises(StageTimeout):
        watched.call(call, CancelToken())
    with pytest.raises(StageUnavailable):  # at once: it never queues behind the hung call's lock
        watched.call(call, CancelToken())
    assert len(stage_threads()) - before == 1
    fault.release.set()
    for t in stage_threads():
        t.join(2)
    assert watched.call(call, CancelToken()) == (False, None)  # the old instance is free again
    assert len(stage_threads()) == before


def test_a_cancelled_call_that_never_returns_counts_as_hung_once_past_its_limit():
    fault = Fault("hang")
    tracer = Tracer()
    watched = WatchedStage("asr", fault, timeout_s=0.2, tracer=tracer)
    token = CancelToken()
    threading.Timer(0.05, token.cancel).start()
    with pytest.raises(Cancelled):
        watched.call(lambda f: f.strike({}), token)
    threading.Event().wait(0.3)  # past the cancelled call's own limit, and it still holds the lock
    try:
        with pytest.raises(StageUnavailable):  # at once, not after waiting out the lock
            watched.call(lambda f: f.strike({}), CancelToken())
        assert [s.args["reason"] for s in tracer._instants if s.name == "stage_abandoned"] == \
            ["a cancelled call never returned"]
    finally:
        fault.release.set()


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1", "soon", None, True])
def test_a_timeout_that_would_switch_the_watchdog_off_is_refused(value):
    with pytest.raises(ConfigError, match="pipeline.stage_timeout_s"):
        checked_timeout(float(value) if value in ("nan", "inf", "-inf", "0", "-1") else value)


def test_the_voice_loop_refuses_a_nan_timeout_naming_the_key():
    cfg = config.load(sets=["asr.partial_interval_ms=0"], env={})
    cfg.pipeline = dataclasses.replace(cfg.pipeline, stage_timeout_s=float("nan"))  # past the settings' own check
    with pytest.raises(ConfigError, match="pipeline.stage_timeout_s"):
        VoiceLoop(cfg, ScriptedSource(0.1), FakeSink(), FakeAnswerer(), FakeASR(), FakeTTS(), Tracer(),
                  endpointer=ScriptedEndpointer([]))
