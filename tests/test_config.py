import pytest

from avatar import config
from avatar.errors import ConfigError


def test_defaults_load_with_typed_sections():
    cfg = config.load(env={})
    assert cfg.budget.turn > 0
    assert cfg.general.languages == ("de", "en")
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
    ("asr.incremental=yes", "asr.incremental"),
    ("asr.incremental_interval_ms=0", "asr.incremental_interval_ms"),
    ("asr.incremental_interval_ms=60000", "asr.incremental_interval_ms"),
    ("asr.incremental_overlap_ms=-1", "asr.incremental_overlap_ms"),
    ("asr.incremental_right_context_ms=9000", "asr.incremental_right_context_ms"),
    ("asr.incremental_agree_passes=1", "asr.incremental_agree_passes"),
    ("asr.incremental_first_agree_passes=9", "asr.incremental_first_agree_passes"),
    ("asr.incremental_min_word_prob=1.5", "asr.incremental_min_word_prob"),
    ("asr.incremental_tail_min_logprob=0.5", "asr.incremental_tail_min_logprob"),
    ("tts.stream=maybe", "tts.stream"),
    ("tts.stream_first_ms=5", "tts.stream_first_ms"),
    ("tts.stream_first_ms=fast", "tts.stream_first_ms"),
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


@pytest.mark.parametrize("setting, key, problem", [
    ("pipeline.stage_timeout_s=nan", "pipeline.stage_timeout_s", "finite"),
    ("pipeline.visitor_timeout_s=inf", "pipeline.visitor_timeout_s", "finite"),
    ("tts.length_scale=-inf", "tts.length_scale", "finite"),
    ("llm.threshold=nan", "llm.threshold", "finite"),
])
def test_nan_and_infinity_are_refused(setting, key, problem):
    with pytest.raises(ConfigError) as err:
        config.load(sets=[setting], env={})
    assert key in str(err.value) and problem in str(err.value)


@pytest.mark.parametrize("key", [
    "pipeline.stage_timeout_s", "pipeline.visitor_timeout_s", "answer.top_k", "asr.beam_size",
    "tts.length_scale", "checks.max_reply_chars", "checks.max_reply_words", "budget.turn", "budget.checks",
    "vad.end_of_turn_ms",
])
def test_zero_is_refused_where_it_makes_no_sense(key):
    with pytest.raises(ConfigError) as err:
        config.load(sets=[f"{key}=0"], env={})
    assert key in str(err.value) and "greater than 0" in str(err.value)


def test_sample_rate_other_than_16k_is_refused_with_a_hint():
    for value in ("0", "44100"):
        with pytest.raises(ConfigError) as err:
            config.load(sets=[f"audio.sample_rate={value}"], env={})
        assert "audio.sample_rate" in str(err.value) and err.value.hint


@pytest.mark.parametrize("setting, problem", [
    ("checks.moods=[1, 2]", "list of texts"),
    ("checks.moods=['angry']", "neutral, happy, sorry, info"),
    ("checks.moods=[]", "one or more"),
    ("checks.always=['speed']", "grounding"),
    ("general.languages=[1]", "list of texts"),
])
def test_lists_of_known_names_name_the_key(setting, problem):
    key = setting.split("=")[0]
    with pytest.raises(ConfigError) as err:
        config.load(sets=[setting], env={})
    assert key in str(err.value) and problem in str(err.value)


def test_an_empty_always_list_is_allowed():
    assert config.load(sets=["checks.always=[]"], env={}).checks.always == ()


def test_thread_counts_are_capped_to_the_machine_with_a_warning(monkeypatch, caplog):
    monkeypatch.setattr(config.os, "cpu_count", lambda: 4)
    with caplog.at_level("WARNING", logger="avatar.config"):
        cfg = config.load(sets=["llm.threads=100000", "asr.threads=3"], env={})
    assert cfg.llm.threads == 4 and cfg.asr.threads == 3
    assert "llm.threads" in caplog.text and "4 cores" in caplog.text


def test_a_latin1_settings_file_is_a_clear_error_naming_the_file(tmp_path):
    f = tmp_path / "kiosk.toml"
    f.write_bytes('[kiosk]\nadmin_pin = "Grüße"\n'.encode("latin-1"))
    with pytest.raises(ConfigError) as err:
        config.load(f, env={})
    assert str(f) in str(err.value) and "UTF-8" in str(err.value) and err.value.hint


def test_a_folder_as_settings_file_is_a_clear_error_naming_it(tmp_path):
    with pytest.raises(ConfigError) as err:
        config.load(tmp_path, env={})
    assert str(tmp_path) in str(err.value) and "folder" in str(err.value) and err.value.hint


def test_bad_settings_files_end_in_a_config_error_not_an_internal_error(tmp_path, capsys):
    from avatar.cli import main

    assert main(["--config", str(tmp_path), "doctor"]) == 2
    err = capsys.readouterr().err
    assert "internal error" not in err and str(tmp_path) in err


def test_a_settings_file_saved_with_a_byte_order_mark_loads(tmp_path):
    f = tmp_path / "kiosk.toml"
    f.write_bytes("[vad]\nend_of_turn_ms = 600\n".encode("utf-8-sig"))
    assert config.load(f, env={}).vad.end_of_turn_ms == 600


def test_incremental_recognition_is_on_for_english_only_by_default():
    # English was no less accurate in every measurement, German lost words (docs/PERF.md, "Incremental recognition")
    cfg = config.load(env={})
    assert cfg.asr.incremental is True and cfg.asr.incremental_languages == ("en",)
    assert config.load(sets=["asr.incremental=false"], env={}).asr.incremental is False


def _numeric_defaults():
    import tomllib
    data = tomllib.loads(config.DEFAULTS_FILE.read_text(encoding="utf-8"))
    return [(f"{s}.{k}", v) for s, values in data.items() for k, v in values.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)]


@pytest.mark.parametrize("key, default", _numeric_defaults())
def test_every_numeric_setting_has_an_upper_bound_checked_at_load(key, default):
    if key in config._THREADS:  # thread counts are capped to the machine's cores instead
        assert config.load(sets=[f"{key}=100000"], env={}).get(key) <= (config.os.cpu_count() or 1)
        return
    bounds = config.range_of(key)
    assert bounds is not None, f"{key} has no range in avatar/config.py"
    lo, hi = bounds
    assert lo <= default <= hi
    too_big = hi * 10 + 1 if hi > 0 else 1
    with pytest.raises(ConfigError) as err:
        config.load(sets=[f"{key}={too_big!r}"], env={})
    assert key in str(err.value) and "between" in str(err.value)
    assert config.load(sets=[f"{key}={hi!r}"], env={}).get(key) == hi


def test_a_huge_pad_frames_is_refused_with_its_range():
    with pytest.raises(ConfigError, match=r"asr.pad_frames.*between 0 and 3000, got 100000000"):
        config.load(sets=["asr.pad_frames=100000000"], env={})
