"""Replies prepared ahead (tts.prefill): the venue's facts and the answerer's fixed lines are
synthesized while the kiosk is idle, replayed at once when a reply says them, and the preparing
never stands in a visitor's way."""
import threading
import time

import numpy as np
import pytest

from avatar import config
from avatar.answer.knowledge import load_pack
from avatar.answer.retrieval_answerer import RetrievalAnswerer
from avatar.pipeline.reply_prefill import ReplyPrefill, usual_lines
from avatar.trace import Tracer
from avatar.tts.synthesizer import Synthesizer

FACT = "The café is on the ground floor, next to the shop. Dogs are not allowed in the galleries."


@pytest.fixture(scope="module")
def cfg():
    return config.load(env={}).with_overrides({"tts.cache_clauses": 0})


def _piper_language(tts):
    lang = next((lang for lang in ("en", "de") if tts.worth_prefilling(lang)), None)
    if lang is None:
        pytest.skip("no piper voice installed")
    return lang


def test_a_prepared_reply_is_replayed_without_synthesis(cfg, monkeypatch):
    tts = Synthesizer(cfg.tts)
    lang = _piper_language(tts)
    keys = tts.prefill_keys([(lang, FACT)])
    assert len(keys) >= 2 and all(k[0] == lang for k in keys)  # one key per clause
    report = tts.prefill(keys)
    assert (report.held, report.made, report.wanted, report.stopped) == (len(keys), len(keys), len(keys), False)
    prepared = {k[1]: tts._prefilled[k] for k in keys}
    engine = tts._engine(lang)
    monkeypatch.setattr(engine, "pieces", lambda text: (_ for _ in ()).throw(AssertionError("synthesized again")))
    monkeypatch.setattr(engine, "synthesize", lambda text: (_ for _ in ()).throw(AssertionError("synthesized again")))
    chunks = list(tts.synthesize(FACT, lang))
    assert [c.text for c in chunks] == [k[1] for k in keys]
    assert all(c.cached for c in chunks)
    for c in chunks:
        assert np.array_equal(c.pcm, prepared[c.text].pcm) and len(c.pcm) > 1000
    # a reply the prefill never saw is synthesized as before
    monkeypatch.undo()
    other = list(tts.synthesize("The shop closes at five.", lang))
    assert other and not any(c.cached for c in other)


def test_every_replys_first_clause_is_prepared_before_any_second_one(cfg):
    tts = Synthesizer(cfg.tts)
    lang = _piper_language(tts)
    lines = [(lang, FACT), (lang, "Please ask our staff at the ticket desk, they will help you."), (lang, "Welcome!")]
    keys = tts.prefill_keys(lines)
    firsts = [tts.prefill_keys([line])[0] for line in lines]
    assert keys[:3] == firsts  # the visitor waits only for a reply's first audio
    assert len(keys) > 3 and set(keys) == {k for line in lines for k in tts.prefill_keys([line])}


def test_a_voice_that_starts_at_once_is_not_prepared(cfg):
    tts = Synthesizer(cfg.tts)
    keys = tts.prefill_keys([("de", "Das Café ist im Erdgeschoss."), ("en", "The café is on the ground floor.")])
    for lang in ("de", "en"):
        fast = tts.voice_for(lang).engine == "espeak-ng"
        assert fast == (not tts.worth_prefilling(lang))
        assert any(k[0] == lang for k in keys) == (not fast)
    assert tts.prefill_keys([("en", ""), ("en", "   ")]) == []
    assert not tts.worth_prefilling("fr")  # no voice at all: nothing to prepare, no error


def test_a_visitor_stops_the_prefill_and_the_interrupted_clause_is_made_later(cfg):
    tts = Synthesizer(cfg.tts)
    lang = _piper_language(tts)
    keys = tts.prefill_keys([(lang, FACT), (lang, "Please ask our staff at the ticket desk.")])
    asked = []

    def visitor_after_first_clause():
        asked.append(1)
        return len(tts._prefilled) >= 1  # a visitor shows up once one clause is ready

    report = tts.prefill(keys, stop=visitor_after_first_clause)
    assert report.stopped and not report.complete
    assert report.held == 1 and len(tts._prefilled) == 1  # the clause it was on when stopped is not kept
    again = tts.prefill(keys)
    assert again.complete and again.held == len(keys) and again.made == len(keys) - 1


def test_clauses_no_longer_listed_are_let_go_and_the_audio_is_bounded(cfg):
    tts = Synthesizer(cfg.tts)
    lang = _piper_language(tts)
    old = tts.prefill_keys([(lang, "The old exhibition ends today.")])
    new = tts.prefill_keys([(lang, "The new exhibition opens tomorrow.")])
    tts.prefill(old)
    report = tts.prefill(new)  # the operator's edited pack no longer says the old line
    assert set(tts._prefilled) == set(new) and report.held == len(new)
    small = Synthesizer(cfg.with_overrides({"tts.prefill_max_s": 0.5}).tts)
    many = small.prefill_keys([(lang, FACT), (lang, "The shop closes at five.")])
    report = small.prefill(many)
    assert report.full and report.complete and 1 <= report.held < len(many)
    assert small.prefilled_seconds() < 0.5 + 4.0  # one clause past the bound at most
    off = Synthesizer(cfg.with_overrides({"tts.prefill_max_s": 0.0}).tts)
    assert off.prefill(many).held == 0


def test_the_answerer_lists_the_facts_and_fixed_lines_it_says_word_for_word(cfg):
    pack = load_pack("assets/venues/sample")
    answerer = RetrievalAnswerer(pack, cfg)
    for lang in ("de", "en"):
        lines = answerer.usual_replies(lang)
        facts = [f.text for f in pack.facts(lang)]
        assert facts and all(text in lines for text in facts)
        declined = answerer.answer("What is the meaning of life, the universe and everything?", lang)
        assert declined.reply in lines  # the decline, with the pack's help desk filled in
        assert "{" not in " ".join(lines)
    clock = answerer.answer("What time is it?", "en").reply
    assert clock not in answerer.usual_replies("en")  # changes by the minute
    assert answerer.usual_replies("fr") == []


class _FakeVoice:
    """Records what the worker asks; each clause takes `clause_s` and asks stop() halfway."""

    def __init__(self, clause_s=0.02):
        self.clause_s = clause_s
        self.held: dict = {}
        self.calls = 0

    def prefill_keys(self, lines):
        return [(lang, text, False) for lang, text in lines]

    def prefill(self, keys, stop=lambda: False):
        from avatar.tts.synthesizer import Prefill

        self.calls += 1
        self.held = {k: v for k, v in self.held.items() if k in keys}
        made = 0
        for key in keys:
            if key in self.held:
                continue
            if stop():
                return Prefill(len(self.held), made, len(keys), stopped=True)
            time.sleep(self.clause_s / 2)
            if stop():
                return Prefill(len(self.held), made, len(keys), stopped=True)
            time.sleep(self.clause_s / 2)
            self.held[key] = True
            made += 1
        return Prefill(len(self.held), made, len(keys))


class _FakeAnswerer:
    def __init__(self, lines):
        self.lines = lines

    def usual_replies(self, lang):
        if lang == "xx":
            raise RuntimeError("a pack that cannot render its facts")
        return self.lines.get(lang, [])


def _wait(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return False


def test_the_worker_prepares_only_while_the_kiosk_is_idle_and_follows_a_new_pack():
    voice = _FakeVoice()
    answerer = _FakeAnswerer({"en": [f"Fact {i}." for i in range(40)], "de": ["Fakt eins."]})
    idle = threading.Event()
    stopping = threading.Event()
    worker = ReplyPrefill(lambda: voice, lambda: answerer, ("de", "en", "xx"), idle=idle.is_set,
                          stopping=stopping, tracer=Tracer(), idle_s=0.1)
    worker.start()
    try:
        time.sleep(0.3)
        assert voice.held == {}  # a visitor is there: nothing is synthesized
        idle.set()
        assert _wait(lambda: len(voice.held) >= 3)
        idle.clear()  # a visitor starts to speak
        time.sleep(0.05)
        held = len(voice.held)
        time.sleep(0.3)
        assert len(voice.held) == held < 41  # stopped within a clause, not resumed while busy
        idle.set()
        assert _wait(lambda: len(voice.held) == 41)  # the language whose replies fail is skipped
        assert worker.last is not None and worker.last.complete
        answerer.lines = {"en": ["New fact."]}  # the operator's edited pack goes into use
        worker.refresh()
        assert _wait(lambda: set(voice.held) == {("en", "New fact.", False)})
    finally:
        stopping.set()
        worker.stop()
        worker.thread.join(2.0)
    assert not worker.thread.is_alive()


def test_the_worker_ends_at_once_for_a_voice_that_cannot_prepare():
    stopping = threading.Event()
    worker = ReplyPrefill(lambda: object(), lambda: _FakeAnswerer({}), ("en",), idle=lambda: True,
                          stopping=stopping, tracer=Tracer(), idle_s=0.0)
    worker.start()
    worker.thread.join(2.0)
    assert not worker.thread.is_alive()
    assert usual_lines(object(), ("en",)) == []  # a stand-in answerer says nothing word for word
