"""The facts-bearing items of a reply or a fact, normalised so that different spellings compare equal.

"18 Uhr" = "18:00" = "6 pm" = "18.00 Uhr"; "3,50 €" = "3.50 euros" = "€3.50"; "3. Stock" = "third
floor"; "Mo" = "Monday" = "Montag"; number words in both languages. Grounding compares the items of
a reply with the items of the facts; self-consistency compares the items of two decodes.

The recognisers of times, dates and weekdays are in content_calendar.py, the item and the scan in
content_items.py; prices, floors, rooms, addresses, durations, numbers and names are here, with
`extract`, which runs them all in their order.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from avatar.answer.checks.content_calendar import _dates, _times, _weekdays
from avatar.answer.checks.content_items import _I, _N, _ORD_SUFFIX, ContentItem, _fmt, _Scan
from avatar.answer.checks.number_words import CARDINAL_WORDS_RE, ORDINAL_WORDS_RE, number_value, ordinal_value

__all__ = ["Content", "ContentItem", "extract", "name_candidates"]


# ------------------------------------------------------------------------------------------ prices
_CURRENCIES = {"€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "$": "USD", "usd": "USD", "dollar": "USD",
               "dollars": "USD", "£": "GBP", "gbp": "GBP", "pfund": "GBP", "pound": "GBP", "pounds": "GBP",
               "chf": "CHF", "franken": "CHF", "franc": "CHF", "francs": "CHF"}
_CUR_RE = r"(?:€|\$|£|EUR|USD|GBP|CHF|Euros?|Dollars?|Pfund|pounds?|Franken|francs?)"
P_PRICE_PREFIX = re.compile(r"(€|\$|£|\bEUR|\bUSD|\bGBP|\bCHF)\s?(\d+(?:[.,]\d{1,2})?)(?:,[-–])?", _I)
P_PRICE_SUFFIX = re.compile(
    rf"\b({_N})(?:,[-–])?\s*({_CUR_RE})(?![A-Za-zÄÖÜäöüß])(?:\s*(?:und\s+|and\s+)?(\d{{1,2}}|{CARDINAL_WORDS_RE})\b(?:\s*(?:Cent|cents?)\b)?)?", _I)
P_PRICE_CENTS = re.compile(rf"\b({_N})\s*(?:Cent|cents?)\b", _I)
P_PRICE_FREE = {
    "en": re.compile(r"\b(?:free\s+of\s+charge|for\s+free|free\s+admission|free\s+entry|(?:admission|entry|entrance)\s+is\s+free|costs?\s+nothing|no\s+charge)\b", _I),
    "de": re.compile(r"\b(?:kostenlos|kostenfrei|gratis|umsonst|Eintritt\s+(?:ist\s+)?frei|freie[rnm]?\s+Eintritt|frei\s+zugänglich)\b", _I),
}


def _price(surface: str, amount: float | None, currency: str) -> ContentItem | None:
    if amount is None:
        return None
    return ContentItem("price", (f"{currency} {amount:.2f}",), surface.strip(), (round(amount, 2),))


def _prices(scan: _Scan) -> None:
    def prefix(m):
        item = _price(m.group(0), number_value(m.group(2)), _CURRENCIES[m.group(1).lower()])
        return [item] if item else None

    def suffix(m):
        amount = number_value(m.group(1))
        cents = number_value(m.group(3)) if m.group(3) else None
        if amount is not None and cents is not None:
            if not amount.is_integer() or cents >= 100:
                return None
            amount += cents / 100
        item = _price(m.group(0), amount, _CURRENCIES[m.group(2).lower()])
        return [item] if item else None

    def cents(m):
        value = number_value(m.group(1))
        item = _price(m.group(0), None if value is None else value / 100, "EUR")
        return [item] if item else None

    scan.take(P_PRICE_PREFIX, prefix)
    scan.take(P_PRICE_SUFFIX, suffix)
    scan.take(P_PRICE_CENTS, cents)
    scan.take(P_PRICE_FREE.get(scan.lang, P_PRICE_FREE["en"]),
              lambda m: [ContentItem("price", ("free",), m.group(0), (0.0,))])


P_PERCENT = re.compile(rf"\b({_N})\s*(?:%|Prozent\b|percent\b|per\s+cent\b)", _I)


def _percents(scan: _Scan) -> None:
    def pct(m):
        v = number_value(m.group(1))
        return None if v is None else [ContentItem("percent", (_fmt(v),), m.group(0), (v,))]
    scan.take(P_PERCENT, pct)


# ------------------------------------------------------------------------------------------ floors
_FLOOR_DE = r"(?:Stockwerk|Stock|Etage|Obergeschoss|Obergeschoß|OG|Ebene|Geschoss|Untergeschoss|UG)"
_FLOOR_EN = r"(?:floor|level|storey|story)"
P_FLOOR_DIGIT_DE = re.compile(rf"\b(\d{{1,2}})\.\s*({_FLOOR_DE})\b")
P_FLOOR_ORD = re.compile(rf"\b({ORDINAL_WORDS_RE}|\d{{1,2}}{_ORD_SUFFIX})\s+({_FLOOR_DE}|{_FLOOR_EN})\b", _I)
P_FLOOR_NAMED = re.compile(rf"\b({_FLOOR_EN}|Ebene|Etage|Deck)\s+(-?\d{{1,2}}|{CARDINAL_WORDS_RE})\b", _I)
P_FLOOR_GROUND = re.compile(r"\b(Erdgeschoss|Erdgeschoß|EG|ground\s+floor|ground\s+level|street\s+level)\b")
P_FLOOR_BELOW = re.compile(r"\b(Untergeschoss|Untergeschoß|Keller|Kellergeschoss|UG|basement|lower\s+level)\b")


def _floor(surface: str, n: float | None, below: bool = False) -> list[ContentItem] | None:
    if n is None:
        return None
    n = -abs(n) if below else n
    return [ContentItem("floor", (_fmt(n),), surface.strip(), (n,))]


def _floors(scan: _Scan) -> None:
    below = ("ug", "untergeschoss")
    scan.take(P_FLOOR_DIGIT_DE, lambda m: _floor(m.group(0), float(m.group(1)), m.group(2).lower() in below))
    scan.take(P_FLOOR_ORD, lambda m: _floor(m.group(0), ordinal_value(m.group(1)), m.group(2).lower() in below))
    scan.take(P_FLOOR_NAMED, lambda m: _floor(m.group(0), number_value(m.group(2))))
    scan.take(P_FLOOR_GROUND, lambda m: _floor(m.group(0), 0.0))
    scan.take(P_FLOOR_BELOW, lambda m: _floor(m.group(0), 1.0, below=True))


# ------------------------------------------------------------------------------------------ rooms
_ROOM_WORDS = (r"(?:Raum|Room|room|Saal|Hall|hall|Halle|Zimmer|Gate|gate|Gleis|Platform|platform|Bahnsteig|Stand|"
               r"Booth|booth|Tor|Ausgang|Exit|exit|Eingang|Entrance|entrance|Schalter|Counter|counter|Terminal|"
               r"terminal|Bereich|Area|area|Zone|zone|Sektor|Galerie|Gallery|gallery|Flügel|Wing|wing|Haus|"
               r"Building|building|Gebäude|Track|track|Bus|bus|Linie|Line|line|Tram|tram|Straßenbahn)")
P_ROOM = re.compile(rf"\b({_ROOM_WORDS})\s+(?:Nr\.?\s*|No\.?\s*|number\s+|Nummer\s+)?([A-Z]?\d{{1,4}}[A-Za-z]?|[A-Z])\b")
P_CODE = re.compile(r"\b([A-Z]{1,2}\d{1,4}[a-z]?|\d{1,4}[A-Z])\b")


def _room(surface: str, code: str) -> list[ContentItem]:
    code = code.upper()
    numbers = (float(code),) if code.isdigit() else ()
    return [ContentItem("room", (code,), surface.strip(), numbers)]


def _rooms(scan: _Scan) -> None:
    scan.take(P_ROOM, lambda m: _room(m.group(0), m.group(2)))
    scan.take(P_CODE, lambda m: _room(m.group(0), m.group(1)))


# ------------------------------------------------------------------------------------------ addresses, durations
_STREET = (r"(?:(?:Am|An\s+der|Auf\s+dem)\s+[A-ZÄÖÜ][\wäöüß-]+|[A-ZÄÖÜ][\wäöüß-]*(?:straße|strasse|str\.|weg|"
           r"platz|gasse|allee|ring|damm|ufer|markt|hafen|chaussee))")
P_ADDRESS_DE = re.compile(rf"\b({_STREET})\s+(\d{{1,4}}[a-z]?)\b")
P_ADDRESS_EN = re.compile(r"\b(\d{1,4}[a-z]?)\s+([A-Z][\w-]+\s+(?:Street|Road|Avenue|Lane|Square|Place|Way))\b")
_DURATION_UNITS = {"minute": "minute", "minuten": "minute", "minutes": "minute", "min": "minute", "mins": "minute",
                   "stunde": "hour", "stunden": "hour", "hour": "hour", "hours": "hour", "tag": "day", "tage": "day",
                   "tagen": "day", "day": "day", "days": "day", "woche": "week", "wochen": "week", "week": "week",
                   "weeks": "week", "monat": "month", "monate": "month", "monaten": "month", "month": "month",
                   "months": "month", "jahr": "year", "jahre": "year", "jahren": "year", "year": "year", "years": "year"}
P_DURATION = re.compile(rf"\b({_N})\s+({'|'.join(sorted(_DURATION_UNITS, key=len, reverse=True))})\b", _I)


def _addresses_and_durations(scan: _Scan) -> None:
    def address(street: str, number: str, surface: str):
        street = " ".join(street.lower().split())
        return [ContentItem("address", (f"{street} {number.lower()}",), surface)]

    def duration(m):
        v = number_value(m.group(1))
        unit = _DURATION_UNITS[m.group(2).lower()]
        return None if v is None else [ContentItem("duration", (f"{_fmt(v)} {unit}",), m.group(0), (v,))]

    scan.take(P_ADDRESS_DE, lambda m: address(m.group(1), m.group(2), m.group(0)))
    scan.take(P_ADDRESS_EN, lambda m: address(m.group(2), m.group(1), m.group(0)))
    scan.take(P_DURATION, duration)


# ------------------------------------------------------------------------------------------ numbers
P_THOUSANDS = re.compile(r"(?<![\d.,])(\d{1,3}(?:[.,]\d{3})+)(?![\d]|[.,]\d)")
P_DIGITS = re.compile(r"(?<![\d.,])(\d+(?:[.,]\d{1,2})?)(?:st|nd|rd|th)?(?![\d]|[.,]\d)")
P_NUMBER_WORD = re.compile(rf"\b({CARDINAL_WORDS_RE})\b", _I)


def _numbers(scan: _Scan) -> None:
    def thousands(m):
        v = float(re.sub(r"[.,]", "", m.group(1)))
        return [ContentItem("number", (_fmt(v),), m.group(0), (v,))]

    def plain(m):
        v = number_value(m.group(1))
        return None if v is None else [ContentItem("number", (_fmt(v),), m.group(0), (v,))]

    scan.take(P_THOUSANDS, thousands)
    scan.take(P_DIGITS, plain)
    scan.take(P_NUMBER_WORD, plain)


# ------------------------------------------------------------------------------------------ names
P_WORD = re.compile(r"[A-Za-zÄÖÜäöüßÀ-ÿ][\w'’-]*")
_SENTENCE_END = re.compile(r"(?:^|[.!?:;…]\s*[\"'„“»«]?\s*)$")
# a period after these does not end the sentence: "Dr. Weber" is a name in mid-sentence
_ABBREVIATION = re.compile(r"(?:^|\s)(?:Dr|Prof|Nr|No|St|Mr|Mrs|Ms|Hr|Fr|Frau|Herr|ca|bzw|z\.\s?B|u\.\s?a)\.$")


def name_candidates(masked: str) -> list[tuple[str, int]]:
    """Capitalised words that do not open a sentence (the name rule's candidates), with their offsets."""
    out = []
    for m in P_WORD.finditer(masked):
        word = m.group(0)
        if not word[0].isupper():
            continue
        before = masked[:m.start()].replace("\0", " ").rstrip()
        if not before or (_SENTENCE_END.search(before[-4:]) and not _ABBREVIATION.search(before)):
            continue
        out.append((word.strip("-'’"), m.start()))
    return out


# ------------------------------------------------------------------------------------------ entry point
@dataclass(frozen=True)
class Content:
    """Everything facts-bearing in one text: typed items, and the capitalised name candidates."""
    items: tuple[ContentItem, ...]
    names: tuple[str, ...]
    rest: str  # the text with the items blanked, for the token overlap of the consistency check

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(f"{i.kind}:{'|'.join(i.values)}" for i in self.items)


@lru_cache(maxsize=4096)
def extract(text: str, lang: str) -> Content:
    """The normalised content items of `text` in language `lang` (de|en); cached: facts repeat every turn."""
    scan = _Scan(text, lang)
    # weekdays before addresses: "Am Montag 10" is a day, "Am Hafen 10" an address
    for step in (_prices, _percents, _times, _dates, _weekdays, _addresses_and_durations, _floors, _rooms, _numbers):
        step(scan)
    names = tuple(w for w, _ in name_candidates(scan.text))
    return Content(tuple(scan.items), names, scan.text.replace("\0", " "))
