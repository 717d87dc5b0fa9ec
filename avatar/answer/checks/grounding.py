"""Grounding check: every number, time, date, price, floor, room and name of a reply is backed by a fact.

Items are compared after normalisation (content.py). Numbers, times and prices are backed only by
the facts, never by the question: "Is it open until 17:00?" must not let a reply say 17:00.

The name rule: a capitalised word that does not open a sentence is a name candidate; it is backed
when its stem (or the word itself, as part of a compound) appears in the facts or the question, or
when it is one of the common words of common_words.py (German capitalises every noun, and the
kiosk's own templates use a few; German small-talk nouns are read from the chatterbot corpus).
A sentence-initial name is not seen (a known gap). A unit-less number in a fact backs the same
value with a unit only if that fact states values of that kind ("9 bis 17:30 Uhr" backs "9:00"),
and "18:00" backs a bare "6" or "18".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from avatar.answer.base import Fact
from avatar.answer.checks.common_words import common_words
from avatar.answer.checks.content import ContentItem, extract
from avatar.answer.checks.stems import stem as _stem
from avatar.trace import now

_WORD = re.compile(r"[\wÄÖÜäöüß]+")


@dataclass
class GroundingResult:
    ok: bool
    unsupported: list[str]  # the surfaces of the unbacked items, as the reply wrote them
    ms: float
    items: list[ContentItem] = field(default_factory=list)
    unsupported_items: list[ContentItem] = field(default_factory=list)


@lru_cache(maxsize=4)
def _common_stems(lang: str) -> frozenset[str]:
    return frozenset(_stem(w, lang) for w in common_words(lang))


@lru_cache(maxsize=1024)
def _support(fact_texts: tuple[str, ...], question: str, lang: str) -> "FactSupport":
    return FactSupport(fact_texts, question, lang)


class FactSupport:
    """What the retrieved facts (and, for names only, the question) can back, normalised once per turn."""

    def __init__(self, fact_texts: Sequence[str], question: str, lang: str):
        self.keys: set[str] = set()
        self.numbers: set[float] = set()      # every number any fact item stands for
        # unit-less numbers by the kinds their fact states ("von 9 bis 5 pm": a bare 9 among times)
        self.bare_numbers: dict[str, set[float]] = {}
        for text in fact_texts:
            items = extract(text, lang).items
            bare = {round(n, 2) for i in items if i.kind == "number" for n in i.numbers}
            for item in items:
                self.keys |= item.support_keys
                self.numbers |= {round(n, 2) for n in item.numbers}
                self.bare_numbers.setdefault(item.kind, set()).update(bare)
        words_text = " ".join(fact_texts) + " " + question
        self.text_lower = words_text.lower()
        self.stems = {_stem(w, lang) for w in _WORD.findall(words_text)}
        self.common = common_words(lang)
        self.common_stems = _common_stems(lang)
        self.lang = lang

    def backs(self, item: ContentItem) -> bool:
        if item.keys & self.keys:
            return True
        numbers = {round(n, 2) for n in item.numbers}
        if item.kind == "number":
            return bool(numbers & self.numbers)
        # a unit-less number may back the same value with a unit, if its fact states that kind of
        # value at all ("9 bis 17:30 Uhr"); the 13 of "Uferstraße 13" never backs "13:00"
        return bool(numbers & self.bare_numbers.get(item.kind, set()))

    def backs_name(self, word: str) -> bool:
        parts = [p for p in re.split(r"[-'’]", word) if p]
        return all(self._backs_word(p) for p in parts) if parts else True

    def _backs_word(self, word: str) -> bool:
        low = word.lower()
        stem = _stem(word, self.lang)
        return (low in self.common or stem in self.common_stems or stem in self.stems
                or (len(low) >= 4 and low in self.text_lower))


def check_grounding(reply: str, lang: str, facts: Sequence[Fact], question: str = "") -> GroundingResult:
    """Which content items of `reply` no fact backs; ok when there are none."""
    t0 = now()
    support = _support(tuple(f.text for f in facts), question, lang)
    content = extract(reply, lang)
    unsupported_items = [i for i in content.items if not support.backs(i)]
    unsupported = [i.surface for i in unsupported_items]
    seen = set(unsupported)
    for name in content.names:
        if not support.backs_name(name) and name not in seen:
            seen.add(name)
            unsupported.append(name)
            unsupported_items.append(ContentItem("name", (name.lower(),), name))
    return GroundingResult(not unsupported, unsupported, (now() - t0) * 1000.0, list(content.items),
                           unsupported_items)


def banned_strings(result: GroundingResult, facts: Sequence[Fact]) -> frozenset[str]:
    """What a re-decode must not write: each unbacked surface, plus its digit groups that no fact uses.

    Banning the bare digits too stops the decoder from writing the same wrong value another way
    ("17:00" -> "17 Uhr"); digits a fact uses, as written or normalised ("00" of "18 Uhr" = 18:00),
    stay allowed.
    """
    lang = facts[0].lang if facts else "en"
    normalised = " ".join(v for f in facts for i in extract(f.text, f.lang or lang).items for v in i.values)
    fact_digits = set(re.findall(r"\d+", " ".join(f.text for f in facts) + " " + normalised))
    banned: set[str] = set()
    for item in result.unsupported_items:
        banned.add(item.surface)
        banned |= {d for d in re.findall(r"\d+", item.surface) if d not in fact_digits}
    return frozenset(b for b in banned if b.strip())


def warmup(langs=("de", "en")) -> None:
    """Stem the common words, compile the patterns and read the lexicon now, not in the first
    visitor's turn."""
    from avatar.answer.checks.lexicon import corpus_lexicon, corpus_pairs

    corpus_lexicon()
    corpus_pairs()
    for lang in langs:
        _common_stems(lang)
        check_grounding("Am Montag um 18 Uhr für 3,50 € im 2. Stock, Raum B1.", lang,
                        [Fact("warmup", lang, "Montag 18:00, 3.50 EUR, 2. Stock, Raum B1.")])
