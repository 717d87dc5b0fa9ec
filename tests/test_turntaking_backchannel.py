"""Speech over the reply: backchannels let the avatar go on, a real turn stops it."""
from __future__ import annotations

import pytest

from avatar.vad.backchannel import MAX_BACKCHANNEL_MS, is_backchannel, is_backchannel_text


@pytest.mark.parametrize("text", ["Mhm.", "ja", "Ya.", "Genau!", "okay", "OK", "Yeah.", "yes", "right", "aha",
                                  "Uh-huh.", "uh huh", "stimmt", "Ja, genau.", "Okay, mhm", "I see.", "ach so"])
def test_acknowledgements_are_backchannels(text):
    assert is_backchannel_text(text)
    assert is_backchannel(400.0, text)


@pytest.mark.parametrize("text", ["Stopp", "Wait", "ja, wo ist die Toilette?", "yes, but where is it",
                                  "okay and the café?", "Wie bitte?", "Where?", "nein"])
def test_real_turns_are_not_backchannels(text):
    assert not is_backchannel(400.0, text)


@pytest.mark.parametrize("heard", ["Get out.", "come out", "life", "in time.", "Brian"])
def test_a_misheard_short_acknowledgement_is_still_one(heard):
    """Whisper's readings of a short "genau" / "right" over the reply: a word or two under 600 ms
    that does not ask for the turn lets the reply go on; the same words spoken longer stop it."""
    assert is_backchannel(450.0, heard)
    assert not is_backchannel(700.0, heard)
    assert not is_backchannel(450.0, "I want the café")


def test_without_a_transcript_the_length_decides():
    assert is_backchannel(150.0, "", min_ms=240)
    assert is_backchannel(150.0, None, min_ms=240)
    assert not is_backchannel(240.0, "", min_ms=240)
    assert not is_backchannel(600.0, "", min_ms=240)


def test_long_speech_is_a_turn_whatever_the_words():
    assert not is_backchannel(MAX_BACKCHANNEL_MS, "ja ja ja ja ja ja")


def test_short_speech_the_recogniser_found_no_words_in_is_a_backchannel():
    assert is_backchannel(500.0, "", min_ms=240, transcribed=True)  # "mhm": Whisper drops it
    assert not is_backchannel(500.0, "", min_ms=240)  # no transcript yet: the length decides
    assert not is_backchannel(900.0, "", min_ms=240, transcribed=True)
