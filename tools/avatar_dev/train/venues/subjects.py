"""The subjects a styled venue has or rules on (toilets, lockers, the sauna, the shuttle bus ...), with the
words a fact and a visitor use for them and the attributes a fact can say about them."""
from __future__ import annotations

from dataclasses import dataclass


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
