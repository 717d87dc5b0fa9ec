"""Speech synthesis: both languages speak, visemes fit the audio, fallbacks are reported, not silent."""
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from avatar import config
from avatar.cancel import CancelToken, Cancelled
from avatar.cli import main
from avatar.pipeline.turn_runner import join_chunks
from avatar.tts import visemes
from avatar.tts.synthesizer import Synthesizer
from avatar.tts.voices import choose_voice
from avatar.tts.visemes import VISEMES

SENTENCES = {
    "de": "Heute haben wir von 10:00 bis 18:00 Uhr geöffnet, der Eintritt kostet 9 €. Das Café ist im Erdgeschoss.",
    "en": "Today we are open from 10:00 to 18:00, and admission is 9 € for adults. The café is on the ground floor.",
}


@pytest.fixture(scope="module")
def cfg():
    return config.load(env={})


@pytest.fixture(scope="module")
def tts(cfg):
    return Synthesizer(cfg.tts)


@pytest.mark.parametrize("lang", ["de", "en"])
def test_say_writes_a_non_silent_wav_at_the_voice_rate(tmp_path, tts, lang, capsys):
    out = tmp_path / f"{lang}.wav"
    assert main(["say", SENTENCES[lang], "--lang", lang, "-o", str(out)]) == 0
    pcm, rate = sf.read(str(out), dtype="int16")
    assert rate == tts._engine(lang).sample_rate
    assert len(pcm) / rate > 2.0
    assert np.sqrt(np.mean(pcm.astype(np.float64) ** 2)) > 300  # clearly not silence
    printed = capsys.readouterr().out
    assert ("SVOX Pico" in printed) == (lang == "de")  # the voice in use is said


def _clause_at(pieces, i):
    """The pieces of the clause that starts at pieces[i]."""
    out = [pieces[i]]
    for p in pieces[i + 1:]:
        if p.part == 0:
            break
        out.append(p)
    return out


@pytest.mark.parametrize("lang", ["de", "en"])
def test_each_clause_speaks_with_visemes_inside_the_audio(tts, lang):
    pieces = list(tts.synthesize(SENTENCES[lang], lang))
    for piece in pieces:  # a streamed clause comes in pieces: each piece's mouth shapes lie inside it
        for offset, duration, _ in piece.visemes:
            assert 0 <= offset and duration > 0 and offset + duration <= piece.duration_s + 1e-3
    assert all(bool(p.text) == (p.part == 0) for p in pieces)
    chunks = [join_chunks(_clause_at(pieces, i))
              for i, p in enumerate(pieces) if p.part == 0]
    assert len(chunks) >= 2
    for chunk in chunks:
        assert chunk.pcm.dtype == np.int16 and chunk.lang == lang
        assert chunk.visemes, chunk.text
        shapes = {v for _, _, v in chunk.visemes}
        assert shapes <= set(VISEMES) and len(shapes - {"rest"}) >= 3
        for offset, duration, _ in chunk.visemes:
            assert 0 <= offset and duration > 0 and offset + duration <= chunk.duration_s + 1e-3
        starts = [o for o, _, _ in chunk.visemes]
        assert starts == sorted(starts)
    spoken = " ".join(c.spoken for c in chunks[:2])
    assert "18 Uhr" in spoken or "6 p.m." in spoken


def test_a_slow_voice_speaks_a_long_first_clause_in_two_breaths(cfg):
    """piper spoken whole takes ~5 ms per character: the first clause is cut at a phrase boundary;
    espeak is not."""
    tts = Synthesizer(cfg.with_overrides({"tts.stream": False}).tts)
    en = list(tts.synthesize(SENTENCES["en"], "en"))
    assert en[0].text == "Today we are open" and len(en[0].text) <= tts.first_breath_chars
    assert " ".join(c.text for c in en).replace(" ,", ",") == SENTENCES["en"]
    de = list(tts.synthesize(SENTENCES["de"], "de"))
    assert de[0].text.startswith("Heute haben wir von 10:00 bis 18:00 Uhr geöffnet")  # espeak: 3 ms, no need
    # every chunk starts speaking at once: the voice's leading silence is gone
    for chunk in en + de:
        loud = np.flatnonzero(np.abs(chunk.pcm.astype(np.int32)) > 200)
        assert loud[0] / chunk.sample_rate <= 0.015


def test_streamed_text_is_spoken_as_the_same_clauses(tts):
    text = SENTENCES["de"]
    pieces = [text[i:i + 4] for i in range(0, len(text), 4)]
    streamed = [c.text for c in tts.synthesize_stream(pieces, "de")]
    assert streamed == [c.text for c in tts.synthesize(text, "de")]


def test_cancel_stops_synthesis_between_clauses(tts):
    token = CancelToken()
    chunks = tts.synthesize(SENTENCES["de"], "de", cancel=token)
    next(chunks)
    token.cancel("barge-in")
    with pytest.raises(Cancelled):
        next(chunks)


def test_german_without_a_piper_voice_speaks_pico_and_espeak_is_a_reported_fallback(cfg, tmp_path, monkeypatch):
    info = choose_voice(cfg.tts, "de", folder=tmp_path)
    assert (info.name, info.engine, info.fallback) == ("SVOX Pico de-DE", "pico", False)
    robotic = choose_voice(cfg.with_overrides({"tts.engines_de": ["espeak"]}).tts, "de", folder=tmp_path)
    assert robotic.engine == "espeak-ng" and robotic.fallback
    assert "German" in robotic.message and "models/" in robotic.message
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "py_nanotts" else real(name, *a))
    assert choose_voice(cfg.tts, "de", folder=tmp_path).engine == "espeak-ng"  # py-nanotts not installed
    english = choose_voice(cfg.tts, "en", folder=tmp_path)
    assert english.engine == "piper" and not english.fallback and english.name == "en_US-joe-medium"


def test_a_piper_voice_in_models_is_chosen_by_the_language_in_its_json(cfg, tmp_path):
    joe = choose_voice(cfg.tts, "en", folder=tmp_path)
    (tmp_path / "de_DE-test-medium.onnx").symlink_to(joe.model)
    data = json.loads(Path(joe.config).read_text())
    data["language"] = {"code": "de_DE"}
    (tmp_path / "de_DE-test-medium.onnx.json").write_text(json.dumps(data))
    info = choose_voice(cfg.tts, "de", folder=tmp_path)
    assert (info.name, info.engine, info.fallback) == ("de_DE-test-medium", "piper", False)


def test_a_configured_voice_that_is_missing_is_named_in_the_message(cfg, tmp_path):
    tts_cfg = cfg.with_overrides({"tts.german_voice": "de_DE-thorsten-medium"}).tts
    info = choose_voice(tts_cfg, "de", folder=tmp_path)
    assert info.engine == "pico" and "tts.german_voice" in info.message and "de_DE-thorsten-medium" in info.message


def test_phonemes_map_to_the_small_viseme_set():
    assert [visemes.viseme_of(p) for p in ["m", "b", "f", "v", "l", "ˈa", "eː", "i", "ɔ", "u", "s", " "]] == [
        "M", "M", "F", "F", "L", "A", "E", "I", "O", "U", "S", "rest"]
    assert visemes.viseme_of("ˈ") is None  # a stress mark lengthens the shape before it
    track = visemes.from_phonemes(list("hallo"), 1.0)
    assert track[0][0] == 0.0 and abs(sum(d for _, d, _ in track) - 1.0) < 1e-3
    silent = visemes.from_loudness(np.zeros(16000, np.int16), 16000)
    assert {v for _, _, v in silent} == {"rest"}


def test_without_phoneme_timings_visemes_are_spread_over_the_phonemes(cfg):
    tts = Synthesizer(cfg.with_overrides({"tts.alignments": False}).tts)
    chunk = join_chunks(list(tts.synthesize("Welcome to the museum.", "en")))  # one clause, maybe in pieces
    assert not tts._engine("en").alignments
    assert len(chunk.visemes) >= 5
    last_offset, last_duration, _ = chunk.visemes[-1]
    assert abs(last_offset + last_duration - chunk.duration_s) < 0.01  # spread over the whole clause


def test_a_repeated_clause_is_replayed_from_the_cache(cfg):
    tts = Synthesizer(cfg.with_overrides({"tts.cache_clauses": 4}).tts)
    first = next(tts.synthesize("Das weiß ich leider nicht.", "de"))
    again = next(tts.synthesize("Das weiß ich leider nicht.", "de"))
    assert not first.cached and again.cached
    assert np.array_equal(first.pcm, again.pcm) and again.visemes == first.visemes
    uncached = Synthesizer(cfg.with_overrides({"tts.cache_clauses": 0}).tts)
    assert not next(uncached.synthesize("Das weiß ich leider nicht.", "de")).cached


def test_a_corrupt_piper_voice_is_a_clear_model_error(cfg, tmp_path, monkeypatch):
    from avatar.errors import ModelError

    joe = choose_voice(cfg.tts, "en", folder=tmp_path)
    (tmp_path / "de_DE-broken-medium.onnx").write_bytes(b"not an onnx model")
    data = json.loads(Path(joe.config).read_text())
    data["language"] = {"code": "de_DE"}
    (tmp_path / "de_DE-broken-medium.onnx.json").write_text(json.dumps(data))
    monkeypatch.setenv("AVATAR_MODELS", str(tmp_path))
    with pytest.raises(ModelError) as err:
        next(Synthesizer(cfg.tts).synthesize("Hallo.", "de"))
    assert "de_DE-broken-medium.onnx" in err.value.message and err.value.hint


def test_the_piper_voice_runs_without_a_memory_arena_that_only_grows(cfg):
    """onnxruntime's arena keeps the memory of the longest piece ever spoken for good (issue 13):
    the voice's session is opened without it, so freed audio buffers go back to the system."""
    from avatar.tts.piper_engine import PiperEngine

    engine = PiperEngine(choose_voice(cfg.tts, "en"))
    assert engine.voice.session.ready().get_session_options().enable_cpu_mem_arena is False
    pcm, _ = engine.synthesize("The café is on the ground floor.")
    assert len(pcm) > 0 and np.abs(pcm).max() > 0
    streaming = PiperEngine(choose_voice(cfg.tts, "en"), stream=True)
    if streaming.streamer is not None:  # the cut parts are sessions of the same kind
        for part in (streaming.streamer._front, streaming.streamer._flow, streaming.streamer._decoder):
            assert part.get_session_options().enable_cpu_mem_arena is False
