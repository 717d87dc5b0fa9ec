"""Commands exit with their own status: no native call may still run when the interpreter tears down.

A Whisper (CTranslate2) or piper (onnxruntime) call still running in a daemon thread at exit
aborts the process ("terminate called without an active exception", exit 134) or segfaults (139)
after the command finished; `avatar bench` did so in one run of three (its loop returned at the
first audible sample while the reply's next clause was still being synthesized)."""
import os
import subprocess
import sys
from pathlib import Path
import textwrap
import threading
import time

from avatar import config
from avatar.pipeline.voice_loop import VoiceLoop
from avatar.trace import Tracer

from fakes import END, SPEECH, TENTATIVE, FakeASR, FakeAnswerer, FakeSink, FakeTTS, ScriptedEndpointer, ScriptedSource


class SlowTTS(FakeTTS):
    """Each clause takes a while, like piper on a busy machine (the call runs on after a cancel)."""

    def synthesize(self, text, lang, cancel=None):
        for chunk in super().synthesize(text, lang, cancel):
            time.sleep(0.3)
            yield chunk


def test_close_ends_every_thread_of_the_loop():
    cfg = config.load(sets=["asr.partial_interval_ms=300"], env={})
    before = set(threading.enumerate())
    loop = VoiceLoop(cfg, ScriptedSource(2.0), FakeSink(), FakeAnswerer(), FakeASR(), SlowTTS(clauses=4),
                     Tracer(), endpointer=ScriptedEndpointer([(0.1, SPEECH), (0.8, TENTATIVE), (1.1, END)]))
    loop.run_until_done(drain=False, timeout=20)  # as the bench: back at the first audible sample
    assert loop.close(timeout=10) == []
    left = [t.name for t in set(threading.enumerate()) - before if t.is_alive()]
    assert left == []



def test_close_after_a_start_that_a_signal_interrupted(monkeypatch):
    """SIGTERM (or Ctrl-C) right after "ready to listen" can land inside `Thread.start`, before the new
    thread is marked started. Closing the loop then joined a thread not started ("cannot join thread
    before it is started"), the sink's thread was left running and the command ended in an internal
    error instead of its clean exit (a CI run of the SIGTERM test caught it)."""
    cfg = config.load(env={})

    class Sink(FakeSink):
        closed = False

        def close(self):  # a real sink's playback thread ends here
            self.closed = True

    sink = Sink()
    loop = VoiceLoop(cfg, ScriptedSource(2.0), sink, FakeAnswerer(), FakeASR(), FakeTTS(), Tracer(),
                     endpointer=ScriptedEndpointer([(0.1, SPEECH), (0.8, TENTATIVE), (1.1, END)]))
    real_start = threading.Thread.start

    def interrupted(self):
        if self.name == "capture":  # the signal arrives before the thread is marked started
            raise KeyboardInterrupt
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", interrupted)
    try:
        loop.run_until_done(timeout=5)
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the interrupted start should have raised")
    monkeypatch.setattr(threading.Thread, "start", real_start)
    assert loop.close(timeout=5) == []
    assert sink.closed


SCRIPT = textwrap.dedent("""
    import sys, threading, time
    import numpy as np
    from avatar import cli, config
    from avatar.asr.whisper_asr import WhisperASR

    asr = WhisperASR(config.load(env={}).asr, ["de", "en"])
    pcm = (np.random.default_rng(0).standard_normal(16000 * 20) * 3000).astype(np.int16)
    stop = threading.Event()

    def work():  # a Whisper call that is still running at exit (daemon: the interpreter will not wait)
        while not stop.is_set():
            asr.transcribe(pcm)

    threading.Thread(target=work, daemon=True).start()
    time.sleep(1.0)
    if sys.argv[1] == "finishing":
        stop.set()  # the call ends on its own: waited for, then the normal exit
        cli._exit_cleanly(3, wait_s=60)
    else:  # "hung": it never ends within the wait: left behind, the status kept
        cli._exit_cleanly(3, wait_s=0.2)
    sys.exit(3)
""")


def test_a_native_call_running_at_exit_does_not_change_the_exit_status(tmp_path):
    script = tmp_path / "exit_during_whisper.py"
    script.write_text(SCRIPT)
    import avatar

    env = {**os.environ, "PYTHONPATH": str(Path(avatar.__file__).resolve().parents[1])}  # this checkout's package
    for case in ("finishing", "hung"):
        done = subprocess.run([sys.executable, str(script), case], capture_output=True, text=True, timeout=300,
                              env=env)
        assert done.returncode == 3, (case, done.returncode, done.stderr[-2000:])


TQDM_SCRIPT = textwrap.dedent("""
    import io, sys
    from tqdm import tqdm
    from avatar import cli

    bar = tqdm(total=3, file=io.StringIO(), mininterval=0)  # starts tqdm's monitor thread
    bar.update(1)
    bar.close()
    assert tqdm.monitor is not None and tqdm.monitor.is_alive()
    cli._exit_cleanly(3, wait_s=30)
    print("normal exit", tqdm.monitor is None or not tqdm.monitor.is_alive())
    sys.exit(3)
""")


def test_tqdms_monitor_thread_does_not_hold_the_exit_up(tmp_path):
    script = tmp_path / "exit_with_tqdm.py"
    script.write_text(TQDM_SCRIPT)
    import avatar

    env = {**os.environ, "PYTHONPATH": str(Path(avatar.__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 3, done.stderr[-2000:]
    # without the stop the monitor outlives the wait: the exit leaves without the teardown (no print)
    assert "normal exit True" in done.stdout, (done.stdout, done.stderr[-2000:])
    assert "threads still running at exit" not in done.stderr
