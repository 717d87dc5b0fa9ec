"""Training examples from venues written the way *other people* write them (issue 11).

The templated venues of `corpus.py` taught the model their own sentences: on knowledge packs
written by real operators it declined answers that stood in front of it and reused the training
venues' words. Here a venue is a set of *subjects* (toilets, lockers, the sauna, dogs, the
shuttle bus ...) with *attributes* (where, when, how much, allowed or not, a name or number),
each rendered as a clause in one of several operator styles:

- terse signage:   "WC: EG, links"  "Parken: 2 € / Std."  "Mo–Sa 9–20 Uhr"
- plain sentences: "Die Schließfächer sind im Untergeschoss."
- long and polite: "Liebe Gäste, Ihre Garderobe geben Sie bequem im Foyer ab."
- bureaucratic:    "Nutzung der Schließfächer gegen 1 € Pfand."

and clauses are joined into multi-fact sentences with semicolons, commas, dashes or "und". The
reply is the *operation*, not a template: the clause of a fact that answers the question, copied
as written (with "Ja." / "Nein." before it for a yes/no question), or a decline when no clause
answers it, including the hard case where the subject is there but not the asked attribute
(a parking price asked, only the car park's place known). Many venue kinds, synonyms the facts
do not use (loo, WC, restroom), names and streets the tokenizer never saw (copied piece by piece).

The word lists here were written from general knowledge of kiosks and signage, never from the
evaluation packs in evals/ (those are for measuring only).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from avatar.model_contract import DECLINE
from avatar.train.asr_style import asr_style
from avatar.train.corpus import Example
from avatar.train.venues.values import made_up_name as _name
from avatar.train.venues.words import PLACES, STREETS

# --- venues ---------------------------------------------------------------------------------------
VENUE_KINDS = [  # (German name stem, English name stem)
    ("Tierpark", "Zoo"), ("Hallenbad", "Indoor Pool"), ("Freibad", "Open-Air Pool"), ("Kino", "Cinema"),
    ("Einkaufszentrum", "Shopping Centre"), ("Flughafen", "Airport"), ("Schloss", "Castle"), ("Burg", "Castle"),
    ("Studierendensekretariat", "Student Office"), ("Bürgerbüro", "Citizens' Office"), ("Klinikum", "Hospital"),
    ("Theater", "Theatre"), ("Kletterhalle", "Climbing Centre"), ("Stadion", "Stadium"), ("Konzerthaus", "Concert Hall"),
    ("Campingplatz", "Campsite"), ("Freizeitpark", "Theme Park"), ("Fährterminal", "Ferry Terminal"),
    ("Kongresszentrum", "Conference Centre"), ("Aquarium", "Aquarium"), ("Botanischer Garten", "Botanical Garden"),
    ("Therme", "Spa"), ("Bowlingcenter", "Bowling Centre"), ("Markthalle", "Market Hall"), ("Jugendherberge", "Youth Hostel"),
    ("Stadtbibliothek", "City Library"), ("Hauptbahnhof", "Central Station"), ("Museum", "Museum"), ("Hotel", "Hotel"),
    ("Messe", "Trade Fair"), ("Rathaus", "Town Hall"), ("Planetarium", "Planetarium"), ("Eishalle", "Ice Rink"),
    ("Volkshochschule", "Adult Education Centre"), ("Sportzentrum", "Sports Centre"), ("Kunsthalle", "Art Gallery"),
]

# --- values ---------------------------------------------------------------------------------------
# (German long, English long, German short, English short); {n}/{L}/{S} are filled per venue
PLACES_WHERE = [
    ("im Erdgeschoss", "on the ground floor", "EG", "ground floor"),
    ("im Untergeschoss", "in the basement", "UG", "basement"),
    ("im 1. Obergeschoss", "on the first floor", "1. OG", "1st floor"),
    ("im 2. Stock", "on the second floor", "2. OG", "2nd floor"),
    ("auf Ebene {n}", "on level {n}", "Ebene {n}", "Level {n}"),
    ("am Haupteingang", "at the main entrance", "Haupteingang", "main entrance"),
    ("neben der Kasse", "next to the ticket desk", "neben der Kasse", "next to the ticket desk"),
    ("in Halle {n}", "in hall {n}", "Halle {n}", "Hall {n}"),
    ("in Raum {n}.{m}", "in room {n}.{m}", "R. {n}.{m}", "Rm {n}.{m}"),
    ("in Gebäude {L}", "in building {L}", "Geb. {L}", "Bldg {L}"),
    ("gegenüber vom Eingang", "opposite the entrance", "gegenüber Eingang", "opposite the entrance"),
    ("hinter dem Infoschalter", "behind the information desk", "hinter dem Infoschalter", "behind the info desk"),
    ("am Ende des Flurs", "at the end of the corridor", "Ende des Flurs", "end of the corridor"),
    ("im Innenhof", "in the courtyard", "Innenhof", "courtyard"),
    ("in der {S}", "on {S}", "{S}", "{S}"),
    ("vor dem Gebäude", "in front of the building", "vor dem Gebäude", "outside the building"),
    ("an Gate {L}{n}", "at gate {L}{n}", "Gate {L}{n}", "Gate {L}{n}"),
    ("im Foyer", "in the foyer", "Foyer", "foyer"),
    ("auf Parkdeck P{n}", "on parking deck P{n}", "P{n}", "deck P{n}"),
    ("im Westflügel", "in the west wing", "Westflügel", "west wing"),
    ("im Ostflügel", "in the east wing", "Ostflügel", "east wing"),
    ("links vom Eingang", "to the left of the entrance", "links vom Eingang", "left of the entrance"),
    ("rechts neben den Aufzügen", "to the right of the lifts", "rechts neben Aufzügen", "right of the lifts"),
    ("im Terminal {n}", "in terminal {n}", "Terminal {n}", "Terminal {n}"),
    ("im alten Pferdestall", "in the old stables", "alter Pferdestall", "old stables"),
    ("am Südausgang", "at the south exit", "Südausgang", "south exit"),
    ("im Nebengebäude", "in the annex", "Nebengebäude", "annex"),
    ("bei Eingang {L}", "at entrance {L}", "Eingang {L}", "Entrance {L}"),
]
DAYS_SPEC = [("täglich", "daily"), ("Mo–Fr", "Mon–Fri"), ("Mo–Sa", "Mon–Sat"), ("Di–So", "Tue–Sun"),
             ("montags bis freitags", "Monday to Friday"), ("werktags", "on weekdays"), ("am Wochenende", "at weekends"),
             ("Mo, Di, Do", "Mon, Tue, Thu"), ("Sa + So", "Sat + Sun"), ("Mi–So", "Wed–Sun"), ("jeden Tag", "every day"),
             ("dienstags und donnerstags", "on Tuesdays and Thursdays"), ("Fr", "Fri"), ("So", "Sun")]
NEG_RULES = ("nicht", "not", "kein", "keine", "no ", "verboten", "untersagt", "prohibited")


def _hm(h: int, m: int, style: int, lang: str) -> str:
    if style == 0:
        return f"{h}:{m:02d}"
    if style == 1:
        return f"{h}.{m:02d}" if lang == "de" else f"{h}:{m:02d}"
    if lang == "en" and style == 2:
        return f"{h % 12 or 12}{':%02d' % m if m else ''} {'am' if h < 12 else 'pm'}"
    return f"{h}" if not m else f"{h}:{m:02d}"


def times_text(rng: random.Random, lang: str) -> str:
    """An interval as operators write it: 9–18 Uhr, 09:00-18:00, von 9 bis 18 Uhr, 9 am–6 pm, ab 14 Uhr."""
    a = rng.choice([6, 7, 8, 8, 9, 9, 10, 10, 11, 12, 13, 14])
    b = min(23, a + rng.choice([2, 3, 4, 6, 8, 8, 9, 10, 12]))
    ma, mb = rng.choice([0, 0, 0, 30, 15]), rng.choice([0, 0, 0, 30, 45])
    style = rng.randrange(4)
    x, y = _hm(a, ma, style, lang), _hm(b, mb, style, lang)
    r = rng.random()
    if lang == "de":
        uhr = "" if style in (0, 1) and rng.random() < 0.5 else " Uhr"
        if r < 0.45:
            return f"{x}{rng.choice(['–', '-', ' – '])}{y}{uhr}"
        if r < 0.8:
            return f"von {x} bis {y} Uhr"
        return rng.choice([f"ab {x} Uhr", f"bis {y} Uhr"])
    if r < 0.45:
        return f"{x}{rng.choice(['–', '-', ' – '])}{y}"
    if r < 0.8:
        return f"from {x} to {y}" if rng.random() < 0.6 else f"{x} until {y}"
    return rng.choice([f"from {x}", f"until {y}"])


def price_text(rng: random.Random, lang: str) -> tuple[str, str]:
    euros = rng.choice([0, 0, 1, 1, 2, 3, 4, 5, 6, 8, 9, 12, 15, 18, 20, 25, 37, 40, 70])
    cents = rng.choice([0, 0, 0, 50, 80, 20, 90])
    per = rng.choice([("", ""), (" / Std.", "/hour"), (" pro Tag", " per day"), (" pro Person", " per person"),
                      ("/Stunde", " an hour"), (" je Nutzung", " per use")]) if rng.random() < 0.35 else ("", "")
    if euros == 0 and cents == 0:
        return rng.choice([("kostenlos", "free of charge"), ("gratis", "free"), ("frei", "free")])
    de_amt = f"{euros},{cents:02d}" if cents else f"{euros}"
    en_amt = f"{euros}.{cents:02d}" if cents else f"{euros}"
    s = rng.randrange(4)
    de = [f"{de_amt} €", f"{de_amt} Euro", f"EUR {de_amt}", f"{de_amt}€"][s] + per[0]
    en = [f"€{en_amt}", f"{en_amt} euros", f"EUR {en_amt}", f"{en_amt} €"][s] + per[1]
    return de, en


# --- subjects -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Subject:
    """Something a venue has or rules on. de/en: the noun as a fact names it (with article);
    label_*: the sign word; ask_*: words a visitor uses (German: (definite, indefinite accusative));
    attrs: what a fact can say about it; plural: for the verb."""
    key: str
    de: str
    en: str
    label_de: str
    label_en: str
    ask_de: tuple
    ask_en: tuple
    attrs: tuple
    plural: bool = False
    family: str = ""


def S(key, de, en, ld, le, ask_de, ask_en, attrs, plural=False, family=""):
    return Subject(key, de, en, ld, le, tuple(ask_de), tuple(ask_en), tuple(attrs), plural, family)


SUBJECTS = [
    S("toilets", "die Toiletten", "the toilets", "WC", "Toilets",
      [("die Toiletten", "eine Toilette"), ("das WC", "ein WC"), ("das Klo", "ein Klo"), ("die Toilette", "eine Toilette")],
      ["toilets", "restroom", "loo", "bathroom", "toilet", "washroom", "WC"], ["place"], True, "sanitary"),
    S("baby", "der Wickelraum", "the baby-changing room", "Wickelraum", "Baby changing",
      [("der Wickelraum", "einen Wickelraum"), ("der Wickeltisch", "einen Wickeltisch")],
      ["baby-changing room", "changing table", "baby changing", "nursery room"], ["place"], False, "sanitary"),
    S("showers", "die Duschen", "the showers", "Duschen", "Showers", [("die Duschen", "Duschen")], ["showers", "shower"],
      ["place", "price"], True, "sanitary"),
    S("lockers", "die Schließfächer", "the lockers", "Schließfächer", "Lockers",
      [("die Schließfächer", "Schließfächer"), ("das Schließfach", "ein Schließfach")],
      ["lockers", "locker", "left luggage", "storage lockers"], ["place", "price"], True, "storage"),
    S("cloakroom", "die Garderobe", "the cloakroom", "Garderobe", "Cloakroom",
      [("die Garderobe", "eine Garderobe")], ["cloakroom", "coat check", "cloak room", "coat room"], ["place", "price"], False, "storage"),
    S("luggage", "die Gepäckaufbewahrung", "the left-luggage office", "Gepäckaufbewahrung", "Left luggage",
      [("die Gepäckaufbewahrung", "eine Gepäckaufbewahrung")], ["left luggage", "luggage storage", "baggage storage"],
      ["place", "price", "hours"], False, "storage"),
    S("lift", "der Aufzug", "the lift", "Aufzug", "Lift", [("der Aufzug", "einen Aufzug"), ("der Fahrstuhl", "einen Fahrstuhl")],
      ["lift", "elevator"], ["place"], False, "access"),
    S("ramp", "der barrierefreie Eingang", "the step-free entrance", "Barrierefreier Zugang", "Step-free access",
      [("der barrierefreie Eingang", "einen barrierefreien Eingang"), ("der Eingang für Rollstuhlfahrer", "einen Rollstuhlzugang")],
      ["step-free entrance", "wheelchair entrance", "wheelchair access"], ["place"], False, "access"),
    S("cafe", "das Café", "the café", "Café", "Café", [("das Café", "ein Café"), ("das Kaffee", "ein Café")],
      ["café", "cafe", "coffee shop", "coffee"], ["place", "hours"], False, "food"),
    S("restaurant", "das Restaurant", "the restaurant", "Restaurant", "Restaurant", [("das Restaurant", "ein Restaurant")],
      ["restaurant", "place to eat"], ["place", "hours"], False, "food"),
    S("kiosk", "der Kiosk", "the kiosk", "Kiosk", "Kiosk", [("der Kiosk", "einen Kiosk"), ("der Imbiss", "einen Imbiss")],
      ["kiosk", "snack bar", "snacks"], ["place", "hours"], False, "food"),
    S("vending", "der Getränkeautomat", "the drinks machine", "Getränkeautomat", "Drinks machine",
      [("der Getränkeautomat", "einen Getränkeautomaten"), ("der Automat", "einen Automaten")],
      ["drinks machine", "vending machine"], ["place"], False, "food"),
    S("water", "der Trinkwasserbrunnen", "the drinking fountain", "Trinkwasser", "Drinking water",
      [("der Trinkwasserbrunnen", "Trinkwasser"), ("das Wasser", "Wasser")], ["drinking fountain", "water fountain", "drinking water"],
      ["place"], False, "food"),
    S("info", "der Infoschalter", "the information desk", "Info", "Information",
      [("die Information", "eine Information"), ("der Infoschalter", "einen Infoschalter"), ("der Service", "einen Service")],
      ["information desk", "info desk", "help desk", "customer service"], ["place", "hours"], False, "service"),
    S("tickets", "die Kasse", "the ticket desk", "Kasse", "Tickets", [("die Kasse", "eine Kasse"), ("der Ticketschalter", "einen Ticketschalter")],
      ["ticket desk", "box office", "ticket office", "tickets"], ["place", "hours"], False, "service"),
    S("lost", "das Fundbüro", "the lost property office", "Fundbüro", "Lost property",
      [("das Fundbüro", "ein Fundbüro"), ("die Fundsachen", "Fundsachen")], ["lost property", "lost and found", "lost things"],
      ["place", "hours"], False, "service"),
    S("firstaid", "die Erste Hilfe", "first aid", "Erste Hilfe", "First aid",
      [("die Erste Hilfe", "Erste Hilfe"), ("der Sanitäter", "einen Sanitäter"), ("der Sanitätsraum", "einen Sanitätsraum")],
      ["first aid", "medic", "paramedic"], ["place"], False, "medical"),
    S("pharmacy", "die Apotheke", "the pharmacy", "Apotheke", "Pharmacy", [("die Apotheke", "eine Apotheke")],
      ["pharmacy", "chemist", "drugstore"], ["place", "hours"], False, "medical"),
    S("atm", "der Geldautomat", "the cash machine", "Geldautomat", "ATM",
      [("der Geldautomat", "einen Geldautomaten"), ("der Bankautomat", "einen Bankautomaten")],
      ["cash machine", "ATM", "cash point"], ["place"], False, "money"),
    S("parking", "das Parkhaus", "the car park", "Parken", "Parking",
      [("das Parkhaus", "ein Parkhaus"), ("der Parkplatz", "einen Parkplatz"), ("das Parken", "Parkplätze")],
      ["car park", "parking", "parking garage", "parking lot"], ["place", "price"], False, "transport"),
    S("bikes", "die Fahrradständer", "the bike racks", "Fahrräder", "Bicycles",
      [("die Fahrradständer", "Fahrradständer"), ("der Fahrradparkplatz", "einen Fahrradparkplatz")],
      ["bike racks", "bicycle parking", "bike parking"], ["place"], True, "transport"),
    S("charging", "die Ladesäulen", "the charging points", "E-Ladesäulen", "EV charging",
      [("die Ladesäulen", "Ladesäulen"), ("die Ladestation", "eine Ladestation")],
      ["charging points", "EV charging", "charging station", "electric car charging"], ["place", "price"], True, "transport"),
    S("taxi", "der Taxistand", "the taxi rank", "Taxi", "Taxis", [("der Taxistand", "einen Taxistand"), ("das Taxi", "ein Taxi")],
      ["taxi rank", "taxi", "cab", "taxis"], ["place"], False, "transport"),
    S("bus", "der Bus", "the bus", "Bus", "Bus", [("der Bus", "einen Bus"), ("die Bushaltestelle", "eine Bushaltestelle")],
      ["bus", "bus stop"], ["name", "place"], False, "transport"),
    S("train", "die S-Bahn", "the suburban train", "S-Bahn", "Train", [("die S-Bahn", "eine S-Bahn"), ("der Zug", "einen Zug")],
      ["train", "suburban train", "rail link"], ["name", "freq"], False, "transport"),
    S("shuttle", "der Shuttlebus", "the shuttle bus", "Shuttle", "Shuttle", [("der Shuttlebus", "einen Shuttlebus"), ("der Shuttle", "einen Shuttle")],
      ["shuttle bus", "shuttle"], ["freq", "price", "place"], False, "transport"),
    S("wifi", "das WLAN", "the Wi-Fi", "WLAN", "Wi-Fi", [("das WLAN", "WLAN"), ("das Internet", "Internet"), ("das WiFi", "WiFi")],
      ["Wi-Fi", "wifi", "internet", "wireless"], ["name"], False, "tech"),
    S("charge_phone", "die Handy-Ladestation", "the phone charging station", "Handy laden", "Phone charging",
      [("die Handy-Ladestation", "eine Ladestation fürs Handy")], ["phone charging", "charge my phone", "charger"], ["place"], False, "tech"),
    S("shop", "der Shop", "the shop", "Shop", "Shop", [("der Shop", "einen Shop"), ("der Laden", "einen Laden"), ("der Souvenirladen", "einen Souvenirladen")],
      ["shop", "gift shop", "souvenir shop", "store"], ["place", "hours"], False, "shop"),
    S("playground", "der Spielplatz", "the playground", "Spielplatz", "Playground",
      [("der Spielplatz", "einen Spielplatz"), ("die Spielecke", "eine Spielecke")], ["playground", "play area", "kids corner"],
      ["place"], False, "kids"),
    S("stroller", "der Kinderwagenverleih", "pushchair hire", "Kinderwagen", "Pushchairs",
      [("der Kinderwagenverleih", "Kinderwagen zum Ausleihen")], ["pushchair hire", "stroller rental", "buggy"], ["place", "price"],
      False, "kids"),
    S("prayer", "der Gebetsraum", "the prayer room", "Gebetsraum", "Prayer room",
      [("der Gebetsraum", "einen Gebetsraum"), ("der Raum der Stille", "einen Raum der Stille")], ["prayer room", "quiet room", "chapel"],
      ["place"], False, "service"),
    S("audioguide", "der Audioguide", "the audio guide", "Audioguide", "Audio guide", [("der Audioguide", "einen Audioguide")],
      ["audio guide", "audioguide", "headphones tour"], ["price", "place"], False, "tour"),
    S("tour", "die Führung", "the guided tour", "Führungen", "Guided tours", [("die Führung", "eine Führung"), ("die Führungen", "Führungen")],
      ["guided tour", "tour", "tours"], ["hours", "price"], False, "tour"),
    S("sauna", "die Sauna", "the sauna", "Sauna", "Sauna", [("die Sauna", "eine Sauna")], ["sauna", "steam room"],
      ["hours", "price", "place"], False, "leisure"),
    S("copy", "der Kopierer", "the photocopier", "Kopierer", "Copier", [("der Kopierer", "einen Kopierer"), ("der Drucker", "einen Drucker")],
      ["photocopier", "copier", "printer"], ["place", "price"], False, "tech"),
    S("hotline", "die Hotline", "the hotline", "Hotline", "Hotline", [("die Hotline", "eine Hotline"), ("die Telefonnummer", "eine Telefonnummer")],
      ["hotline", "phone number", "telephone"], ["name", "hours"], False, "contact"),
    S("adult", "der Eintritt", "admission", "Eintritt", "Admission", [("der Eintritt", "Eintritt"), ("die Eintrittskarte", "eine Karte"), ("das Ticket", "ein Ticket")],
      ["admission", "entry", "ticket", "entrance fee"], ["price"], False, "price"),
    S("child", "der Kindereintritt", "the child ticket", "Kinder", "Children", [("die Kinderkarte", "eine Kinderkarte"), ("der Eintritt für Kinder", "Kinderkarten")],
      ["child ticket", "kids", "children"], ["price"], False, "price"),
    S("student", "die ermäßigte Karte", "the reduced ticket", "Ermäßigt", "Reduced", [("die ermäßigte Karte", "eine Ermäßigung"), ("der Studentenrabatt", "einen Studentenrabatt")],
      ["reduced ticket", "student discount", "concession", "discount"], ["price"], False, "price"),
    S("family", "die Familienkarte", "the family ticket", "Familienkarte", "Family ticket", [("die Familienkarte", "eine Familienkarte")],
      ["family ticket", "family pass"], ["price"], False, "price"),
    S("season", "die Jahreskarte", "the annual pass", "Jahreskarte", "Annual pass", [("die Jahreskarte", "eine Jahreskarte"), ("die Dauerkarte", "eine Dauerkarte")],
      ["annual pass", "season ticket", "year pass"], ["price", "place"], False, "price"),
    S("lastentry", "der letzte Einlass", "last entry", "Letzter Einlass", "Last entry", [("der letzte Einlass", "Einlass")],
      ["last entry", "latest admission", "last admission"], ["hours"], False, "hours"),
]
RULES = [  # key, German subject + allowed/forbidden clauses, English ones, German questions, English questions
    ("dogs", ("Hunde sind an der Leine willkommen", "Hunde sind nicht erlaubt", "Hunde: nur an der Leine", "Keine Hunde (Assistenzhunde ausgenommen)"),
     ("Dogs are welcome on a lead", "Dogs are not allowed", "Dogs: on a lead only", "No dogs (assistance dogs excepted)"),
     ["Darf ich meinen Hund mitbringen?", "Sind Hunde erlaubt?", "Kann ich mit Hund rein?", "darf der hund mit"],
     ["Can I bring my dog?", "Are dogs allowed?", "is my dog allowed in", "Can dogs come in?"]),
    ("photo", ("Fotografieren ist erlaubt, aber ohne Blitz", "Fotografieren ist nicht gestattet", "Fotos: ohne Blitz erlaubt", "Foto- und Videoaufnahmen verboten"),
     ("Photography is allowed without flash", "Photography is not permitted", "Photos: no flash", "No photos or videos"),
     ["Darf ich fotografieren?", "Kann man hier Fotos machen?", "darf ich filmen"], ["Can I take photos?", "Is photography allowed?", "can i film here"]),
    ("food", ("Eigenes Essen darf mitgebracht werden", "Mitgebrachte Speisen und Getränke sind nicht erlaubt", "Picknick erlaubt", "Keine eigenen Speisen"),
     ("You may bring your own food", "Outside food and drinks are not allowed", "Picnics allowed", "No outside food"),
     ["Darf ich mein eigenes Essen mitbringen?", "Kann ich hier picknicken?", "darf man was zu essen mitnehmen"],
     ["Can I bring my own food?", "Can we have a picnic here?", "are snacks allowed inside"]),
    ("smoking", ("Rauchen nur im Raucherbereich vor dem Haupteingang", "Rauchen ist im gesamten Gelände verboten", "Raucherzone: Innenhof", "Rauchfreies Haus"),
     ("Smoking only in the smoking area outside the main entrance", "Smoking is prohibited on the whole site", "Smoking area: courtyard", "Non-smoking building"),
     ["Darf ich hier rauchen?", "Wo kann ich rauchen?", "gibt es eine raucherecke"], ["Can I smoke here?", "Where can I smoke?", "is there a smoking area"]),
    ("cash", ("Bezahlen ist bar und mit Karte möglich", "Wir nehmen nur Kartenzahlung, kein Bargeld", "Zahlung: EC-Karte, Kreditkarte, bar", "Kein Bargeld"),
     ("You can pay by cash or card", "We only accept card payment, no cash", "Payment: debit card, credit card, cash", "Cashless only"),
     ["Kann ich bar bezahlen?", "Nehmt ihr Kreditkarten?", "kann ich mit karte zahlen"], ["Can I pay cash?", "Do you take credit cards?", "can i pay by card"]),
    ("appointment", ("Termine bitte vorher online buchen", "Ohne Termin ist kein Besuch möglich", "Termin: online oder telefonisch", "Spontanbesuch ohne Termin möglich"),
     ("Please book appointments online in advance", "Visits are not possible without an appointment", "Appointments: online or by phone", "Walk-ins welcome without an appointment"),
     ["Brauche ich einen Termin?", "Kann ich ohne Termin kommen?", "muss ich einen termin machen"], ["Do I need an appointment?", "Can I come without an appointment?", "do i have to book"]),
    ("bikes_in", ("Fahrräder dürfen mitgenommen werden", "Fahrräder sind im Gebäude nicht erlaubt", "Räder: nur auf dem Hof", "Keine Fahrräder"),
     ("Bicycles may be taken along", "Bicycles are not allowed in the building", "Bikes: courtyard only", "No bicycles"),
     ["Darf ich mein Fahrrad mitnehmen?", "kann ich mit dem rad rein"], ["Can I bring my bike?", "are bicycles allowed inside"]),
    ("strollers_in", ("Kinderwagen sind kein Problem, alle Bereiche sind stufenlos", "Kinderwagen bitte am Eingang abstellen", "Kinderwagen: erlaubt", "Kinderwagen nicht gestattet"),
     ("Pushchairs are fine, every area is step-free", "Please leave pushchairs at the entrance", "Pushchairs: allowed", "Pushchairs not permitted"),
     ["Kann ich mit dem Kinderwagen rein?", "darf der kinderwagen mit"], ["Can I bring a pushchair?", "is a stroller ok inside"]),
    ("swimwear", ("Badebekleidung ist Pflicht, Badeshorts sind erlaubt", "Straßenkleidung ist im Badebereich nicht erlaubt", "Badekappe: nicht nötig", "Keine Straßenschuhe im Barfußbereich"),
     ("Swimwear is required, board shorts are fine", "Street clothes are not allowed in the pool area", "Swimming cap: not required", "No street shoes in the barefoot area"),
     ["Brauche ich eine Badekappe?", "darf ich mit badeshorts rein"], ["Do I need a swimming cap?", "are board shorts allowed"]),
    ("glass", ("Glasflaschen sind erlaubt", "Glasflaschen sind aus Sicherheitsgründen verboten", "Glas: erlaubt", "Kein Glas"),
     ("Glass bottles are allowed", "Glass bottles are forbidden for safety reasons", "Glass: allowed", "No glass"),
     ["Darf ich Glasflaschen mitnehmen?", "sind glasflaschen erlaubt"], ["Can I bring glass bottles?", "are glass bottles ok"]),
]
INTRO = {"de": ["Liebe Gäste, ", "Sehr geehrte Besucherinnen und Besucher, ", "Gut zu wissen: ", "Hinweis: ", "Bitte beachten Sie: ", ""],
         "en": ["Dear guests, ", "Dear visitors, ", "Good to know: ", "Please note: ", "Note: ", ""]}
OUTRO = {"de": [" Wir wünschen einen schönen Aufenthalt!", " Vielen Dank für Ihr Verständnis.", " Viel Spaß!"],
         "en": [" Enjoy your stay!", " Thank you for your understanding.", " Have fun!"]}
JOINERS = ["; ", ". ", ", ", " – ", " | ", " und ", " · ", "; ", ". "]
# sentences that answer nothing a visitor asks here: operators write them between the facts
FILLERS = [("Seit {year} begeistert {name} Groß und Klein", "Since {year} {name} has delighted young and old"),
           ("Unser Team freut sich auf Sie", "Our team looks forward to seeing you"),
           ("Bitte beachten Sie die Hausordnung", "Please observe the house rules"),
           ("Änderungen vorbehalten", "Subject to change"),
           ("Details auf Anfrage", "Details on request"),
           ("{n} Mitarbeitende kümmern sich um Ihr Wohl", "{n} staff look after you"),
           ("Alle Angaben ohne Gewähr", "All information without guarantee"),
           ("Ideal für Familien", "Ideal for families"),
           ("Der Bereich wurde {year} renoviert", "The area was renovated in {year}"),
           ("Vielen Dank für Ihren Besuch", "Thank you for visiting")]
EXTRAS = [(" (Nov–Feb bis {h}:30)", " (Nov–Feb until {h}:30)"), (" (in den Ferien ab {h} Uhr)", " (in the holidays from {h}:00)"),
          (" (außer an Feiertagen)", " (except public holidays)"), (" (letzter Einlass {h}:00)", " (last entry {h}:00)"),
          (" (Nachweis erforderlich)", " (proof required)"), (" (ca. {n} Min. Fußweg)", " (approx. {n} min walk)"),
          (" (nur mit Voranmeldung)", " (by appointment only)"), (" inkl. MwSt.", " incl. VAT")]
PREFIXES = {"de": ["Entschuldigung, ", "Hallo, ", "Eine Frage: ", "Sagen Sie mal, ", "Hallo, ich hätte eine Frage: ", "Ähm, "],
            "en": ["Excuse me, ", "Hi, ", "Quick question: ", "Sorry, ", "Hello, I have a question: ", "Um, "]}
STYLES = ("sign", "plain", "polite", "bureau")


@dataclass
class Clause:
    key: str          # subject key
    attr: str         # place | hours | price | name | freq | rule
    text: dict        # lang -> clause text
    negative: bool = False


@dataclass
class Fact:
    clauses: list
    text: dict        # lang -> the whole fact as the operator wrote it


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _uncap(s: str) -> str:
    """"Die Garderobe ..." after a semicolon or "Liebe Gäste," reads "die Garderobe ..." (nouns keep their capital)."""
    return s[:1].lower() + s[1:] if s.split(" ", 1)[0] in ("Die", "Der", "Das", "The", "You", "We", "Wir") else s


def _fill(template: str, fills: dict) -> str:
    return template.format(**fills)


class StyledVenue:
    """A venue of any kind whose facts are written in one operator's style (and sometimes another)."""

    def __init__(self, seed: int):
        rng = self.rng = random.Random(seed)
        kind = rng.choice(VENUE_KINDS)
        place = rng.choice(PLACES)
        self.name = {"de": f"{kind[0]} {place}", "en": f"{place} {kind[1]}" if rng.random() < 0.5 else f"{kind[1]} {place}"}
        self.kind = kind
        self.style = rng.choice(STYLES)
        self.fills = {"n": rng.randint(0, 9), "m": f"{rng.randint(1, 40):02d}", "L": rng.choice("ABCDEFGH"),
                      "S": rng.choice(STREETS + [_name(rng) + "straße", _name(rng) + "weg"])}
        subjects = rng.sample(SUBJECTS, rng.randint(6, 14))
        self.absent = [s for s in SUBJECTS if s not in subjects]
        self.clauses: list[Clause] = []
        self.missing: list[tuple[Subject, str]] = []   # (present subject, attribute the pack does not say)
        for s in subjects:
            attrs = [a for a in s.attrs if rng.random() < 0.7] or [s.attrs[0]]
            self.missing += [(s, a) for a in s.attrs if a not in attrs]
            for a in attrs:
                self.clauses.append(self._clause(s, a))
        self.subjects = subjects
        self.rules = rng.sample(RULES, rng.randint(1, 4))
        self.absent_rules = [r for r in RULES if r not in self.rules]
        for key, de, en, _, _ in self.rules:
            i = rng.randrange(4)
            self.clauses.append(Clause(key, "rule", {"de": de[i], "en": en[i]}, negative=i in (1, 3)))
        self.clauses.append(self._opening())
        rng.shuffle(self.clauses)
        self.facts = self._group(self.clauses)

    # --- clauses ----------------------------------------------------------------------------------
    def _style(self) -> str:
        return self.style if self.rng.random() < 0.7 else self.rng.choice(STYLES)

    def _clause(self, s: Subject, attr: str) -> Clause:
        rng, style = self.rng, self._style()
        verb_de, verb_en = ("sind", "are") if s.plural else ("ist", "is")
        De, En, f = _cap(s.de), _cap(s.en), self.fills
        if attr == "place":
            p = rng.choice(PLACES_WHERE)
            if rng.random() < 0.3:
                q = rng.choice([x for x in PLACES_WHERE if x is not p])
                p = (f"{p[0]}, {q[0]}", f"{p[1]}, {q[1]}", f"{p[2]}, {q[2]}", f"{p[3]}, {q[3]}")
            pd, pe, sd, se = (_fill(x, f) for x in p)
            text = {"sign": (f"{s.label_de}: {sd}", f"{s.label_en}: {se}"),
                    "plain": (f"{De} {verb_de} {pd}", f"{En} {verb_en} {pe}"),
                    "polite": (f"{De} befinde{'n' if s.plural else 't'} sich bequem {pd}", f"You will find {s.en} {pe}"),
                    "bureau": (f"{_cap(pd)} befinde{'n' if s.plural else 't'} sich {s.de}", f"{s.label_en} {pe}")}[style]
        elif attr == "hours":
            days = rng.choice(DAYS_SPEC)
            t = {lang: times_text(rng, lang) for lang in ("de", "en")}
            text = {"sign": (f"{s.label_de}: {days[0]} {t['de']}", f"{s.label_en}: {days[1]} {t['en']}"),
                    "plain": (f"{De} {'haben' if s.plural else 'hat'} {days[0]} {t['de']} geöffnet", f"{En} {verb_en} open {days[1]} {t['en']}"),
                    "polite": (f"{De} {verb_de} {days[0]} {t['de']} für Sie da", f"{En} {verb_en} there for you {days[1]} {t['en']}"),
                    "bureau": (f"Öffnungszeiten {s.label_de}: {days[0]} {t['de']}", f"Opening hours, {s.label_en}: {days[1]} {t['en']}")}[style]
        elif attr == "price":
            pd, pe = price_text(rng, "de"), None
            pd, pe = pd
            free = pd in ("kostenlos", "gratis", "frei")
            if free and style in ("plain", "polite"):
                text = (f"{De} {verb_de} {pd}", f"{En} {verb_en} {pe}")
            else:
                text = {"sign": (f"{s.label_de}: {pd}", f"{s.label_en}: {pe}"),
                        "plain": (f"{De} kostet {pd}", f"{En} cost{'' if s.plural else 's'} {pe}"),
                        "polite": (f"Für {s.label_de} zahlen Sie {pd}", f"{En} {verb_en} available for {pe}"),
                        "bureau": (f"Gebühr {s.label_de}: {pd}", f"Fee, {s.label_en.lower()}: {pe}")}[style]
        elif attr == "freq":
            mins = rng.choice([5, 10, 15, 20, 30, 60])
            where = _cap(_fill(rng.choice(PLACES_WHERE)[2], f))
            text = {"sign": (f"{s.label_de}: alle {mins} Min. ab {where}", f"{s.label_en}: every {mins} min from {where}"),
                    "plain": (f"{De} fährt alle {mins} Minuten ab {where}", f"{En} runs every {mins} minutes from {where}"),
                    "polite": (f"{De} bringt Sie alle {mins} Minuten bequem ans Ziel", f"{En} takes you there every {mins} minutes"),
                    "bureau": (f"Takt {s.label_de}: {mins} Minuten", f"{s.label_en} interval: {mins} minutes")}[style]
        else:  # name: a line, a network, a number; the kind of name follows the subject
            text = self._name_clause(s, style)
        if rng.random() < 0.2:
            extra = rng.choice(EXTRAS)
            h, n = rng.randint(14, 20), rng.randint(2, 15)
            text = (text[0] + extra[0].format(h=h, n=n), text[1] + extra[1].format(h=h, n=n))
        return Clause(s.key, attr, {"de": text[0], "en": text[1]})

    def _name_clause(self, s: Subject, style: str) -> tuple[str, str]:
        rng = self.rng
        if s.key == "wifi":
            net = f"{_name(rng)}-{rng.choice(['Gast', 'Free', 'Guest', 'WLAN', 'Public'])}"
            pw = rng.choice(["kein Passwort", f"Passwort {_name(rng).lower()}{rng.randint(10, 99)}"])
            pw_en = "no password" if pw == "kein Passwort" else pw.replace("Passwort", "password")
            return {"sign": (f"WLAN: {net} ({pw})", f"Wi-Fi: {net} ({pw_en})"),
                    "plain": (f"Das WLAN heißt {net}, {pw}", f"The Wi-Fi is called {net}, {pw_en}"),
                    "polite": (f"Surfen Sie kostenlos im Netz {net} ({pw})", f"Surf for free on the network {net} ({pw_en})"),
                    "bureau": (f"Gäste-WLAN {net}; {pw}", f"Guest Wi-Fi {net}; {pw_en}")}[style]
        if s.key == "hotline":
            num = f"0{rng.randint(30, 999)} {rng.randint(100, 999)} {rng.randint(10, 9999)}"
            return {"sign": (f"Tel. {num}", f"Phone {num}"), "plain": (f"Die Hotline hat die Nummer {num}", f"The hotline number is {num}"),
                    "polite": (f"Sie erreichen uns telefonisch unter {num}", f"You can reach us by phone at {num}"),
                    "bureau": (f"Telefonische Auskunft: {num}", f"Telephone enquiries: {num}")}[style]
        line = rng.choice([f"{rng.randint(1, 199)}", f"S{rng.randint(1, 9)}", f"U{rng.randint(1, 9)}", f"RE {rng.randint(1, 30)}",
                           f"{rng.choice('ABCX')}{rng.randint(1, 99)}"])
        stop = rng.choice([f"{_name(rng)}platz", f"{rng.choice(STREETS)}", f"{rng.choice(PLACES)} Mitte", f"{_name(rng)}straße"])
        if s.key == "train":
            return {"sign": (f"{line} → Hbf / Innenstadt", f"{line} → central station / city centre"),
                    "plain": (f"Die Linie {line} fährt direkt in die Innenstadt", f"Line {line} goes straight to the city centre"),
                    "polite": (f"Mit der {line} sind Sie bequem in der Innenstadt", f"Take the {line} to reach the city centre comfortably"),
                    "bureau": (f"Anbindung Innenstadt: {line}", f"City centre connection: {line}")}[style]
        return {"sign": (f"Bus {line}, Haltestelle {stop}", f"Bus {line}, stop {stop}"),
                "plain": (f"Der Bus {line} hält an der Haltestelle {stop}", f"Bus {line} stops at {stop}"),
                "polite": (f"Mit dem Bus {line} erreichen Sie uns bequem, Haltestelle {stop}", f"Bus {line} brings you to us, stop {stop}"),
                "bureau": (f"ÖPNV: Linie {line}, Hst. {stop}", f"Public transport: line {line}, stop {stop}")}[style]

    def _opening(self) -> Clause:
        rng, style = self.rng, self._style()
        days = rng.choice(DAYS_SPEC)
        t = {lang: times_text(rng, lang) for lang in ("de", "en")}
        extra = rng.random() < 0.4
        if extra:
            d2 = rng.choice([d for d in DAYS_SPEC if d is not days])
            t2 = {lang: times_text(rng, lang) for lang in ("de", "en")}
        name = self.name
        text = {"sign": (f"{days[0]} {t['de']}", f"{days[1]} {t['en']}"),
                "plain": (f"{name['de']}: geöffnet {days[0]} {t['de']}", f"{name['en']} is open {days[1]} {t['en']}"),
                "polite": (f"Wir freuen uns {days[0]} {t['de']} auf Ihren Besuch", f"We look forward to your visit {days[1]} {t['en']}"),
                "bureau": (f"Öffnungszeiten: {days[0]} {t['de']}", f"Opening hours: {days[1]} {t['en']}")}[style]
        if extra:
            text = (f"{text[0]}, {d2[0]} {t2['de']}", f"{text[1]}, {d2[1]} {t2['en']}")
        return Clause("venue", "hours", {"de": text[0], "en": text[1]})

    # --- facts ------------------------------------------------------------------------------------
    def _group(self, clauses: list[Clause]) -> list[Fact]:
        rng, facts, i = self.rng, [], 0
        multi = rng.choice([0.3, 0.5, 0.7])  # how often this operator packs several facts into one sentence
        while i < len(clauses):
            n = rng.choice([2, 2, 3, 4]) if rng.random() < multi else 1
            group = clauses[i:i + n]
            while len(group) > 1 and sum(len(c.text["de"]) + len(c.text["en"]) for c in group) > 440:
                group = group[:-1]  # the prompt keeps ~110 tokens of a fact: the answer must be in them
            i += len(group)
            if rng.random() < 0.3:  # a sentence that answers nothing, somewhere in the fact
                f = rng.choice(FILLERS)
                fills = {"year": rng.randint(1950, 2024), "name": self.name, "n": rng.randint(5, 80)}
                filler = Clause("", "filler", {lang: f[k].format(**{**fills, "name": fills["name"][lang]})
                                               for k, lang in ((0, "de"), (1, "en"))})
                group = group[:] + [filler] if rng.random() < 0.5 else [filler] + group[:]
            joiner = rng.choice(JOINERS)
            text = {}
            for lang in ("de", "en"):
                j = (" und " if lang == "de" else " and ") if joiner == " und " else joiner
                parts = [c.text[lang] for c in group]
                if j in ("; ", ", ", " und ", " and ", " – "):
                    parts = parts[:1] + [_uncap(p) for p in parts[1:]]
                body = j.join(parts)
                intro = rng.choice(INTRO[lang]) if self.style == "polite" or rng.random() < 0.1 else ""
                if intro.endswith(", "):
                    body = _uncap(body)
                end = "" if body.endswith((")", ".")) else "."
                outro = rng.choice(OUTRO[lang]) if self.style == "polite" and rng.random() < 0.25 else ""
                text[lang] = intro + body + end + outro
            facts.append(Fact(group, text))
        return facts

    def fact_of(self, clause: Clause) -> Fact:
        return next(f for f in self.facts if clause in f.clauses)


# --- questions ------------------------------------------------------------------------------------
def _ask_de(rng: random.Random, s: Subject, attr: str) -> str:
    nom, indef = rng.choice(s.ask_de)
    plural = nom.startswith("die ") and (s.plural or nom.endswith(("en", "er")) and not nom.endswith(("ung", "ion")))
    verb = "sind" if plural else "ist"
    if attr == "place":
        return rng.choice([f"Wo {verb} {nom}?", f"Wo finde ich {indef}?", f"Gibt es hier {indef}?", f"Ich suche {indef}.",
                           f"Entschuldigung, wo {verb} hier {nom}?", f"Wie komme ich zu {s.label_de}?", f"Wo gibt es {indef}?"])
    if attr == "hours":
        return rng.choice([f"Wann hat {nom} geöffnet?", f"Wann {verb} {nom} offen?", f"Bis wann hat {nom} auf?",
                           f"Wie lange {verb} {nom} geöffnet?", f"Öffnungszeiten {s.label_de}?", f"Ab wann {verb} {nom} offen?"])
    if attr == "price":
        return rng.choice([f"Was kostet {nom}?", f"Wie teuer {verb} {nom}?", f"Was muss ich für {s.label_de} bezahlen?",
                           f"Kostet {nom} etwas?", f"Wie viel kostet {nom}?"])
    if attr == "freq":
        return rng.choice([f"Wie oft fährt {nom}?", f"Wann fährt {nom}?", f"In welchem Takt fährt {nom}?"])
    if s.key == "wifi":
        return rng.choice(["Wie heißt das WLAN?", "Gibt es hier WLAN?", "Was ist das WLAN-Passwort?", "Habt ihr Internet?"])
    if s.key == "hotline":
        return rng.choice(["Wie ist die Telefonnummer?", "Wie kann ich euch anrufen?", "Gibt es eine Hotline?"])
    return rng.choice([f"Welcher {s.label_de} fährt hierher?", f"Wie komme ich mit {s.label_de} hierher?", f"Welche Linie fährt in die Stadt?",
                       "Wie komme ich mit öffentlichen Verkehrsmitteln hierher?"])


def _ask_en(rng: random.Random, s: Subject, attr: str) -> str:
    w = rng.choice(s.ask_en)
    plural = w.endswith("s") and not w.endswith(("ss", "us"))
    verb, a = ("are", "") if plural else ("is", "an " if w[:1].lower() in "aeiou" else "a ")
    if attr == "place":
        return rng.choice([f"Where {verb} the {w}?", f"Where can I find the {w}?", f"Is there {a}{w} here?" if not plural else f"Are there {w} here?",
                           f"I'm looking for the {w}.", f"Excuse me, where's the {w}?", f"How do I get to the {w}?"])
    if attr == "hours":
        return rng.choice([f"When is the {w} open?", f"What time does the {w} open?", f"How long is the {w} open?",
                           f"What are the opening hours of the {w}?", f"Until when is the {w} open?"])
    if attr == "price":
        return rng.choice([f"How much is the {w}?", f"What does the {w} cost?", f"How much do I pay for the {w}?",
                           f"Is the {w} free?", f"How much does {w} cost?"])
    if attr == "freq":
        return rng.choice([f"How often does the {w} run?", f"When does the {w} go?", f"How frequent is the {w}?"])
    if s.key == "wifi":
        return rng.choice(["What's the Wi-Fi called?", "Is there wifi here?", "What is the wifi password?", "Do you have internet?"])
    if s.key == "hotline":
        return rng.choice(["What's the phone number?", "How can I call you?", "Is there a hotline?"])
    return rng.choice([f"Which {w} goes here?", "How do I get here by public transport?", "Which line goes to the city centre?",
                       f"Which {w} do I take to get into town?"])


VENUE_HOURS_Q = {"de": ["Wann habt ihr offen?", "Wann haben Sie geöffnet?", "Wie sind die Öffnungszeiten?", "Bis wann ist heute offen?",
                        "Wann macht {kind} auf?", "Hat {kind} am Wochenende offen?"],
                 "en": ["When are you open?", "What are your opening hours?", "What time do you close?", "When does the {kind} open?",
                        "Is the {kind} open at the weekend?"]}
FOLLOW_PRICE = {"de": ["Und was kostet das?", "Was kostet das?", "Und wie teuer ist das?"], "en": ["And how much is it?", "How much does that cost?", "And what does it cost?"]}
FOLLOW_WHERE = {"de": ["Und wo ist das?", "Wo finde ich das?"], "en": ["And where is that?", "Where do I find it?"]}


def _reply(clause: Clause, lang: str, yes_no: bool) -> str:
    text = clause.text[lang].strip()
    text = _cap(text) + ("" if text.endswith((".", ")", "!")) else ".")
    if yes_no:
        lead = ("Nein." if lang == "de" else "No.") if clause.negative else ("Ja." if lang == "de" else "Yes.")
        return f"{lead} {text}"
    return text


def _prompt(rng: random.Random, venue: StyledVenue, target: Fact | None, lang: str, near: list[Fact] = ()) -> list[str]:
    others = [f for f in venue.facts if f is not target and f not in near]
    chosen = list(near) + rng.sample(others, min(len(others), rng.randint(0, 3)))
    facts = chosen[:3]
    if target is not None:
        facts.insert(0 if rng.random() < 0.55 else rng.randint(0, len(facts)), target)
    return [f.text[lang] for f in facts]


def _asr(rng: random.Random, q: str, lang: str) -> str:
    if rng.random() < 0.15:
        p = rng.choice(PREFIXES[lang])
        q = p + (q[:1].lower() + q[1:] if lang == "en" or q.split(" ", 1)[0] in ("Wo", "Wann", "Was", "Wie", "Gibt", "Darf", "Kann") else q)
    return asr_style(q, lang, rng) if rng.random() < 0.5 else q


def make_styled_example(rng: random.Random, venue: StyledVenue, lang: str, decline_share: float) -> Example:
    r = rng.random()
    if r < decline_share:
        return _styled_decline(rng, venue, lang)
    clause = rng.choice(venue.clauses)
    fact = venue.fact_of(clause)
    s = next((x for x in SUBJECTS if x.key == clause.key), None)
    yes_no = False
    if clause.attr == "rule":
        rule = next(x for x in venue.rules if x[0] == clause.key)
        q = rng.choice(rule[3] if lang == "de" else rule[4])
        yes_no = q.split()[0].lower() in ("darf", "kann", "sind", "can", "are", "is", "do", "brauche", "muss", "nehmt", "gibt")
    elif clause.key == "venue":
        q = rng.choice(VENUE_HOURS_Q[lang]).format(kind=venue.kind[0] if lang == "de" else venue.kind[1].lower())
    else:
        q = _ask_de(rng, s, clause.attr) if lang == "de" else _ask_en(rng, s, clause.attr)
        yes_no = clause.attr == "place" and q.split()[0] in ("Gibt", "Is", "Are")
    history: list[tuple[str, str]] = []
    kind = "fact"
    if r < decline_share + 0.08 and s is not None and clause.attr in ("price", "place"):
        first = next((c for c in venue.clauses if c.key == clause.key and c is not clause), None)
        if first is not None and first.attr != "rule":
            hq = _ask_de(rng, s, first.attr) if lang == "de" else _ask_en(rng, s, first.attr)
            history = [(hq, _reply(first, lang, False))]
            q = rng.choice((FOLLOW_PRICE if clause.attr == "price" else FOLLOW_WHERE)[lang])
            kind, yes_no = "followup", False
    facts = _prompt(rng, venue, fact, lang)
    values = [clause.text[lang]]
    return Example(lang, facts, _asr(rng, q, lang), _reply(clause, lang, yes_no), "info", kind, history, values)


def _styled_decline(rng: random.Random, venue: StyledVenue, lang: str) -> Example:
    r = rng.random()
    near: list[Fact] = []
    if r < 0.45 and venue.missing:  # the subject is there, the asked attribute is not (price of the car park)
        s, attr = rng.choice(venue.missing)
        q = _ask_de(rng, s, attr) if lang == "de" else _ask_en(rng, s, attr)
        near = [venue.fact_of(c) for c in venue.clauses if c.key == s.key][:1]
    elif r < 0.85:  # an absent subject, preferably of the family of one that is there (dentist / pharmacy)
        present = {s.family for s in venue.subjects}
        pool = [s for s in venue.absent if s.family in present] or venue.absent
        s = rng.choice(pool)
        attr = rng.choice(s.attrs)
        q = _ask_de(rng, s, attr) if lang == "de" else _ask_en(rng, s, attr)
        near = [venue.fact_of(c) for c in venue.clauses
                if any(x.key == c.key and x.family == s.family for x in venue.subjects)][:1]
    else:
        rule = rng.choice(venue.absent_rules) if venue.absent_rules else rng.choice(RULES)
        q = rng.choice(rule[3] if lang == "de" else rule[4])
    facts = _prompt(rng, venue, None, lang, near)
    if not facts:
        facts = [venue.facts[0].text[lang]]
    return Example(lang, facts, _asr(rng, q, lang), rng.choice(DECLINE[lang]), "sorry", "decline")


def styled_examples(seed: int, held_out: bool = False, decline_share: float = 0.2):
    """An endless stream of styled examples; even venue seeds train, odd ones are held out."""
    rng = random.Random(seed * 104729 + (1 if held_out else 0))
    while True:
        venue = StyledVenue(2 * rng.randrange(10**8) + (1 if held_out else 0))
        for _ in range(8):
            yield make_styled_example(rng, venue, rng.choice(("de", "en")), decline_share)
