"""The facts only one kind of templated venue has: a museum's exhibitions and tours, a station's
departures, a hotel's check-out and breakfast, a library's loans, a fair's exhibitors, a town hall's
offices. Each adds its items to the venue, drawing from the venue's own random generator."""
from __future__ import annotations

from avatar_dev.train.venues.values import DrawnVenue, Item, write_price
from avatar_dev.train.venues.words import CITIES, COMPANY, FLOORS, MONTHS, OFFICES


def exhibitions(venue: DrawnVenue) -> None:
    rng = venue.rng
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
        venue.items.append(Item("events", fact, q, reply, {"de": [date["de"], floor[0]], "en": [date["en"], floor[1]]}, key=en_t))
    h = rng.choice([11, 14, 15])
    tour = {lang: venue.t(h, 0, lang) for lang in ("de", "en")}
    if rng.random() < 0.4:
        t2 = {lang: venue.t(h + 3, 0, lang, bare=True) for lang in ("de", "en")}
        t1 = {lang: venue.t(h, 0, lang, bare=True) for lang in ("de", "en")}
        fee = {lang: write_price(rng.randint(2, 6), 0, lang, venue.price_style) for lang in ("de", "en")}
        de = f"Öffentliche Führungen gibt es samstags und sonntags um {t1['de']} und {t2['de']} Uhr, sie kosten {fee['de']} zusätzlich zum Eintritt."
        en = f"Public guided tours take place on Saturdays and Sundays at {t1['en']} and {t2['en']} and cost {fee['en']} on top of admission."
        venue.items.append(Item("tours", {"de": de, "en": en},
                                {"de": ["Wann gibt es Führungen?", "Gibt es eine Führung?", "Was kostet eine Führung?"],
                                 "en": ["When are the guided tours?", "Is there a guided tour?", "How much is a tour?"]},
                                {"de": [de], "en": [en]}, {"de": [t1["de"], fee["de"]], "en": [t1["en"], fee["en"]]}))
        return
    venue.items.append(Item("tours", {"de": f"Führungen gibt es jeden Tag um {tour['de']} an der Kasse.",
                                      "en": f"Guided tours start every day at {tour['en']} at the ticket desk."},
                            {"de": ["Wann gibt es Führungen?", "Gibt es eine Führung?", "Um wie viel Uhr ist die Führung?"],
                             "en": ["When are the guided tours?", "Is there a guided tour?", "What time is the tour?"]},
                            {"de": [f"Führungen gibt es jeden Tag um {tour['de']} an der Kasse."],
                             "en": [f"Guided tours start every day at {tour['en']} at the ticket desk."]},
                            {"de": [tour["de"]], "en": [tour["en"]]}))


def departures(venue: DrawnVenue) -> None:
    rng = venue.rng
    cities = rng.sample(CITIES, 6)
    venue.absent_cities = [c for c in CITIES if c not in cities]
    for city in cities:
        h, m, track = rng.randint(5, 22), rng.randrange(0, 60), rng.randint(1, 18)
        t = {lang: venue.t(h, m, lang) for lang in ("de", "en")}
        fact = {"de": f"Der nächste Zug nach {city} fährt um {t['de']} von Gleis {track}.",
                "en": f"The next train to {city} leaves at {t['en']} from platform {track}."}
        q = {"de": [f"Wann fährt der nächste Zug nach {city}?", f"Von welchem Gleis fährt der Zug nach {city}?",
                    f"Ich muss nach {city}.", f"Wann geht der Zug nach {city}?", f"Zug nach {city}?"],
             "en": [f"When does the next train to {city} leave?", f"Which platform for the train to {city}?",
                    f"I need to get to {city}.", f"When is the train to {city}?", f"Train to {city}?"]}
        reply = {"de": [f"Der nächste Zug nach {city} fährt um {t['de']} von Gleis {track}."],
                 "en": [f"The next train to {city} leaves at {t['en']} from platform {track}."]}
        venue.items.append(Item("departures", fact, q, reply,
                                {"de": [t["de"], f"Gleis {track}"], "en": [t["en"], f"platform {track}"]}, key=city))


def hotel(venue: DrawnVenue) -> None:
    rng = venue.rng
    co, b1, b2 = rng.choice([10, 11, 12]), rng.choice([6, 7]), rng.choice([10, 11])
    t = lambda h, m=0: {lang: venue.t(h, m, lang) for lang in ("de", "en")}
    co_t, b1_t, b2_t = t(co), t(b1, rng.choice([0, 30])), t(b2)
    floor = rng.choice(FLOORS)
    b1_de = b1_t["de"].replace(" Uhr", "")
    venue.items += [
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


def library(venue: DrawnVenue) -> None:
    rng = venue.rng
    weeks, n = rng.choice([2, 3, 4, 6]), rng.choice([10, 20, 30, 50])
    venue.items += [
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


def exhibitors(venue: DrawnVenue) -> None:
    rng = venue.rng
    firms = rng.sample(COMPANY, 6)
    venue.absent_firms = [c for c in COMPANY if c not in firms]
    for firm in firms:
        hall, stand = rng.randint(1, 9), f"{rng.choice('ABCDEFG')}{rng.randint(1, 40)}"
        fact = {"de": f"{firm} finden Sie in Halle {hall}, Stand {stand}.", "en": f"You will find {firm} in hall {hall}, stand {stand}."}
        q = {"de": [f"Wo finde ich {firm}?", f"Wo ist der Stand von {firm}?", f"In welcher Halle ist {firm}?", f"Ich suche {firm}."],
             "en": [f"Where can I find {firm}?", f"Where is the {firm} stand?", f"Which hall is {firm} in?", f"I'm looking for {firm}."]}
        reply = {"de": [f"{firm} finden Sie in Halle {hall}, Stand {stand}."], "en": [f"{firm} is in hall {hall}, stand {stand}."]}
        venue.items.append(Item("exhibitors", fact, q, reply,
                                {"de": [f"Halle {hall}", stand], "en": [f"hall {hall}", stand]}, key=firm))


def offices(venue: DrawnVenue) -> None:
    rng = venue.rng
    for de, en, qde, qen in rng.sample(OFFICES, 4):
        room, floor = rng.randint(1, 4) * 100 + rng.randint(1, 40), rng.choice(FLOORS)
        De = de[0].upper() + de[1:]
        fact = {"de": f"{De} ist in Zimmer {room} {floor[0]}.", "en": f"{en[0].upper() + en[1:]} is in room {room} {floor[1]}."}
        w_de, w_en = rng.choice(qde), rng.choice(qen)
        q = {"de": [f"Wo ist {de}?", f"Wo finde ich das {w_de}?" if de.startswith("das") else f"Wo finde ich die {w_de}?",
                    f"Ich muss zum {w_de}." if de.startswith("das") else f"Ich muss zur {w_de}."],
             "en": [f"Where is {en}?", f"Where can I find the {w_en}?", f"I need the {w_en}."]}
        reply = {"de": [f"{De} ist in Zimmer {room} {floor[0]}."], "en": [f"{en[0].upper() + en[1:]} is in room {room} {floor[1]}."]}
        venue.items.append(Item("offices", fact, q, reply, {"de": [f"Zimmer {room}"], "en": [f"room {room}"]}, key=en))


KIND_FACTS = {"museum": exhibitions, "station": departures, "hotel": hotel, "library": library, "fair": exhibitors,
              "townhall": offices}
