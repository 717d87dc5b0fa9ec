"""Lexicon check: every word of a reply is a word the model learned to say, or stands in the facts
or the question. Parallel decoding can glue sub-word pieces into words that do not exist
("exhibitionoth", "aktvatelewecke"); such a reply is re-decoded or replaced, never spoken."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
LEXICON_EXAMPLES = 20000  # replies of the training stream the lexicon is read from (~1.5 s, once)


def words_of(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def corpus_lexicon() -> frozenset[str]:
    """The words of the training corpus's replies, questions and facts (train seeds, deterministic)."""
    return _corpus_tables()[0]


_TOKEN = re.compile(r"[^\W\d_]+|\d+(?:[.,:]\d+)*", re.UNICODE)


def word_pairs(text: str) -> list[tuple[str, str]]:
    """Adjacent words of a text, lower case, every number as "#" (punctuation does not separate)."""
    tokens = ["#" if t[0].isdigit() else t.lower() for t in _TOKEN.findall(text)]
    return list(zip(tokens, tokens[1:]))


def corpus_pairs() -> frozenset[tuple[str, str]]:
    """The word pairs of the training corpus (replies, questions, facts, small talk)."""
    return _corpus_tables()[1]


@lru_cache(maxsize=1)
def _corpus_tables() -> tuple[frozenset[str], frozenset[tuple[str, str]]]:
    """Words and adjacent word pairs of the corpus, read in one pass (~3 s, once at warm-up)."""
    from avatar.train.corpus import STYLED_SHARE, examples, small_talk_pairs, take

    texts = [t for ex in take(examples(0, styled_share=STYLED_SHARE), LEXICON_EXAMPLES) for t in (ex.reply, ex.question, *ex.facts)]
    # rare small-talk words: all of them, not a sample
    texts += [t for pairs in small_talk_pairs().values() for pair in pairs for t in pair]
    words: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    for text in texts:
        words.update(words_of(text))
        pairs.update(word_pairs(text))
    return frozenset(words), frozenset(pairs)


def unknown_pairs(reply: str, context: Iterable[str]) -> list[str]:
    """Adjacent word pairs of the reply found neither in the corpus nor in the context: words the
    model strung together in an order it never saw ("If is is help is")."""
    known = corpus_pairs()
    allowed = {p for text in context for p in word_pairs(text)}
    return [f"{a} {b}" for a, b in word_pairs(reply) if (a, b) not in known and (a, b) not in allowed]


def unknown_words(reply: str, context: Iterable[str]) -> list[str]:
    """Words of the reply (3+ letters) found neither in the corpus lexicon nor in the context."""
    lexicon = corpus_lexicon()
    allowed = {w for text in context for w in words_of(text)}
    return [w for w in words_of(reply) if len(w) > 2 and w not in lexicon and w not in allowed]


@lru_cache(maxsize=2)
def decline_words(lang: str) -> frozenset[str]:
    """The words of the declines the model learned (the corpus's "sorry" replies) and the fallback's."""
    from avatar.answer.checks.fallback import NOT_KNOWN
    from avatar.train.corpus import DECLINE

    lang = lang if lang in DECLINE else "en"
    return frozenset(w for text in [*DECLINE[lang], NOT_KNOWN[lang]] for w in words_of(text))


def garbled_decline(reply: str, lang: str, min_share: float = 0.85) -> bool:
    """A "sorry" reply is a decline, and the model learned only a few ways to say one: a reply with
    that mood made mostly of other words ("Sorry, in speak't know that.") is garbled."""
    words = words_of(reply)
    if not words:
        return False
    known = decline_words(lang)
    return sum(w in known for w in words) / len(words) < min_share
