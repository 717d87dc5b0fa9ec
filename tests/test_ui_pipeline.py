"""The app on the real voice loop (scripted stages): a stalled stage is restarted by the watchdog and
the window says so; the turn still reaches the subtitles and the HUD."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from avatar import config  # noqa: E402
from avatar.pipeline.voice_loop import VoiceLoop  # noqa: E402
from avatar.trace import Tracer  # noqa: E402
from avatar.ui.app import App  # noqa: E402

from fakes import END, SPEECH, TENTATIVE, FakeAnswerer, FakeASR, FakeSink, FakeTTS, ScriptedEndpointer, ScriptedSource  # noqa: E402,E501


def test_a_stalled_stage_is_restarted_and_the_window_shows_it(qtbot, tmp_path):
    cfg = config.load(sets=["asr.partial_interval_ms=0", "pipeline.stage_timeout_s=0.3",
                            f"general.trace_dir={tmp_path}"], env={})
    tracer = Tracer()

    def make_loop():
        loop = VoiceLoop(cfg, ScriptedSource(3.0), FakeSink(), FakeAnswerer(hang=True), FakeASR(lang="en"),
                         FakeTTS(clause_seconds=0.2), tracer,
                         endpointer=ScriptedEndpointer([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)]),
                         fallback_answerer=FakeAnswerer(reply="Please ask at the desk."))
        return loop, ["de: no piper voice installed, speaking with espeak-ng (espeak-ng de)"]

    app = App(cfg, make_loop, tracer, kiosk=False, debug=True, lang="en", quit_when_done=True)
    assert app.exec() == 0
    w = app.window
    assert w.banner.kind == "recovered" and not w.banner.isHidden()
    assert "the answer" in w.banner.text().lower() and "restarted" in w.banner.text()
    assert "Please ask at the desk." in w.subtitles.reply_text
    record = w.hud_model.turns[-1]
    assert record.finished and record.voice_to_voice_ms is not None and "asr" in record.stages
    assert w.debug_panel.row("asr").n == 1
    assert "espeak-ng" in w.notices.text()
    assert list(tmp_path.glob("run-*.json"))  # the debug trace was written at exit


def test_a_live_kiosk_restarts_a_loop_that_ended(qtbot, tmp_path):
    from avatar.ui.demo_script import DemoLoop

    cfg = config.load(sets=[f"general.trace_dir={tmp_path}"], env={})
    built = []

    class EndingLoop(DemoLoop):
        def run_until_done(self):
            if len(built) == 1:
                raise RuntimeError("microphone unplugged")

    def make_loop():
        built.append(EndingLoop())
        return built[-1], []

    app = App(cfg, make_loop, Tracer(), kiosk=False, debug=False, lang="en", restart_after_s=0.05)
    app.window.show()
    app._thread.start()
    qtbot.waitUntil(lambda: len(built) >= 3, timeout=5000)
    assert app.window.banner.kind == "recovered"
    assert "Traceback" not in app.window.banner.text()
    app.restart_after_s = None  # let it end
    qtbot.waitUntil(lambda: not app._thread.is_alive(), timeout=5000)


def test_a_turn_lost_to_a_hung_stage_shows_the_apology(qtbot, tmp_path):
    import threading

    from fakes import Transcript

    release = threading.Event()

    class HungASR(FakeASR):
        def transcribe(self, pcm, lang=None, partial=False, cancel=None, prior=None):
            release.wait(10)
            return Transcript("", "en", dropped="empty")

    cfg = config.load(sets=["asr.partial_interval_ms=0", "pipeline.stage_timeout_s=0.3",
                            f"general.trace_dir={tmp_path}"], env={})

    def make_loop():
        loop = VoiceLoop(cfg, ScriptedSource(2.5), FakeSink(), FakeAnswerer(), HungASR(lang="en"),
                         FakeTTS(clause_seconds=0.2), Tracer(),
                         endpointer=ScriptedEndpointer([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)]))
        return loop, []

    try:
        app = App(cfg, make_loop, Tracer(), kiosk=False, debug=False, lang="en", quit_when_done=True)
        assert app.exec() == 0
        w = app.window
        assert not w.banner.isHidden() and "speech recognition" in w.banner.text()
        assert "restarted" not in w.banner.text()  # no fresh instance could be made: it says so
        assert "ask again" in w.subtitles.reply_text
    finally:
        release.set()
