"""The kiosk at boot (issue 40, item 2): what the service and the autostart script run (`avatar run
--kiosk`) waits for a missing display, microphone or loudspeaker, one line per device (and a notice on
the screen once there is one), and exits non-zero when they do not come within kiosk.device_wait_s,
so that Restart=on-failure starts it again; it never plays the sample questions headless, and no run
leaves anything in the temporary folder. The live part starts a virtual sound server 10 s after the
kiosk (tests/virtual_audio.py) and needs PulseAudio; it skips, saying why, where that cannot be had.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from avatar.paths import ROOT

SERVICE = ROOT / "assets" / "kiosk" / "avatar-kiosk.service"
SOUND_SERVER_AFTER_S = 10.0
LISTENING_WITHIN_S = 15.0  # issue 40: listening within 15 s of the device appearing


def _service_command() -> list[str]:
    """The service's ExecStart with this checkout's interpreter in place of ~/avatar/.venv/bin/avatar."""
    for line in SERVICE.read_text(encoding="utf-8").splitlines():
        if line.startswith("ExecStart="):
            argv = shlex.split(line.split("=", 1)[1])
            assert argv[0].endswith("/.venv/bin/avatar")
            return [sys.executable, "-m", "avatar", *argv[1:]]
    raise AssertionError("no ExecStart in the service")


def _bare_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A boot-time session: no display, no sound server, its own home and temporary folder."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AVATAR_", "XDG_", "PULSE_", "QT_")) and k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    for d in ("home", "tmp", "runtime"):
        (tmp_path / d).mkdir(mode=0o700, exist_ok=True)
    env.update(HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path / "tmp"), XDG_RUNTIME_DIR=str(tmp_path / "runtime"),
               PULSE_SERVER=f"unix:{tmp_path / 'runtime' / 'no-pulse'}", PYTHONPATH=str(ROOT),
               PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


def test_the_service_with_no_display_and_no_sound_server_fails_plays_nothing_and_leaves_nothing(tmp_path):
    env = _bare_env(tmp_path, AVATAR__KIOSK__DEVICE_WAIT_S="3")
    started = time.monotonic()
    done = subprocess.run(_service_command(), env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - started
    out = done.stdout + done.stderr
    assert done.returncode not in (0, 143), out  # 143 is the service's clean stop (SuccessExitStatus)
    assert "avatar: waiting for the display: no display" in out
    assert "avatar: waiting for the microphone:" in out and "avatar: waiting for the loudspeaker:" in out
    assert "no display after 3 s" in done.stderr and "hint:" in done.stderr
    for played in ("headless", "question(s)", "replies", "ready to listen", "voice_to_voice"):
        assert played not in out, out  # no sample played, no models even loaded
    assert took >= 3.0  # it waited the bound before giving up
    assert list((tmp_path / "tmp").iterdir()) == []


def test_the_kiosk_refuses_the_options_of_a_demo_or_a_file_run(tmp_path):
    env = _bare_env(tmp_path)
    done = subprocess.run([*_service_command(), "--demo"], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "--kiosk runs the live kiosk and takes no --demo" in done.stderr


def test_make_run_on_a_headless_box_keeps_its_demo_and_leaves_no_replies_behind(tmp_path):
    """Without --kiosk the sample questions are still played headless; their replies go to no file."""
    env = _bare_env(tmp_path)
    done = subprocess.run([sys.executable, "-m", "avatar", "--set", f"general.state_dir={tmp_path / 'state'}",
                           "run"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "running the turns headless on the bundled sample questions" in done.stdout
    assert "replies: not kept" in done.stdout and "voice_to_voice" in done.stdout
    assert list((tmp_path / "tmp").iterdir()) == []  # it used to leave avatar-run-*/replies.wav (~600 KB)


def test_a_display_that_comes_late_is_waited_for(tmp_path, monkeypatch):
    """DISPLAY names an X server whose socket is not there yet: missing; once it is, the wait ends."""
    from avatar.commands import device_wait

    monkeypatch.setattr(device_wait, "audio_missing", lambda cfg, rescan=True: {})
    sockets = tmp_path / "x11"
    sockets.mkdir()
    real_path = device_wait.Path

    def fake_path(p, *rest):  # the X socket folder, moved into tmp_path
        return real_path(str(p).replace("/tmp/.X11-unix", str(sockets)), *rest)

    monkeypatch.setattr(device_wait, "Path", fake_path)
    env = {"DISPLAY": ":7"}
    assert "no X server on DISPLAY=:7 yet" in device_wait.display_missing(env)
    lines: list[str] = []
    polls = []

    def sleep(s):
        polls.append(s)
        if len(polls) == 2:
            (sockets / "X7").touch()

    from avatar import config

    wait = device_wait.DeviceWait(config.load(env={}), 30, env=env, say=lines.append, sleep=sleep, poll_s=0.01)
    wait.wait()
    assert len(polls) == 2
    assert lines[0].startswith("avatar: waiting for the display: no X server on DISPLAY=:7")
    assert lines[1].startswith("avatar: the display is there")
    assert device_wait.display_missing({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert "unset" in device_wait.display_missing({})


def test_the_window_says_what_it_waits_for_and_exits_when_it_does_not_come(qtbot, monkeypatch, capsys):
    """A display but no microphone: the kiosk window is up, shows the wait (in its language), takes the
    notice away when the microphone comes; one that never comes ends the app with DeviceWaitExpired."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer

    from avatar import config
    from avatar.commands import device_wait, run as run_cmd
    from avatar.errors import DeviceWaitExpired
    from avatar.ui import app as app_module, demo_script

    cfg = config.load(sets=["kiosk.fullscreen=false", "general.lang=en"], env={})
    polls = {"n": 0}
    mic_after = {"polls": 4}

    def audio_missing(cfg, rescan=True):
        polls["n"] += 1
        return {} if polls["n"] > mic_after["polls"] else {"microphone": "no audio input device (test)"}

    monkeypatch.setattr(device_wait, "audio_missing", audio_missing)
    monkeypatch.setattr(run_cmd, "_load_stages", lambda cfg, tracer: object())
    monkeypatch.setattr(run_cmd, "_build_loop", lambda *a, **kw: (demo_script.DemoLoop(a[3], start_delay_s=0.0,
                                                                                       speed=200.0), []))
    seen: list[str] = []

    class Watched(app_module.App):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.timer = QTimer(self.window)
            self.timer.timeout.connect(self.look)
            self.timer.start(20)

        def look(self):
            seen.append(self.window.notices.text() if self.window.notices.isVisible() else "")
            waited = any("Waiting for the microphone" in s for s in seen)
            if waited and self.loop is not None and "Waiting for the microphone" not in seen[-1]:
                self.quit()

    monkeypatch.setattr(app_module, "App", Watched)

    class Args:
        windowed, screenshot, input, output, demo = True, None, None, None, False

    wait = device_wait.DeviceWait(cfg, 30, env={"QT_QPA_PLATFORM": "offscreen"}, poll_s=0.05)
    assert run_cmd.run_window(cfg, Args(), False, device_wait=wait) == 0
    assert any("Waiting for the microphone" in s for s in seen), seen
    assert "Waiting for the microphone" not in seen[-1]  # gone once the microphone came
    out = capsys.readouterr().out
    assert "avatar: waiting for the microphone: no audio input device (test)" in out
    assert "avatar: the microphone is there" in out

    polls["n"], mic_after["polls"] = 0, 10**9  # this time it never comes
    wait = device_wait.DeviceWait(cfg, 1.0, env={"QT_QPA_PLATFORM": "offscreen"}, poll_s=0.05)
    with pytest.raises(DeviceWaitExpired, match="no microphone after 1 s"):
        run_cmd.run_window(cfg, Args(), False, device_wait=wait)


# --- live: a sound server that appears after the kiosk -----------------------------------------------
@pytest.mark.devices
@pytest.mark.timeout(600)
def test_a_kiosk_started_before_its_sound_server_is_listening_soon_after_it_appears(tmp_path):
    import virtual_audio as va

    try:
        va.ensure_packages()
    except va.Unavailable as exc:
        pytest.skip(f"virtual audio devices unavailable: {exc}")
    server = va.PulseServer()
    env = _bare_env(tmp_path, QT_QPA_PLATFORM="offscreen", XDG_RUNTIME_DIR=server.env["XDG_RUNTIME_DIR"],
                    PULSE_SERVER=server.env["PULSE_SERVER"], PULSE_RUNTIME_PATH=server.env["PULSE_RUNTIME_PATH"])
    env["AVATAR__GENERAL__STATE_DIR"] = str(tmp_path / "state")
    lines: list[tuple[float, str]] = []
    kiosk = subprocess.Popen(_service_command(), env=env, cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    started = time.monotonic()
    reader = threading.Thread(target=lambda: [lines.append((time.monotonic(), line.rstrip()))
                                              for line in kiosk.stdout], daemon=True)
    reader.start()
    try:
        time.sleep(SOUND_SERVER_AFTER_S)
        before = [text for _, text in lines]
        assert kiosk.poll() is None, before  # still waiting, not exited and not playing samples
        assert any(t.startswith("avatar: waiting for the microphone:") for t in before), before
        assert any(t.startswith("avatar: waiting for the loudspeaker:") for t in before), before
        assert not any("ready to listen" in t or "headless" in t for t in before), before
        try:
            server.start()
            server.load("module-null-sink", sink_name="spk", rate=va.RATE)
            server.load("module-virtual-source", source_name="mic", master="spk.monitor")
            server.pactl("set-default-sink", "spk")
            server.pactl("set-default-source", "mic")
        except va.Unavailable as exc:
            pytest.skip(f"virtual audio devices unavailable: {exc}")
        appeared = time.monotonic()
        recording = None  # the kiosk's microphone stream, as the sound server lists it
        while time.monotonic() - appeared < LISTENING_WITHIN_S and kiosk.poll() is None:
            streams = server.pactl("list", "short", "source-outputs", check=False).stdout.splitlines()
            if any(len(f := s.split("\t")) > 2 and f[2] != "-" for s in streams):  # a client's, not a module's
                recording = time.monotonic()
                break
            time.sleep(0.2)
        text = "\n".join(t for _, t in lines)
        print(text)
        print(f"started {appeared - started:.1f} s after the kiosk; recording from it "
              f"{(recording - appeared) if recording else float('nan'):.1f} s later")
        assert recording is not None, f"not listening {LISTENING_WITHIN_S:.0f} s after the sound server came:\n{text}"
        assert "avatar: the microphone is there" in text and "ready to listen" in text
    finally:
        if kiosk.poll() is None:
            kiosk.terminate()  # the service's stop: SIGTERM, a clean exit 143
        try:
            code = kiosk.wait(30)
        except subprocess.TimeoutExpired:
            kiosk.kill()
            code = kiosk.wait()
        server.stop()
    assert code == 143, "\n".join(t for _, t in lines)
    assert list((tmp_path / "tmp").iterdir()) == []
