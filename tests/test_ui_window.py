"""The kiosk window: language switching, admin exit behind the PIN, idle screen, stage errors,
events from worker threads, lip-sync."""
import os
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QPointF, Qt  # noqa: E402

from avatar import config  # noqa: E402
from avatar import events as ev  # noqa: E402
from avatar.trace import Span, now  # noqa: E402
from avatar.ui.admin import CornerTaps  # noqa: E402
from avatar.ui.demo_script import DEMO_TURNS, DemoLoop, turn_script  # noqa: E402
from avatar.ui.event_bridge import EventBridge  # noqa: E402
from avatar.ui.pin import PinLock, hash_pin  # noqa: E402
from avatar.ui.window import KioskWindow  # noqa: E402


PIN = "5831"
PIN_HASH = hash_pin(PIN)  # once per module: at the real iteration floor (a weaker hash is refused)


@pytest.fixture
def cfg(tmp_path):
    # the operator's PIN as a hash; no PIN file of this machine is read
    return config.load(env={}).with_overrides({"kiosk.admin_pin_hash": PIN_HASH,
                                               "kiosk.admin_pin_file": str(tmp_path / "no-pin-here")})


@pytest.fixture
def loop():
    return DemoLoop()  # never started: it only records the window's control calls


def make_window(qtbot, cfg, loop, **kw):
    kw.setdefault("kiosk", False)
    w = KioskWindow(cfg, loop, **kw)
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    return w


def feed(window, items):
    for _, item in items:
        if isinstance(item, Span):
            window.handle_span(item)
        else:
            window.handle_event(item)


def test_language_buttons_switch_strings_and_ask_the_loop_for_the_other_voice(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, lang="de")
    assert w.strings.lang == "de" and w.status.text() == "Bereit"
    qtbot.mouseClick(w.lang_buttons["en"], Qt.LeftButton)
    assert loop.language_requests == ["en"]
    assert w.lang == "en" and w.status.text() == "Ready"
    assert w.subtitles.visitor_name.text() == "You"
    assert w.lang_buttons["en"].isChecked() and not w.lang_buttons["de"].isChecked()
    qtbot.mouseClick(w.lang_buttons["auto"], Qt.LeftButton)
    assert loop.language_requests == ["en", "auto"] and w.auto_lang


def test_detected_language_switches_strings_without_calling_back_into_the_loop(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, lang="auto")
    w.handle_event(ev.LanguageChanged(now(), lang="en"))
    assert w.strings.lang == "en" and w.auto_lang
    w.handle_event(ev.LanguageChanged(now(), lang="de"))
    assert w.status.text() == "Bereit"
    assert loop.language_requests == []


def test_a_failing_loop_control_call_shows_a_friendly_message(qtbot, cfg):
    class BrokenLoop:
        def set_language(self, lang):
            raise RuntimeError("voice not loaded")

        def stop(self):
            pass

    w = make_window(qtbot, cfg, BrokenLoop(), lang="en")
    w.set_language("de")
    assert w.banner.isVisible() and "Traceback" not in w.banner.text()
    assert w.banner.text() == w.strings.get("error.unexpected")


def test_admin_exit_needs_the_pin(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, kiosk=True)
    exits = []
    w.exit_requested.connect(lambda: exits.append(True))
    w.close()  # Alt+F4 and the like
    assert w.isVisible()
    w.open_admin()
    dialog = w.pin_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.field.setText("0000")
    assert dialog.submit() is False
    assert dialog.message.text() == w.strings.get("admin.wrong")
    assert w.isVisible() and not exits
    for digit in PIN:
        qtbot.mouseClick(next(b for b in dialog.findChildren(type(dialog.ok_button)) if b.text() == digit),
                         Qt.LeftButton)
    qtbot.mouseClick(dialog.ok_button, Qt.LeftButton)
    assert exits == [True]
    assert not w.isVisible()


def test_without_a_pin_the_admin_panel_refuses_everything(qtbot, cfg, loop):
    w = make_window(qtbot, cfg.with_overrides({"kiosk.admin_pin_hash": ""}), loop, kiosk=True)
    assert w.strings.get("notice.no_admin_pin") in w.notices.text()  # the operator sees it at once
    w.open_admin()
    dialog = w.pin_dialog
    assert dialog.message.text() == w.strings.get("admin.no_pin")
    assert not dialog.ok_button.isEnabled() and not any(k.isEnabled() for k in dialog.keys)
    for entered in ("", "2468", PIN):  # 2468 was the shipped default once
        dialog.field.setText(entered)
        assert dialog.submit() is False
    assert w.isVisible()


def test_wrong_pins_lock_the_keypad_for_a_growing_time(qtbot, cfg, loop):
    clock = [1000.0]
    w = make_window(qtbot, cfg, loop, kiosk=True)
    w.pin_lock = PinLock(clock=lambda: clock[0])
    exits = []
    w.exit_requested.connect(lambda: exits.append(True))
    w.open_admin()
    dialog = w.pin_dialog
    for _ in range(3):
        dialog.field.setText("0000")
        assert dialog.submit() is False
    assert dialog.message.text() == w.strings.get("admin.locked", seconds=30)
    assert not dialog.ok_button.isEnabled() and not any(k.isEnabled() for k in dialog.keys)
    dialog.field.setText(PIN)  # while locked even the right PIN is refused (and not counted)
    assert dialog.submit() is False and w.pin_lock.failures == 3
    dialog.reject()
    w.open_admin()  # closing and reopening does not reset the lock
    dialog = w.pin_dialog
    assert not dialog.ok_button.isEnabled()
    clock[0] += 30
    dialog.refresh()
    assert dialog.ok_button.isEnabled() and dialog.message.text() == ""
    dialog.field.setText("1111")
    assert dialog.submit() is False
    assert dialog.message.text() == w.strings.get("admin.locked", seconds=60)  # doubled
    clock[0] += 60
    dialog.refresh()
    dialog.field.setText(PIN)
    assert dialog.submit() is True and exits == [True]
    assert w.pin_lock.failures == 0


def test_five_taps_in_the_corner_open_the_pin_dialog(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, kiosk=True)
    for _ in range(4):
        qtbot.mouseClick(w.admin_corner, Qt.LeftButton, pos=w.admin_corner.rect().center())
    assert w.pin_dialog is None
    qtbot.mouseClick(w.admin_corner, Qt.LeftButton, pos=w.admin_corner.rect().center())
    assert w.pin_dialog is not None and w.pin_dialog.isVisible()


def test_corner_taps_must_come_quickly_and_in_the_corner():
    taps = CornerTaps(taps=3, window_s=1.0, corner_px=100)
    assert not taps.tap(QPointF(10, 10), t=0.0)
    assert not taps.tap(QPointF(10, 10), t=0.5)
    assert not taps.tap(QPointF(10, 10), t=2.0)       # too slow: the first two expired
    assert not taps.tap(QPointF(500, 10), t=2.1)      # outside the corner resets
    assert not taps.tap(QPointF(10, 10), t=2.2)
    assert not taps.tap(QPointF(10, 10), t=2.3)
    assert taps.tap(QPointF(10, 10), t=2.4)


def test_kiosk_window_is_frameless_and_hides_the_cursor(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, kiosk=True)
    assert w.windowFlags() & Qt.FramelessWindowHint
    assert w.cursor().shape() == Qt.BlankCursor
    w.place_on_screen()  # also what a screen change triggers
    assert w.geometry() == w.screen().geometry()


def test_a_turn_fills_subtitles_and_the_idle_screen_returns_after_the_visitor_left(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, lang="auto")
    assert w.idle_visible
    spec = DEMO_TURNS[0]
    script = [(t, e) for t, e in turn_script(1, spec, now() - 30) if not isinstance(e, ev.PlaybackStopped)]
    feed(w, script)
    assert not w.idle_visible
    assert w.subtitles.visitor_text == spec.question
    assert w.subtitles.reply_text == " ".join(spec.clauses)
    assert w.strings.lang == "de"
    assert w.avatar.mood == spec.mood and w.state == "speaking"
    assert w.hud_model.current.turn == 1 and w.hud_model.current.voice_to_voice_ms is not None
    w.handle_event(ev.VisitorLeft(now()))
    assert w.idle_visible
    assert w.subtitles.visitor_text == "" and w.subtitles.reply_text == ""
    assert w.state == "idle" and w.avatar.mood == "neutral"
    assert w.hud_model.current is None


def test_partial_transcripts_show_live_then_the_final_text(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, lang="en")
    w.handle_event(ev.SpeechStart(now()))
    assert w.state == "listening" and w.avatar.state == "listening"
    w.handle_event(ev.PartialTranscript(now(), text="where is", lang="en"))
    assert w.subtitles.partial and w.subtitles.visitor_text.startswith("where is")
    w.handle_event(ev.EndOfTurn(now()))
    assert w.avatar.state == "thinking"
    w.handle_event(ev.FinalTranscript(now(), text="Where is the café?", lang="en"))
    assert not w.subtitles.partial and w.subtitles.visitor_text == "Where is the café?"


def test_a_restarted_stage_is_shown_in_friendly_words(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, lang="en")
    w.handle_event(ev.StageError(now(), stage="asr", message="stage asr took longer than 5 s", restarted=True))
    assert w.banner.isVisible() and w.banner.kind == "recovered"
    assert "speech recognition" in w.banner.text().lower() and "restarted" in w.banner.text()
    assert "5 s" not in w.banner.text()  # the technical message goes to the log, not the visitor
    w.set_language("de")
    w.handle_event(ev.StageError(now(), stage="tts", message="boom", restarted=False))
    assert w.banner.kind == "error" and "Sprachausgabe" in w.banner.text()


def test_a_handler_failure_never_shows_a_traceback(qtbot, cfg, loop, monkeypatch):
    w = make_window(qtbot, cfg, loop, lang="en")
    monkeypatch.setattr(w.avatar, "set_state", lambda state: 1 / 0)
    w.handle_event(ev.SpeechStart(now()))
    assert w.banner.isVisible() and w.banner.text() == w.strings.get("error.unexpected")


def test_events_from_a_worker_thread_arrive_on_the_gui_thread(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, lang="en")
    bridge = EventBridge()
    seen_threads = []
    bridge.connect_to(lambda e: (seen_threads.append(threading.current_thread()), w.handle_event(e)))
    worker = threading.Thread(target=lambda: bridge.post_event(ev.PartialTranscript(now(), text="hello")))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(seen_threads), timeout=2000)
    assert seen_threads == [threading.main_thread()]
    assert w.subtitles.visitor_text.startswith("hello")


def press_h(window):
    """The window's own H shortcut fires (offscreen windows are never active, so a key click would not reach it)."""
    from PySide6.QtGui import QKeySequence, QShortcut
    (shortcut,) = [s for s in window.findChildren(QShortcut) if s.key() == QKeySequence(Qt.Key_H)]
    shortcut.activated.emit()


def test_hud_toggles_and_is_on_in_debug_mode(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop)
    assert not w.hud.isVisible()
    w.toggle_hud()
    assert w.hud.isVisible()
    d = make_window(qtbot, cfg, loop, debug=True)
    assert d.hud.isVisible() and d.debug_panel.isVisible()
    press_h(d)  # debug mode: the key works for anyone
    assert not d.hud.isVisible()


def test_the_h_key_of_a_kiosk_shows_the_hud_only_after_the_admin_pin(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, kiosk=True)
    exits = []
    w.exit_requested.connect(lambda: exits.append(True))
    press_h(w)
    assert not w.hud.isVisible() and w.pin_dialog is not None and w.pin_dialog.isVisible()
    w.pin_dialog.field.setText("0000")
    assert w.pin_dialog.submit() is False and not w.hud.isVisible()
    w.pin_dialog.field.setText(PIN)
    assert w.pin_dialog.submit() is True
    assert w.hud.isVisible() and w.isVisible() and not exits  # the HUD, not the exit
    press_h(w)  # from now on the key toggles it
    assert not w.hud.isVisible()


def test_debug_panel_shows_p50_and_p95_over_the_run(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, debug=True)
    for turn, asr_ms in enumerate([100.0, 200.0, 300.0], start=1):
        w.handle_event(ev.TurnMetrics(now(), turn=turn, stages={"asr": asr_ms}, voice_to_voice_ms=500.0))
    row = w.debug_panel.row("asr")
    assert row.n == 3 and row.p50 == pytest.approx(200.0) and row.p95 == pytest.approx(290.0)
    assert w.debug_panel.table.item(0, 0).text() == "asr"


def test_visemes_drive_the_mouth_at_their_audible_time(qtbot):
    from avatar.ui.avatar_widget import VISEMES, AvatarWidget

    a = AvatarWidget()
    qtbot.addWidget(a)
    a.push_viseme(10.0, 0.1, "A")
    a.push_viseme(10.1, 0.1, "M")
    a.push_viseme(10.2, 0.1, "rest", level=0.5)
    assert a.current_shape(9.9) == VISEMES["rest"]
    assert a.current_shape(10.05) == VISEMES["A"]
    assert a.current_shape(10.15).pressed
    assert 0.5 < a.current_shape(10.25).open < 0.7  # loudness fallback opens the mouth
    assert a.current_shape(11.0) == VISEMES["rest"]


def test_operator_notices_are_shown_small_and_follow_the_language(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, lang="en")
    w.handle_event(ev.Notice(now(), key="german_voice_fallback", message="de: espeak-ng fallback"))
    w.handle_event(ev.Notice(now(), key="", message="something only the operator needs"))
    assert w.notices.isVisible() and not w.banner.isVisible()  # not a visitor-facing message
    assert "espeak-ng" in w.notices.text() and "something only the operator needs" in w.notices.text()
    english = w.notices.text()
    w.set_language("de")
    assert w.notices.text() != english and "Deutsch" in w.notices.text()


def test_loop_attached_after_loading_gets_the_language_chosen_meanwhile(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, None, lang="auto")
    w.set_starting(True)
    assert w.status.text() == w.strings.get("status.starting")
    qtbot.mouseClick(w.lang_buttons["en"], Qt.LeftButton)  # pressed while the models load
    w.attach_loop(loop)
    assert loop.language_requests == ["en"]
    assert w.status.text() == "Ready"


def test_automatic_language_follows_the_transcript_without_a_language_event(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, lang="auto")
    assert w.lang == "de"
    w.handle_event(ev.FinalTranscript(now(), text="Where is the café?", lang="en"))
    assert w.lang == "en" and w.subtitles.visitor_name.text() == "You"
    w.handle_event(ev.ReplyStarted(now(), turn=1, lang="de"))
    assert w.lang == "de"
    fixed = make_window(qtbot, cfg, loop, lang="en")  # a chosen language stays
    fixed.handle_event(ev.FinalTranscript(now(), text="Wo ist das Café?", lang="de"))
    assert fixed.lang == "en"


def test_when_the_loop_ends_a_half_heard_utterance_is_cleared(qtbot, cfg, loop):
    w = make_window(qtbot, cfg, loop, lang="en")
    w.handle_event(ev.SpeechStart(now()))
    w.handle_event(ev.PartialTranscript(now(), text="we feel what", lang="en"))
    w.loop_ended()
    assert w.state == "idle" and w.subtitles.visitor_text == ""
