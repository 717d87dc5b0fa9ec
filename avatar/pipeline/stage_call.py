"""The watchdog: a stage call that takes too long is abandoned so the kiosk keeps answering.

Python cannot kill a hung thread. What the watchdog can do is never call into a stage instance
that still has an abandoned call in flight: such a call may hold the instance's lock (WhisperASR
holds one for the whole utterance), so the next turn would wait on it and hang too. A
`WatchedStage` therefore replaces the instance: a fresh one is built in the background (its
`renew` factory) and the next call goes there; until it is ready, the next call fails at once
(`StageUnavailable`) instead of queueing behind the hung one. Each instance has at most one
abandoned thread, so threads cannot pile up.
"""
from __future__ import annotations

import logging
import math
import threading
from typing import Any, Callable, Generic, TypeVar

from avatar.cancel import Cancelled, CancelToken
from avatar.errors import ConfigError
from avatar.trace import TRACER, Tracer, now

log = logging.getLogger(__name__)

T = TypeVar("T")
S = TypeVar("S")

TIMEOUT_KEY = "pipeline.stage_timeout_s"


class StageFailure(Exception):
    """A stage call that lost the turn, tagged with its stage. `restarting`: a fresh instance of the
    stage is being built for the next call (the turn's StageError says so)."""
    stage: str = ""
    restarting: bool = False


class StageTimeout(StageFailure):
    def __init__(self, stage: str, seconds: float, restarting: bool = False):
        super().__init__(f"{stage} took longer than {seconds:.1f} s and was abandoned"
                         + ("; a fresh instance takes over" if restarting else ""))
        self.stage = stage
        self.restarting = restarting  # a fresh instance is being built for the next call


class StageUnavailable(StageFailure):
    """The stage's instance is still stuck in an abandoned call and no fresh one is ready yet."""

    def __init__(self, stage: str, restarting: bool = False):
        super().__init__(f"{stage} is still stuck in an earlier call and "
                         + ("a fresh instance is still being built" if restarting else "cannot be replaced"))
        self.stage = stage
        self.restarting = restarting


class StageRaised(StageFailure):
    """A stage's own error, tagged with the stage (where the caller cannot tell which one it was)."""

    def __init__(self, stage: str, error: Exception):
        super().__init__(f"{stage} failed: {type(error).__name__}: {error}")
        self.stage = stage


class StageOutputError(StageFailure):
    """A stage returned something that breaks its contract (wrong type, empty)."""

    def __init__(self, stage: str, what: str):
        super().__init__(f"{stage} returned {what}")
        self.stage = stage


def checked_timeout(value: Any, key: str = TIMEOUT_KEY) -> float:
    """The watchdog's limit in seconds; nan, inf, 0 or a negative value would switch it off."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{key} = {value!r} is not a number of seconds",
                          hint=f"set {key} to a positive number, e.g. {key}=5") from None
    if isinstance(value, bool) or not math.isfinite(seconds) or seconds <= 0:
        raise ConfigError(f"{key} = {value!r} would switch the stage watchdog off",
                          hint=f"set {key} to a finite number of seconds above 0, e.g. {key}=5")
    return seconds


def _start(stage: str, fn: Callable[[], T]) -> tuple[threading.Thread, threading.Event, dict[str, Any]]:
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    thread = threading.Thread(target=target, name=f"stage-{stage}", daemon=True)
    thread.start()
    return thread, done, box


def _result(box: dict[str, Any]) -> Any:
    if "error" in box:
        raise box["error"]
    return box["value"]


def call_with_timeout(stage: str, fn: Callable[[], T], timeout_s: float, token: CancelToken) -> T:
    """Run fn on a fresh thread; give up after timeout_s or when the token is cancelled."""
    timeout_s = checked_timeout(timeout_s)
    thread, done, box = _start(stage, fn)
    deadline = now() + timeout_s
    while not done.wait(0.005):
        if token.cancelled:
            raise Cancelled(token.reason)
        if now() > deadline:
            raise StageTimeout(stage, timeout_s)
    return _result(box)


class WatchedStage(Generic[S]):
    """One stage behind the watchdog: `call(lambda stage: stage.method(...), token)`.

    `renew()` builds a fresh instance (loading its model again); without it an instance with an
    abandoned call is used again only once that call has returned by itself.
    """

    def __init__(self, name: str, instance: S, timeout_s: float, *, renew: Callable[[], S] | None = None,
                 on_renewed: Callable[[S], None] | None = None, tracer: Tracer = TRACER):
        self.name = name
        self.on_renewed = on_renewed  # whoever shares the instance (a restarted loop) gets the fresh one
        self.timeout_s = checked_timeout(timeout_s)
        self.renew = renew if renew is not None else getattr(instance, "renew", None)
        self.tracer = tracer
        self._instance = instance
        self._lock = threading.Lock()
        self._stuck: dict[int, threading.Thread] = {}  # id(instance) -> its abandoned call
        # id(instance) -> (a cancelled call still running, when it would have timed out): a stage
        # looks at its token between steps, so it usually ends soon; past its limit it counts as hung
        self._cancelled: dict[int, tuple[threading.Thread, float]] = {}
        self._renewing: threading.Thread | None = None
        self._live: list[threading.Thread] = []  # call threads started (pruned as they end)
        self.renewals = 0

    def settle(self, timeout: float) -> list[str]:
        """Wait up to `timeout` for this stage's calls still running (cancelled, abandoned, in flight)
        and for a fresh instance being built; the names of the threads still running after it."""
        deadline = now() + timeout
        with self._lock:
            threads = [*self._live, *self._stuck.values(), *(t for t, _ in self._cancelled.values())]
            if self._renewing is not None:
                threads.append(self._renewing)
        for thread in threads:
            thread.join(max(0.0, deadline - now()))
        return [t.name for t in threads if t.is_alive()]

    @property
    def instance(self) -> S:
        return self._instance

    def call(self, fn: Callable[[S], T], token: CancelToken, timeout_s: float | None = None,
             wait_fresh: bool = True) -> T:
        """fn(instance) on a stage thread, within the watchdog's limit (or the shorter timeout_s).

        wait_fresh=False: fail at once while a fresh instance is being built (a caller with a
        fallback of its own should not wait for a model to load).
        """
        limit = self.timeout_s if timeout_s is None else min(self.timeout_s, timeout_s)
        deadline = now() + limit
        instance = self._acquire(deadline if wait_fresh else now(), token)
        thread, done, box = _start(self.name, lambda: fn(instance))
        with self._lock:  # every call thread is known until it ends (settle() waits for them)
            self._live = [t for t in self._live if t.is_alive()] + [thread]
        while not done.wait(0.005):
            if token.cancelled:
                with self._lock:
                    self._cancelled = {k: v for k, v in self._cancelled.items() if v[0].is_alive()}
                    self._cancelled[id(instance)] = (thread, deadline)
                raise Cancelled(token.reason)
            if now() > deadline:
                restarting = self._abandon(instance, thread, f"no result after {limit:.1f} s")
                raise StageTimeout(self.name, limit, restarting)
        return _result(box)

    # --- instances ---------------------------------------------------------------------------
    def _usable(self) -> S | None:
        """The current instance unless an abandoned call is still in it (lock held by the caller)."""
        stuck = self._stuck.get(id(self._instance))
        if stuck is not None and stuck.is_alive():
            return None
        self._stuck.pop(id(self._instance), None)
        return self._instance

    def _acquire(self, deadline: float, token: CancelToken) -> S:
        """A usable instance: waits for a fresh one being built, never for a hung call's lock."""
        with self._lock:
            current = self._instance
            thread, limit = self._cancelled.pop(id(current), (None, 0.0))
        if thread is not None and thread.is_alive():
            if now() > limit:
                self._abandon(current, thread, "a cancelled call never returned")
            else:
                with self._lock:  # still finishing: this call may wait for it within its own limit
                    self._cancelled.setdefault(id(current), (thread, limit))
        while True:
            with self._lock:
                instance = self._usable()
                renewing = self._renewing is not None and self._renewing.is_alive()
            if instance is not None:
                return instance
            if not renewing or now() > deadline:
                self.tracer.instant("stage_unavailable", stage=self.name)
                raise StageUnavailable(self.name, renewing)
            token.raise_if_cancelled()
            token.wait(0.01)

    def _abandon(self, instance: S, thread: threading.Thread, why: str) -> bool:
        """Never call into `instance` again while `thread` runs; True when a fresh one takes over."""
        log.warning("watchdog: %s abandoned (%s)", self.name, why)
        self.tracer.instant("stage_abandoned", stage=self.name, reason=why)
        with self._lock:
            self._stuck = {k: t for k, t in self._stuck.items() if t.is_alive()}
            self._stuck[id(instance)] = thread
            if instance is not self._instance:
                return True  # already replaced
            if self.renew is None:
                return False
            if self._renewing is None or not self._renewing.is_alive():
                self._renewing = threading.Thread(target=self._renew, args=(instance,),
                                                  name=f"stage-{self.name}-renew", daemon=True)
                self._renewing.start()
            return True

    def _renew(self, old: S) -> None:
        t0 = now()
        try:
            fresh = self.renew()  # type: ignore[misc]
        except Exception as exc:  # the old instance is used again once its call returns
            log.warning("watchdog: a fresh %s could not be made: %s", self.name, exc)
            self.tracer.record("stage_renew", t0, stage=self.name, outcome="failed", error=str(exc))
            return
        with self._lock:
            if self._instance is old:
                self._instance = fresh
                self.renewals += 1
        if self.on_renewed is not None:
            self.on_renewed(fresh)
        self.tracer.record("stage_renew", t0, stage=self.name, outcome="ok")

    @property
    def renewing(self) -> bool:
        with self._lock:
            return self._renewing is not None and self._renewing.is_alive()

    def wait_renewed(self, timeout: float) -> bool:
        """For tests and shutdown: wait until no fresh instance is being built."""
        thread = self._renewing
        if thread is not None:
            thread.join(timeout)
        return not self.renewing
