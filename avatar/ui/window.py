"""The kiosk window: the character, the conversation, the language buttons, the HUD and the debug
panel. It only observes the voice loop's events (delivered on the GUI thread by EventBridge) and
calls the loop's control methods; nothing here waits on audio or a model. Its widgets and their
arrangement by window shape: avatar/ui/window_layout.py (the conversation box:
avatar/ui/conversation_box.py; the admin corner: avatar/ui/admin.py).
"""
from __future__ import annotations

import logging
from typing import Any, Protocol

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QGuiApplication, QKeySequence, QLinearGradient, QPainter, QShortcut
from PySide6.QtWidgets import QWidget

from avatar import events as ev
from avatar.errors import ConfigError
from avatar.trace import Span
from avatar.ui.admin import PinDialog
from avatar.ui.pin import PinLock, StoredPin, stored_pin
from avatar.locales import Strings, load_strings
from avatar.ui.theme import BACKGROUND_BOTTOM, BACKGROUND_TOP, STYLE_SHEET
from avatar.ui.window_layout import KioskLayout

log = logging.getLogger(__name__)


class LoopControl(Protocol):
    """What the window may ask of the voice loop."""

    def set_language(self, lang: str) -> None: ...
    def stop(self) -> None: ...


class KioskWindow(KioskLayout, QWidget):
    exit_requested = Signal()  # the admin PIN was right: the app may quit
    closed = Signal()  # the window really closed (windowed mode, or after the PIN)

    def __init__(self, cfg, loop: LoopControl | None = None, *, kiosk: bool = True, debug: bool = False,
                 lang: str | None = None):
        super().__init__()
        self.cfg = cfg
        self.loop = loop
        self.kiosk = kiosk
        self.debug = debug
        self.languages: list[str] = list(cfg.general.languages)
        self.strings_by_lang = {lang_: load_strings(lang_) for lang_ in ("de", "en")}
        chosen = lang or cfg.general.lang
        self.auto_lang = chosen == "auto"
        self.lang = self.languages[0] if self.auto_lang else chosen
        self.strings: Strings = self.strings_by_lang[self.lang]
        self.state = "idle"
        self.current_turn: int | None = None
        self._reply_text = ""  # the whole reply, shown if its clauses never arrive
        self._unlocked = False
        self._debug_keys = debug  # H (the HUD) for everyone only in debug mode; otherwise after the admin PIN
        self.starting = False  # models still loading: the status chip says so
        self._notice_texts: list[tuple[str, str]] = []  # operator notices: (locale key or "", text as given)
        self.pin_dialog: PinDialog | None = None
        self.pin_lock = PinLock()  # wrong tries count across dialogs: cancelling does not reset them

        self.setObjectName("kiosk")
        self.setStyleSheet(STYLE_SHEET)
        self.setWindowTitle(self.strings.get("app.title"))
        self._build()
        self.hud.setVisible(debug or bool(cfg.kiosk.hud))
        self.debug_panel.setVisible(debug)
        self._apply_strings(self.lang)
        self.set_language(chosen, from_user=False)
        self._install_shortcuts()
        app = QGuiApplication.instance()
        if app is not None:
            app.screenAdded.connect(self._screens_changed)
            app.screenRemoved.connect(self._screens_changed)
            app.primaryScreenChanged.connect(self._screens_changed)
        if kiosk and not self._stored_pin().is_set:
            # no PIN is shipped: the operator sees at once that the kiosk cannot be left yet
            self.add_notice("No admin PIN is set: run `avatar admin set-pin`.", "no_admin_pin")
        if kiosk:
            self.setWindowFlags(Qt.Window | Qt.FramelessWindowHint | Qt.WindowStaysOnTopHint)
            self.setCursor(Qt.BlankCursor)
        else:
            self.resize(1280, 800)

    # --- layout (the widgets and their arrangement: avatar/ui/window_layout.py) --------------------
    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange()
        self.layout().activate()  # place the children now, for this size
        if self.banner.isVisible():
            self._place_banner()
        self.admin_corner.move(0, 0)
        self.admin_corner.raise_()

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        grad = QLinearGradient(0, 0, 0, self.height())
        grad.setColorAt(0.0, QColor(BACKGROUND_TOP))
        grad.setColorAt(1.0, QColor(BACKGROUND_BOTTOM))
        p.fillRect(self.rect(), grad)
        p.end()

    def _install_shortcuts(self) -> None:
        QShortcut(QKeySequence("Ctrl+Alt+Q"), self, activated=self.open_admin)
        QShortcut(QKeySequence(Qt.Key_H), self, activated=self.hud_key)
        QShortcut(QKeySequence(Qt.Key_D), self, activated=self.toggle_debug_panel)

    # --- kiosk operation ------------------------------------------------------------------------
    def place_on_screen(self) -> None:
        """Fill the current (or, if it went away, the primary) screen."""
        screens = QGuiApplication.screens()
        screen = self.screen() if self.screen() in screens else QGuiApplication.primaryScreen()
        if screen is None:
            return
        if self.kiosk:
            self.setGeometry(screen.geometry())
            self.showFullScreen()
        elif not screen.availableGeometry().intersects(self.geometry()):
            self.move(screen.availableGeometry().topLeft())

    def _screens_changed(self, *_args) -> None:
        QTimer.singleShot(0, self.place_on_screen)  # after Qt has moved the window off a lost screen

    def open_admin(self, then=None) -> None:
        """The PIN dialog; a right PIN calls `then` (default: leave the kiosk)."""
        if self.pin_dialog is not None and self.pin_dialog.isVisible():
            return
        self.pin_dialog = PinDialog(self._stored_pin(), self.strings, self.pin_lock, self)
        self.pin_dialog.unlocked.connect(then or self._unlock)
        self.pin_dialog.open()

    def hud_key(self) -> None:
        """The H key: a visitor must not open the operator's view, so outside debug mode it asks for the PIN once."""
        if self._debug_keys:
            self.toggle_hud()
        else:
            self.open_admin(then=self._unlock_debug_keys)

    def _unlock_debug_keys(self) -> None:
        self._debug_keys = True
        self.toggle_hud()

    def _stored_pin(self) -> StoredPin:
        """Read at each opening, so a PIN set while the kiosk runs counts; a broken one counts as none."""
        try:
            return stored_pin(self.cfg)
        except ConfigError as exc:
            log.error("admin PIN unusable: %s", exc)
            return StoredPin("", "")

    def _unlock(self) -> None:
        self._unlocked = True
        self.exit_requested.emit()
        self.close()

    def closeEvent(self, event) -> None:
        if self.kiosk and not self._unlocked:
            event.ignore()  # Alt+F4 and friends: only the admin PIN closes a kiosk
            return
        super().closeEvent(event)
        self.closed.emit()

    def toggle_hud(self) -> None:
        self.hud.setVisible(not self.hud.isVisible())
        self._arrange()  # the conversation takes the HUD's room, or gives it back

    def toggle_debug_panel(self) -> None:
        if self.debug:
            self.debug_panel.setVisible(not self.debug_panel.isVisible())

    def attach_loop(self, loop: LoopControl) -> None:
        """The loop is built (models loaded): from now on the language buttons reach it."""
        self.loop = loop
        self.set_starting(False)
        chosen = "auto" if self.auto_lang else self.lang
        if chosen != self.cfg.general.lang:  # a button pressed while the models were loading
            self._call_loop("set_language", chosen)

    def set_starting(self, starting: bool) -> None:
        self.starting = starting
        self._set_state(self.state)

    # --- language -------------------------------------------------------------------------------
    def set_language(self, lang: str, from_user: bool = True) -> None:
        """A DE/EN/Auto button (from_user) or the detected language: switch texts and tell the loop."""
        if lang == "auto":
            self.auto_lang = True
        elif lang in self.strings_by_lang:
            if from_user:
                self.auto_lang = False
            self._apply_strings(lang)
        if from_user and self.loop is not None:
            self._call_loop("set_language", lang)
        self._sync_lang_buttons()

    def _apply_strings(self, lang: str) -> None:
        self.lang = lang
        self.strings = self.strings_by_lang[lang]
        s = self.strings
        self.setWindowTitle(s.get("app.title"))
        for code, button in self.lang_buttons.items():
            button.setText(s.get(f"language.{code}"))
            if code == "auto":
                button.setToolTip(s.get("language.auto_tip"))
        self.subtitles.set_strings(s)
        self.hud.set_strings(s)
        self.debug_panel.set_strings(s)
        self._show_notices()
        self._set_state(self.state)

    def _sync_lang_buttons(self) -> None:
        chosen = "auto" if self.auto_lang else self.lang
        for code, button in self.lang_buttons.items():
            button.setChecked(code == chosen)
            button.setProperty("detected", self.auto_lang and code == self.lang)
            button.style().unpolish(button)
            button.style().polish(button)

    def _call_loop(self, method: str, *args: Any) -> None:
        try:
            getattr(self.loop, method)(*args)
        except Exception as exc:  # a control call must not take the kiosk down
            log.warning("voice loop %s%r failed: %s", method, args, exc)
            self.show_banner(self.strings.get("error.unexpected"), "error")

    # --- conversation state ---------------------------------------------------------------------
    def _set_state(self, state: str) -> None:
        self.state = state
        shown = "starting" if self.starting and state == "idle" else state
        self.status.setText(self.strings.get(f"status.{shown}"))
        self.status.setProperty("state", state)
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)
        self.avatar.set_state(state)

    def show_idle(self) -> None:
        self.subtitles.clear()
        self.bottom.setCurrentWidget(self.idle_screen)
        self.avatar.set_mood("neutral")
        self.avatar.clear_visemes()
        self._set_state("idle")

    @property
    def idle_visible(self) -> bool:
        return self.bottom.currentWidget() is self.idle_screen

    def _show_conversation(self) -> None:
        self.bottom.setCurrentWidget(self.subtitles)

    # --- observing the loop ---------------------------------------------------------------------
    def handle_span(self, span: Span) -> None:
        if span.turn is None:
            return
        self.hud_model.add_span(span)
        if self.hud.isVisible():
            self.hud.refresh()

    def handle_event(self, event: ev.Event) -> None:
        try:
            self._dispatch(event)
        except Exception:  # the visitor sees a friendly line; the operator finds the details in the log
            log.exception("UI failed on %s", type(event).__name__)
            self.show_banner(self.strings.get("error.unexpected"), "error")

    def _dispatch(self, e: ev.Event) -> None:
        if isinstance(e, ev.SpeechStart):
            self._show_conversation()
            if self.state != "speaking":
                self.subtitles.show_partial("")
            self.avatar.set_mood("neutral")
            self._set_state("listening")
        elif isinstance(e, ev.Resumed):
            self._set_state("listening")
        elif isinstance(e, ev.EndOfTurn):
            self._set_state("thinking")
        elif isinstance(e, ev.PartialTranscript):
            self._show_conversation()
            self.subtitles.show_partial(e.text)
        elif isinstance(e, ev.FinalTranscript):
            if e.dropped:
                self.subtitles.show_final("")
                if self.state in ("listening", "thinking"):
                    self._set_state("idle")
            else:
                self._show_conversation()
                self._follow_detected_language(e.lang)
                self.subtitles.show_final(e.text)
        elif isinstance(e, ev.ReplyStarted):
            self.current_turn = e.turn
            self._follow_detected_language(e.lang)
            self._show_conversation()
            if e.question:
                self.subtitles.show_final(e.question)
            self.subtitles.start_reply()
            self._reply_text = ""
            self.hud_model.begin_turn(e.turn, e.lang)
            self.hud.refresh()
            self._set_state("thinking")
        elif isinstance(e, ev.ReplyClause):
            self._show_conversation()
            self.subtitles.add_clause(e.text)
            if e.voice:
                self.hud_model.set_voice(e.turn, e.voice)
                self.hud.refresh()
        elif isinstance(e, ev.ReplyDone):
            self._reply_text = e.text  # clauses show it as it is spoken; this is the fallback
            self.avatar.set_mood(e.mood, e.gesture)
        elif isinstance(e, ev.Viseme):
            self.avatar.push_viseme(e.at, e.duration, e.viseme, e.level)
        elif isinstance(e, ev.PlaybackStarted):
            self._set_state("speaking")
        elif isinstance(e, ev.PlaybackStopped):
            self.avatar.clear_visemes()
            if not self.subtitles.reply_text and self._reply_text and e.reason == "done":
                self.subtitles.set_reply(self._reply_text)
            self._set_state("listening" if e.reason == "barge_in" else "idle")
        elif isinstance(e, ev.TurnMetrics):
            self.hud_model.add_metrics(e)
            self.hud.refresh()
            self.debug_panel.update_stats(self.hud_model.run_stages)
        elif isinstance(e, ev.StageError):
            self._stage_error(e)
        elif isinstance(e, (ev.Apology, ev.NotUnderstood)):  # what the avatar says instead of a reply
            self._show_conversation()
            self.subtitles.set_reply(e.text)
        elif isinstance(e, ev.LanguageChanged):
            if e.lang in self.strings_by_lang:
                self._apply_strings(e.lang)
                self._sync_lang_buttons()
        elif isinstance(e, ev.VisitorLeft):
            self.current_turn = None
            self.hud_model.reset_view()
            self.hud.refresh()
            self.show_idle()
        elif isinstance(e, ev.Notice):
            self.add_notice(e.message, e.key)

    def _follow_detected_language(self, lang: str) -> None:
        """In automatic mode the texts follow the language the visitor speaks (and is answered in)."""
        if self.auto_lang and lang in self.strings_by_lang and lang != self.lang:
            self._apply_strings(lang)
            self._sync_lang_buttons()

    def loop_ended(self) -> None:
        """The loop stopped (inputs done, or it failed): no one is listening any more."""
        if self.subtitles.partial:
            self.subtitles.show_final("")  # a half-heard utterance that will never be answered
        self.avatar.clear_visemes()
        self._set_state("idle")

    def _stage_error(self, e: ev.StageError) -> None:
        log.warning("stage %s failed (restarted=%s): %s", e.stage, e.restarted, e.message)
        stage = self.strings.stage_name(e.stage)
        key = "error.stage_restarted" if e.restarted else "error.stage_failed"
        text = self.strings.get(key, stage=stage)
        self.show_banner(text[:1].upper() + text[1:], "recovered" if e.restarted else "error", 10.0)
        self.avatar.set_mood("sorry")
        if self.state in ("thinking", "speaking"):
            self._set_state("idle")

    def show_banner(self, text: str, kind: str = "info", seconds: float = 8.0) -> None:
        self.banner.setFixedWidth(min(760, max(300, self.bottom_box.width() - 40)))
        self.banner.show_message(text, kind, seconds)
        self.banner.adjustSize()
        self._place_banner()

    def _place_banner(self) -> None:
        # just above the subtitles, over their column: where the visitor is already looking, clear of the HUD
        box = self.bottom_box.geometry()
        y = box.top() - self.banner.height() - 12
        self.banner.move(box.center().x() - self.banner.width() // 2, max(76, y))

    def add_notice(self, text: str, key: str = "") -> None:
        """An operator notice (e.g. German spoken by espeak-ng); shown small, in the current language.
        A notice with a key replaces the one before with that key (the knowledge pack mended after a
        broken save: the mistake is no longer shown); an empty text with a key takes it away."""
        if key:
            self._notice_texts = [(k, t) for k, t in self._notice_texts if k != key]
        if text and (key, text) not in self._notice_texts:
            self._notice_texts.append((key, text))
        self._show_notices()

    def _show_notices(self) -> None:
        lines = [self.strings.get(f"notice.{k}") if k and self.strings.has(f"notice.{k}") else t
                 for k, t in self._notice_texts]
        self.notices.setText("  ·  ".join(lines))
        self.notices.setVisible(bool(lines))
