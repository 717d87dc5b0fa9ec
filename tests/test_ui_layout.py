"""The kiosk window's layout at common kiosk sizes: the conversation (the visitor's question and the
avatar's reply) is never covered by the HUD or the debug panel, it lies inside the window, a long
reply wraps (and, past what its box can hold, scrolls) inside its box, and the HUD keeps a readable
width."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QPoint, QRect  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from avatar import config  # noqa: E402
from avatar import events as ev  # noqa: E402
from avatar.answer.base import DecodeStats  # noqa: E402
from avatar.trace import Span, now  # noqa: E402
from avatar.ui.demo_script import DemoLoop  # noqa: E402
from avatar.ui.window import KioskWindow  # noqa: E402

SIZES = [(1280, 800), (1024, 768), (1920, 1080), (1080, 1920)]
QUESTION = {"de": "Wann hat das Café geöffnet, und gibt es dort auch etwas Warmes zu essen?",
            "en": "When is the café open, and is there anything warm to eat there?"}
CLAUSES = {
    "de": ("Das Museumscafé im Erdgeschoss hat von 10:00 bis 17:30 Uhr geöffnet",
           "und bietet Kaffee, Kuchen und kleine Gerichte,",
           "mittags gibt es außerdem eine warme Suppe und ein vegetarisches Tagesgericht."),
    "en": ("The museum café on the ground floor is open from 10:00 to 17:30",
           "and serves coffee, cake and small dishes,",
           "at lunchtime there is also a warm soup and a vegetarian dish of the day."),
}
CHECKS = ("declined_answerable", "grounding", "relevance", "self_consistency", "schema", "source", "fallback")


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def rect_in_window(widget, window) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def turn_window(qtbot, size, lang, clauses, debug=True) -> KioskWindow:
    """A debug window (HUD and debug panel shown) of `size` after a turn with every stage row."""
    w = KioskWindow(config.load(env={}), DemoLoop(), kiosk=False, debug=debug, lang=lang)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    w.hud.setVisible(True)
    w.handle_event(ev.SpeechStart(now()))
    w.handle_event(ev.FinalTranscript(now(), text=QUESTION[lang], lang=lang))
    w.handle_event(ev.ReplyStarted(now(), turn=1, lang=lang, question=QUESTION[lang]))
    for name in CHECKS:
        w.handle_span(Span(f"check.{name}", 0.0, 0.005, turn=1))
    for clause in clauses:
        w.handle_event(ev.ReplyClause(now(), turn=1, text=clause, voice="SVOX Pico de-DE" if lang == "de" else "en_US-joe-medium"))
    w.handle_event(ev.PlaybackStarted(now(), turn=1))
    stages = {"endpoint": 180.0, "asr": 150.0, "retrieval": 3.0, "decode": 60.0, "checks": 75.0,
              "tts_first_audio": 120.0, "output": 20.0, "answer_other": 5.0, "hold": 0.0}
    w.handle_event(ev.TurnMetrics(now(), turn=1, lang=lang, stages=stages, voice_to_voice_ms=650.0,
                                  decode=DecodeStats(steps=8, tokens=44)))
    w.add_notice("No German piper voice installed: German is spoken with espeak-ng.", "german_voice_fallback")
    settle()
    return w


@pytest.mark.parametrize("lang", ["de", "en"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_hud_and_the_debug_panel_never_cover_the_conversation(qtbot, size, lang, tmp_path):
    w = turn_window(qtbot, size, lang, CLAUSES[lang])
    assert (w.width(), w.height()) == size
    assert w.subtitles.reply_text == " ".join(CLAUSES[lang])
    window = w.rect()
    panels = [rect_in_window(p, w) for p in (w.hud, w.debug_panel)]
    assert all(p.isVisible() for p in (w.hud, w.debug_panel))
    for label in (w.subtitles.visitor, w.subtitles.reply):
        shown = rect_in_window(label, w)
        assert window.contains(shown), (label.objectName(), shown, window)
        for panel in panels:
            assert not shown.intersects(panel), (label.objectName(), shown, panel)
        # the whole text is laid out: the label is as tall as its wrapped text needs
        assert label.height() >= label.heightForWidth(label.width())
    box = rect_in_window(w.subtitles, w)
    assert window.contains(box) and not any(box.intersects(p) for p in panels)
    assert not w.subtitles.scrolls  # a reply of a few sentences fits its box at every kiosk size
    for panel in panels:
        assert window.contains(panel)
    # the HUD keeps a readable size: wide enough for its bars, every stage row on it
    assert w.hud.width() >= w.hud.MIN_WIDTH and w.hud.height() >= 300
    assert w.hud.shown_rows() == w.hud_model.rows()
    assert w.grab().save(str(tmp_path / f"layout-{size[0]}x{size[1]}-{lang}.png"))


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_very_long_reply_scrolls_inside_its_box_with_the_newest_words_in_view(qtbot, size):
    clauses = CLAUSES["en"] * 12  # about 2000 characters: more than any box holds
    w = turn_window(qtbot, size, "en", clauses)
    box = rect_in_window(w.subtitles, w)
    assert w.rect().contains(box)
    assert not box.intersects(rect_in_window(w.hud, w)) and not box.intersects(rect_in_window(w.debug_panel, w))
    assert box.height() <= w.height() * 0.6  # the avatar keeps its place above the conversation
    assert w.subtitles.scrolls
    bar = w.subtitles.scroll.verticalScrollBar()
    assert bar.value() == bar.maximum()  # the clause being spoken is in view
    reply = w.subtitles.reply
    assert reply.height() >= reply.heightForWidth(reply.width())  # wrapped, nothing cut off sideways
    assert reply.width() <= w.subtitles.scroll.viewport().width()


def test_hiding_the_hud_gives_the_conversation_the_whole_width(qtbot):
    w = turn_window(qtbot, (1280, 800), "de", CLAUSES["de"], debug=False)
    with_hud = w.subtitles.width()
    w.toggle_hud()
    settle()
    assert not w.hud.isVisible() and w.subtitles.width() > with_hud
    w.toggle_hud()
    settle()
    assert w.subtitles.width() == with_hud


def test_a_small_window_collapses_the_hud_rows_instead_of_covering_anything(qtbot):
    w = turn_window(qtbot, (1024, 600), "en", CLAUSES["en"])
    hud = rect_in_window(w.hud, w)
    assert w.rect().contains(hud)
    assert not hud.intersects(rect_in_window(w.subtitles, w))
    assert w.hud.shown_rows()  # the stage rows that fit, the checks' parts folded first
    assert len(w.hud.shown_rows()) <= len(w.hud_model.rows())
