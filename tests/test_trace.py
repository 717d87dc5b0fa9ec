import json

from avatar.trace import Tracer, load_chrome, now


def test_spans_export_to_chrome_trace_and_load_back(tmp_path):
    tracer = Tracer()
    with tracer.span("asr", turn=1, lang="de") as info:
        info["outcome"] = "ok"
    t0 = now()
    tracer.record("decode", t0, t0 + 0.05, turn=1, track="answer", steps=4)
    tracer.instant("barge_in", turn=1)
    path = tracer.export_chrome(tmp_path / "t.json")
    data = json.loads(path.read_text())
    complete = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in complete} == {"asr", "decode"}
    decode = next(e for e in complete if e["name"] == "decode")
    assert abs(decode["dur"] - 50_000) < 1 and decode["args"]["steps"] == 4
    assert any(e["ph"] == "M" and e["args"]["name"] == "answer" for e in data["traceEvents"])
    spans = load_chrome(path)
    assert {s.name for s in spans} == {"asr", "decode"}
    assert all(s.turn == 1 for s in spans)
    assert next(s for s in spans if s.name == "asr").args["outcome"] == "ok"


def test_failing_span_records_the_error_and_observer_errors_are_contained():
    tracer = Tracer()
    seen = []
    tracer.subscribe(lambda s: seen.append(s.name))
    tracer.subscribe(lambda s: 1 / 0)
    try:
        with tracer.span("tts"):
            raise ValueError("boom")
    except ValueError:
        pass
    assert seen == ["tts"]
    assert tracer.spans()[0].args["error"] == "ValueError"
