"""Barge-in over the loudspeaker, closed loop: room echo + visitor -> echo canceller -> endpointer -> rule.

The avatar's own voice never stops the reply, a backchannel does not interrupt it, and a real
question over it stops it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from avatar import config
from avatar.aec.echo_canceller import EchoCanceller
from avatar_dev.bench.room import impulse_response, room
from avatar_dev.bench.echo import make_endpointer
from avatar_dev.bench.echo_turn import simulate_turn

DATA = Path(__file__).parent / "data" / "echo"


@pytest.fixture(scope="module")
def cfg():
    return config.load(env={})


def _clip(name: str) -> np.ndarray:
    return sf.read(str(DATA / name), dtype="int16")[0]


@pytest.fixture(scope="module")
def kiosk(cfg):
    """One converged kiosk: a canceller and an endpointer that have heard a reply in the office."""
    reply = np.concatenate([_clip(p.name) for p in sorted(DATA.glob("visitor_*.wav"))])
    h = impulse_response(room("office"), seed=0, system_delay_ms=40.0)
    aec, endpointer = EchoCanceller(cfg.echo), make_endpointer(cfg)
    state = {"clock": 0.0}

    def turn(kind: str, clip: np.ndarray | None = None, text: str = "", at_s: float = 3.0, ser_db: float = 8.0,
             partials: str = "oracle", turn_cfg=None, policy: str = "stop") -> dict:
        result = simulate_turn(turn_cfg or cfg, 0, kind, text, reply, clip, at_s, ser_db, h, None, aec, endpointer,
                               320, state["clock"], partials, np.random.default_rng(0), policy)
        state["clock"] += result.pop("duration_s")
        return result

    turn("silent")  # let the canceller converge, as on a kiosk that has been talking for a while
    return turn


def test_own_voice_never_stops_the_reply(kiosk):
    result = kiosk("silent")
    assert not result["stopped"] and result["speech_starts"] == 0


def test_backchannel_does_not_interrupt(kiosk):
    result = kiosk("backchannel", _clip("backchannel_genau.wav"), "genau")
    assert not result["stopped"]


def test_real_question_over_the_reply_stops_it(kiosk):
    result = kiosk("barge_in", _clip("visitor_en_is_the_front_door_locked.wav"), "is the front door locked")
    assert result["stopped"] and not result["stop_before_visitor"]
    assert result["stop_ms"] is not None and result["stop_ms"] > 0


def test_barge_in_switched_off_never_stops(kiosk, cfg):
    off = cfg.with_overrides({"pipeline.barge_in": False})
    result = kiosk("barge_in", _clip("visitor_de_wie_spaet_ist_es.wav"), "wie spaet ist es", turn_cfg=off)
    assert not result["stopped"]


def test_pause_policy_silences_at_once_and_resumes_after_a_backchannel(kiosk):
    result = kiosk("backchannel", _clip("backchannel_okay.wav"), "okay", policy="pause")
    assert not result["stopped"]  # the reply went on
    assert len(result["resumed_after_ms"]) == 1  # after one short silence


def test_in_a_reverberant_lobby_the_onset_pause_ignores_the_own_echo_and_catches_a_visitor(cfg):
    """The default rule pauses at a voice onset. In a lobby (RT60 1 s) the echo residue of the
    avatar's piper voice made that pause fire by itself; the double-talk gate stops it, while a
    visitor over the reply is still silenced within the onset."""
    from avatar_dev.bench.echo_audio import _clips

    assert cfg.pipeline.barge_in_onset_ms > 0
    noise = _clips("background_noise")[0][1]
    replies = [sf.read(str(DATA / f"reply_piper_{i}.flac"), dtype="int16")[0] for i in (0, 1)]
    h = impulse_response(room("lobby"), seed=0, system_delay_ms=40.0)

    def turns(turn_cfg, plan):
        aec, endpointer, clock, out = EchoCanceller(turn_cfg.echo), make_endpointer(turn_cfg), 0.0, []
        rng = np.random.default_rng(0)
        for i, (kind, clip, text) in enumerate(plan):
            r = simulate_turn(turn_cfg, i, kind, text, replies[i % 2], clip, 2.0, 6.0, h, noise, aec, endpointer,
                              320, clock, "none", rng, "loop")
            clock += r.pop("duration_s")
            out.append(r)
        return out

    silent = [("silent", None, "")] * 8
    lenient = {"pipeline.barge_in_onset_prob": 0.5}  # the gate alone has to keep the echo out
    gated = turns(cfg.with_overrides(lenient), silent)
    ungated = turns(cfg.with_overrides({**lenient, "echo.doubletalk_db": -100.0}), silent)
    assert sum(r["own_echo_pauses"] + r["stop_before_visitor"] for r in gated) == 0
    assert sum(r["own_echo_pauses"] for r in ungated) >= 2  # the stutters the gate removes
    barge = turns(cfg, silent[:2] + [("barge_in", _clip("visitor_en_is_the_front_door_locked.wav"),
                                      "is the front door locked")])[-1]
    assert barge["stopped"] and not barge["stop_before_visitor"]
    assert barge["stop_ms"] < 250  # silenced at the onset, before the 240 ms of speech a stop needs
