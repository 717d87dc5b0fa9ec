from avatar.answer.checks.lexicon import garbled_decline, unknown_pairs, unknown_words


def test_glued_subword_pieces_are_unknown_words():
    facts = ["The current special exhibition is called Light and Shadow."]
    assert unknown_words("The current special exhibitionoth is called Light.", facts) == ["exhibitionoth"]
    assert unknown_words("Fotografieren aktvatelewecke.", []) == ["aktvatelewecke"]


def test_words_from_the_facts_and_question_are_allowed():
    facts = ["The Zeppelinsaal is on the second floor."]
    assert unknown_words("The Zeppelinsaal is on the second floor.", facts) == []
    assert unknown_words("Guten Tag! Die Garderobe ist im Untergeschoss.", ["Wo ist die Garderobe?"]) == []


def test_a_decline_is_said_the_way_the_model_learned_it_or_not_at_all():
    assert garbled_decline("Sorry, in speak't know that.", "en")
    assert garbled_decline("Das kann ich leider Schließfach nicht Eingang sagen.", "de")
    assert not garbled_decline("I can't tell you that, sorry. Please ask at the information desk.", "en")
    assert not garbled_decline("Dazu habe ich leider keine Information. Unser Personal hilft Ihnen gern weiter.", "de")
    assert not garbled_decline("I'm sorry, I don't know that for certain here. Please ask our staff, "
                               "they will be happy to help.", "en")  # the fallback's own decline


def test_word_pairs_the_corpus_never_had_are_unknown_unless_the_facts_have_them():
    assert {"if is", "is help", "help is"} <= set(unknown_pairs("If is is help is.", ["We feel what is this."]))
    assert unknown_pairs("Am Sonntag haben wir von 11:00 bis bis 20:00 Uhr geöffnet.", []) == ["bis bis"]
    assert unknown_pairs("Die Garderobe ist im Untergeschoss.", ["Wo ist die Garderobe?"]) == []
    fact = "Last entry is half an hour before closing time."
    assert unknown_pairs(fact, [fact]) == []  # said as the fact says it
    assert unknown_pairs("Admission is 9 € for adults.", []) == []  # numbers stand as one kind of word


def test_a_model_without_checks_tables_skips_those_checks_with_one_log_line(tmp_path, caplog):
    import logging

    from avatar.answer.checks.common_words import small_talk_nouns_de
    from avatar.model_contract import use_model_folder

    use_model_folder(tmp_path)  # a model this project did not train: no checks_tables.json.gz
    with caplog.at_level(logging.WARNING, logger="avatar.model_contract"):
        assert unknown_words("The current special exhibitionoth is called Light.", []) == []
        assert unknown_pairs("If is is help is.", []) == []
        assert not garbled_decline("Sorry, in speak't know that.", "en")
        assert small_talk_nouns_de() == frozenset()
    assert len([r for r in caplog.records if "checks_tables" in r.getMessage()]) == 1
