"""Operators abbreviate: German compounds that share their last part ("Geburts-, Ehe- oder
Sterbeurkunde") and signage words ("Tel.", "Std.", "1. OG"); a visitor asks for the whole word ("Was
kostet eine Geburtsurkunde?", "Wie ist die Telefonnummer?")."""
import pytest

from avatar.answer.retrieval.signage import written_out
from avatar.answer.retrieval_answerer import RetrievalAnswerer
from avatar.config import load


@pytest.mark.parametrize("text, words", [
    ("Gebühren: Geburts-, Ehe- oder Sterbeurkunde 12,00 €", "Geburtsurkunde Eheurkunde"),
    ("Kinder- und Jugendbücher im EG", "Erdgeschoss Kinderbücher"),
    ("Ein- und Ausgang links", "Eingang"),
    ("Der Eintritt kostet 9 €.", ""),
    ("Ein Ausweis- oder Passfoto mitbringen", "Ausweisfoto"),
    ("Preise inkl. MwSt. - Änderungen vorbehalten", "inklusive"),  # a dash between words is no shortened compound
])
def test_suspended_compounds_are_written_out(text, words):
    assert written_out(text, "de") == words


def test_english_text_gets_nothing_added():
    assert written_out("Birth, marriage or death certificate 12.00 €", "en") == ""


@pytest.mark.parametrize("lang, text, words", [
    ("de", "Kontakt: Tel. 04521 70 63-0; E-Mail info@example.de", "Telefon Telefonnummer"),
    ("de", "Fahrräder 2 € / Std., tgl. 9–18 Uhr", "Stunde Stunden täglich"),
    ("de", "Garderobe im 1. OG, Toiletten im UG", "Obergeschoss Stock Untergeschoss Keller"),
    ("de", "Der Zug zum Hbf. fährt stündlich", "Hauptbahnhof"),
    ("de", "Die Tel-Nummer steht im Flyer; Std ohne Punkt", ""),  # an abbreviation needs its dot
    ("de", "Das Museum ist og und eg", ""),  # floors only in capitals
    ("en", "Contact: tel. 0123 456; approx. 20 mins.", "telephone phone approximately minutes"),
])
def test_signage_abbreviations_are_written_out(lang, text, words):
    assert written_out(text, lang) == words


PACK = """
[venue]
name = "Standesamt Lindau"
name_en = "Lindau registry office"
kind = "registry office"

[[fact]]
id = "gebuehren"
topic = "prices"
de = "Gebühren: Geburts-, Ehe- oder Sterbeurkunde je 12,00 €; jede weitere Ausfertigung 6,00 €."
en = "Fees: birth, marriage or death certificate 12.00 € each; every further copy 6.00 €."

[[fact]]
id = "trauung"
topic = "services"
de = "Trauungen im Trauzimmer des Rathauses dienstags bis freitags; das Standesamt ist im Zimmer 104."
en = "Weddings in the town hall's wedding room Tuesday to Friday, notice of marriage in room 104."

[[fact]]
id = "geburt"
topic = "services"
de = "Die Geburt eines Kindes ist innerhalb einer Woche anzuzeigen; drei Geburtsurkunden sind gebührenfrei."
en = "A birth must be registered within one week; three birth certificates are free of charge."

[[fact]]
id = "anschrift"
topic = "directions"
de = "Sie finden uns im Alten Rathaus, Marktplatz 5, 88131 Lindau."
en = "You will find us in the old town hall, Marktplatz 5, 88131 Lindau."

[[fact]]
id = "parken"
topic = "directions"
de = "Parkplätze gibt es am Marktplatz, die erste Stunde ist frei."
en = "Parking is on the market square, the first hour is free."
"""


def test_a_telephone_number_written_tel_answers_a_question_for_it(pack_from):
    contact = PACK + """
[[fact]]
id = "kontakt"
topic = "contacts"
de = "Kontakt: Tel. 08382 918-0; E-Mail standesamt@lindau.example; Leitung: Frau Brehm."
en = "Contact: tel. 08382 918-0; e-mail standesamt@lindau.example; head: Ms Brehm."
"""
    answerer = RetrievalAnswerer(pack_from(contact), load(None, ["answer.semantic_weight=0", "answer.min_score=0.5"],
                                                          env={}))
    ans = answerer.answer("Wie ist die Telefonnummer?", "de")
    assert ans.facts[0].id == "kontakt" and "918-0" in ans.reply, ans.reply


def test_a_whole_compound_finds_the_fact_that_shortens_it(pack_from):
    # four facts give BM25 little to go on: a low threshold, so that only the words decide
    answerer = RetrievalAnswerer(pack_from(PACK), load(None, ["answer.semantic_weight=0", "answer.min_score=0.5"],
                                                       env={}))
    ans = answerer.answer("Was kostet eine Geburtsurkunde?", "de")
    assert ans.facts[0].id == "gebuehren" and "12,00" in ans.reply


@pytest.mark.parametrize("word, infinitive", [("anzumelden", "anmelden"), ("abzugeben", "abgeben"),
                                              ("auszuleihen", "ausleihen"), ("aufzuhören", "aufhören"),
                                              ("zuzahlen", "zuzahlen"), ("anzeigen", "anzeigen"), ("anzug", "anzug")])
def test_a_particle_verbs_zu_form_is_searched_as_its_infinitive(word, infinitive):
    from avatar.answer.retrieval.words import _infinitive, analyze

    assert _infinitive(word) == infinitive
    if word != infinitive:
        assert analyze(word, "de") == analyze(infinitive, "de")


def test_a_linking_s_heard_as_a_word_joins_the_compound(pack_from):
    from datetime import date

    from avatar.answer.retrieval import Retriever
    from avatar.answer.retrieval.index import _join_split_compounds

    index = Retriever(pack_from(PACK))._index("de", date.today())
    assert _join_split_compounds("wo ist hier das stand es amt", "de", index) == "wo ist hier das standesamt"
    assert _join_split_compounds("gibt es eine parkplatz es uhr", "de", index) == "gibt es eine parkplatz es uhr"


def test_the_venue_split_by_speech_recognition_is_still_the_venue(pack_from):
    answerer = RetrievalAnswerer(pack_from(PACK), load(None, ["answer.semantic_weight=0"], env={}))
    assert "Marktplatz 5" in answerer.answer("wo ist hier das stand es amt", "de").reply
