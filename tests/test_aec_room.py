"""The simulated room: impulse responses with the room's character, and microphone signals with ground truth."""
from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from avatar_dev.bench.room import ROOMS, Utterance, delay_jumps, echo_of, impulse_response, level_dbfs, room, simulate_mic, speech_bounds
from avatar.errors import ConfigError
from avatar.frames import SAMPLE_RATE

SR = SAMPLE_RATE


@pytest.mark.parametrize("name", [name for name, spec in ROOMS.items() if spec.rt60_s > 0])
def test_impulse_response_has_direct_path_and_decays_with_rt60(name):
    spec = room(name)
    h = impulse_response(spec, seed=0, system_delay_ms=10.0)
    first = int(np.flatnonzero(np.abs(h) > 1e-9)[0])
    assert first == round((spec.direct_delay_ms + 10.0) * SR / 1000)
    assert len(h) == pytest.approx(first + spec.rt60_s * SR, abs=2)
    tail = h[first + int(0.005 * SR):]
    early, late = tail[: len(tail) // 10], tail[-len(tail) // 10:]
    # 60 dB of decay over rt60: the last tenth is some 50 dB below the first
    assert 10 * np.log10(np.sum(early ** 2) / np.sum(late ** 2)) > 40


def test_the_loopback_is_one_delayed_copy_whose_delay_jumps_and_its_echo_can_be_taken_away_again():
    """The live loopback's condition (tests/test_devices_live.py): no ring, the echo at the reply's
    level, a delay jumping 0-25 ms; the bench's loudspeaker subtracts a stopped stretch's echo, so the
    jittered echo must be linear in what was played."""
    spec = room("loopback")
    h = impulse_response(spec, system_delay_ms=40.0)
    assert np.count_nonzero(h) == 1 and h.size == round(40.0 * SR / 1000) + 1
    jumps = delay_jumps(spec.jitter_ms, 4 * SR, seed=3)
    assert jumps.min() >= 0 and jumps.max() <= spec.jitter_ms * SR / 1000
    assert 20 <= np.count_nonzero(np.diff(jumps)) <= 100  # a new delay every 40-120 ms, mostly a new value
    assert delay_jumps(0.0, SR) is None and delay_jumps(spec.jitter_ms, SR, seed=3).tolist() == jumps[:SR].tolist()
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(SR), rng.standard_normal(SR)
    both = echo_of(a + b, h, 1000, 2 * SR, jumps)
    assert np.allclose(both, echo_of(a, h, 1000, 2 * SR, jumps) + echo_of(b, h, 1000, 2 * SR, jumps))
    plain = echo_of(a, h, 1000, 2 * SR)  # without jumps: the impulse response's own echo
    assert np.allclose(plain[640:SR], 10 ** (spec.echo_gain_db / 20) * a[:SR - 640])
    shifted = echo_of(a, h, 1000, 2 * SR, jumps)
    assert not np.allclose(shifted, plain) and np.abs(shifted).max() <= np.abs(plain).max() + 1e-9


def test_bigger_reverberant_rooms_have_longer_impulse_responses():
    lengths = [len(impulse_response(room(n))) for n in ("office", "lobby", "hall")]
    assert lengths == sorted(lengths) and lengths[0] < lengths[-1]


def test_unknown_room_is_a_config_error():
    with pytest.raises(ConfigError):
        room("cathedral")


def test_simulated_mic_places_the_visitor_where_asked_and_writes_a_wav(tmp_path):
    rng = np.random.default_rng(0)
    reply = (3000 * rng.standard_normal(2 * SR)).astype(np.int16)
    clip = np.concatenate([np.zeros(SR // 5), 4000 * np.sin(np.arange(SR // 2) * 0.2), np.zeros(SR // 5)])
    sim = simulate_mic(reply, impulse_response(room("office")), reply_at_s=0.5,
                       speech=[Utterance(clip.astype(np.int16), at_s=1.0, level_db=-20.0, text="hallo")])
    (start, end, text), = sim.speech
    assert start == pytest.approx(1.2, abs=0.02) and end == pytest.approx(1.7, abs=0.02) and text == "hallo"
    assert level_dbfs(sim.near) == pytest.approx(-20.0, abs=0.5)
    assert np.abs(sim.echo[: int(0.5 * SR)]).max() < 1e-6  # no echo before the reply plays (FFT rounding aside)
    path = sim.write(tmp_path / "mic.wav")
    data, sr = sf.read(str(path), dtype="int16")
    assert sr == SR and np.array_equal(data, sim.pcm)


def test_speech_bounds_skip_a_lone_click():
    x = np.zeros(SR)
    x[100] = 30000  # a click
    x[SR // 2: SR // 2 + 3200] = 2000 * np.sin(np.arange(3200) * 0.3)
    start, end = speech_bounds(x.astype(np.int16))
    assert start == pytest.approx(0.5, abs=0.011) and end == pytest.approx(0.7, abs=0.011)
