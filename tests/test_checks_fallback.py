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
