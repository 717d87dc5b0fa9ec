"""Word stems (Snowball, German and English), cached: the pure-Python stemmer costs ~0.3 ms a word."""
from __future__ import annotations

from functools import lru_cache

import snowballstemmer

_STEMMERS = {"de": snowballstemmer.stemmer("german"), "en": snowballstemmer.stemmer("english")}


@lru_cache(maxsize=65536)
def stem(word: str, lang: str) -> str:
    return _STEMMERS.get(lang, _STEMMERS["en"]).stemWord(word.lower())
