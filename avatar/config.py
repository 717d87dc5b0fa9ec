"""Settings: defaults.toml, then a user file, then AVATAR__SECTION__KEY variables, then --set flags.

Each section becomes a frozen record of avatar/settings.py (cfg.vad.end_of_turn_ms). Every value is
checked against the type of its default and its range (no NaN or infinity, no zero
where zero makes no sense, list items from their known set); an unknown, ill-typed or out-of-range
key is a ConfigError that names it. Thread counts above the machine's cores are capped with a warning.
"""
from __future__ import annotations

import logging
import math
import os
import tomllib
from pathlib import Path
from typing import Any, Iterable, Mapping

from avatar.errors import ConfigError
from avatar.settings import SECTIONS

DEFAULTS_FILE = Path(__file__).with_name("defaults.toml")
ENV_PREFIX = "AVATAR__"
log = logging.getLogger(__name__)

# Extra constraints beyond the type of the default: key -> (check, what is allowed)
_CHOICES: dict[str, tuple] = {
    "general.lang": ("auto", "de", "en"),
    "llm.device": ("cpu", "cuda"),
    "llm.dtype": ("auto", "float32", "bfloat16", "float16"),
    "llm.backend": ("auto", "torch"),
    "llm.confidence": ("prob", "margin", "entropy"),
    "llm.order": ("confidence", "left_to_right", "random"),
    "answer.kind": ("diffusion", "retrieval"),
    "checks.fallback_answer": ("clause", "retrieval"),
    "checks.decline_follows": ("model", "retrieval"),
    "general.log_level": ("debug", "info", "warning", "error"),
    "vad.end_wait_rule": ("clauses", "first_word"),
}
_RANGES: dict[str, tuple[float, float]] = {
    "vad.webrtc_mode": (0, 3),
    "echo.doubletalk_db": (-100.0, 0.0),
    "echo.reference_lead_ms": (0.0, 500.0),
    "vad.silero_threshold": (0.0, 1.0),
    "pipeline.barge_in_onset_prob": (0.0, 1.0),
    "llm.threshold": (0.0, 1.0),
    "llm.temperature": (0.0, 10.0),
    "llm.decline_bias": (-10.0, 10.0),
    "llm.min_familiarity": (0.0, 1.0),
    "audio.frame_ms": (10, 30),
    "llm.gen_length": (1, 4096),
    "llm.block_length": (1, 4096),
    "checks.agreement_overlap": (0.0, 1.0),
    "checks.fallback_min_match": (0.0, 1.0),
    "checks.answer_coverage": (0.0, 1.0),
    "checks.source_min_coverage": (0.0, 1.0),
    "checks.snap_min_ratio": (0.0, 1.0),
    "asr.prior_below_prob": (0.0, 1.0),
    "asr.prompt_max_tokens": (0, 223),
    "asr.prior_max_ms": (0, 30000),
    "asr.incremental_interval_ms": (50, 5000),
    "asr.incremental_right_context_ms": (0, 5000),
    "asr.incremental_overlap_ms": (0, 5000),
    "asr.incremental_agree_passes": (2, 5),
    "asr.incremental_first_agree_passes": (2, 5),
    "asr.incremental_min_word_prob": (0.0, 1.0),
    "asr.partial_window_ms": (0, 30000),
    "asr.plain_decode_max_ms": (0, 30000),
    "asr.incremental_tail_min_logprob": (-10.0, 0.0),
    "asr.encode_bucket_frames": (0, 1000),
    "tts.stream_first_ms": (20, 1000),
    "tts.prefill_max_s": (0.0, 36000.0),
    "answer.semantic_weight": (0.0, 5.0),
    "general.knowledge_check_s": (0.0, 86400.0),
    # Upper bounds well past any sensible value: a typo of a few zeros (pad_frames=100000000 silenced
    # every turn) is refused instead of accepted.
    "budget.*": (0, 60000),
    "audio.output_latency_ms": (0.0, 1000.0),
    "audio.output_buffer_ms": (0.0, 2000.0),
    "vad.speech_start_ms": (0, 5000),
    "vad.min_speech_ms": (0, 5000),
    "vad.tentative_end_ms": (0, 5000),
    "vad.end_of_turn_ms": (0, 10000),
    "vad.hesitation_end_ms": (0, 10000),
    "vad.complete_end_ms": (0, 10000),
    "vad.preroll_ms": (0, 5000),
    "asr.beam_size": (0, 32),
    "asr.partial_interval_ms": (0, 30000),
    "asr.pad_frames": (0, 3000),
    "tts.length_scale": (0.0, 10.0),
    "tts.espeak_rate": (0, 1000),
    "tts.min_clause_chars": (0, 1000),
    "tts.first_breath_chars": (0, 1000),
    "tts.cache_clauses": (0, 100000),
    "answer.top_k": (0, 100),
    "answer.history_turns": (0, 100),
    "answer.min_score": (0.0, 1000.0),
    "llm.steps_per_block": (0, 4096),
    "llm.max_ms": (0.0, 60000.0),
    "checks.max_redecodes": (0, 10),
    "checks.max_extra_ratio": (0.0, 100.0),
    "checks.max_reply_chars": (0, 10000),
    "checks.max_reply_words": (0, 2000),
    "checks.prior_decode_ms": (0.0, 60000.0),
    "checks.prior_check_ms": (0.0, 60000.0),
    "pipeline.barge_in_min_ms": (0, 10000),
    "pipeline.barge_in_onset_ms": (0.0, 10000.0),
    "pipeline.visitor_timeout_s": (0.0, 86400.0),
    "pipeline.stage_timeout_s": (0.0, 600.0),
    "echo.delay_ms": (0.0, 1000.0),
    "general.trace_keep": (1, 10000),
    "general.log_max_kb": (1, 1_000_000),
    "general.log_keep": (1, 100),
    "kiosk.device_wait_s": (1.0, 3600.0),
}
# Numbers where 0 means nothing sensible (a zero timeout, an empty beam); "section.*" = every key.
_POSITIVE = {
    "budget.*", "vad.speech_start_ms", "vad.tentative_end_ms", "vad.end_of_turn_ms", "vad.hesitation_end_ms",
    "vad.complete_end_ms", "asr.beam_size", "tts.length_scale", "tts.espeak_rate",
    "answer.top_k", "checks.max_reply_chars", "checks.max_reply_words", "checks.prior_decode_ms",
    "pipeline.visitor_timeout_s", "pipeline.stage_timeout_s",
}
# Thread counts (0 = the library's choice) are capped to the machine: more threads than cores only
# spin, and torch with 100,000 threads crashes at exit.
_THREADS = ("asr.threads", "asr.decode_threads", "tts.threads", "llm.threads", "answer.semantic_threads")
# Lists whose items come from a fixed set.
_LIST_CHOICES: dict[str, tuple[str, ...]] = {
    "general.languages": ("de", "en"),
    "asr.venue_prompt_languages": ("de", "en"),
    "asr.incremental_languages": ("de", "en"),
    "asr.plain_decode_languages": ("de", "en"),
    "checks.moods": ("neutral", "happy", "sorry", "info"),
    "tts.engines_de": ("piper", "pico", "espeak"),
    "tts.engines_en": ("piper", "pico", "espeak"),
    "checks.always": ("grounding", "relevance", "source", "self_consistency", "schema"),
}
# Settings that are gone, with what replaces them.
_RETIRED = {
    "kiosk.admin_pin": "the admin PIN is no longer kept as plain text (and none is shipped): run "
                       "`avatar admin set-pin`, or put the hash `avatar admin set-pin --print` gives in kiosk.admin_pin_hash",
}
# The whole pipeline runs on 16 kHz mono (docs/INTERFACES.md); other rates are converted at the edges.
_FIXED = {"audio.sample_rate": 16000}


class Config:
    def __init__(self, data: dict[str, dict[str, Any]], sources: list[str]):
        self._data = data
        self.sources = sources
        for name, values in data.items():
            if name not in SECTIONS:
                raise ConfigError(f"[{name}] of avatar/defaults.toml has no record in avatar/settings.py",
                                  hint="a settings section is a table in avatar/defaults.toml and a dataclass "
                                       "in avatar/settings.py (SECTIONS)")
            setattr(self, name, SECTIONS[name].from_values(values))

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
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM (Windows editors) is fine
    except FileNotFoundError:
        raise ConfigError(f"settings file not found: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"settings file {path} is a folder, not a file",
                          hint="pass the TOML file itself, e.g. --config kiosk.toml") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"settings file {path} is not UTF-8 text (byte {exc.start})",
                          hint="save the file as UTF-8 (umlauts written in Latin-1 or Windows-1252 do not load)") from None
    except OSError as exc:
        raise ConfigError(f"settings file {path} cannot be read: {exc.strerror or exc}",
                          hint="check that the file exists and is readable by this user") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"settings file {path} is not valid TOML: {exc}") from None


def _split(dotted: str) -> tuple[str, str]:
    parts = dotted.split(".")
    if len(parts) != 2 or not all(parts):
        raise ConfigError(f"setting '{dotted}' must be written section.key")
    return parts[0], parts[1]


def _assign(data: dict, dotted: str, value: Any, origin: str) -> None:
    section, key = _split(dotted)
    if dotted in _RETIRED and (section not in data or key not in data[section]):
        raise ConfigError(f"setting '{dotted}' (from {origin}) is no longer read", hint=_RETIRED[dotted])
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
        if default and any(type(v) is not type(default[0]) for v in value):
            raise ConfigError(f"{where} must be a list of {_KIND.get(type(default[0]), 'values')}, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where} must be a finite number, got {value!r}")
    if dotted in _CHOICES and value not in _CHOICES[dotted]:
        raise ConfigError(f"{where} must be one of {', '.join(_CHOICES[dotted])}, got {value!r}")
    if dotted in _FIXED and value != _FIXED[dotted]:
        raise ConfigError(f"{where} must be {_FIXED[dotted]}, got {value!r}",
                          hint="the pipeline runs at 16 kHz; devices and files at other rates are converted")
    bounds = range_of(dotted)
    if bounds is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        lo, hi = bounds
        if not lo <= value <= hi:
            raise ConfigError(f"{where} must lie between {lo} and {hi}, got {value!r}")
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        raise ConfigError(f"{where} must not be negative, got {value!r}")
    if (dotted in _POSITIVE or f"{dotted.split('.')[0]}.*" in _POSITIVE) and value <= 0:
        raise ConfigError(f"{where} must be greater than 0, got {value!r}")
    if dotted in _LIST_CHOICES:
        allowed = _LIST_CHOICES[dotted]
        may_be_empty = dotted in ("checks.always", "asr.venue_prompt_languages", "asr.incremental_languages",
                                  "asr.plain_decode_languages")
        if (not value and not may_be_empty) or any(v not in allowed for v in value):
            raise ConfigError(f"{where} must {'only name' if may_be_empty else 'list one or more of'} "
                              f"{', '.join(allowed)}, got {value!r}")
    if dotted in _THREADS:
        cores = os.cpu_count() or 1
        if value > cores:
            log.warning("%s is %d but this machine has %d cores; using %d", where, value, cores, cores)
            value = cores
    return value


def range_of(dotted: str) -> tuple[float, float] | None:
    """The allowed (low, high) of a numeric setting, None where it has none (thread counts are capped instead)."""
    return _RANGES.get(dotted) or _RANGES.get(f"{dotted.split('.')[0]}.*")


_KIND = {str: "texts", int: "whole numbers", float: "numbers", bool: "true/false values"}


def _parse_scalar(raw: str) -> Any:
    """A value from the command line or environment: TOML syntax if it parses, else plain text."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw
