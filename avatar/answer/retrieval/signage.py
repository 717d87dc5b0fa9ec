"""What operators abbreviate, written out for the index: signage abbreviations ("Tel.", "Std.", "1. OG")
and German suspended compounds ("Geburts-, Ehe- oder Sterbeurkunde" is a Geburtsurkunde, an Eheurkunde
and a Sterbeurkunde). A visitor asks for "eine
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


# Signage abbreviations, written out: "Kontakt: Tel. 04521 70 63-0" answers "Wie ist die Telefonnummer?",
# "2 € / Std." a question about an hour, "im 1. OG" one about the first floor. Only an abbreviation's
# own form counts: a dot after it, or the capitals of a floor.
_ABBREVIATIONS = {
    "de": {"tel": "Telefon Telefonnummer", "tgl": "täglich", "tägl": "täglich", "std": "Stunde Stunden",
           "min": "Minuten", "erw": "Erwachsene", "ermäß": "ermäßigt", "str": "Straße", "nr": "Nummer",
           "inkl": "inklusive", "zzgl": "zuzüglich", "hbf": "Hauptbahnhof", "bhf": "Bahnhof",
           "pers": "Person Personen"},
    "en": {"tel": "telephone phone", "hr": "hour", "hrs": "hours", "mins": "minutes", "min": "minutes",
           "incl": "including", "approx": "approximately", "rd": "road"},
}
_FLOORS = {"de": {"EG": "Erdgeschoss", "OG": "Obergeschoss Stock", "UG": "Untergeschoss Keller"}, "en": {}}
_DOTTED = re.compile(r"(?<![\w.])([A-Za-zÄÖÜäöüß]{1,6})\.")
_CAPITALS = re.compile(r"\b(EG|OG|UG)\b")


def abbreviations(text: str, lang: str) -> list[str]:
    """The written-out words of the signage abbreviations in `text` ("Tel." -> Telefon)."""
    table = _ABBREVIATIONS.get(lang, {})
    out = [table[m.group(1).lower()] for m in _DOTTED.finditer(text) if m.group(1).lower() in table]
    out += [_FLOORS[lang][m.group(1)] for m in _CAPITALS.finditer(text) if m.group(1) in _FLOORS.get(lang, {})]
    return list(dict.fromkeys(out))


def written_out(text: str, lang: str) -> str:
    """The words a fact abbreviates, as extra search words ("" when none)."""
    out = abbreviations(text, lang)
    if lang != "de":
        return " ".join(out)
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
