"""The settings sections as frozen records (avatar/settings.py): made once, read as they are."""
import dataclasses

import pytest

from avatar import config, settings
from avatar.errors import ConfigError


def test_each_typed_section_is_a_frozen_record_of_its_checked_values():
    cfg = config.load(sets=["vad.end_of_turn_ms=600"], env={})
    assert isinstance(cfg.vad, settings.Vad) and cfg.vad.end_of_turn_ms == 600
    assert isinstance(cfg.asr.incremental_languages, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.vad.end_of_turn_ms = 100


def test_every_field_has_the_type_of_its_default():
    cfg = config.load(env={})
    for name, record in settings.SECTIONS.items():
        section = getattr(cfg, name)
        for f in dataclasses.fields(record):
            value = getattr(section, f.name)
            kind = {"bool": bool, "int": int, "float": float, "str": str}.get(f.type, tuple)
            assert type(value) is kind, f"{name}.{f.name} is {type(value).__name__}, declared {f.type}"


def test_an_unknown_setting_is_named():
    with pytest.raises(ConfigError, match="tts.no_such_key"):
        config.load(env={}).tts.no_such_key


def test_a_key_in_defaults_toml_without_a_field_stops_the_load_naming_both():
    values = {**config.load(env={}).echo.as_dict(), "new_key": 1.0}
    with pytest.raises(ConfigError, match=r"\['new_key'\] only in defaults.toml"):
        settings.Echo.from_values(values)


def test_every_section_of_defaults_toml_is_a_record():
    cfg = config.load(env={})
    assert set(settings.SECTIONS) == set(cfg.as_dict())
    assert isinstance(cfg.llm, settings.Llm) and isinstance(cfg.llm.threshold, float)
    assert isinstance(cfg.answer, settings.Answer) and isinstance(cfg.checks, settings.Checks)
    assert cfg.checks.moods == ("neutral", "happy", "sorry", "info")


def test_overrides_make_new_records_of_the_llm_answer_and_checks_sections():
    cfg = config.load(env={})
    changed = cfg.with_overrides({"llm.decline_bias": 0, "checks.snap": True, "answer.top_k": 5})
    assert (changed.llm.decline_bias, changed.checks.snap, changed.answer.top_k) == (0.0, True, 5)
    fresh = config.load(env={})
    assert (cfg.llm, cfg.checks, cfg.answer) == (fresh.llm, fresh.checks, fresh.answer)  # the original untouched
    with pytest.raises(ConfigError, match="checks.no_such_key"):
        cfg.checks.no_such_key
