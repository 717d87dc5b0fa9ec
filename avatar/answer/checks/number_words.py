"""Number words of German and English (cardinals 0-99, ordinals 1-31), for reading numbers out of replies.

The words are num2words' (LGPL-2.1), plus how replies also write them ("zwo", "fuenf", "dreissig",
"twenty one", "a hundred"). They are found in a reply by one regex over this vocabulary and read by
lookup. text2num (MIT) reads a string already known to be a number, and its alpha2digit rewrites a
whole reply: it was measured against these checks (2026-12-01) and does not fit; see
docs/INTERFACES.md, "Number words".
"""
from __future__ import annotations

import re

from num2words import num2words

# "one"/"ein(e)" are mostly articles or pronouns: they count as numbers only next to a unit (time, price, floor)
ARTICLE_NUMBERS = {"one": 1, "ein": 1, "eine": 1, "einen": 1, "einem": 1, "einer": 1}


def _spellings(word: str) -> set[str]:
    """`word` as written, and typed without "ß" or umlauts ("dreissig", "fuenf"), each part of an
    "und" compound on its own ("fünfunddreissig")."""
    head, und, tail = word.partition("und")
    if und and head and tail.endswith(("zig", "ßig", "zigst", "ßigst")):
        return {h + und + t for h in _spellings(head) for t in _spellings(tail)}
    no_sharp_s = word.replace("ß", "ss")
    return {word, no_sharp_s, no_sharp_s.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue")}


def _cardinals() -> dict[str, int]:
    """0-99 as num2words spells them in German and English, "zwo", and the bare hundreds and thousands."""
    words = {"zwo": 2, "hundert": 100, "hundred": 100, "a hundred": 100, "tausend": 1000, "thousand": 1000}
    for n in (*range(100), 100):
        for w in _spellings(num2words(n, lang="de")):
            words[w] = n
        en = num2words(n, lang="en")
        if n != 1:  # "one" is an article (ARTICLE_NUMBERS); "twenty-one" is a number
            words[en] = words[en.replace("-", " ")] = n
    return words


CARDINALS: dict[str, int] = _cardinals()


def _ordinals() -> dict[str, int]:
    """1st-31st as num2words spells them; German in every declined form ("dritte", "dritten", ...)
    and the older "siebente"."""
    words = {num2words(n, lang="en", to="ordinal"): n for n in range(1, 32)}
    stems = {num2words(n, lang="de", to="ordinal")[:-1]: n for n in range(1, 32)} | {"siebent": 7}
    for stem, n in stems.items():
        for spelling in _spellings(stem):
            for ending in ("e", "en", "er", "es", "em"):
                words[spelling + ending] = n
    return words


ORDINALS: dict[str, int] = _ordinals()


def _alternation(words) -> str:
    """A regex matching any of `words`, longest first, shaped as a trie.

    A flat alternation of ~400 words is tried word by word at every position (~0.4 ms per pattern
    and sentence); the trie tries one branch per character.
    """
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        branches = [(r"\s+" if ch == " " else re.escape(ch)) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


CARDINAL_WORDS_RE = _alternation(CARDINALS)
ARTICLE_WORDS_RE = _alternation(ARTICLE_NUMBERS)
ORDINAL_WORDS_RE = _alternation(ORDINALS)
# a number as written next to a unit: digits (with decimals) or any number word, articles included
NUMBER_RE = rf"(?:\d+(?:[.,]\d{{1,2}})?|{CARDINAL_WORDS_RE}|{ARTICLE_WORDS_RE})"


def number_value(text: str) -> float | None:
    """The value of a digit string ("3,50", "18") or a number word ("zwanzig", "twenty-one"), else None."""
    t = re.sub(r"\s+", " ", text.strip().lower())
    if not t:
        return None
    if t[0].isdigit():
        try:
            return float(t.replace(",", "."))
        except ValueError:
            return None
    if t in CARDINALS:
        return float(CARDINALS[t])
    if t in ARTICLE_NUMBERS:
        return float(ARTICLE_NUMBERS[t])
    return None


def ordinal_value(text: str) -> int | None:
    """The value of "3.", "3rd", "dritten", "third", else None."""
    t = text.strip().lower()
    m = re.fullmatch(r"(\d{1,2})(?:\.|st|nd|rd|th)?", t)
    if m:
        return int(m.group(1))
    return ORDINALS.get(t)
