"""What operators abbreviate, written out for the index: German suspended compounds ("Geburts-, Ehe- oder
Sterbeurkunde" is a Geburtsurkunde, an Eheurkunde and a Sterbeurkunde). A visitor asks for "eine
Geburtsurkunde"; the words found here are added to the fact's search terms (the fact is said as the
operator wrote it). Weekday abbreviations ("Mo–Do", "Fr") written out the same way were measured and
not taken: on the dev packs they put a fact that merely names a day before the one that answers.
"""
from __future__ import annotations

import re

from avatar.answer.retrieval.words import _everyday_zipf

# "Geburts-, Ehe- oder Sterbeurkunde", "Kinder- und Jugendbuch", "Ein- und Ausgang"
_SUSPENDED = re.compile(r"((?:\b[A-ZÄÖÜ][a-zäöüß]+-\s*(?:,\s*|\s+))+)(?:und|oder|bzw\.|sowie|&)\s+([A-ZÄÖÜ][a-zäöüß]{5,})\b")
_FIRST = re.compile(r"([A-ZÄÖÜ][a-zäöüß]+)-")


def written_out(text: str, lang: str) -> str:
    """The words a fact abbreviates, as extra search words ("" when none)."""
    if lang != "de":
        return ""
    out = []
    for m in _SUSPENDED.finditer(text):
        head = _head(m.group(2))
        if head:
            out += [first + head for first in _FIRST.findall(m.group(1))]
    return " ".join(out)


def _head(word: str) -> str:
    """The last part of a compound: its longest ending (4+ letters, shorter than the word) that is an
    everyday word ("urkunde" of "Sterbeurkunde", "bücher" of "Jugendbücher", "gang" of "Ausgang")."""
    lower = word.lower()
    for n in range(len(lower) - 2, 3, -1):
        if _everyday_zipf(lower[-n:], "de") >= 2.5:
            return lower[-n:]
    return ""
