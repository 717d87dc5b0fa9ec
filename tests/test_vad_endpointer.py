"""The endpointer on real speech, noise and silence: turns open and close where the speech is."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from avatar import config
from avatar.audio import read_wav_16k
from avatar.events import EndOfTurn, Resumed, SpeechStart, TentativeEnd
from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.vad import Endpointer
from avatar.vad.silero import SileroVAD

DATA = Path(__file__).parent / "data" / "speech"
SR = SAMPLE_RATE


@pytest.fixture(scope="module")
def silero():
    return SileroVAD()


@pytest.fixture
def endpointer(silero):
    return Endpointer(config.load(env={}).vad, silero=silero)


def feed(ep: Endpointer, pcm: np.ndarray, frame_ms: int = 20, on_event=None) -> list:
    n = SR * frame_ms // 1000
    events = []
    for i in range(0, len(pcm), n):
        for e in ep.process(AudioFrame(pcm[i:i + n], 0.0, i / SR)):
            events.append(e)
            if on_event:
                on_event(ep, e)
    return events


def kinds(events) -> list[type]:
    return [type(e) for e in events]


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SR), np.int16)


def speech_only(name: str, ep_cfg) -> np.ndarray:
    """The clip cut to where the endpointer hears speech (its own silences removed)."""
    pcm = read_wav_16k(DATA / name)
    ep = Endpointer(ep_cfg)
    ev = feed(ep, np.concatenate([pcm, silence(1.0)]))
    start = next(e.audio_t for e in ev if isinstance(e, SpeechStart))
    end = next(e.audio_t for e in ev if isinstance(e, EndOfTurn))
    return pcm[int(start * SR):int(end * SR)]


@pytest.mark.parametrize("clip", ["en_cancel_timer.wav", "de_wie_ist_das_wetter.wav"])
def test_speech_clip_opens_and_closes_one_turn(endpointer, clip):
    pcm = read_wav_16k(DATA / clip)
    events = feed(endpointer, np.concatenate([pcm, silence(1.0)]))
    assert kinds(events) == [SpeechStart, TentativeEnd, EndOfTurn]
    start, tentative, end = events
    assert 0.0 < start.audio_t < tentative.audio_t <= len(pcm) / SR
    assert end.audio_t == tentative.audio_t  # both name the last speech sample
    utt = endpointer.utterance()
    assert len(utt) / SR >= end.audio_t - start.audio_t + 0.15  # speech plus pre-roll


def test_background_noise_never_opens_a_turn(endpointer):
    noise = read_wav_16k(DATA / "background_noise_3s.wav")
    assert feed(endpointer, np.concatenate([noise, noise, silence(1.0)])) == []


def test_silence_and_hiss_never_open_a_turn(endpointer):
    rng = np.random.default_rng(1)
    hiss = (rng.standard_normal(3 * SR) * 200).astype(np.int16)
    assert feed(endpointer, np.concatenate([silence(2.0), hiss, silence(1.0)])) == []


def test_a_short_burst_never_makes_a_turn(endpointer):
    cfg = endpointer.cfg
    burst = speech_only("en_whats_the_weather_like_in_new_york.wav", cfg)[: int(0.15 * SR)]  # a cough's length
    events = feed(endpointer, np.concatenate([silence(0.5), burst, silence(1.5)]))
    assert TentativeEnd not in kinds(events) and EndOfTurn not in kinds(events)


def test_a_pause_shorter_than_end_of_turn_resumes(endpointer):
    speech = speech_only("de_wie_ist_das_wetter.wav", endpointer.cfg)
    pcm = np.concatenate([silence(0.5), speech, silence(0.3), speech, silence(1.0)])
    assert kinds(feed(endpointer, pcm)) == [SpeechStart, TentativeEnd, Resumed, TentativeEnd, EndOfTurn]


def test_a_longer_pause_ends_the_turn_unless_end_wait_is_raised(endpointer):
    speech = speech_only("de_wie_ist_das_wetter.wav", endpointer.cfg)
    pcm = np.concatenate([silence(0.5), speech, silence(0.7), speech, silence(1.5)])
    assert kinds(feed(endpointer, pcm)) == [SpeechStart, TentativeEnd, EndOfTurn,
                                             SpeechStart, TentativeEnd, EndOfTurn]

    def hesitate(ep, event):  # what adaptive endpointing does after "ähm ..."
        if isinstance(event, SpeechStart):
            ep.end_wait_ms = 1000

    endpointer.reset()
    assert kinds(feed(endpointer, pcm, on_event=hesitate)) == [SpeechStart, TentativeEnd, Resumed,
                                                                TentativeEnd, EndOfTurn]


def test_utterance_survives_end_of_turn_and_reset_clears_it(endpointer):
    pcm = read_wav_16k(DATA / "en_cancel_timer.wav")
    feed(endpointer, np.concatenate([pcm, silence(1.0)]))
    assert len(endpointer.utterance()) > SR // 2
    feed(endpointer, silence(0.5))  # idle audio afterwards does not touch the finished utterance
    assert len(endpointer.utterance()) > SR // 2
    endpointer.reset()
    assert len(endpointer.utterance()) == 0


@pytest.mark.parametrize("frame_ms", [10, 30])
def test_any_frame_size_gives_the_same_turn(endpointer, frame_ms):
    pcm = np.concatenate([read_wav_16k(DATA / "en_cancel_timer.wav"), silence(1.0)])
    assert kinds(feed(endpointer, pcm, frame_ms=frame_ms)) == [SpeechStart, TentativeEnd, EndOfTurn]


def test_a_long_stream_of_questions_gives_one_turn_each(endpointer):
    clips = [read_wav_16k(DATA / n) for n in ("en_cancel_timer.wav", "de_wie_ist_das_wetter.wav",
                                              "de_schalte_die_lampe_an.wav", "en_whats_the_weather_like_in_new_york.wav")]
    noise = read_wav_16k(DATA / "background_noise_3s.wav")
    stream = [np.concatenate([clip, silence(1.0), noise if i % 3 == 0 else silence(0.5)])
              for i, clip in enumerate(clips * 5)]
    events = feed(endpointer, np.concatenate(stream))  # one stream, never reset, like a kiosk's day
    assert kinds(events).count(EndOfTurn) == 20
    assert kinds(events).count(SpeechStart) == 20


def test_short_questions_late_in_a_stream_are_still_heard(endpointer):
    # Silero's state drifts over a long stream; without a restart in quiet stretches it misses these
    nxt = read_wav_16k(DATA / "en_next.wav")
    events = feed(endpointer, np.concatenate([np.concatenate([nxt, silence(1.0)])] * 8))
    assert kinds(events).count(EndOfTurn) == 8


def test_reading_the_utterance_from_another_thread_loses_no_audio(endpointer, monkeypatch):
    """The partial transcripts read `utterance()` on their own thread while the capture thread feeds
    frames. The reader used to compact the buffer without a lock; a frame the capture thread appended
    meanwhile was lost, and every later utterance came out shifted by it. In the 2,000-turn soak the
    shift grew to more than half a second: questions lost their first words, then everything (the
    deaf kiosk of issue 13). Here the reader is held inside that window while a frame arrives."""
    import threading

    from avatar.vad import endpointer as module

    pcm = np.concatenate([read_wav_16k(DATA / "en_cancel_timer.wav"), silence(1.0)])
    n = SR * 20 // 1000
    frames = [pcm[i:i + n] for i in range(0, len(pcm), n)]
    reference = Endpointer(config.load(env={}).vad, silero=SileroVAD())
    endpointer.reset()
    k = 0
    while not any(isinstance(e, SpeechStart) for e in endpointer.process(AudioFrame(frames[k], 0.0, k * n / SR))):
        k += 1
    for j in range(k + 6):  # the reference hears the same frames, in one thread
        reference.process(AudioFrame(frames[j], 0.0, j * n / SR))
    for j in range(k + 1, k + 6):  # an open utterance of several frames
        endpointer.process(AudioFrame(frames[j], 0.0, j * n / SR))
    k += 6

    in_window, appended = threading.Event(), threading.Event()
    real = np.concatenate

    class HeldNumpy:  # numpy, but the reader's concatenate waits for the capture thread's next frame
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def concatenate(*args, **kwargs):
            out = real(*args, **kwargs)
            if threading.current_thread().name == "reader" and not in_window.is_set():
                in_window.set()
                appended.wait(0.5)  # with the lock the capture thread cannot get in: the wait runs out
            return out

    monkeypatch.setattr(module, "np", HeldNumpy())
    reader = threading.Thread(target=endpointer.utterance, name="reader")
    reader.start()
    assert in_window.wait(5)
    endpointer.process(AudioFrame(frames[k], 0.0, k * n / SR))
    appended.set()
    reader.join(5)
    monkeypatch.setattr(module, "np", np)
    for j in range(k + 1, len(frames)):
        endpointer.process(AudioFrame(frames[j], 0.0, j * n / SR))
    for j in range(k, len(frames)):
        reference.process(AudioFrame(frames[j], 0.0, j * n / SR))
    heard, expected = endpointer.utterance(), reference.utterance()
    assert len(expected) > SR // 2
    assert len(heard) == len(expected) and np.array_equal(heard, expected)
