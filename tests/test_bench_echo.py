"""The echo bench (`avatar bench-echo`): the same code, room and seed give the same figures, so a
change to the canceller or the barge-in rule is judged by one comparison (docs/PERF.md, echo)."""
from __future__ import annotations

import pytest

from avatar import config
from avatar_dev.bench.echo import run_echo_bench
from avatar_dev.bench.echo_audio import REPLIES, recorded_reply_paths, reply_audio
from avatar.errors import AvatarError

_TIMED = {"wall_s", "aec_ms_per_10ms", "cost_canceller_ms_per_10ms", "cost_bare_module_ms_per_10ms",
          "partial_asr_ms_p50"}


@pytest.fixture(scope="module")
def cfg():
    return config.load(env={})


@pytest.mark.parametrize("name", ["hall", "loopback"])
def test_two_runs_of_the_bench_give_the_same_figures(cfg, name):
    a, b = (run_echo_bench(cfg, name, 4, seed=1) for _ in range(2))
    assert a["reply_voice"] == "recorded project voice"
    assert {k: v for k, v in a.items() if k not in _TIMED} == {k: v for k, v in b.items() if k not in _TIMED}
    assert a["erle_db"] > 10.0 and len(a["turns"]) == 4


def test_the_recorded_replies_are_the_bench_texts_and_another_seed_draws_other_turns(cfg):
    assert [p.name.split("_")[2].split(".")[0] for p in recorded_reply_paths()] == [lang for lang, _ in REPLIES]
    assert all(r.size > 4 * 16000 for r in reply_audio(cfg))
    a = run_echo_bench(cfg, "office", 3, seed=1, measure_erle_too=False)
    b = run_echo_bench(cfg, "office", 3, seed=2, measure_erle_too=False)
    assert [t["text"] for t in a["turns"]] + [t["first_word_s"] for t in a["turns"]] != \
        [t["text"] for t in b["turns"]] + [t["first_word_s"] for t in b["turns"]]


def test_the_loopback_room_draws_a_visitor_as_loud_as_the_reply(cfg):
    report = run_echo_bench(cfg, "loopback", 5, seed=0, measure_erle_too=False)
    assert report["ser_db_range"] == [-3.0, 3.0] and report["jitter_ms"] == 25.0
    assert all(-3.0 <= t["ser_db"] <= 3.0 for t in report["turns"] if t["ser_db"] is not None)
    assert run_echo_bench(cfg, "office", 1, seed=0, measure_erle_too=False)["ser_db_range"] == [0.0, 10.0]


def test_an_unknown_reply_source_is_refused(cfg):
    with pytest.raises(AvatarError):
        reply_audio(cfg, "microphone")
