"""German verbs as visitors say them: "Wann werden die Seehunde gefüttert?" names the feeding of a fact
that says "füttern" (the stemmer keeps a participle's "-t"), and a follow-up read with the question
before it ("und die Haie?") asks first of all for what its own words name."""
import pytest

from avatar.answer.base import HistoryTurn
from avatar.answer.retrieval.words import _participle_infinitive
from avatar.answer.retrieval_answerer import RetrievalAnswerer
from avatar.config import load

PACK = """
[venue]
name = "Meereswelt Brinkum"
name_en = "Brinkum Sea World"
kind = "aquarium"

[[fact]]
id = "seehunde"
topic = "events"
de = "Unsere Seehunde im Außenbecken bekommen jeden Tag um 11:00 und um 15:30 Uhr ihren Fisch; bitte kommen Sie ein paar Minuten früher."
en = "Our seals in the outdoor pool get their fish every day at 11:00 and 15:30; please come a few minutes early."
keywords = ["Seehundfütterung", "füttern", "Fütterung", "seal feeding", "feed"]

[[fact]]
id = "haie"
topic = "events"
de = "Die Haifütterung im großen Becken findet dienstags und samstags um 14:00 Uhr statt; an den übrigen Tagen lassen sich die Haie nicht füttern."
en = "The shark feeding in the big tank takes place on Tuesdays and Saturdays at 14:00; on other days the sharks are not fed."

[[fact]]
id = "tickets"
topic = "prices"
de = "Eintritt 18 €, Kinder 4–15 Jahre 11 €."
en = "Admission 18 €, children aged 4 to 15 11 €."

[[fact]]
id = "cafe"
topic = "services"
de = "Das Bistro Kombüse im Erdgeschoss hat täglich von 10 bis 17 Uhr geöffnet."
en = "The Kombüse bistro on the ground floor is open daily from 10 am to 5 pm."

[[fact]]
id = "wc"
topic = "rooms"
de = "Toiletten und Wickelraum finden Sie neben der Garderobe im Eingangsbereich."
en = "Toilets and a baby changing room are next to the cloakroom in the entrance area."

[[fact]]
id = "parken"
topic = "services"
de = "Parkhaus Hafenstraße, 2 € pro Stunde, Tageshöchstsatz 12 €."
en = "Hafenstraße car park, 2 € per hour, at most 12 € a day."

[[fact]]
id = "tunnel"
topic = "about"
de = "Der 24 Meter lange Unterwassertunnel im Untergeschoss zeigt Rochen, Zackenbarsche und Muränen."
en = "The 24-metre underwater tunnel in the basement shows rays, groupers and moray eels."

[[fact]]
id = "shop"
topic = "services"
de = "Im Shop am Ausgang gibt es Plüschtiere, Bücher und Postkarten."
en = "The shop at the exit sells soft toys, books and postcards."

[[fact]]
id = "hunde"
topic = "rules"
de = "Hunde dürfen leider nicht mit hinein, Assistenzhunde ausgenommen."
en = "Dogs are not allowed inside, assistance dogs excepted."
"""


@pytest.mark.parametrize("word, verb", [("gefüttert", "füttern"), ("angemeldet", "anmelden"),
                                        ("reserviert", "reservieren"), ("erlaubt", "erlauben"),
                                        ("gebucht", "buchen"), ("geöffnet", "öffnen"), ("abgeholt", "abholen"),
                                        ("gestattet", "gestatten")])
def test_a_weak_participle_reads_as_its_infinitive(word, verb):
    assert _participle_infinitive(word) == verb


@pytest.mark.parametrize("word", ["gesamt", "gebiet", "gesicht", "gericht", "ticket", "internet", "markt",
                                  "geschlossen", "gerecht", "verbot"])
def test_words_that_only_look_like_participles_stay(word):
    assert _participle_infinitive(word) == word


@pytest.fixture
def answerer(tmp_path):
    from avatar.answer.knowledge import load_pack

    (tmp_path / "venue.toml").write_text(PACK, encoding="utf-8")
    return RetrievalAnswerer(load_pack(tmp_path), load(env={}))


def test_a_participle_finds_the_fact_that_says_the_verb(answerer):
    reply = answerer.answer("Wann werden die Seehunde gefüttert?", "de")
    assert reply.facts and reply.facts[0].id == "seehunde" and "11:00" in reply.reply


def test_a_follow_up_asks_for_what_its_own_words_name(answerer):
    before = [HistoryTurn("wann werden die seehunde gefüttert",
                          "Die Seehunde im Außenbecken bekommen jeden Tag um 11:00 und um 15:30 Uhr ihren Fisch.", "de")]
    reply = answerer.answer("und die haie", "de", before)
    assert "14:00" in reply.reply, reply.reply
