"""Schema: the reply record is validated; a malformed one is reported, never patched."""
from avatar.answer.checks.candidate import Candidate
from avatar.answer.checks.schema import check_schema, text_language


def test_well_formed_record_passes():
    assert check_schema(Candidate("Das Café ist im 2. Stock.", "de", "info"), "de").ok
    assert check_schema(Candidate("Sorry, I don't know that. Please ask our staff!", "en", "sorry"), "en").ok


def test_each_malformation_is_named():
    cases = {
        "language": Candidate("The café is upstairs.", "fr", "info"),
        "differs": Candidate("Das Café ist oben.", "de", "info"),  # question was English
        "mood": Candidate("The café is upstairs.", "en", "angry"),
        "empty": Candidate("   ", "en", "info"),
        "special token": Candidate("The café is <mask> upstairs.", "en", "info"),
        "markup": Candidate("The **café** is upstairs.", "en", "info"),
        "end like a sentence": Candidate("The café is on the first", "en", "info"),
        "repeated": Candidate("The café is is is upstairs.", "en", "info"),
        "longer than": Candidate("word " * 80 + "end.", "en", "info"),
        "fragment": Candidate("The toilets are in the basement. d.", "en", "info"),
    }
    for needle, cand in cases.items():
        result = check_schema(cand, "en")
        assert not result.ok, needle
        assert any(needle in p for p in result.problems), (needle, result.problems)


def test_text_in_the_wrong_language_is_caught_despite_the_language_token():
    assert text_language("Das Café ist leider nicht im Erdgeschoss.") == "de"
    result = check_schema(Candidate("Das Café ist leider nicht im Erdgeschoss.", "en", "info"), "en")
    assert not result.ok and any("reads as de" in p for p in result.problems)


def test_short_interjection_needs_no_period_but_a_cut_off_reply_does():
    assert check_schema(Candidate("Ganz okay", "de", "happy"), "de").ok
    assert not check_schema(Candidate("Das kann ich", "de", "sorry"), "de").ok  # a decline cut short
    cut = Candidate("Das Café ist", "de", "info", decode_info={"stopped": "length"})
    assert "text does not end like a sentence" in check_schema(cut, "de").problems


def test_the_decoders_own_record_parse_is_trusted_when_it_says_malformed():
    cand = Candidate("Das Café ist im 2. Stock.", "de", "info", decode_info={"well_formed": False})
    assert not check_schema(cand, "de").ok


def test_a_doubled_word_is_a_decoder_loop_but_not_across_a_sentence_break():
    assert not check_schema(Candidate("Der Zug fährt fährt um 9 Uhr.", "de", "info"), "de").ok
    assert check_schema(Candidate("Thank you. You too.", "en", "happy"), "en").ok


def test_a_reply_that_switches_language_half_way_is_malformed():
    cand = Candidate("Geschichte ist der into another check the sonntags the batteries.", "de", "info")
    assert "text mixes German and English" in check_schema(cand, "de").problems


def test_initials_and_abbreviations_are_not_fragments():
    for text in ("Kinder zahlen z. B. nichts.", "Fragen Sie Dr. B. Weber.", "The guide is J. Smith."):
        assert check_schema(Candidate(text, "de" if "Kinder" in text or "Fragen" in text else "en", "info"),
                            "de" if "Kinder" in text or "Fragen" in text else "en").ok, text


def test_a_reply_needs_a_real_word_but_a_greeting_may_be_short():
    assert any("three letters" in p for p in check_schema(Candidate("id", "en", "neutral"), "en").problems)
    assert check_schema(Candidate("Hi!", "en", "happy"), "en").ok  # relevance decides whether it fits


def test_a_reply_of_only_a_pronoun_or_article_says_nothing():
    # the shipped model once answered "Muss ich eine Badekappe tragen?" with "Ich " and it was spoken
    for text, lang in (("Ich ", "de"), ("Das.", "de"), ("The", "en"), ("Ein.", "de")):
        result = check_schema(Candidate(text, lang, "neutral"), lang)
        assert not result.ok and "no content word" in result.problems, (text, result.problems)
    assert check_schema(Candidate("Gern geschehen!", "de", "happy"), "de").ok
