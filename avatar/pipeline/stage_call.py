"""The watchdog: a stage call that takes too long is abandoned so the kiosk keeps answering."""
from __future__ import annotations

import threading
from typing import Callable, TypeVar

from avatar.cancel import Cancelled, CancelToken
from avatar.trace import now

T = TypeVar("T")


class StageTimeout(Exception):
    def __init__(self, stage: str, seconds: float):
        super().__init__(f"{stage} took longer than {seconds:.1f} s and was abandoned")
        self.stage = stage


def call_with_timeout(stage: str, fn: Callable[[], T], timeout_s: float, token: CancelToken) -> T:
    """Run fn on a fresh thread; give up after timeout_s or when the token is cancelled.

    Python cannot kill a hung thread; it is abandoned (daemon) and the stage's next call starts
    a new one, which is the restart the watchdog can offer.
    """
    box: dict[str, object] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name=f"stage-{stage}", daemon=True).start()
    deadline = now() + timeout_s
    while not done.wait(0.005):
        if token.cancelled:
            raise Cancelled(token.reason)
        if timeout_s > 0 and now() > deadline:
            raise StageTimeout(stage, timeout_s)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]
