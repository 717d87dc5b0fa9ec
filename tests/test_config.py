import pytest

from avatar import config
from avatar.errors import ConfigError


def test_defaults_load_with_typed_sections():
    cfg = config.load(env={})
    assert cfg.budget.turn > 0
    assert cfg.general.languages == ["de", "en"]
    assert isinstance(cfg.llm.threshold, float)


def test_user_file_env_and_flags_override_in_order(tmp_path):
    f = tmp_path / "kiosk.toml"
    f.write_text("[vad]\nend_of_turn_ms = 600\n[llm]\nthreshold = 0.8\n")
    cfg = config.load(f, sets=["llm.threshold=0.7"], env={"AVATAR__VAD__END_OF_TURN_MS": "700"})
    assert cfg.vad.end_of_turn_ms == 700
    assert cfg.llm.threshold == 0.7


@pytest.mark.parametrize("setting, message", [
    ("vad.webrtc_mode=9", "vad.webrtc_mode"),
    ("llm.device=tpu", "llm.device"),
    ("budget.turn=fast", "budget.turn"),
    ("nosuch.key=1", "nosuch.key"),
    ("general.languages=['fr']", "general.languages"),
    ("pipeline.speculative=3", "pipeline.speculative"),
])
def test_invalid_values_name_the_key(setting, message):
    with pytest.raises(ConfigError) as err:
        config.load(sets=[setting], env={})
    assert message in str(err.value)


def test_invalid_toml_file_is_a_clear_error(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("[vad\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        config.load(f, env={})


def test_unknown_attribute_is_a_config_error():
    cfg = config.load(env={})
    with pytest.raises(ConfigError, match="vad.nope"):
        cfg.vad.nope
