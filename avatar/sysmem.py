"""Keeping a long-running kiosk's resident memory to what it uses (glibc's allocator).

Every stage call runs on a fresh thread, and glibc gives threads their own malloc arenas (up to 8
per core); memory freed in them stays with the process, scattered over the arenas, so RSS creeps up
over the turns although nothing is leaked (a 150-turn soak: +213 MB, almost none of it Python
objects). `limit_arenas(2)` at start-up (what MALLOC_ARENA_MAX=2 does; the `avatar` program calls
it unless that variable is set) took the same soak from 910 to 800 MB at the end and its
second-half slope from 69 to 28 MB per 100 turns (docs/PERF.md, "Endurance"); `trim()` returns
the free pages of every arena, called by the voice loop when a visitor has left. Elsewhere than
glibc both do nothing.

`bound_onednn_cache()` caps oneDNN's primitive cache (ONEDNN_PRIMITIVE_CACHE_CAPACITY, unless set):
CTranslate2's Whisper encoder runs on the utterance's own length (avatar/asr/whisper_asr.py), and
every new frame count makes two new convolution primitives (~0.7 MB of heap plus their JIT code)
that oneDNN's default cache of 1,024 keeps: the kiosk's memory grew for hundreds of turns, one
length at a time (docs/PERF.md, "Endurance": "What grows: oneDNN's primitive cache").
"""
from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os

log = logging.getLogger(__name__)
_trim = None
_looked = False


M_ARENA_MAX = -8  # mallopt parameter (glibc malloc.h)
ONEDNN_CACHE_VAR = "ONEDNN_PRIMITIVE_CACHE_CAPACITY"
ONEDNN_CACHE_CAPACITY = 64  # primitives (oneDNN's default: 1,024); 32 encoder lengths of Whisper's two convolutions


def _libc():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def limit_arenas(count: int = 2) -> bool:
    """At most `count` malloc arenas for the threads started from now on; True when glibc took it."""
    libc = _libc()
    try:
        return bool(libc is not None and libc.mallopt(ctypes.c_int(M_ARENA_MAX), ctypes.c_int(int(count))))
    except AttributeError:  # not glibc
        return False


def bound_onednn_cache(capacity: int = ONEDNN_CACHE_CAPACITY) -> int:
    """Cap oneDNN's primitive cache at `capacity` unless the variable is already set (a user's
    choice wins); the capacity in force. oneDNN reads it when it makes its first primitive, so
    this must run before the first transcription (WhisperASR calls it before loading the model,
    the `avatar` program at start)."""
    value = os.environ.setdefault(ONEDNN_CACHE_VAR, str(int(capacity)))
    try:
        return int(value)
    except ValueError:
        return -1  # not a number: oneDNN ignores it and keeps its default


def trim() -> bool:
    """Return freed heap memory to the system; True when glibc's malloc_trim ran."""
    global _trim, _looked
    if not _looked:
        _looked = True
        try:
            _trim = _libc().malloc_trim
            _trim.argtypes, _trim.restype = [ctypes.c_size_t], ctypes.c_int
        except AttributeError:  # no libc, or not glibc
            _trim = None
    if _trim is None:
        return False
    try:
        _trim(0)
        return True
    except Exception:  # never let housekeeping break the kiosk
        log.debug("malloc_trim failed", exc_info=True)
        return False
