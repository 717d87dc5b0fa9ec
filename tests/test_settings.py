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


def test_the_untyped_sections_are_still_read_by_attribute():
    cfg = config.load(env={})
    assert "llm" not in settings.SECTIONS and isinstance(cfg.llm.threshold, float)
