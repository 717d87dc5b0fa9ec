"""Training examples from randomised synthetic venues: (facts, history, question) -> reply record.

Every venue is drawn from a seeded random generator and rendered to fact sentences in German and
English; a question about one fact is asked in the fact's language, often as speech recognition
would deliver it (lower case, no punctuation, a misheard word). The prompt holds the fact that
answers it plus a few distractors (the retriever's other hits), so the model learns to pick and
copy values, not to memorise venues. Some questions have no answer in the facts (decline and point
to staff), some are follow-ups ("und am Sonntag?"), some are small talk from chatterbot-corpus and
chitchat-dataset. Train and held-out venues come from disjoint seeds.
"""
from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Iterator

from avatar import model_contract
from avatar.model_contract import DAYS, DECLINE  # the wording the kiosk shares (avatar/model_contract.py)

MONTHS = {"de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
                 "Oktober", "November", "Dezember"],
          "en": ["January", "February", "March", "April", "May", "June", "July", "August",
                 "September", "October", "November", "December"]}
KINDS = {  # kind: (German noun with article, gender for "im/in der", English noun)
    "museum": ("das Museum", "n", "the museum"), "station": ("der Bahnhof", "m", "the station"),
    "hotel": ("das Hotel", "n", "the hotel"), "library": ("die Bibliothek", "f", "the library"),
    "fair": ("die Messe", "f", "the fair"), "townhall": ("das Rathaus", "n", "the town hall"),
}
KIND_NAMES = {"museum": (["Stadtmuseum", "Kunstmuseum", "Museum für Technik", "Naturkundemuseum", "Heimatmuseum"],
                         ["City Museum", "Art Museum", "Museum of Technology", "Natural History Museum", "Local History Museum"]),
              "station": (["Hauptbahnhof", "Bahnhof", "Südbahnhof"], ["Central Station", "Station", "South Station"]),
              "hotel": (["Hotel", "Parkhotel", "Hotel am See"], ["Hotel", "Park Hotel", "Lakeside Hotel"]),
              "library": (["Stadtbibliothek", "Bibliothek", "Zentralbibliothek"], ["City Library", "Library", "Central Library"]),
              "fair": (["Messe", "Fachmesse", "Buchmesse"], ["Fair", "Trade Fair", "Book Fair"]),
              "townhall": (["Rathaus", "Neues Rathaus", "Bürgerzentrum"], ["Town Hall", "New Town Hall", "Civic Centre"])}
PLACES = ["Lindenau", "Bergheim", "Altstadt", "Rosenfeld", "Kirchberg", "Weidenbach", "Falkenstein", "Erlangen",
          "Hollwitz", "Marienthal", "Sonnenberg", "Eichwald", "Brunnhausen", "Greifsburg", "Talheim", "Norderau",
          "Westerholz", "Steinach", "Wolfsfeld", "Grünwald", "Oberau", "Neustadt", "Birkenhain", "Lauterbach"]
SYLLABLES = ["ber", "lin", "dor", "au", "stein", "wal", "ha", "fen", "kir", "mar", "ros", "tal", "hei", "ner",
             "bach", "burg", "feld", "heim", "see", "wik", "len", "gau", "ost", "nor", "sel", "dra", "mun", "ko"]
FIRST = ["Anna", "Lukas", "Marie", "Jonas", "Sophie", "Felix", "Emma", "Paul", "Clara", "David", "Lena", "Tom",
         "Nora", "Ben", "Ida", "Max", "Mia", "Karl", "Eva", "Jan", "Ole", "Rosa", "Omar", "Lina", "Aylin"]
LAST = ["Becker", "Schmidt", "Wagner", "Hoffmann", "Klein", "Wolf", "Neumann", "Braun", "Krüger", "Hartmann",
        "Lange", "Vogel", "Fuchs", "Berger", "Frank", "Roth", "Arnold", "Keller", "Yilmaz", "Novak", "Weber"]
COMPANY = ["Solartec", "Nordlicht", "Blauwerk", "Aqua Vita", "Holzmann", "Datafix", "Greenbox", "Lumen",
           "Kraftwerk Nord", "Vinora", "Alpina Tools", "Textura", "Medisan", "Robomax", "Papyrus", "Brightway",
           "Ecofarm", "Velocity", "Sonnenhof", "Kartell", "Primus", "Orbis", "Nautic", "Feinkost Berger"]

FLOORS = [("im Untergeschoss", "in the basement"), ("im Erdgeschoss", "on the ground floor"),
          ("im ersten Stock", "on the first floor"), ("im zweiten Stock", "on the second floor"),
          ("im dritten Stock", "on the third floor"), ("im 1. Obergeschoss", "on level 1"),
          ("im 2. Obergeschoss", "on level 2"), ("im 3. Obergeschoss", "on level 3")]
SPOTS = [("links neben dem Eingang", "to the left of the entrance"), ("rechts neben dem Eingang", "to the right of the entrance"),
         ("gegenüber dem Aufzug", "opposite the lift"), ("am Ende des Gangs", "at the end of the corridor"),
         ("neben der Treppe", "next to the stairs"), ("hinter der Kasse", "behind the ticket desk"),
         ("gegenüber dem Shop", "opposite the shop"), ("neben dem Café", "next to the café"),
         ("direkt am Haupteingang", "right at the main entrance"), ("am Nordeingang", "at the north entrance"),
         ("im Westflügel", "in the west wing"), ("im Ostflügel", "in the east wing"),
         ("hinter dem Infoschalter", "behind the information desk"), ("neben den Schließfächern", "next to the lockers")]
# amenity: (German noun phrase, plural?, question words de, English noun phrase, plural?, question words en)
AMENITIES = [
    ("die Toiletten", True, ["Toiletten", "Toilette", "das WC", "die Toiletten"], "the toilets", True, ["toilets", "toilet", "restrooms", "the toilets"]),
    ("die Garderobe", False, ["Garderobe", "die Garderobe"], "the cloakroom", False, ["cloakroom", "coat check", "the cloakroom"]),
    ("das Café", False, ["Café", "das Café", "ein Café"], "the café", False, ["café", "cafe", "coffee shop", "the café"]),
    ("der Aufzug", False, ["Aufzug", "der Aufzug", "Fahrstuhl", "Lift"], "the lift", False, ["lift", "elevator", "the lift"]),
    ("der Shop", False, ["Shop", "der Shop", "Museumsshop", "Laden"], "the shop", False, ["shop", "gift shop", "the shop", "store"]),
    ("die Schließfächer", True, ["Schließfächer", "die Schließfächer", "Schließfach"], "the lockers", True, ["lockers", "the lockers", "locker"]),
    ("die Erste Hilfe", False, ["Erste Hilfe", "die Erste Hilfe", "Sanitäter"], "first aid", False, ["first aid", "first aid room"]),
    ("das Fundbüro", False, ["Fundbüro", "das Fundbüro"], "the lost and found office", False, ["lost and found", "lost property"]),
    ("der Wickelraum", False, ["Wickelraum", "Wickeltisch", "der Wickelraum"], "the baby changing room", False, ["baby changing room", "changing table"]),
    ("der Geldautomat", False, ["Geldautomat", "der Geldautomat", "Bankautomat"], "the cash machine", False, ["cash machine", "ATM", "cashpoint"]),
    ("das Restaurant", False, ["Restaurant", "das Restaurant"], "the restaurant", False, ["restaurant", "the restaurant"]),
    ("der Gebetsraum", False, ["Gebetsraum", "Raum der Stille"], "the prayer room", False, ["prayer room", "quiet room"]),
    ("die Bibliothek", False, ["Bibliothek", "Bücherei"], "the reading room", False, ["reading room", "library"]),
    ("der Ticketschalter", False, ["Ticketschalter", "Kasse", "Fahrkartenschalter"], "the ticket office", False, ["ticket office", "ticket desk", "box office"]),
]
CITIES = ["Hamburg", "München", "Köln", "Frankfurt", "Berlin", "Leipzig", "Dresden", "Hannover", "Bremen", "Stuttgart",
          "Nürnberg", "Dortmund", "Kassel", "Erfurt", "Rostock", "Kiel", "Ulm", "Augsburg", "Mainz", "Bonn", "Aachen",
          "Freiburg", "Basel", "Zürich", "Wien", "Salzburg", "Prag", "Amsterdam", "Paris", "Lübeck", "Jena", "Trier"]
OFFICES = [("das Bürgerbüro", "the citizens' office", ["Bürgerbüro"], ["citizens' office", "citizen office"]),
           ("das Standesamt", "the registry office", ["Standesamt"], ["registry office", "registrar"]),
           ("die Ausländerbehörde", "the immigration office", ["Ausländerbehörde"], ["immigration office", "foreigners office"]),
           ("das Ordnungsamt", "the public order office", ["Ordnungsamt"], ["public order office"]),
           ("die Kfz-Zulassung", "the vehicle registration office", ["Kfz-Zulassung", "Zulassungsstelle"], ["vehicle registration", "car registration"]),
           ("das Bauamt", "the building office", ["Bauamt"], ["building office", "planning office"]),
           ("das Sozialamt", "the social welfare office", ["Sozialamt"], ["social welfare office", "welfare office"])]
UNKNOWN_TOPICS = {  # questions no synthetic venue can answer
    "de": ["Kann man hier Fahrräder leihen?", "Wie wird das Wetter morgen?", "Gibt es hier eine Apotheke?",
           "Wer hat das Gebäude gebaut?", "Wie viele Besucher kommen pro Jahr?", "Gibt es Führungen auf Chinesisch?",
           "Kann ich hier mit Bitcoin bezahlen?", "Wo ist das nächste Krankenhaus?", "Wie alt ist das Gebäude?",
           "Wann ist das Konzert heute Abend?", "Wie komme ich zum Flughafen?", "Wie hoch ist der Turm?",
           "Kann man hier Geld wechseln?", "Wo ist die nächste Tankstelle?", "Gibt es hier ein Kino?",
           "Wann fährt der Bus zum Stadion?", "Kann ich hier heiraten?", "Wo gibt es hier gutes Eis?"],
    "en": ["Can I rent a bike here?", "What will the weather be like tomorrow?", "Is there a pharmacy here?",
           "Who built this building?", "How many visitors come each year?", "Are there tours in Chinese?",
           "Can I pay with bitcoin?", "Where is the nearest hospital?", "How old is the building?",
           "When is the concert tonight?", "How do I get to the airport?", "How tall is the tower?",
           "Can I change money here?", "Where is the nearest petrol station?", "Is there a cinema here?",
           "When does the bus to the stadium leave?", "Can I get married here?", "Where can I get good ice cream?"]}
STREETS = ["Marktplatz", "Bahnhofstraße", "Schillerstraße", "Goethestraße", "Lindenallee", "Hauptstraße", "Kirchgasse",
           "Am Hafen", "Rosenweg", "Bergstraße", "Uferstraße", "Parkstraße", "Domplatz", "Mühlenweg"]
WIFI_WORDS = ["sonne", "welle", "tanne", "kiesel", "falke", "anker", "wolke", "birke", "feder", "komet"]


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


@dataclass
class Example:
    lang: str
    facts: list[str]
    question: str
    reply: str
    mood: str
    kind: str                      # fact | followup | decline | smalltalk
    history: list[tuple[str, str]] = field(default_factory=list)
    values: list[str] = field(default_factory=list)


# --- value renderers (each venue picks its own style, so the model learns to copy, not to format) ---
def _time(rng: random.Random, h: int, m: int, style: int, lang: str) -> str:
    if lang == "de":
        return f"{h}:{m:02d} Uhr" if (m or style == 0) else f"{h} Uhr"
    if style == 2:
        suffix = "am" if h < 12 else "pm"
        h12 = h % 12 or 12
        return f"{h12}:{m:02d} {suffix}" if m else f"{h12} {suffix}"
    return f"{h}:{m:02d}"


def _price(euros: int, cents: int, lang: str, style: int = 0) -> str:
    if lang == "de":
        amount = f"{euros},{cents:02d}" if cents else f"{euros}"
        return f"{amount} €" if style else f"{amount} Euro"
    amount = f"{euros}.{cents:02d}" if cents else f"{euros}"
    return (f"{amount} €", f"€{amount}")[style - 1] if style else f"{amount} euros"


def _intervals(hours: tuple[dict, dict] | None, lang: str) -> list[tuple[str, str]]:
    return [] if hours is None else [(hours[0][lang], hours[1][lang])]


def day_hours_text(d: int, hours: tuple[dict, dict] | None, lang: str) -> str:
    """One weekday's opening hours as a fact sentence (the kiosk words a pack's [hours] the same way)."""
    return model_contract.day_hours_text(d, _intervals(hours, lang), lang)


def week_hours_text(hours: list, lang: str) -> str:
    """The week in one sentence, equal neighbouring days grouped (as the kiosk words it)."""
    return model_contract.week_hours_text([_intervals(h, lang) for h in hours], lang)


def _join(items: list[str], lang: str) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + (" und " if lang == "de" else " and ") + items[-1]


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()


class Venue:
    """A random venue of one kind, rendered to items (facts + questions) in both languages."""

    def __init__(self, seed: int):
        rng = self.rng = random.Random(seed)
        self.kind = rng.choice(list(KINDS))
        noun_de, self.gender, self.noun_en = KINDS[self.kind]
        place = rng.choice(PLACES) if rng.random() < 0.6 else _name(rng)
        i = rng.randrange(len(KIND_NAMES[self.kind][0]))
        self.name = {"de": f"{KIND_NAMES[self.kind][0][i]} {place}", "en": f"{place} {KIND_NAMES[self.kind][1][i]}"}
        self.noun = {"de": noun_de, "en": self.noun_en}
        self.time_style = rng.randrange(3)
        self.price_style = rng.choice([0, 1, 1, 2])
        self.items: list[Item] = []
        self._hours()
        self._prices()
        self._amenities()
        {"museum": self._exhibitions, "station": self._departures, "hotel": self._hotel,
         "library": self._library, "fair": self._exhibitors, "townhall": self._offices}[self.kind]()
        self._contact()
        self._services()

    def t(self, h: int, m: int, lang: str, bare: bool = False) -> str:
        """A time in this venue's style; bare = German without "Uhr" (it follows a range: "von 9 bis 17 Uhr")."""
        if bare and lang == "de":
            return f"{h}:{m:02d}" if (m or self.time_style != 1) else f"{h}"
        return _time(self.rng, h, m, self.time_style, lang)

    def _hours(self) -> None:
        """Per-day facts (the answerer renders a pack's [hours] the same way), plus the pack's
        "today" and grouped "week" facts (avatar/answer/knowledge.py words them like this)."""
        rng, noun = self.rng, self.noun
        open_h, close_h = rng.choice([8, 9, 10, 11]), rng.choice([16, 17, 18, 19, 20, 22])
        open_m = rng.choice([0, 0, 0, 30])
        closed = set(rng.sample(range(7), rng.choice([0, 1, 1, 2])))
        self.hours: list[tuple[dict, dict] | None] = []
        for d in range(7):
            if d in closed:
                self.hours.append(None)
                continue
            oh = open_h + (1 if d >= 5 and rng.random() < 0.5 else 0)
            ch = close_h - (2 if d >= 5 and rng.random() < 0.5 else 0)
            self.hours.append(({lang: self.t(oh, open_m, lang, bare=True) for lang in ("de", "en")},
                               {lang: self.t(ch, 0, lang, bare=True) for lang in ("de", "en")}))
        for d in range(7):
            day = {lang: DAYS[lang][d] for lang in ("de", "en")}
            q = {"de": [f"Wann hat {noun['de']} am {day['de']} geöffnet?", f"Wie lange ist am {day['de']} offen?",
                        f"Habt ihr am {day['de']} auf?", f"Öffnungszeiten am {day['de']}?", f"Wann habt ihr {day['de']}s offen?",
                        f"Bis wann ist am {day['de']} geöffnet?", f"Ist {noun['de']} am {day['de']} offen?"],
                 "en": [f"When is {noun['en']} open on {day['en']}?", f"What are the opening hours on {day['en']}?",
                        f"Are you open on {day['en']}?", f"How long are you open on {day['en']}?", f"Opening times on {day['en']}s?",
                        f"Is {noun['en']} open on {day['en']}?", f"What time do you close on {day['en']}?"]}
            fact = {lang: day_hours_text(d, self.hours[d], lang) for lang in ("de", "en")}
            if self.hours[d] is None:
                reply = {"de": [fact["de"], f"Am {day['de']} ist {noun['de']} geschlossen."],
                         "en": [fact["en"], f"Sorry, we are closed on {day['en']}."]}
                values = {"de": [day["de"], "geschlossen"], "en": [day["en"], "closed"]}
            else:
                (o, c) = self.hours[d]
                reply = {"de": [fact["de"], f"Am {day['de']} ist {noun['de']} von {o['de']} bis {c['de']} Uhr geöffnet."],
                         "en": [fact["en"], f"On {day['en']}, {noun['en']} is open from {o['en']} to {c['en']}."]}
                values = {"de": [o["de"], c["de"]], "en": [o["en"], c["en"]]}
            self.items.append(Item("hours", fact, q, reply, values, key=f"day{d}"))
        week = {lang: week_hours_text(self.hours, lang) for lang in ("de", "en")}
        self.items.append(Item("hours_week", week,
            {"de": ["Wann habt ihr geöffnet?", "Wie sind die Öffnungszeiten?", "Öffnungszeiten?", "Wann ist geöffnet?",
                    f"Wann hat {noun['de']} offen?", "Wann kann ich kommen?"],
             "en": ["When are you open?", "What are the opening hours?", "Opening hours?", "When can I visit?",
                    f"When is {noun['en']} open?", "What are your hours?"]},
            {lang: [week[lang]] for lang in ("de", "en")},
            {lang: [x for h in self.hours if h for x in (h[0][lang], h[1][lang])][:2] for lang in ("de", "en")}))

    def today_item(self, d: int) -> Item:
        """The pack's "today" fact for weekday d and the question about it."""
        h = self.hours[d]
        day = {lang: DAYS[lang][d] for lang in ("de", "en")}
        if h is None:
            fact = {lang: model_contract.today_hours_text(d, [], lang) for lang in ("de", "en")}
            reply = {"de": ["Heute haben wir leider geschlossen.", f"Heute, am {day['de']}, haben wir geschlossen."],
                     "en": ["Sorry, we are closed today.", f"Today, {day['en']}, we are closed."]}
            values = {"de": ["geschlossen"], "en": ["closed"]}
        else:
            o, c = h
            fact = {lang: model_contract.today_hours_text(d, _intervals(h, lang), lang) for lang in ("de", "en")}
            reply = {"de": [f"Heute haben wir von {o['de']} bis {c['de']} Uhr geöffnet.", fact["de"]],
                     "en": [f"Today we are open from {o['en']} to {c['en']}.", fact["en"]]}
            values = {"de": [o["de"], c["de"]], "en": [o["en"], c["en"]]}
        q = {"de": [f"Wann hat {self.noun['de']} heute geöffnet?", "Habt ihr heute offen?", "Bis wann ist heute geöffnet?",
                    "Wie lange ist heute offen?", "Ist heute geöffnet?", "Wann macht ihr heute zu?"],
             "en": [f"When is {self.noun['en']} open today?", "Are you open today?", "What time do you close today?",
                    "How long are you open today?", "Is it open today?", "When do you close today?"]}
        return Item("hours_today", fact, q, reply, values)

    def _prices(self) -> None:
        rng = self.rng
        if self.kind == "station":
            e, c = rng.randint(3, 12), rng.choice([0, 50, 90])
            p = {lang: _price(e, c, lang, self.price_style) for lang in ("de", "en")}
            self.items.append(Item("prices",
                {"de": f"Eine Tageskarte für den Nahverkehr kostet {p['de']}.", "en": f"A day ticket for local transport costs {p['en']}."},
                {"de": ["Was kostet eine Tageskarte?", "Wie teuer ist ein Tagesticket?", "Was kostet ein Ticket für den ganzen Tag?"],
                 "en": ["How much is a day ticket?", "What does a day ticket cost?", "How much is a ticket for the whole day?"]},
                {"de": [f"Eine Tageskarte kostet {p['de']}."], "en": [f"A day ticket costs {p['en']}."]},
                {"de": [p["de"]], "en": [p["en"]]}))
            return
        what = {"hotel": ("Ein Doppelzimmer kostet", "A double room costs", "pro Nacht", "per night"),
                "library": ("Ein Leseausweis kostet", "A library card costs", "im Jahr", "per year"),
                "townhall": ("Ein neuer Personalausweis kostet", "A new identity card costs", "", "")}.get(
            self.kind, ("Der Eintritt kostet", "Admission costs", "", ""))
        e = rng.randint(60, 180) if self.kind == "hotel" else rng.randint(2, 38)
        c = rng.choice([0, 0, 50, 90]) if self.kind != "hotel" else 0
        p = {lang: _price(e, c, lang, self.price_style) for lang in ("de", "en")}
        r = {lang: _price(max(1, e // 2), 0, lang, self.price_style) for lang in ("de", "en")}
        per_de, per_en = (" " + what[2]) if what[2] else "", (" " + what[3]) if what[3] else ""
        fact = {"de": f"{what[0]} {p['de']}{per_de}.", "en": f"{what[1]} {p['en']}{per_en}."}
        values = {"de": [p["de"]], "en": [p["en"]]}
        if self.kind in ("museum", "fair"):
            fact = {"de": f"Der Eintritt kostet {p['de']}, ermäßigt {r['de']}.",
                    "en": f"Admission costs {p['en']}, reduced {r['en']}."}
        q = {"de": ["Was kostet der Eintritt?", "Wie teuer ist es?", "Was kostet das?", "Wie viel kostet ein Ticket?",
                    "Was muss ich bezahlen?", "Wie hoch ist der Preis?"],
             "en": ["How much is admission?", "How much does it cost?", "What is the price?", "How much is a ticket?",
                    "What do I have to pay?", "How expensive is it?"]}
        if self.kind == "hotel":
            q = {"de": ["Was kostet ein Doppelzimmer?", "Wie teuer ist eine Nacht?", "Was kostet ein Zimmer?"],
                 "en": ["How much is a double room?", "How much is one night?", "What does a room cost?"]}
        elif self.kind == "library":
            q = {"de": ["Was kostet ein Leseausweis?", "Wie teuer ist der Bibliotheksausweis?"],
                 "en": ["How much is a library card?", "What does a library card cost?"]}
        elif self.kind == "townhall":
            q = {"de": ["Was kostet ein Personalausweis?", "Wie teuer ist ein neuer Ausweis?"],
                 "en": ["How much is an identity card?", "What does a new ID card cost?"]}
        reply = {"de": [f"{what[0]} {p['de']}{per_de}."], "en": [f"{what[1]} {p['en']}{per_en}."]}
        if self.kind in ("museum", "fair"):
            reply = {"de": [f"Der Eintritt kostet {p['de']}, ermäßigt {r['de']}.", f"Der Eintritt kostet {p['de']}."],
                     "en": [f"Admission costs {p['en']}, reduced {r['en']}.", f"Admission is {p['en']}."]}
            if rng.random() < 0.5:
                self._price_list(p, r, q)
                return
        self.items.append(Item("prices", fact, q, reply, values))

    def _price_list(self, p: dict, r: dict, q: dict) -> None:
        """Admission as separate facts: adults, reduced, family ticket, children (the sample pack's style)."""
        rng = self.rng
        fam = {lang: _price(rng.randint(12, 40), 0, lang, self.price_style) for lang in ("de", "en")}
        age = rng.choice([6, 12, 14, 16, 18])
        verbatim = lambda topic, de, en, qde, qen, vde, ven: Item(topic, {"de": de, "en": en}, {"de": qde, "en": qen},
                                                                  {"de": [de], "en": [en]}, {"de": vde, "en": ven})
        self.items += [
            verbatim("prices", f"Der Eintritt kostet {p['de']} für Erwachsene.", f"Admission is {p['en']} for adults.",
                     q["de"], q["en"], [p["de"]], [p["en"]]),
            verbatim("prices_reduced", f"Ermäßigt kostet der Eintritt {r['de']}, zum Beispiel für Studierende und Senioren.",
                     f"The reduced ticket is {r['en']} for students and seniors.",
                     ["Gibt es eine Ermäßigung?", "Was zahlen Studenten?", "Was kostet es ermäßigt?", "Gibt es Rabatt für Rentner?"],
                     ["Is there a discount?", "How much for students?", "How much is the reduced ticket?", "Do seniors pay less?"],
                     [r["de"]], [r["en"]]),
            verbatim("prices_family", f"Die Familienkarte für zwei Erwachsene mit Kindern kostet {fam['de']}.",
                     f"The family ticket for two adults with children is {fam['en']}.",
                     ["Was kostet die Familienkarte?", "Gibt es ein Familienticket?", "Was zahlen wir als Familie?"],
                     ["How much is the family ticket?", "Is there a family ticket?", "What does a family pay?"],
                     [fam["de"]], [fam["en"]]),
            verbatim("prices_children", f"Kinder unter {age} Jahren haben freien Eintritt.", f"Children under {age} get in free.",
                     ["Was zahlen Kinder?", "Müssen Kinder bezahlen?", "Ist es für Kinder kostenlos?"],
                     ["How much for children?", "Do children have to pay?", "Is it free for kids?"],
                     [str(age)], [str(age)])]

    def _amenities(self) -> None:
        rng = self.rng
        chosen = rng.sample(AMENITIES, rng.randint(4, 8))
        self.absent = [a for a in AMENITIES if a not in chosen]
        grouped = rng.random() < 0.35  # "Im Untergeschoss sind die Garderobe, die Schließfächer und die Toiletten."
        floors = rng.sample(FLOORS, 3)
        placed = [(a, rng.choice(floors) if grouped else rng.choice(FLOORS)) for a in chosen]
        for (de, de_pl, qde, en, en_pl, qen), floor in placed:
            spot = rng.choice([s for s in SPOTS if en.split()[-1] not in s[1]])  # not "the café, next to the café"
            is_de, is_en = ("sind" if de_pl else "ist"), ("are" if en_pl else "is")
            De = de[0].upper() + de[1:]
            En = en[0].upper() + en[1:]
            if grouped:
                mates = [a for a, f in placed if f == floor]
                plural = len(mates) > 1 or de_pl
                fact = {"de": f"{floor[0][0].upper() + floor[0][1:]} {'sind' if plural else 'ist'} {_join([m[0] for m in mates], 'de')}.",
                        "en": f"{_join([m[3] for m in mates], 'en').capitalize()} {'are' if len(mates) > 1 or en_pl else 'is'} {floor[1]}."}
                reply = {"de": [f"{De} {is_de} {floor[0]}."], "en": [f"{En} {is_en} {floor[1]}."]}
                values = {"de": [floor[0]], "en": [floor[1]]}
            elif rng.random() < 0.2:  # "Der Aufzug ist rechts neben dem Eingang und fährt in alle Stockwerke."
                tail = rng.choice([(" und ist kostenlos", " and is free of charge"), ("", ""),
                                   (" und ist barrierefrei", " and is step-free"), (" und gut ausgeschildert", " and well signposted")])
                fact = {"de": f"{De} {is_de} {spot[0]}{tail[0]}.", "en": f"{En} {is_en} {spot[1]}{tail[1]}."}
                reply = {"de": [fact["de"]], "en": [fact["en"]]}
                values = {"de": [spot[0]], "en": [spot[1]]}
            else:
                fact = {"de": f"{De} {is_de} {floor[0]}, {spot[0]}.", "en": f"{En} {is_en} {floor[1]}, {spot[1]}."}
                if rng.random() < 0.3:
                    fact = {"de": f"{De} befinde{'n' if de_pl else 't'} sich {floor[0]} {spot[0]}.",
                            "en": f"You will find {en} {floor[1]}, {spot[1]}."}
                reply = {"de": [f"{De} {is_de} {floor[0]}, {spot[0]}."], "en": [f"{En} {is_en} {floor[1]}, {spot[1]}."]}
                values = {"de": [floor[0], spot[0]], "en": [floor[1], spot[1]]}
            w_de, w_en = rng.choice(qde), rng.choice(qen)
            q = {"de": [f"Wo {is_de} {de}?", f"Wo finde ich {w_de}?", f"Wo ist hier {w_de}?", f"Gibt es hier {w_de}?",
                        f"Ich suche {w_de}.", f"Entschuldigung, wo {is_de} {de}?"],
                 "en": [f"Where {is_en} {en}?", f"Where can I find the {w_en.removeprefix('the ')}?",
                        f"Is there a {w_en.removeprefix('the ')} here?", f"I'm looking for the {w_en.removeprefix('the ')}.",
                        f"Excuse me, where {is_en} {en}?", f"Where is the {w_en.removeprefix('the ')}?"]}
            self.items.append(Item("amenities", fact, q, reply, values, key=en))

    def _exhibitions(self) -> None:
        rng = self.rng
        topics = [("Licht und Schatten", "Light and Shadow"), ("Die Römer", "The Romans"), ("Moderne Kunst", "Modern Art"),
                  ("Dinosaurier", "Dinosaurs"), ("Zeit der Maschinen", "Age of Machines"), ("Meere der Welt", "Oceans of the World"),
                  ("Farben des Nordens", "Colours of the North"), ("Gold der Inka", "Gold of the Inca"), ("Sternenhimmel", "Starry Sky")]
        for de_t, en_t in rng.sample(topics, 2):
            day, mon, floor = rng.randint(1, 28), rng.randrange(12), rng.choice(FLOORS)
            date = {"de": f"{day}. {MONTHS['de'][mon]}", "en": f"{MONTHS['en'][mon]} {day}"}
            fact = {"de": f"Die Ausstellung {de_t} läuft bis zum {date['de']} {floor[0]}.",
                    "en": f"The exhibition {en_t} runs until {date['en']} {floor[1]}."}
            q = {"de": [f"Wie lange läuft die Ausstellung {de_t}?", f"Wo ist die Ausstellung {de_t}?", f"Bis wann kann man {de_t} sehen?"],
                 "en": [f"How long is the exhibition {en_t} on?", f"Where is the exhibition {en_t}?", f"Until when can I see {en_t}?"]}
            reply = {"de": [f"Die Ausstellung {de_t} läuft bis zum {date['de']} {floor[0]}."],
                     "en": [f"The exhibition {en_t} runs until {date['en']} {floor[1]}."]}
            self.items.append(Item("events", fact, q, reply, {"de": [date["de"], floor[0]], "en": [date["en"], floor[1]]}, key=en_t))
        h = rng.choice([11, 14, 15])
        tour = {lang: self.t(h, 0, lang) for lang in ("de", "en")}
        if rng.random() < 0.4:
            t2 = {lang: self.t(h + 3, 0, lang, bare=True) for lang in ("de", "en")}
            t1 = {lang: self.t(h, 0, lang, bare=True) for lang in ("de", "en")}
            fee = {lang: _price(rng.randint(2, 6), 0, lang, self.price_style) for lang in ("de", "en")}
            de = f"Öffentliche Führungen gibt es samstags und sonntags um {t1['de']} und {t2['de']} Uhr, sie kosten {fee['de']} zusätzlich zum Eintritt."
            en = f"Public guided tours take place on Saturdays and Sundays at {t1['en']} and {t2['en']} and cost {fee['en']} on top of admission."
            self.items.append(Item("tours", {"de": de, "en": en},
                                   {"de": ["Wann gibt es Führungen?", "Gibt es eine Führung?", "Was kostet eine Führung?"],
                                    "en": ["When are the guided tours?", "Is there a guided tour?", "How much is a tour?"]},
                                   {"de": [de], "en": [en]}, {"de": [t1["de"], fee["de"]], "en": [t1["en"], fee["en"]]}))
            return
        self.items.append(Item("tours", {"de": f"Führungen gibt es jeden Tag um {tour['de']} an der Kasse.",
                                         "en": f"Guided tours start every day at {tour['en']} at the ticket desk."},
                               {"de": ["Wann gibt es Führungen?", "Gibt es eine Führung?", "Um wie viel Uhr ist die Führung?"],
                                "en": ["When are the guided tours?", "Is there a guided tour?", "What time is the tour?"]},
                               {"de": [f"Führungen gibt es jeden Tag um {tour['de']} an der Kasse."],
                                "en": [f"Guided tours start every day at {tour['en']} at the ticket desk."]},
                               {"de": [tour["de"]], "en": [tour["en"]]}))

    def _departures(self) -> None:
        rng = self.rng
        cities = rng.sample(CITIES, 6)
        self.absent_cities = [c for c in CITIES if c not in cities]
        for city in cities:
            h, m, track = rng.randint(5, 22), rng.randrange(0, 60), rng.randint(1, 18)
            t = {lang: self.t(h, m, lang) for lang in ("de", "en")}
            fact = {"de": f"Der nächste Zug nach {city} fährt um {t['de']} von Gleis {track}.",
                    "en": f"The next train to {city} leaves at {t['en']} from platform {track}."}
            q = {"de": [f"Wann fährt der nächste Zug nach {city}?", f"Von welchem Gleis fährt der Zug nach {city}?",
                        f"Ich muss nach {city}.", f"Wann geht der Zug nach {city}?", f"Zug nach {city}?"],
                 "en": [f"When does the next train to {city} leave?", f"Which platform for the train to {city}?",
                        f"I need to get to {city}.", f"When is the train to {city}?", f"Train to {city}?"]}
            reply = {"de": [f"Der nächste Zug nach {city} fährt um {t['de']} von Gleis {track}."],
                     "en": [f"The next train to {city} leaves at {t['en']} from platform {track}."]}
            self.items.append(Item("departures", fact, q, reply,
                                   {"de": [t["de"], f"Gleis {track}"], "en": [t["en"], f"platform {track}"]}, key=city))

    def _hotel(self) -> None:
        rng = self.rng
        co, b1, b2 = rng.choice([10, 11, 12]), rng.choice([6, 7]), rng.choice([10, 11])
        t = lambda h, m=0: {lang: self.t(h, m, lang) for lang in ("de", "en")}
        co_t, b1_t, b2_t = t(co), t(b1, rng.choice([0, 30])), t(b2)
        floor = rng.choice(FLOORS)
        b1_de = b1_t["de"].replace(" Uhr", "")
        self.items += [
            Item("checkout", {"de": f"Check-out ist bis {co_t['de']}.", "en": f"Check-out is until {co_t['en']}."},
                 {"de": ["Bis wann muss ich auschecken?", "Wann ist Check-out?", "Bis wann muss ich das Zimmer räumen?"],
                  "en": ["When is check-out?", "What time do I have to check out?", "Until when do I have to leave the room?"]},
                 {"de": [f"Check-out ist bis {co_t['de']}."], "en": [f"Check-out is until {co_t['en']}."]},
                 {"de": [co_t["de"]], "en": [co_t["en"]]}),
            Item("breakfast", {"de": f"Frühstück gibt es von {b1_de} bis {b2_t['de']} {floor[0]}.",
                               "en": f"Breakfast is served from {b1_t['en']} to {b2_t['en']} {floor[1]}."},
                 {"de": ["Wann gibt es Frühstück?", "Wo ist das Frühstück?", "Bis wann gibt es Frühstück?"],
                  "en": ["When is breakfast?", "Where is breakfast served?", "Until when is breakfast?"]},
                 {"de": [f"Frühstück gibt es von {b1_de} bis {b2_t['de']} {floor[0]}."],
                  "en": [f"Breakfast is served from {b1_t['en']} to {b2_t['en']} {floor[1]}."]},
                 {"de": [b1_de, b2_t["de"]], "en": [b1_t["en"], b2_t["en"]]})]

    def _library(self) -> None:
        rng = self.rng
        weeks, n = rng.choice([2, 3, 4, 6]), rng.choice([10, 20, 30, 50])
        self.items += [
            Item("loans", {"de": f"Bücher kann man {weeks} Wochen ausleihen.", "en": f"Books can be borrowed for {weeks} weeks."},
                 {"de": ["Wie lange kann ich ein Buch ausleihen?", "Wie lange ist die Leihfrist?"],
                  "en": ["How long can I borrow a book?", "What is the loan period?"]},
                 {"de": [f"Bücher kann man {weeks} Wochen ausleihen."], "en": [f"Books can be borrowed for {weeks} weeks."]},
                 {"de": [f"{weeks} Wochen"], "en": [f"{weeks} weeks"]}),
            Item("loans_max", {"de": f"Man kann höchstens {n} Medien gleichzeitig ausleihen.",
                               "en": f"You can borrow at most {n} items at a time."},
                 {"de": ["Wie viele Bücher darf ich ausleihen?", "Wie viele Medien kann ich mitnehmen?"],
                  "en": ["How many books can I borrow?", "How many items can I take?"]},
                 {"de": [f"Sie können höchstens {n} Medien gleichzeitig ausleihen."], "en": [f"You can borrow at most {n} items at a time."]},
                 {"de": [str(n)], "en": [str(n)]})]

    def _exhibitors(self) -> None:
        rng = self.rng
        firms = rng.sample(COMPANY, 6)
        self.absent_firms = [c for c in COMPANY if c not in firms]
        for firm in firms:
            hall, stand = rng.randint(1, 9), f"{rng.choice('ABCDEFG')}{rng.randint(1, 40)}"
            fact = {"de": f"{firm} finden Sie in Halle {hall}, Stand {stand}.", "en": f"You will find {firm} in hall {hall}, stand {stand}."}
            q = {"de": [f"Wo finde ich {firm}?", f"Wo ist der Stand von {firm}?", f"In welcher Halle ist {firm}?", f"Ich suche {firm}."],
                 "en": [f"Where can I find {firm}?", f"Where is the {firm} stand?", f"Which hall is {firm} in?", f"I'm looking for {firm}."]}
            reply = {"de": [f"{firm} finden Sie in Halle {hall}, Stand {stand}."], "en": [f"{firm} is in hall {hall}, stand {stand}."]}
            self.items.append(Item("exhibitors", fact, q, reply,
                                   {"de": [f"Halle {hall}", stand], "en": [f"hall {hall}", stand]}, key=firm))

    def _offices(self) -> None:
        rng = self.rng
        for de, en, qde, qen in rng.sample(OFFICES, 4):
            room, floor = rng.randint(1, 4) * 100 + rng.randint(1, 40), rng.choice(FLOORS)
            De = de[0].upper() + de[1:]
            fact = {"de": f"{De} ist in Zimmer {room} {floor[0]}.", "en": f"{en[0].upper() + en[1:]} is in room {room} {floor[1]}."}
            w_de, w_en = rng.choice(qde), rng.choice(qen)
            q = {"de": [f"Wo ist {de}?", f"Wo finde ich das {w_de}?" if de.startswith("das") else f"Wo finde ich die {w_de}?",
                        f"Ich muss zum {w_de}." if de.startswith("das") else f"Ich muss zur {w_de}."],
                 "en": [f"Where is {en}?", f"Where can I find the {w_en}?", f"I need the {w_en}."]}
            reply = {"de": [f"{De} ist in Zimmer {room} {floor[0]}."], "en": [f"{en[0].upper() + en[1:]} is in room {room} {floor[1]}."]}
            self.items.append(Item("offices", fact, q, reply, {"de": [f"Zimmer {room}"], "en": [f"room {room}"]}, key=en))

    def _services(self) -> None:
        """Sample-pack-like facts of free form; the reply says the fact as it stands. Absent ones are declined."""
        rng, noun, name = self.rng, self.noun, self.name
        Noun = {lang: n[0].upper() + n[1:] for lang, n in noun.items()}
        street, n = rng.choice(STREETS), rng.randint(1, 60)
        line, stop = rng.randint(1, 19), rng.choice(STREETS).removesuffix("straße").removesuffix("platz") + rng.choice(["platz", "", " Mitte"])
        pstreet, minutes = rng.choice(STREETS), rng.randint(2, 9)
        net, pw = name["de"].split()[-1] + "-Gast", f"{rng.choice(WIFI_WORDS)}{rng.randint(10, 99)}"
        dogs, photos, cards = rng.random() < 0.5, rng.random() < 0.6, rng.random() < 0.8
        guide = _price(rng.randint(2, 5), 0, "de", self.price_style), _price(rng.randint(2, 5), 0, "en", self.price_style)
        spec = [  # topic, fact de/en, questions de/en, values de/en, question that has no answer without this fact
            ("address", f"{Noun['de']} liegt in der {street} {n}.", f"{Noun['en']} is at {street} {n}.",
             ["Wie ist die Adresse?", f"Wo liegt {noun['de']}?", "Wo seid ihr genau?"],
             ["What is the address?", f"Where is {noun['en']}?", "Where exactly are you?"], [f"{street} {n}"], [f"{street} {n}"]),
            ("tram", f"Mit der Straßenbahn fahren Sie mit der Linie {line} bis zur Haltestelle {stop}.",
             f"By tram, take line {line} to the {stop} stop.",
             ["Welche Straßenbahn fährt hierher?", "Wie komme ich mit der Bahn hierher?", "Welche Linie muss ich nehmen?"],
             ["Which tram goes here?", "How do I get here by tram?", "Which line do I take?"], [f"Linie {line}", stop], [f"line {line}", stop]),
            ("parking", f"Das nächste Parkhaus ist in der {pstreet}, {minutes} Minuten entfernt.",
             f"The nearest car park is in {pstreet}, {minutes} minutes away.",
             ["Wo kann ich parken?", "Gibt es hier einen Parkplatz?", "Wo ist das Parkhaus?"],
             ["Where can I park?", "Is there a car park?", "Where is the parking?"], [pstreet], [pstreet]),
            ("wifi", f"Das WLAN heißt {net}, das Passwort lautet {pw}.", f"The Wi-Fi network is called {net} and the password is {pw}.",
             ["Gibt es hier WLAN?", "Wie ist das WLAN-Passwort?", "Habt ihr Internet?"],
             ["Is there wifi here?", "What is the wifi password?", "Do you have internet?"], [net, pw], [net, pw]),
            ("dogs", "Hunde sind erlaubt, aber bitte an der Leine." if dogs else "Hunde dürfen leider nicht hinein, Assistenzhunde sind willkommen.",
             "Dogs are welcome on a lead." if dogs else "Unfortunately dogs are not allowed; assistance dogs are welcome.",
             ["Darf ich meinen Hund mitbringen?", "Sind Hunde erlaubt?", "Kann mein Hund mit rein?"],
             ["Can I bring my dog?", "Are dogs allowed?", "Can my dog come in?"],
             ["Leine"] if dogs else ["nicht"], ["lead"] if dogs else ["not allowed"]),
            ("photos", "Fotografieren ist erlaubt, aber bitte ohne Blitz." if photos else "Fotografieren ist hier leider nicht erlaubt.",
             "Taking photos is allowed, but please without flash." if photos else "Unfortunately taking photos is not allowed here.",
             ["Darf man hier fotografieren?", "Kann ich Fotos machen?", "Ist Fotografieren erlaubt?"],
             ["Can I take photos?", "Is photography allowed?", "Am I allowed to take pictures?"],
             ["ohne Blitz"] if photos else ["nicht erlaubt"], ["without flash"] if photos else ["not allowed"]),
            ("payment", "Sie können bar oder mit Karte bezahlen, auch kontaktlos." if cards else "Sie können hier leider nur bar bezahlen.",
             "You can pay cash or by card, contactless too." if cards else "Unfortunately you can only pay cash here.",
             ["Kann ich mit Karte zahlen?", "Nehmt ihr Kreditkarten?", "Wie kann ich bezahlen?"],
             ["Can I pay by card?", "Do you take credit cards?", "How can I pay?"],
             ["Karte"] if cards else ["nur bar"], ["card"] if cards else ["only pay cash"]),
            ("audioguide", f"Einen Audioguide auf Deutsch und Englisch leihen Sie an der Kasse für {guide[0]}.",
             f"You can borrow an audio guide in German and English at the ticket desk for {guide[1]}.",
             ["Gibt es einen Audioguide?", "Was kostet der Audioguide?", "Kann ich einen Audioguide leihen?"],
             ["Is there an audio guide?", "How much is the audio guide?", "Can I borrow an audio guide?"], [guide[0]], [guide[1]]),
            ("access", f"{Noun['de']} ist barrierefrei. An der Kasse können Sie kostenlos einen Rollstuhl ausleihen.",
             f"{Noun['en']} is accessible without steps. You can borrow a wheelchair at the ticket desk free of charge.",
             ["Ist das barrierefrei?", "Kann ich einen Rollstuhl leihen?", "Komme ich mit dem Rollstuhl rein?"],
             ["Is it wheelchair accessible?", "Can I borrow a wheelchair?", "Is there step-free access?"], ["barrierefrei"], ["accessible"]),
        ]
        self.absent_services = []
        for topic, f_de, f_en, q_de, q_en, v_de, v_en in spec:
            item = Item(topic, {"de": f_de, "en": f_en}, {"de": q_de, "en": q_en}, {"de": [f_de], "en": [f_en]},
                        {"de": v_de, "en": v_en})
            (self.items if rng.random() < 0.6 else self.absent_services).append(item)

    def _contact(self) -> None:
        rng = self.rng
        phone = f"0{rng.randint(30, 999)} {rng.randint(10000, 9999999)}"
        person = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        self.items += [
            Item("contact", {"de": f"Sie erreichen uns telefonisch unter {phone}.", "en": f"You can call us at {phone}."},
                 {"de": ["Wie ist die Telefonnummer?", "Wie kann ich euch anrufen?", "Haben Sie eine Telefonnummer?"],
                  "en": ["What is the phone number?", "How can I call you?", "Do you have a phone number?"]},
                 {"de": [f"Sie erreichen uns telefonisch unter {phone}."], "en": [f"You can call us at {phone}."]},
                 {"de": [phone], "en": [phone]}),
            Item("manager", {"de": f"Die Leitung hat {person}.", "en": f"The manager is {person}."},
                 {"de": ["Wer leitet das hier?", "Wer ist hier der Chef?", "Wer ist die Leitung?"],
                  "en": ["Who runs this place?", "Who is the manager?", "Who is in charge here?"]},
                 {"de": [f"Die Leitung hat {person}."], "en": [f"The manager is {person}."]},
                 {"de": [person], "en": [person]})]


# --- speech-recognition style questions ----------------------------------------------------------
_MISHEARD = {"de": {"wo": "so", "wann": "dann", "ist": "is", "die": "der", "gibt": "gib", "finde": "finden", "ich": "ick"},
             "en": {"where": "wear", "is": "his", "the": "a", "to": "two", "for": "four", "when": "then", "can": "could"}}


def asr_style(text: str, lang: str, rng: random.Random) -> str:
    """Lower case without punctuation, sometimes with one misheard word, like a speech recogniser's output."""
    out = re.sub(r"[?!.,;:]", "", text).lower()
    words = out.split()
    if words and rng.random() < 0.35:
        i = rng.randrange(len(words))
        if words[i] in _MISHEARD[lang]:
            words[i] = _MISHEARD[lang][words[i]]
        elif len(words[i]) > 5 and not any(ch.isdigit() for ch in words[i]):
            j = rng.randrange(1, len(words[i]) - 1)
            words[i] = words[i][:j] + words[i][j + 1:]
    return " ".join(words)


# --- small talk ------------------------------------------------------------------------------------
SMALL_TALK_PACKAGES = {"chatterbot-corpus": "chatterbot_corpus", "chitchat-dataset": "chitchat_dataset"}


def require_small_talk() -> None:
    """The small-talk corpora are training-only dependencies (pyproject's `train` extra): a missing one
    is an error that says how to install it, not an ImportError deep in the example stream."""
    import importlib.util

    from avatar.errors import AvatarError

    missing = [pkg for pkg, module in SMALL_TALK_PACKAGES.items() if importlib.util.find_spec(module) is None]
    if missing:
        raise AvatarError(f"training reads the small-talk corpora, and {' and '.join(missing)} "
                          f"{'is' if len(missing) == 1 else 'are'} not installed",
                          hint="install the training extra: pip install -e '.[train]' (make install does)")


_CHATTERBOT_COUNT: dict[str, int] = {}


@lru_cache(maxsize=1)
def small_talk_pairs() -> dict[str, list[tuple[str, str]]]:
    """Short (question, reply) pairs: chatterbot-corpus German/English YAML + chitchat-dataset (English)."""
    pairs: dict[str, list[tuple[str, str]]] = {"de": [], "en": []}
    data = resources.files("chatterbot_corpus") / "data"
    for lang, folder in (("de", "german"), ("en", "english")):
        for f in sorted((data / folder).iterdir()):
            if f.name.endswith(".yml"):
                pairs[lang] += _yaml_pairs(f.read_text(encoding="utf-8"))
    import chitchat_dataset
    raw = json.loads((resources.files(chitchat_dataset) / "dataset.json").read_text(encoding="utf-8"))
    chat = []
    for conv in raw.values():
        msgs = [" ".join(u["text"] for u in m) for m in conv["messages"]]
        # openings are the kiosk-like part; a question answered by a whole sentence is the cleanest
        chat += [(a, b) for a, b in zip(msgs[:3], msgs[1:4]) if a.endswith("?") and b[:1].isupper()
                 and b[-1:] in ".!"]
    ok = lambda s: 1 <= len(s.split()) <= 14 and len(s) <= 90 and not re.search(r"https?:|[<>{}|\\*_#@]", s)
    keep = lambda ps: [(q.strip(), a.strip()) for q, a in ps if ok(q) and ok(a)]
    pairs = {lang: keep(ps) for lang, ps in pairs.items()}
    _CHATTERBOT_COUNT.update({lang: len(ps) for lang, ps in pairs.items()})
    pairs["en"] += keep(chat)
    return pairs


def _yaml_pairs(text: str) -> list[tuple[str, str]]:
    """The first two lines of each `- - question / - answer` conversation (no YAML library needed)."""
    pairs, conv = [], []
    for line in text.splitlines():
        m = re.match(r"^- - (.*)$", line)
        if m:
            conv = [m.group(1)]
        elif (m := re.match(r"^  - (.*)$", line)) and conv:
            conv.append(m.group(1))
            if len(conv) == 2:
                pairs.append(tuple(s.strip().strip("'\"") for s in conv))
    return pairs


KIOSK_TALK = {
    "de": [(["Hallo", "Guten Tag", "Hallo zusammen", "Moin", "Servus", "Guten Morgen"], ["Hallo! Wie kann ich Ihnen helfen?", "Guten Tag! Was möchten Sie wissen?"], "happy"),
           (["Danke", "Vielen Dank", "Danke schön", "Super, danke"], ["Gern geschehen!", "Sehr gern!", "Bitte schön!"], "happy"),
           (["Tschüss", "Auf Wiedersehen", "Ciao", "Bis bald"], ["Auf Wiedersehen und einen schönen Tag!", "Tschüss, bis bald!"], "happy"),
           (["Wer bist du?", "Was bist du?", "Bist du ein Roboter?"], ["Ich bin der digitale Assistent hier. Ich beantworte gern Ihre Fragen."], "neutral"),
           (["Was kannst du?", "Wobei kannst du helfen?"], ["Ich kann Fragen zu Öffnungszeiten, Preisen und Wegen beantworten."], "neutral"),
           (["Sprichst du Englisch?"], ["Ja, ich spreche Deutsch und Englisch."], "neutral")],
    "en": [(["Hello", "Hi", "Good morning", "Hey there", "Good afternoon"], ["Hello! How can I help you?", "Hi! What would you like to know?"], "happy"),
           (["Thanks", "Thank you", "Thank you very much", "Great, thanks"], ["You're welcome!", "My pleasure!", "Glad to help!"], "happy"),
           (["Bye", "Goodbye", "See you", "Have a nice day"], ["Goodbye and have a nice day!", "Bye, see you soon!"], "happy"),
           (["Who are you?", "What are you?", "Are you a robot?"], ["I am the digital assistant here. I'm happy to answer your questions."], "neutral"),
           (["What can you do?", "How can you help me?"], ["I can answer questions about opening hours, prices and directions."], "neutral"),
           (["Do you speak German?"], ["Yes, I speak German and English."], "neutral")]}


# --- examples ------------------------------------------------------------------------------------
def _prompt_facts(rng: random.Random, venue: Venue, targets: list[Item], lang: str, extra: int) -> list[str]:
    """The target facts plus distractors, preferring the same topic (the retriever's near misses)."""
    others = [i for i in venue.items if i not in targets]
    same = [i for i in others if i.topic == targets[0].topic] if targets else []
    pool = rng.sample(same, min(len(same), rng.randint(0, extra))) if same else []
    rest = [i for i in others if i not in pool]
    pool += rng.sample(rest, max(0, min(len(rest), extra - len(pool))))
    facts = list(dict.fromkeys(i.fact[lang] for i in targets + pool[:extra]))  # grouped facts repeat
    rng.shuffle(facts)
    return facts


def _ask(rng: random.Random, item: Item, lang: str) -> str:
    q = rng.choice(item.questions[lang])
    return asr_style(q, lang, rng) if rng.random() < 0.5 else q


DECLINE_SHARE = 0.15  # unanswerable questions in the mix (the held-out evaluation always uses this)


def make_example(rng: random.Random, venue: Venue, lang: str | None = None,
                 decline_share: float = DECLINE_SHARE) -> Example:
    lang = lang or rng.choice(("de", "en"))
    r = rng.random()
    if r < 0.10:
        return _small_talk(rng, venue, lang)
    if r < 0.10 + decline_share:
        return _decline(rng, venue, lang)
    r -= decline_share - DECLINE_SHARE  # the other kinds keep their order; facts give up the difference
    if r < 0.35:
        ex = _follow_up(rng, venue, lang)
        if ex:
            return ex
    if r < 0.42:
        return _today(rng, venue, lang)
    item = rng.choice(venue.items)
    facts = _prompt_facts(rng, venue, [item], lang, rng.randint(1, 3))
    return Example(lang, facts, _ask(rng, item, lang), rng.choice(item.reply[lang]), item.mood, "fact",
                   values=item.values[lang])


def _today(rng: random.Random, venue: Venue, lang: str) -> Example:
    item = venue.today_item(rng.randrange(7))
    week = next(i for i in venue.items if i.topic == "hours_week")
    facts = [item.fact[lang]] + ([week.fact[lang]] if rng.random() < 0.6 else [])
    facts += [i.fact[lang] for i in rng.sample(venue.items, rng.randint(0, 1))]
    rng.shuffle(facts)
    return Example(lang, facts, _ask(rng, item, lang), rng.choice(item.reply[lang]), item.mood, "fact",
                   values=item.values[lang])


def _follow_up(rng: random.Random, venue: Venue, lang: str) -> Example | None:
    keyed = [i for i in venue.items if i.key and i.topic in ("hours", "departures", "amenities", "exhibitors")]
    first = rng.choice(keyed)
    same = [i for i in keyed if i.topic == first.topic and i is not first]
    if not same:
        return None
    second = rng.choice(same)
    if first.topic == "hours":
        day = DAYS[lang][int(second.key[3:])]
        q = {"de": f"Und am {day}?", "en": f"And on {day}?"}[lang]
    elif first.topic == "departures":
        q = {"de": f"Und nach {second.key}?", "en": f"And to {second.key}?"}[lang]
    elif first.topic == "exhibitors":
        q = {"de": f"Und {second.key}?", "en": f"And {second.key}?"}[lang]
    else:
        noun = next(a for a in AMENITIES if a[3] == second.key)
        q = {"de": f"Und {noun[0]}?", "en": f"And {noun[3]}?"}[lang]
    facts = _prompt_facts(rng, venue, [second, first], lang, rng.randint(0, 1))
    history = [(rng.choice(first.questions[lang]), rng.choice(first.reply[lang]))]
    return Example(lang, facts, asr_style(q, lang, rng) if rng.random() < 0.4 else q, rng.choice(second.reply[lang]),
                   second.mood, "followup", history, second.values[lang])


def _decline(rng: random.Random, venue: Venue, lang: str) -> Example:
    r = rng.random()
    if r < 0.45 and venue.absent:
        a = rng.choice(venue.absent)
        de, is_de, en, is_en = a[0], "sind" if a[1] else "ist", a[3], "are" if a[4] else "is"
        q = rng.choice({"de": [f"Wo {is_de} {de}?", f"Gibt es hier {rng.choice(a[2])}?", f"Wo finde ich {rng.choice(a[2])}?"],
                        "en": [f"Where {is_en} {en}?", f"Is there a {rng.choice(a[5]).removeprefix('the ')} here?",
                               f"Where can I find the {rng.choice(a[5]).removeprefix('the ')}?"]}[lang])
        topic = "amenities"
    elif r < 0.6 and venue.kind == "station":
        city = rng.choice(venue.absent_cities)
        q = {"de": f"Wann fährt der Zug nach {city}?", "en": f"When does the train to {city} leave?"}[lang]
        topic = "departures"
    elif r < 0.6 and venue.kind == "fair":
        firm = rng.choice(venue.absent_firms)
        q = {"de": f"Wo finde ich {firm}?", "en": f"Where can I find {firm}?"}[lang]
        topic = "exhibitors"
    elif r < 0.8 and venue.absent_services:
        q, topic = rng.choice(rng.choice(venue.absent_services).questions[lang]), ""
    else:
        q, topic = rng.choice(UNKNOWN_TOPICS[lang]), ""
    near = [i for i in venue.items if i.topic == topic] or venue.items
    facts = [i.fact[lang] for i in rng.sample(near, min(len(near), rng.randint(1, 3)))]
    return Example(lang, facts, asr_style(q, lang, rng) if rng.random() < 0.5 else q, rng.choice(DECLINE[lang]),
                   "sorry", "decline")


def _small_talk(rng: random.Random, venue: Venue, lang: str) -> Example:
    facts = [i.fact[lang] for i in rng.sample(venue.items, rng.randint(0, 2))]
    if rng.random() < 0.5:
        qs, replies, mood = rng.choice(KIOSK_TALK[lang])
        q, reply = rng.choice(qs), rng.choice(replies)
    else:
        pairs = small_talk_pairs()[lang]
        # chitchat's many English pairs would drown chatterbot's few; draw each corpus half the time
        q, reply = rng.choice(pairs[:_CHATTERBOT_COUNT[lang]] if rng.random() < 0.5 else pairs)
        mood = "neutral"
    return Example(lang, facts, asr_style(q, lang, rng) if rng.random() < 0.3 else q, reply, mood, "smalltalk")


STYLED_SHARE = 0.5  # examples from venues written in other operators' styles (styled.py, issue 11)


def examples(seed: int, held_out: bool = False, decline_share: float = DECLINE_SHARE,
             styled_share: float = 0.0) -> Iterator[Example]:
    """An endless, reproducible stream of examples; a new venue every few examples. With
    `styled_share` > 0 that share comes from styled.py's venues (many kinds and writing styles)."""
    rng = random.Random(seed * 7919 + (1 if held_out else 0))
    styled = None
    if styled_share > 0:
        from avatar.train.styled import styled_examples
        styled = styled_examples(seed, held_out, decline_share=max(decline_share, 0.2))
    while True:
        venue = Venue(2 * rng.randrange(10**8) + (1 if held_out else 0))
        for _ in range(8):
            if styled is not None and rng.random() < styled_share:
                yield next(styled)
            else:
                yield make_example(rng, venue, decline_share=decline_share)


def take(stream: Iterator[Example], n: int) -> list[Example]:
    return [next(stream) for _ in range(n)]
