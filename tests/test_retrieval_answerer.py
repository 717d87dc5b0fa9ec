"""Retrieval over the sample pack: ASR-style questions find the right fact; unknown ones are declined."""
from datetime import date

import pytest

from avatar import config
from avatar.answer.base import HistoryTurn
from avatar.answer.knowledge import load_pack
from avatar.answer.retrieval import Retriever
from avatar.answer.retrieval_answerer import RetrievalAnswerer, smalltalk_kind
from avatar.answer.text import detect_language
from avatar.paths import ROOT
from avatar.trace import Tracer

SAMPLE = ROOT / "assets" / "venues" / "sample"
TUESDAY = date(2026, 12, 1)

GERMAN = [
    ("wann hat das museum geöffnet", "hours-week"),
    ("habt ihr heute offen", "hours-today"),
    ("was kostet der eintritt", "price-adult"),
    ("gibt es eine ermäßigung für studenten", "price-reduced"),
    ("wo sind die toiletten", "toilets"),
    ("wo kann ich meine jacke abgeben", "cloakroom"),
    ("gibt es einen garderobenschrank", "cloakroom"),  # compound the pack never spells
    ("darf man hier fotografieren", "photography"),
    ("wie komme ich vom bahnhof zum museum", "from-station"),
    ("bis wann ist das café offen", "cafe"),
    ("was ist die aktuelle sonderausstellung", "special-exhibition"),
    ("ist das museum barrierefrei", "accessibility"),
    ("kann ich mit karte bezahlen", "payment"),
    ("dürfen hunde mit rein", "dogs"),
    ("wie teuer ist die familienkarte", "price-family"),
]
ENGLISH = [
    ("when is the museum open", "hours-week"),
    ("are you open today", "hours-today"),
    ("how much is a ticket", "price-adult"),
    ("where are the toilets", "toilets"),
    ("where can i leave my coat", "cloakroom"),
    ("can i take pictures", "photography"),
    ("what time does the cafe close", "cafe"),
    ("how do i get here from the train station", "from-station"),
    ("what is the current exhibition", "special-exhibition"),
    ("do you have wifi", "wifi"),
    ("is there a discount for students", "price-reduced"),
    ("can i bring my dog", "dogs"),
    ("where can i park my car", "parking"),
    ("do children have to pay", "price-children"),
    ("what are your opening hours", "hours-week"),
]
UNKNOWN = [
    ("de", "wie wird das wetter morgen"),
    ("de", "was ist die hauptstadt von frankreich"),
    ("de", "was für wetter hat es in new york"),  # "new" is a keyword of the exhibition
    ("en", "who won the football game yesterday"),
    ("en", "can you recommend a good hotel"),
    ("en", "is the front door locked"),  # "front" is in the parking fact
]


@pytest.fixture(scope="module")
def pack():
    return load_pack(SAMPLE)


@pytest.fixture(scope="module")
def retriever(pack):
    return Retriever(pack)


@pytest.fixture(scope="module")
def answerer(pack):
    return RetrievalAnswerer(pack, config.load(env={}))


@pytest.mark.parametrize("question, fact_id", GERMAN)
def test_german_asr_style_questions_find_the_right_fact(retriever, question, fact_id):
    facts = retriever.retrieve(question, "de", 3, today=TUESDAY)
    assert facts and facts[0].id == fact_id, [(f.id, f.score) for f in facts]
    assert facts[0].lang == "de"


@pytest.mark.parametrize("question, fact_id", ENGLISH)
def test_english_asr_style_questions_find_the_right_fact(retriever, question, fact_id):
    facts = retriever.retrieve(question, "en", 3, today=TUESDAY)
    assert facts and facts[0].id == fact_id, [(f.id, f.score) for f in facts]
    assert facts[0].lang == "en"


def test_scores_are_sorted_and_punctuation_does_not_matter(retriever):
    typed = retriever.retrieve("Wo sind die Toiletten?", "de", 3, today=TUESDAY)
    spoken = retriever.retrieve("wo sind die toiletten", "de", 3, today=TUESDAY)
    assert [f.id for f in typed] == [f.id for f in spoken]
    scores = [f.score for f in typed]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0


def test_answer_says_the_best_fact_in_the_question_language(answerer):
    answer = answerer.answer("where are the toilets", "en")
    assert answer.source == "retrieval"
    assert answer.reply.startswith("The toilets are in the basement")
    assert answer.facts[0].id == "toilets" and answer.lang == "en"
    assert answer.checks.retrieval["declined"] is False


@pytest.mark.parametrize("lang, question", UNKNOWN)
def test_unknown_question_declines_and_points_to_staff_in_the_visitors_language(answerer, lang, question):
    answer = answerer.answer(question, lang)
    assert answer.checks.retrieval["declined"] is True
    if lang == "de":
        assert "weiß ich leider nicht" in answer.reply and "Personal an der Kasse" in answer.reply
    else:
        assert "don't know" in answer.reply and "staff at the ticket desk" in answer.reply


@pytest.mark.parametrize("question, lang, kind", [
    ("hallo", "de", "greeting"), ("guten morgen", "de", "greeting"), ("vielen dank", "de", "thanks"),
    ("tschüss", "de", "goodbye"), ("hello there", "en", "greeting"), ("thank you", "en", "thanks"),
    ("bye bye", "en", "goodbye"), ("wie geht's", "de", "how_are_you"),
])
def test_small_talk_gets_a_short_reply_in_the_same_language(answerer, question, lang, kind):
    assert smalltalk_kind(question) == kind
    answer = answerer.answer(question, lang)
    assert answer.checks.to_dict() == {"smalltalk": kind}
    assert answer.lang == lang and len(answer.reply) < 120 and answer.facts == []


def test_a_greeting_with_a_question_is_answered_as_a_question(answerer):
    answer = answerer.answer("hallo wo sind die toiletten", "de")
    assert answer.facts and answer.facts[0].id == "toilets"


def test_short_follow_up_is_read_with_the_previous_question(answerer):
    history = [HistoryTurn("was kostet der eintritt", "Der Eintritt kostet 9 € für Erwachsene.", "de")]
    answer = answerer.answer("und für kinder", "de", history)
    assert answer.facts[0].id == "price-children"
    assert answer.checks.retrieval["followup"] is True


def test_auto_language_and_retrieval_span(pack):
    tracer = Tracer()
    answerer = RetrievalAnswerer(pack, config.load(env={}), tracer)
    answer = answerer.answer("Where is the lift?", "auto", turn=7)
    assert answer.lang == "en" and answer.facts[0].id == "lift"
    spans = tracer.spans(7)
    assert [s.name for s in spans] == ["retrieval"] and spans[0].track == "answer"


@pytest.mark.parametrize("text, lang", [
    ("Wo ist die Toilette?", "de"), ("Where is the toilet?", "en"), ("Was kostet der Eintritt", "de"),
    ("how much is a ticket", "en"), ("Gibt es hier ein Café?", "de"), ("Is there a café here?", "en"),
    ("Danke schön", "de"), ("Thank you", "en"), ("Öffnungszeiten", "de"), ("opening hours today", "en"),
    ("Kann ich mit Karte zahlen", "de"), ("can I pay by card", "en"),
])
def test_language_detector_on_short_sentences(text, lang):
    assert detect_language(text) == lang


@pytest.mark.parametrize("question, lang", [
    ("wie spät ist es", "de"), ("welches datum ist heute", "de"), ("what time is it", "en"), ("what's the date", "en"),
])
def test_clock_questions_are_answered_from_the_clock_not_the_opening_hours(answerer, question, lang):
    answer = answerer.answer(question, lang)
    assert answer.checks.to_dict() == {"smalltalk": "clock"} and answer.facts == []
    assert answer.reply.startswith("Es ist" if lang == "de" else "It is")


def test_a_new_short_question_is_not_mixed_with_the_previous_one(answerer):
    history = [HistoryTurn("where are the toilets", "The toilets are in the basement.", "en")]
    answer = answerer.answer("is there a cafe", "en", history)
    assert answer.facts[0].id == "cafe" and answer.checks.retrieval["followup"] is False


# Written before the last tuning round and never tuned on: the floor guards against regressions.
# At the time of writing 32 of 34 were right (two mix up the café and the food rule).
HELD_OUT = [
    ("de", "muss ich für mein kind bezahlen", "price-children"),
    ("de", "wie viel kostet eine führung", "tours"),
    ("de", "wo kann ich etwas trinken", "cafe"),
    ("de", "gibt es schließfächer", "cloakroom"),
    ("de", "habt ihr wlan", "wifi"),
    ("de", "wo ist die sonderausstellung", "floor-second"),
    ("de", "wann ist die lange nacht der museen", "museum-night"),
    ("de", "welche straßenbahn fährt zum museum", "tram"),
    ("de", "wo kann ich mein fahrrad abstellen", "parking"),
    ("de", "gibt es einen audioguide auf englisch", "audioguide"),
    ("de", "kann ich hier einen rollstuhl ausleihen", "accessibility"),
    ("de", "darf ich mit blitz fotografieren", "photography"),
    ("de", "wo ist der museumsshop", "shop"),
    ("de", "wie ist die telefonnummer", "phone"),
    ("de", "ich habe meine brille verloren", "lost-found"),
    ("en", "how long does a visit take", "visit-duration"),
    ("en", "is there a lift", "lift"),
    ("en", "what is the wifi password", "wifi"),
    ("en", "do you sell postcards", "shop"),
    ("en", "is admission free on sundays", "free-sunday"),
    ("en", "where is the exhibition about city history", "floor-first"),
    ("en", "can i eat my sandwich here", "food-rule"),
    ("en", "what events are there this week", "lecture"),
    ("en", "is there a baby changing room", "strollers"),
    ("en", "how much is the reduced ticket", "price-reduced"),
    ("en", "i lost my phone", "lost-found"),
    ("en", "when was the museum founded", "about"),
    ("en", "do you have an annual pass", "annual-pass"),
    ("en", "how do i get there by tram", "tram"),
    ("en", "what time is the last entry", "last-entry"),
    ("de", "wer hat den zweiten weltkrieg gewonnen", "-"),
    ("en", "what is the meaning of life", "-"),
    ("de", "kannst du mir ein taxi rufen", "-"),
    ("en", "tell me a joke", "-"),
]


def test_held_out_questions_stay_above_an_accuracy_floor(answerer):
    right = 0
    for lang, question, want in HELD_OUT:
        answer = answerer.answer(question, lang)
        got = "-" if answer.checks.retrieval["declined"] else answer.facts[0].id
        right += got == want
    assert right >= 30, f"{right}/{len(HELD_OUT)}"
