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


# --- the streaming cut (tts.stream) --------------------------------------------------------------

@pytest.fixture
def split(monkeypatch):
    """Each load cuts (or reads) the voice anew: the per-process memo of cuts emptied."""
    monkeypatch.setattr(piper_engine, "_SPLIT", {})

    def load(model, voice):
        piper_engine._SPLIT.clear()
        return piper_engine._load_streamer(model, voice, 1)
    return load


def _stream_dirs(tmp_path) -> list[Path]:
    return sorted(p for p in (tmp_path / "models" / piper_engine.CACHE_DIR).glob("*-stream-*") if p.is_dir())


def _windows(streamer, voice) -> np.ndarray:
    """The streamed audio of fixed latent frames: the same cut gives the same samples."""
    ids = voice.phonemes_to_ids(voice.phonemize("Welcome to the museum, the cloakroom is downstairs.")[0])
    latent, mask, _ = streamer.front(ids, np.array([0.0, 1.0, 0.0], np.float32))
    return np.concatenate(list(streamer.stream(latent, mask, first=10)))


def _refuse_to_cut(monkeypatch):
    from avatar.tts import piper_stream

    def refuse(*a, **k):
        raise AssertionError("the voice was cut again although its cached cut is good")

    monkeypatch.setattr(piper_stream, "split_voice", refuse)
    monkeypatch.setattr(piper_stream, "check_windows", refuse)


def test_the_second_start_streams_from_the_cached_cut_with_the_same_audio_and_level(voice, tmp_path, monkeypatch, split):
    pytest.importorskip("onnx")
    model, config_file = voice
    loaded = piper_engine._load(model, config_file, True, 1)
    first, problem = split(model, loaded)
    assert first is not None, problem
    (saved,) = _stream_dirs(tmp_path)
    assert sorted(p.name for p in saved.iterdir()) == ["decoder.onnx", "flow.onnx", "front.onnx", "meta.json"]
    _refuse_to_cut(monkeypatch)
    second, problem = split(model, loaded)
    assert second is not None and second is not first, problem
    assert second.gain == first.gain  # one level for the voice from start to start, not a new noise draw each time
    assert second.parts == first.parts
    assert np.array_equal(_windows(first, loaded), _windows(second, loaded))


def test_a_damaged_cached_cut_is_not_used_and_is_made_again(voice, tmp_path, monkeypatch, split):
    pytest.importorskip("onnx")
    model, config_file = voice
    loaded = piper_engine._load(model, config_file, True, 1)
    reference = _windows(split(model, loaded)[0], loaded)
    (saved,) = _stream_dirs(tmp_path)
    flow = saved / "flow.onnx"
    data = bytearray(flow.read_bytes())
    for i in range(len(data) - 64, len(data) - 32):
        data[i] ^= 0xFF
    flow.write_bytes(bytes(data))
    from avatar.tts import piper_stream

    cuts = []
    real = piper_stream.split_voice
    monkeypatch.setattr(piper_stream, "split_voice", lambda m: cuts.append(1) or real(m))
    again, problem = split(model, loaded)
    assert cuts, "a damaged cached cut was loaded"
    assert again is not None, problem
    assert np.array_equal(reference, _windows(again, loaded))
    _refuse_to_cut(monkeypatch)
    assert split(model, loaded)[0] is not None  # repaired: the next start reads it again


def test_a_changed_voice_replaces_its_old_cache_entries(voice, tmp_path, split):
    pytest.importorskip("onnx")
    model, config_file = voice
    copy = tmp_path / "voice" / model.name
    copy.parent.mkdir()
    copy.write_bytes(model.read_bytes())
    loaded = piper_engine._load(copy, config_file, True, 1)
    split(copy, loaded)
    old = _cache_files(tmp_path) + _stream_dirs(tmp_path)
    assert len(old) == 2
    removed = tmp_path / "removed" / model.name  # a voice uninstalled since its graph was cached
    removed.parent.mkdir()
    removed.write_bytes(model.read_bytes())
    piper_engine._voice_session(removed, True, 1)
    old += [p for p in _cache_files(tmp_path) if p not in old]
    assert len(old) == 3
    removed.unlink()
    stat = copy.stat()
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # the voice installed again
    piper_engine._voice_session(copy, True, 1)
    split(copy, loaded)
    new = _cache_files(tmp_path) + _stream_dirs(tmp_path)
    assert len(new) == 2 and not set(new) & set(old)  # one entry each, the stale ones gone
    assert all(not p.exists() for p in old)


def test_a_read_only_models_folder_still_streams(voice, tmp_path, split):
    pytest.importorskip("onnx")
    model, config_file = voice
    loaded = piper_engine._load(model, config_file, True, 1)
    (tmp_path / "models").write_text("a file where the models folder would be")
    streamer, problem = split(model, loaded)
    assert streamer is not None, problem
    assert _windows(streamer, loaded).size > 0
