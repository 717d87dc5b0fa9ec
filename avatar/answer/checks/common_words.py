"""Capitalised words that are not names: the allowlist of the grounding check's name rule.

German capitalises every noun, so a capitalised word is only a *name candidate*. The name rule
(see grounding.py) lets a capitalised word pass when it appears in the facts or the question, or
is one of the common words below (pronouns of address, greetings and the nouns the kiosk's own
templates use: declines, directions, pointing to staff). Keep the lists small and generic: a
venue-specific noun belongs in the knowledge pack, where the facts rule finds it. German small
talk adds its own nouns (those of the chatterbot corpus the model learned from, from the model
folder's checks tables).
"""
from __future__ import annotations

from avatar.model_contract import checks_tables

COMMON_DE = frozenset(w.lower() for w in """
Sie Ihnen Ihr Ihre Ihrem Ihren Ihrer Ihres Du Dir Dich Dein Deine
Hallo Guten Tag Morgen Abend Nacht Willkommen Herzlich Danke Dank Bitte Gerne Entschuldigung
Tschüss Wiedersehen Auf Viel Spaß Freude Vergnügen Besuch Aufenthalt Gruß Grüße
Frage Fragen Antwort Antworten Auskunft Auskünfte Information Informationen Info Infos Hilfe
Personal Mitarbeiter Mitarbeiterin Mitarbeiterinnen Mitarbeitende Mitarbeitenden Kollege Kollegen
Kollegin Kolleginnen Team Service Empfang Rezeption Infostand Infotheke Informationsschalter
Schalter Theke Kasse Eingang Ausgang Tür Treppe Treppen Aufzug Lift Fahrstuhl Rolltreppe Gang Flur
Halle Saal Raum Räume Etage Stock Stockwerk Geschoss Erdgeschoss Obergeschoss Untergeschoss Keller
Ebene Bereich Seite Ecke Nähe Richtung Hinweis Hinweise Schild Schilder Plan Karte Lageplan Weg Wege
Links Rechts Geradeaus Mitte Ende Anfang Zentrum
Uhr Uhrzeit Zeit Zeiten Minute Minuten Stunde Stunden Tag Tage Tagen Woche Wochen Wochenende Monat
Jahr Jahre Feiertag Feiertage Feiertagen Öffnungszeit Öffnungszeiten Termin Termine
Euro Cent Preis Preise Eintritt Eintrittspreis Ticket Tickets Karten Ermäßigung Rabatt Gebühr Kosten
Erwachsene Erwachsenen Kinder Kind Familie Familien Gruppe Gruppen Studierende Schüler Senioren
Besucher Besucherin Besucherinnen Besuchende Gäste Gast Menschen Leute
Toilette Toiletten WC Garderobe Schließfach Schließfächer Café Restaurant Shop Laden Geschäft
Parkplatz Parkplätze Parkhaus Haltestelle Bus Bahn Zug Straßenbahn Taxi Fahrrad WLAN Internet
Ausstellung Ausstellungen Führung Führungen Veranstaltung Veranstaltungen Programm
Leider Daher Deshalb Also Genau Natürlich Sicher Einen Moment Augenblick Ordnung
Wetter Sprache Sprachen Deutsch Englisch Avatar Kiosk Assistent Assistentin Roboter Computer Name
Ja Nein Okay OK Mhm
Museum Bibliothek Hotel Messe Bahnhof Rathaus Bürgerzentrum Haus Gebäude Zentrum Station Halle Stadt
""".split())

COMMON_EN = frozenset(w.lower() for w in """
I I'm I'll I've I'd OK Okay Mr Mrs Ms Dr Wi-Fi WiFi WC ATM PIN
Hello Hi Welcome Thanks Thank Please Sorry Goodbye Bye
English German Avatar Kiosk
""".split())


def small_talk_nouns_de() -> frozenset[str]:
    """The words of the German small talk the embedded model learned (chatterbot-corpus), minus any
    name the venue generator uses: "Strom" or "Pizza" in a chat reply is a noun, not a venue fact.
    Read from the model folder's checks tables (written at ship time, tools/avatar_dev/train/tables.py); a model
    without them brings no small talk of its own, and the static lists above still hold."""
    tables = checks_tables()
    return tables.small_talk_nouns.get("de", frozenset()) if tables is not None else frozenset()


def common_words(lang: str) -> frozenset[str]:
    # German replies quote English loanwords and vice versa; the union is still small
    return COMMON_DE | COMMON_EN | small_talk_nouns_de() if lang == "de" else COMMON_EN
