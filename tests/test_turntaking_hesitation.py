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


# -- the clauses rule (default) against the first-word rule (before) --

def _rule(vad, rule):
    return config.load(env={}, sets=[f"vad.end_wait_rule={rule}"]).vad


@pytest.mark.parametrize("text", [
    "Excuse me, is there a place where I can charge my phone",  # after a greeting
    "und was kostet der eintritt", "and what about our coach",           # after an "and"
    "bis wann hat die bar freitags auf", "up to what age do kids get the reduced price",  # after a preposition
    "habt ihr auch eine laser tag area", "fährt ein bus vom flughafen zum tierpark",      # German verb first
    "whats your address", "wheres the loo",                      # spoken contractions
    "Good afternoon, we were wondering whether the museum stays open late on Thursday.",  # indirect
    "Wir möchten gerne wissen, ob wir uns vorher anmelden müssen.",
    "Wann hat der Garten im Sommer auf?", "Can I bring my dog in?",  # a particle or "?" at the end
    "my dad uses a wheel chair, how does he get into the water",
])
def test_the_clauses_rule_hears_questions_the_first_word_rule_missed(text, vad):
    assert classify(text, vad).reason == "complete"
    assert classify(text, _rule(vad, "first_word")).reason != "complete"


@pytest.mark.parametrize("text", [
    "where is", "can I", "habt ihr", "habt ihr auch", "in welchem",  # the question is still to come
    "we were wondering whether", "ich möchte wissen ob",
    "darf ich meinen hund mit",   # "mit" without its verb: still a preposition
    "we would like to know how long it takes to walk",  # a question word inside, no sentence end heard
    "gibt es auf",
])
def test_the_clauses_rule_waits_where_the_question_goes_on(text, vad):
    assert classify(text, vad).reason != "complete"


@pytest.mark.parametrize("text", ["Wo ist die Garderobe, ähm", "Where is the uh", "Wann öffnet das Museum und",
                                  "Ich möchte zur", "What about the", "Wie komme ich zum..."])
def test_both_rules_hear_a_hesitation(text, vad):
    for rule in ("clauses", "first_word"):
        assert classify(text, _rule(vad, rule)).reason == "hesitation"


def test_statements_keep_the_normal_wait_under_both_rules(vad):
    for text in ("I need to print something", "Ich muss noch Bargeld holen.", "Hello, we came by train this morning."):
        for rule in ("clauses", "first_word"):
            assert classify(text, _rule(vad, rule)).reason == "default", (text, rule)


def test_the_rule_is_a_checked_setting():
    with pytest.raises(config.ConfigError, match="end_wait_rule"):
        config.load(env={}, sets=["vad.end_wait_rule=guess"])
