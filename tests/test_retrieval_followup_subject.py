"""A short follow-up that points back ("Is it open on Mondays?" after the café) asks about what the last
reply was about: that fact answers when it holds the kind of value asked; a new thing is read anew."""
import pytest

from avatar.answer.base import HistoryTurn
from avatar.answer.retrieval_answerer import RetrievalAnswerer, source_of
from avatar.config import load

PACK = """
[venue]
name = "Botanischer Garten Rembach"
name_en = "Rembach Botanical Garden"
kind = "botanical garden"

[[fact]]
id = "garten"
topic = "hours"
de = "Freigelände: Apr–Okt tgl. 9–19 Uhr; Nov–März tgl. 9–16 Uhr."
en = "Outdoor garden: Apr–Oct daily 9 am–7 pm; Nov–Mar daily 9 am–4 pm."

[[fact]]
id = "cafe"
topic = "services"
de = "Café Orangerie im Eingangsgebäude: Di–So 11–18 Uhr, Montag Ruhetag."
en = "Café Orangerie in the entrance building: Tue–Sun 11 am–6 pm, closed on Mondays."

[[fact]]
id = "gutscheine"
topic = "prices"
de = "Gutscheine gibt es an der Kasse, sie sind 3 Jahre gültig."
en = "Vouchers are sold at the ticket desk and are valid for 3 years."

[[fact]]
id = "wc"
topic = "rooms"
de = "WC und Wickeltisch im Eingangsgebäude."
en = "Toilets and baby changing in the entrance building."

[[fact]]
id = "fuehrung"
topic = "events"
de = "Öffentliche Führung sonntags 11 Uhr am Haupttor, ca. 60 Minuten."
en = "Public guided tour on Sundays at 11 am at the main gate, about 60 minutes."
"""


@pytest.fixture
def answerer(pack_from):
    return RetrievalAnswerer(pack_from(PACK), load(env={}))


def _after(answerer, lang, said_about, question):
    said = next(f.text for f in answerer.pack.facts(lang) if f.id == said_about)
    return answerer.answer(question, lang, [HistoryTurn("…", said, lang)])


@pytest.mark.parametrize("lang, said_about, question, fact_id", [
    ("en", "cafe", "Is it open on Mondays?", "cafe"),  # not the garden's hours
    ("de", "gutscheine", "und wie lange sind die gültig", "gutscheine"),  # a duration answers "wie lange"
    ("en", "cafe", "and on saturday", "cafe"),
])
def test_a_follow_up_that_points_back_stays_with_the_last_subject(answerer, lang, said_about, question, fact_id):
    answer = _after(answerer, lang, said_about, question)
    assert answer.mood != "sorry" and answer.facts[0].id == fact_id, answer.reply


def test_a_new_thing_is_not_the_last_subject(answerer):
    answer = _after(answerer, "de", "cafe", "und wo ist das wc")
    assert answer.facts[0].id == "wc", answer.reply


def test_the_last_fact_without_the_asked_value_does_not_answer_for_it(answerer):
    # the toilets' fact holds no price: "what does that cost" is not answered with it
    answer = _after(answerer, "en", "wc", "and what does that cost")
    assert not answer.facts or answer.facts[0].id != "wc" or answer.mood == "sorry"


def test_the_fact_a_reply_said_is_found_by_its_words():
    from avatar.answer.base import Fact
    facts = [Fact("a", "en", "Café Orangerie: Tue–Sun 11 am–6 pm.", "services"),
             Fact("b", "en", "Outdoor garden daily 9 am–7 pm.", "hours")]
    assert source_of("Café Orangerie: Tue–Sun 11 am–6 pm.", "en", facts).id == "a"  # quoted
    assert source_of("The Orangerie café opens Tuesday to Sunday.", "en", facts).id == "a"  # in other words
    assert source_of("Hello!", "en", facts) is None
