"""Audio in and out: 16 kHz mono int16 frames from a microphone or a WAV file, played to a speaker or a WAV file.

Files and devices go through the same interfaces, so benches and tests drive the real code path.
The frame type and the sample rate are shared core: `avatar.frames`.
"""
from avatar.audio.convert import read_wav_16k, to_pcm_16k
from avatar.audio.contracts import AudioSink, AudioSource
from avatar.audio.sink import WavFileSink, open_sink
from avatar.audio.source import WavFileSource, open_source

__all__ = ["AudioSink", "AudioSource", "WavFileSink", "WavFileSource", "MicrophoneSource", "SpeakerSink",
           "open_sink", "open_source", "read_wav_16k", "to_pcm_16k"]


def __getattr__(name: str):
    if name in ("MicrophoneSource", "SpeakerSink"):  # sounddevice needs PortAudio: only when asked for
        from avatar.audio import devices

        return getattr(devices, name)
    raise AttributeError(name)
