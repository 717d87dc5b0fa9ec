"""Settings: defaults.toml, then a user file, then AVATAR__SECTION__KEY variables, then --set flags.

Every value is checked against the type of its default; an unknown or ill-typed key is a
ConfigError that names it.
"""
from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Iterable, Mapping

from avatar.errors import ConfigError

DEFAULTS_FILE = Path(__file__).with_name("defaults.toml")
ENV_PREFIX = "AVATAR__"

# Extra constraints beyond the type of the default: key -> (check, what is allowed)
_CHOICES: dict[str, tuple] = {
    "general.lang": ("auto", "de", "en"),
    "llm.device": ("cpu", "cuda"),
    "llm.dtype": ("auto", "float32", "bfloat16", "float16"),
    "llm.confidence": ("prob", "margin", "entropy"),
    "llm.order": ("confidence", "left_to_right", "random"),
    "answer.kind": ("diffusion", "retrieval"),
    "general.log_level": ("debug", "info", "warning", "error"),
}
_RANGES: dict[str, tuple[float, float]] = {
    "vad.webrtc_mode": (0, 3),
    "echo.doubletalk_db": (-100.0, 0.0),
    "vad.silero_threshold": (0.0, 1.0),
    "pipeline.barge_in_onset_prob": (0.0, 1.0),
    "llm.threshold": (0.0, 1.0),
    "llm.temperature": (0.0, 10.0),
    "llm.decline_bias": (-10.0, 10.0),
    "audio.frame_ms": (10, 30),
    "llm.gen_length": (1, 4096),
    "llm.block_length": (1, 4096),
    "checks.agreement_overlap": (0.0, 1.0),
    "checks.fallback_min_match": (0.0, 1.0),
}


class Section:
    """Attribute access to one section's values (cfg.vad.end_of_turn_ms)."""

    def __init__(self, name: str, values: dict[str, Any]):
        self._name = name
        self.__dict__.update(values)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __getattr__(self, key: str) -> Any:  # only called for missing keys
        raise ConfigError(f"unknown setting '{self._name}.{key}'")


class Config:
    def __init__(self, data: dict[str, dict[str, Any]], sources: list[str]):
        self._data = data
        self.sources = sources
        for name, values in data.items():
            setattr(self, name, Section(name, values))

    def get(self, dotted: str) -> Any:
        section, key = _split(dotted)
        return self._data[section][key]

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {s: dict(v) for s, v in self._data.items()}

    def with_overrides(self, overrides: Mapping[str, Any]) -> "Config":
        data = self.as_dict()
        for dotted, value in overrides.items():
            _assign(data, dotted, value, "override")
        return Config(data, self.sources + ["override"])


def load(path: str | os.PathLike | None = None, sets: Iterable[str] = (), env: Mapping[str, str] | None = None) -> Config:
    env = os.environ if env is None else env
    data = _read(DEFAULTS_FILE)
    sources = [str(DEFAULTS_FILE)]
    path = path or env.get("AVATAR_CONFIG")
    if path:
        user = _read(Path(path))
        for section, values in user.items():
            if not isinstance(values, dict):
                raise ConfigError(f"'{section}' in {path} must be a [section] table")
            for key, value in values.items():
                _assign(data, f"{section}.{key}", value, str(path))
        sources.append(str(path))
    for name, raw in env.items():
        if name.startswith(ENV_PREFIX):
            dotted = name[len(ENV_PREFIX):].lower().replace("__", ".")
            _assign(data, dotted, _parse_scalar(raw), f"environment variable {name}")
    for item in sets:
        if "=" not in item:
            raise ConfigError(f"--set expects section.key=value, got '{item}'")
        dotted, raw = item.split("=", 1)
        _assign(data, dotted.strip(), _parse_scalar(raw.strip()), "--set")
    return Config(data, sources)


def _read(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"settings file not found: {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"settings file {path} is not valid TOML: {exc}") from None


def _split(dotted: str) -> tuple[str, str]:
    parts = dotted.split(".")
    if len(parts) != 2 or not all(parts):
        raise ConfigError(f"setting '{dotted}' must be written section.key")
    return parts[0], parts[1]


def _assign(data: dict, dotted: str, value: Any, origin: str) -> None:
    section, key = _split(dotted)
    if section not in data or key not in data[section]:
        raise ConfigError(f"unknown setting '{dotted}' (from {origin})",
                          hint="see avatar/defaults.toml for every setting")
    data[section][key] = _check(dotted, data[section][key], value, origin)


def _check(dotted: str, default: Any, value: Any, origin: str) -> Any:
    where = f"setting '{dotted}' (from {origin})"
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, got {value!r}")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where} must be a whole number, got {value!r}")
    elif isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where} must be a number, got {value!r}")
        value = float(value)
    elif isinstance(default, str):
        if not isinstance(value, str):
            value = str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be text, got {value!r}")
    elif isinstance(default, list):
        if not isinstance(value, list):
            raise ConfigError(f"{where} must be a list, got {value!r}")
    if dotted in _CHOICES and value not in _CHOICES[dotted]:
        raise ConfigError(f"{where} must be one of {', '.join(_CHOICES[dotted])}, got {value!r}")
    if dotted in _RANGES:
        lo, hi = _RANGES[dotted]
        if not lo <= value <= hi:
            raise ConfigError(f"{where} must lie between {lo} and {hi}, got {value!r}")
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        raise ConfigError(f"{where} must not be negative, got {value!r}")
    if dotted == "general.languages" and (not value or any(v not in ("de", "en") for v in value)):
        raise ConfigError(f"{where} must list de and/or en, got {value!r}")
    return value


def _parse_scalar(raw: str) -> Any:
    """A value from the command line or environment: TOML syntax if it parses, else plain text."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw
