"""Freed memory goes back to the system when a visitor leaves (glibc's malloc_trim)."""
import sys

import numpy as np
import pytest

from avatar import config, sysmem
from avatar import events as ev
from avatar_dev.bench.soak import rss_mb
from avatar.pipeline.voice_loop import VoiceLoop
from avatar.trace import Tracer

from fakes import END, SPEECH, TENTATIVE, FakeASR, FakeAnswerer, FakeSink, FakeTTS, Recorder, ScriptedEndpointer, ScriptedSource


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_trim_gives_freed_heap_back():
    blocks = [np.ones(4096, np.uint8).tobytes() * 1 for _ in range(20_000)]  # ~80 MB in small pieces
    keep = blocks[::50]  # a few stay: the freed ones are scattered between them
    del blocks
    before = rss_mb()
    assert sysmem.trim()
    assert rss_mb() < before - 20, (before, rss_mb())
    assert keep


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_the_arena_limit_is_taken_by_glibc():
    import os

    assert sysmem.limit_arenas(8 * (os.cpu_count() or 1))  # glibc's own default: the test run is not changed


def test_the_loop_trims_when_the_visitor_leaves(monkeypatch):
    calls = []
    monkeypatch.setattr(sysmem, "trim", lambda: calls.append(1) or True)
    cfg = config.load(sets=["asr.partial_interval_ms=0", "pipeline.visitor_timeout_s=1.0"], env={})
    rec = Recorder()
    loop = VoiceLoop(cfg, ScriptedSource(3.5), FakeSink(), FakeAnswerer(), FakeASR(), FakeTTS(), Tracer(),
                     endpointer=ScriptedEndpointer([(0.1, SPEECH), (0.8, TENTATIVE), (1.1, END)]))
    loop.subscribe(rec)
    loop.run_until_done(timeout=20)
    assert rec.of(ev.VisitorLeft) and calls == [1]


def test_the_onednn_cache_bound_is_set_unless_the_user_chose(monkeypatch):
    monkeypatch.delenv(sysmem.ONEDNN_CACHE_VAR, raising=False)
    assert sysmem.bound_onednn_cache() == sysmem.ONEDNN_CACHE_CAPACITY
    import os

    assert os.environ[sysmem.ONEDNN_CACHE_VAR] == str(sysmem.ONEDNN_CACHE_CAPACITY)
    monkeypatch.setenv(sysmem.ONEDNN_CACHE_VAR, "256")
    assert sysmem.bound_onednn_cache() == 256 and os.environ[sysmem.ONEDNN_CACHE_VAR] == "256"
