"""Written text -> the words a voice should say: times, prices, abbreviations, e-mail addresses.

"18:00" is "18 Uhr" in German and "6 p.m." in English; "3,50 €" is "3 Euro 50" and "3 euros 50";
"z. B." is "zum Beispiel". Numbers stay digits: both phonemizers (espeak-ng) read digits well; a German
ordinal ("am 3. Juni") is spelt out, by num2words (LGPL-2.1), declined after the article or not.
"""
from __future__ import annotations

import re

from num2words import num2words

from avatar.tts.clause_splitter import _DE_MONTHS, is_sentence_end

_TIME = r"(?<![\d.:,])([01]?\d|2[0-4])[:]([0-5]\d)(?![\d])"
_TIME_RANGE = re.compile(_TIME + r"\s*(?:[-–—]|bis|to)\s*" + _TIME + r"(\s*Uhr)?")
_TIME_ONE = re.compile(_TIME + r"(\s*Uhr)?")
_DE_DOT_TIME = re.compile(r"(?<![\d.,])([01]?\d|2[0-4])\.([0-5]\d)\s*Uhr")  # "10.30 Uhr"
_DE_DOT_TIME_RANGE = re.compile(r"(?<![\d.,])([01]?\d|2[0-4])\.([0-5]\d)\s*[-–]\s*([01]?\d|2[0-4])(?:\.([0-5]\d))?\s*Uhr")  # "9.30–14 Uhr"
_HOUR_RANGE_DE = re.compile(r"(?<![\d.,:])(\d{1,2})\s*[-–]\s*(\d{1,2})\s*Uhr")  # "10-18 Uhr"
# Money: "3,50 €", "3.50 €", "€ 3.50", "€3", "9 EUR", "12 Euro"
_PRICE_AFTER = re.compile(r"(?<![\d.,])(\d+)(?:[.,](\d{2}))?\s*(?:€|EUR\b|Euro\b|euros?\b)")
_PRICE_BEFORE = re.compile(r"€\s*(\d+)(?:[.,](\d{2}))?(?![\d])")
_EURO_COMPOUND = re.compile(r"(\d)-€-")  # "1-€-Münze"
_DE_ORDINAL = re.compile(r"(?<![\d.,:])(\d{1,2})\.(?=,|\s+(\S+))")  # "am 3. Juni", "24., 25. und 31."
_ARTICLE_BEFORE = re.compile(r"\b(?:der|die|das)\s*$", re.IGNORECASE)
# before a capitalised word "14." is an ordinal only after these ("im 2. Stock") or before a month or one of
# _ORDINAL_NOUNS; else it ends a sentence ("für Kinder bis 14. Seilklettern ...", "kostet 9,90 €. Gibt ...")
_ORDINAL_CONTEXT = re.compile(r"\b(?:der|die|das|den|dem|des|am|im|vom|zum|zur|beim|ab|jeden|jede|jeder|ihr|ihre|ihren|unser|unsere|unseren)\s*$",
                              re.IGNORECASE)
_ORDINAL_NOUNS = frozenset("Stock Etage Obergeschoss OG Untergeschoss UG Mal Platz Klasse Reihe Tag Woche Monat "
                           "Jahrhundert Geburtstag Jahrestag Advent Sonntag Samstag Montag Dienstag Mittwoch Donnerstag "
                           "Freitag Bezirk Gleis Halle Saal Rang Runde Lauf Kurs Semester Quartal Staffel".split())
_DAY_BEFORE_NUMBER = re.compile(r"\b(Mo|Di|Mi|Do|Fr|Sa|So)(?=\s+(?:bis\s+|ab\s+)?\d)")  # "So 11 Uhr", "(Do bis 22 Uhr)"
_TIMES_X = re.compile(r"\((\d)x\)|\b(\d)x\b")  # "(2x)" -> "zweimal"
_PHONE = re.compile(r"(?<![\d,.:])(?:\+\d{1,3}[ ]?)?0?\d{2,5}(?:[ /-]\d{2,8}){1,4}(?!\d|[,.:]\d)")
_EMAIL = re.compile(r"\b([\w.+-]+)@([\w-]+(?:\.[\w-]+)+)\b")

_DAY_DE = dict(zip("Mo Di Mi Do Fr Sa So".split(), "Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag".split()))
_MONTH_DE = dict(zip("Jan Feb Mär Apr Mai Jun Jul Aug Sep Sept Okt Nov Dez".split(),
                     "Januar Februar März April Mai Juni Juli August September September Oktober November Dezember".split()))
_MONTH_ABBR = "Jan|Feb|Mär|Apr|Jun|Jul|Aug|Sept|Sep|Okt|Nov|Dez"
_MONTHS = "Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember|" + _MONTH_ABBR


def _month(word: str) -> str:
    """A month as spoken: "Nov" -> "November", "März" stays."""
    return _MONTH_DE.get(word, word)


_DAY_EN = dict(zip("Mon Tue Wed Thu Fri Sat Sun".split(), "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()))
_ABBREVIATIONS = {
    "de": [
        (r"\bz\.\s?B\.", "zum Beispiel"), (r"\bd\.\s?h\.", "das heißt"), (r"\bu\.\s?a\.", "unter anderem"),
        (r"\bbzw\.", "beziehungsweise"), (r"\busw\.", "und so weiter"), (r"\bca\.", "circa"),
        (r"\bCa\.", "Circa"), (r"\bNr\.", "Nummer"), (r"\binkl\.", "inklusive"), (r"\bggf\.", "gegebenenfalls"),
        (r"\bevtl\.", "eventuell"), (r"\bTel\.", "Telefon"), (r"\bStr\.", "Straße"), (r"\bDr\.", "Doktor"),
        (r"\bProf\.", "Professor"), (r"\bMo\.", "Montag"), (r"\bDi\.", "Dienstag"), (r"\bMi\.", "Mittwoch"),
        (r"\bDo\.", "Donnerstag"), (r"\bFr\.", "Freitag"), (r"\bSa\.", "Samstag"), (r"\bSo\.", "Sonntag"),
        (r"\bEG\b", "Erdgeschoss"), (r"\bOG\b", "Obergeschoss"), (r"\bUG\b", "Untergeschoss"),
        (r"\bWLAN\b", "W-LAN"), (r"%", " Prozent"), (r"&", " und "),
        # signage, as operators write it ("Parken 2 € / Std.", "tgl. 9–18 Uhr", "Mo–Sa")
        (r"\s*/\s*Std\.", " pro Stunde"), (r"\bStd\.", "Stunde"), (r"\bMin\.", "Minuten"), (r"\bt(?:ä|a)?gl\.", "täglich"),
        (r"\bgeschl\.", "geschlossen"), (r"\bErw\.", "Erwachsene"), (r"\bGeb\.", "Gebäude"),
        (r"\bHst\.", "Haltestelle"), (r"\bzzgl\.", "zuzüglich"), (r"\bermäß\.", "ermäßigt"), (r"\berm\.", "ermäßigt"),
        (r"\bBhf\.", "Bahnhof"), (r"\bHbf\.", "Hauptbahnhof"), (r"\bstündl\.", "stündlich"), (r"\bwöch\.", "wöchentlich"),
        (r"\bTreffpkt\.", "Treffpunkt"), (r"\bAnm\.", "Anmeldung"), (r"\bn\.\s?Vereinb\.", "nach Vereinbarung"),
        (r"\bVereinb\.", "Vereinbarung"), (r"\bp\.\s?P\.", "pro Person"), (r"\bi\.\s?d\.\s?R\.", "in der Regel"),
        (r"\bgem\.", "gemäß"), (r"\bKl\.", "Klasse"), (r"\bmin\.", "mindestens"), (r"\bmax\.", "maximal"),
        (r"\btel\.", "telefonisch"), (r"\bÖff\.", "Öffentliche"), (r"\bMwSt\.", "Mehrwertsteuer"),
        (r"\bs/w\b", "schwarz-weiß"), (r"\bu\.\s?U\.", "unter Umständen"), (r"\bgeöffn\.", "geöffnet"),
        (r"(?<=\d)\s*J\.", " Jahre"), (r"\bJ\.(?=\s*\)|\s+(?:frei|alt))", "Jahre"),
        (r"\b1 Stunde(?=\W|$)", "1 Stunde"), (r"(?<![\d,.])(?!1\b)(\d+) Stunde(?=\W|$)", r"\1 Stunden"),
        (rf"\b({_MONTHS})\.?\s*[–-]\s*({_MONTHS})\b\.?", lambda m: f"{_month(m[1])} bis {_month(m[2])}"),
        (rf"\b({_MONTH_ABBR})\.?(?=\s*(?:,|und|\+)\s*(?:{_MONTHS})\b)", lambda m: _month(m[1])),  # "Jul, Aug"
        (rf"(?<=[,+]\s)({_MONTH_ABBR})\b\.?|(?<=\bund\s)({_MONTH_ABBR})\b\.?", lambda m: _month(m[1] or m[2])),
        (r"\s*/\s*(Tag|Woche|Monat|Jahr|Person|Kind|Nacht|Stück|Seite|Karte|Fahrt)\b", r" pro \1"),
        (r"(?<=[^\W\d_])\s?/\s?(?=[^\W\d_])", ", "), (r"\s+\|\s+", ", "),
        (r"\b(Mo|Di|Mi|Do|Fr|Sa|So)\s*[–-]\s*(Mo|Di|Mi|Do|Fr|Sa|So)\b",
         lambda m: f"{_DAY_DE[m[1]]} bis {_DAY_DE[m[2]]}"),
        (r"\b(Mo|Di|Mi|Do|Fr|Sa|So)\s*(?:\+|und)\s*(Mo|Di|Mi|Do|Fr|Sa|So)\b",
         lambda m: f"{_DAY_DE[m[1]]} und {_DAY_DE[m[2]]}"),
    ],
    "en": [
        (r"\be\.\s?g\.", "for example"), (r"\bi\.\s?e\.", "that is"), (r"\bMr\.", "Mister"),
        (r"\bMrs\.", "Missus"), (r"\bDr\.", "Doctor"), (r"\bapprox\.", "approximately"),
        (r"\bNo\.\s?(?=\d)", "number "), (r"\bWC\b", "toilet"), (r"%", " percent"), (r"&", " and "),
        (r"\s*/\s*hr\b\.?", " per hour"), (r"\b1\s*hr\b\.?", "1 hour"), (r"\bhrs?\.?(?=\W|$)", "hours"), (r"\bmins?\.?(?=\W|$)", "minutes"),
        (r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\s*[–-]\s*(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b",
         lambda m: f"{_DAY_EN[m[1]]} to {_DAY_EN[m[2]]}"),
    ],
}
_ABBREVIATIONS_RE = {lang: [(re.compile(p), r) for p, r in pairs] for lang, pairs in _ABBREVIATIONS.items()}


def speakable(text: str, lang: str) -> str:
    """The text as it should be spoken in `lang` ("de" or "en")."""
    lang = "de" if lang == "de" else "en"
    out = _EMAIL.sub(lambda m: _email(m, lang), text)
    out = _PHONE.sub(_phone, out)
    out = _EURO_COMPOUND.sub(lambda m: f"{m[1]}-Euro-" if lang == "de" else f"{m[1]} euro ", out)
    out = _PRICE_BEFORE.sub(lambda m: _money(m[1], m[2], lang), out)
    out = _PRICE_AFTER.sub(lambda m: _money(m[1], m[2], lang), out)
    if lang == "de":
        out = _DE_ORDINAL.sub(_ordinal_de, out)
        out = _TIMES_X.sub(lambda m: num2words(int(m[1] or m[2]), lang="de") + "mal", out)
        out = _DE_DOT_TIME_RANGE.sub(lambda m: f"{_time_de(int(m[1]), int(m[2]))} bis {_time_de(int(m[3]), int(m[4] or 0))}", out)
        out = _DE_DOT_TIME.sub(lambda m: _time_de(int(m[1]), int(m[2])), out)
        out = _HOUR_RANGE_DE.sub(lambda m: f"{int(m[1])} bis {int(m[2])} Uhr", out)
    out = _TIME_RANGE.sub(lambda m: _time_range(m, lang), out)
    out = _TIME_ONE.sub(lambda m: _time(int(m[1]), int(m[2]), lang), out)
    ends_with_period = out.rstrip().endswith(".")
    for pattern, repl in _ABBREVIATIONS_RE[lang]:
        out = pattern.sub(repl, out)
    if lang == "de":
        out = _DAY_BEFORE_NUMBER.sub(lambda m: _DAY_DE[m[1]], out)
    out = " ".join(out.split()).replace("a.m..", "a.m.").replace("p.m..", "p.m.")
    if ends_with_period and not out.endswith((".", "!", "?")):
        out += "."  # an abbreviation closed the sentence: keep its falling tone
    return out


def _time_range(m: re.Match, lang: str) -> str:
    a, b = (int(m[1]), int(m[2])), (int(m[3]), int(m[4]))
    if lang == "de":
        if a[1] == 0 and b[1] == 0:
            return f"{a[0]} bis {b[0]} Uhr"
        return f"{_time_de(*a)} bis {_time_de(*b)}"
    return f"{_time_en(*a)} to {_time_en(*b)}"


def _time(hour: int, minute: int, lang: str) -> str:
    return _time_de(hour, minute) if lang == "de" else _time_en(hour, minute)


def _time_de(hour: int, minute: int) -> str:
    return f"{hour} Uhr" if minute == 0 else f"{hour} Uhr {minute}"


def _time_en(hour: int, minute: int) -> str:
    if minute == 0 and hour in (0, 24):
        return "midnight"
    if minute == 0 and hour == 12:
        return "noon"
    suffix = "a.m." if hour < 12 or hour == 24 else "p.m."
    h12 = hour % 12 or 12
    if minute == 0:
        return f"{h12} {suffix}"
    return f"{h12} {minute:02d} {suffix}" if minute >= 10 else f"{h12} oh {minute} {suffix}"


def _money(euros: str, cents: str | None, lang: str) -> str:
    e, c = int(euros), int(cents or 0)
    if lang == "de":
        if e == 0 and c:
            return f"{c} Cent"
        return f"{e} Euro" + (f" {c}" if c else "")
    if e == 0 and c:
        return f"{c} cents"
    unit = "euro" if e == 1 else "euros"
    return f"{e} {unit}" + (f" {c}" if c else "")


def _email(m: re.Match, lang: str) -> str:
    at, dot = ("at", "Punkt") if lang == "de" else ("at", "dot")
    domain = f" {dot} ".join(m[2].split("."))
    return f"{m[1]} {at} {domain}"


def _ordinal_de(m: re.Match) -> str:
    """'3.' before 'Juni' -> 'dritten' (espeak-ng would read 'drei' and end the sentence)."""
    n = int(m[1])
    word = m[2] or ""
    if n == 0 or (word and is_sentence_end(m[1], word, "de")):
        return m[0]
    before = m.string[:m.start()]
    bare = word.strip("„“\"'()[]")
    if bare[:1].isupper() and bare.lower() not in _DE_MONTHS and bare not in _ORDINAL_NOUNS \
            and not _ORDINAL_CONTEXT.search(before):
        return m[0]
    stem = num2words(n, lang="de", to="ordinal")[:-1]  # "dritte" -> "dritt", "einundzwanzigste" -> "...st"
    return stem + ("e" if _ARTICLE_BEFORE.search(before) else "en")


def _phone(m: re.Match) -> str:
    """'0341 555 20 40' -> '0 3 4 1, 5 5 5, 2 0, 4 0': phone numbers are read digit by digit."""
    text = m[0]
    if not text.lstrip("+").startswith("0") and not text.startswith("+"):
        return text  # "6 bis 12", "24 25": not a phone number
    groups = re.split(r"[ /-]+", text.lstrip("+"))
    return ("plus " if text.startswith("+") else "") + ", ".join(" ".join(g) for g in groups)
