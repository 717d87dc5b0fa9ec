"""Whisper's silence hallucinations and repetition loops are recognised without running a model."""
from __future__ import annotations

import pytest

from avatar.asr.transcript import Transcript
from avatar.asr.transcript_checks import cut_loop, is_hallucination, looks_looped, settle_repeats
from avatar.asr.transcript_checks import why_dropped as _why_dropped
from avatar.asr.word_accuracy import word_errors


@pytest.mark.parametrize("text", [
    "Untertitel im Auftrag des ZDF, 2017", "Untertitel im Auftrag des ZDF für funk, 2017", "Vielen Dank.",
    "Vielen Dank fürs Zuschauen!", "Untertitel der Amara.org-Community", " Thank you for watching!",
    " you", "Thank you.", "Thanks for watching.", "Bye.", "[Music]", "♪♪", "(Applause)",
    "Subtitles by the Amara.org community", "Tschüss!",
])
def test_known_hallucinations_are_dropped(text):
    assert is_hallucination(text)
    tr = Transcript("", "de", 0.9, raw_text=text, avg_logprob=-0.2)
    assert _why_dropped(tr) in ("hallucination", "empty")


@pytest.mark.parametrize("text", [
    "Wo ist die Garderobe?", "Wann öffnet das Museum?", "What time do you close?",
    "Thank you, where is the exit?", "Vielen Dank, und wo sind die Toiletten?", "Can you help me?",
])
def test_real_questions_are_kept(text):
    assert not is_hallucination(text) and not looks_looped(text)
    assert _why_dropped(Transcript("", "de", 0.9, raw_text=text, avg_logprob=-0.3, no_speech_prob=0.1)) == ""


def test_noise_and_low_confidence_are_dropped():
    noise = Transcript("", "en", 0.9, raw_text="I'm going to put the water in the pot.", no_speech_prob=0.7,
                       avg_logprob=-1.7)
    assert _why_dropped(noise) == "noise"
    guess = Transcript("", "en", 0.9, raw_text="Oops.", no_speech_prob=0.3, avg_logprob=-2.0)
    assert _why_dropped(guess) == "low_confidence"
    assert _why_dropped(Transcript("", "en", 0.9, raw_text=" ... ")) == "empty"


@pytest.mark.parametrize("text", [
    "Activate Blue Signing Activate Blue Signing",
    "the hours are, unless to be rather, unless to be rather, unless to be rather",
    "ja ja ja ja ja", "Hallo. Hallo. Hallo. Hallo.",
])
def test_repetition_loops_are_recognised(text):
    assert looks_looped(text)


def test_a_sentence_started_again_and_cut_off_is_a_loop():
    # a tail pass in the 2026-12-02 bench: the decoder said the question again into the padding
    tail = ("there somewhere we can leave our coats and where do we go for the children's tour? "
            "Is there somewhere we can leave our coats and where do we")
    assert looks_looped(tail) and settle_repeats(tail)[1]  # suspect: the whole pass decodes it again
    assert cut_loop(tail) == "there somewhere we can leave our coats and where do we go for the children's tour? Is"
    # four words said again is speech, not a loop
    assert not looks_looped("Where is the exit? Sorry, where is the exit?")
    assert not looks_looped("Is the cafe open today, and is the cafe open on Sunday too?")


def test_cut_loop_keeps_the_first_copy():
    assert cut_loop("open the door open the door open the door") == "open the door"
    assert cut_loop("Wo ist der Ausgang?") == "Wo ist der Ausgang?"


def test_word_errors_count_edits_over_normalised_words():
    assert word_errors("set brightness to 50 percent", "Set brightness to 50%.") == (0, 5)
    assert word_errors("wie ist das Wetter", "Wie ist das Weter?") == (1, 4)
    assert word_errors("cancel timer", "cancel all the timer") == (2, 2)


def test_a_whole_utterance_repeated_keeps_one_copy_without_a_retry():
    assert settle_repeats("Lock the front door Lock the front door Lock the front door") == ("Lock the front door", False)
    assert settle_repeats("Next Next Next Next Next") == ("Next", False)


def test_a_loop_starting_mid_sentence_stays_suspect():
    text, suspect = settle_repeats("The museum opens at nine, unless to be rather, unless to be rather")
    assert suspect
    assert settle_repeats("Wie ist das Wetter?") == ("Wie ist das Wetter?", False)
