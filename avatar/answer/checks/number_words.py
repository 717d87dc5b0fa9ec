"""Number words of German and English (cardinals 0-99, ordinals 1-31), for reading numbers out of replies."""
from __future__ import annotations

import re

_DE_UNITS = {"null": 0, "eins": 1, "zwei": 2, "zwo": 2, "drei": 3, "vier": 4, "fünf": 5, "fuenf": 5,
             "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12, "zwoelf": 12,
             "dreizehn": 13, "vierzehn": 14, "fünfzehn": 15, "fuenfzehn": 15, "sechzehn": 16, "siebzehn": 17,
             "achtzehn": 18, "neunzehn": 19}
_DE_TENS = {"zwanzig": 20, "dreißig": 30, "dreissig": 30, "vierzig": 40, "fünfzig": 50, "fuenfzig": 50,
            "sechzig": 60, "siebzig": 70, "achtzig": 80, "neunzig": 90}
_DE_COMPOUND_UNITS = {"ein": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9}
_EN_UNITS = {"zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
             "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
             "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
            "ninety": 90}
_EN_COMPOUND_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}

# "one"/"ein(e)" are mostly articles or pronouns: they count as numbers only next to a unit (time, price, floor)
ARTICLE_NUMBERS = {"one": 1, "ein": 1, "eine": 1, "einen": 1, "einem": 1, "einer": 1}


def _cardinals() -> dict[str, int]:
    words = {**_DE_UNITS, **_DE_TENS, **_EN_UNITS, **_EN_TENS, "hundert": 100, "einhundert": 100,
             "hundred": 100, "a hundred": 100, "one hundred": 100, "tausend": 1000, "thousand": 1000}
    for unit_word, unit in _DE_COMPOUND_UNITS.items():
        for ten_word, ten in _DE_TENS.items():
            words[f"{unit_word}und{ten_word}"] = ten + unit
    for ten_word, ten in _EN_TENS.items():
        for unit_word, unit in _EN_COMPOUND_UNITS.items():
            words[f"{ten_word}-{unit_word}"] = ten + unit
            words[f"{ten_word} {unit_word}"] = ten + unit
    return words


CARDINALS: dict[str, int] = _cardinals()

_DE_ORDINAL_STEMS = {"erst": 1, "zweit": 2, "dritt": 3, "viert": 4, "fünft": 5, "fuenft": 5, "sechst": 6,
                     "siebt": 7, "siebent": 7, "acht": 8, "neunt": 9, "zehnt": 10, "elft": 11, "zwölft": 12,
                     "zwoelft": 12, "dreizehnt": 13, "vierzehnt": 14, "fünfzehnt": 15, "sechzehnt": 16,
                     "siebzehnt": 17, "achtzehnt": 18, "neunzehnt": 19, "zwanzigst": 20,
                     "einundzwanzigst": 21, "zweiundzwanzigst": 22, "dreiundzwanzigst": 23,
                     "vierundzwanzigst": 24, "fünfundzwanzigst": 25, "sechsundzwanzigst": 26,
                     "siebenundzwanzigst": 27, "achtundzwanzigst": 28, "neunundzwanzigst": 29,
                     "dreißigst": 30, "einunddreißigst": 31}
_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
                "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
                "nineteenth": 19, "twentieth": 20, "twenty-first": 21, "twenty-second": 22,
                "twenty-third": 23, "twenty-fourth": 24, "twenty-fifth": 25, "twenty-sixth": 26,
                "twenty-seventh": 27, "twenty-eighth": 28, "twenty-ninth": 29, "thirtieth": 30,
                "thirty-first": 31}


def _ordinals() -> dict[str, int]:
    words = dict(_EN_ORDINALS)
    for stem, n in _DE_ORDINAL_STEMS.items():
        for ending in ("e", "en", "er", "es", "em"):
            words[stem + ending] = n
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
