"""The barge-in rule: pause at the onset, stop for an interruption, resume after a backchannel."""
import numpy as np

from avatar.audio.wav_sink import WavFileSink
from avatar.pipeline.barge_in import NONE, PAUSE, RESUME, STOP, BargeIn, BargeInRule


def feed(rule, frames):
    """frames: (probability, utterance_open, voiced_ms) per 20 ms frame; the actions taken."""
    return [a for a in (rule.frame(20, p, o, v) for p, o, v in frames) if a != NONE]


def test_onset_pauses_then_a_real_interruption_stops():
    rule = BargeIn(BargeInRule(min_ms=240, onset_ms=60))
    actions = feed(rule, [(0.9, False, 0)] * 3 + [(0.9, True, 100 + 20 * i) for i in range(8)])
    assert actions == [PAUSE, STOP]


def test_a_false_onset_resumes_the_reply():
    rule = BargeIn(BargeInRule(min_ms=240, onset_ms=60, false_onset_ms=300))
    actions = feed(rule, [(0.9, False, 0)] * 3 + [(0.1, False, 0)] * 15)
    assert actions == [PAUSE, RESUME]


def test_a_backchannel_resumes_when_it_ends_and_never_stops():
    rule = BargeIn(BargeInRule(min_ms=240, onset_ms=60), backchannel=lambda ms, text: text == "mhm")
    actions = feed(rule, [(0.9, False, 0)] * 3 + [(0.9, True, 100 + 20 * i) for i in range(10)])
    assert actions == [PAUSE, STOP]  # without words it is an interruption
    rule = BargeIn(BargeInRule(min_ms=240, onset_ms=60), backchannel=lambda ms, text: text == "mhm")
    assert [a for a in (rule.frame(20, 0.9, True, 100 + 20 * i, "mhm") for i in range(10)) if a] == [PAUSE]
    assert rule.utterance_ended(300, "mhm") == RESUME


def test_without_onset_pausing_only_the_interruption_acts():
    rule = BargeIn(BargeInRule(min_ms=240, onset_ms=0))
    actions = feed(rule, [(0.9, True, 20 * i) for i in range(15)])
    assert actions == [STOP]


def test_paused_sink_holds_the_reply_and_resumes_where_it_was(tmp_path):
    sink = WavFileSink(tmp_path / "out.wav")
    try:
        sink.play(np.full(16000, 1000, np.int16), 16000)  # 1 s of reply
        assert sink.wait_idle(0.3) is False
        sink.pause()
        held = sink._queue.queued_samples
        assert held > 0 and sink.playing
        sink.wait_idle(0.2)
        assert sink._queue.queued_samples == held  # nothing played while paused
        sink.resume()
        assert sink.wait_idle(3.0)
        assert sum(n for _, n in sink.segments) == 16000  # every sample heard once, none lost
    finally:
        sink.close()


def test_the_rule_comes_from_the_settings_and_a_sink_that_cannot_pause_never_pauses():
    from avatar import config
    from avatar.pipeline.barge_in import rule_from_config

    cfg = config.load(sets=["pipeline.barge_in_min_ms=300", "pipeline.barge_in_onset_ms=40",
                            "pipeline.barge_in_onset_prob=0.8"], env={})
    rule = rule_from_config(cfg)
    assert (rule.min_ms, rule.onset_ms, rule.threshold) == (300.0, 40.0, 0.8)
    assert rule_from_config(cfg, can_pause=False).onset_ms == 0.0


def _swallowed_interruption(rule, words):
    """'Where are the toilets?' over the reply: the onset pauses it, the double-talk suppressor takes
    'are the' (the frames reach nobody), the endpointer hears only 'toilets' (and its words, then)."""
    actions = [rule.frame(20, 0.9, False, 0) for _ in range(3)]  # "Where": the onset
    actions += [rule.frame(20, 0.0, False, 0) for _ in range(12)]  # suppressed: silence for the rule
    actions += [rule.frame(20, 0.9, True, 100 + 20 * i, None) for i in range(16)]  # "toilets", no words yet
    actions += [rule.frame(20, 0.9, True, 420, words)]  # 0.7 s from the onset, 0.42 s of it heard
    actions += [rule.frame(20, 0.0, True, 420, words) for _ in range(5)]
    actions += [rule.utterance_ended(420, words)]
    return [a for a in actions if a != NONE]


def test_an_interruption_whose_first_words_the_suppressor_took_still_stops_the_reply():
    from avatar.vad.backchannel import backchannel_rule

    rule = BargeIn(BargeInRule(min_ms=240, onset_ms=60), backchannel_rule(240))
    assert _swallowed_interruption(rule, "toilets.") == [PAUSE, STOP]


def test_a_short_acknowledgement_after_the_onset_still_resumes():
    from avatar.vad.backchannel import backchannel_rule

    rule = BargeIn(BargeInRule(min_ms=240, onset_ms=60), backchannel_rule(240))
    # "genau", misheard as "Get out": heard whole from its onset, 380 ms
    actions = [rule.frame(20, 0.9, False, 0) for _ in range(3)]
    actions += [rule.frame(20, 0.9, True, 100 + 20 * i, "Get out") for i in range(14)]
    actions += [rule.frame(20, 0.0, True, 380, "Get out") for _ in range(5)]
    actions += [rule.utterance_ended(380, "Get out")]
    assert [a for a in actions if a != NONE] == [PAUSE, RESUME]
