"""Speech from espeak-ng (the shared library of the espeakng-loader package), through ctypes.

The stand-in voice for languages without a piper voice (German, for now). espeak-ng reports a
phoneme event with its audio position for every sound, which gives the mouth its timing.
"""
from __future__ import annotations

import ctypes
import threading
from pathlib import Path

import numpy as np

from avatar.errors import ModelError
from avatar.tts import visemes

_AUDIO_OUTPUT_SYNCHRONOUS = 2  # espeak_Synth returns when the text is spoken (into our callback)
_INIT_PHONEME_EVENTS, _INIT_PHONEME_IPA = 0x0001, 0x0002
_EVENT_LIST_TERMINATED, _EVENT_PHONEME = 0, 7
_POS_CHARACTER, _CHARS_UTF8 = 1, 1
_PARAM_RATE = 1


class _Event(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("unique_identifier", ctypes.c_uint), ("text_position", ctypes.c_int),
                ("length", ctypes.c_int), ("audio_position", ctypes.c_int), ("sample", ctypes.c_int),
                ("user_data", ctypes.c_void_p), ("id", ctypes.c_char * 8)]


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event))


class _Library:
    """The one espeak-ng instance of the process (its state is global, so calls are serialized)."""

    def __init__(self) -> None:
        try:
            import espeakng_loader
        except ImportError:
            raise ModelError("espeak-ng is not installed", hint="pip install espeakng-loader") from None
        try:
            self.lib = ctypes.CDLL(espeakng_loader.get_library_path())
            data_parent = str(Path(espeakng_loader.get_data_path()).parent)
        except (OSError, RuntimeError) as exc:
            raise ModelError(f"cannot load espeak-ng: {exc}", hint="reinstall espeakng-loader") from None
        self.lib.espeak_Initialize.restype = ctypes.c_int
        self.sample_rate = self.lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, data_parent.encode(),
                                                      _INIT_PHONEME_EVENTS | _INIT_PHONEME_IPA)
        if self.sample_rate <= 0:
            raise ModelError("espeak-ng failed to start (its data folder was not found)",
                             hint="reinstall espeakng-loader")
        self.lock = threading.Lock()
        self._pcm: list[np.ndarray] = []
        self._events: list[tuple[int, str]] = []
        self._callback = _CALLBACK(self._on_audio)  # kept referenced: espeak calls it later
        self.lib.espeak_SetSynthCallback(self._callback)
        self._voice = ""

    def _on_audio(self, wav, n, events) -> int:
        if n > 0:
            self._pcm.append(np.ctypeslib.as_array(wav, (n,)).copy())
        i = 0
        while events[i].type != _EVENT_LIST_TERMINATED:
            e = events[i]
            if e.type == _EVENT_PHONEME:
                self._events.append((e.audio_position, e.id.decode("utf-8", "replace")))
            i += 1
        return 0

    def speak(self, text: str, voice: str, rate: int) -> tuple[np.ndarray, list[tuple[int, str]]]:
        with self.lock:
            if voice != self._voice:
                if self.lib.espeak_SetVoiceByName(voice.encode()) != 0:
                    raise ModelError(f"espeak-ng has no voice '{voice}'", hint="use de or en")
                self._voice = voice
            self.lib.espeak_SetParameter(_PARAM_RATE, int(rate), 0)
            self._pcm, self._events = [], []
            data = text.encode("utf-8")
            self.lib.espeak_Synth(data, len(data) + 1, 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None)
            pcm = np.concatenate(self._pcm) if self._pcm else np.zeros(0, np.int16)
            return pcm.astype(np.int16), list(self._events)


_LIBRARY: _Library | None = None
_LIBRARY_LOCK = threading.Lock()


def _library() -> _Library:
    global _LIBRARY
    with _LIBRARY_LOCK:
        if _LIBRARY is None:
            _LIBRARY = _Library()
        return _LIBRARY


class EspeakEngine:
    def __init__(self, lang: str, rate: int = 165) -> None:
        self.lib = _library()
        self.voice = lang
        self.rate = rate
        self.sample_rate = self.lib.sample_rate

    def synthesize(self, text: str) -> tuple[np.ndarray, list[tuple[float, float, str]]]:
        pcm, timed = self.timed_phonemes(text)
        total = len(pcm) / self.sample_rate
        if timed:
            track = visemes.from_timed_phonemes(timed, total)
            if timed[0][1] > 0:
                track.insert(0, (0.0, round(timed[0][1], 4), "rest"))
            return pcm, track
        return pcm, visemes.from_loudness(pcm, self.sample_rate)

    def timed_phonemes(self, text: str) -> tuple[np.ndarray, list[tuple[str, float, float]]]:
        """int16 PCM of `text` and its phonemes as (phoneme, offset s, duration s) in that audio."""
        pcm, events = self.lib.speak(text, self.voice, self.rate)
        total = len(pcm) / self.sample_rate
        timed = []
        for k, (ms, phoneme) in enumerate(events):
            if not phoneme:  # word boundary marker: no sound of its own
                continue
            end = events[k + 1][0] if k + 1 < len(events) else total * 1000
            timed.append((phoneme, ms / 1000, max(0.0, (end - ms) / 1000)))
        return pcm, timed
