"""Incremental recognition: local agreement, the cut, the tail pass and its fallback; on scripted
passes, and on real speech through Whisper."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from avatar import config
from avatar.asr.incremental import (Commit, IncrementalRecognizer, LocalAgreement, judge_tail, replay,
                                    similar)
from avatar.asr.transcript import Transcript, Word
from avatar.asr.transcript_checks import normalize
from avatar.asr.word_accuracy import word_errors
from avatar.audio import read_wav_16k
from avatar.frames import SAMPLE_RATE

LONG_EN = Path("assets/samples/long/en/walk_from_the_station.flac")
LONG_EN_TEXT = ("Hello, we came by train this morning, and we would like to know how long it takes to walk from "
                "the main station to the museum, or whether there is a tram we could take instead.")
S = SAMPLE_RATE


def words(*spec):
    """Word(text, start, end) from (text, start, end) triples."""
    return [Word(t, a, b) for t, a, b in spec]


PASS_1 = words(("where", 0.3, 0.55), ("is", 0.6, 0.75), ("the", 0.8, 0.9), ("cloakroom", 0.95, 1.5),
               ("and", 1.6, 1.8), ("the", 1.8, 1.9), ("toil", 1.9, 2.4))
PASS_2 = PASS_1[:6] + words(("toilets", 1.9, 2.5), ("please", 2.6, 3.0))


# -- local agreement, scripted ------------------------------------------------------------------------
def test_words_two_passes_agree_on_are_confirmed_and_the_cut_keeps_an_overlap():
    la = LocalAgreement(first_commit_s=0.0)
    assert la.insert(PASS_1, "en", 0.99, 3 * S) == []  # one pass: nothing to agree with
    confirmed = la.insert(PASS_2, "en", 0.99, 4 * S)
    assert [w.text for w in confirmed] == ["where", "is", "the", "cloakroom", "and", "the"]  # "toil" / "toilets" differ
    assert [w.text for w in la.pending] == ["toilets", "please"]
    # the cut lies in the gap before the last second (or more) of confirmed words: the next pass
    # hears "the cloakroom and the" again, the words before it are its prompt
    assert int(0.75 * S) <= la.cut <= int(0.8 * S)
    assert la.context == "where is" and la.overlap == 4
    assert la.hypothesis() == "where is the cloakroom and the toilets please"


def test_a_word_heard_near_the_end_of_the_earlier_pass_audio_waits():
    la = LocalAgreement(first_commit_s=0.0)
    la.insert(PASS_1, "en", 0.99, int(2.5 * S))  # "cloakroom" ended 1 s before this pass's audio did, "and" did not
    la.insert(PASS_2, "en", 0.99, int(3.5 * S))
    assert la.text == "where is the cloakroom"


def test_the_next_pass_repeating_the_overlap_adds_it_once():
    la = LocalAgreement(first_commit_s=0.0)
    la.insert(PASS_1, "en", 0.99, 3 * S)
    la.insert(PASS_2, "en", 0.99, 4 * S)
    off = la.cut / S
    # the next pass transcribes audio[cut:]: "the cloakroom and the toilets please", times from the cut
    nxt = [Word(w.text, w.start - off, w.end - off) for w in PASS_2[2:]]
    confirmed = la.insert(nxt, "en", 0.99, int(4.5 * S))
    assert [w.text for w in confirmed] == ["toilets", "please"]
    assert la.text == "where is the cloakroom and the toilets please"  # the overlap not twice


def test_the_first_words_wait_for_a_sure_language_and_enough_audio():
    la = LocalAgreement()  # default: 2 s of audio and the language sure in both passes
    la.insert(PASS_1[:4], "en", 0.99, int(1.3 * S))
    assert la.insert(PASS_1[:4], "en", 0.99, int(1.6 * S)) == []  # agreed, but too little audio heard
    la = LocalAgreement(first_commit_s=0.0)
    la.insert(PASS_1, "de", 0.95, 3 * S)
    assert la.insert(PASS_2, "en", 0.99, 4 * S) == []  # the passes disagree on the language
    la = LocalAgreement(first_commit_s=0.0)
    la.insert(PASS_1, "en", 0.6, 3 * S)
    assert la.insert(PASS_2, "en", 0.6, 4 * S) == []  # Whisper unsure of the language


def test_an_utterance_in_a_language_not_listed_is_left_whole_to_the_final_pass():
    from avatar.asr.tail_check import usable

    la = LocalAgreement(first_commit_s=0.0, languages=("en",))
    la.insert(PASS_1, "de", 0.99, 3 * S)
    assert la.insert(PASS_2, "de", 0.99, 4 * S) == [] and la.cut == 0  # agreed and sure, but German: nothing confirmed
    assert la.hypothesis() == "where is the cloakroom and the toilets please"  # the partial still shows the words
    assert usable(la.snapshot(), np.zeros(4 * S, np.float32)) == "language"  # the final pass hears it all, says why
    la = LocalAgreement(first_commit_s=0.0, languages=("en",))
    la.insert(PASS_1, "en", 0.99, 3 * S)
    assert la.insert(PASS_2, "en", 0.99, 4 * S) and la.lang == "en"  # a listed language confirms as before


def test_the_settings_name_the_languages_confirmed_while_speaking():
    from avatar.asr.incremental import incremental_rules

    assert incremental_rules(config.load(env={}))["languages"] == ("en",)  # German is left to the whole pass
    rules = incremental_rules(config.load(env={}, sets=['asr.incremental_languages=["de", "en"]']))
    assert rules["languages"] == ("de", "en")
    with pytest.raises(config.ConfigError, match="incremental_languages"):
        config.load(env={}, sets=['asr.incremental_languages=["fr"]'])


def test_a_pass_in_another_language_confirms_nothing_and_an_empty_pass_changes_nothing():
    la = LocalAgreement(first_commit_s=0.0)
    la.insert(PASS_1, "en", 0.99, 3 * S)
    la.insert(PASS_2, "en", 0.99, 4 * S)
    pending = list(la.pending)
    assert la.insert([], "en", 0.99, int(4.3 * S)) == [] and la.pending == pending
    assert la.insert(PASS_2, "de", 0.99, int(4.6 * S)) == [] and la.text == "where is the cloakroom and the"


def with_prob(ws, **probs):
    """The words with the given probabilities (by text; the others 1.0)."""
    return [Word(w.text, w.start, w.end, probs.get(w.text, 1.0)) for w in ws]


def test_with_three_passes_to_agree_two_agreeing_passes_confirm_nothing():
    la = LocalAgreement(first_commit_s=0.0, agree_passes=3)
    la.insert(PASS_1, "en", 0.99, 3 * S)
    assert la.insert(PASS_2, "en", 0.99, 4 * S) == []  # two passes agree: not enough
    assert la.hypothesis() == "where is the cloakroom and the toilets please"
    confirmed = la.insert(PASS_2, "en", 0.99, int(4.3 * S))
    # all three have "where is the cloakroom and the"; "toilets" only the last two
    assert [w.text for w in confirmed] == ["where", "is", "the", "cloakroom", "and", "the"]


def test_a_pass_that_disagrees_in_between_restarts_the_count():
    la = LocalAgreement(first_commit_s=0.0, agree_passes=3)
    la.insert(PASS_1, "en", 0.99, 3 * S)
    other = words(("wear", 0.3, 0.55), *[(w.text, w.start, w.end) for w in PASS_1[1:]])
    la.insert(other, "en", 0.99, int(3.3 * S))
    assert la.insert(PASS_1, "en", 0.99, int(3.6 * S)) == []  # "wear" in the pass between: no three agree
    assert la.insert(PASS_1, "en", 0.99, int(3.9 * S)) == []  # the pass with "wear" still votes
    confirmed = la.insert(PASS_1, "en", 0.99, int(4.2 * S))
    assert [w.text for w in confirmed][:4] == ["where", "is", "the", "cloakroom"]


def test_the_first_words_can_need_more_passes_than_the_rest():
    la = LocalAgreement(first_commit_s=0.0, agree_passes=2, first_agree_passes=3)
    la.insert(PASS_1, "en", 0.99, 3 * S)
    assert la.insert(PASS_1, "en", 0.99, int(3.3 * S)) == []  # the first words: two passes are not enough
    assert la.insert(PASS_2, "en", 0.99, int(3.6 * S)) != []  # a third agrees
    assert la.text == "where is the cloakroom and the"
    off = la.cut / S
    nxt = [Word(w.text, w.start - off, w.end - off) for w in PASS_2[2:]]
    la.insert(nxt, "en", 0.99, int(3.9 * S))  # after the first words two passes agree (with the one before)
    assert la.text == "where is the cloakroom and the toilets"  # "please" ended too near the end of the 3.6 s


def test_a_word_every_agreeing_pass_is_unsure_of_is_not_confirmed_nor_any_after_it():
    la = LocalAgreement(first_commit_s=0.0, min_prob=0.4)
    la.insert(with_prob(PASS_1, cloakroom=0.3), "en", 0.99, 3 * S)
    confirmed = la.insert(with_prob(PASS_2, cloakroom=0.35), "en", 0.99, 4 * S)
    assert [w.text for w in confirmed] == ["where", "is", "the"]
    assert [w.text for w in la.pending][:2] == ["cloakroom", "and"]  # still the best guess
    assert la.hypothesis() == "where is the cloakroom and the toilets please"


def test_a_word_heard_the_same_in_four_passes_in_a_row_is_confirmed_however_unsure():
    # one unsure word ("and" at 0.3 in every pass) must not hold back the rest of a long question
    la = LocalAgreement(first_commit_s=0.0, min_prob=0.4)
    la.insert(with_prob(PASS_1, cloakroom=0.3), "en", 0.99, 3 * S)
    assert [w.text for w in la.insert(with_prob(PASS_2, cloakroom=0.35), "en", 0.99, 4 * S)] == ["where", "is", "the"]
    off = la.cut / S
    nxt = [Word(w.text, w.start - off, w.end - off, 0.3 if w.text == "cloakroom" else 1.0)
           for w in PASS_2 if w.start >= off]
    assert la.insert(nxt, "en", 0.99, int(4.3 * S)) == []  # three passes: still waits
    confirmed = la.insert(nxt, "en", 0.99, int(4.6 * S))  # the fourth
    assert [w.text for w in confirmed][:3] == ["cloakroom", "and", "the"]


def test_one_sure_pass_is_enough():
    la = LocalAgreement(first_commit_s=0.0, min_prob=0.4)
    la.insert(with_prob(PASS_1, cloakroom=0.9), "en", 0.99, 3 * S)
    confirmed = la.insert(with_prob(PASS_2, cloakroom=0.2), "en", 0.99, 4 * S)
    assert [w.text for w in confirmed] == ["where", "is", "the", "cloakroom", "and", "the"]


def test_the_overlap_is_matched_at_its_first_place_not_at_a_similar_word_further_on():
    """"wir" and "Wie", "whether" and "the" are similar spellings: matching the overlap's last word
    there dropped the words between ("Welchen Tag haben wir heute? Wie ist" lost "heute")."""
    commit = Commit(("Welchen", "Tag", "haben", "wir"), cut=int(0.5 * S), lang="de", lang_prob=0.99, overlap=2)
    tr = Transcript("haben wir heute? Wie ist das Wetter?", "de", 1.0, raw_text="x", path="tail", covered_s=2.0)
    assert judge_tail(commit, tr, int(2.2 * S)) == ("", ["heute?", "Wie", "ist", "das", "Wetter?"])
    la = LocalAgreement(first_commit_s=0.0, overlap_s=0.3)
    first = words(("tell", 0.2, 0.4), ("me", 0.45, 0.6), ("whether", 0.7, 1.0), ("the", 1.05, 1.15),
                  ("whole", 1.2, 1.5), ("museum", 1.55, 2.1))
    la.insert(first, "en", 0.99, int(2.05 * S))
    la.insert(first, "en", 0.99, int(3.1 * S))
    assert la.text == "tell me whether"  # heard 1 s of audio after it
    off = la.cut / S
    nxt = [Word(w.text, w.start - off, w.end - off) for w in first[2:]] + [Word("is", 2.2 - off, 2.4 - off)]
    la.insert(nxt, "en", 0.99, int(3.4 * S))
    assert la.hypothesis() == "tell me whether the whole museum is"


def test_a_tail_the_decoder_was_unsure_of_sends_the_turn_to_the_whole_pass():
    unsure = Transcript("cloakroom please", "en", 1.0, raw_text="x", path="tail", covered_s=1.0, avg_logprob=-0.9)
    assert judge_tail(COMMIT, unsure, int(1.2 * S), min_logprob=-0.8)[0] == "tail_unsure"
    assert judge_tail(COMMIT, unsure, int(1.2 * S), min_logprob=-1.0) == ("", ["please"])


# -- the tail pass's judge, scripted ----------------------------------------------------------------------
COMMIT = Commit(("where", "is", "the", "cloakroom"), cut=int(0.75 * S), lang="en", lang_prob=0.99,
                pending=("please",), overlap=1)
COMMIT_2 = Commit(("where", "is", "the", "cloakroom", "and", "the"), cut=int(0.9 * S), lang="en", lang_prob=0.99,
                  pending=("toilets", "please"), overlap=3)


def tail(text, dropped="", fallback="", covered=1.0):
    return Transcript(text, "en", 1.0, dropped, raw_text=text, path="tail", fallback=fallback, covered_s=covered)


def test_a_tail_that_hears_the_overlap_again_is_used_without_it():
    assert judge_tail(COMMIT, tail("Cloakroom, please?"), int(1.2 * S)) == ("", ["please?"])
    # a fragment of the word before may come first
    assert judge_tail(COMMIT, tail("e cloakroom please"), int(1.2 * S)) == ("", ["please"])
    # most of a longer overlap, in order, is enough ("an" for "and")
    assert judge_tail(COMMIT_2, tail("cloakroom an the toilets please", covered=2.5), 3 * S) == ("", ["toilets", "please"])
    assert judge_tail(COMMIT_2, tail("the toilets please", covered=2.5), 3 * S)[0] == "tail_disagrees"


@pytest.mark.parametrize("tr,why", [
    (tail("please"), "tail_disagrees"),                     # the overlap word is not heard again
    (tail("", dropped="empty"), "tail_empty"),
    (tail("cloakroom please", fallback="suspect"), "suspect"),
    (tail("cloakroom where is the cloakroom"), "tail_repeats_confirmed"),
    (tail("cloakroom please", covered=0.4), "tail_short"),  # its words end long before its audio does
])
def test_a_tail_that_looks_wrong_sends_the_turn_to_the_whole_pass(tr, why):
    assert judge_tail(COMMIT, tr, int(2.0 * S))[0] == why


def test_similar_spellings_count_as_the_same_word():
    assert similar("ticket", "tickets.") and similar("Cloakroom,", "cloakroom")
    assert not similar("is", "it") and not similar("museum", "garden")


class ScriptedASR:
    """Answers each transcribe() call from a script and records what it was asked."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.calls = []

    def transcribe(self, pcm, lang=None, partial=False, cancel=None, prior=None, context="", words=False):
        self.calls.append({"samples": len(pcm), "lang": lang, "context": context})
        return self.answers.pop(0)


def test_final_decodes_only_the_tail_with_the_confirmed_words_as_prompt():
    audio = np.ones(2 * S, np.int16)
    asr = ScriptedASR(tail("cloakroom please"))
    tr = IncrementalRecognizer().final(asr, audio, COMMIT)
    assert tr.text == "where is the cloakroom please" and tr.path == "tail" and not tr.fallback
    assert tr.committed_words == 4
    assert asr.calls == [{"samples": 2 * S - COMMIT.cut, "lang": "en", "context": "where is the"}]
    asr = ScriptedASR(tail("cloakroom and the toilets please"))
    tr = IncrementalRecognizer().final(asr, audio, COMMIT_2)
    assert tr.text == "where is the cloakroom and the toilets please" and asr.calls[0]["context"] == "where is the"


def test_final_falls_back_to_the_whole_utterance_and_says_why():
    audio = np.ones(2 * S, np.int16)
    whole = Transcript("where is the cloakroom please", "en", 0.99, raw_text="x", path="trimmed")
    asr = ScriptedASR(tail("please"), whole)
    tr = IncrementalRecognizer().final(asr, audio, COMMIT)
    assert tr.text == "where is the cloakroom please" and tr.path == "trimmed" and tr.fallback == "tail_disagrees"
    assert [c["samples"] for c in asr.calls] == [2 * S - COMMIT.cut, 2 * S]


def german(text):
    return Transcript(text, "de", 0.97, words=tuple(Word(w, 0.3 * i, 0.3 * i + 0.25) for i, w in enumerate(text.split())))


def test_a_german_utterance_gets_no_more_incremental_passes_once_its_language_is_sure():
    inc = IncrementalRecognizer(languages=("en",))
    audio = np.arange(4 * S, dtype=np.int16)
    assert inc.confirming(audio[: 2 * S])  # nothing heard yet
    inc.partial(ScriptedASR(german("wo kann ich meine jacke")), audio[: 2 * S])
    assert not inc.confirming(audio[: 3 * S])  # German: plain passes from now on
    assert inc.confirming(np.zeros(3 * S, np.int16))  # another utterance starts afresh
    inc = IncrementalRecognizer(languages=("de", "en"))
    inc.partial(ScriptedASR(german("wo kann ich meine jacke")), audio[: 2 * S])
    assert inc.confirming(audio[: 3 * S])


def test_final_without_confirmed_words_is_the_whole_pass():
    asr = ScriptedASR(Transcript("hello", "en", 0.9, path="trimmed"))
    tr = IncrementalRecognizer().final(asr, np.ones(S, np.int16), Commit((), 0, "", 0.0))
    assert tr.path == "trimmed" and tr.fallback == "" and asr.calls[0]["samples"] == S


# -- real speech through Whisper ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def asr():
    from avatar.asr import WhisperASR

    cfg = config.load(env={})
    return WhisperASR(cfg.asr, cfg.general.languages)


def test_word_times_lie_in_order_within_the_audio(asr):
    pcm = read_wav_16k(LONG_EN)[: 4 * S]
    tr = asr.transcribe(pcm, partial=True, words=True)
    assert len(tr.words) >= 5
    starts = [w.start for w in tr.words]
    assert starts == sorted(starts) and 0.0 <= starts[0] and tr.words[-1].end <= 4.0 + 0.05
    assert normalize(" ".join(w.text for w in tr.words)) == normalize(tr.text)


def test_a_long_question_is_confirmed_while_spoken_and_the_final_pass_hears_only_the_tail(asr):
    pcm = read_wav_16k(LONG_EN)
    commit, partials, final = replay(asr, pcm, interval_ms=300, paced=False)  # the default interval
    whole = asr.transcribe(pcm)
    assert len(commit.words) >= 10 and commit.lang == "en"
    assert final.path == "tail" and not final.fallback
    assert final.encoded_s < 0.6 * whole.encoded_s  # the final pass encoded less than the utterance
    errors, n = word_errors(LONG_EN_TEXT, final.text)
    whole_errors, _ = word_errors(LONG_EN_TEXT, whole.text)
    assert errors <= whole_errors + 1 and errors <= 0.1 * n
    # the partials were built from the same passes: each starts with what was confirmed before it
    texts = [normalize(p.text) for p in partials if p.committed_words]
    assert texts and all(t for t in texts)


def test_a_new_utterance_starts_afresh(asr):
    inc = IncrementalRecognizer()
    pcm = read_wav_16k(LONG_EN)
    for seconds in (2.0, 2.6, 3.2, 3.8):
        inc.partial(asr, pcm[: int(seconds * S)])
    assert inc.commit().words
    other = read_wav_16k("tests/data/speech/en_whats_the_weather_like_in_new_york.wav")
    inc.partial(asr, other[: S])
    assert inc.commit().words == ()  # other audio: nothing of the first utterance carries over


def test_a_longer_overlap_keeps_more_confirmed_words_in_the_tail():
    la = LocalAgreement(first_commit_s=0.0, overlap_s=0.25)
    la.insert(PASS_1, "en", 0.99, 3 * S)
    la.insert(PASS_2, "en", 0.99, 4 * S)
    assert la.context == "where is the cloakroom" and la.overlap == 2  # "and the" heard again
    la = LocalAgreement(first_commit_s=0.0, overlap_s=5.0)
    la.insert(PASS_1, "en", 0.99, 3 * S)
    la.insert(PASS_2, "en", 0.99, 4 * S)
    assert la.cut == 0 and la.overlap == 6  # the confirmed words are shorter than the overlap: no cut yet


def test_confirmed_words_still_in_the_pass_audio_are_never_its_prompt():
    """Before the first cut every confirmed word is still in the audio a pass hears: prompting
    with them made Whisper skip them in the audio ("a wheelchair" for "my grandmother uses a
    wheelchair") and the agreement lost words."""
    la = LocalAgreement(first_commit_s=0.0, overlap_s=5.0)
    la.insert(PASS_1, "en", 0.99, 3 * S)
    la.insert(PASS_2, "en", 0.99, 4 * S)
    assert la.text == "where is the cloakroom and the" and la.cut == 0
    assert la.context == "" and la.overlap == 6
