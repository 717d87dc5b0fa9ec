"""Nothing written outside the configured folders (issue 13): a whole `avatar ask` and a whole voice turn
(`avatar run --headless` on a WAV), run as a user would, leave files only in the output, the trace
folder, the kiosk's state folder and the models folder (the models copied from their packages, the
model cache). Home, the current folder, the temporary folder and the project tree stay as they were."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP_DIRS = {".git", ".venv", "__pycache__", ".pytest_cache", "runs", "node_modules"}
QUESTION_WAV = ROOT / "assets" / "samples" / "venue" / "en" / "where_are_the_toilets.wav"


def _files(top: Path, skip: set[str] = frozenset()) -> dict[str, int]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames:
            p = Path(dirpath) / name
            try:
                out[str(p)] = p.stat().st_mtime_ns
            except OSError:
                pass
    return out


def _changed(before: dict[str, int], after: dict[str, int]) -> list[str]:
    return sorted(p for p, m in after.items() if before.get(p) != m)


def _run(args: list[str], tmp: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "AVATAR_"))}
    env.update(HOME=str(tmp / "home"), TMPDIR=str(tmp / "tmp"), PYTHONDONTWRITEBYTECODE="1",
               QT_QPA_PLATFORM="offscreen")
    sets = ["--set", f"general.state_dir={tmp / 'state'}", "--set", f"general.trace_dir={tmp / 'traces'}"]
    return subprocess.run([sys.executable, "-m", "avatar", *sets, *args], cwd=tmp / "cwd", env=env,
                          capture_output=True, text=True, timeout=240)


def test_a_question_and_a_voice_turn_write_only_where_they_are_told(tmp_path):
    for d in ("home", "tmp", "cwd", "out"):
        (tmp_path / d).mkdir()
    models = ROOT / "models"
    before = _files(ROOT, SKIP_DIRS)
    ask = _run(["ask", "wo sind die toiletten"], tmp_path)
    assert ask.returncode == 0, ask.stderr
    run = _run(["run", "--headless", "--debug", "--input", str(QUESTION_WAV),
                "--output", str(tmp_path / "out" / "replies.wav")], tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "toilets" in run.stdout.lower()  # the turn really ran, through every stage

    project = [p for p in _changed(before, _files(ROOT, SKIP_DIRS)) if not Path(p).is_relative_to(models)]
    assert project == [], "written into the project tree"
    for place in ("home", "cwd", "tmp"):
        assert _files(tmp_path / place) == {}, f"written into {place}"
    assert (tmp_path / "out" / "replies.wav").is_file()
    assert list((tmp_path / "traces").glob("*.json"))  # --debug: the trace went to the configured folder
    assert list((tmp_path / "state" / "packs").glob("*.venue.toml"))  # the pack's last good version


def test_a_kiosk_that_cannot_start_leaves_no_folder_in_the_temporary_folder(tmp_path):
    """A kiosk that cannot start (here: its input is no audio file, found once the models are loaded)
    leaves nothing in the temporary folder (the suite's error-path runs had left ~80 folders in /tmp;
    without --output the replies now go to no file at all: tests/test_kiosk_boot.py)."""
    for d in ("home", "tmp", "cwd"):
        (tmp_path / d).mkdir()
    bad = tmp_path / "cwd" / "question.wav"
    bad.write_text("not audio")
    run = _run(["run", "--headless", "--input", str(bad)], tmp_path)
    assert run.returncode != 0 and "cannot read audio file" in run.stderr, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert list((tmp_path / "tmp").iterdir()) == []
