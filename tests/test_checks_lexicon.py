from avatar.answer.checks.lexicon import unknown_words


def test_glued_subword_pieces_are_unknown_words():
    facts = ["The current special exhibition is called Light and Shadow."]
    assert unknown_words("The current special exhibitionoth is called Light.", facts) == ["exhibitionoth"]
    assert unknown_words("Fotografieren aktvatelewecke.", []) == ["aktvatelewecke"]


def test_words_from_the_facts_and_question_are_allowed():
    facts = ["The Zeppelinsaal is on the second floor."]
    assert unknown_words("The Zeppelinsaal is on the second floor.", facts) == []
    assert unknown_words("Guten Tag! Die Garderobe ist im Untergeschoss.", ["Wo ist die Garderobe?"]) == []
