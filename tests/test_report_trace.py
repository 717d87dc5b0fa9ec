"""`avatar report`: a trace becomes per-stage percentiles, a table and a PNG plot."""
import ast
import json
from pathlib import Path

import pytest

from avatar import cli, config
from avatar.errors import AvatarError
from avatar.report import format_table, plot_report, stage_budget, stage_stats, turn_table_row, turns_from_spans
from avatar.stage_names import (ANSWER, ANSWER_OTHER, ASR, CHECK_PREFIX, CHECKS, DECODE, ENDPOINT, HOLD, OUTPUT, RETRIEVAL,
                                TTS_FIRST_AUDIO, VOICE_TO_VOICE, check_span, is_check)
from avatar.stats import p50_p95, percentile, percentile_ms
from avatar.trace import Tracer, load_chrome

BUDGETS = config.load(env={}).budget.as_dict()
AVATAR = Path(__file__).resolve().parents[1] / "avatar"


def synthetic_tracer(turns: int = 10) -> Tracer:
    """Turn i: asr (100 + 10 i) ms, decode 30 ms twice (a re-decode), a grounding check, voice to voice."""
    tracer = Tracer()
    t = 0.0
    for i in range(turns):
        asr = (100 + 10 * i) / 1000
        tracer.record("endpoint", t, t + 0.2, turn=i)
        tracer.record("asr", t + 0.2, t + 0.2 + asr, turn=i)
        d0 = t + 0.2 + asr
        tracer.record("decode", d0, d0 + 0.03, turn=i, track="answer")
        tracer.record("decode", d0 + 0.03, d0 + 0.06, turn=i, track="answer")
        tracer.record("decode", d0, d0 + 0.029, turn=i, track="llm")  # inside the first: not counted again
        tracer.record("answer_total", d0, d0 + 0.07, turn=i, track="turn")  # encloses stages: not a stage
        tracer.record("check.grounding", d0 + 0.06, d0 + 0.061, turn=i, track="checks")
        tracer.record("voice_to_voice", t, d0 + 0.2, turn=i, track="turn")
        tracer.record("warmup", t, t + 1.0)  # no turn: not a stage of any turn
        t += 5.0
    return tracer


def test_percentile_interpolates_between_ranks():
    assert percentile([1, 2, 3, 4, 5], 50) == 3
    assert percentile([0, 10], 95) == pytest.approx(9.5)
    assert percentile([7], 95) == 7
    assert percentile([], 50) != percentile([], 50)  # NaN
    assert percentile([None, 4.0], 50) == 4.0  # a missing figure is left out
    assert percentile_ms([1.04, 2.0], 50) == 1.5 and percentile_ms([], 50) is None
    assert p50_p95([None, 0.0, 10.0]) == {"p50": 5.0, "p95": 9.5, "n": 2}
    assert p50_p95([]) == {"p50": None, "p95": None, "n": 0}


def test_stage_names_have_one_spelling():
    assert check_span("grounding") == "check.grounding" and is_check("check.grounding")
    assert not is_check("checks") and not is_check(CHECK_PREFIX)
    assert stage_budget("check.grounding", BUDGETS) == BUDGETS["checks"]
    assert stage_budget(VOICE_TO_VOICE, BUDGETS) == BUDGETS["turn"]
    assert stage_budget("my_new_stage", BUDGETS) is None  # an unknown name passes through, unbudgeted


def test_stages_record_their_spans_under_the_named_constants():
    """No stage spells a stage's name itself: a span, a record or a Span of a stage name takes it
    from avatar.stage_names, so renaming one renames it everywhere."""
    names = {ENDPOINT, ASR, RETRIEVAL, DECODE, CHECKS, TTS_FIRST_AUDIO, HOLD, OUTPUT, ANSWER, ANSWER_OTHER,
             VOICE_TO_VOICE}
    spelled = []
    for path in sorted(AVATAR.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            name = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
            if func in ("span", "record", "Span") and isinstance(name, str) and (name in names
                                                                               or name.startswith(CHECK_PREFIX)):
                spelled.append(f"{path.relative_to(AVATAR.parent)}:{node.lineno} {name!r}")
    assert not spelled, spelled


def test_a_trace_file_becomes_per_stage_percentiles(tmp_path):
    path = synthetic_tracer().export_chrome(tmp_path / "run.json")
    turns = turns_from_spans(load_chrome(path))
    assert [t.turn for t in turns] == list(range(10))
    assert turns[0].stages["decode"] == pytest.approx(60.0, abs=0.01)  # repeated spans add up
    stats = {s.name: s for s in stage_stats([t.stages for t in turns], BUDGETS)}
    assert "warmup" not in stats and "answer_total" not in stats
    assert stats["asr"].n == 10
    assert stats["asr"].p50 == pytest.approx(145.0, abs=0.01)
    assert stats["asr"].p95 == pytest.approx(185.5, abs=0.01)
    assert stats["asr"].budget == BUDGETS["asr"]
    assert stats["check.grounding"].budget == BUDGETS["checks"]
    assert stats["voice_to_voice"].budget == BUDGETS["turn"]
    table = format_table(list(stats.values()))
    assert table.splitlines()[0].split()[:4] == ["stage", "n", "p50", "ms"]
    assert any(line.startswith("asr ") for line in table.splitlines())


def test_the_plot_is_written_as_png(tmp_path):
    turns = turns_from_spans(synthetic_tracer().spans())
    out = plot_report(turns, tmp_path / "plots" / "report.png", BUDGETS)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(AvatarError):
        plot_report(turns, tmp_path / "x.png", BUDGETS, turn=99)
    with pytest.raises(AvatarError):
        plot_report([], tmp_path / "y.png", BUDGETS)


def test_report_command_prints_the_table_and_writes_the_plot(tmp_path, capsys):
    trace = synthetic_tracer().export_chrome(tmp_path / "run.json")
    png = tmp_path / "out.png"
    assert cli.main(["report", str(trace), "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "10 turns" in out and "asr" in out and "voice_to_voice" in out
    assert png.exists()
    assert cli.main(["report", str(trace), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["turns"] == 10 and data["stages"]["asr"]["p50"] == pytest.approx(145.0)


def test_report_command_explains_a_missing_or_broken_trace(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path / "nope.json")]) == 2
    assert "trace file not found" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    assert cli.main(["report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "not a Chrome trace" in err and "Traceback" not in err


def test_headless_turn_row_marks_stages_over_budget():
    row = turn_table_row(3, "de", {"asr": 250.0, "decode": 20.0, "check.grounding": 1.0}, 640.0,
                         "Wann?", "Um zehn.", BUDGETS)
    assert row.split()[0] == "3" and "250!" in row and "640" in row


def test_stages_only_the_turn_metrics_know_are_reported(tmp_path, capsys):
    from avatar import events as ev
    from avatar.report import record_turn_metrics

    tracer = Tracer()
    tracer.record("asr", 0.0, 0.3, turn=1)
    record_turn_metrics(tracer, ev.TurnMetrics(1.0, turn=1, stages={"endpoint": 170.0, "asr": 299.0, "hold": 0.0},
                                               voice_to_voice_ms=640.0))
    trace = tracer.export_chrome(tmp_path / "run.json")
    assert cli.main(["report", str(trace), "--json"]) == 0
    stages = json.loads(capsys.readouterr().out)["stages"]
    assert stages["endpoint"]["p50"] == 170.0          # from the metrics: no span for it
    assert stages["asr"]["p50"] == pytest.approx(300.0)  # the span wins where there is one
    assert stages["voice_to_voice"]["p50"] == 640.0
