"""The first reply of a session must not pause on its own echo: the room's ring after a loud word
(while the canceller has not settled) is the avatar's voice, not a visitor talking over it
(docs/PERF.md, "first reply"). Deterministic: recorded piper replies, simulated rooms, no clock."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from avatar import config
from avatar.aec.echo_canceller import EchoCanceller
from avatar.aec.ring import FIRST_REPLY_S, RingEstimate
from avatar_dev.bench.echo import make_endpointer
from avatar_dev.bench.echo_audio import _clips
from avatar_dev.bench.echo_turn import simulate_turn
from avatar_dev.bench.room import impulse_response, room

DATA = Path(__file__).parent / "data" / "echo"
# first replies that paused on their own echo before the ring counted (room, room seed, reply)
PAUSED_BEFORE = [("office", 1, 1), ("office", 7, 0), ("lobby", 2, 0), ("hall", 3, 0), ("hall", 4, 0)]


@pytest.fixture(scope="module")
def cfg():
    return config.load(env={})


def _first_reply(cfg, room_name, seed, reply_index, clip=None, at_s=2.0, ser_db=0.0):
    reply = sf.read(str(DATA / f"reply_piper_{reply_index}.flac"), dtype="int16")[0]
    h = impulse_response(room(room_name), seed=seed, system_delay_ms=40.0)
    aec, endpointer = EchoCanceller(cfg.echo), make_endpointer(cfg)  # a fresh session
    kind = "silent" if clip is None else "barge_in"
    noise = _clips("background_noise")[0][1]
    return simulate_turn(cfg, 0, kind, "", reply, clip, at_s, ser_db, h, noise, aec, endpointer, 320, 0.0, "none",
                         np.random.default_rng(seed), "loop")


def test_the_first_reply_does_not_pause_on_the_rooms_ring(cfg):
    results = [_first_reply(cfg, *case) for case in PAUSED_BEFORE]
    assert sum(r["own_echo_pauses"] + r["stop_before_visitor"] for r in results) == 0
    old = [_first_reply(cfg.with_overrides({"echo.ring": False}), *case) for case in PAUSED_BEFORE]
    assert sum(r["own_echo_pauses"] > 0 for r in old) >= 4  # what these replies did before


def test_a_visitor_over_the_first_reply_still_stops_it(cfg):
    clip = sf.read(str(DATA / "visitor_en_is_the_front_door_locked.wav"), dtype="int16")[0]
    r = _first_reply(cfg, "office", 0, 0, clip=clip, at_s=0.8, ser_db=6.0)
    assert r["stopped"] and not r["stop_before_visitor"]


def test_the_assumed_ring_ends_with_the_first_reply():
    ring = RingEstimate()
    for i in range(55):  # 1.1 s of loudspeaker, 20 ms frames: loud up to 0.98 s, then quiet
        ring.played_s += 0.02
        ring.observe(i * 0.02, 70.0 if i < 50 else 20.0)
    assert ring.level_db(1.08) == pytest.approx(70.0 - 60.0 * 0.1)  # 100 ms after the loud frame: 6 dB down
    ring.rung_out()  # the room has rung out after more than FIRST_REPLY_S of speech: the first reply is over
    assert not ring.first_reply and FIRST_REPLY_S <= 1.1
    ring.observe(2.0, 70.0)
    assert ring.level_db(2.02) is None  # later replies: only what the played signal's delay says


def test_a_short_sound_before_the_first_reply_does_not_end_it():
    ring = RingEstimate()
    ring.played_s += 0.2  # a 200 ms chime, then silence
    ring.rung_out()
    assert ring.first_reply
