"""The admin PIN: no shipped default, stored as a salted hash, wrong tries lock for a growing time."""
import io
import stat
import sys

import pytest

from avatar import cli, config
from avatar.errors import ConfigError
from avatar.paths import ROOT
from avatar.ui.pin import (FIRST_LOCK_S, MAX_LOCK_S, PinLock, check_new_pin, hash_pin, stored_pin, verify_pin,
                           write_pin_file)


class FakeClock:
    def __init__(self, t: float = 5000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def _cfg(tmp_path, **overrides):
    values = {"kiosk.admin_pin_file": str(tmp_path / "admin-pin")}
    values.update(overrides)
    return config.load(env={}).with_overrides(values)


def test_no_pin_is_shipped(tmp_path):
    defaults = (ROOT / "avatar" / "defaults.toml").read_text(encoding="utf-8")
    assert "admin_pin =" not in defaults
    cfg = _cfg(tmp_path)
    assert cfg.kiosk.admin_pin_hash == ""
    pin = stored_pin(cfg)
    assert not pin.is_set and not pin.verify("2468") and not pin.verify("")


def test_three_wrong_tries_lock_for_30_s_then_each_further_one_doubles():
    clock = FakeClock()
    lock = PinLock(clock=clock)
    assert lock.failed() == 0 and lock.failed() == 0 and not lock.locked
    assert lock.failed() == FIRST_LOCK_S == 30.0
    assert lock.locked and lock.remaining_s() == 30.0
    clock.t += 29.5
    assert lock.locked
    clock.t += 0.5
    assert not lock.locked
    assert lock.failed() == 60.0  # no free tries after a lock
    clock.t += 60
    assert lock.failed() == 120.0
    clock.t += 120
    for _ in range(20):
        lock.failed()
        clock.t += lock.remaining_s()
    assert lock.failed() == MAX_LOCK_S  # at most an hour
    lock.succeeded()
    assert not lock.locked and lock.failures == 0
    assert lock.failed() == 0  # a right PIN gives the free tries back


def test_a_day_without_wrong_tries_forgets_the_old_ones():
    clock = FakeClock()
    lock = PinLock(clock=clock)
    lock.failed(), lock.failed()
    clock.t += 25 * 3600
    assert lock.failed() == 0 and lock.failures == 1


def test_the_pin_is_stored_as_a_salted_hash(tmp_path):
    a, b = hash_pin("5831"), hash_pin("5831")
    assert a != b and "5831" not in a  # salted: the same PIN never hashes the same
    assert verify_pin("5831", a) and verify_pin("5831", b)
    assert not verify_pin("5832", a) and not verify_pin("", a) and not verify_pin("5831", "")
    path = write_pin_file(tmp_path / "sub" / "admin-pin", "5831")
    text = path.read_text()
    assert "5831" not in text and text.startswith("pbkdf2_sha256$")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    pin = stored_pin(_cfg(tmp_path, **{"kiosk.admin_pin_file": str(path)}))
    assert pin.is_set and pin.verify("5831") and not pin.verify("1357") and str(path) in pin.where


def test_the_hash_setting_wins_over_the_file_and_a_plain_pin_is_refused(tmp_path):
    write_pin_file(tmp_path / "admin-pin", "5831")
    cfg = _cfg(tmp_path, **{"kiosk.admin_pin_hash": hash_pin("9072")})
    pin = stored_pin(cfg)
    assert pin.verify("9072") and not pin.verify("5831") and "kiosk.admin_pin_hash" in pin.where
    with pytest.raises(ConfigError, match="kiosk.admin_pin_hash is not a PIN hash"):
        stored_pin(_cfg(tmp_path, **{"kiosk.admin_pin_hash": "9072"}))
    with pytest.raises(ConfigError, match="kiosk.admin_pin' .* is no longer read") as exc:
        config.load(env={}, sets=["kiosk.admin_pin=2468"])
    assert "avatar admin set-pin" in exc.value.hint
    (tmp_path / "admin-pin").write_text("2468\n")
    with pytest.raises(ConfigError, match="admin PIN file .* is not a PIN hash"):
        stored_pin(_cfg(tmp_path))


@pytest.mark.parametrize("pin, problem", [
    ("12a4", "digits"), ("123", "4 to 12"), ("1234567890123", "4 to 12"), ("0000", "too easy"),
    ("1234", "too easy"), ("9876", "too easy"), ("", "digits"),
])
def test_a_new_pin_must_be_usable_on_the_keypad_and_not_trivial(pin, problem):
    with pytest.raises(ConfigError, match=problem):
        check_new_pin(pin)


def test_admin_set_pin_and_status_commands(tmp_path, monkeypatch, capsys):
    target = tmp_path / "admin-pin"
    base = ["--set", f"kiosk.admin_pin_file={target}", "admin"]
    assert cli.main(base + ["status"]) == 1
    assert "not set" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO("5831\n"))  # not a terminal: one line, as in an install script
    assert cli.main(base + ["set-pin"]) == 0
    assert "5831" not in target.read_text()
    assert cli.main(base + ["status"]) == 0
    assert "set (admin PIN file" in capsys.readouterr().out
    assert stored_pin(_cfg(tmp_path)).verify("5831")
    monkeypatch.setattr(sys, "stdin", io.StringIO("1111\n"))
    assert cli.main(base + ["set-pin"]) == 2  # refused, the old PIN stays
    assert "too easy" in capsys.readouterr().err
    assert stored_pin(_cfg(tmp_path)).verify("5831")
    monkeypatch.setattr(sys, "stdin", io.StringIO("4096\n"))
    assert cli.main(base + ["set-pin", "--print"]) == 0
    line = capsys.readouterr().out
    assert line.startswith('admin_pin_hash = "pbkdf2_sha256$') and "4096" not in line
    assert verify_pin("4096", line.split('"')[1])


def test_a_pin_hash_below_the_iteration_floor_is_refused_with_the_command_to_make_a_new_one(tmp_path, capsys):
    weak = hash_pin("5831", iterations=1)
    with pytest.raises(ConfigError, match="kiosk.admin_pin_hash uses 1 PBKDF2 iterations, fewer than the 200,000") as exc:
        stored_pin(_cfg(tmp_path, **{"kiosk.admin_pin_hash": weak}))
    assert "avatar admin set-pin" in exc.value.hint
    (tmp_path / "admin-pin").write_text(hash_pin("5831", iterations=199_999) + "\n")
    with pytest.raises(ConfigError, match="admin PIN file .* 199,999 PBKDF2 iterations"):
        stored_pin(_cfg(tmp_path))
    # through the command line, as an operator meets it
    assert cli.main(["--set", f"kiosk.admin_pin_hash={weak}", "admin", "status"]) == 2
    err = capsys.readouterr().err
    assert "fewer than the 200,000" in err and "avatar admin set-pin" in err
