"""Cancellation shared by the pipeline and every stage: work can be abandoned at any point."""
from __future__ import annotations

import threading


class Cancelled(Exception):
    """Raised inside a stage when its work was cancelled."""


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""

    def cancel(self, reason: str = "") -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled(self.reason)

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)


NEVER = CancelToken()  # a token nobody cancels, for callers without cancellation
