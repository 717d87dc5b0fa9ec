"""Days whose opening hours differ from the week's: holidays, closures, late openings (`[dates]`).

A kiosk is left alone for weeks, and the days it must get right are the ones that are not like the
others: "Haben Sie heute offen?" on Christmas Day. An operator writes them once:

    [dates]
    "12-24" = "10:00-14:00"                                          # every year
    "12-25" = { hours = "closed", de = "1. Weihnachtstag", en = "Christmas Day" }
    "2026-12-31" = "10:00-16:00"                                     # that year only

On such a day the pack's "today" fact says that day's hours (in the sentence the model learned), a
weekday asked about ("am Freitag") is the coming one, and for the next two weeks a fact lists the
special days, so "Habt ihr an Weihnachten offen?" finds them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Callable

from avatar.model_contract import DAYS, intervals_text

_KEY = re.compile(r"^(?:(\d{4})-)?(\d{2})-(\d{2})$")
_FIELDS = {"hours", "de", "en"}
AHEAD_DAYS = 14  # the special days fact lists the days from today this far ahead
_MONTHS = {"de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
                  "November", "Dezember"),
           "en": ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                  "October", "November", "December")}
# Words visitors use for such days; they make the special days fact findable.
KEYWORDS = {"de": "feiertag feiertage feiertagen heiligabend weihnachten silvester neujahr ostern pfingsten "
                  "sonderöffnungszeiten ausnahme geschlossen",
            "en": "holiday holidays christmas eve new year easter special hours closed"}


@dataclass(frozen=True)
class SpecialDay:
    intervals: tuple[tuple[str, str], ...]  # empty: closed
    names: dict[str, str] = field(default_factory=dict)  # "de"/"en": what the day is called, if given


def parse_dates(raw: Any, parse_day: Callable[[Any, str], tuple[tuple[str, str], ...]], fail) -> dict[str, SpecialDay]:
    """`[dates]`: keys "MM-DD" (every year) or "YYYY-MM-DD"; values an hours text as in [hours]
    ("closed" or "10:00-14:00") or a table with `hours` and the day's name in `de` and `en`."""
    if not isinstance(raw, dict):
        raise fail("[dates]", "must be a table of dates", 'e.g. "12-25" = "closed"')
    days: dict[str, SpecialDay] = {}
    for key, value in raw.items():
        where = f"[dates] date '{key}'"
        m = _KEY.match(key)
        if not m:
            raise fail(where, "is not a date", 'write "MM-DD" for every year or "YYYY-MM-DD" for one, e.g. "12-25"')
        year = int(m[1]) if m[1] else 2024  # a leap year: "02-29" is a date
        try:
            date(year, int(m[2]), int(m[3]))
        except ValueError:
            raise fail(where, "no such day", 'check month and day, e.g. "12-25"') from None
        names: dict[str, str] = {}
        if isinstance(value, dict):
            for k in value:
                if k not in _FIELDS:
                    raise fail(f"{where} field '{k}'", "unknown field", f"allowed: {', '.join(sorted(_FIELDS))}")
            for lang in ("de", "en"):
                if lang in value:
                    if not isinstance(value[lang], str) or not value[lang].strip():
                        raise fail(f"{where} field '{lang}'", "must be the day's name as text", 'e.g. de = "Heiligabend"')
                    names[lang] = " ".join(value[lang].split())
            if "hours" not in value:
                raise fail(f"{where} field 'hours'", "missing", 'e.g. hours = "closed" or hours = "10:00-14:00"')
            value = value["hours"]
        days[key] = SpecialDay(parse_day(value, where), names)
    return days


def special_day(dates: dict[str, SpecialDay], day: date) -> SpecialDay | None:
    """The entry for `day`: its own date first, then the every-year one."""
    return dates.get(day.isoformat()) or dates.get(day.strftime("%m-%d"))


def special_days_text(dates: dict[str, SpecialDay], today: date, lang: str) -> str | None:
    """The special days from today on (AHEAD_DAYS), one sentence; None when there are none."""
    parts = []
    for n in range(AHEAD_DAYS):
        day = today + timedelta(days=n)
        entry = special_day(dates, day)
        if entry is None:
            continue
        when = _date_words(day, lang)
        name = entry.names.get(lang) or entry.names.get("en" if lang == "de" else "de")
        label = f"{name}, {when}" if name else when
        if lang == "de":
            state = f"von {intervals_text(entry.intervals, lang)} geöffnet" if entry.intervals else "geschlossen"
        else:
            state = f"open {intervals_text(entry.intervals, lang)}" if entry.intervals else "closed"
        parts.append(f"{label}: {state}")
    if not parts:
        return None
    head = "Abweichende Öffnungszeiten" if lang == "de" else "Special opening hours"
    return f"{head}: " + "; ".join(parts) + "."


def _date_words(day: date, lang: str) -> str:
    weekday = DAYS[lang][day.weekday()]
    if lang == "de":
        return f"{weekday}, den {day.day}. {_MONTHS['de'][day.month - 1]}"
    return f"{weekday} {day.day} {_MONTHS['en'][day.month - 1]}"
