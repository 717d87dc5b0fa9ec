"""SVOX Pico, German's voice while no German piper voice is installed: the order of engines per
language, speech at the other voices' loudness, its mouth from espeak-ng's phonemes, a stop between
two reads, a damaged voice file refused, and a Pico that fails handing its language to espeak-ng."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("py_nanotts")

from avatar import config
from avatar.errors import ConfigError, ModelError
from avatar.tts import phoneme_warp, pico_engine
from avatar.tts.synthesizer import Synthesizer
from avatar.tts.voices import choose_voice

GERMAN = "Guten Tag, das Museum ist heute von 10 bis 18 Uhr geöffnet."


@pytest.fixture(scope="module")
def cfg():
    return config.load(env={})


def _loud_dbfs(pcm: np.ndarray, rate: int) -> float:
    """The level of the loud frames (the top half of 20 ms frames by energy)."""
    hop = rate // 50
    frames = pcm[: len(pcm) // hop * hop].astype(np.float64).reshape(-1, hop)
    energy = np.sort(np.mean(frames ** 2, axis=1))[len(frames) // 2:]
    return 10 * np.log10(np.mean(energy) / 32768 ** 2)


def test_pico_speaks_german_at_the_other_voices_level_with_a_moving_mouth(cfg):
    tts = Synthesizer(cfg.tts)
    chunk = tts.synthesize_clause(GERMAN, "de")
    assert chunk.voice == "SVOX Pico de-DE" and chunk.sample_rate == 16000
    assert chunk.duration_s > 2.0 and np.abs(chunk.pcm).max() < 32767  # speech, not clipped
    english = tts.synthesize_clause("Today we are open from ten to six, and admission is nine euros.", "en")
    assert abs(_loud_dbfs(chunk.pcm, 16000) - _loud_dbfs(english.pcm, english.sample_rate)) < 4.0
    shapes = {v for _, _, v in chunk.visemes}
    assert len(shapes - {"rest"}) >= 4  # the mouth follows the sounds, not one shape
    end = chunk.visemes[-1][0] + chunk.visemes[-1][1]
    speech_end = phoneme_warp.speech_runs(chunk.pcm, 16000)[-1][1]
    assert abs(end - speech_end) < 0.1  # the mouth closes when Pico's speech ends, not espeak-ng's
    assert chunk.duration_s < 4.8  # Pico's 0.9 s of silence after a sentence is cut to a short pause


def test_the_order_of_engines_is_a_setting_and_a_german_piper_voice_still_wins(cfg, tmp_path):
    joe = choose_voice(cfg.tts, "en", folder=tmp_path)
    assert choose_voice(cfg.tts, "de", folder=tmp_path).engine == "pico"
    (tmp_path / "de_DE-test-medium.onnx").symlink_to(joe.model)
    data = json.loads(Path(joe.config).read_text())
    data["language"] = {"code": "de_DE"}
    (tmp_path / "de_DE-test-medium.onnx.json").write_text(json.dumps(data))
    assert choose_voice(cfg.tts, "de", folder=tmp_path).engine == "piper"  # an imported voice wins
    pico_first = cfg.with_overrides({"tts.engines_de": ["pico", "piper"]}).tts
    assert choose_voice(pico_first, "de", folder=tmp_path).engine == "pico"
    with pytest.raises(ConfigError, match="engines_de"):
        config.load(env={}, sets=['tts.engines_de=["festival"]'])


def test_a_stop_between_two_reads_ends_the_clause_and_the_next_one_is_whole():
    pico = pico_engine._pico("de")
    assert pico.speak(GERMAN, stop=lambda: True).size == 0
    again = pico.speak(GERMAN)
    assert len(again) / pico_engine.SAMPLE_RATE > 2.0  # the engine was reset, nothing of the old text left


def test_markup_in_a_fact_is_read_as_text_not_obeyed():
    engine = pico_engine.PicoEngine("de", lip_sync=False)
    pcm, _ = engine.synthesize('Eintritt <volume level="500">frei</volume>')
    plain, _ = engine.synthesize("Eintritt frei")
    assert np.abs(pcm).max() < 32767  # a louder volume asked by a fact would clip
    assert _loud_dbfs(pcm, 16000) < _loud_dbfs(plain, 16000) + 3.0


def test_a_damaged_voice_file_is_refused_naming_it(tmp_path):
    folder = pico_engine.lingware("de")
    models = tmp_path / "models"
    copy = models / folder.name
    copy.mkdir(parents=True)
    for f in folder.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    (models / "manifest.toml").write_text((folder.parent / "manifest.toml").read_text())
    assert pico_engine.lingware("de", models) == copy
    damaged = copy / "de-DE_ta.bin"
    data = bytearray(damaged.read_bytes())
    data[1000] ^= 0xFF
    damaged.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="de-DE_ta.bin"):
        pico_engine.lingware("de", models)


def test_a_pico_that_fails_mid_reply_hands_german_to_espeak(cfg, monkeypatch, caplog):
    tts = Synthesizer(cfg.tts)
    tts.synthesize_clause("Hallo.", "de")  # Pico loaded and speaking

    def broken(self, text, stop=lambda: False):
        raise ModelError("SVOX Pico could not synthesize: test")

    monkeypatch.setattr(pico_engine._Pico, "speak", broken)
    chunk = tts.synthesize_clause(GERMAN, "de")
    assert chunk.voice.startswith("espeak-ng") and chunk.duration_s > 1.0  # the visitor still hears the reply
    assert "SVOX Pico failed" in tts.voice_for("de").message
    assert any("SVOX Pico failed" in r.getMessage() for r in caplog.records)


def test_phonemes_are_moved_stretch_by_stretch_onto_the_other_voices_pauses():
    rate = 16000
    tone = lambda s: (np.sin(np.arange(int(s * rate)) * 0.3) * 8000).astype(np.int16)  # noqa: E731
    gap = lambda s: np.zeros(int(s * rate), np.int16)  # noqa: E731
    source = np.concatenate([tone(0.5), gap(0.3), tone(0.5)])  # speech 0-0.5 and 0.8-1.3 s
    target = np.concatenate([gap(0.2), tone(1.0), gap(0.4), tone(0.6)])  # 0.2-1.2 and 1.6-2.2 s
    timed = [("a", 0.0, 0.5), ("b", 0.8, 0.5)]
    moved = phoneme_warp.warp_phonemes(timed, source, rate, target, rate)
    (pa, a0, ad), (pb, b0, bd) = moved
    assert (pa, pb) == ("a", "b")
    assert abs(a0 - 0.2) < 0.02 and abs(ad - 1.0) < 0.03 and abs(b0 - 1.6) < 0.02 and abs(bd - 0.6) < 0.03
    assert phoneme_warp.warp_phonemes(timed, source, rate, gap(1.0), rate) is None  # no speech: no track
