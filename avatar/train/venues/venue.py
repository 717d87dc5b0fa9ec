"""`Venue`: a random venue of one kind (museum, station, hotel, library, fair, town hall), rendered to
items (facts + questions + replies) in German and English. Its opening hours, prices, amenities,
free-form services and contact are here; what only its kind has is in kind_facts.py."""
from __future__ import annotations

import random

from avatar import model_contract
from avatar.model_contract import DAYS
from avatar.train.venues.kind_facts import KIND_FACTS
from avatar.train.venues.values import (Item, day_hours_text, intervals, join_list, made_up_name, week_hours_text,
                                        write_price, write_time)
from avatar.train.venues.words import (AMENITIES, FIRST, FLOORS, KIND_NAMES, KINDS, LAST, PLACES, SPOTS, STREETS,
                                       WIFI_WORDS)


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
        self._hours()
        self._prices()
        self._amenities()
        KIND_FACTS[self.kind](self)
        self._contact()
        self._services()

    def t(self, h: int, m: int, lang: str, bare: bool = False) -> str:
        """A time in this venue's style; bare = German without "Uhr" (it follows a range: "von 9 bis 17 Uhr")."""
        if bare and lang == "de":
            return f"{h}:{m:02d}" if (m or self.time_style != 1) else f"{h}"
        return write_time(self.rng, h, m, self.time_style, lang)

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
            fact = {lang: model_contract.today_hours_text(d, intervals(h, lang), lang) for lang in ("de", "en")}
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
            p = {lang: write_price(e, c, lang, self.price_style) for lang in ("de", "en")}
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
        p = {lang: write_price(e, c, lang, self.price_style) for lang in ("de", "en")}
        r = {lang: write_price(max(1, e // 2), 0, lang, self.price_style) for lang in ("de", "en")}
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
        fam = {lang: write_price(rng.randint(12, 40), 0, lang, self.price_style) for lang in ("de", "en")}
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
                fact = {"de": f"{floor[0][0].upper() + floor[0][1:]} {'sind' if plural else 'ist'} {join_list([m[0] for m in mates], 'de')}.",
                        "en": f"{join_list([m[3] for m in mates], 'en').capitalize()} {'are' if len(mates) > 1 or en_pl else 'is'} {floor[1]}."}
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

    def _services(self) -> None:
        """Sample-pack-like facts of free form; the reply says the fact as it stands. Absent ones are declined."""
        rng, noun, name = self.rng, self.noun, self.name
        Noun = {lang: n[0].upper() + n[1:] for lang, n in noun.items()}
        street, n = rng.choice(STREETS), rng.randint(1, 60)
        line, stop = rng.randint(1, 19), rng.choice(STREETS).removesuffix("straße").removesuffix("platz") + rng.choice(["platz", "", " Mitte"])
        pstreet, minutes = rng.choice(STREETS), rng.randint(2, 9)
        net, pw = name["de"].split()[-1] + "-Gast", f"{rng.choice(WIFI_WORDS)}{rng.randint(10, 99)}"
        dogs, photos, cards = rng.random() < 0.5, rng.random() < 0.6, rng.random() < 0.8
        guide = write_price(rng.randint(2, 5), 0, "de", self.price_style), write_price(rng.randint(2, 5), 0, "en", self.price_style)
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
