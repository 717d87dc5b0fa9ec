"""Where audio goes: a WAV file played like a loudspeaker, or the loudspeaker itself."""
from __future__ import annotations

import os

from avatar.audio.contracts import AudioSink
from avatar.audio.wav_sink import WavFileSink

__all__ = ["WavFileSink", "SpeakerSink", "open_sink"]


def open_sink(path: str | os.PathLike | None, cfg) -> AudioSink:
    """A WAV file sink when a path is given, else the loudspeaker."""
    if path is not None:
        return WavFileSink(path, output_latency_ms=cfg.audio.output_latency_ms)
    from avatar.audio.devices import SpeakerSink

    return SpeakerSink(cfg.audio.output_device, output_latency_ms=cfg.audio.output_latency_ms,
                       buffer_ms=cfg.audio.output_buffer_ms or None)


def __getattr__(name: str):
    if name == "SpeakerSink":  # sounddevice needs PortAudio: import it only when asked for
        from avatar.audio.devices import SpeakerSink

        return SpeakerSink
    raise AttributeError(name)
