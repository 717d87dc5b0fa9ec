"""Word lists of the templated venues (venue.py, kind_facts.py): kinds and their names, places, people,
firms, floors, spots, amenities, cities, offices, streets."""
from __future__ import annotations

from avatar.model_contract import KINDS  # noqa: F401  (the kinds the model learned; the kiosk's checks know them too)

MONTHS = {"de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
                 "Oktober", "November", "Dezember"],
          "en": ["January", "February", "March", "April", "May", "June", "July", "August",
                 "September", "October", "November", "December"]}
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
STREETS = ["Marktplatz", "Bahnhofstraße", "Schillerstraße", "Goethestraße", "Lindenallee", "Hauptstraße", "Kirchgasse",
           "Am Hafen", "Rosenweg", "Bergstraße", "Uferstraße", "Parkstraße", "Domplatz", "Mühlenweg"]
WIFI_WORDS = ["sonne", "welle", "tanne", "kiesel", "falke", "anker", "wolke", "birke", "feder", "komet"]
