"""Audio in and out through files: conversion to 16 kHz mono, clear errors, a timed playback sink."""
from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from avatar.audio import WavFileSink, WavFileSource, read_wav_16k
from avatar.audio.devices import MicrophoneSource, SpeakerSink, import_sounddevice
from avatar.errors import AudioFileError, DeviceError
from avatar.frames import SAMPLE_RATE
from avatar.trace import now

DATA = Path(__file__).parent / "data" / "speech"


def tone(rate: int, seconds: float, freq: float = 440.0, amp: float = 0.5) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def dominant_hz(pcm: np.ndarray) -> float:
    spec = np.abs(np.fft.rfft(pcm.astype(np.float32)))
    return float(np.fft.rfftfreq(len(pcm), 1 / SAMPLE_RATE)[np.argmax(spec)])


@pytest.mark.parametrize("rate,channels,subtype", [(44100, 2, "FLOAT"), (8000, 1, "PCM_U8"),
                                                   (22050, 3, "PCM_24"), (48000, 2, "PCM_16")])
def test_odd_rate_and_multichannel_files_become_16k_mono_int16(tmp_path, rate, channels, subtype):
    mono = tone(rate, 0.5)
    path = tmp_path / "odd.wav"
    sf.write(path, np.stack([mono] * channels, axis=1), rate, subtype=subtype)
    pcm = read_wav_16k(path)
    assert pcm.dtype == np.int16 and pcm.ndim == 1
    assert abs(len(pcm) - SAMPLE_RATE // 2) <= 2
    assert abs(dominant_hz(pcm) - 440.0) < 5.0
    assert 0.4 < np.abs(pcm).max() / 32768 < 0.6  # level kept: channels averaged, not summed


def test_stereo_channels_are_mixed_down(tmp_path):
    path = tmp_path / "lr.wav"
    left, right = tone(16000, 0.25, 300.0, 0.4), tone(16000, 0.25, 1200.0, 0.4)
    sf.write(path, np.stack([left, right], axis=1), 16000, subtype="PCM_16")
    spec = np.abs(np.fft.rfft(read_wav_16k(path).astype(np.float32)))
    freqs = np.fft.rfftfreq(4000, 1 / SAMPLE_RATE)
    assert spec[np.argmin(abs(freqs - 300))] > 0.3 * spec.max()
    assert spec[np.argmin(abs(freqs - 1200))] > 0.3 * spec.max()


def test_missing_file_is_an_audio_file_error_naming_it(tmp_path):
    with pytest.raises(AudioFileError, match="nope.wav"):
        WavFileSource(tmp_path / "nope.wav")


def test_unreadable_file_is_an_audio_file_error_naming_it(tmp_path):
    bad = tmp_path / "garbage.wav"
    bad.write_bytes(b"RIFF this is not audio at all" * 10)
    with pytest.raises(AudioFileError, match="garbage.wav") as err:
        WavFileSource(bad)
    assert err.value.hint


def test_empty_file_is_an_audio_file_error(tmp_path):
    empty = tmp_path / "empty.wav"
    sf.write(empty, np.zeros(0, np.int16), 16000)
    with pytest.raises(AudioFileError, match="no samples"):
        read_wav_16k(empty)


def test_file_source_yields_frames_with_stream_times_and_tail_silence():
    src = WavFileSource(DATA / "en_cancel_timer.wav", frame_ms=20, realtime=False, tail_silence_s=0.5)
    frames = list(src.frames())
    assert all(len(f.pcm) == 320 and f.pcm.dtype == np.int16 for f in frames[:-1])
    assert [round(f.audio_t, 3) for f in frames[:3]] == [0.0, 0.02, 0.04]
    total = sum(len(f.pcm) for f in frames)
    assert total == len(read_wav_16k(DATA / "en_cancel_timer.wav")) + 8000
    assert not np.any(frames[-1].pcm)  # the appended tail is silence
    assert src.file_end_audio_t == pytest.approx(total / SAMPLE_RATE - 0.5)


def test_realtime_source_stamps_capture_time_on_the_stream_timeline(tmp_path):
    path = tmp_path / "short.wav"
    sf.write(path, tone(16000, 0.1), 16000)
    src = WavFileSource(path, frame_ms=20, realtime=True, tail_silence_s=0.0)
    frames = list(src.frames())
    for f in frames:  # t is the clock time of the first sample: start + stream time
        assert f.t - src.started_at == pytest.approx(f.audio_t, abs=1e-9)


def test_close_ends_the_frame_stream():
    src = WavFileSource(DATA / "en_cancel_timer.wav", realtime=False)
    it = src.frames()
    next(it)
    src.close()
    assert list(it) == []


def test_sink_records_audible_time_and_writes_the_timeline(tmp_path):
    out = tmp_path / "out.wav"
    heard = []
    sink = WavFileSink(out, output_latency_ms=20.0)
    sink.add_listener(lambda block, t: heard.append((t, block.copy())))
    t_play = now()
    sink.play(tone(22050, 0.2, 500.0), 22050)
    assert sink.wait_idle(timeout=10.0)
    sink.close()
    segs = sink.segments
    assert sum(n for _, n in segs) == 3200  # 0.2 s at 16 kHz, all of it played
    first = segs[0][0]
    assert first >= t_play + 0.020  # cannot be heard before it was queued plus the device latency
    assert sink.first_audible_after(t_play) == first
    written, rate = sf.read(out, dtype="int16")
    assert rate == 16000
    onset = int(np.argmax(np.abs(written) > 100))
    expected = (first - 0.020 - sink.started_at) * SAMPLE_RATE  # the file's timeline is the clock's
    assert abs(onset - expected) <= 160 + 1
    times = [t for t, _ in heard]
    assert times == sorted(times)
    assert any(np.any(b) for _, b in heard) and any(not np.any(b) for _, b in heard)  # silence too


def test_stop_drops_queued_audio_at_once(tmp_path):
    sink = WavFileSink(tmp_path / "out.wav")
    sink.play(tone(16000, 3.0), 16000)
    deadline = now() + 10.0
    while not sink.segments and now() < deadline:
        sink.wait_idle(timeout=0.01)
    assert sink.playing
    t_stop = sink.stop()
    assert sink.wait_idle(timeout=5.0)
    played = sum(n for _, n in sink.segments)
    assert 0 < played < 3 * SAMPLE_RATE
    last_t, last_n = sink.segments[-1]
    assert t_stop >= last_t + last_n / SAMPLE_RATE - 1e-6  # stop() says when the last sound ended
    assert not sink.playing
    sink.play(tone(16000, 0.05), 16000)  # a stopped sink plays the next reply
    assert sink.wait_idle(timeout=5.0)
    assert sum(n for _, n in sink.segments) == played + 800
    sink.close()


def test_missing_portaudio_is_a_device_error_with_the_fix(monkeypatch):
    monkeypatch.setitem(sys.modules, "sounddevice", None)
    with pytest.raises(DeviceError):
        import_sounddevice()


def test_missing_device_is_a_device_error(monkeypatch):
    class PortAudioError(Exception):
        pass

    def query_devices(device=None, kind=None):
        raise PortAudioError("Error querying device -1")

    fake = types.SimpleNamespace(PortAudioError=PortAudioError, query_devices=query_devices)
    monkeypatch.setitem(sys.modules, "sounddevice", fake)
    with pytest.raises(DeviceError, match="no microphone"):
        MicrophoneSource()
    with pytest.raises(DeviceError, match="no loudspeaker"):
        SpeakerSink()


def test_the_loudspeaker_stream_gets_the_configured_buffer_and_counts_underruns(monkeypatch):
    """PortAudio's low-latency default (9 ms through PulseAudio) ran dry under load and lost half a
    reply; the stream is opened with audio.output_buffer_ms, and underruns are counted."""
    from avatar import config
    from avatar.audio.sink import open_sink

    opened = {}

    class Stream:
        def __init__(self, **kw):
            opened.update(kw)

        def start(self):
            pass

        def stop(self):
            pass

        def close(self):
            pass

    fake = types.SimpleNamespace(PortAudioError=RuntimeError, OutputStream=Stream,
                                 query_devices=lambda device=None, kind=None: {"name": "fake"})
    monkeypatch.setitem(sys.modules, "sounddevice", fake)
    sink = open_sink(None, config.load(env={}))
    assert opened["latency"] == pytest.approx(0.1) and opened["samplerate"] == SAMPLE_RATE
    out = np.zeros((sink.block, 1), np.int16)
    times = types.SimpleNamespace(outputBufferDacTime=0.0, currentTime=0.0)
    sink._callback(out, sink.block, times, types.SimpleNamespace(output_underflow=True))
    sink._callback(out, sink.block, times, types.SimpleNamespace(output_underflow=False))
    assert sink.underruns == 1
    open_sink(None, config.load(sets=["audio.output_buffer_ms=0"], env={}))
    assert opened["latency"] is None  # 0: the device's own default


def test_a_sink_woken_late_never_reports_two_blocks_at_once(tmp_path, monkeypatch):
    """A loudspeaker plays one block after the other. The file sink's thread, woken a few ms late
    (a loaded box), reported each block at its late wake-up time, so consecutive blocks overlapped by
    those ms, and the soak's simulated echo (the later block) differed there from the echo
    canceller's reference (the earlier one)."""
    import avatar.audio.wav_sink as wav_sink

    rng = np.random.default_rng(0)
    monkeypatch.setattr(wav_sink, "now", lambda: now() + float(rng.uniform(0.0, 0.009)))
    heard = []
    sink = WavFileSink(None, output_latency_ms=20.0)
    sink.add_listener(lambda block, t: heard.append((t, block.size)))
    sink.play(tone(16000, 0.5), 16000)
    assert sink.wait_idle(timeout=10.0)
    sink.close()
    assert len(heard) > 40
    gaps = [b[0] - (a[0] + a[1] / SAMPLE_RATE) for a, b in zip(heard, heard[1:])]
    assert min(gaps) >= -1e-9, min(gaps)
