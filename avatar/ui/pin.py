"""The admin PIN: stored as a salted hash, never shipped, and a keypad that locks after wrong tries.

No PIN works out of the box: until the operator sets one (`avatar admin set-pin`, which writes the
hash to `kiosk.admin_pin_file`, or the hash it prints with `--print` put in `kiosk.admin_pin_hash`),
the admin panel refuses every entry. Wrong tries lock the keypad: the third for 30 s, every further
one for twice as long as the last (at most an hour); a right PIN, or a day without wrong tries,
starts the count again. Kept free of Qt, so the CLI and tests use it without a display.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from avatar.errors import ConfigError
from avatar.paths import resolve
from avatar.trace import now

SCHEME = "pbkdf2_sha256"
ITERATIONS = 200_000
# A 4-digit PIN has 10,000 values: below this floor a stolen hash falls to a search in seconds.
MIN_ITERATIONS = ITERATIONS
MIN_DIGITS, MAX_DIGITS = 4, 12  # the on-screen keypad has digits only; its field holds 12
FREE_TRIES = 3
FIRST_LOCK_S = 30.0
MAX_LOCK_S = 3600.0
FORGET_AFTER_S = 24 * 3600.0


def check_new_pin(pin: str) -> str:
    """The PIN as it will be typed on the keypad, or a ConfigError saying what is wrong with it."""
    pin = pin.strip()
    if not pin.isdigit() or not pin.isascii():
        raise ConfigError("the admin PIN may only use the digits 0-9", hint="the kiosk's keypad has digits only")
    if not MIN_DIGITS <= len(pin) <= MAX_DIGITS:
        raise ConfigError(f"the admin PIN needs {MIN_DIGITS} to {MAX_DIGITS} digits, got {len(pin)}")
    if len(set(pin)) == 1 or pin in "0123456789012" or pin in "9876543210987":
        raise ConfigError(f"the admin PIN {pin!r} is too easy to guess", hint="avoid repeated or consecutive digits")
    return pin


def hash_pin(pin: str, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    """`pbkdf2_sha256$ITERATIONS$SALT$HASH` (base64): what the config or the PIN file holds."""
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    b64 = lambda b: base64.b64encode(b).decode("ascii")  # noqa: E731
    return f"{SCHEME}${iterations}${b64(salt)}${b64(digest)}"


def _parse(stored: str, where: str) -> tuple[int, bytes, bytes]:
    try:
        scheme, iterations, salt, digest = stored.strip().split("$")
        if scheme != SCHEME:
            raise ValueError(scheme)
        out = int(iterations), base64.b64decode(salt, validate=True), base64.b64decode(digest, validate=True)
        if out[0] < 1 or not out[1] or len(out[2]) != 32:
            raise ValueError(stored)
    except ValueError:
        raise ConfigError(f"{where} is not a PIN hash (expected {SCHEME}$...)",
                          hint="set the PIN again with `avatar admin set-pin`; a plain PIN is never read") from None
    if out[0] < MIN_ITERATIONS:
        raise ConfigError(f"{where} uses {out[0]:,} PBKDF2 iterations, fewer than the {MIN_ITERATIONS:,} "
                          f"a PIN of a few digits needs",
                          hint="make a new hash with `avatar admin set-pin` (or `avatar admin set-pin --print` "
                               "for kiosk.admin_pin_hash)")
    return out


def verify_pin(pin: str, stored: str, where: str = "the admin PIN hash") -> bool:
    """True when `pin` matches the stored hash (constant-time compare); an empty stored hash never matches."""
    if not stored or not pin:
        return False
    iterations, salt, digest = _parse(stored, where)
    return hmac.compare_digest(hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations), digest)


@dataclass(frozen=True)
class StoredPin:
    hash: str  # "" when no PIN is set
    where: str  # the setting or file it came from (for messages); "" when none is set

    @property
    def is_set(self) -> bool:
        return bool(self.hash)

    def verify(self, pin: str) -> bool:
        return verify_pin(pin, self.hash, self.where)


def pin_file(cfg) -> Path:
    return resolve(cfg.kiosk.admin_pin_file)


def stored_pin(cfg) -> StoredPin:
    """The operator's PIN hash: `kiosk.admin_pin_hash` if set, else the PIN file; checked for its form."""
    if cfg.kiosk.admin_pin_hash.strip():
        where = "setting kiosk.admin_pin_hash"
        _parse(cfg.kiosk.admin_pin_hash, where)
        return StoredPin(cfg.kiosk.admin_pin_hash.strip(), where)
    path = pin_file(cfg)
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return StoredPin("", "")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"admin PIN file {path} cannot be read: {exc}",
                          hint="set the PIN again with `avatar admin set-pin`") from None
    if not text:
        return StoredPin("", "")
    where = f"admin PIN file {path}"
    _parse(text, where)
    return StoredPin(text, where)


def write_pin_file(path: Path, pin: str) -> Path:
    """Store the hash of a checked PIN at `path` (readable by this user only), replacing any old one."""
    digest = hash_pin(check_new_pin(pin))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(digest + "\n")
    os.replace(tmp, path)
    return path


class PinLock:
    """Wrong tries lock the keypad: FREE_TRIES wrong in a row lock it for FIRST_LOCK_S, each further
    wrong try for twice the last lock (at most MAX_LOCK_S). A right PIN resets the count, and so does
    FORGET_AFTER_S without a wrong try. `clock` is injectable (tests use a fake one)."""

    def __init__(self, clock: Callable[[], float] = now, free_tries: int = FREE_TRIES,
                 first_lock_s: float = FIRST_LOCK_S, max_lock_s: float = MAX_LOCK_S,
                 forget_after_s: float = FORGET_AFTER_S):
        self.clock = clock
        self.free_tries, self.first_lock_s, self.max_lock_s = free_tries, first_lock_s, max_lock_s
        self.forget_after_s = forget_after_s
        self.failures = 0
        self.locked_until = 0.0
        self._last_failure = None

    def remaining_s(self) -> float:
        """Seconds until the keypad takes tries again (0 when it does)."""
        return max(0.0, self.locked_until - self.clock())

    @property
    def locked(self) -> bool:
        return self.remaining_s() > 0

    def failed(self) -> float:
        """Count a wrong try; the seconds of the lock it starts (0: none yet)."""
        t = self.clock()
        if self._last_failure is not None and t - self._last_failure > self.forget_after_s:
            self.failures = 0
        self._last_failure = t
        self.failures += 1
        if self.failures < self.free_tries:
            return 0.0
        lock = min(self.max_lock_s, self.first_lock_s * 2.0 ** (self.failures - self.free_tries))
        self.locked_until = t + lock
        return lock

    def succeeded(self) -> None:
        self.failures, self.locked_until, self._last_failure = 0, 0.0, None
