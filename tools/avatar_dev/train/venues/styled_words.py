"""What operators write about and how (styled_venue.py): venue kinds, places, days, rules, the intros,
outros, joiners and fillers around their facts, the writing styles. Written from general knowledge
of kiosks and signage, never from the evaluation packs in evals/."""
from __future__ import annotations

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

# what a venue allows or forbids
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

# around the facts
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
STYLES = ("sign", "plain", "polite", "bureau")
