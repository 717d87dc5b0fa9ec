"""What every templated venue offers besides hours and prices: its amenities and where they are,
free-form services (address, tram, parking, wifi, rules), and its contact. What a venue lacks is
returned, for the questions it must decline."""
from __future__ import annotations

from avatar_dev.train.venues.values import DrawnVenue, Item, join_list, write_price
from avatar_dev.train.venues.words import AMENITIES, FIRST, FLOORS, LAST, SPOTS, STREETS, WIFI_WORDS


def amenities(venue: DrawnVenue) -> list[tuple]:
    """Where the amenities it has are; returns the ones it lacks (the corpus asks about them to teach declining)."""
    rng = venue.rng
    chosen = rng.sample(AMENITIES, rng.randint(4, 8))
    absent = [a for a in AMENITIES if a not in chosen]
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
        venue.items.append(Item("amenities", fact, q, reply, values, key=en))
    return absent


def services(venue: DrawnVenue) -> list[Item]:
    """Sample-pack-like facts of free form; the reply says the fact as it stands. Returns the absent
    ones (questions about them are declined)."""
    rng, noun, name = venue.rng, venue.noun, venue.name
    Noun = {lang: n[0].upper() + n[1:] for lang, n in noun.items()}
    street, n = rng.choice(STREETS), rng.randint(1, 60)
    line, stop = rng.randint(1, 19), rng.choice(STREETS).removesuffix("straße").removesuffix("platz") + rng.choice(["platz", "", " Mitte"])
    pstreet, minutes = rng.choice(STREETS), rng.randint(2, 9)
    net, pw = name["de"].split()[-1] + "-Gast", f"{rng.choice(WIFI_WORDS)}{rng.randint(10, 99)}"
    dogs, photos, cards = rng.random() < 0.5, rng.random() < 0.6, rng.random() < 0.8
    guide = write_price(rng.randint(2, 5), 0, "de", venue.price_style), write_price(rng.randint(2, 5), 0, "en", venue.price_style)
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
    absent: list[Item] = []
    for topic, f_de, f_en, q_de, q_en, v_de, v_en in spec:
        item = Item(topic, {"de": f_de, "en": f_en}, {"de": q_de, "en": q_en}, {"de": [f_de], "en": [f_en]},
                    {"de": v_de, "en": v_en})
        (venue.items if rng.random() < 0.6 else absent).append(item)
    return absent


def contact(venue: DrawnVenue) -> None:
    rng = venue.rng
    phone = f"0{rng.randint(30, 999)} {rng.randint(10000, 9999999)}"
    person = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    venue.items += [
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
