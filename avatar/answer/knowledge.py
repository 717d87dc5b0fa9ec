"""Knowledge packs: a venue's facts in German and English, read from `assets/venues/<name>/venue.toml`.

The format is written for venue staff, not programmers (docs/KNOWLEDGE.md). Every mistake in a
pack is a KnowledgeError naming the file, the fact and the field, so it can be fixed without us.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from avatar.answer.base import Fact
from avatar.errors import AvatarError
from avatar.answer.special_days import KEYWORDS as SPECIAL_KEYWORDS
from avatar.answer.special_days import SpecialDay, parse_dates, special_day, special_days_text
from avatar.model_contract import today_hours_text, week_hours_text

LANGS = ("de", "en")
TOPICS = ("hours", "prices", "rooms", "directions", "services", "rules", "contacts", "events", "about")
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_INTERVAL = re.compile(r"^\s*([01]?\d|2[0-4]):([0-5]\d)\s*-\s*([01]?\d|2[0-4]):([0-5]\d)\s*$")
_CLOSED = ("closed", "geschlossen")
_VENUE_KEYS = {"name", "kind", "name_en", "help_de", "help_en"}
_FACT_KEYS = {"id", "topic", "de", "en", "keywords"}
_TOP_KEYS = {"venue", "fact", "hours", "dates"}
RENDERED_IDS = ("hours-today", "hours-week", "hours-special")  # facts the kiosk writes from [hours] and [dates]

# Words a visitor uses for opening-time questions; they make the rendered hours facts findable.
_HOURS_KEYWORDS = {
    "de": "heute jetzt noch lange offen geöffnet öffnungszeiten öffnet schließt zu wann uhr",
    "en": "today now still long open opening hours opens close closes closed when time",
}


class KnowledgeError(AvatarError):
    """A knowledge pack cannot be read or breaks the format; the message names file, fact and field."""


@dataclass(frozen=True)
class PackFact:
    """One [[fact]] of a pack: the same statement in both languages."""
    id: str
    topic: str
    de: str
    en: str
    keywords: tuple[str, ...] = ()

    def text(self, lang: str) -> str:
        return self.de if lang == "de" else self.en


@dataclass
class KnowledgePack:
    name: str
    kind: str
    path: Path
    entries: list[PackFact]
    name_en: str = ""
    help: dict[str, str] = field(default_factory=dict)  # where visitors find staff, per language
    # Opening intervals per weekday ("mon".."sun"); an empty tuple means closed; None: no [hours].
    hours: dict[str, tuple[tuple[str, str], ...]] | None = None
    # Days that differ from the week ([dates]): "MM-DD" every year, "YYYY-MM-DD" once.
    dates: dict[str, SpecialDay] = field(default_factory=dict)
    # Which save of the file this is, for the operator: its modification time and a sha256 prefix.
    version: str = ""

    def display_name(self, lang: str) -> str:
        return self.name_en if lang == "en" and self.name_en else self.name

    def facts(self, lang: str, today: date | None = None) -> list[Fact]:
        """All facts in `lang`, with today's and the week's opening hours rendered from [hours]."""
        if lang not in LANGS:
            raise KnowledgeError(f"no facts in language '{lang}'", hint="use de or en")
        out = [Fact(e.id, lang, e.text(lang), e.topic) for e in self.entries]
        if self.hours is not None:
            out.extend(self.hours_facts(lang, today))
        return out

    def keywords(self, fact_id: str, lang: str) -> tuple[str, ...]:
        """Extra search words of a fact (the operator's `keywords`, or the built-in ones of hours facts)."""
        if fact_id in ("hours-today", "hours-week"):
            return tuple(_HOURS_KEYWORDS[lang].split())
        if fact_id == "hours-special":
            names = [n for d in self.dates.values() for n in d.names.values()]
            return tuple(f"{_HOURS_KEYWORDS[lang]} {SPECIAL_KEYWORDS[lang]} {' '.join(names)}".split())
        # a lookup, not a scan: a pack of 5,000 facts asks this for each of them when it is indexed
        cached = self.__dict__.get("_keywords_by_id")
        if cached is None or cached[0] is not self.entries or cached[1] != len(self.entries):
            cached = (self.entries, len(self.entries), {e.id: e.keywords for e in self.entries})
            self.__dict__["_keywords_by_id"] = cached
        return cached[2].get(fact_id, ())

    def hours_on(self, day: date) -> tuple[tuple[str, str], ...] | None:
        """The opening intervals on `day`: its [dates] entry if it has one, else its weekday's."""
        if self.hours is None:
            return None
        entry = special_day(self.dates, day)
        return entry.intervals if entry is not None else self.hours[WEEKDAYS[day.weekday()]]

    def hours_facts(self, lang: str, today: date | None = None) -> list[Fact]:
        """Today's and the week's hours, worded as the model learned them (avatar/model_contract.py),
        and the special days of the next two weeks when there are any (special_days.py)."""
        today = today or datetime.now().date()
        text = today_hours_text(today.weekday(), self.hours_on(today), lang)
        week = week_hours_text([self.hours[day] for day in WEEKDAYS], lang)
        facts = [Fact("hours-today", lang, text, "hours"), Fact("hours-week", lang, week, "hours")]
        special = special_days_text(self.dates, today, lang)
        if special:
            facts.append(Fact("hours-special", lang, special, "hours"))
        return facts


def pack_file(path: str | os.PathLike) -> Path:
    """The file behind a pack's path: a venue folder's venue.toml, or the file itself."""
    path = Path(path)
    try:
        folder = path.is_dir()
    except OSError:  # a folder on the way it may not look into: reading the file names that
        folder = False
    return path / "venue.toml" if folder else path


def load_pack(path: str | os.PathLike) -> KnowledgePack:
    """Read and check a pack: a venue folder (with venue.toml) or the venue.toml file itself."""
    file = pack_file(path)
    raw, mtime = _read_bytes(file)
    try:
        data = tomllib.loads(raw.decode("utf-8-sig"))  # a byte-order mark (Windows Notepad) is fine
    except UnicodeDecodeError:
        raise KnowledgeError(f"{file}: not UTF-8 text", hint="save the file as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise KnowledgeError(f"{file}: not valid TOML: {exc}",
                             hint="check quotes and brackets on the line named; see docs/KNOWLEDGE.md") from None
    pack = _parse(data, file)
    pack.version = pack_version(raw, mtime)
    return pack


def pack_version(raw: bytes, mtime: float) -> str:
    """'saved 2026-12-07 02:20:11, sha256 1a2b3c4d5e6f': tells two saves of a pack apart at a glance."""
    return f"saved {datetime.fromtimestamp(mtime):%Y-%m-%d %H:%M:%S}, sha256 {hashlib.sha256(raw).hexdigest()[:12]}"


def _read_bytes(file: Path) -> tuple[bytes, float]:
    """The file's bytes and modification time; what the operating system refuses is a KnowledgeError too."""
    try:
        kind = os.stat(file).st_mode
        if not (stat.S_ISREG(kind) or stat.S_ISDIR(kind)):  # a pipe or a device would block or never end
            raise KnowledgeError(f"{file}: is not a plain file", hint="put the pack's text in a file named venue.toml")
        with open(file, "rb") as f:
            return f.read(), os.fstat(f.fileno()).st_mtime
    except FileNotFoundError:
        raise KnowledgeError(f"knowledge pack not found: {file}",
                             hint="pass a venue folder containing venue.toml, e.g. assets/venues/sample") from None
    except IsADirectoryError:
        raise KnowledgeError(f"{file}: is a folder, not a file",
                             hint="the pack's facts belong in a file named venue.toml; rename or remove the folder") from None
    except PermissionError:
        raise KnowledgeError(f"{file}: cannot be read (permission denied)",
                             hint=f"let the kiosk's user read it: chmod a+r {file}") from None
    except OSError as exc:
        raise KnowledgeError(f"{file}: cannot be read: {exc.strerror or exc}",
                             hint="check the disk and the file; copy the pack back from its source") from None


def _parse(data: dict[str, Any], file: Path) -> KnowledgePack:
    def fail(where: str, problem: str, hint: str = "see docs/KNOWLEDGE.md for the format") -> KnowledgeError:
        return KnowledgeError(f"{file}: {where}: {problem}", hint=hint)

    for key in data:
        if key not in _TOP_KEYS:
            raise fail(f"'{key}'", "unknown section", f"allowed sections: {', '.join(sorted(_TOP_KEYS))}")
    venue = data.get("venue")
    if not isinstance(venue, dict):
        raise fail("[venue]", "missing", "start the file with [venue] and its name and kind")
    for key in venue:
        if key not in _VENUE_KEYS:
            raise fail(f"[venue] field '{key}'", "unknown field", f"allowed: {', '.join(sorted(_VENUE_KEYS))}")
    for key in ("name", "kind"):
        if key in venue and not isinstance(venue[key], str):
            raise fail(f"[venue] field '{key}'", "must be text in quotes", f'e.g. {key} = "{venue[key]}"')
        if not isinstance(venue.get(key), str) or not venue[key].strip():
            raise fail(f"[venue] field '{key}'", "missing or empty", 'write it as text, e.g. kind = "museum"')
    for key in ("name_en", "help_de", "help_en"):
        if key in venue and not isinstance(venue[key], str):
            raise fail(f"[venue] field '{key}'", "must be text in quotes")

    raw_facts = data.get("fact", [])
    if not isinstance(raw_facts, list) or not raw_facts:
        raise fail("[[fact]]", "no facts", "add at least one [[fact]] table with id, topic, de and en")
    entries: list[PackFact] = []
    seen: set[str] = set()
    for n, raw in enumerate(raw_facts, 1):
        label = f"fact #{n}"
        if isinstance(raw, dict) and isinstance(raw.get("id"), str):
            label = f"fact '{raw['id']}' (#{n})"
        if not isinstance(raw, dict):
            raise fail(label, "must be a [[fact]] table")
        for key in raw:
            if key not in _FACT_KEYS:
                raise fail(f"{label} field '{key}'", "unknown field", f"allowed: {', '.join(sorted(_FACT_KEYS))}")
        fid = raw.get("id")
        if fid is not None and not isinstance(fid, str):
            raise fail(f"{label} field 'id'", "must be text in quotes", f'e.g. id = "{fid}"')
        if not isinstance(fid, str) or not fid:
            raise fail(f"{label} field 'id'", "missing", 'give every fact a short id, e.g. id = "cafe-hours"')
        if not _ID.match(fid):
            raise fail(f"{label} field 'id'", f"'{fid}' may only use a-z, 0-9, '-' and '_'")
        if fid in seen or fid in RENDERED_IDS:
            raise fail(f"{label} field 'id'", f"'{fid}' is used twice (or is reserved)", "give each fact its own id")
        seen.add(fid)
        topic = raw.get("topic")
        if topic is not None and not isinstance(topic, str):
            raise fail(f"{label} field 'topic'", "must be text in quotes", f"use one of: {', '.join(TOPICS)}")
        if topic not in TOPICS:
            raise fail(f"{label} field 'topic'", f"{topic!r} is not a topic", f"use one of: {', '.join(TOPICS)}")
        texts = {}
        for lang in LANGS:
            text = raw.get(lang)
            if text is not None and not isinstance(text, str):
                raise fail(f"{label} field '{lang}'", "must be text in quotes", f'e.g. {lang} = "..."')
            if not isinstance(text, str) or not text.strip():
                raise fail(f"{label} field '{lang}'", "missing or empty",
                           "every fact needs both languages: de = \"...\" and en = \"...\"")
            texts[lang] = " ".join(text.split())
        keywords = raw.get("keywords", [])
        if isinstance(keywords, str):
            keywords = keywords.split()
        if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
            raise fail(f"{label} field 'keywords'", "must be a list of words", 'e.g. keywords = ["Garderobe", "coat"]')
        entries.append(PackFact(fid, topic, texts["de"], texts["en"], tuple(keywords)))

    hours = None
    if "hours" in data:
        hours = _parse_hours(data["hours"], fail)
    dates = {}
    if "dates" in data:
        if hours is None:
            raise fail("[dates]", "needs [hours]", "the dates change the week's hours: write [hours] first")
        dates = parse_dates(data["dates"], lambda value, where: _parse_day(value, where, fail), fail)
    help_text = {lang: venue[f"help_{lang}"].strip() for lang in LANGS if venue.get(f"help_{lang}", "").strip()}
    return KnowledgePack(name=venue["name"].strip(), kind=venue["kind"].strip(), path=file.parent,
                         entries=entries, name_en=venue.get("name_en", "").strip(), help=help_text, hours=hours,
                         dates=dates)


def _parse_hours(raw: Any, fail) -> dict[str, tuple[tuple[str, str], ...]]:
    if not isinstance(raw, dict):
        raise fail("[hours]", "must be a table of weekdays")
    hours: dict[str, tuple[tuple[str, str], ...]] = {}
    for key in raw:
        if key not in WEEKDAYS:
            raise fail(f"[hours] field '{key}'", "not a weekday", f"use {', '.join(WEEKDAYS)}")
    for day in WEEKDAYS:
        value = raw.get(day)
        if value is None:
            raise fail(f"[hours] field '{day}'", "missing", 'list all seven days; write "closed" for closed days')
        hours[day] = _parse_day(value, f"[hours] field '{day}'", fail)
    return hours


def _parse_day(value: Any, where: str, fail) -> tuple[tuple[str, str], ...]:
    """One day's opening intervals from "closed" or "10:00-13:00, 14:00-18:00" (empty: closed)."""
    if not isinstance(value, str):
        raise fail(where, "must be text in quotes", 'e.g. "10:00-18:00" or "closed"')
    if value.strip().lower() in _CLOSED:
        return ()
    intervals = []
    last_end = -1
    for part in value.split(","):
        m = _INTERVAL.match(part)
        if not m:
            raise fail(where, f"cannot read {value!r}", 'write "10:00-18:00", "10:00-13:00, 14:00-18:00" or "closed"')
        start, end = int(m[1]) * 60 + int(m[2]), int(m[3]) * 60 + int(m[4])
        if max(start, end) > 24 * 60:  # 24:00 is the end of the day; 24:30 is no time
            raise fail(where, f"{part.strip()!r} is not a time of day", "times run from 00:00 to 24:00")
        if start >= end:
            raise fail(where, f"{part.strip()!r} opens after it closes",
                       'write the opening time first, e.g. "10:00-18:00"; past midnight: "18:00-24:00" '
                       "and the early hours on the next day")
        if start < last_end:
            raise fail(where, f"{part.strip()!r} overlaps or comes before the interval in front of it",
                       'list intervals in order of the day, e.g. "10:00-13:00, 14:00-18:00"')
        last_end = end
        intervals.append((f"{int(m[1]):02d}:{m[2]}", f"{int(m[3]):02d}:{m[4]}"))
    return tuple(intervals)
