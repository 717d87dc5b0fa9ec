"""Speech from SVOX Pico (the py-nanotts package, Apache-2.0), through ctypes; German's voice while no
German piper voice is installed.

py-nanotts' own `speak()` loads the voice for every call and holds the GIL while it synthesizes; its
extension module also exports the Pico C API, which is driven here directly: the voice is loaded once,
the audio is read as Pico makes it (a cancel stops a clause between two reads), and ctypes lets the
other threads run meanwhile. The voice files (lingware) are copied into models/pico-de/ on first use
and checked against models/manifest.toml like every shipped model. Pico reports no phoneme timings: the
mouth follows espeak-ng's phonemes for the same text, moved onto Pico's audio (phoneme_warp.py).
"""
from __future__ import annotations

import ctypes
import importlib.util
import logging
import re
import threading
from pathlib import Path
from typing import Callable

import numpy as np

from avatar import paths
from avatar.errors import ModelError
from avatar.tts import visemes

log = logging.getLogger(__name__)

PACKAGE = "py_nanotts"
SAMPLE_RATE = 16000  # Pico's only rate, the pipeline's own (avatar/frames.py): nothing to resample
# language -> (models/ folder, text-analysis file, signal-generation file) of the package's voices
VOICES = {"de": ("pico-de", "de-DE_ta.bin", "de-DE_gl0_sg.bin")}
# Pico at 100% clips (peak 32768, speech at -8 dBFS); 32% puts its speech at piper's and espeak-ng's
# level (-18 dBFS over the loud frames, docs/PERF.md), with no clipping.
VOLUME = 32
_MEMORY = 2_500_000  # bytes Pico works in (py-nanotts' own size for one voice)
_STEP_BUSY, _STEP_IDLE = 201, 200
_RESET_SOFT = 0x10
_READ = 4096  # bytes per pico_getData (128 ms of audio at most)
_TAIL_KEEP_S = 0.25  # Pico ends a sentence with ~0.9 s of silence; the clause after it waits no longer than piper's
_QUIET = 64  # |sample| at or below this is silence (-54 dBFS)
_MARKUP = re.compile(r"[<>]")  # Pico reads <...> as its own markup: a venue's "<" is not an instruction


def package_folder() -> Path:
    """The installed py_nanotts package, found without loading it."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("SVOX Pico is not installed (the py-nanotts package)",
                         hint="pip install py-nanotts==0.1.1  (or `make` to set up the environment)")
    return Path(list(spec.submodule_search_locations)[0])


def lingware(lang: str, models: Path | None = None) -> Path:
    """models/pico-<lang>/ with the voice's two files, copied from the package on first use and
    sha256-checked against the manifest."""
    from avatar.integrity import check_model  # noqa: PLC0415  (the manifest is read only when the voice is)

    if lang not in VOICES:
        raise ModelError(f"SVOX Pico has no voice for '{lang}' here", hint=f"Pico speaks {', '.join(VOICES)}")
    name, *files = VOICES[lang]
    folder = (models or paths.models_dir()) / name
    for file in files:
        target = folder / file
        if target.is_file():
            continue
        source = package_folder() / "lang" / file
        if not source.is_file():
            raise ModelError(f"the package py-nanotts holds no {file} (looked in {source.parent})",
                             hint="pip install --force-reinstall py-nanotts==0.1.1")
        paths.copy_in(source, target)
    check_model(folder)
    return folder


def _library_file() -> Path:
    found = sorted(package_folder().glob("_nanotts*.so"))
    if not found:
        raise ModelError("the package py-nanotts holds no Pico library (_nanotts*.so)",
                         hint="pip install --force-reinstall py-nanotts==0.1.1 (a Linux x86-64 wheel)")
    return found[0]


class _Pico:
    """One Pico system with one voice loaded (its state is not shared: calls are serialized)."""

    def __init__(self, lang: str) -> None:
        try:
            self.lib = lib = ctypes.CDLL(str(_library_file()))
        except OSError as exc:
            raise ModelError(f"cannot load SVOX Pico: {exc}", hint="pip install --force-reinstall py-nanotts==0.1.1") from None
        ptr, i16, ref = ctypes.c_void_p, ctypes.c_int16, ctypes.POINTER
        for fn, args in (("pico_initialize", [ptr, ctypes.c_uint32, ref(ptr)]),
                         ("pico_terminate", [ref(ptr)]),
                         ("pico_getSystemStatusMessage", [ptr, i16, ctypes.c_char_p]),
                         ("pico_loadResource", [ptr, ctypes.c_char_p, ref(ptr)]),
                         ("pico_getResourceName", [ptr, ptr, ctypes.c_char_p]),
                         ("pico_createVoiceDefinition", [ptr, ctypes.c_char_p]),
                         ("pico_addResourceToVoiceDefinition", [ptr, ctypes.c_char_p, ctypes.c_char_p]),
                         ("pico_newEngine", [ptr, ctypes.c_char_p, ref(ptr)]),
                         ("pico_putTextUtf8", [ptr, ctypes.c_char_p, i16, ref(i16)]),
                         ("pico_getData", [ptr, ptr, i16, ref(i16), ref(i16)]),
                         ("pico_resetEngine", [ptr, ctypes.c_int32])):
            getattr(lib, fn).argtypes, getattr(lib, fn).restype = args, i16
        self.lock = threading.Lock()
        self._memory = ctypes.create_string_buffer(_MEMORY)  # kept referenced: Pico works in it
        self.system, self.engine = ptr(), ptr()
        self._check(lib.pico_initialize(self._memory, _MEMORY, ctypes.byref(self.system)), "start")
        folder, voice = lingware(lang), lang.encode()
        self._check(lib.pico_createVoiceDefinition(self.system, voice), "define the voice")
        for file in VOICES[lang][1:]:
            resource, name = ptr(), ctypes.create_string_buffer(200)
            self._check(lib.pico_loadResource(self.system, str(folder / file).encode(), ctypes.byref(resource)),
                        f"load {folder / file}")
            self._check(lib.pico_getResourceName(self.system, resource, name), "name a resource")
            self._check(lib.pico_addResourceToVoiceDefinition(self.system, voice, name.value), "add a resource")
        self._check(lib.pico_newEngine(self.system, voice, ctypes.byref(self.engine)), "make its engine")
        self._buffer = ctypes.create_string_buffer(_READ)

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            message = ctypes.create_string_buffer(200)
            if self.system:
                self.lib.pico_getSystemStatusMessage(self.system, status, message)
            raise ModelError(f"SVOX Pico could not {what}: {message.value.decode('utf-8', 'replace') or status}",
                             hint="reinstall py-nanotts==0.1.1; `avatar doctor` names the voice in use")

    def speak(self, text: str, stop: Callable[[], bool] = lambda: False) -> np.ndarray:
        """int16 PCM of `text` (Pico markup included); empty when `stop()` said so between two reads."""
        data = text.encode("utf-8") + b"\0"  # the NUL ends the input: Pico speaks what is left
        sent, got, kind = ctypes.c_int16(), ctypes.c_int16(), ctypes.c_int16()
        out: list[bytes] = []
        with self.lock:
            at = 0
            while at < len(data):
                self._check(self.lib.pico_putTextUtf8(self.engine, data[at:], min(len(data) - at, 32767),
                                                      ctypes.byref(sent)), "read the text")
                if sent.value <= 0:
                    raise ModelError("SVOX Pico took no text", hint="reinstall py-nanotts==0.1.1")
                at += sent.value
                while True:
                    status = self.lib.pico_getData(self.engine, self._buffer, _READ, ctypes.byref(got), ctypes.byref(kind))
                    if status not in (_STEP_BUSY, _STEP_IDLE):
                        self.lib.pico_resetEngine(self.engine, _RESET_SOFT)
                        self._check(status, "synthesize")
                    if got.value > 0:
                        out.append(self._buffer.raw[:got.value])
                    if stop():
                        self.lib.pico_resetEngine(self.engine, _RESET_SOFT)  # drops the rest of the text
                        return np.zeros(0, np.int16)
                    if status != _STEP_BUSY:
                        break
        return np.frombuffer(b"".join(out), dtype="<i2").astype(np.int16)


_PICOS: dict[str, _Pico] = {}
_PICOS_LOCK = threading.Lock()


def _pico(lang: str) -> _Pico:
    with _PICOS_LOCK:
        if lang not in _PICOS:
            _PICOS[lang] = _Pico(lang)
        return _PICOS[lang]


def _trim_tail(pcm: np.ndarray, rate: int) -> np.ndarray:
    """The audio up to _TAIL_KEEP_S after its last loud sample."""
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > _QUIET)
    return pcm[: int(loud[-1]) + 1 + int(_TAIL_KEEP_S * rate)] if loud.size else pcm[:0]


class PicoEngine:
    """`synthesize(text)` -> (int16 PCM at 16 kHz, mouth shapes), like the espeak-ng engine."""

    sample_rate = SAMPLE_RATE

    def __init__(self, lang: str, espeak_rate: int = 165, lip_sync: bool = True) -> None:
        self.lang = lang
        self.pico = _pico(lang)
        self._espeak = None
        if lip_sync:
            try:
                from avatar.tts.espeak_engine import EspeakEngine

                self._espeak = EspeakEngine(lang, espeak_rate)
            except ModelError as exc:  # the mouth follows the loudness instead
                log.info("Pico's mouth shapes follow its loudness (espeak-ng for the phonemes: %s)", exc)

    def synthesize(self, text: str, stop: Callable[[], bool] = lambda: False):
        spoken = " ".join(_MARKUP.sub(" ", text).split())
        if not spoken:
            return np.zeros(0, np.int16), []
        pcm = _trim_tail(self.pico.speak(f'<volume level="{VOLUME}">{spoken}</volume>', stop), self.sample_rate)
        return pcm, self.mouth(spoken, pcm)

    def mouth(self, text: str, pcm: np.ndarray) -> list[tuple[float, float, str]]:
        """Mouth shapes for Pico's audio of `text`: espeak-ng's phonemes moved onto it, else its loudness."""
        from avatar.tts.phoneme_warp import warp_phonemes

        total = len(pcm) / self.sample_rate
        if self._espeak is not None and pcm.size:
            source, timed = self._espeak.timed_phonemes(text)
            moved = warp_phonemes(timed, source, self._espeak.sample_rate, pcm, self.sample_rate)
            if moved:
                track = visemes.from_timed_phonemes(moved, total)
                if track and track[0][0] > 0:
                    track.insert(0, (0.0, track[0][0], "rest"))
                return track
        return visemes.from_loudness(pcm, self.sample_rate)
