import numpy as np

from avatar.audio.convert import read_wav_16k
from avatar_dev.bench.pipeline import Turn, last_speech_sample, summarize

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
    from avatar_dev.bench.pipeline import mode_overrides

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


def test_length_buckets_bounds_belong_to_the_longer_bucket():
    from avatar_dev.bench.pipeline import length_bucket

    assert [length_bucket(s) for s in (0.4, 1.99, 2.0, 3.9, 4.0, 7.99, 8.0, 12.5)] == \
        ["<2s", "<2s", "2-4s", "2-4s", "4-8s", "4-8s", ">8s", ">8s"]
    assert length_bucket(None) == ""


def test_summary_reports_voice_to_voice_by_length_for_each_design_side_by_side():
    from avatar_dev.bench.pipeline import format_table

    turns = []
    for mode, base, per_s in (("streaming", 400.0, 10.0), ("sequential", 1200.0, 150.0)):
        for i, speech_s in enumerate((1.2, 1.6, 3.0, 5.0, 6.0, 9.5)):
            turns.append(Turn(mode, f"q{i}.wav", "en", "q", "r", {"asr": 100.0 + per_s * speech_s},
                              base + per_s * speech_s, speech_s=speech_s))
    turns.append(Turn("streaming", "silent.wav", "", "", "", {}, None, speech_s=0.8))  # no reply: counted as n=0
    s = summarize(turns)
    stream, seq = s["modes"]["streaming"], s["modes"]["sequential"]
    assert set(stream["by_length"]) == {"<2s", "2-4s", "4-8s", ">8s"}
    assert stream["by_length"]["<2s"]["voice_to_voice"] == {"p50": 414.0, "p95": 415.8, "n": 2}
    assert stream["by_length"]["4-8s"]["stages_p50"]["asr"] == 155.0
    assert seq["by_length"][">8s"]["voice_to_voice"]["p50"] == 1200.0 + 150.0 * 9.5
    # over 4 s against under 2 s: what the issue bounds (<= 100 ms)
    assert stream["long_vs_short"]["long_n"] == 3 and stream["long_vs_short"]["short_n"] == 2
    assert stream["long_vs_short"]["difference_ms"] == 460.0 - 414.0
    assert s["length_buckets"]["2-4s"] == {"streaming": 430.0, "sequential": 1650.0}
    assert s["turns"][0]["length_bucket"] == "<2s" and s["turns"][0]["speech_s"] == 1.2
    table = format_table(s)
    row = next(line for line in table.splitlines() if line.strip().startswith("4-8s"))
    assert "455 (n=2, asr 155)" in row and "2025 (n=2" in row  # both designs on one row
    assert ">4s - <2s" in table and "+46" in table


def test_summary_says_how_final_transcripts_were_made_and_scores_them_per_clip_language():
    from avatar.asr.word_accuracy import word_errors
    from avatar_dev.bench.pipeline import clip_language, format_table, reference_text

    assert reference_text("x/real/en/what_s_the_date.wav", names_are_transcripts=True) == "what s the date"
    assert reference_text("long/en/walk.flac", {"walk.flac": "we came by train"}) == "we came by train"
    assert reference_text("long/en/walk.flac") == ""
    assert clip_language("evals/asr/joined/de/wo ist die Garderobe.flac") == "de" and clip_language("a.wav") == ""
    turns = []
    for mode, path, heard, info in [
            ("streaming", "s/en/where is the cloakroom.wav", "where is the cloakroom",
             {"path": "tail", "fallback": "", "encoded_s": 2.0, "speech_s": 6.0}),
            ("streaming", "s/de/wo ist die garderobe.wav", "wo ist garderobe",
             {"path": "trimmed", "fallback": "tail_disagrees", "encoded_s": 9.0, "speech_s": 6.0}),
            ("streaming+asr.incremental=false", "s/en/where is the cloakroom.wav", "where is a cloakroom",
             {"path": "trimmed", "fallback": "", "encoded_s": 6.0, "speech_s": 6.0})]:
        t = Turn(mode, path, "en", heard, "r", {"asr": 100.0}, 500.0, asr=info)
        t.word_errors, t.ref_words = word_errors(reference_text(path, names_are_transcripts=True), heard)
        turns.append(t)
    s = summarize(turns)["modes"]
    inc, old = s["streaming"], s["streaming+asr.incremental=false"]
    assert inc["asr_final"]["paths"] == {"tail": 1, "trimmed": 1}
    assert inc["asr_final"]["fallbacks"] == {"tail_disagrees": 1}
    assert inc["word_accuracy"]["en"] == {"accuracy": 1.0, "words": 4, "turns": 1}
    assert inc["word_accuracy"]["de"]["accuracy"] == 0.75 and inc["word_accuracy"]["all"]["words"] == 8
    assert old["word_accuracy"]["en"]["accuracy"] == 0.75 and old["asr_final"]["encoded_s_p50"] == 6.0
    table = format_table(summarize(turns))
    assert "final ASR: tail 1, trimmed 1 (fallback: tail_disagrees 1)" in table
    assert "word accuracy: de 0.75 (4 words), en 1.0 (4 words), all 0.875 (8 words)" in table


def test_the_first_turn_of_each_language_is_held_against_the_same_clip_later():
    def turn(inp, lang, asr, decode):
        return Turn("streaming", inp, lang, "q", "r", {"endpoint": 100.0, "asr": asr, "retrieval": 2.0,
                                                       "decode": decode, "check.schema": 1.0,
                                                       "tts_first_audio": 90.0, "output": 25.0}, 500.0)
    turns = [turn("a.wav", "en", 600.0, 200.0), turn("b.wav", "de", 300.0, 40.0),  # first pass: cold
             turn("a.wav", "en", 300.0, 40.0), turn("b.wav", "de", 300.0, 40.0),
             turn("a.wav", "en", 320.0, 60.0), turn("b.wav", "de", 280.0, 40.0)]
    first = summarize(turns)["modes"]["streaming"]["first_turn"]
    en, de = first["en"]["stages"], first["de"]["stages"]
    assert first["en"]["later_n"] == 2 and en["asr"] == {"first": 600.0, "later": 310.0, "ratio": 1.94}
    assert en["answer"]["first"] == 203.0 and en["answer"]["later"] == 53.0  # retrieval + decode + checks
    assert de["asr"]["ratio"] == 1.03 and de["endpoint"]["ratio"] == 1.0
    assert summarize(turns[:2])["modes"]["streaming"]["first_turn"] == {}  # one pass: nothing to hold against
