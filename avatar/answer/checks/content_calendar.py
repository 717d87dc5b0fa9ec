"""The calendar items of a text: times ("18 Uhr" = "18:00" = "6 pm", "halb sieben"), dates
("3. Mai" = "May 3rd"), months and weekdays ("Mo" = "Monday" = "Montag", "Mo-Fr", "werktags").
Recognisers for content.extract (avatar/answer/checks/content.py), which decides their order."""
from __future__ import annotations

import re

from avatar.answer.checks.content_items import _I, _N, _ORD_SUFFIX, ContentItem, _Scan
from avatar.answer.checks.number_words import CARDINAL_WORDS_RE, ORDINAL_WORDS_RE, number_value, ordinal_value


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


_MER = r"([ap])(?:\.\s?m\.|\s?m\b)"
P_TIME_RANGE_UHR = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*(?:-|–|—|bis)\s*(\d{1,2})(?:[:.](\d{2}))?\s*Uhr\b", _I)
P_TIME_12 = re.compile(rf"\b({_N})(?::(\d{{2}}))?\s*{_MER}", _I)
P_TIME_DOTTED_12 = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.\s?m\.", _I)
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



# ------------------------------------------------------------------------------------------ dates
_MONTHS = {"januar": 1, "jänner": 1, "january": 1, "jan": 1, "februar": 2, "february": 2, "feb": 2, "märz": 3,
           "maerz": 3, "march": 3, "mär": 3, "mar": 3, "april": 4, "apr": 4, "mai": 5, "may": 5, "juni": 6,
           "june": 6, "jun": 6, "juli": 7, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
           "sep": 9, "sept": 9, "oktober": 10, "october": 10, "okt": 10, "oct": 10, "november": 11, "nov": 11,
           "dezember": 12, "december": 12, "dez": 12, "dec": 12}
_MONTH_RE = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?"
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
