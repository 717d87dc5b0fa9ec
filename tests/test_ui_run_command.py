"""`avatar run`: display detection, the headless per-turn table, and --screenshot offscreen."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from avatar import cli  # noqa: E402
from avatar.commands.run import display_problem  # noqa: E402
from avatar.ui import demo_script  # noqa: E402


class FastDemoLoop(demo_script.DemoLoop):
    def __init__(self, *args, **kw):
        kw.update(start_delay_s=0.0, speed=200.0)
        super().__init__(*args, **kw)


@pytest.fixture
def fast_demo(monkeypatch):
    monkeypatch.setattr(demo_script, "DemoLoop", FastDemoLoop)


def test_display_detection():
    assert display_problem({}) is not None
    assert "display" in display_problem({})
    assert display_problem({"DISPLAY": ":0"}) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}) is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None


def test_headless_run_prints_one_hud_line_per_turn(fast_demo, capsys, tmp_path):
    code = cli.main(["--set", f"general.trace_dir={tmp_path}", "run", "--demo", "--headless", "--debug"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0].startswith("avatar: --headless given: running the turns headless")
    rows = [line for line in out.splitlines() if line.strip().startswith(("1 de", "2 en"))]
    assert len(rows) == 2, out
    assert "voice_to_voice" in out  # the percentile table after the turns
    assert list(tmp_path.glob("run-*.json"))  # debug: a trace file per run
    assert demo_script.DEMO_NOTICE in out  # the scripted turns are not mistaken for a measurement


def test_the_demo_window_says_it_is_a_demo(qtbot):
    from avatar import config
    from avatar.ui.app import notice_key
    from avatar.ui.window import KioskWindow

    window = KioskWindow(config.load(env={}), None, kiosk=False, lang="de")
    qtbot.addWidget(window)
    window.add_notice(demo_script.DEMO_NOTICE, notice_key(demo_script.DEMO_NOTICE))
    assert window.notices.text().startswith("Demo: vorgegebene Gespräche")
    window.set_language("en")
    assert window.notices.text() == "Demo: scripted turns, no models; the figures are made up."


def test_screenshot_after_the_last_turn(qtbot, fast_demo, tmp_path, capsys):
    png = tmp_path / "shot.png"
    code = cli.main(["--set", f"general.trace_dir={tmp_path}", "run", "--demo", "--windowed", "--debug",
                     "--screenshot", str(png)])
    assert code == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert f"screenshot: {png}" in capsys.readouterr().out


@pytest.mark.timeout(60)
def test_a_fullscreen_kiosk_run_with_screenshot_quits_on_its_own(qtbot, fast_demo, tmp_path):
    # the locked kiosk window refuses to close; a programmatic quit must still end the app
    png = tmp_path / "kiosk.png"
    assert cli.main(["--set", f"general.trace_dir={tmp_path}", "run", "--demo", "--screenshot", str(png)]) == 0
    assert png.exists()


def test_a_missing_input_file_is_named_before_any_model_loads(monkeypatch, capsys, tmp_path):
    from avatar.commands import run as run_command

    def no_loading(*args, **kw):  # pragma: no cover - the point is that it is never reached
        raise AssertionError("models loaded for an input that does not exist")

    monkeypatch.setattr(run_command, "_load_stages", no_loading)
    code = cli.main(["run", "--headless", "--input", str(tmp_path / "nowhere.wav")])
    err = capsys.readouterr().err
    assert code == 2 and "audio file not found" in err and "nowhere.wav" in err
