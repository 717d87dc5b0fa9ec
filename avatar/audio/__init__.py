"""Audio in and out: 16 kHz mono int16 frames from a microphone or a WAV file, played to a speaker or a WAV file.

Files and devices go through the same interfaces, so benches and tests drive the real code path.
"""
from __future__ import annotations

import os

from avatar.audio.convert import read_wav16k, to_pcm16k
from avatar.audio.frame import SAMPLE_RATE, AudioFrame, AudioSink, AudioSource
from avatar.audio.wav_sink import WavFileSink
from avatar.audio.wav_source import WavFileSource

__all__ = ["SAMPLE_RATE", "AudioFrame", "AudioSink", "AudioSource", "WavFileSink", "WavFileSource",
           "MicrophoneSource", "SpeakerSink", "open_sink", "open_source", "read_wav16k", "to_pcm16k"]


def open_source(path: str | os.PathLike | None, cfg, tail_silence_s: float = 1.0) -> AudioSource:
    """A WAV file source when a path is given, else the microphone."""
    if path is not None:
        return WavFileSource(path, frame_ms=cfg.audio.frame_ms, realtime=cfg.audio.realtime,
                             tail_silence_s=tail_silence_s)
    from avatar.audio.devices import MicrophoneSource

    return MicrophoneSource(cfg.audio.input_device, frame_ms=cfg.audio.frame_ms)


def open_sink(path: str | os.PathLike | None, cfg) -> AudioSink:
    """A WAV file sink when a path is given, else the loudspeaker."""
    if path is not None:
        return WavFileSink(path, output_latency_ms=cfg.audio.output_latency_ms)
    from avatar.audio.devices import SpeakerSink

    return SpeakerSink(cfg.audio.output_device, output_latency_ms=cfg.audio.output_latency_ms)


def __getattr__(name: str):
    if name in ("MicrophoneSource", "SpeakerSink"):
        from avatar.audio import devices

        return getattr(devices, name)
    raise AttributeError(name)
