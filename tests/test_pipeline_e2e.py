"""The whole voice loop on real models: WAV in, endpointer, Whisper, retrieval, piper, WAV out."""
import numpy as np
import pytest
import soundfile as sf

from avatar import config
from avatar import events as ev
from avatar.asr.transcript_checks import normalize
from avatar.pipeline.build import build_voice_loop, load_stages
from avatar.trace import Tracer

QUESTION = "assets/samples/venue/en/where_are_the_toilets.wav"


@pytest.fixture(scope="module")
def setup():
    cfg = config.load(sets=["answer.kind=retrieval", "echo.enabled=false"], env={})
    tracer = Tracer()
    return cfg, tracer, load_stages(cfg, tracer)


def run(setup, wav, out):
    cfg, tracer, stages = setup
    loop = build_voice_loop(cfg, [wav], out, tracer, stages, tail_silence_s=1.5)
    seen = []
    loop.subscribe(seen.append)
    metrics = loop.run_until_done(timeout=60)
    return loop, metrics, seen


def test_turn_from_wav_in_to_wav_out(setup, tmp_path):
    out = tmp_path / "reply.wav"
    loop, metrics, seen = run(setup, QUESTION, out)
    assert len(metrics) == 1
    m = metrics[0]
    assert m.lang == "en" and "toilet" in m.transcript.lower()
    assert "toilet" in m.reply.lower()  # answered from the sample venue's facts
    assert sum(m.stages.values()) == pytest.approx(m.voice_to_voice_ms, abs=1.0)
    audio, rate = sf.read(out, dtype="int16")
    assert rate == 16000
    heard = np.nonzero(np.abs(audio) > 500)[0]
    assert len(heard) > rate // 2  # more than half a second of reply was played into the file
    assert any(isinstance(e, ev.PlaybackStopped) and e.reason == "done" for e in seen)


@pytest.mark.parametrize("kind", ["silence", "noise"])
def test_no_turn_from_silence_or_noise(setup, tmp_path, kind):
    wav = tmp_path / f"{kind}.wav"
    if kind == "silence":
        sf.write(wav, np.zeros(16000 * 2, np.int16), 16000)
    else:
        noise, rate = sf.read("tests/data/speech/background_noise_3s.wav", dtype="int16")
        sf.write(wav, noise, rate)
    loop, metrics, seen = run(setup, wav, tmp_path / "out.wav")
    assert metrics == []
    assert not any(isinstance(e, (ev.ReplyStarted, ev.PlaybackStarted)) for e in seen)


LONG_QUESTION = "assets/samples/long/en/walk_from_the_station.flac"  # 8.8 s of speech


@pytest.mark.parametrize("incremental", [True, False])
def test_a_long_question_is_recognized_while_spoken(setup, tmp_path, incremental):
    """asr.incremental: words are confirmed while the visitor speaks and the final pass decodes
    only the tail (or, when the tail looks wrong, the whole utterance, saying why); off: the
    whole utterance, as before. The partial transcripts come from the same passes."""
    cfg, tracer, stages = setup
    cfg = cfg.with_overrides({"asr.incremental": incremental})
    loop = build_voice_loop(cfg, [LONG_QUESTION], tmp_path / "out.wav", tracer, stages, tail_silence_s=1.5)
    seen = []
    loop.subscribe(seen.append)
    metrics = loop.run_until_done(timeout=90)
    assert len(metrics) == 1
    m = metrics[0]
    text = m.transcript.lower()
    assert all(w in text for w in ("train", "station", "museum", "tram"))
    partials = [e.text for e in seen if isinstance(e, ev.PartialTranscript)]
    assert partials
    if incremental:
        assert m.asr["confirmed_at_start"] >= 5
        assert m.asr["path"] == "tail" or m.asr["fallback"]  # a fallback always says why
        if m.asr["path"] == "tail":
            assert m.asr["encoded_s"] < m.asr["speech_s"]
            assert m.asr["committed_words"] == m.asr["confirmed_at_start"]
        # a later partial starts with words an earlier one confirmed ("Hello we ...")
        assert normalize(partials[-1]).split()[:2] == normalize(m.transcript).split()[:2]
    else:
        assert m.asr["path"] in ("trimmed", "full") and m.asr["confirmed_at_start"] == 0
        assert m.asr["encoded_s"] == pytest.approx(m.asr["speech_s"], abs=0.01)
