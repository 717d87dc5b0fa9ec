"""Banned strings become banned token ids only where the facts do not need the token."""
from avatar.answer.checks.bans import banned_token_ids


def encode(text):  # a character-level stand-in for a tokenizer that splits digits one by one
    return [ord(ch) for ch in text]


def test_only_tokens_the_facts_never_use_are_banned():
    ids = banned_token_ids({"17:00", "17"}, encode, ["Open until 18:00."])
    assert ids == {ord("7")}


def test_a_wrong_value_made_of_fact_tokens_bans_nothing_and_specials_are_kept():
    assert banned_token_ids({"81"}, encode, ["Open until 18:00."]) == frozenset()
    assert banned_token_ids({"<x>"}, encode, [], keep=[ord("<"), ord(">")]) == {ord("x")}
