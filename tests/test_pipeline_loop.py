"""The voice loop's own logic (speculation, barge-in, cancellation, watchdog, privacy) on scripted stages."""
import time

import pytest

from avatar import config
from avatar import events as ev
from avatar.trace import Tracer
from avatar.pipeline.voice_loop import VoiceLoop
from avatar.locales import load_strings

from fakes import (END, RESUMED, SPEECH, TENTATIVE, FakeASR, FakeAnswerer, FakeSink, FakeTTS, PiecesTTS, Recorder,
                   ScriptedEndpointer, ScriptedSource, Transcript)


def make_loop(script, seconds, sets=(), asr=None, answerer=None, tts=None, fallback=None, backchannel=None):
    cfg = config.load(sets=["asr.partial_interval_ms=0", *sets], env={})
    rec = Recorder()
    loop = VoiceLoop(cfg, ScriptedSource(seconds), FakeSink(), answerer or FakeAnswerer(), asr or FakeASR(),
                     tts or FakeTTS(), Tracer(), endpointer=ScriptedEndpointer(script),
                     fallback_answerer=fallback, backchannel=backchannel)
    loop.subscribe(rec)
    return loop, rec


def test_turn_stages_add_up_to_voice_to_voice():
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 2.5)
    metrics = loop.run_until_done(timeout=20)
    assert len(metrics) == 1
    m = metrics[0]
    assert m.speculative and m.transcript == "wann öffnet das museum" and m.lang == "de"
    assert sum(m.stages.values()) == pytest.approx(m.voice_to_voice_ms, abs=1.0)
    assert {"endpoint", "asr", "tts_first_audio", "hold", "output"} <= set(m.stages)
    # the speculative reply is held until the end of turn is confirmed
    assert m.audible >= m.speech_end + 0.3 - 0.02
    assert rec.of(ev.PlaybackStarted) and rec.of(ev.ReplyDone)[0].text == "Das Museum öffnet um 10 Uhr."
    assert [e.index for e in rec.of(ev.ReplyClause)] == [0, 1]
    assert {e.voice for e in rec.of(ev.ReplyClause)} == {"fake voice"}  # the HUD names it


def test_a_clause_streamed_in_pieces_is_played_whole_and_shown_once():
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 2.5, tts=PiecesTTS())
    assert len(loop.run_until_done(timeout=20)) == 1
    assert [e.index for e in rec.of(ev.ReplyClause)] == [0, 1]  # one subtitle per clause, not per piece
    assert all(e.text for e in rec.of(ev.ReplyClause))
    assert len(loop.sink.played) == 6  # every piece reached the loudspeaker


class LatePiecesTTS(PiecesTTS):
    """The first clause's second piece is synthesized long after the first one has played."""

    def synthesize(self, text, lang, cancel=None):
        for n, chunk in enumerate(super().synthesize(text, lang, cancel)):
            if n == 1:
                time.sleep(0.4)
            yield chunk


def test_a_piece_synthesized_too_late_is_counted_as_a_gap_in_the_reply():
    on_time, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 2.5, tts=PiecesTTS())
    assert len(on_time.run_until_done(timeout=20)) == 1
    (done,) = rec.of(ev.ReplyDone)
    assert done.gaps == 0 and done.gap_ms == 0
    late, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 2.5, tts=LatePiecesTTS())
    assert len(late.run_until_done(timeout=20)) == 1
    (done,) = rec.of(ev.ReplyDone)
    assert done.gaps == 1 and 200 < done.gap_ms < 450  # 0.4 s late, minus the 0.1 s the first piece played
    assert len(late.sink.played) == 6


def test_resumed_cancels_speculative_work():
    answerer = FakeAnswerer()
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.1, RESUMED), (2.0, TENTATIVE), (2.3, END)], 3.5,
                          answerer=answerer)
    metrics = loop.run_until_done(timeout=20)
    assert loop.discarded == 1
    assert len(metrics) == 1 and len(rec.of(ev.ReplyStarted)) == 1
    assert len(loop.sink.played) == 2  # one reply's two clauses, nothing from the discarded one


def test_sequential_mode_waits_for_end_of_turn_and_plays_one_piece():
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 2.5,
                          sets=["pipeline.speculative=false", "pipeline.streaming_tts=false"])
    metrics = loop.run_until_done(timeout=20)
    assert len(metrics) == 1 and not metrics[0].speculative
    assert metrics[0].stages["hold"] < 5 and len(loop.sink.played) == 1


INTERRUPTION = [(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END), (2.0, SPEECH), (3.0, TENTATIVE), (3.3, END)]


def test_barge_in_stops_playback_within_bound():
    # a 3 s reply starts at ~1.3 s; the visitor talks over it from 2.0 s on
    loop, rec = make_loop(INTERRUPTION, 4.5, tts=FakeTTS(clause_seconds=1.5),
                          sets=["pipeline.barge_in_min_ms=240", "pipeline.barge_in_onset_ms=0"])
    loop.run_until_done(timeout=20)
    stops = [e for e in rec.of(ev.PlaybackStopped) if e.reason == "barge_in"]
    assert len(stops) == 1 and stops[0].turn == 1
    # stopped on the first frame past the threshold (stream time, not wall clock)
    assert 240 <= loop.barge_ins[0] <= 240 + 20
    assert len(rec.of(ev.ReplyStarted)) == 2  # the interruption became the next turn


def test_voice_onset_pauses_at_once_and_the_interruption_then_stops():
    loop, rec = make_loop(INTERRUPTION, 4.5, tts=FakeTTS(clause_seconds=1.5),
                          sets=["pipeline.barge_in_min_ms=240", "pipeline.barge_in_onset_ms=60"])
    loop.run_until_done(timeout=20)
    assert loop.pauses == 1 and loop.sink.pause_count == 1
    assert [e.reason for e in rec.of(ev.PlaybackStopped)][0] == "barge_in"
    # without words (no partials here) a paused reply waits for them, then stops: never resumes
    assert 240 < loop.barge_ins[0] <= 240 + 700 + 20


def test_backchannel_does_not_interrupt():
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END), (2.0, SPEECH), (2.15, TENTATIVE),
                           (2.45, END)], 4.0, tts=FakeTTS(clause_seconds=1.5), sets=["pipeline.barge_in_min_ms=240"])
    loop.run_until_done(timeout=20)
    assert not [e for e in rec.of(ev.PlaybackStopped) if e.reason == "barge_in"]
    assert len(rec.of(ev.ReplyStarted)) == 1 and not loop.sink.stops[:-1]


def test_dropped_transcript_gives_no_reply():
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 2.0, asr=FakeASR(dropped="hallucination"))
    assert loop.run_until_done(timeout=20) == []
    assert rec.of(ev.FinalTranscript)[0].dropped == "hallucination" and not loop.sink.played


class InterruptionWithoutWords(FakeASR):
    """Hears the question; in the interruption over the reply it finds no words (the echo canceller
    took them: an empty, low-confidence transcript, as in 6 of 136 barge-ins of the 1,000-turn soak);
    `then_words`: what it hears after that."""

    def __init__(self, then_words=False):
        super().__init__()
        self.then_words = then_words

    def transcribe(self, pcm, lang=None, partial=False, cancel=None, prior=None):
        self.calls += 1
        time.sleep(self.delay)
        if self.calls == 1 or (self.then_words and self.calls > 2):
            return Transcript(self.text, self.lang)
        return Transcript("", self.lang, dropped="low_confidence")


def test_an_interruption_whose_words_were_lost_is_asked_again_not_left_in_silence():
    loop, rec = make_loop(INTERRUPTION, 6.0, asr=InterruptionWithoutWords(), tts=FakeTTS(clause_seconds=1.5),
                          sets=["pipeline.barge_in_min_ms=240", "pipeline.barge_in_onset_ms=0"])
    loop.run_until_done(timeout=20)
    stops = [e for e in rec.of(ev.PlaybackStopped) if e.reason == "barge_in"]
    assert len(stops) == 1 and stops[0].turn == 1
    asked = rec.of(ev.NotUnderstood)
    assert len(asked) == 1 and asked[0].turn == 2 and asked[0].lang == "de"
    assert asked[0].text == load_strings("de").get("conversation.not_understood")
    # the re-prompt is spoken: audio reaches the sink after the stop
    assert any(start >= loop.sink.stops[0] for start, _ in loop.sink.played)
    assert len(rec.of(ev.ReplyStarted)) == 1  # no reply was made up for words nobody heard


def test_a_visitor_who_repeats_the_question_over_the_request_to_say_it_again_is_answered():
    # the re-prompt plays from ~3.3 s (3 s long); the visitor repeats the question over it from 4.0 s
    script = INTERRUPTION + [(4.0, SPEECH), (5.0, TENTATIVE), (5.3, END)]
    loop, rec = make_loop(script, 8.0, asr=InterruptionWithoutWords(then_words=True),
                          tts=FakeTTS(clause_seconds=1.5),
                          sets=["pipeline.barge_in_min_ms=240", "pipeline.barge_in_onset_ms=0"])
    loop.run_until_done(timeout=20)
    assert [e.turn for e in rec.of(ev.NotUnderstood)] == [2]
    stops = [e.turn for e in rec.of(ev.PlaybackStopped) if e.reason == "barge_in"]
    assert stops == [1, 2]  # the repeated question stops the re-prompt like any reply
    assert len(rec.of(ev.ReplyStarted)) == 2  # and is answered


def test_an_utterance_without_words_that_stopped_nothing_still_gets_no_reply():
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 2.0, asr=FakeASR(dropped="low_confidence"))
    assert loop.run_until_done(timeout=20) == []
    assert not rec.of(ev.NotUnderstood) and not loop.sink.played  # a cough or a door gets no re-prompt


def test_hung_answerer_is_abandoned_for_the_fallback():
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 3.0, answerer=FakeAnswerer(hang=True),
                          fallback=FakeAnswerer(reply="Fragen Sie bitte an der Kasse."),
                          sets=["pipeline.stage_timeout_s=0.3"])
    metrics = loop.run_until_done(timeout=20)
    errors = rec.of(ev.StageError)
    assert errors and errors[0].stage == "answer" and errors[0].restarted
    assert metrics[0].reply == "Fragen Sie bitte an der Kasse." and metrics[0].checks.fallback_used


def test_history_is_kept_within_a_visit_and_wiped_when_the_visitor_leaves():
    answerer = FakeAnswerer()
    loop, rec = make_loop([(0.1, SPEECH), (0.6, TENTATIVE), (0.8, END), (2.0, SPEECH), (2.5, TENTATIVE),
                           (2.7, END)], 6.0, answerer=answerer, tts=FakeTTS(clause_seconds=0.2),
                          sets=["pipeline.visitor_timeout_s=1.0"])
    loop.run_until_done(timeout=20)
    assert len(answerer.calls) == 2 and len(answerer.calls[1][2]) == 1  # the second question saw the first
    assert rec.of(ev.VisitorLeft) and loop.history == []


def test_forced_language_overrides_detection():
    answerer = FakeAnswerer()
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 2.5, answerer=answerer,
                          asr=FakeASR(text="when does it open", lang="en"))
    loop.set_language("de")
    loop.run_until_done(timeout=20)
    assert answerer.calls[0][1] == "de" and rec.of(ev.LanguageChanged)[0].lang == "de"


def test_a_visitors_words_are_wiped_when_they_leave_but_the_timings_stay():
    loop, rec = make_loop([(0.1, SPEECH), (0.6, TENTATIVE), (0.8, END)], 3.5, tts=FakeTTS(clause_seconds=0.2),
                          sets=["pipeline.visitor_timeout_s=1.0"])
    metrics = loop.run_until_done(timeout=20)
    assert rec.of(ev.VisitorLeft)
    assert len(metrics) == 1 and metrics[0].voice_to_voice_ms is not None
    assert metrics[0].transcript == "" and metrics[0].reply == ""


class LockedASR:
    """One model behind a lock, as WhisperASR: a partial pass holds the cores until it is cancelled."""

    def __init__(self):
        import threading
        self.lock = threading.Lock()
        self.partials_cancelled = 0
        self.partials = 0
        self.partials_timed_out = 0  # a partial that held the model for its whole 3 s
        self.finals = 0

    def transcribe(self, pcm, lang=None, partial=False, cancel=None, prior=None):
        from avatar.cancel import Cancelled
        from fakes import Transcript
        with self.lock:
            if partial:
                self.partials += 1
                if cancel is not None and cancel.wait(3.0):  # a long encode that looks up between steps
                    self.partials_cancelled += 1
                    raise Cancelled("final")
                self.partials_timed_out += 1
                return Transcript("wann öffnet", "de")
            self.finals += 1
            return Transcript("wann öffnet das museum", "de")


def test_a_final_transcription_cancels_the_partial_pass_holding_the_model():
    asr = LockedASR()
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 2.5, asr=asr,
                          sets=["asr.partial_interval_ms=100"])
    metrics = loop.run_until_done(timeout=20)
    assert asr.partials >= 1 and asr.partials_cancelled >= 1
    assert asr.partials_timed_out == 0 and asr.finals >= 1  # the final never waited out a partial
    assert len(metrics) == 1


def test_no_partial_pass_starts_once_the_visitor_has_gone_quiet():
    asr = LockedASR()
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)], 2.5, asr=asr,
                          sets=["asr.partial_interval_ms=100"])
    loop.endpointer.silence_ms = 100.0  # quiet since the last speech: the end may come any moment
    loop.run_until_done(timeout=20)
    assert asr.partials == 0


class LengthsASR(FakeASR):
    """Records how much audio each partial and each final pass was given."""

    def __init__(self):
        super().__init__()
        self.partial_lengths: list[int] = []
        self.final_lengths: list[int] = []

    def transcribe(self, pcm, lang=None, partial=False, cancel=None, prior=None):
        (self.partial_lengths if partial else self.final_lengths).append(len(pcm))
        return super().transcribe(pcm, lang, partial, cancel, prior)


@pytest.mark.parametrize("window_ms, partial_samples", [(500, 8000), (0, 16000)])
def test_a_plain_partial_pass_hears_the_latest_words_and_the_final_pass_all(window_ms, partial_samples):
    asr = LengthsASR()
    loop, rec = make_loop([(0.1, SPEECH), (1.6, TENTATIVE), (1.9, END)], 3.0, asr=asr,
                          sets=["asr.partial_interval_ms=100", f"asr.partial_window_ms={window_ms}"])
    loop.endpointer.silence_ms = 0.0  # the visitor speaks until the tentative end
    loop.run_until_done(timeout=20)
    assert asr.partial_lengths and set(asr.partial_lengths) == {partial_samples}  # the utterance is 16000 samples
    assert asr.final_lengths and set(asr.final_lengths) == {16000}


class FirstHeardAsEnglishASR(FakeASR):
    """The speculative pass over the first words hears them as English; the whole question is German."""

    def transcribe(self, pcm, lang=None, partial=False, cancel=None, prior=None):
        tr = super().transcribe(pcm, lang, partial, cancel, prior)
        if self.calls == 1:
            tr.text, tr.lang = "which is datum", "en"
        return tr


def test_a_discarded_speculation_does_not_decide_the_visitors_language():
    answerer = FakeAnswerer()
    asr = FirstHeardAsEnglishASR()
    loop, rec = make_loop([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, RESUMED), (2.0, TENTATIVE), (2.3, END)], 3.5,
                          answerer=answerer, asr=asr)
    metrics = loop.run_until_done(timeout=20)
    assert loop.discarded == 1 and len(metrics) == 1
    assert answerer.calls[0][1] == "en"  # the speculative turn was answered in what it heard ...
    assert asr.priors[1] is None  # ... but the question's final pass was not told "English"
    assert [e.lang for e in rec.of(ev.LanguageChanged)] == ["de"] and metrics[0].lang == "de"
