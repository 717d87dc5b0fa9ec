"""Words visitors use for the things a venue writes about in other words (loo / WC / Toilette).

Operators write "WC: EG", visitors ask "where's the loo" or "wo kann ich die Windel wechseln".
Each group below names one thing in German and English; a question word of a group also searches
for the group's other words that the pack uses. Written from general knowledge of kiosks and
signage (not from any evaluation pack); an operator adds venue-specific words as fact keywords.
"""
from __future__ import annotations

GROUPS = [
    "toilette toiletten wc wcs klo klos sanitäranlagen toilet toilets restroom restrooms loo loos bathroom bathrooms "
    "washroom washrooms lavatory austreten örtchen pinkeln gents ladies",
    "wickeln wickelraum wickeltisch wickelraums windel windeln baby babys säugling stillraum stillen "
    "diaper diapers nappy nappies changing baby-changing breastfeeding nursing",
    "schließfach schließfächer spind spinde gepäck gepäckaufbewahrung tasche taschen rucksack koffer wertsachen "
    "wegschließen einschließen verstauen schleppen stash "
    "locker lockers luggage bag bags backpack rucksack suitcase suitcases valuables",
    "garderobe jacke jacken mantel mäntel cloakroom coat coats jacket jackets",
    "essen hunger hungrig snack snacks imbiss kiosk café cafe restaurant gastronomie verpflegung bistro kantine mensa "
    "kleinigkeit food eat eating hungry meal lunch bite",
    "trinken durst getränke getränk kaffee drink drinks thirsty coffee",
    "bar bier kneipe cocktail pint beer pub",
    "apotheke medikament medikamente tablette tabletten aspirin kopfschmerzen schmerztabletten pharmacy chemist "
    "medicine medicines drugstore painkiller painkillers headache",
    "erste hilfe sanitäter sanitätsraum arzt ärztin notfall verletzt first aid doctor medic paramedic emergency injured hurt",
    "geldautomat geldautomaten bankautomat bargeld geld abheben atm cash money withdraw cashpoint",
    "bezahlen zahlen kartenzahlung kreditkarte ec-karte girocard pay paying payment card cards credit debit contactless",
    "parken parkplatz parkplätze parkhaus tiefgarage parkdeck auto parking park car garage",
    "fahrrad fahrräder rad räder fahrradständer bike bikes bicycle bicycles",
    "bus buslinie haltestelle bahn s-bahn straßenbahn tram u-bahn zug züge öpnv nahverkehr anfahrt anreise "
    "public transport train trains station underground metro tube",
    "taxi taxis taxistand cab cabs",
    "wlan wifi wi-fi internet passwort hotspot password wireless",
    "online internet netz web website webseite homepage onlineshop",  # booked "im Netz": online, not the wifi
    "fundbüro fundsachen verloren vergessen liegengelassen lost found property forgot forgotten missing",
    "barrierefrei rollstuhl rollstuhlgerecht rollstuhlfahrer gehbehindert rampe behindert barrierefreiheit "
    "wheelchair wheelchairs accessible accessibility disabled ramp step-free mobility",
    # a visitor names the need, not the aid: "mein Opa kann nicht gut laufen", "my dad can't manage stairs"
    "rollstuhl rollstühle rollator gehhilfe laufen gehen gehbehindert walk walking wheelchair wheelchairs walker",
    "aufzug fahrstuhl lift treppe treppen stufen steigen stufenlos barrierefrei stairs steps staircase elevator",
    "hören höre hört schwerhörig hörgerät hörschleife induktionsschleife hörbehindert gehörlos "
    "hearing hear deaf hard-of-hearing loop",
    "sehen sehe augen blind sehbehindert großdruck lupe eyes sight see blind visually large-print magnifier",
    "aufzug aufzüge fahrstuhl lift lifts elevator elevators",
    "eintritt ticket tickets karte karten eintrittskarte eintrittspreis admission entry entrance fee",
    "kinder kind kids children child",
    "spielplatz spielecke spielbereich spielen playground play area",
    "hund hunde haustier haustiere dog dogs pet pets",
    "rauchen raucher rauchen qualmen zigarette zigaretten raucherbereich raucherecke e-zigarette smoke smoking cigarette "
    "cigarettes vape vaping",
    "wäsche waschmaschine waschmaschinen trockner waschsalon waschraum laundry launderette laundrette washer dryer",
    "proviant lunchpaket lunchpakete picknick packed lunchbox picnic provisions",
    "fotografieren foto fotos filmen kamera photo photos photograph photography camera pictures picture",
    "regen regnet schüttet schütten gießt schauer unwetter schlechtwetter schlechtem wetter rain raining rainy pouring "
    "showers weather",
    "sturm stürme stürmisch unwetter gewitter windstärke storm storms stormy gale thunderstorm",
    "ruhe nachtruhe mittagsruhe ruhezeit ruhezeiten leise lärm laut quiet noise noisy silence",
    "geburtstag geburtstage kindergeburtstag feiern feier party birthday birthdays celebrate celebration",
    "gutschein gutscheine geschenk geschenke schenken geschenkgutschein voucher vouchers gift present presents",
    "geburt entbindung kreißsaal wehen schwanger schwangerschaft hebamme geburtshilfe "
    "labour labor birth childbirth maternity pregnant midwife delivery",
    "information info auskunft infoschalter infostand kundenservice service help desk information customer",
    "telefon telefonnummer anrufen hotline nummer phone call number telephone ring",
    "shop laden souvenir souvenirs geschäft einkaufen mitbringsel shop store gift gifts buy",
    "gebetsraum beten andacht kapelle prayer pray chapel",
    "dusche duschen duschen shower showers",
    "termin termine terminbuchung anmeldung appointment appointments booking book",
    "ermäßigt ermäßigung rabatt studierende studenten student students schüler rentner senioren reduced discount concession",
    "öffnungszeiten geöffnet offen opening hours open",
    "schließt schließen zu schluss closing close closes",
]


def _build() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in GROUPS:
        members = set(group.split())
        for w in members:
            table.setdefault(w, set()).update(members - {w})
    return {w: frozenset(s) for w, s in table.items()}


SIBLINGS = _build()


def siblings(word: str) -> frozenset[str]:
    """The other words of every group `word` belongs to (lower case); empty when none."""
    return SIBLINGS.get(word.lower(), frozenset())
