"""Nothing a visitor said reaches the kiosk's output or logs (issue 40, items 6 and 8): a whole turn of
the kiosk window (`avatar run` on a question WAV, offscreen), at the default log level and at info,
prints no word of the question, nor of the reply that repeats them. The service sends this output to
the journal, the autostart script to kiosk.log. (The headless table of `avatar run --headless` shows
the words of the files it is given on purpose: it is a bench, not a kiosk.)"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
QUESTION = ROOT / "assets" / "samples" / "venue" / "en" / "can_i_take_photos_in_the_exhibition.wav"
WORDS = ("photos", "photo", "exhibition", "take", "taking")  # the question's words and the reply's echo of them


@pytest.mark.parametrize("level", ["default", "info"])
def test_a_kiosk_turn_leaves_no_word_of_the_question_in_its_output(tmp_path, level):
    import soundfile as sf

    env = {k: v for k, v in os.environ.items() if not k.startswith(("AVATAR_", "XDG_"))}
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT),
               XDG_RUNTIME_DIR=str(tmp_path))
    os.chmod(tmp_path, 0o700)
    sets = ["--set", f"general.state_dir={tmp_path / 'state'}"]
    if level != "default":
        sets += ["--set", f"general.log_level={level}"]
    replies = tmp_path / "replies.wav"
    done = subprocess.run([sys.executable, "-m", "avatar", *sets, "run", "--windowed", "--input", str(QUESTION),
                           "--output", str(replies), "--screenshot", str(tmp_path / "shot.png")],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    pcm, rate = sf.read(replies, dtype="int16")
    assert (np.abs(pcm) > 2000).sum() > rate // 2, "no reply was spoken: the turn did not run"
    said = [w for w in WORDS if re.search(rf"\b{w}\b", out, re.IGNORECASE)]
    assert not said, f"the visitor's words {said} in the output:\n{out}"
