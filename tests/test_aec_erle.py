"""ERLE: the echo's power before over after the canceller, in dB, where the echo is audible."""
from __future__ import annotations

import numpy as np
import pytest

from avatar_dev.bench.erle import erle_db
from avatar.frames import SAMPLE_RATE

SR = SAMPLE_RATE


def _echo(seconds=4.0, seed=0):
    return 3000.0 * np.random.default_rng(seed).standard_normal(int(seconds * SR))


def test_erle_of_a_known_attenuation():
    echo = _echo()
    assert erle_db(echo, echo * 0.01, skip_s=0.0) == pytest.approx(40.0, abs=0.01)
    assert erle_db(echo, echo * 0.1, skip_s=0.0) == pytest.approx(20.0, abs=0.01)


def test_erle_ignores_the_convergence_time():
    echo = _echo()
    residual = echo * 0.01
    residual[: 2 * SR] = echo[: 2 * SR]  # not converged during the first two seconds
    assert erle_db(echo, residual, skip_s=2.0) == pytest.approx(40.0, abs=0.01)
    assert erle_db(echo, residual, skip_s=0.0) < 10.0


def test_erle_counts_only_frames_where_the_echo_is_audible():
    echo = _echo()
    echo[SR: 2 * SR] = 0.0  # the avatar paused
    residual = echo * 0.01
    residual[SR: 2 * SR] = 500.0  # noise the canceller let through while nothing played
    assert erle_db(echo, residual, skip_s=0.0) == pytest.approx(40.0, abs=0.01)


def test_erle_without_any_echo_is_zero():
    assert erle_db(np.zeros(SR), np.ones(SR), skip_s=0.0) == 0.0
