"""A where-question that names nothing but the venue ("Wo genau seid ihr?", "where exactly is the
museum") asks for the venue's own address, and an opening question that names nothing but the venue its
hours; a question for the wifi's password needs a fact that gives one."""
import pytest

from avatar.answer.retrieval_answerer import RetrievalAnswerer
from avatar.config import load

PACK = """
[venue]
name = "Heimatmuseum Eichrode"
name_en = "Eichrode Local History Museum"
kind = "museum"
help_de = "an der Kasse"
help_en = "at the ticket desk"

[[fact]]
id = "lage"
topic = "directions"
de = "Sie finden uns im alten Amtshaus, Mühlenweg 7, 31582 Eichrode; Bus 14 bis Marktplatz."
en = "You will find us in the old town hall, Mühlenweg 7, 31582 Eichrode; bus 14 to Marktplatz."

[[fact]]
id = "cafe"
topic = "services"
de = "Das Museumscafé im Erdgeschoss hat Kuchen und Kaffee, geöffnet bis 17 Uhr."
en = "The museum café on the ground floor serves cake and coffee, open until 5 pm."

[[fact]]
id = "aufzug"
topic = "directions"
de = "Wo Treppen sind, gibt es einen Aufzug: alle Etagen sind stufenlos erreichbar."
en = "Where there are stairs there is a lift: every floor can be reached step-free."

[[fact]]
id = "wlan"
topic = "services"
de = "WLAN ist im ganzen Haus kostenlos."
en = "Wifi is free throughout the building."

[[fact]]
id = "eintritt"
topic = "prices"
de = "Eintritt 6 €, ermäßigt 4 €, Kinder unter 12 frei."
en = "Admission 6 €, reduced 4 €, children under 12 free."

[[fact]]
id = "fuehrung"
topic = "events"
de = "Führungen jeden Sonntag um 11 Uhr, Treffpunkt Foyer."
en = "Guided tours every Sunday at 11 am, meeting point foyer."

[[fact]]
id = "garderobe"
topic = "services"
de = "Garderobe und Schließfächer im Untergeschoss, kostenlos."
en = "Cloakroom and lockers in the basement, free of charge."

[[fact]]
id = "hunde"
topic = "rules"
de = "Hunde dürfen nicht ins Museum, Assistenzhunde ausgenommen."
en = "Dogs are not allowed in the museum, except assistance dogs."

[[fact]]
id = "shop"
topic = "services"
de = "Der Museumsladen verkauft Bücher, Postkarten und Honig aus Eichrode."
en = "The museum shop sells books, postcards and honey from Eichrode."

[[fact]]
id = "zeiten"
topic = "hours"
de = "Geöffnet Di–So 10–17 Uhr, Sa bis 20 Uhr; Mo geschlossen."
en = "Open Tue–Sun 10 am–5 pm, Sat until 8 pm; Mon closed."

[[fact]]
id = "nacht"
topic = "events"
de = "Lange Nacht: jeden Samstag ab 20 Uhr Musik im Innenhof, bis Mitternacht."
en = "Long night: every Saturday from 8 pm music in the courtyard, until midnight."

[[fact]]
id = "werkstatt"
topic = "events"
de = "Die Kinderwerkstatt im 2. OG ist samstags von 14 bis 16 Uhr offen."
en = "The children's workshop on the 2nd floor is open on Saturdays from 2 to 4 pm."
"""


@pytest.fixture
def answerer(pack_from):
    return RetrievalAnswerer(pack_from(PACK), load(None, ["answer.semantic_weight=0"], env={}))


@pytest.mark.parametrize("question, lang", [
    ("Wo genau seid ihr?", "de"), ("wo finde ich das heimatmuseum", "de"), ("Wie ist eure Adresse?", "de"),
    ("where exactly is the museum", "en"), ("Where are you located?", "en"), ("whats your address", "en"),
])
def test_a_where_question_about_the_venue_itself_gets_its_address(answerer, question, lang):
    ans = answerer.answer(question, lang)
    assert "Mühlenweg 7" in ans.reply and ans.checks.retrieval["venue_place"]


@pytest.mark.parametrize("question, lang", [("Wo ist das Café?", "de"), ("where is the lift", "en"),
                                            ("wo ist der Museumsladen", "de")])
def test_a_where_question_about_a_thing_is_not_answered_with_the_address(answerer, question, lang):
    ans = answerer.answer(question, lang)
    assert "Mühlenweg" not in ans.reply and not ans.checks.retrieval["venue_place"]


def test_a_short_word_finds_the_pack_compound_it_ends_but_not_one_it_starts(pack_from):
    from datetime import date

    from avatar.answer.retrieval import Retriever
    from avatar.answer.retrieval.index import _inexact_matches

    index = Retriever(pack_from(PACK))._index("de", date.today())
    assert [t for t, _ in _inexact_matches("cafe", index)] == ["museumscafe"]  # "Café" in "Museumscafé"
    assert _inexact_matches("post", index) == []  # "postkarten" starts with it: not the thing asked


def test_without_an_address_in_the_pack_the_venue_place_rule_finds_nothing(pack_from):
    text = PACK.replace("im alten Amtshaus, Mühlenweg 7, 31582 Eichrode", "im alten Amtshaus") \
        .replace("in the old town hall, Mühlenweg 7, 31582 Eichrode", "in the old town hall")
    answerer = RetrievalAnswerer(pack_from(text), load(None, ["answer.semantic_weight=0"], env={}))
    assert answerer.venue_place("Wo genau seid ihr?", "de") is None


@pytest.mark.parametrize("question, lang", [("Wie lautet das WLAN-Passwort?", "de"), ("whats the wifi password", "en")])
def test_a_password_asked_where_the_pack_only_says_the_wifi_is_free_is_declined(answerer, question, lang):
    assert answerer.answer(question, lang).checks.retrieval["declined"]


def test_a_password_the_pack_gives_is_said(pack_from):
    text = PACK.replace("WLAN ist im ganzen Haus kostenlos.", "WLAN „Museum-Gast“ ist kostenlos, Passwort: eiche1890.") \
        .replace("Wifi is free throughout the building.", "Wifi 'Museum-Gast' is free, password: eiche1890.")
    answerer = RetrievalAnswerer(pack_from(text), load(None, ["answer.semantic_weight=0"], env={}))
    for question, lang in (("Wie lautet das WLAN-Passwort?", "de"), ("whats the wifi password", "en")):
        assert "eiche1890" in answerer.answer(question, lang).reply


@pytest.mark.parametrize("question, lang", [("bis wann habt ihr am samstag auf", "de"),
                                            ("how late are you open on saturday", "en")])
def test_an_opening_question_about_the_venue_gets_its_hours_not_an_event_on_that_day(answerer, question, lang):
    ans = answerer.answer(question, lang)
    assert ans.facts[0].id == "zeiten"


def test_an_opening_question_about_a_part_of_the_venue_gets_that_part(answerer):
    ans = answerer.answer("bis wann hat die kinderwerkstatt am samstag auf", "de")
    assert ans.facts[0].id == "werkstatt" and not ans.checks.retrieval["venue_hours"]

