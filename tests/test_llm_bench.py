"""`avatar bench-llm` on a tiny random model: the report has every setting side by side."""
from __future__ import annotations

import json


def test_bench_llm_writes_its_report(tmp_path):
    from avatar.cli import main

    folder = tmp_path / "rnd"
    assert main(["bench-llm", "--make-random", str(folder), "--random-kind", "avatar-mdlm"]) == 0
    out = tmp_path / "bench.json"
    assert main(["--set", "llm.threads=1", "--set", "llm.gen_length=16", "bench-llm", "--model", str(folder),
                 "--json", str(out), "--repeats", "1", "--prompts", "2", "--no-guard"]) == 0
    report = json.loads(out.read_text())
    assert set(report["settings"]) == {"threshold+cache", "threshold", "one-per-step+cache", "one-per-step"}
    assert report["settings"]["threshold+cache"]["cache"] == "exact"
    assert report["settings"]["one-per-step"]["tokens_per_step"] == 1.0
    assert report["same_text_cache_vs_no_cache"] == 1.0
