"""The offline speech span of a recording (the benches' true end of speech) agrees with the endpointer."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from avatar import config
from avatar.audio import read_wav_16k
from avatar.events import EndOfTurn, SpeechStart
from avatar.frames import AudioFrame
from avatar.vad import Endpointer
from avatar.vad.speech_span import speech_span

DATA = Path(__file__).parent / "data" / "speech"


def test_noise_and_silence_have_no_speech_span():
    assert speech_span(read_wav_16k(DATA / "background_noise_3s.wav")) is None
    assert speech_span(np.zeros(32000, np.int16)) is None


@pytest.mark.parametrize("clip", ["en_cancel_timer.wav", "de_schalte_die_lampe_an.wav"])
def test_speech_span_matches_the_endpointer(clip):
    pcm = read_wav_16k(DATA / clip)
    start, end = speech_span(pcm)
    assert 0.0 < start < end < len(pcm) / 16000
    ep = Endpointer(config.load(env={}).vad)
    padded = np.concatenate([pcm, np.zeros(16000, np.int16)])
    events = [e for i in range(0, len(padded), 320) for e in ep.process(AudioFrame(padded[i:i + 320], 0.0, i / 16000))]
    heard_start = next(e.audio_t for e in events if isinstance(e, SpeechStart))
    heard_end = next(e.audio_t for e in events if isinstance(e, EndOfTurn))
    assert abs(heard_start - start) < 0.1 and abs(heard_end - end) < 0.1
