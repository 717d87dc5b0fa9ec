"""Where audio comes from: a WAV file fed like a microphone, or the microphone itself."""
from __future__ import annotations

import os

from avatar.audio.contracts import AudioSource
from avatar.audio.wav_source import WavFileSource

__all__ = ["WavFileSource", "MicrophoneSource", "open_source"]


def open_source(path: str | os.PathLike | None, cfg, tail_silence_s: float = 1.0) -> AudioSource:
    """A WAV file source when a path is given (paced by audio.realtime), else the microphone."""
    if path is not None:
        return WavFileSource(path, frame_ms=cfg.audio.frame_ms, realtime=cfg.audio.realtime,
                             tail_silence_s=tail_silence_s)
    from avatar.audio.devices import MicrophoneSource

    return MicrophoneSource(cfg.audio.input_device, frame_ms=cfg.audio.frame_ms)


def __getattr__(name: str):
    if name == "MicrophoneSource":  # sounddevice needs PortAudio: import it only when asked for
        from avatar.audio.devices import MicrophoneSource

        return MicrophoneSource
    raise AttributeError(name)
