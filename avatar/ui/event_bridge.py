"""Carries events and spans from the voice loop's worker threads onto the GUI thread.

The loop calls `post_event`/`post_span` from any thread; they only emit a Qt signal. The signals
are connected, queued, to the bridge's own slots, and the bridge lives on the GUI thread, so the
handlers always run there (a plain Python callable as the receiver would leave that to chance).
So audio never waits for a repaint, and the GUI never touches the loop's state.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt, Signal, Slot

from avatar.events import Event
from avatar.trace import Span


class EventBridge(QObject):
    event = Signal(object)
    span = Signal(object)
    loop_ready = Signal(object)  # (loop, notices): the models are loaded, the loop runs
    loop_finished = Signal(object)  # the loop's run_until_done returned: None or the exception it raised

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._handlers: dict[str, list[Callable]] = {"event": [], "span": [], "ready": [], "finished": []}
        self.event.connect(self._deliver_event, Qt.QueuedConnection)
        self.span.connect(self._deliver_span, Qt.QueuedConnection)
        self.loop_ready.connect(self._deliver_ready, Qt.QueuedConnection)
        self.loop_finished.connect(self._deliver_finished, Qt.QueuedConnection)

    # --- any thread -------------------------------------------------------------------------------
    def post_event(self, event: Event) -> None:
        self.event.emit(event)

    def post_span(self, span: Span) -> None:
        self.span.emit(span)

    def post_ready(self, loop: object, notices: list[str]) -> None:
        self.loop_ready.emit((loop, notices))

    def post_finished(self, error: BaseException | None = None) -> None:
        self.loop_finished.emit(error)

    # --- GUI thread -------------------------------------------------------------------------------
    def connect_to(self, on_event: Callable | None = None, on_span: Callable | None = None,
                   on_finished: Callable | None = None, on_ready: Callable | None = None) -> None:
        for key, fn in (("event", on_event), ("span", on_span), ("finished", on_finished), ("ready", on_ready)):
            if fn is not None:
                self._handlers[key].append(fn)

    def _call(self, key: str, value: object) -> None:
        for fn in list(self._handlers[key]):
            fn(value)

    @Slot(object)
    def _deliver_event(self, event: object) -> None:
        self._call("event", event)

    @Slot(object)
    def _deliver_span(self, span: object) -> None:
        self._call("span", span)

    @Slot(object)
    def _deliver_ready(self, value: object) -> None:
        self._call("ready", value)

    @Slot(object)
    def _deliver_finished(self, error: object) -> None:
        self._call("finished", error)
