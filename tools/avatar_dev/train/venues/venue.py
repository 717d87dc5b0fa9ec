"""`Venue`: a random venue of one kind (museum, station, hotel, library, fair, town hall), rendered to
items (facts + questions + replies) in German and English. It draws its kind, name and writing
styles; the facts are written by topic: hours_facts.py, price_facts.py, service_facts.py (amenities,
services, contact), and kind_facts.py for what only its kind has. They all draw from the venue's
one random generator, in this order, so a seed gives the same venue."""
from __future__ import annotations

import random

from avatar_dev.train.venues.hours_facts import opening_hours, today_item
from avatar_dev.train.venues.kind_facts import KIND_FACTS
from avatar_dev.train.venues.price_facts import prices
from avatar_dev.train.venues.service_facts import amenities, contact, services
from avatar_dev.train.venues.values import Item, made_up_name, write_time
from avatar_dev.train.venues.words import KIND_NAMES, KINDS, PLACES


class Venue:
    """A random venue of one kind, rendered to items (facts + questions) in both languages."""

    def __init__(self, seed: int):
        rng = self.rng = random.Random(seed)
        self.kind = rng.choice(list(KINDS))
        noun_de, self.gender, self.noun_en = KINDS[self.kind]
        place = rng.choice(PLACES) if rng.random() < 0.6 else made_up_name(rng)
        i = rng.randrange(len(KIND_NAMES[self.kind][0]))
        self.name = {"de": f"{KIND_NAMES[self.kind][0][i]} {place}", "en": f"{place} {KIND_NAMES[self.kind][1][i]}"}
        self.noun = {"de": noun_de, "en": self.noun_en}
        self.time_style = rng.randrange(3)
        self.price_style = rng.choice([0, 1, 1, 2])
        self.items: list[Item] = []
        self.hours = opening_hours(self)
        prices(self)
        self.absent = amenities(self)
        KIND_FACTS[self.kind](self)
        contact(self)
        self.absent_services = services(self)

    def t(self, h: int, m: int, lang: str, bare: bool = False) -> str:
        """A time in this venue's style; bare = German without "Uhr" (it follows a range: "von 9 bis 17 Uhr")."""
        if bare and lang == "de":
            return f"{h}:{m:02d}" if (m or self.time_style != 1) else f"{h}"
        return write_time(self.rng, h, m, self.time_style, lang)

    def today_item(self, d: int) -> Item:
        """The pack's "today" fact for weekday d and the question about it."""
        return today_item(self.hours, self.noun, d)
