"""`Item`, one fact of a templated venue in both languages with its questions and replies, and how a
venue writes its values: each venue picks its own style, so the model learns to copy, not to format."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from avatar import model_contract
from avatar_dev.train.venues.words import SYLLABLES


@dataclass
class Item:
    """One fact of a venue in both languages, and how to ask about it."""
    topic: str
    fact: dict[str, str]
    questions: dict[str, list[str]]
    reply: dict[str, list[str]]
    values: dict[str, list[str]]   # strings the reply must contain to state the fact
    key: str = ""                  # for follow-ups: the day, city or amenity it is about
    mood: str = "info"


class DrawnVenue(Protocol):
    """What the fact writers (hours_facts.py, price_facts.py, service_facts.py, kind_facts.py) use of
    the venue they write for: here, below them, so that they need not import venue.py, which imports them."""
    rng: random.Random
    kind: str
    name: dict[str, str]
    noun: dict[str, str]
    price_style: int
    items: list[Item]

    def t(self, h: int, m: int, lang: str, bare: bool = False) -> str: ...


def write_time(rng: random.Random, h: int, m: int, style: int, lang: str) -> str:
    if lang == "de":
        return f"{h}:{m:02d} Uhr" if (m or style == 0) else f"{h} Uhr"
    if style == 2:
        suffix = "am" if h < 12 else "pm"
        h12 = h % 12 or 12
        return f"{h12}:{m:02d} {suffix}" if m else f"{h12} {suffix}"
    return f"{h}:{m:02d}"


def write_price(euros: int, cents: int, lang: str, style: int = 0) -> str:
    if lang == "de":
        amount = f"{euros},{cents:02d}" if cents else f"{euros}"
        return f"{amount} €" if style else f"{amount} Euro"
    amount = f"{euros}.{cents:02d}" if cents else f"{euros}"
    return (f"{amount} €", f"€{amount}")[style - 1] if style else f"{amount} euros"


def intervals(hours: tuple[dict, dict] | None, lang: str) -> list[tuple[str, str]]:
    return [] if hours is None else [(hours[0][lang], hours[1][lang])]


def day_hours_text(d: int, hours: tuple[dict, dict] | None, lang: str) -> str:
    """One weekday's opening hours as a fact sentence (the kiosk words a pack's [hours] the same way)."""
    return model_contract.day_hours_text(d, intervals(hours, lang), lang)


def week_hours_text(hours: list, lang: str) -> str:
    """The week in one sentence, equal neighbouring days grouped (as the kiosk words it)."""
    return model_contract.week_hours_text([intervals(h, lang) for h in hours], lang)


def join_list(items: list[str], lang: str) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + (" und " if lang == "de" else " and ") + items[-1]


def made_up_name(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
