"""Start the kiosk app around a voice loop: the Qt application, the window, the event bridge, the
loop's own thread (which also loads the models, so the window is up at once), the debug trace file,
and a screenshot when the input turns are done."""
from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from avatar import terminate
from avatar.errors import AvatarError, DeviceWaitExpired
from avatar.events import Notice, TurnMetrics
from avatar.ui.demo_script import DEMO_NOTICE
from avatar.report import record_turn_metrics, trace_file_for_run
from avatar.trace import Tracer
from avatar.ui.event_bridge import EventBridge
from avatar.ui.window import KioskWindow

log = logging.getLogger(__name__)
TRACE_EVERY_S = 30
SIGNAL_CHECK_MS = 250  # how soon a window notices SIGTERM (avatar/terminate.py)
# How avatar/answer/last_good.py's start-up notice begins (tests/test_knowledge_watch.py ties the two).
KNOWLEDGE_NOTICE_START = "the knowledge pack does not load"


def qt_app() -> QApplication:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    return app


def notice_key(text: str) -> str:
    """The locale key of a known operator notice given as plain text by the pipeline builder."""
    if text.startswith("de:") and "espeak" in text:
        return "german_voice_fallback"
    if text == DEMO_NOTICE:
        return "demo"
    if text.startswith(KNOWLEDGE_NOTICE_START):
        return "knowledge"  # replaced by the watch's notice once the pack is mended (pipeline/knowledge_watch.py)
    return ""


class App:
    """Owns the window and the loop's thread for one run; `exec()` returns the exit code."""

    def __init__(self, cfg, make_loop: Callable[[], tuple[object, list[str]]], tracer: Tracer, *, kiosk: bool,
                 debug: bool, lang: str | None = None, screenshot: str | None = None, quit_when_done: bool = False,
                 restart_after_s: float | None = None):
        """make_loop runs on the loop's thread and returns (voice loop, notices for the operator).
        restart_after_s: a live kiosk builds a new loop this long after one ended (a lost microphone)."""
        self.qt = qt_app()
        self.cfg, self.make_loop, self.tracer = cfg, make_loop, tracer
        self.loop = None
        self.screenshot = screenshot
        self.quit_when_done = quit_when_done
        self.restart_after_s = restart_after_s
        self.restarts = 0
        self.loop_error: BaseException | None = None
        self.window = KioskWindow(cfg, None, kiosk=kiosk, debug=debug, lang=lang)
        self.window.set_starting(True)
        self.bridge = EventBridge()
        self.bridge.connect_to(self.window.handle_event, self.window.handle_span, self._loop_finished,
                               self._loop_ready)
        tracer.subscribe(self.bridge.post_span)
        self.window.exit_requested.connect(self.quit)
        self.window.closed.connect(self.quit)
        self.trace_path: Path | None = None
        if debug:
            self.trace_path = trace_file_for_run(cfg)
            self.window.debug_panel.set_trace_path(str(self.trace_path))
            self._trace_timer = QTimer(self.window)
            self._trace_timer.timeout.connect(self.export_trace)
            self._trace_timer.start(TRACE_EVERY_S * 1000)
        self._thread = self._new_thread()

    def _new_thread(self) -> threading.Thread:
        return threading.Thread(target=self._run_loop, name="voice-loop", daemon=True)

    def _restart_loop(self) -> None:
        if self._thread.is_alive():
            return
        self.restarts += 1
        self.window.set_starting(True)
        self._thread = self._new_thread()
        self._thread.start()

    def _run_loop(self) -> None:
        error = None
        try:
            loop, notices = self.make_loop()
            loop.subscribe(self.bridge.post_event)
            if self.trace_path is not None:
                loop.subscribe(self._trace_metrics)
            self.loop = loop
            from avatar.trace import process_age_s

            # on the console too: the journal and kiosk.log show when a kiosk (re)started was listening
            print(f"avatar: ready to listen {process_age_s():.1f} s after start (models loaded and warmed up)",
                  flush=True)
            self.bridge.post_ready(loop, list(notices))
            loop.run_until_done()
        except BaseException as exc:  # reported on the GUI thread as a friendly message
            error = exc
        self.bridge.post_finished(error)

    def notice(self, key: str, text: str) -> None:
        """An operator notice from any thread (text "" takes the notice with that key away)."""
        from avatar.trace import now

        self.bridge.post_event(Notice(now(), key=key, message=text))

    def _trace_metrics(self, event) -> None:  # on the loop's thread: the tracer is thread-safe
        if isinstance(event, TurnMetrics):
            record_turn_metrics(self.tracer, event)

    def _loop_ready(self, loop_and_notices) -> None:
        loop, notices = loop_and_notices
        self.window.attach_loop(loop)
        for text in notices:
            self.window.add_notice(text, notice_key(text))

    def _loop_finished(self, error: BaseException | None) -> None:
        self.window.set_starting(False)
        self.window.loop_ended()
        if isinstance(error, DeviceWaitExpired):  # its supervisor starts the kiosk again: exit, non-zero
            self.loop_error = error
            self.quit()
            return
        if error is not None:
            self.loop_error = error
            if not isinstance(error, AvatarError):  # an AvatarError is printed once, by the CLI, at exit
                log.error("the voice loop stopped: %s: %s", type(error).__name__, error)
                log.debug("voice loop failure", exc_info=error)
            if self.restart_after_s is None:
                self.window.show_banner(self.window.strings.get("error.unexpected"), "error", 3600)
        if self.restart_after_s is not None and not self.quit_when_done:
            self.loop = None
            self.window.show_banner(self.window.strings.get("status.restarting"), "recovered", self.restart_after_s + 2)
            QTimer.singleShot(int(self.restart_after_s * 1000), self._restart_loop)
        elif self.screenshot:
            QTimer.singleShot(400, self._save_screenshot)  # let the last clause and HUD paint first
        elif self.quit_when_done:
            QTimer.singleShot(200, self.quit)

    def _save_screenshot(self) -> None:
        path = Path(self.screenshot)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not self.window.grab().save(str(path)):
            log.error("could not save the screenshot to %s", path)
        else:
            print(f"screenshot: {path}")
        if self.quit_when_done:
            self.quit()

    def quit(self) -> None:
        # Qt's quit() first asks every window to close, and the kiosk window refuses while locked
        self.window._unlocked = True
        self.qt.quit()

    def export_trace(self) -> None:
        if self.trace_path is None:
            return
        try:
            self.tracer.export_chrome(self.trace_path)
        except OSError as exc:
            log.warning("could not write the trace %s: %s", self.trace_path, exc)

    def exec(self) -> int:
        previous_hook = sys.excepthook
        sys.excepthook = self._excepthook
        # we quit explicitly (PIN, window closed, screenshot taken); Qt's own quit-on-last-window
        # would fire again when the window goes away after exec() and leave the next exec() dead
        quit_on_last = self.qt.quitOnLastWindowClosed()
        self.qt.setQuitOnLastWindowClosed(False)
        try:
            if self.window.kiosk:
                self.window.place_on_screen()
            else:
                self.window.show()
            self._thread.start()
            # Python sees a signal only when it runs: the timer wakes it, and SIGTERM quits the window
            wake = QTimer()
            wake.timeout.connect(lambda: None)
            wake.start(SIGNAL_CHECK_MS)
            with terminate.while_running(self.quit):
                code = self.qt.exec()
            wake.stop()
        finally:
            sys.excepthook = previous_hook
            self.window._unlocked = True
            self.window.hide()
            self.qt.setQuitOnLastWindowClosed(quit_on_last)
            self._call_stop()
            self.export_trace()
            if self.trace_path is not None:
                print(f"trace: {self.trace_path}  (open in https://ui.perfetto.dev or `avatar report`)")
        if isinstance(self.loop_error, AvatarError):
            raise self.loop_error
        return int(code)

    def _call_stop(self) -> None:
        if self.loop is not None:
            try:
                getattr(self.loop, "close", self.loop.stop)()  # close: its threads end too
            except Exception as exc:
                log.warning("stopping the voice loop failed: %s", exc)
        self._thread.join(timeout=3.0)

    def _excepthook(self, etype, value, tb) -> None:
        # an exception escaping a Qt slot: log it for the operator, show the visitor a friendly line
        log.error("unexpected error in the UI", exc_info=(etype, value, tb))
        try:
            self.window.show_banner(self.window.strings.get("error.unexpected"), "error")
        except Exception:
            pass
