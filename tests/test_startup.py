"""Start-up (issue 12, cold start): the stages load side by side, and a damaged model file still
stops the kiosk before anything can answer a visitor, with the file named and no traceback."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading

import pytest

from avatar import config
from avatar.errors import ModelError
from avatar.paths import ROOT
from avatar.pipeline import build


class FakeASR:
    def __init__(self, log: list, fail: Exception | None = None, gate: threading.Event | None = None):
        if gate is not None:
            gate.wait(10)
        if fail is not None:
            raise fail
        self.log, self.warm, self.vocabulary = log, False, None
        log.append(("asr", threading.current_thread().name))

    def warmup(self):
        self.warm = True
        self.log.append(("asr.warmup", threading.current_thread().name))

    def set_vocabulary(self, words):
        self.vocabulary = words


class FakeTTS:
    log: list = []

    def __init__(self, cfg):
        self.warm = False

    def voice_for(self, lang):
        return None

    def warmup(self):
        self.warm = True
        FakeTTS.log.append(("tts.warmup", threading.current_thread().name))


class FakeAnswerer:
    pack = None

    def __init__(self, log):
        self.log, self.warm = log, False

    def warmup(self):
        self.warm = True
        self.log.append(("answerer.warmup", threading.current_thread().name))


@pytest.fixture
def fakes(monkeypatch):
    """load_stages with fake stages: (log, settings) — the ASR fake is chosen per test via build._new_asr."""
    import avatar.answer
    import avatar.tts.synthesizer

    log: list = []
    FakeTTS.log = log
    monkeypatch.setattr(avatar.tts.synthesizer, "Synthesizer", FakeTTS)
    monkeypatch.setattr(avatar.answer, "make_answerer", lambda *a, **k: (FakeAnswerer(log), None))
    return log


def _load(sets=()):
    cfg = config.load(sets=["asr.venue_prompt=false", *sets], env={})
    return build.load_stages(cfg)


def _load_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("load-")]


@pytest.mark.parametrize("parallel", [True, False])
def test_every_stage_is_loaded_and_warmed_before_load_stages_returns(fakes, monkeypatch, parallel):
    gate = threading.Event()  # the recognizer takes its time: load_stages must wait for it
    monkeypatch.setattr(build, "_new_asr", lambda cfg: FakeASR(fakes, gate=gate))
    threading.Timer(0.2, gate.set).start()
    stages = _load([f"pipeline.parallel_load={str(parallel).lower()}"])
    assert stages.asr.warm and stages.tts.warm and stages.answerer.warm
    assert not _load_threads()
    where = dict(fakes)
    if parallel:  # the recognizer and the voices on threads of their own, the answerer on the caller's
        assert where["asr"] == where["asr.warmup"] == "load-asr" and where["tts.warmup"] == "load-tts"
        assert where["answerer.warmup"] == threading.current_thread().name
    else:
        assert set(where.values()) == {threading.current_thread().name}


@pytest.mark.parametrize("parallel", [True, False])
def test_a_damaged_recognizer_model_stops_the_start_with_its_own_error(fakes, monkeypatch, parallel):
    damaged = ModelError("models/whisper-base/model.bin is corrupt (sha256 0000… instead of 905e…)",
                         hint="run `avatar models assemble`")
    monkeypatch.setattr(build, "_new_asr", lambda cfg: FakeASR(fakes, fail=damaged))
    with pytest.raises(ModelError) as info:
        _load([f"pipeline.parallel_load={str(parallel).lower()}"])
    assert info.value is damaged
    assert not _load_threads()  # nothing left loading behind the error


@pytest.mark.parametrize("parallel", [True, False])
def test_the_recognizers_error_comes_first_when_the_answerer_fails_too(fakes, monkeypatch, parallel):
    import avatar.answer

    damaged = ModelError("model.bin is corrupt")

    def broken_answerer(*a, **k):
        raise RuntimeError("answerer broke")

    monkeypatch.setattr(build, "_new_asr", lambda cfg: FakeASR(fakes, fail=damaged))
    monkeypatch.setattr(avatar.answer, "make_answerer", broken_answerer)
    with pytest.raises(ModelError, match="corrupt"):
        _load([f"pipeline.parallel_load={str(parallel).lower()}"])
    monkeypatch.setattr(build, "_new_asr", lambda cfg: FakeASR(fakes))
    with pytest.raises(RuntimeError, match="answerer broke"):  # and the answerer's own when only it fails
        _load([f"pipeline.parallel_load={str(parallel).lower()}"])
    assert not _load_threads()


def _models_with_damaged_whisper(tmp_path):
    """AVATAR_MODELS: the shipped manifest and embedded model, and a whisper-base folder whose
    model.bin is not the one the manifest lists (the other files are the real ones, or stand-ins)."""
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy2(ROOT / "models" / "manifest.toml", models / "manifest.toml")
    shutil.copytree(ROOT / "models" / "avatar-mdlm", models / "avatar-mdlm")
    whisper = models / "whisper-base"
    whisper.mkdir()
    for name in ("config.json", "tokenizer.json", "vocabulary.json"):
        (whisper / name).write_text("{}")
    (whisper / "model.bin").write_bytes(b"\x00" * 4096)
    return models


@pytest.mark.parametrize("parallel", ["true", "false"])
def test_the_kiosk_refuses_to_start_on_a_damaged_model_file_without_a_traceback(tmp_path, parallel):
    models = _models_with_damaged_whisper(tmp_path)
    env = {**os.environ, "AVATAR_MODELS": str(models), "QT_QPA_PLATFORM": "offscreen"}
    wav = ROOT / "assets" / "samples" / "venue" / "en" / "where_are_the_toilets.wav"
    done = subprocess.run([sys.executable, "-m", "avatar", "--set", f"pipeline.parallel_load={parallel}",
                           "run", "--headless", "--input", str(wav)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert "model.bin" in done.stderr and "corrupt" in done.stderr and "avatar models assemble" in done.stderr
    assert "Traceback" not in out
    assert "ready to listen" not in out  # never went live
