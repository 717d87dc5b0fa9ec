"""Forgetting: once the visitor leaves, their words are in no span of the tracer and in no trace file."""
from avatar import config
from avatar import events as ev
from avatar.pipeline.voice_loop import VoiceLoop
from avatar.trace import Tracer, now

from fakes import END, SPEECH, TENTATIVE, FakeASR, FakeAnswerer, FakeSink, FakeTTS, Recorder, ScriptedEndpointer, \
    ScriptedSource

NUMBER = "0176 4455 9821"
QUESTION = f"können Sie mich unter {NUMBER} zurückrufen"


def visit(tracer: Tracer) -> Recorder:
    cfg = config.load(sets=["asr.partial_interval_ms=0", "pipeline.visitor_timeout_s=1.0"], env={})
    loop = VoiceLoop(cfg, ScriptedSource(3.5), FakeSink(), FakeAnswerer(reply=f"Ihre Nummer ist {NUMBER}."),
                     FakeASR(text=QUESTION), FakeTTS(clause_seconds=0.2), tracer,
                     endpointer=ScriptedEndpointer([(0.1, SPEECH), (0.6, TENTATIVE), (0.8, END)]))
    rec = Recorder()
    loop.subscribe(rec)
    loop.run_until_done(timeout=20)
    return rec


def test_a_phone_number_asked_in_a_visit_is_in_no_span_or_file_after_the_visit(tmp_path):
    tracer = Tracer()
    seen_during: list[str] = []
    tracer.subscribe(lambda s: seen_during.append(repr(s.args)))
    rec = visit(tracer)
    assert rec.of(ev.VisitorLeft) and rec.of(ev.FinalTranscript)[0].text == QUESTION
    assert any(NUMBER in a for a in seen_during)  # the words were there during the visit
    spans = tracer.spans()
    assert any(s.name == "asr" for s in spans)  # the timings stay
    assert all(NUMBER not in repr(s.args) for s in spans)
    assert all(NUMBER not in repr(s.args) for s in tracer._instants)
    tracer.export_chrome(tmp_path / "trace.json")
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert NUMBER not in f.read_text(encoding="utf-8", errors="replace"), f


def test_a_debug_trace_written_during_a_visit_carries_timings_not_words(tmp_path):
    tracer = Tracer()
    with tracer.span("asr", turn=1, lang="de") as info:
        info.update(text=QUESTION, dropped="")
    tracer.record("check.grounding", now(), turn=1, track="checks", outcome="fail", unsupported=[NUMBER])
    text = tracer.export_chrome(tmp_path / "t.json").read_text(encoding="utf-8")
    assert NUMBER not in text and '"asr"' in text and '"lang": "de"' in text and '"outcome": "fail"' in text
    assert tracer.spans()[0].args["text"] == QUESTION  # in memory for the visitor's session


def test_debug_transcripts_keep_the_words_in_the_trace_file(tmp_path):
    tracer = Tracer(keep_words=True)
    with tracer.span("asr", turn=1) as info:
        info["text"] = QUESTION
    tracer.end_visit()
    assert NUMBER in tracer.export_chrome(tmp_path / "t.json").read_text(encoding="utf-8")


def test_spans_are_bounded_per_visit():
    tracer = Tracer(max_spans_per_visit=100)
    for i in range(50):
        tracer.record("earlier", now(), turn=i)
    tracer.end_visit()
    for i in range(1000):
        tracer.record("long_visit", now(), turn=i)
    names = [s.name for s in tracer.spans()]
    assert names.count("earlier") == 50  # an earlier visit's timings are not pushed out by this one
    assert names.count("long_visit") <= 100 and tracer.spans()[-1].turn == 999


def test_run_has_a_debug_transcripts_flag():
    from avatar.cli import build_parser

    args = build_parser("run").parse_args(["run", "--debug-transcripts"])
    assert args.debug_transcripts


def test_without_a_trace_file_to_write_past_visits_leave_nothing_behind():
    tracer = Tracer(keep_past_visits=False)
    with tracer.span("asr", turn=1) as info:
        info["text"] = QUESTION
    tracer.instant("barge_in", turn=1)
    tracer.end_visit()
    assert tracer.spans() == [] and tracer.to_chrome()["traceEvents"] == []


def test_the_answerers_word_caches_forget_the_visitor():
    from avatar.answer import forget_visitor
    from avatar.answer.checks import content, stems
    from avatar.answer.retrieval.words import _stem

    stems.stem("01761234567", "de")
    _stem("01761234567", "de")
    content.extract("Meine Nummer ist 0176 1234567.", "de")
    forget_visitor()
    assert stems.stem.cache_info().currsize == 0 and _stem.cache_info().currsize == 0
    assert content.extract.cache_info().currsize == 0


def test_the_meaning_of_the_visitors_questions_is_forgotten_too():
    from avatar.answer import forget_visitor
    from avatar.answer.base import Fact
    from avatar.answer.retrieval import semantic

    scorer = semantic.shared_scorer()
    assert scorer is not None
    scorer.similarities("meine nummer ist 0176 1234567", [Fact("a", "de", "Garderobe im UG."),
                                                          Fact("b", "de", "Café im EG.")])
    assert len(scorer._queries) >= 1
    forget_visitor()
    assert len(scorer._queries) == 0 and scorer._vectors  # the facts' vectors stay
