"""Carries events and spans from the voice loop's worker threads onto the GUI thread.

The loop calls `post_event`/`post_span` from any thread; they only emit a Qt signal, which a queued
connection delivers on the GUI thread. So audio never waits for a repaint, and the GUI never
touches the loop's state.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal

from avatar.events import Event
from avatar.trace import Span


class EventBridge(QObject):
    event = Signal(object)
    span = Signal(object)
    loop_finished = Signal(object)  # the loop's run_until_done returned: None or the exception it raised

    def post_event(self, event: Event) -> None:
        self.event.emit(event)

    def post_span(self, span: Span) -> None:
        self.span.emit(span)

    def post_finished(self, error: BaseException | None = None) -> None:
        self.loop_finished.emit(error)

    def connect_to(self, on_event, on_span=None, on_finished=None) -> None:
        # queued even when posted from the GUI thread: handlers then never run inside a stage's call
        self.event.connect(on_event, Qt.QueuedConnection)
        if on_span is not None:
            self.span.connect(on_span, Qt.QueuedConnection)
        if on_finished is not None:
            self.loop_finished.connect(on_finished, Qt.QueuedConnection)
