"""Fallback: quote the best matching fact verbatim, else point to staff, in the visitor's language."""
from avatar.answer.base import Fact
from avatar.answer.checks.fallback import NOT_KNOWN, fallback_reply

FACTS_DE = [Fact("hours", "de", "Das Museum ist täglich von 9 bis 18 Uhr geöffnet"),
            Fact("cafe", "de", "Das Café ist im 2. Stock.")]
FACTS_EN = [Fact("hours", "en", "The museum is open daily from 9 am to 6 pm."),
            Fact("cafe", "en", "The café is on the second floor.")]


def test_matching_fact_is_quoted_verbatim_in_german_and_english():
    fb = fallback_reply("Wie lange ist das Museum geöffnet?", "de", FACTS_DE)
    assert fb.kind == "fact" and fb.text == "Das Museum ist täglich von 9 bis 18 Uhr geöffnet." and fb.mood == "info"
    fb = fallback_reply("Where is the café?", "en", FACTS_EN)
    assert fb.kind == "fact" and fb.text == "The café is on the second floor."


def test_no_matching_fact_points_to_staff_in_the_visitors_language():
    fb = fallback_reply("Kann man hier Fahrräder leihen?", "de", FACTS_DE)
    assert fb.kind == "not_known" and fb.text == NOT_KNOWN["de"] and fb.mood == "sorry"
    fb = fallback_reply("Can I rent a bike here?", "en", FACTS_EN)
    assert fb.kind == "not_known" and fb.text == NOT_KNOWN["en"]
    assert fallback_reply("Where is the café?", "en", []).text == NOT_KNOWN["en"]


def test_facts_in_another_language_are_never_quoted():
    assert fallback_reply("Where is the café?", "en", FACTS_DE).kind == "not_known"


def test_the_fact_about_the_asked_weekday_is_quoted_even_when_misheard():
    facts = [Fact("mon", "de", "Am Montag haben wir von 9 bis 17 Uhr geöffnet."),
             Fact("wed", "de", "Am Mittwoch haben wir von 10 bis 18 Uhr geöffnet.")]
    assert fallback_reply("Habt ihr am Mittwoch auf, 12, richtig?", "de", facts).fact_id == "wed"
    assert fallback_reply("bis wann ist am mitwoch offen", "de", facts).fact_id == "wed"
