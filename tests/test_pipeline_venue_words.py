"""The pipeline hands the recognizer the venue's words and the previous turn's language (issue 12, item 5)."""
from __future__ import annotations

from pathlib import Path

from avatar import config
from avatar.answer.knowledge import load_pack
from avatar.pipeline.build import give_venue_words
from avatar.pipeline.venue_words import keyword_languages, venue_words

from fakes import END, SPEECH, TENTATIVE, FakeASR, FakeTTS
from test_pipeline_loop import make_loop

SAMPLE = Path(__file__).resolve().parents[1] / "assets" / "venues" / "sample"


def test_sample_pack_words_per_language_names_first():
    words = venue_words(load_pack(SAMPLE))
    de, en = words["de"], words["en"]
    assert de[0] == "Stadtmuseum Lindenau" and en[0] == "Lindenau City Museum"
    for name in ("Marktplatz", "Bahnhofstraße", "Parkhaus Altstadt", "Schillerstraße"):  # in both sentences
        assert name in de[:10] and name in en[:10]
    assert {"Garderobe", "Führung", "Audioguide", "Sonderausstellung"} <= set(de)
    assert {"cloakroom", "tour", "exhibition", "wheelchair"} <= set(en)
    assert not {"Garderobe", "Einlass", "Führung"} & set(en) and not {"cloakroom", "wheelchair"} & set(de)
    assert len(de) == len({w.casefold() for w in de})
    # one keyword of each fact before any fact's second: the cap keeps every topic
    assert de.index("Garderobe") < de.index("Weihnachten") and en.index("cloakroom") < en.index("Christmas")


def test_keyword_language_from_the_sentences_then_the_neighbours():
    assert keyword_languages(["Garderobe", "Jacke", "Mantel", "coat", "jacket", "cloakroom"],
                             "Die Garderobe ist kostenlos.", "The cloakroom is free of charge.") == \
        ["de", "de", "de", "en", "en", "en"]
    # in no sentence: the list's blocks, split by the look of the words (German noun, German verb)
    assert keyword_languages(["Rollstuhl", "abgeben", "wheelchair", "drop"], "", "") == ["de", "de", "en", "en"]
    assert keyword_languages(["Schließfach", "locker"], "", "") == ["de", "en"]  # a German letter
    # operators group keywords by language: a German word at the end of its block stays German
    assert keyword_languages(["Feiertag", "Ostern", "holiday", "Easter"], "An Feiertagen", "On holidays") == \
        ["de", "de", "en", "en"]


class Vocal:
    def __init__(self):
        self.vocabulary = None

    def set_vocabulary(self, words):
        self.vocabulary = words


class HasPack:
    pack = load_pack(SAMPLE)


def test_pipeline_gives_the_answerers_pack_to_the_recognizer_unless_switched_off():
    cfg = config.load(sets=["asr.venue_prompt=true"], env={})
    asr = Vocal()
    give_venue_words(asr, cfg, None, object(), HasPack())
    assert asr.vocabulary["de"][0] == "Stadtmuseum Lindenau" and set(asr.vocabulary) == {"de", "en"}
    asr = Vocal()
    give_venue_words(asr, cfg, None)  # no answerer with a pack: the configured pack is read
    assert asr.vocabulary["en"][0] == "Lindenau City Museum"
    asr = Vocal()
    give_venue_words(asr, cfg.with_overrides({"asr.venue_prompt": False}), None, HasPack())
    assert asr.vocabulary is None
    give_venue_words(object(), cfg, None, HasPack())  # a recognizer without a vocabulary is left alone


def test_previous_turn_language_is_the_prior_of_the_next_turn():
    asr = FakeASR(text="where is the cloakroom", lang="en")
    loop, rec = make_loop([(0.1, SPEECH), (0.6, TENTATIVE), (0.8, END), (2.0, SPEECH), (2.5, TENTATIVE),
                           (2.7, END)], 4.0, asr=asr, tts=FakeTTS(clause_seconds=0.2))
    loop.run_until_done(timeout=20)
    assert asr.priors[0] is None and asr.priors[-1] == "en"


def test_visitor_choice_is_the_prior_and_a_new_visitor_starts_without_one():
    asr = FakeASR(text="wo ist die Garderobe", lang="de")
    loop, rec = make_loop([(0.1, SPEECH), (0.6, TENTATIVE), (0.8, END)], 3.5, asr=asr,
                          tts=FakeTTS(clause_seconds=0.2), sets=["pipeline.visitor_timeout_s=1.0"])
    loop.set_language("en")
    loop.set_language("auto")  # the visitor went back to auto: their choice still leans the short ones
    assert loop._prior() == "en"
    loop.run_until_done(timeout=20)
    assert asr.priors[0] == "en"
    assert loop.history == [] and loop._prior() is None  # left: the next visitor starts afresh
