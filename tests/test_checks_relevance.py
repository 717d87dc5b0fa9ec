"""Relevance: a reply carrying values must be about the weekday or name the question asked about."""
import pytest

from avatar import config
from avatar.answer.base import Fact
from avatar.answer.checks import Candidate, check_and_choose
from avatar.answer.checks.relevance import check_relevance
from avatar.trace import Tracer

FACTS = [Fact("sun", "en", "On Sunday we are closed."), Fact("thu", "en", "On Thursday we are open from 9:00 to 16:00."),
         Fact("koeln", "en", "The next train to Köln leaves at 9:12 from platform 3.")]


def test_reply_about_another_day_than_asked_is_off_topic_and_names_what_to_ban():
    result = check_relevance("On Thursday we are open from 9:00 to 16:00.", "en", FACTS, "are you open on sunday")
    assert not result.ok and result.asked == ["sun"] and result.off_topic == ["Thursday"]
    assert check_relevance("On Sunday we are closed.", "en", FACTS, "are you open on sunday").ok


def test_asked_name_from_the_facts_must_appear_even_in_a_lower_case_asr_question():
    assert not check_relevance("The next train leaves at 10:40.", "en", FACTS, "when does the train to köln leave").ok
    assert check_relevance("The next train to Köln leaves at 9:12.", "en", FACTS, "when does the train to köln leave").ok


def test_declines_and_questions_without_a_day_or_name_are_always_relevant():
    assert check_relevance("Sorry, I don't know that.", "en", FACTS, "are you open on sunday").ok
    assert check_relevance("We close at 16:00.", "en", FACTS, "when do you close").ok


def test_off_topic_reply_is_redecoded_with_the_wrong_day_banned():
    calls = []

    def decode(variant, banned):
        calls.append(frozenset(banned))
        text = "On Sunday we are closed." if "Thursday" in banned else "On Thursday we are open from 9:00 to 16:00."
        return Candidate(text, "en", "info")

    cfg = config.load(sets=["checks.self_consistency=false", "checks.max_extra_ratio=0"], env={})
    out = check_and_choose("Are you open on Sunday?", "en", FACTS, decode, cfg, budget_ms=1e6, tracer=Tracer())
    assert out.reply == "On Sunday we are closed." and out.checks.relevant is True
    assert calls == [frozenset(), frozenset({"Thursday"})] and out.checks.redecodes == 1
    assert out.candidates[1].variant == 1  # another order, not the same decode under a ban


def test_a_misheard_weekday_still_counts_as_asked():
    assert not check_relevance("On Thursday we are closed.", "en", FACTS, "what time do you close on suday").ok


def test_a_price_or_time_question_needs_a_price_or_time_or_a_decline():
    facts = [Fact("p", "de", "Der Eintritt kostet 9 €.")]
    assert not check_relevance("Der Eintritt kostet.", "de", facts, "Was kostet der Eintritt?").ok
    assert check_relevance("Der Eintritt kostet 9 €.", "de", facts, "Was kostet der Eintritt?").ok
    assert check_relevance("Das weiß ich leider nicht.", "de", facts, "Was kostet der Eintritt?").ok
    assert check_relevance("Sorry, we are closed today.", "en", FACTS, "When are you open today?").ok


def test_a_misheard_day_close_to_two_days_accepts_either():
    facts = [Fact("thu", "en", "On Thursday we are open from 10:00 to 19:00.")]
    assert check_relevance("On Thursday we are open from 10:00 to 19:00.", "en", facts, "are you open on tursday").ok


@pytest.mark.parametrize("reply, question, fails", [
    ("Hi", "What's the temperature?", True),
    ("Goodbye and have a nice day!", "Lock the front door.", True),
    ("Hallo!", "wo ist die toilette", True),
    ("Hallo!", "Hallo", False),                                 # a greeting answers a greeting
    ("Danke, gleichfalls!", "Danke schön", False),
    ("Goodbye and have a nice day!", "thanks bye", False),
    ("The café is on level 1.", "hi where is the café", False),  # not only social: judged as usual
])
def test_a_greeting_answers_only_something_social(reply, question, fails):
    lang = "de" if question in ("wo ist die toilette", "Hallo", "Danke schön") else "en"
    result = check_relevance(reply, lang, [], question)
    assert result.ok is (not fails)
