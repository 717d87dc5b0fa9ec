"""What the embedded model and the kiosk must agree on: the model learned these words in training
(tools/avatar_dev/train/), and the kiosk (avatar/answer/) must write its facts and judge its replies with the
very same ones.

- the record's special tokens and moods (`<de>|<en> <mood> <sep> text <eos>`),
- the weekday names and the opening-hours sentences (a pack's [hours] rendered as the training
  venues' hours facts were),
- the decline phrases the model learned to say when the facts do not answer,
- the kinds of venue the training venues were (their hours sentences name them: "die Messe ist ...
  geöffnet"; a reply naming one the venue is not has said a training template, not the pack),
- the checks tables: the words, adjacent word pairs and decline words of the training corpus, written
  once into the model folder at ship time (tools/avatar_dev/train/ship.py) and read here at run time.

A core module (no torch, no stage imports): train/, answer/ and llm/ all import it; answer/ never
imports train/ (tests/test_import_rules.py).
"""
from __future__ import annotations

import gzip
import json
import logging
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

log = logging.getLogger(__name__)

# --- the training venues' kinds -----------------------------------------------------------------
KINDS = {  # kind: (German noun with article, gender for "im/in der", English noun)
    "museum": ("das Museum", "n", "the museum"), "station": ("der Bahnhof", "m", "the station"),
    "hotel": ("das Hotel", "n", "the hotel"), "library": ("die Bibliothek", "f", "the library"),
    "fair": ("die Messe", "f", "the fair"), "townhall": ("das Rathaus", "n", "the town hall"),
}


def foreign_kinds(text: str, lang: str, known: str) -> list[str]:
    """The training venues' kind nouns that `text` says and `known` (the facts, the question, the
    venue's own name and kind) does not: "Am Samstag ist die Messe geöffnet" at a botanical garden.
    German nouns count inside compounds ("Buchmesse"); English ones as whole words."""
    said, held = text.lower(), known.lower()
    out = []
    for de, _, en in KINDS.values():
        noun = (de.split(" ", 1)[1] if lang == "de" else en.split(" ", 1)[1]).lower()
        if lang == "de":
            found = noun in said and noun not in held
        else:
            pattern = rf"\b{re.escape(noun)}\b"
            found = re.search(pattern, said) is not None and re.search(pattern, held) is None
        if found:
            out.append(noun)
    return out


# --- the reply record ------------------------------------------------------------------------------
SPECIAL_TOKENS = ["<pad>", "<unk>", "<bos>", "<eos>", "<mask>", "<sep>", "<fact>", "<de>", "<en>",
                  "<neutral>", "<happy>", "<sorry>", "<info>", "<user>", "<bot>"]
MOODS = ("neutral", "happy", "sorry", "info")

# --- opening hours ---------------------------------------------------------------------------------
DAYS = {"de": ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
        "en": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]}

Intervals = Sequence[tuple[str, str]]  # opening intervals of one day ("10:00", "18:00"); empty: closed


def intervals_text(intervals: Intervals, lang: str) -> str:
    """'von 10:00 bis 13:00 Uhr und 14:00 bis 18:00 Uhr' without the 'von' / 'from 10:00 to 18:00'."""
    if lang == "de":
        return " und ".join(f"{a} bis {b} Uhr" for a, b in intervals)
    return " and ".join(f"from {a} to {b}" for a, b in intervals)


def day_hours_text(day: int, intervals: Intervals, lang: str) -> str:
    """One weekday's opening hours as a fact sentence: "Am Sonntag haben wir von 11:00 bis 20:00 Uhr geöffnet."."""
    name = DAYS[lang][day]
    if not intervals:
        return f"Am {name} haben wir geschlossen." if lang == "de" else f"On {name} we are closed."
    if lang == "de":
        return f"Am {name} haben wir von {intervals_text(intervals, lang)} geöffnet."
    return f"On {name} we are open {intervals_text(intervals, lang)}."


def today_hours_text(day: int, intervals: Intervals, lang: str) -> str:
    """Today's opening hours: "Heute, am Dienstag, haben wir von 9:00 bis 18:00 Uhr geöffnet."."""
    name = DAYS[lang][day]
    if lang == "de":
        state = f"von {intervals_text(intervals, lang)} geöffnet" if intervals else "geschlossen"
        return f"Heute, am {name}, haben wir {state}."
    state = f"open {intervals_text(intervals, lang)}" if intervals else "closed"
    return f"Today, {name}, we are {state}."


def week_hours_text(week: Sequence[Intervals], lang: str) -> str:
    """The week (seven days' intervals, Monday first) in one sentence, equal neighbouring days grouped:
    "Unsere Öffnungszeiten: Montag geschlossen; Dienstag bis Sonntag von 10:00 bis 18:00 Uhr."."""
    groups: list[list] = []
    for d, intervals in enumerate(week):
        key = tuple(tuple(iv) for iv in intervals)
        if groups and groups[-1][2] == key:
            groups[-1][1] = d
        else:
            groups.append([d, d, key])
    names, parts = DAYS[lang], []
    to, also = (" bis ", " und ") if lang == "de" else (" to ", " and ")
    for first, last, key in groups:
        days = names[first] if first == last else f"{names[first]}{also if last == first + 1 else to}{names[last]}"
        if lang == "de":
            parts.append(f"{days} von {intervals_text(key, lang)}" if key else f"{days} geschlossen")
        else:
            parts.append(f"{days} {intervals_text(key, lang)}" if key else f"{days} closed")
    return ("Unsere Öffnungszeiten: " if lang == "de" else "Our opening hours: ") + "; ".join(parts) + "."


# --- declines --------------------------------------------------------------------------------------
DECLINE = {"de": ["Das weiß ich leider nicht. Bitte fragen Sie unser Personal.",
                  "Dazu habe ich leider keine Information. Unser Personal hilft Ihnen gern weiter.",
                  "Das kann ich Ihnen leider nicht sagen. Fragen Sie bitte an der Information."],
           "en": ["Sorry, I don't know that. Please ask our staff.",
                  "I'm afraid I have no information about that. Our staff will be happy to help.",
                  "I can't tell you that, sorry. Please ask at the information desk."]}


def _first_sentence(text: str) -> str:
    return " ".join(text.strip().lower().split(".")[0].split())


_DECLINE_OPENINGS = frozenset(_first_sentence(s) for phrases in DECLINE.values() for s in phrases)


def is_decline(text: str, mood: str) -> bool:
    """The sorry record, or one of the decline sentences above said under another mood (a decode
    with the sorry mood closed off still wrote "Das kann ich Ihnen leider nicht sagen.")."""
    return mood == "sorry" or _first_sentence(text) in _DECLINE_OPENINGS


# --- the checks tables in the model folder -----------------------------------------------------------
CHECKS_TABLES = "checks_tables.json.gz"
TABLES_FORMAT = 1


@dataclass(frozen=True)
class CheckTables:
    """What the checks read from the training corpus (see avatar/answer/checks/lexicon.py)."""
    words: frozenset[str]                       # words of the replies, questions, facts and small talk
    pairs: frozenset[tuple[str, str]]           # their adjacent word pairs (numbers as "#")
    decline_words: dict[str, frozenset[str]]    # per language: the words of the declines the model learned
    small_talk_nouns: dict[str, frozenset[str]]  # per language: small-talk words that are not venue names


def tables_bytes(tables: CheckTables) -> bytes:
    """The tables as gzip'd JSON, sorted and without a timestamp: the same tables give the same bytes."""
    data = {"format": TABLES_FORMAT,
            "words": sorted(tables.words),
            "pairs": sorted(f"{a} {b}" for a, b in tables.pairs),
            "decline_words": {lang: sorted(ws) for lang, ws in sorted(tables.decline_words.items())},
            "small_talk_nouns": {lang: sorted(ws) for lang, ws in sorted(tables.small_talk_nouns.items())}}
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def write_tables(folder: str | os.PathLike, tables: CheckTables) -> Path:
    path = Path(folder) / CHECKS_TABLES
    path.write_bytes(tables_bytes(tables))
    read_tables.cache_clear()
    return path


@lru_cache(maxsize=4)
def read_tables(folder: str | os.PathLike) -> CheckTables | None:
    """The checks tables of a model folder; None (and one log line) when the folder has none, as a
    model this project did not train has not: the checks that need them are then skipped."""
    path = Path(folder) / CHECKS_TABLES
    if not path.is_file():
        log.warning("model folder %s has no %s: the lexicon, word-pair and decline-word checks are skipped "
                 "(python -m avatar_dev.train.ship --tables-only FOLDER writes them)", folder, CHECKS_TABLES)
        return None
    try:
        data = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
        if data.get("format") != TABLES_FORMAT:
            raise ValueError(f"format {data.get('format')!r}, expected {TABLES_FORMAT}")
        return CheckTables(words=frozenset(data["words"]),
                           pairs=frozenset(tuple(p.split(" ", 1)) for p in data["pairs"]),
                           decline_words={k: frozenset(v) for k, v in data["decline_words"].items()},
                           small_talk_nouns={k: frozenset(v) for k, v in data["small_talk_nouns"].items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("cannot read %s (%s): the lexicon, word-pair and decline-word checks are skipped "
                    "(python -m avatar_dev.train.ship --tables-only FOLDER writes it again)", path, exc)
        return None


# --- which model folder the checks read -------------------------------------------------------------
DEFAULT_MODEL = "models/avatar-mdlm"  # llm.model's default (avatar/defaults.toml)
_model_folder: Path | None = None


def use_model_folder(folder: str | os.PathLike | None) -> None:
    """The model in use (the loader calls this); None: back to the default model folder."""
    global _model_folder
    _model_folder = Path(folder) if folder is not None else None


def model_folder() -> Path:
    from avatar.paths import resolve

    return _model_folder if _model_folder is not None else resolve(DEFAULT_MODEL)


def checks_tables() -> CheckTables | None:
    """The checks tables of the model in use (cached per folder), or None: skip those checks."""
    return read_tables(model_folder())
