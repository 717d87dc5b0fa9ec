"""The facts-bearing items of a reply or a fact, normalised so that different spellings compare equal.

"18 Uhr" = "18:00" = "6 pm" = "18.00 Uhr"; "3,50 €" = "3.50 euros" = "€3.50"; "3. Stock" = "third
floor"; "Mo" = "Monday" = "Montag"; number words in both languages. Grounding compares the items of
a reply with the items of the facts; self-consistency compares the items of two decodes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from avatar.answer.checks.number_words import (NUMBER_RE, ORDINAL_WORDS_RE, CARDINAL_WORDS_RE, number_value,
                                               ordinal_value)


@dataclass(frozen=True)
class ContentItem:
    """One facts-bearing item: `values` are the canonical readings (two for an ambiguous "halb sieben")."""
    kind: str  # time | price | percent | date | month | weekday | address | duration | floor | room | number | name
    values: tuple[str, ...]
    surface: str
    numbers: tuple[float, ...] = ()  # plain-number views, to match a fact's unlabelled numbers
    extra_keys: tuple[str, ...] = ()  # what this item also supports when it stands in a fact

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(f"{self.kind}:{v}" for v in self.values)

    @property
    def support_keys(self) -> frozenset[str]:
        return self.keys | frozenset(self.extra_keys)


@dataclass
class _Scan:
    """The text being scanned; each recognised item blanks its characters so nothing is read twice."""
    text: str
    lang: str
    items: list[ContentItem] = field(default_factory=list)

    def take(self, pattern: re.Pattern, handler) -> None:
        for m in list(pattern.finditer(self.text)):
            if not self.text[m.start():m.end()].strip() or "\0" in self.text[m.start():m.end()]:
                continue  # part of it was taken by an earlier, more specific pattern
            got = handler(m)
            if got is None:
                continue
            self.items.extend(got)
            self.text = self.text[:m.start()] + "\0" * (m.end() - m.start()) + self.text[m.end():]


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}".rstrip("0").rstrip(".")


def _hhmm(h: int, m: int) -> str:
    return f"{h % 24:02d}:{m:02d}"


# ------------------------------------------------------------------------------------------ times
_AM, _PM = "am", "pm"
_DAYPART = {"morgens": _AM, "früh": _AM, "frueh": _AM, "vormittags": _AM, "nachmittags": _PM, "abends": _PM,
            "in the morning": _AM, "in the afternoon": _PM, "in the evening": _PM, "at night": _PM,
            "tonight": _PM}
_DAYPART_RE = r"(?:morgens|früh|frueh|vormittags|nachmittags|abends|nachts|in\s+the\s+morning|in\s+the\s+afternoon|in\s+the\s+evening|at\s+night|tonight)"


def _daypart(word: str | None) -> str | None:
    if not word:
        return None
    word = re.sub(r"\s+", " ", word.lower())
    return _DAYPART.get(word, "night" if word == "nachts" else None)


def _time_values(h: int, m: int, meridiem: str | None, ambiguous: bool) -> tuple[str, ...] | None:
    """Canonical 24 h readings: one when the text fixes the time of day, two when it does not."""
    if not (0 <= h <= 24 and 0 <= m < 60):
        return None
    if meridiem == "night" and 1 <= h <= 12:
        meridiem = _PM if h >= 8 else _AM
    if meridiem in (_AM, _PM) and 1 <= h <= 12:
        h = (0 if h == 12 else h) if meridiem == _AM else (h if h == 12 else h + 12)
        return (_hhmm(h, m),)
    if ambiguous and 1 <= h <= 12:
        return tuple(sorted({_hhmm(h, m), _hhmm(h + 12, m)}))
    return (_hhmm(h, m),)


def _time_item(surface: str, h: float | None, m: float | None, meridiem=None, ambiguous=False) -> ContentItem | None:
    if h is None or m is None or not float(h).is_integer() or not float(m).is_integer():
        return None
    values = _time_values(int(h), int(m), meridiem, ambiguous)
    if values is None:
        return None
    numbers = ()
    if len(values) == 1 and values[0].endswith(":00"):
        hour = int(values[0][:2])
        # "open until 6" is how people say 18:00: a bare hour may stand for either half of the day
        numbers = (float(hour),) if not 12 < hour < 24 else (float(hour), float(hour - 12))
    if len(values) == 1 and int(h) == 24:
        numbers = (24.0,)
    return ContentItem("time", values, surface.strip(), numbers)


def _is_word(s: str) -> bool:
    return bool(s) and not s[0].isdigit()


_I = re.IGNORECASE
_N = NUMBER_RE
_MER = r"([ap])(?:\.\s?m\.|\s?m\b)"
P_TIME_RANGE_UHR = re.compile(rf"\b(\d{{1,2}})(?:[:.](\d{{2}}))?\s*(?:-|–|—|bis)\s*(\d{{1,2}})(?:[:.](\d{{2}}))?\s*Uhr\b", _I)
P_TIME_12 = re.compile(rf"\b({_N})(?::(\d{{2}}))?\s*{_MER}", _I)
P_TIME_DOTTED_12 = re.compile(rf"\b(\d{{1,2}})(?::(\d{{2}}))?\s*([ap])\.\s?m\.", _I)
P_TIME_COLON = re.compile(r"\b(\d{1,2}):(\d{2})(?!\d)(?:\s*Uhr\b)?", _I)
P_TIME_DOT_UHR = re.compile(r"\b(\d{1,2})\.(\d{2})\s*Uhr\b", _I)
P_TIME_UHR = re.compile(rf"\b({_N})\s*Uhr\b(?:\s*(\d{{1,2}}|{CARDINAL_WORDS_RE})\b(?!\s*(?:€|Euro|Prozent|%)))?(?:\s+({_DAYPART_RE}))?", _I)
P_TIME_HALF_DE = re.compile(rf"\b(halb|viertel\s+nach|viertel\s+vor|dreiviertel)\s+({_N})\b(?:\s*Uhr\b)?(?:\s+({_DAYPART_RE}))?", _I)
P_TIME_HALF_EN = re.compile(rf"\b(half\s+past|quarter\s+past|quarter\s+to)\s+({_N})\b(?:\s*{_MER})?", _I)
P_TIME_OCLOCK = re.compile(rf"\b({_N})\s+o['’]?\s?clock\b(?:\s+({_DAYPART_RE}))?", _I)
P_TIME_NOON = re.compile(r"\b(noon|midday|midnight|mitternacht)\b", _I)


def _times(scan: _Scan) -> None:
    def rng(m):
        a = _time_item(m.group(1), float(m.group(1)), float(m.group(2) or 0))
        b = _time_item(m.group(3), float(m.group(3)), float(m.group(4) or 0))
        return [i for i in (a, b) if i] or None

    def twelve(m):
        item = _time_item(m.group(0), number_value(m.group(1)), float(m.group(2) or 0), _AM if m.group(3).lower() == "a" else _PM)
        return [item] if item else None

    def colon(m):
        item = _time_item(m.group(0), float(m.group(1)), float(m.group(2)))
        return [item] if item else None

    def uhr(m):
        minutes = number_value(m.group(2)) if m.group(2) else 0.0
        item = _time_item(m.group(0), number_value(m.group(1)), minutes, _daypart(m.group(3)),
                          ambiguous=_is_word(m.group(1)))
        return [item] if item else None

    def half_de(m):
        h = number_value(m.group(2))
        if h is None:
            return None
        kind = re.sub(r"\s+", " ", m.group(1).lower())
        h, mins = {"halb": (h - 1, 30), "viertel nach": (h, 15), "viertel vor": (h - 1, 45),
                   "dreiviertel": (h - 1, 45)}[kind]
        item = _time_item(m.group(0), h if h > 0 else 12, mins, _daypart(m.group(3)), ambiguous=True)
        return [item] if item else None

    def half_en(m):
        h = number_value(m.group(2))
        if h is None:
            return None
        kind = re.sub(r"\s+", " ", m.group(1).lower())
        h, mins = {"half past": (h, 30), "quarter past": (h, 15), "quarter to": (h - 1, 45)}[kind]
        mer = None if not m.group(3) else (_AM if m.group(3).lower() == "a" else _PM)
        item = _time_item(m.group(0), h if h > 0 else 12, mins, mer, ambiguous=True)
        return [item] if item else None

    def oclock(m):
        item = _time_item(m.group(0), number_value(m.group(1)), 0.0, _daypart(m.group(2)), ambiguous=True)
        return [item] if item else None

    def noon(m):
        word = m.group(1).lower()
        values = ("12:00",) if word in ("noon", "midday") else ("00:00",)
        return [ContentItem("time", values, m.group(0), ())]

    scan.take(P_TIME_RANGE_UHR, rng)
    scan.take(P_TIME_HALF_DE, half_de)
    scan.take(P_TIME_HALF_EN, half_en)
    if scan.lang == "en":
        scan.take(P_TIME_12, twelve)
    else:  # German "am" is a word ("am Montag"): only the dotted "a.m." counts
        scan.take(P_TIME_DOTTED_12, twelve)
    scan.take(P_TIME_DOT_UHR, colon)
    scan.take(P_TIME_COLON, colon)
    scan.take(P_TIME_UHR, uhr)
    scan.take(P_TIME_OCLOCK, oclock)
    scan.take(P_TIME_NOON, noon)


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


# ------------------------------------------------------------------------------------------ dates
_MONTHS = {"januar": 1, "jänner": 1, "january": 1, "jan": 1, "februar": 2, "february": 2, "feb": 2, "märz": 3,
           "maerz": 3, "march": 3, "mär": 3, "mar": 3, "april": 4, "apr": 4, "mai": 5, "may": 5, "juni": 6,
           "june": 6, "jun": 6, "juli": 7, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
           "sep": 9, "sept": 9, "oktober": 10, "october": 10, "okt": 10, "oct": 10, "november": 11, "nov": 11,
           "dezember": 12, "december": 12, "dez": 12, "dec": 12}
_MONTH_RE = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?"
_ORD_SUFFIX = r"(?:st|nd|rd|th)"
P_DATE_DE = re.compile(rf"\b(\d{{1,2}})\.\s*({_MONTH_RE})(?:\s+(\d{{4}}))?", _I)
P_DATE_ORDWORD = re.compile(rf"\b(?:the\s+)?({ORDINAL_WORDS_RE}|\d{{1,2}}{_ORD_SUFFIX}?)\s+(?:of\s+)?({_MONTH_RE})(?:,?\s+(\d{{4}}))?", _I)
P_DATE_MD = re.compile(rf"\b({_MONTH_RE})\s+(?:the\s+)?(\d{{1,2}}{_ORD_SUFFIX}?|{ORDINAL_WORDS_RE})\b(?:,?\s+(\d{{4}}))?", _I)
P_DATE_NUMERIC = re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})?(?!\d)")
P_DATE_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
P_MONTH_ALONE = re.compile(r"\b(Januar|Jänner|January|Februar|February|März|March|April|Mai|Juni|June|Juli|July|"
                           r"August|September|Oktober|October|November|Dezember|December)\b")


def _date_items(surface: str, day: int | None, month: int | None, year: str | None) -> list[ContentItem] | None:
    if day is None or month is None or not (1 <= day <= 31 and 1 <= month <= 12):
        return None
    items = [ContentItem("date", (f"{month:02d}-{day:02d}",), surface.strip(), (float(day),),
                         (f"month:{month}",))]
    if year:
        y = int(year) + (2000 if len(year) == 2 else 0)
        items.append(ContentItem("number", (str(y),), year, (float(y),)))
    return items


def _month(word: str) -> int | None:
    return _MONTHS.get(word.lower().rstrip("."))


def _dates(scan: _Scan) -> None:
    scan.take(P_DATE_ISO, lambda m: _date_items(m.group(0), int(m.group(3)), int(m.group(2)), m.group(1)))
    scan.take(P_DATE_DE, lambda m: _date_items(m.group(0), int(m.group(1)), _month(m.group(2)), m.group(3)))

    def ordword(m):
        if m.group(2).lower().rstrip(".") == "may" and scan.lang == "en" and not m.group(2)[0].isupper():
            return None  # the verb "may"
        return _date_items(m.group(0), ordinal_value(m.group(1)), _month(m.group(2)), m.group(3))

    def md(m):
        if m.group(1).lower().rstrip(".") == "may" and not m.group(1)[0].isupper():
            return None
        return _date_items(m.group(0), ordinal_value(m.group(2)), _month(m.group(1)), m.group(3))

    scan.take(P_DATE_ORDWORD, ordword)
    scan.take(P_DATE_MD, md)
    scan.take(P_DATE_NUMERIC, lambda m: _date_items(m.group(0), int(m.group(1)), int(m.group(2)), m.group(3)))

    def month_alone(m):
        if m.group(1) == "May" or (scan.lang == "en" and m.group(1) in ("March", "August")):
            return None  # "May I help", "march", "august" are words too
        return [ContentItem("month", (str(_month(m.group(1))),), m.group(0))]

    scan.take(P_MONTH_ALONE, month_alone)


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


# ------------------------------------------------------------------------------------------ weekdays
_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DAY_NAMES = {"montag": 0, "monday": 0, "dienstag": 1, "tuesday": 1, "mittwoch": 2, "wednesday": 2,
              "donnerstag": 3, "thursday": 3, "freitag": 4, "friday": 4, "samstag": 5, "sonnabend": 5,
              "saturday": 5, "sonntag": 6, "sunday": 6}
_DAY_ABBR = {"Mo": 0, "Mon": 0, "Di": 1, "Tue": 1, "Tues": 1, "Mi": 2, "Wed": 2, "Do": 3, "Thu": 3, "Thur": 3,
             "Thurs": 3, "Fr": 4, "Fri": 4, "Sa": 5, "Sat": 5, "So": 6, "Sun": 6}
_DAY_FULL_RE = "(?i:" + "|".join(sorted(_DAY_NAMES, key=len, reverse=True)) + r")s?"
_DAY_ABBR_RE = "(?:" + "|".join(sorted(_DAY_ABBR, key=len, reverse=True)) + ")"
_DAY_ANY = rf"(?:{_DAY_FULL_RE}|{_DAY_ABBR_RE})"
P_DAY_RANGE = re.compile(rf"\b({_DAY_ANY})\b\.?\s*(?:-|–|—|(?i:bis|to|through|thru|till|until))\s*({_DAY_ANY})\b\.?")
P_DAY_FULL = re.compile(rf"\b({_DAY_FULL_RE})\b")
# "Mo"/"Do"/"So" are words too: an abbreviation counts only with its period or in a list of days
P_DAY_LIST_ABBR = re.compile(rf"\b({_DAY_ABBR_RE})\b(?=\s*(?:[,/&]|und|and)\s*(?:{_DAY_ANY})\b)|(?<=[,/&] )({_DAY_ABBR_RE})\b")
P_DAY_ABBR_DOT = re.compile(rf"\b({_DAY_ABBR_RE})\.")
P_DAY_GROUPS = {
    "weekdays": re.compile(r"\b(?:werktags|wochentags|an\s+Werktagen|Werktage|weekdays|on\s+weekdays|working\s+days)\b", _I),
    "weekend": re.compile(r"\b(?:Wochenende[n]?|weekends?)\b", _I),
    "daily": re.compile(r"\b(?:täglich|jeden\s+Tag|daily|every\s+day|seven\s+days\s+a\s+week|sieben\s+Tage\s+die\s+Woche)\b", _I),
}
_GROUP_DAYS = {"weekdays": range(0, 5), "weekend": range(5, 7), "daily": range(0, 7)}


def _day_index(word: str) -> int | None:
    if word in _DAY_ABBR:
        return _DAY_ABBR[word]
    w = word.lower()
    return _DAY_NAMES.get(w, _DAY_NAMES.get(w[:-1]) if w.endswith("s") else None)


def _day_items(surface: str, days) -> list[ContentItem]:
    return [ContentItem("weekday", (_DAYS[d],), surface.strip()) for d in days]


def _weekdays(scan: _Scan) -> None:
    def rng(m):
        a, b = _day_index(m.group(1)), _day_index(m.group(2))
        if a is None or b is None:
            return None
        return _day_items(m.group(0), [(a + i) % 7 for i in range((b - a) % 7 + 1)])

    def one(m):
        d = _day_index(m.group(1) or m.group(m.lastindex or 1))
        return None if d is None else _day_items(m.group(0), [d])

    scan.take(P_DAY_RANGE, rng)
    scan.take(P_DAY_FULL, one)
    scan.take(P_DAY_LIST_ABBR, lambda m: _day_items(m.group(0), [_day_index(m.group(1) or m.group(2))]))
    scan.take(P_DAY_ABBR_DOT, one)
    for name, pattern in P_DAY_GROUPS.items():
        scan.take(pattern, lambda m, name=name: _day_items(m.group(0), _GROUP_DAYS[name]))


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
