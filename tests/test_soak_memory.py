"""What a kiosk keeps must not grow with the turns (issue 13's soak): the played segments and the
tracer's instants are bounded, and the soak's memory probe reports what grew."""
from __future__ import annotations

import numpy as np

from avatar.audio.playback_queue import MAX_SEGMENTS, PlaybackQueue
from avatar.frames import SAMPLE_RATE
from avatar.trace import Tracer


def test_played_segments_are_bounded_and_still_answer_for_recent_audio():
    q = PlaybackQueue()
    block = np.ones(160, np.int16)
    t = 0.0
    for i in range(MAX_SEGMENTS + 500):  # each block after a gap: a segment of its own
        q.put(block, SAMPLE_RATE)
        q.take(160, t)
        t += 0.05
    assert len(q.segments) <= MAX_SEGMENTS
    last_t, last_n = q.segments[-1]
    assert q.first_audible_after(last_t - 0.02) == last_t
    assert q.first_audible_after(last_t + 0.005) == last_t + 0.005  # inside the last segment
    assert q.first_audible_after(t + 1.0) is None


def test_tracer_instants_are_bounded_like_its_spans():
    tracer = Tracer(max_spans=100)
    for i in range(1000):
        tracer.instant("x", turn=i)
    assert len(tracer._instants) <= 100
    assert tracer._instants[-1].turn == 999


class Grower:
    pass


def test_mem_probe_names_the_line_and_type_that_grew():
    from avatar_dev.bench.soak_mem import MemProbe, format_probe

    probe = MemProbe(1, 3)
    kept = []
    for turn in range(1, 5):
        probe.on_turn(turn, 100.0 + turn)
        kept.extend(Grower() for _ in range(2000))  # the leak
    r = probe.report
    assert r["turns"] == [1, 3] and r["rss_mb_diff"] == 2.0
    assert r["object_types_grown"]["Grower"] >= 4000
    assert any("test_soak_memory.py" in s["where"] for s in r["by_line"][:3])
    assert "Grower" in format_probe(r)
