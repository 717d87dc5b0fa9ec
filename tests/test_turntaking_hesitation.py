"""Adaptive endpointing: wait longer after a hesitation, shorter after a complete question."""
from __future__ import annotations

import pytest

from avatar import config
from avatar.vad.hesitation import classify, end_wait_ms


@pytest.fixture(scope="module")
def vad():
    return config.load(env={}).vad


@pytest.mark.parametrize("text", [
    "Wo ist die Garderobe, ähm", "Ich suche äh", "I was wondering um", "Where is the uh",
    "Wann öffnet das Museum und", "Can I buy tickets here and", "Haben Sie einen Plan oder",
    "What about the", "Ich möchte zur", "Wie komme ich zum...",
])
def test_hesitation_waits_longer(text, vad):
    assert end_wait_ms(text, vad) == vad.hesitation_end_ms > vad.end_of_turn_ms
    assert classify(text, vad).reason == "hesitation"


@pytest.mark.parametrize("text", [
    "Wo ist die Garderobe?", "Wann öffnet das Museum", "Was kostet der Eintritt?",
    "Where is the cloakroom?", "How much is a ticket", "Can I pay by card?", "Gibt es hier ein Café?",
])
def test_complete_question_waits_shorter(text, vad):
    assert end_wait_ms(text, vad) == vad.complete_end_ms < vad.end_of_turn_ms
    assert classify(text, vad).reason == "complete"


@pytest.mark.parametrize("text", ["", "Ich suche die Garderobe", "I would like a ticket", "Wo"])
def test_anything_else_keeps_the_normal_wait(text, vad):
    assert end_wait_ms(text, vad) == vad.end_of_turn_ms


def test_waits_follow_the_settings():
    vad = config.load(env={}, sets=["vad.complete_end_ms=250", "vad.hesitation_end_ms=1100"]).vad
    assert end_wait_ms("Where is the exit?", vad) == 250
    assert end_wait_ms("Where is the exit and", vad) == 1100
