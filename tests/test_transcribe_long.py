"""`avatar transcribe` on audio longer than the recognizer's window: every second is transcribed, in
pieces cut at pauses, and a cut that found no pause is said with where it fell (a fake recognizer
stands in for Whisper)."""
import json

import numpy as np
import pytest
import soundfile as sf

import avatar.asr
from avatar import cli
from avatar.asr import Transcript
from avatar.commands.transcribe import split_points
from avatar.frames import SAMPLE_RATE


def _speech(seconds: float, rng) -> np.ndarray:
    """Loud noise with a 4 Hz syllable rhythm: never quiet for 300 ms."""
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    return (rng.standard_normal(t.size) * 6000 * (0.6 + 0.4 * np.sin(2 * np.pi * 4 * t))).astype(np.int16)


def _monologue(sentences, pause_s=0.6, seed=0):
    """Sentences of the given lengths with pauses between: the pcm and where each pause's middle is."""
    rng = np.random.default_rng(seed)
    parts, middles, at = [], [], 0
    for n, seconds in enumerate(sentences):
        parts.append(_speech(seconds, rng))
        at += parts[-1].size
        if n < len(sentences) - 1:
            parts.append((rng.standard_normal(int(pause_s * SAMPLE_RATE)) * 30).astype(np.int16))
            middles.append(at + parts[-1].size // 2)
            at += parts[-1].size
    return np.concatenate(parts), middles


class FakeASR:
    calls: list = []

    def __init__(self, cfg, languages, *a, **kw):
        FakeASR.calls = []

    def transcribe(self, pcm, lang=None, partial=False, cancel=None, prior=None):
        FakeASR.calls.append(len(pcm))
        n = len(FakeASR.calls)
        return Transcript(f"piece{n}", lang or "de", 0.9, "", 12.0, f"piece{n}", "trimmed")


@pytest.fixture
def fake_asr(monkeypatch):
    monkeypatch.setattr(avatar.asr, "WhisperASR", FakeASR, raising=False)
    return FakeASR


def test_long_audio_is_cut_at_pauses_and_covered_whole():
    pcm, pauses = _monologue([7, 6, 8, 5, 9, 7, 6, 8, 7, 9, 6, 8, 7, 5, 9])  # ~115 s
    pieces = split_points(pcm, 20.0)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(pcm)
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:]))  # no gap, no overlap
    assert all(end - start <= 20 * SAMPLE_RATE for start, end, _ in pieces)
    for _, cut, at_pause in pieces[:-1]:
        assert at_pause
        assert min(abs(cut - m) for m in pauses) < 0.3 * SAMPLE_RATE  # inside a pause, not a sentence


def test_a_long_file_without_pauses_is_still_covered_and_the_cuts_are_said(tmp_path, fake_asr, capsys):
    rng = np.random.default_rng(1)
    wav = tmp_path / "talk.wav"
    sf.write(wav, _speech(65, rng), SAMPLE_RATE, subtype="PCM_16")
    assert cli.main(["transcribe", str(wav), "--lang", "de"]) == 0
    out = capsys.readouterr().out
    assert sum(fake_asr.calls) == 65 * SAMPLE_RATE and max(fake_asr.calls) <= 20 * SAMPLE_RATE
    n = len(fake_asr.calls)
    assert n >= 4 and " ".join(f"piece{i}" for i in range(1, n + 1)) in out
    assert out.count("without a pause") == n - 1 and f"65.0 s in {n} pieces" in out


def test_long_audio_as_json_lists_every_piece(tmp_path, fake_asr, capsys):
    pcm, _ = _monologue([9, 8, 9, 7, 8, 6])
    wav = tmp_path / "monologue.wav"
    sf.write(wav, pcm, SAMPLE_RATE, subtype="PCM_16")
    assert cli.main(["transcribe", str(wav), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["seconds"] == pytest.approx(pcm.size / SAMPLE_RATE, abs=0.01)
    pieces = record["pieces"]
    assert pieces[0]["start_s"] == 0 and pieces[-1]["end_s"] == record["seconds"]
    assert [p["cut"] for p in pieces] == ["pause"] * (len(pieces) - 1) + ["end"]
    assert record["cuts_mid_speech_s"] == [] and record["text"] == " ".join(p["text"] for p in pieces)


def test_a_short_file_is_one_utterance_as_before(tmp_path, fake_asr, capsys):
    wav = tmp_path / "q.wav"
    sf.write(wav, _speech(4, np.random.default_rng(2)), SAMPLE_RATE, subtype="PCM_16")
    assert cli.main(["transcribe", str(wav), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert fake_asr.calls == [4 * SAMPLE_RATE] and "pieces" not in record and record["text"] == "piece1"
    assert cli.main(["transcribe", str(wav), "--piece-s", "40"]) == 2
