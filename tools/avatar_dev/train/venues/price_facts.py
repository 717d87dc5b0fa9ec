"""A templated venue's prices: what its kind charges for (a day ticket, a room, a library card,
admission), written in the venue's price style; museums and fairs sometimes as a price list."""
from __future__ import annotations

from avatar_dev.train.venues.values import DrawnVenue, Item, write_price


def prices(venue: DrawnVenue) -> None:
    rng = venue.rng
    if venue.kind == "station":
        e, c = rng.randint(3, 12), rng.choice([0, 50, 90])
        p = {lang: write_price(e, c, lang, venue.price_style) for lang in ("de", "en")}
        venue.items.append(Item("prices",
            {"de": f"Eine Tageskarte für den Nahverkehr kostet {p['de']}.", "en": f"A day ticket for local transport costs {p['en']}."},
            {"de": ["Was kostet eine Tageskarte?", "Wie teuer ist ein Tagesticket?", "Was kostet ein Ticket für den ganzen Tag?"],
             "en": ["How much is a day ticket?", "What does a day ticket cost?", "How much is a ticket for the whole day?"]},
            {"de": [f"Eine Tageskarte kostet {p['de']}."], "en": [f"A day ticket costs {p['en']}."]},
            {"de": [p["de"]], "en": [p["en"]]}))
        return
    what = {"hotel": ("Ein Doppelzimmer kostet", "A double room costs", "pro Nacht", "per night"),
            "library": ("Ein Leseausweis kostet", "A library card costs", "im Jahr", "per year"),
            "townhall": ("Ein neuer Personalausweis kostet", "A new identity card costs", "", "")}.get(
        venue.kind, ("Der Eintritt kostet", "Admission costs", "", ""))
    e = rng.randint(60, 180) if venue.kind == "hotel" else rng.randint(2, 38)
    c = rng.choice([0, 0, 50, 90]) if venue.kind != "hotel" else 0
    p = {lang: write_price(e, c, lang, venue.price_style) for lang in ("de", "en")}
    r = {lang: write_price(max(1, e // 2), 0, lang, venue.price_style) for lang in ("de", "en")}
    per_de, per_en = (" " + what[2]) if what[2] else "", (" " + what[3]) if what[3] else ""
    fact = {"de": f"{what[0]} {p['de']}{per_de}.", "en": f"{what[1]} {p['en']}{per_en}."}
    values = {"de": [p["de"]], "en": [p["en"]]}
    if venue.kind in ("museum", "fair"):
        fact = {"de": f"Der Eintritt kostet {p['de']}, ermäßigt {r['de']}.",
                "en": f"Admission costs {p['en']}, reduced {r['en']}."}
    q = {"de": ["Was kostet der Eintritt?", "Wie teuer ist es?", "Was kostet das?", "Wie viel kostet ein Ticket?",
                "Was muss ich bezahlen?", "Wie hoch ist der Preis?"],
         "en": ["How much is admission?", "How much does it cost?", "What is the price?", "How much is a ticket?",
                "What do I have to pay?", "How expensive is it?"]}
    if venue.kind == "hotel":
        q = {"de": ["Was kostet ein Doppelzimmer?", "Wie teuer ist eine Nacht?", "Was kostet ein Zimmer?"],
             "en": ["How much is a double room?", "How much is one night?", "What does a room cost?"]}
    elif venue.kind == "library":
        q = {"de": ["Was kostet ein Leseausweis?", "Wie teuer ist der Bibliotheksausweis?"],
             "en": ["How much is a library card?", "What does a library card cost?"]}
    elif venue.kind == "townhall":
        q = {"de": ["Was kostet ein Personalausweis?", "Wie teuer ist ein neuer Ausweis?"],
             "en": ["How much is an identity card?", "What does a new ID card cost?"]}
    reply = {"de": [f"{what[0]} {p['de']}{per_de}."], "en": [f"{what[1]} {p['en']}{per_en}."]}
    if venue.kind in ("museum", "fair"):
        reply = {"de": [f"Der Eintritt kostet {p['de']}, ermäßigt {r['de']}.", f"Der Eintritt kostet {p['de']}."],
                 "en": [f"Admission costs {p['en']}, reduced {r['en']}.", f"Admission is {p['en']}."]}
        if rng.random() < 0.5:
            _price_list(venue, p, r, q)
            return
    venue.items.append(Item("prices", fact, q, reply, values))


def _price_list(venue: DrawnVenue, p: dict, r: dict, q: dict) -> None:
    """Admission as separate facts: adults, reduced, family ticket, children (the sample pack's style)."""
    rng = venue.rng
    fam = {lang: write_price(rng.randint(12, 40), 0, lang, venue.price_style) for lang in ("de", "en")}
    age = rng.choice([6, 12, 14, 16, 18])
    verbatim = lambda topic, de, en, qde, qen, vde, ven: Item(topic, {"de": de, "en": en}, {"de": qde, "en": qen},
                                                              {"de": [de], "en": [en]}, {"de": vde, "en": ven})
    venue.items += [
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
