"""A piper voice's optimized graph is kept under <models>/.cache/piper/ (issue 12, cold start): a
later start loads it instead of optimizing the voice again, it speaks exactly as the voice does,
and a damaged or stale cache file is never used: the voice file is the reference."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from avatar import config
from avatar.tts import piper_engine
from avatar.tts.voices import choose_voice


@pytest.fixture
def voice(tmp_path, monkeypatch):
    """The English voice's (model, config); the cache goes to a models folder of the test's own."""
    monkeypatch.setenv("AVATAR_MODELS", str(tmp_path / "models"))
    info = choose_voice(config.load(env={}).tts, "en")
    if info is None or info.engine != "piper":
        pytest.skip("no piper voice installed")
    return Path(info.model), Path(info.config)


def _cache_files(tmp_path) -> list[Path]:
    return sorted((tmp_path / "models" / piper_engine.CACHE_DIR).glob("*.onnx"))


def _speak(session) -> list[np.ndarray]:
    """The graph's outputs for a fixed phoneme sequence without noise (so the same graph gives the same samples)."""
    ids = np.array([[1, 0, 20, 0, 35, 0, 41, 0, 59, 0, 3, 0, 2]], dtype=np.int64)
    feeds = {"input": ids, "input_lengths": np.array([ids.shape[1]], dtype=np.int64),
             "scales": np.array([0.0, 1.0, 0.0], dtype=np.float32)}
    names = {i.name for i in session.get_inputs()}
    return session.run(None, {k: v for k, v in feeds.items() if k in names})


def test_the_second_load_uses_the_cached_graph_and_speaks_the_same(voice, tmp_path, monkeypatch):
    model, _ = voice
    plain = piper_engine._voice_session(model, True, 1, cache=False)
    assert _cache_files(tmp_path) == []
    first = piper_engine._voice_session(model, True, 1)  # optimizes and saves
    saved = _cache_files(tmp_path)
    assert len(saved) == 1 and saved[0].with_suffix(".json").is_file()
    assert not list(saved[0].parent.glob("*.partial"))

    def no_rebuild(*a, **k):
        raise AssertionError("the voice was optimized again although its cached graph is good")

    monkeypatch.setattr(piper_engine, "_voice_graph", no_rebuild)
    cached = piper_engine._voice_session(model, True, 1)
    assert cached.get_session_options().enable_cpu_mem_arena is False  # our options, also from the cache
    for a, b, c in zip(_speak(plain), _speak(first), _speak(cached)):
        assert np.array_equal(a, b) and np.array_equal(a, c)


def test_a_damaged_cache_file_is_not_used_and_is_made_again(voice, tmp_path, monkeypatch):
    model, _ = voice
    piper_engine._voice_session(model, True, 1)
    (saved,) = _cache_files(tmp_path)
    stat = saved.stat()
    data = bytearray(saved.read_bytes())
    for i in range(len(data) - 64, len(data) - 32):  # weights, not the header: it would still load
        data[i] ^= 0xFF
    saved.write_bytes(bytes(data))
    os.utime(saved, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size and mtime: only the hash tells
    rebuilt = []
    real = piper_engine._voice_graph
    monkeypatch.setattr(piper_engine, "_voice_graph", lambda *a: rebuilt.append(a) or real(*a))
    session = piper_engine._voice_session(model, True, 1)
    assert rebuilt, "a damaged cached graph was loaded"
    assert _speak(session)[0].size > 0
    assert piper_engine._cached_session(piper_engine._cache_entry(model, True), 1) is not None  # repaired


def test_a_changed_voice_file_is_not_answered_from_the_old_cache(voice, tmp_path):
    model, config_file = voice
    copy = tmp_path / "voice" / model.name
    copy.parent.mkdir()
    copy.write_bytes(model.read_bytes())
    piper_engine._voice_session(copy, True, 1)
    entry = piper_engine._cache_entry(copy, True)
    assert piper_engine._cached_session(entry, 1) is not None
    copy.write_bytes(b"not an onnx model")  # the voice replaced: another size and mtime
    assert piper_engine._cache_entry(copy, True)[1] != entry[1]
    assert piper_engine._cached_session(piper_engine._cache_entry(copy, True), 1) is None
    with pytest.raises(Exception):
        piper_engine._voice_session(copy, True, 1)  # the voice itself is loaded, and fails (ModelError in _load)


def test_a_read_only_models_folder_still_loads_the_voice(voice, tmp_path, monkeypatch):
    model, _ = voice
    blocked = tmp_path / "models"
    blocked.write_text("a file where the models folder would be")  # mkdir of the cache fails
    session = piper_engine._voice_session(model, True, 1)
    assert _speak(session)[0].size > 0
