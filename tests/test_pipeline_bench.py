import numpy as np

from avatar.audio.convert import read_wav_16k
from avatar.pipeline.bench import Turn, last_speech_sample, summarize

CLIP = "tests/data/speech/en_cancel_timer.wav"


def test_speech_end_ignores_trailing_silence_and_noise_floor():
    pcm = read_wav_16k(CLIP)
    end = last_speech_sample(pcm)
    assert 0.5 < end < len(pcm) / 16000 - 0.3  # the clip has a silent tail
    rng = np.random.default_rng(0)
    padded = np.concatenate([pcm, (rng.normal(0, 30, 32000)).astype(np.int16)])
    assert abs(last_speech_sample(padded) - end) < 0.05


def test_summary_has_percentiles_per_mode_and_the_ratio():
    turns = [Turn(mode, "a.wav", "de", "q", "r", {"asr": 100.0 * k, "output": 20.0}, v)
             for mode, k, v in [("streaming", 1, 400.0), ("streaming", 2, 500.0),
                                ("sequential", 3, 900.0), ("sequential", 3, 1100.0)]]
    s = summarize(turns)
    assert s["modes"]["streaming"]["voice_to_voice"]["p50"] == 450.0
    assert s["modes"]["sequential"]["stages_p50"]["asr"] == 300.0
    assert s["sequential_over_streaming_p50"] == round(1000 / 450, 2)
    assert len(s["turns"]) == 4 and s["turns"][0]["mode"] == "streaming"


def test_a_setting_compared_side_by_side_is_its_own_mode():
    import pytest

    from avatar.errors import ConfigError
    from avatar.pipeline.bench import mode_overrides

    assert mode_overrides("streaming+pipeline.speculative=false,vad.tentative_end_ms=96") == {
        "pipeline.speculative": False, "vad.tentative_end_ms": 96}
    assert mode_overrides("sequential")["asr.trim_window"] is False
    for bad in ("fastest", "streaming+", "streaming+vad.tentative_end_ms"):
        with pytest.raises(ConfigError):
            mode_overrides(bad)
    turns = [Turn("streaming", "a.wav", "en", "q", "r", {}, 500.0, True, 1),
             Turn("streaming", "b.wav", "en", "q", "r", {}, 600.0, True, 0),
             Turn("streaming+pipeline.speculative=false", "a.wav", "en", "q", "r", {}, 800.0, False, 0)]
    s = summarize(turns)["modes"]
    assert s["streaming"]["discarded"] == 1 and s["streaming"]["turns_with_discard"] == 1
    assert s["streaming+pipeline.speculative=false"]["voice_to_voice"]["p50"] == 800.0
