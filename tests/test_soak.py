"""`avatar soak`: the endurance run's report and verdict (synthetic series), its echo path, and a
short real soak of the whole loop (real models) with a question, a barge-in and bad input."""
import json

import numpy as np
import pytest

from avatar import cli, config
from avatar import events as ev
from avatar_dev.bench import soak
from avatar_dev.bench.soak import Bounds, EchoPath, TurnPlan, TurnRecord, plan_turns, summarize


def _records(n, rss=lambda i: 500.0, threads=lambda i: 12, fds=lambda i: 16, v2v=lambda i: 800.0):
    return [TurnRecord(i, "question", "q.wav", "de" if i % 2 else "en", replies=1, voice_to_voice_ms=v2v(i),
                       rss_mb=rss(i), threads=threads(i), py_threads=5, fds=fds(i), spans=20, heard_s=1.5)
            for i in range(n)]


def test_flat_series_hold_every_bound():
    rng = np.random.default_rng(0)
    r = summarize(_records(200, rss=lambda i: 500 + rng.normal(0, 2), v2v=lambda i: 800 + rng.normal(0, 20)),
                  Bounds(), 0, 100.0)
    assert r["ok"], r["checks"]
    assert abs(r["rss_mb"]["slope_mb_per_100_turns_second_half"]) < 2
    assert all(c["ok"] for c in r["checks"].values())


@pytest.mark.parametrize("broken,series", [
    ("rss_growth_pct", {"rss": lambda i: 500 + 0.5 * i}),          # a leak: +100 MB over 200 turns
    ("threads_flat", {"threads": lambda i: 12 + i // 50}),         # a thread per 50 turns
    ("fds_flat", {"fds": lambda i: 16 + i // 20}),                  # files left open
    ("latency_drift_pct", {"v2v": lambda i: 800 + 2 * i}),          # slower and slower
])
def test_a_growing_series_breaks_its_bound(broken, series):
    r = summarize(_records(200, **series), Bounds(), 0, 100.0)
    assert not r["ok"]
    assert r["checks"][broken]["ok"] is False
    assert [k for k, c in r["checks"].items() if c["ok"] is False] == [broken]


def test_questions_heard_shorter_and_shorter_break_their_bound():
    """The deaf kiosk: memory, threads and latency flat while each clip's question reaches the
    recognizer shorter and shorter (its start lost)."""
    def recs(shrink_per_turn):
        out = _records(200)
        for r in out:
            r.clip = f"q{r.index % 5}.wav"
            r.heard_s = 1.5 + 0.2 * (r.index % 5) - shrink_per_turn * r.index
        return out

    flat = summarize(recs(0.0), Bounds(), 0, 100.0)
    assert flat["ok"] and flat["heard"]["clips_compared"] == 5 and flat["heard"]["shrink_s"] == 0.0
    deaf = summarize(recs(0.003), Bounds(), 0, 100.0)  # 0.6 s by turn 200
    assert [k for k, c in deaf["checks"].items() if c["ok"] is False] == ["heard_shrink_s"]
    assert 0.3 < deaf["heard"]["shrink_s"] < 0.6
    assert "shorter in the last tenth" in soak.format_report(deaf)
    deaf_records = recs(0.003)
    for r in deaf_records[100:]:
        r.miss = "no reply" if r.index % (1 + (199 - r.index) // 20) == 0 else ""
    by_tenth = summarize(deaf_records, Bounds(), 0, 100.0)["missed_by_tenth"]
    assert by_tenth["question"][:5] == ["0/20"] * 5 and by_tenth["question"][-1] == "20/20"
    assert by_tenth["barge_in"] == ["0/0"] * 10


def test_errors_break_the_run_and_few_turns_do_not_judge_drift():
    recs = _records(5, rss=lambda i: 500 + 50 * i)
    recs[3].stage_errors = ["asr"]
    r = summarize(recs, Bounds(), 1, 10.0)
    assert r["errors"]["total"] == 2 and r["checks"]["errors"]["ok"] is False and not r["ok"]
    assert r["checks"]["rss_growth_pct"]["ok"] is None and r["checks"]["latency_drift_pct"]["ok"] is None


def test_echo_path_returns_the_played_sound_after_the_room_delay():
    h = np.zeros(800)
    h[640] = 0.5  # 40 ms later, half as loud
    path = EchoPath(h)
    block = np.full(160, 10000, np.int16)
    path.heard(block, 1.0)  # audible at clock 1.0 s for 10 ms
    before = path.echo(1.0 + 0.039, 160)
    during = path.echo(1.0 + 0.050, 160)
    assert not np.any(np.abs(before) > 1)
    assert np.allclose(during, 5000, atol=1)


def test_plan_covers_both_languages_and_every_kind():
    plans = plan_turns(60, seed=1)
    assert {p.lang for p in plans} == {"de", "en"}
    assert {p.kind for p in plans} == {"question", "barge_in", "backchannel", "bad"}
    assert all(p.overlay is not None for p in plans if p.kind in ("barge_in", "backchannel"))
    assert [p.kind for p in plan_turns(4, kinds=["question", "bad:noise"])] == ["question", "bad"] * 2
    assert sum(p.leaves for p in plans) == 10


def test_cli_exit_status_follows_the_verdict(monkeypatch, tmp_path, capsys):
    report = summarize(_records(200, rss=lambda i: 500 + 0.5 * i), Bounds(), 0, 1.0)
    monkeypatch.setattr(soak, "run_soak", lambda *a, **kw: report)
    out = tmp_path / "soak.json"
    assert cli.main(["soak", "--turns", "200", "--json", str(out)]) == 1
    assert "rss_growth_pct" in capsys.readouterr().out and json.loads(out.read_text())["ok"] is False
    report["ok"] = True
    assert cli.main(["soak", "--turns", "200"]) == 0
    assert cli.main(["soak", "--turns", "0"]) == 2


def test_short_real_soak_answers_and_ignores_noise():
    """Four turns through the real models: a question, a barge-in over the reply's echo, noise alone,
    a question in the other language. Resources are sampled each turn and nothing fails. (Whether
    the barge-in stops the reply is not asserted: about 1 in 5 do not, docs/PERF.md "Endurance".)"""
    cfg = config.load(sets=["answer.kind=retrieval"], env={})
    r = soak.run_soak(cfg, 4, kinds=["question", "barge_in", "bad:noise", "question"], listen_s=1.0,
                      progress=lambda msg: None)
    recs = r["records"]
    assert [x["kind"] for x in recs] == ["question", "barge_in", "bad", "question"]
    assert {x["lang"] for x in recs} == {"de", "en"}
    assert recs[0]["replies"] >= 1 and recs[0]["voice_to_voice_ms"] is not None
    assert recs[3]["replies"] >= 1
    assert recs[1]["replies"] >= 1  # the question before the interruption was answered
    assert recs[1]["overlay"].startswith("visitor_") and 0.4 <= recs[1]["overlay_at_s"] <= 1.0
    # the first reply of the session is never stopped by its own echo; it may still pause once on it
    # (the canceller's first-reply leak, docs/PERF.md "Echo cancellation and barge-in"): in
    # one day's batches 6 of 34 runs under load paused it once, none twice. That rate is the soak's
    # to measure (its report counts pauses per turn), not a coin this test throws in CI
    assert recs[0]["overlay"] == "" and recs[0]["pauses"] <= 1 and recs[0]["barge_in_stops"] == 0
    assert recs[0]["miss"] == "", recs[0]["miss"]
    assert list(r["over_reply"]) == ["barge_in/" + recs[1]["overlay"]]
    assert r["over_reply"]["barge_in/" + recs[1]["overlay"]]["turns"] == 1
    assert recs[2]["replies"] == 0  # no phantom turn from noise
    assert r["errors"]["total"] == 0, r["errors"]
    assert all(x["rss_mb"] > 0 and x["threads"] > 0 and x["fds"] > 0 for x in recs)
    assert r["checks"]["threads_flat"]["ok"] and r["checks"]["fds_flat"]["ok"]


def test_a_time_budget_ends_the_soak_with_a_report_of_the_turns_done():
    cfg = config.load(sets=["answer.kind=retrieval"], env={})
    r = soak.run_soak(cfg, 5, kinds=["question"], listen_s=0.5, max_minutes=1e-6, progress=lambda msg: None)
    assert r["turns_done"] == 1 and r["turns"] == 5
    assert r["stopped"].startswith("time budget") and "after 1 turns" in r["stopped"]
    assert "stopped early" in soak.format_report(r)


def _barge_in_turn(events, overlay="visitor_en_cancel_all_timers"):
    from avatar_dev.bench.soak import _record

    plan = TurnPlan(7, "barge_in", "q.wav", "en", np.zeros(160, np.int16), overlay=np.zeros(160, np.int16),
                    overlay_text=overlay)
    return _record(plan, {"events": events, "timed_out": False, "wall_s": 1.0})


def test_an_interruption_answered_after_a_reply_cut_mid_synthesis_is_not_a_miss():
    # the first reply was stopped before its last clause was synthesized, so only the interruption's
    # reply records TurnMetrics: one set of metrics, yet the interruption was answered
    events = [ev.PlaybackStarted(1.0, turn=1), ev.PlaybackStopped(2.0, turn=1, reason="barge_in"),
              ev.PlaybackStarted(3.0, turn=2), ev.TurnMetrics(3.1, turn=2, voice_to_voice_ms=500.0)]
    rec = _barge_in_turn(events)
    assert rec.answered_after_stop and not rec.miss


def test_an_interruption_with_no_reply_after_the_stop_is_a_miss_and_says_if_it_was_asked_again():
    stopped = [ev.PlaybackStarted(1.0, turn=1), ev.TurnMetrics(1.1, turn=1, voice_to_voice_ms=500.0),
               ev.PlaybackStopped(2.0, turn=1, reason="barge_in")]
    assert _barge_in_turn(stopped).miss == "the interruption was not answered"
    asked = _barge_in_turn(stopped + [ev.NotUnderstood(3.0, turn=2, text="Sorry?", lang="en")])
    assert asked.asked_again == 1 and "asked again" in asked.miss


def test_a_question_without_reply_says_whether_it_was_heard_and_why_its_words_were_dropped():
    from avatar_dev.bench.soak import _record

    plan = TurnPlan(3, "question", "q.wav", "en", np.zeros(160, np.int16))
    turn = lambda events: _record(plan, {"events": events, "timed_out": False, "wall_s": 1.0})
    assert turn([]).miss == "no reply (no transcript)"
    dropped = turn([ev.FinalTranscript(1.0, text="", lang="en", dropped="empty")])
    assert dropped.miss == "no reply (transcript dropped: empty)" and dropped.dropped == ["empty"]
    heard = turn([ev.FinalTranscript(1.0, text="Where are the toilets?", lang="en")])
    assert heard.miss == "no reply"
    answered = turn([ev.FinalTranscript(1.0, text="Where?", lang="en"), ev.TurnMetrics(1.5, turn=1, voice_to_voice_ms=500.0)])
    assert not answered.miss


def test_a_request_to_say_it_again_after_noise_is_a_miss():
    from avatar_dev.bench.soak import _record

    plan = TurnPlan(4, "bad", "noise", "en", np.zeros(160, np.int16))
    asked = _record(plan, {"events": [ev.NotUnderstood(1.0, turn=3, text="Sorry?", lang="en")],
                           "timed_out": False, "wall_s": 1.0})
    assert asked.miss == "asked to say it again after noise"
    assert not _record(plan, {"events": [], "timed_out": False, "wall_s": 1.0}).miss


def test_an_interruption_is_scored_by_the_words_recognized_after_the_stop():
    """A stopped reply answered from misheard words is counted as such: the interruption's words after
    the stop against what the visitor said (the question's own transcript before it does not count)."""
    def turn(text, overlay="visitor_en_cancel_all_timers", dropped=""):
        return _barge_in_turn([ev.FinalTranscript(0.5, text="What time is it?", lang="en"),
                               ev.PlaybackStarted(1.0, turn=1), ev.PlaybackStopped(2.0, turn=1, reason="barge_in"),
                               ev.FinalTranscript(2.5, text=text, lang="en", dropped=dropped),
                               ev.PlaybackStarted(3.0, turn=2)], overlay)

    right = turn("Cancel all timers.")
    assert right.interruption_text == "Cancel all timers." and right.interruption_accuracy == 1.0
    assert turn("Pencil Hall Tigers").interruption_accuracy == 0.0
    assert turn("Dance of all timers.").interruption_accuracy == pytest.approx(1 / 3, abs=0.001)
    assert turn("", dropped="empty").interruption_accuracy == 0.0
    assert turn("Wie spät ist es?", "visitor_de_wie_spaet_ist_es").interruption_accuracy == 1.0
    not_stopped = _barge_in_turn([ev.FinalTranscript(0.5, text="What time is it?", lang="en")])
    assert not_stopped.interruption_accuracy is None

    records = _records(10)
    for r, acc, name in zip(records, (1.0, 0.0, 0.5, None), ("visitor_en_a", "visitor_en_a", "visitor_de_b", "")):
        r.kind, r.overlay, r.interruption_accuracy = "barge_in", name, acc
    heard = summarize(records, Bounds(), 0, 10.0)["interruptions_heard"]
    assert heard["all"] == {"stopped": 3, "word_accuracy_median": 0.5, "every_word": 1}
    assert heard["visitor_en_a"]["stopped"] == 2 and heard["visitor_de_b"]["every_word"] == 0
    assert "every word recognized in 1" in soak.format_report(summarize(records, Bounds(), 0, 10.0))


def test_silences_inside_replies_are_counted_and_reported():
    from avatar_dev.bench.soak import _record

    plan = TurnPlan(5, "question", "q.wav", "en", np.zeros(160, np.int16))
    turn = lambda events: _record(plan, {"events": events, "timed_out": False, "wall_s": 1.0})
    answered = [ev.FinalTranscript(1.0, text="Where?", lang="en"), ev.TurnMetrics(1.5, turn=1, voice_to_voice_ms=500.0)]
    smooth = turn(answered + [ev.ReplyDone(2.0, turn=1)])
    gapped = turn(answered + [ev.ReplyDone(2.0, turn=1, gaps=2, gap_ms=130.0)])
    assert (smooth.gaps, smooth.gap_ms) == (0, 0.0) and (gapped.gaps, gapped.gap_ms) == (2, 130.0)
    r = summarize([smooth, gapped, smooth], Bounds(), 0, 10.0)
    assert r["reply_gaps"] == {"turns": 1, "of": 3, "gaps": 2, "ms_median": 130.0, "ms_max": 130.0}
    assert "1 of 3 turns, 2 silences" in soak.format_report({**r, "records": []})
