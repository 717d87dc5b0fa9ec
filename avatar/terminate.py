"""SIGTERM (`systemctl stop`, `kill`, a desktop session logging out) stops a command the way Ctrl-C
does: what it started is closed (the voice loop's threads joined, the visit ended, a debug trace
written, a soak's or bench's report printed), and the process exits with 143 (128 + SIGTERM).
Without this the interpreter died on the spot and none of that happened.

Outside a window the handler raises `Terminated` (a KeyboardInterrupt, so every command's Ctrl-C
path applies). Qt's event loop does not let an exception out of a slot, so a running window
registers its own way to quit (`while_running`), and a timer there lets Python see the signal.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

EXIT_CODE = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """The process was asked to stop (SIGTERM)."""


_quitters: list[Callable[[], None]] = []
_received = threading.Event()


def install() -> None:
    """Handle SIGTERM from now on (the program's main thread only; a library user keeps its own)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)


def restore() -> None:
    """The default again (the command is over: a second SIGTERM while it exits ends the process)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def received() -> bool:
    """Whether SIGTERM arrived (a window that quit because of it exits with EXIT_CODE)."""
    return _received.is_set()


@contextmanager
def while_running(quit_: Callable[[], None]) -> Iterator[None]:
    """While the block runs, SIGTERM calls `quit_` (on the main thread) instead of raising."""
    _quitters.append(quit_)
    try:
        yield
    finally:
        _quitters.remove(quit_)


def _on_sigterm(signum, frame) -> None:
    _received.set()
    if _quitters:
        _quitters[-1]()
        return
    raise Terminated()
