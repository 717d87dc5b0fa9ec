"""Lexicon check: every word of a reply is a word the model learned to say, or stands in the facts
or the question. Parallel decoding can glue sub-word pieces into words that do not exist
("exhibitionoth", "aktvatelewecke"); such a reply is re-decoded or replaced, never spoken."""
from __future__ import annotations

import re
from typing import Iterable

from avatar.model_contract import checks_tables

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def words_of(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def corpus_lexicon() -> frozenset[str]:
    """The words of the training corpus's replies, questions, facts and small talk, as the model
    folder's checks tables hold them (written at ship time: tools/avatar_dev/train/tables.py); empty when the
    model brought none (a model this project did not train): the lexicon check then passes all."""
    tables = checks_tables()
    return tables.words if tables is not None else frozenset()


_TOKEN = re.compile(r"[^\W\d_]+|\d+(?:[.,:]\d+)*", re.UNICODE)


def word_pairs(text: str) -> list[tuple[str, str]]:
    """Adjacent words of a text, lower case, every number as "#" (punctuation does not separate)."""
    tokens = ["#" if t[0].isdigit() else t.lower() for t in _TOKEN.findall(text)]
    return list(zip(tokens, tokens[1:]))


def corpus_pairs() -> frozenset[tuple[str, str]]:
    """The word pairs of the training corpus (replies, questions, facts, small talk); empty without tables."""
    tables = checks_tables()
    return tables.pairs if tables is not None else frozenset()


def familiarity(text: str) -> float | None:
    """The share of the text's adjacent word pairs that the model saw in training (the checks
    tables' pairs): how much a fact reads like what the model learned to phrase. None without the
    tables (a model this project did not train: nothing is known of its training)."""
    known = corpus_pairs()
    if not known:
        return None
    pairs = word_pairs(text)
    return sum(p in known for p in pairs) / len(pairs) if pairs else 1.0


def unknown_pairs(reply: str, context: Iterable[str]) -> list[str]:
    """Adjacent word pairs of the reply found neither in the corpus nor in the context: words the
    model strung together in an order it never saw ("If is is help is"). None without the tables."""
    known = corpus_pairs()
    if not known:
        return []
    allowed = {p for text in context for p in word_pairs(text)}
    return [f"{a} {b}" for a, b in word_pairs(reply) if (a, b) not in known and (a, b) not in allowed]


def unknown_words(reply: str, context: Iterable[str]) -> list[str]:
    """Words of the reply (3+ letters) found neither in the corpus lexicon nor in the context (none
    without the tables)."""
    lexicon = corpus_lexicon()
    if not lexicon:
        return []
    allowed = {w for text in context for w in words_of(text)}
    return [w for w in words_of(reply) if len(w) > 2 and w not in lexicon and w not in allowed]


def decline_words(lang: str) -> frozenset[str]:
    """The words of the declines the model learned (the checks tables' decline words) and the
    fallback's; empty when the model folder has no tables."""
    tables = checks_tables()
    if tables is None or not tables.decline_words:
        return frozenset()
    from avatar.answer.checks.fallback import NOT_KNOWN

    lang = lang if lang in tables.decline_words else "en"
    return tables.decline_words[lang] | frozenset(words_of(NOT_KNOWN[lang if lang in NOT_KNOWN else "en"]))


def garbled_decline(reply: str, lang: str, min_share: float = 0.85) -> bool:
    """A "sorry" reply is a decline, and the model learned only a few ways to say one: a reply with
    that mood made mostly of other words ("Sorry, in speak't know that.") is garbled."""
    words = words_of(reply)
    if not words:
        return False
    known = decline_words(lang)
    if not known:  # no tables: the model's own declines are not known, the check is skipped
        return False
    return sum(w in known for w in words) / len(words) < min_share
