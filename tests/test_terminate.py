"""SIGTERM (`systemctl stop`, `kill`, logging out) stops the kiosk as Ctrl-C does: the window closes,
the voice loop's threads end, a debug trace is written, and the process exits 143, without a
traceback. Before, the interpreter died on the spot (killed by the signal, nothing closed or written)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from avatar import terminate

ROOT = Path(__file__).resolve().parents[1]
LONG_WAV = ROOT / "assets" / "samples" / "long" / "en" / "thursday_evening_event.flac"


def _start(args: list[str], tmp: Path) -> tuple[subprocess.Popen, threading.Event, list[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AVATAR_")}
    env.update(QT_QPA_PLATFORM="offscreen", TMPDIR=str(tmp))
    proc = subprocess.Popen([sys.executable, "-m", "avatar", "--set", f"general.trace_dir={tmp / 'traces'}",
                             "--set", "general.log_level=info", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ready, lines = threading.Event(), []

    def read():
        for line in proc.stdout:
            lines.append(line)
            if "ready to listen" in line:
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    return proc, ready, lines


def _terminate(proc: subprocess.Popen, ready: threading.Event, lines: list[str]) -> int:
    try:
        assert ready.wait(180), "".join(lines)[-3000:]
        proc.send_signal(signal.SIGTERM)
        return proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sigterm_closes_the_kiosk_window_and_writes_its_trace(tmp_path):
    proc, ready, lines = _start(["run", "--windowed", "--debug", "--input", str(LONG_WAV),
                                 "--output", str(tmp_path / "replies.wav")], tmp_path)
    code = _terminate(proc, ready, lines)
    out = "".join(lines)
    assert code == terminate.EXIT_CODE, out[-3000:]
    assert "Traceback" not in out and "unexpected error" not in out, out[-3000:]
    assert "trace: " in out  # the window's own way out: the loop closed, the trace exported
    assert list((tmp_path / "traces").glob("*.json"))


def test_sigterm_stops_a_headless_run_cleanly(tmp_path):
    proc, ready, lines = _start(["run", "--headless", "--input", str(LONG_WAV),
                                 "--output", str(tmp_path / "replies.wav")], tmp_path)
    code = _terminate(proc, ready, lines)
    out = "".join(lines)
    assert code == terminate.EXIT_CODE, out[-3000:]
    assert "Traceback" not in out and "internal error" not in out, out[-3000:]


def test_the_handler_raises_ctrl_cs_exception_or_asks_a_window_to_quit():
    try:
        _handler_cases()
    finally:
        terminate._received.clear()  # in-process commands run after this test must not exit 143


def _handler_cases():
    with pytest.raises(KeyboardInterrupt) as caught:  # every command's Ctrl-C path applies
        terminate._on_sigterm(signal.SIGTERM, None)
    assert isinstance(caught.value, terminate.Terminated)
    asked = []
    with terminate.while_running(lambda: asked.append(True)):
        terminate._on_sigterm(signal.SIGTERM, None)  # a running window: no exception out of Qt's loop
    assert asked == [True]
    with pytest.raises(terminate.Terminated):  # the window has gone: back to raising
        terminate._on_sigterm(signal.SIGTERM, None)
