"""Keeping a long-running kiosk's resident memory to what it uses (glibc's allocator).

Every stage call runs on a fresh thread, and glibc gives threads their own malloc arenas (up to 8
per core); memory freed in them stays with the process, scattered over the arenas, so RSS creeps up
over the turns although nothing is leaked (a 150-turn soak: +213 MB, almost none of it Python
objects). `limit_arenas(2)` at start-up (what MALLOC_ARENA_MAX=2 does; the `avatar` program calls
it unless that variable is set) took the same soak from 910 to 800 MB at the end and its
second-half slope from 69 to 28 MB per 100 turns (docs/PERF.md, "Endurance"); `trim()` returns
the free pages of every arena, called by the voice loop when a visitor has left. Elsewhere than
glibc both do nothing.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)
_trim = None
_looked = False


M_ARENA_MAX = -8  # mallopt parameter (glibc malloc.h)


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
