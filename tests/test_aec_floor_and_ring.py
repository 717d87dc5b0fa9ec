"""What the canceller measures of the room itself: the microphone's noise floor (a frame at the floor is
no visitor) and whether the room rings (its ring then counts as echo after the first reply too), so
that one design holds on a loopback without a ring and in reverberant rooms (docs/PERF.md, "Echo")."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

import avatar.aec.echo_canceller as module
from avatar import config
from avatar.aec.echo_canceller import EchoCanceller
from avatar_dev.bench.room import echo_of, impulse_response, room
from avatar.frames import SAMPLE_RATE, AudioFrame

DATA = Path(__file__).parent / "data" / "echo"
SR = SAMPLE_RATE
N = SR // 50  # 20 ms frames, as the loop's


@pytest.fixture(scope="module")
def cfg():
    return config.load(env={})


@pytest.fixture(scope="module")
def reply():
    """The project's voice saying two replies, 1 s apart (~15 s, with the pauses between words)."""
    first, second = (sf.read(str(DATA / f"reply_{i}_en.flac"), dtype="int16")[0] for i in (0, 1))
    return np.concatenate([first, np.zeros(SR, np.int16), second])


def _room_tone(n: int, dbfs: float = -55.0, seed: int = 0) -> np.ndarray:
    noise = np.random.default_rng(seed).standard_normal(n)
    return noise * 32768 * 10 ** (dbfs / 20)


def _run(cfg, mic: np.ndarray, reply: np.ndarray, start: int, probability: float = 0.3):
    """Feed the canceller frame by frame; per frame while the loudspeaker plays: (time s, what the
    barge-in rule gets for a detector giving `probability`, the frame was double talk)."""
    aec = EchoCanceller(cfg.echo)
    out = []
    for k in range(0, mic.size // N * N, N):
        lo, hi = max(k - start, 0), max(k + N - start, 0)
        if hi > lo and lo < reply.size:
            aec.add_reference(reply[lo:min(hi, reply.size)], (start + lo) / SR)
        aec.process(AudioFrame(np.clip(np.round(mic[k:k + N]), -32768, 32767).astype(np.int16), k / SR, k / SR))
        if aec.reference_active:
            out.append((k / SR, aec.near_end(probability), aec.double_talk))
    return aec, out


def _loopback(reply: np.ndarray, start: int) -> np.ndarray:
    """The live test's path: the echo is the played signal itself (no ring), over the room's tone."""
    mic = _room_tone(start + reply.size + SR)
    mic[start:start + reply.size] += 0.9 * reply.astype(np.float64)
    return mic


def test_on_a_clean_path_the_rooms_tone_between_words_is_no_voice(cfg, reply, monkeypatch):
    """On a loopback the reply's pauses leave the room's tone (-55 dBFS) alone: louder than the echo the
    silent played signal can make, it was double talk, and on a clean path a detector's 0.3 for it a
    voice (1.0): the reply paused on nothing. A frame within a few dB of the floor is not judged."""
    start = int(0.5 * SR)
    mic = _loopback(reply, start)
    aec, frames = _run(cfg, mic, reply, start)
    assert aec.clean_path and not aec.rings
    assert aec.floor_db == pytest.approx(10 * np.log10(np.mean(mic[-SR:] ** 2)), abs=4.0)
    assert max(p for t, p, _ in frames if t > 2.5) < 1.0
    with monkeypatch.context() as m:  # without the floor the same frames are voices (else this shows nothing)
        m.setattr(module, "_FLOOR_MARGIN_DB", -200.0)
        _, before = _run(cfg, mic, reply, start)
        assert sum(p == 1.0 for t, p, _ in before if t > 2.5) >= 5


def test_a_visitor_as_loud_as_the_reply_on_the_loopback_is_still_a_voice(cfg, reply):
    """The floor takes only the room's tone: a visitor in the reply's pauses is far above it."""
    start = int(0.5 * SR)
    mic = _loopback(reply, start)
    visitor = sf.read(str(DATA / "visitor_en_is_the_front_door_locked.wav"), dtype="int16")[0].astype(np.float64)
    v0 = start + 6 * SR
    mic[v0:v0 + visitor.size] += visitor * np.sqrt(np.mean((0.9 * reply.astype(np.float64)) ** 2)
                                                   / np.mean(visitor ** 2))
    aec, frames = _run(cfg, mic, reply, start)
    assert aec.clean_path
    voiced = [p for t, p, _ in frames if v0 / SR <= t < (v0 + visitor.size) / SR and p == 1.0]
    assert len(voiced) >= 10


def _in_room(name: str, reply: np.ndarray, start: int) -> np.ndarray:
    h = impulse_response(room(name), seed=0, system_delay_ms=40.0)
    played = np.zeros(start + reply.size + SR)
    played[start:start + reply.size] = reply
    return echo_of(played, h, 0, played.size) + _room_tone(played.size)


def test_the_canceller_finds_that_a_hall_rings_and_a_loopback_does_not(cfg, reply):
    start = int(0.5 * SR)
    hall, _ = _run(cfg, _in_room("hall", reply, start), reply, start)
    loop, _ = _run(cfg, _loopback(reply, start), reply, start)
    assert hall.rings and not hall.clean_path
    assert not loop.rings and loop.clean_path


def test_in_a_ringing_room_the_ring_after_the_first_reply_is_no_double_talk(cfg, reply, monkeypatch):
    """After the first reply the assumed ring used to stop counting: the hall's ring after a loud word
    was louder than the echo the played signal at its delay can make, so double talk, and the
    microphone went to the endpointer as it was (own-echo pauses in every room). Where the canceller
    found that the room rings, the ring counts as echo in every reply."""
    start = int(0.5 * SR)
    mic = _in_room("hall", reply, start)
    first_end = start / SR + sf.info(str(DATA / "reply_0_en.flac")).duration + 1.0
    _, frames = _run(cfg, mic, reply, start)
    later = [dt for t, _, dt in frames if t > first_end]
    with monkeypatch.context() as m:  # the ring for the first reply only (as before)
        m.setattr(EchoCanceller, "rings", property(lambda self: False))
        _, before = _run(cfg, mic, reply, start)
    later_before = [dt for t, _, dt in before if t > first_end]
    assert sum(later_before) >= 5 and sum(later) <= sum(later_before) // 3, (sum(later), sum(later_before))
