"""German and English texts: the same keys in both, placeholders filled, persona prompts present."""
import re
from pathlib import Path

import pytest

from avatar.errors import ConfigError
from avatar.locales import flat_keys, load_strings

UI_DIR = Path(__file__).resolve().parents[1] / "avatar" / "ui"


def test_german_and_english_have_the_same_keys():
    de, en = load_strings("de"), load_strings("en")
    assert flat_keys(de.table) == flat_keys(en.table)


def test_every_text_the_ui_asks_for_exists():
    keys = set()
    for path in UI_DIR.glob("*.py"):
        keys |= set(re.findall(r'\.get\("([a-z_]+\.[a-z_.]+)"', path.read_text(encoding="utf-8")))
    assert keys, "the UI asks for no texts?"
    for lang in ("de", "en"):
        s = load_strings(lang)
        missing = sorted(k for k in keys if not s.has(k))
        assert not missing, f"{lang}: {missing}"


def test_placeholders_and_stage_names():
    s = load_strings("de")
    assert s.get("hud.turn", turn=4) == "Runde 4"
    assert "Spracherkennung" in s.get("error.stage_restarted", stage=s.stage_name("asr"))
    assert s.stage_name("something_new") == s.get("stage.other")
    assert s.get("no.such.key") == "no.such.key"


def test_persona_prompts_in_both_languages():
    for lang in ("de", "en"):
        persona = load_strings(lang).persona
        assert persona["system"] and persona["dont_know"] and persona["name"]


def test_unknown_language_is_a_config_error():
    with pytest.raises(ConfigError):
        load_strings("fr")
