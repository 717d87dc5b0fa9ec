"""A fact about the thing asked that lacks the value asked for does not answer: the pharmacy's floor for
its phone number, the glasshouse's hours for its temperature, a car park's address for its price, a
floor list for the dentist's opening hours. And "can I bring my dog" asks whether dogs may come."""
import pytest

from avatar.answer.asked import asked_focus, asked_value, holds_value
from avatar.answer.retrieval import Retriever
from avatar.answer.retrieval_answerer import RetrievalAnswerer
from avatar.config import load

PACK = """
[venue]
name = "Einkaufszentrum Lindenhof"
name_en = "Lindenhof shopping centre"
kind = "shopping centre"

[[fact]]
id = "apotheke"
topic = "services"
de = "Die Linden-Apotheke ist im Erdgeschoss neben dem Haupteingang."
en = "The Linden pharmacy is on the ground floor next to the main entrance."

[[fact]]
id = "ebene2"
topic = "rooms"
de = "Ebene 2: Food Court, Kinderland, Zahnarztpraxis Dr. Weiland."
en = "Level 2: food court, kids' land, dentist's practice Dr Weiland."

[[fact]]
id = "parkhaus"
topic = "directions"
de = "Das Parkhaus P1 erreichen Sie über die Ringstraße, Einfahrt Nord."
en = "Car park P1 is reached from Ringstraße, north entrance."

[[fact]]
id = "tropenhaus"
topic = "rooms"
de = "Das Tropenhaus im Innenhof ist Di bis So von 10 bis 16 Uhr geöffnet."
en = "The tropical house in the courtyard is open Tue to Sun from 10 am to 4 pm."

[[fact]]
id = "kino"
topic = "services"
de = "Im Kino auf Ebene 3 dürfen Speisen und Getränke von der Candy Bar mit in den Saal."
en = "In the cinema on level 3, food and drinks from the candy bar may go with you into the screen."

[[fact]]
id = "kontakt"
topic = "contacts"
de = "Centermanagement: Telefon 0571 48 39 20, info@lindenhof.de."
en = "Centre management: phone 0571 48 39 20, info@lindenhof.de."
"""


@pytest.fixture
def pack(pack_from):
    return pack_from(PACK)


@pytest.mark.parametrize("question, kind", [
    ("What's the phone number of the pharmacy?", "phone"),
    ("wie ist die telefonnummer vom centermanagement", "phone"),
    ("where can i charge my phone", ""),  # the phone is the thing, not a number asked for
    ("wie warm ist es im tropenhaus", "temperature"),
    ("was kostet das parken im parkhaus", "price"),
    ("how much does the car park cost", "price"),
    ("can i pay by card", ""),  # how to pay, not how much
    ("Kann man mit Karte zahlen?", ""),
    ("hat der zahnarzt am samstag auf", "hours"),
    ("is the tropical house open on sunday", "hours"),
    ("wie lange hebt ihr fundsachen auf", ""),  # "aufheben": how long, not opening
    ("what time is the last entry", ""),  # "30 minutes before closing" answers it
    ("Kann ich mein Kind auch per E-Mail anmelden?", ""),  # the way to register, not the address
    ("Wie ist eure E-Mail-Adresse?", "email"),
    ("can i book by phone", ""),
    ("Can I pay the fees in cash?", ""),  # how to pay, not how much
    ("how much are the fees", "price"),
    ("Wie lautet das WLAN-Passwort?", "password"),
])
def test_the_value_a_question_asks_for(question, kind):
    assert asked_value(question) == kind


@pytest.mark.parametrize("text, kind, held", [
    ("Telefon 0571 48 39 20", "phone", True),
    ("Die Apotheke ist im Erdgeschoss.", "phone", False),
    ("Sauna 90 °C, Dampfbad 45 Grad", "temperature", True),
    ("Parken 2 € / Std.", "price", True),
    ("Parken kostenlos", "price", True),
    ("Einfahrt Nord, Ringstraße", "price", False),
    ("Di–So 10–16 Uhr", "hours", True),
    ("mittwochs geschlossen", "hours", True),
    ("Ebene 2: Zahnarztpraxis Dr. Weiland", "hours", False),
])
def test_whether_a_text_holds_the_value(text, kind, held):
    assert holds_value(text, kind) is held


@pytest.mark.parametrize("question, lang, fact_id", [
    ("What's the phone number of the pharmacy?", "en", "apotheke"),
    ("Was kostet das Parken im Parkhaus?", "de", "parkhaus"),
    ("hat der zahnarzt am samstag auf", "de", "ebene2"),
])
def test_a_fact_without_the_asked_value_does_not_answer(pack, question, lang, fact_id):
    match = Retriever(pack).match(question, lang, 3)
    assert match.facts[0].id == fact_id, "the fact about the thing is still found first"
    assert match.lacks_value and not match.answers()
    assert RetrievalAnswerer(pack, load()).answer(question, lang).mood == "sorry"


@pytest.mark.parametrize("question, lang, fact_id", [
    ("wann hat das tropenhaus geöffnet", "de", "tropenhaus"),
    ("what's the phone number of the centre management", "en", "kontakt"),
    ("wo ist die linden apotheke", "de", "apotheke"),  # no value asked: the place
])
def test_a_fact_with_the_asked_value_still_answers(pack, question, lang, fact_id):
    answer = RetrievalAnswerer(pack, load()).answer(question, lang)
    assert answer.mood != "sorry" and answer.facts[0].id == fact_id, answer.reply


@pytest.mark.parametrize("question, lang, focus", [
    ("Can I bring my dog into the cinema?", "en", ("dog",)),
    ("darf ich meinen hund mit rein nehmen", "de", ("hund",)),  # speech recognition splits "reinnehmen"
    ("Darf ich meinen Hund mit in die Halle bringen?", "de", ("hund",)),
    ("are dogs allowed", "en", ("dogs",)),
    ("sind hunde erlaubt", "de", ("hunde",)),
    ("can i bring my tripod into the tropical house", "en", ("tripod",)),
])
def test_asking_whether_a_thing_may_come_asks_for_that_thing(question, lang, focus):
    assert asked_focus(question, lang) == focus


def test_a_fact_that_never_names_the_thing_brought_does_not_say_it_may_come(pack):
    answer = RetrievalAnswerer(pack, load()).answer("Can I bring my dog into the cinema?", "en")
    assert answer.mood == "sorry", answer.reply


def test_speech_recognitions_whats_is_no_word_the_pack_must_know(pack):
    match = Retriever(pack).match("whats the phone number of the centre management", "en", 3)
    assert "whats" not in match.unmatched and match.coverage == 1.0


ZOO = """
[venue]
name = "Tierpark Hollerbach"
name_en = "Hollerbach Zoo"
kind = "zoo"

[[fact]]
id = "zeiten"
topic = "hours"
de = "Mo–So 9–18 Uhr (Nov–Feb bis 16:30); letzter Einlass 1 Std. vor Schließung."
en = "Mon–Sun 9 am–6 pm (Nov–Feb until 4:30 pm); last entry 1 hr before closing."

[[fact]]
id = "saison"
topic = "hours"
de = "Der Streichelzoo ist nur von April bis Oktober da."
en = "The petting zoo is only there from April to October."

[[fact]]
id = "ebene2"
topic = "rooms"
de = "Im Eingangsgebäude: Zahnarztpraxis Dr. Weiland, Kiosk, WC."
en = "In the entrance building: Dr Weiland's dental practice, kiosk, toilets."
"""


@pytest.mark.parametrize("question, lang", [
    ("bis wann hat der zoo im winter auf", "de"),  # nothing but the venue and a season: its hours
    ("Wann macht ihr am Wochenende auf?", "de"),
    ("is the zoo open in winter", "en"),
])
def test_an_opening_question_about_the_venue_itself_gets_its_hours(pack_from, question, lang):
    answer = RetrievalAnswerer(pack_from(ZOO), load()).answer(question, lang)
    assert answer.mood != "sorry" and answer.facts[0].id == "zeiten", answer.reply


def test_an_opening_question_that_names_a_thing_is_not_the_venues_hours(pack_from):
    answer = RetrievalAnswerer(pack_from(ZOO), load()).answer("hat der zahnarzt am samstag auf", "de")
    assert answer.mood == "sorry", answer.reply


@pytest.mark.parametrize("question, focus", [
    ("Gibt es im Café auch glutenfreien Kuchen?", ("glutenfreien", "kuchen")),  # the place first, then "auch"
    ("verkauft ihr im hofladen auch fleisch", ("fleisch",)),
    ("gibt es im Lehrschwimmbecken eine Rutsche", ("rutsche",)),
    ("habt ihr auch schließfächer", ("schließfächer",)),
])
def test_a_german_question_naming_the_place_first_asks_for_the_thing_after_it(question, focus):
    assert asked_focus(question, "de") == focus
