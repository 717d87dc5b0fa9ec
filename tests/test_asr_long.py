"""An utterance longer than Whisper's window is transcribed whole.

The recognizer's one-window paths lose words past ~24 s (a 36 s clip of 14 questions kept 76 % of
its words: the four questions between 24 and 30 s were gone). Long audio is decoded piece by piece,
cut in pauses (avatar/asr/pieces.py); these clips are the bundled recordings, one after another,
with the file names as the known texts."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from avatar import config
from avatar.asr.pieces import join_overlap
from avatar.asr.word_accuracy import word_errors, words
from avatar.audio import read_wav_16k
from avatar.frames import SAMPLE_RATE

SAMPLES = Path(__file__).parents[1] / "assets" / "samples"


def _text(path: Path) -> str:
    return path.stem.replace("what_s", "what's").replace("_", " ")


def long_clip(lang: str, repeats: int = 1, pause_s: float = 0.6) -> tuple[np.ndarray, list[str]]:
    if lang == "en":
        files = sorted((SAMPLES / "venue" / "en").glob("*.wav")) + sorted((SAMPLES / "real" / "en").glob("*.wav"))
    else:
        files = sorted((SAMPLES / "real" / "de").glob("*.wav"))
    files = files * repeats
    gap = np.zeros(int(pause_s * SAMPLE_RATE), np.int16)
    parts = [p for f in files for p in (read_wav_16k(f), gap)]
    return np.concatenate(parts), [_text(f) for f in files]


@pytest.fixture(scope="module")
def asr():
    from avatar.asr import WhisperASR

    cfg = config.load(env={})
    return WhisperASR(cfg.asr, cfg.general.languages)


@pytest.mark.parametrize("lang,repeats", [("en", 1), ("de", 3)])
def test_a_long_utterance_keeps_its_words(asr, lang, repeats):
    pcm, texts = long_clip(lang, repeats)
    assert len(pcm) > 30 * SAMPLE_RATE
    tr = asr.transcribe(pcm)  # language detected, as in the kiosk
    assert tr.lang == lang and not tr.dropped
    errors, n = word_errors(" ".join(texts), tr.text)
    assert 1 - errors / n >= 0.85, tr.text
    # the words of the last third are there (the part a single window dropped)
    said = set(words(tr.text))
    tail = [w for t in texts[2 * len(texts) // 3:] for w in words(t)]
    assert sum(w in said for w in tail) >= 0.8 * len(tail), tr.text


def test_the_full_window_setting_also_keeps_the_words(asr):
    from avatar.asr import WhisperASR

    cfg = config.load(sets=["asr.trim_window=false"], env={})
    full = WhisperASR(cfg.asr, cfg.general.languages)
    pcm, texts = long_clip("en")
    tr = full.transcribe(pcm, lang="en")
    errors, n = word_errors(" ".join(texts), tr.text)
    assert 1 - errors / n >= 0.85, tr.text


def test_a_long_partial_transcribes_the_latest_words(asr):
    pcm, texts = long_clip("en")
    tr = asr.transcribe(pcm, lang="en", partial=True)
    said = set(words(tr.text))
    assert {"time", "weather"} <= said  # the last questions, not the first 24 s


@pytest.mark.parametrize("before,after,joined", [
    ("where can I leave my co", "leave my coat please", "where can I leave my coat please"),
    ("is the museum open", "open today", "is the museum open today"),
    ("wo ist die Garderobe", "Garderobe bitte", "wo ist die Garderobe bitte"),
    ("the cafe is upstairs", "and the shop is", "the cafe is upstairs and the shop is"),  # no overlap
    ("", "hello there", "hello there"),
])
def test_words_heard_by_both_pieces_are_said_once(before, after, joined):
    assert join_overlap(before, after) == joined
