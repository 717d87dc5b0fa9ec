"""Debug traces on disk (issue 40, item 9): every run gets a name of its own, two runs in the same
second included, and the trace folder keeps at most general.trace_keep of them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from avatar import config
from avatar.report import prune_traces, trace_file_for_run

ROOT = Path(__file__).resolve().parents[1]


def _cfg(tmp_path, keep: int = 20):
    return config.load(sets=[f"general.trace_dir={tmp_path}", f"general.trace_keep={keep}"], env={})


def test_two_runs_in_the_same_second_of_the_same_process_id_get_two_files(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "getpid", lambda: 4242)  # the worst case: the name's every part the same
    cfg = _cfg(tmp_path)
    first, second = trace_file_for_run(cfg), trace_file_for_run(cfg)
    assert first != second and first.is_file() and second.is_file()
    assert json.loads(first.read_text()) == {"traceEvents": []}  # a valid trace until the run writes its own


def test_two_debug_runs_started_together_write_two_traces(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AVATAR_")}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "avatar", "--set", f"general.trace_dir={tmp_path}", "run", "--demo",
               "--headless", "--debug"]
    runs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]
    outputs = [p.communicate(timeout=180)[0] for p in runs]
    assert [p.returncode for p in runs] == [0, 0], outputs
    written = [line.split("trace: ", 1)[1].strip() for out in outputs for line in out.splitlines()
               if line.startswith("trace: ")]
    assert len(written) == 2 and written[0] != written[1], outputs
    for path in written:
        assert json.loads(Path(path).read_text())["traceEvents"], path  # each run's own spans, whole


def test_the_trace_folder_keeps_the_newest_traces_only(tmp_path):
    for i in range(6):
        path = tmp_path / f"run-2026120{i}-000000-1.json"
        path.write_text("{}")
        os.utime(path, (time.time() - 1000 + i, time.time() - 1000 + i))
    (tmp_path / "notes.txt").write_text("not a trace")
    new = trace_file_for_run(_cfg(tmp_path, keep=3))
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["notes.txt", new.name, "run-20261204-000000-1.json", "run-20261205-000000-1.json"])
    assert prune_traces(tmp_path, 3) == []  # nothing beyond the limit is left to remove
