"""The latency HUD reflects a turn's spans and metrics against the configured budgets."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from avatar import config  # noqa: E402
from avatar import events as ev  # noqa: E402
from avatar.trace import Span  # noqa: E402
from avatar.ui.hud import HudModel, HudWidget, checks_summary, tokens_per_pass  # noqa: E402
from avatar.ui.strings import load_strings  # noqa: E402


@pytest.fixture
def cfg():
    return config.load(env={})


def test_hud_shows_each_span_of_the_turn_against_its_budget(cfg):
    model = HudModel(cfg.budget.as_dict())
    model.begin_turn(3, "de")
    model.add_span(Span("asr", 1.0, 1.25, turn=3))            # 250 ms, budget 200
    model.add_span(Span("decode", 1.25, 1.29, turn=3))        # 40 ms, budget 80
    model.add_span(Span("check.grounding", 1.29, 1.295, turn=3))
    rows = {r.key: r for r in model.rows()}
    assert rows["asr"].ms == pytest.approx(250.0)
    assert rows["asr"].budget == cfg.budget.asr and rows["asr"].over
    assert rows["decode"].ms == pytest.approx(40.0) and not rows["decode"].over
    assert rows["check:grounding"].budget == cfg.budget.checks
    assert [r.key for r in model.rows()] == ["asr", "decode", "check:grounding"]  # pipeline order


def test_turn_metrics_replace_live_spans_and_carry_voice_to_voice(cfg):
    model = HudModel(cfg.budget.as_dict())
    model.add_span(Span("asr", 0.0, 0.5, turn=1))
    model.add_span(Span("check.schema", 0.5, 0.501, turn=1))
    metrics = ev.TurnMetrics(2.0, turn=1, lang="en", stages={"endpoint": 180.0, "asr": 150.0, "decode": 30.0},
                             voice_to_voice_ms=512.0, decode={"steps": 8, "tokens": 44},
                             checks={"grounding": {"ok": True}})
    record = model.add_metrics(metrics)
    assert record.stages["asr"] == 150.0            # the metrics win over the live span
    assert "check:schema" in record.stages          # a per-check span the metrics do not list stays
    assert record.voice_to_voice_ms == 512.0
    assert model.current is record
    assert tokens_per_pass(record.decode) == pytest.approx(5.5)
    assert model.run_stages[-1]["voice_to_voice"] == 512.0
    model.add_span(Span("asr", 3.0, 4.0, turn=1))    # late spans of a finished turn are ignored
    assert model.current.stages["asr"] == 150.0


def test_enclosing_turn_spans_are_not_counted_as_stages(cfg):
    model = HudModel(cfg.budget.as_dict())
    model.add_span(Span("answer_total", 0.0, 0.1, turn=1, track="turn"))
    model.add_span(Span("voice_to_voice", 0.0, 0.6, turn=1, track="turn"))
    assert model.rows() == []
    assert model.current.voice_to_voice_ms == pytest.approx(600.0)


def test_checks_summary_says_what_the_checks_bought():
    s = load_strings("en")
    text = checks_summary({"grounding": {"ok": False, "unsupported": 1}, "schema": True, "redecodes": 2}, s)
    assert "grounding ✗" in text and "unsupported 1" in text
    assert "schema ✓" in text and "redecodes 2" in text
    assert checks_summary({}, s) == s.get("hud.no_checks")


def test_hud_widget_paints_a_turn_and_follows_the_language(qtbot, cfg):
    model = HudModel(cfg.budget.as_dict())
    widget = HudWidget(model, load_strings("en"))
    qtbot.addWidget(widget)
    model.add_metrics(ev.TurnMetrics(1.0, turn=1, stages={"asr": 120.0, "tts_first_audio": 400.0},
                                     voice_to_voice_ms=900.0))
    widget.refresh()
    assert widget.height() > 40 + 2 * widget.ROW_H
    assert not widget.grab().isNull()
    assert widget.label_for("tts_first_audio") == "TTS first audio"
    widget.set_strings(load_strings("de"))
    assert widget.label_for("tts_first_audio") == "Stimme"
    assert widget.label_for("check:grounding").endswith("grounding")
