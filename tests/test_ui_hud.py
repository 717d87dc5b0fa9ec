"""The latency HUD reflects a turn's spans and metrics against the configured budgets, and says in
a few words what the checks did, inside its panel at 1280x800."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtGui import QFontMetrics  # noqa: E402

from avatar import config  # noqa: E402
from avatar import events as ev  # noqa: E402
from avatar.trace import Span  # noqa: E402
from avatar.answer.base import CheckReport, DecodeStats  # noqa: E402
from avatar.ui import checks_summary as summary_module  # noqa: E402
from avatar.ui.hud import HudWidget, fit_lines  # noqa: E402
from avatar.ui.hud_model import HudModel  # noqa: E402


def checks_summary(record, strings) -> str:
    """The HUD's words, with the no-break spaces that bind a mark to its name read as spaces."""
    return summary_module.checks_summary(record, strings).replace("\u00a0", " ")
from avatar.locales import load_strings  # noqa: E402


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
    assert rows["check.grounding"].budget == cfg.budget.checks
    assert [r.key for r in model.rows()] == ["asr", "decode", "check.grounding"]  # pipeline order


def test_turn_metrics_replace_live_spans_and_carry_voice_to_voice(cfg):
    model = HudModel(cfg.budget.as_dict())
    model.add_span(Span("asr", 0.0, 0.5, turn=1))
    model.add_span(Span("check.schema", 0.5, 0.501, turn=1))
    metrics = ev.TurnMetrics(2.0, turn=1, lang="en", stages={"endpoint": 180.0, "asr": 150.0, "decode": 30.0},
                             voice_to_voice_ms=512.0, decode=DecodeStats(steps=8, tokens=44),
                             checks=CheckReport(grounded=True))
    record = model.add_metrics(metrics)
    assert record.stages["asr"] == 150.0            # the metrics win over the live span
    assert "check.schema" in record.stages          # a per-check span the metrics do not list stays
    assert record.voice_to_voice_ms == 512.0
    assert model.current is record
    assert record.decode.tokens_per_pass == pytest.approx(5.5)
    assert model.run_stages[-1]["voice_to_voice"] == 512.0
    model.add_span(Span("asr", 3.0, 4.0, turn=1))    # late spans of a finished turn are ignored
    assert model.current.stages["asr"] == 150.0


def test_enclosing_turn_spans_are_not_counted_as_stages(cfg):
    model = HudModel(cfg.budget.as_dict())
    model.add_span(Span("answer_total", 0.0, 0.1, turn=1, track="turn"))
    model.add_span(Span("voice_to_voice", 0.0, 0.6, turn=1, track="turn"))
    assert model.rows() == []
    assert model.current.voice_to_voice_ms == pytest.approx(600.0)


FALLBACK_RECORD = {"enabled": True, "passes": ["grounding", "relevance", "schema"], "fallback_used": True, "fallback": "fact:schema",
                   "redecodes": 1, "decodes": 2, "unsupported": []}
UNFAMILIAR_RECORD = {"enabled": True, "passes": [], "fallback_used": True, "fallback": "retrieval:unfamiliar",
                     "retrieval_backed": {"declined": False}, "decodes": 0, "unsupported": []}
CLEAN_RECORD = {"enabled": True, "passes": ["grounding", "relevance", "self_consistency", "schema"], "grounded": True,
                "relevant": True, "agreement": True, "overlap": 1.0, "vote": None, "schema_ok": True,
                "schema_problems": [], "fallback_used": False, "fallback": "", "redecodes": 0, "decodes": 2,
                "unsupported": [], "banned": [], "ms": {"grounding": 1.2}, "skipped": [], "not_needed": [],
                "budget_ms": 90.0, "spent_ms": 40.0}


def test_checks_summary_says_in_a_few_words_what_the_checks_did():
    s = load_strings("en")
    text = checks_summary(FALLBACK_RECORD, s)
    # schema passed once, then failed on the re-decode: the fallback's reason is the verdict that counts
    assert text == "replaced by the fact: malformed · ✓ grounding, relevance ✗ schema"
    assert checks_summary(CLEAN_RECORD, s) == "passed, 2 decodes agree · ✓ grounding, relevance, consistency, schema"
    for raw in ("passes", "[", "decodes 2", "fallback_used", "budget_ms", "True"):  # not a dump of the record
        assert raw not in text and raw not in checks_summary(CLEAN_RECORD, s)


def test_checks_summary_says_why_a_reply_was_re_decoded_or_replaced():
    s = load_strings("en")
    mended = CheckReport(enabled=True, passes=["declined_answerable", "grounding", "schema"],
                         failed=["declined_answerable"], grounded=True, schema_ok=True, redecodes=1, decodes=2)
    assert checks_summary(mended, s) == "re-decoded: declined though a fact answers · ✓ decline, grounding, schema"
    wrong = CheckReport(enabled=True, failed=["source"], grounded=True, relevant=True, fallback_used=True,
                        fallback="fact:wrong_source", redecodes=0, decodes=1)
    assert checks_summary(wrong, s) == "replaced by the fact: wrong source · ✓ grounding, relevance ✗ source"
    snapped = CheckReport(enabled=True, passes=["grounding"], grounded=True, schema_ok=False, failed=["schema"],
                          snapped={"reason": "schema", "ratio": 0.9, "fact": "wc", "from": "x"})
    assert checks_summary(snapped, s).startswith("cut to the fact's clause: malformed")
    voted = CheckReport(enabled=True, passes=["self_consistency"], agreement=False,
                        vote={"winner": 1, "votes": [0, 1, 1], "majority": True}, decodes=3)
    assert checks_summary(voted, s) == "passed, 2 of 3 decodes agree · ✓ consistency"
    # the second decode differed, no time for a third: the reply stands, and the headline does not say "passed"
    kept = CheckReport(enabled=True, passes=["grounding", "schema"], grounded=True, agreement=False, schema_ok=True,
                       skipped=["vote"], decodes=2)
    assert checks_summary(kept, s) == "kept, 2 decodes differ (no time to vote) · ✓ grounding, schema ✗ consistency"
    failed = CheckReport(fallback_used=True, fallback_reason="StageTimeout", retrieval={"best": 0.9})
    assert checks_summary(failed, s) == "model failed (StageTimeout), retrieval answered"


def test_checks_summary_names_unbacked_words_skips_and_the_dont_know_fallback():
    s = load_strings("en")
    record = {"enabled": True, "passes": [], "grounded": False, "fallback_used": True,
              "fallback": "not_known:unsupported", "redecodes": 1, "unsupported": ["12 Euro"],
              "skipped": ["self_consistency"]}
    assert checks_summary(record, s) == ("replaced by “I don't know”: unbacked words · ✗ grounding"
                                         " · unbacked: 12 Euro · skipped for time: consistency")
    many = {**record, "unsupported": ["12 Euro", "Montag", "Halle 3", "9 Uhr", "Tor B"]}
    assert "unbacked: 12 Euro, Montag, Halle 3 +2 ·" in checks_summary(many, s)
    assert checks_summary({"enabled": False, "decodes": 1}, s) == s.get("hud.checks_off")
    assert checks_summary({}, s) == s.get("hud.no_checks")
    assert checks_summary(CheckReport(retrieval={"best": 0.9}), s) == s.get("hud.no_checks")  # a retrieval answer


def test_checks_summary_in_german_and_from_a_typed_record():
    de = load_strings("de")
    assert checks_summary(FALLBACK_RECORD, de) == "ersetzt durch den Fakt: fehlerhaft · ✓ Belege, Themenbezug ✗ Schema"
    report = CheckReport(enabled=True, passes=["grounding"], grounded=True, relevant=False, failed=["relevance"],
                         fallback_used=True, fallback="fact:off_topic")
    assert checks_summary(report, load_strings("en")) == "replaced by the fact: off topic · ✓ grounding ✗ relevance"
    assert checks_summary(report, de) == "ersetzt durch den Fakt: am Thema vorbei · ✓ Belege ✗ Themenbezug"


def test_the_check_report_travels_as_the_checks_dict_where_json_is_written():
    record = CheckReport.of(CLEAN_RECORD)
    assert record.agreement is True and record.ms == {"grounding": 1.2}
    assert record.to_dict() == {**CLEAN_RECORD, "failed": []}  # every key the dict had, and what failed
    assert CheckReport.of({"enabled": False, "decodes": 1}).to_dict() == {"enabled": False, "decodes": 1}
    assert CheckReport.of({"smalltalk": "greeting"}).to_dict() == {"smalltalk": "greeting"}
    assert CheckReport.of({"grounding": {"ok": True}}).to_dict() == {"grounding": {"ok": True}}  # unknown keys kept
    metrics = ev.TurnMetrics(1.0, turn=1, checks=record)
    assert metrics.checks is record and metrics.checks.passes == CLEAN_RECORD["passes"]


def test_long_checks_text_wraps_and_elides_within_the_panel(qtbot):
    from PySide6.QtGui import QFont

    metrics = QFontMetrics(QFont())
    text = "checks: " + " ".join(f"word{i}" for i in range(200))
    lines = fit_lines(text, metrics, 300, 3)
    assert len(lines) == 3 and lines[-1].endswith("…")
    assert all(metrics.horizontalAdvance(line) <= 300 for line in lines)
    assert fit_lines("short", metrics, 300, 3) == ["short"]


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
    assert widget.label_for("check.grounding") == "  ↳ Belege"  # a part of the checks stage, in German
    assert widget.label_for("check.something_new").endswith("something_new")


def test_the_hud_names_the_voice_that_speaks_the_reply(qtbot, cfg):
    model = HudModel(cfg.budget.as_dict())
    widget = HudWidget(model, load_strings("de"))
    qtbot.addWidget(widget)
    model.begin_turn(4, "de")
    assert widget.voice_line() == "Stimme: –"  # no clause spoken yet: no voice named
    model.set_voice(4, "SVOX Pico de-DE")
    model.set_voice(4, "espeak-ng de")  # a later clause's fallback does not rename the reply's voice
    model.add_metrics(ev.TurnMetrics(1.0, turn=4, lang="de", stages={"tts_first_audio": 40.0},
                                     decode=DecodeStats(steps=4, tokens=12)))
    assert widget.decode_line() == "Tokens pro Vorwärtsschritt: 3.0  (12 / 4)"
    assert widget.voice_line() == "Stimme: SVOX Pico de-DE"


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("record", [FALLBACK_RECORD, CLEAN_RECORD, UNFAMILIAR_RECORD], ids=["fallback", "clean", "unfamiliar"])
def test_the_hud_fits_the_kiosk_window_at_1280x800(qtbot, cfg, lang, record, tmp_path):
    from avatar.ui.demo_script import DemoLoop
    from avatar.ui.window import KioskWindow

    window = KioskWindow(cfg, DemoLoop(), kiosk=False, lang=lang)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    window.hud.setVisible(True)
    stages = {"endpoint": 180.0, "asr": 150.0, "retrieval": 3.0, "decode": 60.0, "checks": 75.0,
              "tts_first_audio": 120.0, "output": 20.0}
    for turn in range(1, 4):
        for name in ("grounding", "relevance", "self_consistency", "schema", "decode", "fallback"):
            window.hud_model.add_span(Span(f"check.{name}", 0.0, 0.005, turn=turn))
        window.hud_model.add_metrics(ev.TurnMetrics(1.0, turn=turn, lang=lang, stages=stages,
                                                    voice_to_voice_ms=650.0, decode=DecodeStats(steps=8, tokens=44),
                                                    checks=CheckReport.of({**record, "unsupported": ["12 Euro", "Montag"] * 6})))
    window.hud.refresh()
    hud = window.hud
    assert window.rect().contains(hud.geometry())  # the panel stays inside the window
    lines = hud.checks_lines()
    assert 1 <= len(lines) <= hud.CHECK_LINES
    metrics = QFontMetrics(hud._small_font())
    assert all(metrics.horizontalAdvance(line) <= hud.width() - 28 for line in lines)
    head, _, rest = summary_module.checks_summary(window.hud_model.current.checks, window.strings).partition(" · ")
    assert lines[0] == f"{window.strings.get('hud.checks')}: {head}"  # what became of the reply, on a line of its own
    assert " ".join(lines[1:]) == rest  # then the verdicts: it all fits, nothing elided
    shot = window.grab()
    assert shot.width() == 1280 and shot.height() == 800 and shot.save(str(tmp_path / "hud.png"))
    window.resize(1280, 560)  # a shorter window: the panel shrinks with it (the recent-turns chart goes first)
    assert window.rect().contains(window.hud.geometry())


def test_checks_summary_says_when_the_decode_ran_past_its_budget():
    over = CheckReport(enabled=True, fallback_used=True, fallback="retrieval:decode_over_budget",
                       retrieval_backed={"declined": False})
    assert checks_summary(over, load_strings("en")) == "replaced by the retrieval answer: decode over its budget"
    assert checks_summary(over, load_strings("de")) == "ersetzt durch die Antwort der Suche: Dekodieren über dem Budget"


def test_checks_summary_says_when_the_facts_were_too_unlike_the_training_for_a_decode():
    unfamiliar = CheckReport(enabled=True, fallback_used=True, fallback="retrieval:unfamiliar",
                             retrieval_backed={"declined": False})
    assert checks_summary(unfamiliar, load_strings("en")) == \
        "replaced by the retrieval answer: facts new to the model"
    assert checks_summary(unfamiliar, load_strings("de")) == \
        "ersetzt durch die Antwort der Suche: fremde Fakten"
