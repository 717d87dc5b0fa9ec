"""What kind of answer a question asks for, and whether a text holds that kind of value.

"Wann", "bis wann", "when" ask for a time; "was kostet", "how much" for a price; "wo", "where" for
a place; "gibt es", "can I" are yes/no questions. A fact answers a time or price question only if
it holds a time or a price. Retrieval orders its facts by it (answer/retrieval/retriever.py) and the checks
judge replies and facts by it (answer/checks/answers.py).
"""
from __future__ import annotations

import re

from avatar.answer.text import words

_KIND_CUES = {
    "time": {"de": ("wann", "bis wann", "ab wann", "uhrzeit", "öffnungszeit", "öffnungszeiten", "geöffnet", "offen",
                    "wie lange", "um wie viel uhr", "schließt", "öffnet"),
             "en": ("when", "what time", "opening hours", "open", "until", "how long", "close", "closes", "hours")},
    "price": {"de": ("kostet", "kosten", "preis", "preise", "teuer", "gebühr", "zahlen", "bezahlen", "wie viel", "wieviel",
                     "gratis", "kostenlos", "umsonst"),
              "en": ("how much", "cost", "costs", "price", "prices", "fee", "pay", "free", "charge")},
    "place": {"de": ("wo", "wohin", "wie komme", "in welchem", "welcher stock", "welche etage"),
              "en": ("where", "how do i get", "which floor", "which level")},
}
_YES_NO = {"de": ("gibt es", "gibts", "darf", "dürfen", "kann", "können", "ist", "sind", "hat", "habt", "haben", "muss",
                  "brauche", "braucht", "nehmt", "nehmen", "akzeptiert", "bietet", "bietet ihr"),
           "en": ("is", "are", "can", "do", "does", "may", "am i", "is there", "are there", "should", "will", "have you",
                  "must")}
_TIME = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:uhr|h|am|pm)\b|\b\d{1,2}\s*[–-]\s*\d{1,2}\s*(?:uhr|h)?\b|"
                   r"geschlossen|closed|täglich|daily|rund um die uhr|24/7|24 h", re.IGNORECASE)
_PRICE = re.compile(r"€|\beuros?\b|\beur\b|kostenlos|kostenfrei|gratis|umsonst|\bfrei(?:e|en|er|es)?\b|(?<![-\w])free\b|no charge|\bct\b|cent",
                    re.IGNORECASE)


def asked_kind(question: str, lang: str) -> str:
    """'time' | 'price' | 'place' | 'yesno' | 'other': what a right reply must hold."""
    text = " " + " ".join(words(question)) + " "
    cues = {k: v.get(lang, ()) + v.get("en" if lang == "de" else "de", ()) for k, v in _KIND_CUES.items()}
    for kind in ("price", "time", "place"):
        if any(f" {c} " in text for c in cues[kind]):
            return kind
    first = " ".join(words(question)[:2])
    if any(first == y or first.split(" ")[0] == y for y in _YES_NO.get(lang, ())):
        return "yesno"
    return "other"


def holds_kind(text: str, kind: str) -> bool:
    """A time for 'time', a price for 'price'; any text for the other kinds."""
    if kind == "time":
        return bool(_TIME.search(text))
    if kind == "price":
        return bool(_PRICE.search(text))
    return True


# "Is there a steam room?", "gibt es eine Rutsche?", "do you have lockers?": the visitor asks whether the
# venue has a thing. The pack must name that thing itself; a fact about the sauna does not say that there
# is a steam room, however many of the question's other words it holds.
_EXISTS = {"de": ("gibt es", "gibts", "gibt's", "habt ihr", "haben sie", "verkauft ihr", "verkaufen sie"),
           "en": ("is there", "are there", "do you have", "do you guys have", "have you got", "do they have",
                  "does it have")}
_INDEFINITE = {"de": frozenset("ein eine einen einem einer eines kein keine keinen keinem keiner".split()),
               "en": frozenset("a an any some".split())}
# Words that end the thing asked about: prepositions and the like ("a steam room | in the sauna").
_FOCUS_END = {"de": frozenset("im in am an auf aus bei beim mit nach von vom zu zum zur für um über unter vor bis "
                              "hier da dort auch noch schon heute morgen irgendwo wo wann und oder wenn "
                              "ich du er sie es wir ihr man mein meine dein deine nicht kann könnt können darf "
                              "muss ist sind".split()),
              "en": frozenset("in into onto at on for near by with to from inside outside around nearby here there today "
                              "tomorrow and or where when that which if i you we they he she it my your not can "
                              "could is are do does".split())}
# "Does the café have vegan cake?", "can I borrow a laptop?", "kann ich ein Tablet ausleihen?": asking to
# have or get a thing asks whether the venue has it, too.
_HAVE_EN = re.compile(r"^(?:\w+ )?(?:does|do) (?:the |your |this |that )?(?:\w+ ){1,2}(?:have|do|serve|sell|offer) ")
_GET_EN = re.compile(r"^(?:\w+ )?(?:can|could|may) (?:i|we) (?:also )?(?:borrow|rent|hire|buy|get) ")
_GET_DE_START = frozenset("kann können darf dürfen".split())
_GET_DE_WHO = frozenset("ich man wir".split())
_GET_DE_VERBS = frozenset("ausleihen leihen ausborgen borgen mieten kaufen bekommen kriegen".split())
# "Can I bring my dog?", "darf ich meinen Hund mitnehmen?", "are dogs allowed?": asking whether a thing is
# allowed asks about that thing, too; a fact about food in the screens does not say that dogs may come.
_BRING_EN = re.compile(r"^(?:\w+ )?(?:can|could|may) (?:i|we) (?:also )?(?:bring|take) ")
_ALLOWED_EN = re.compile(r"^(?:are|is) (?:\w+ ){1,3}(?:allowed|permitted)\b")
_BRING_DE_VERBS = frozenset("mitbringen mitnehmen reinnehmen mitführen bringen nehmen".split())  # "mit rein nehmen"
_ALLOWED_DE = frozenset("erlaubt gestattet".split())
_OWNER_WORDS = {"de": frozenset("mein meine meinen meinem unser unsere unseren unserem den die das dem".split()),
                "en": frozenset("my our the".split())}
# Nouns that hold no thing of their own ("is there a place to charge my car", "gibt es eine Möglichkeit"):
# what follows them says what is asked, and it is not the focus.
_FOCUS_MAX = 3  # "ein barrierefreies WC", "a family changing room"; a longer run has left the thing
_VALUE_WORDS = frozenset(c for cues in _KIND_CUES.values() for lang_cues in cues.values() for c in lang_cues
                         if " " not in c) | frozenset("kostenloses kostenlose kostenlosen gratis".split())
_EMPTY_NOUNS = frozenset("place places somewhere something anything anywhere way option options possibility "
                         "chance thing things kind sort "
                         "möglichkeit möglichkeiten ort platz stelle etwas was irgendwas sowas art".split())


def asked_focus(question: str, lang: str) -> tuple[str, ...]:
    """The words naming the thing whose existence a question asks about: "is there a steam room in the
    sauna" -> ("steam", "room"); "gibt es im Lehrschwimmbecken eine Rutsche" -> ("rutsche",). Empty for
    any other question, and when the thing is only "a place", "etwas" (what comes after says it)."""
    ws = words(re.split(r"[?.!]", question, maxsplit=1)[0])  # its first sentence
    rest = _after_trigger(ws, lang)
    if rest is None:
        return ()
    if lang == "de" and rest and rest[0] in _FOCUS_END["de"] and "auch" in rest:
        # "gibt es im Café auch glutenfreien Kuchen": the place first, the thing after "auch"
        rest = rest[len(rest) - rest[::-1].index("auch"):]
    articles = _INDEFINITE.get(lang, frozenset())
    # German puts a place before the thing ("gibt es im Bad eine Rutsche"): the thing follows its article.
    if lang == "de" and any(w in articles for w in rest):
        rest = rest[next(i for i, w in enumerate(rest) if w in articles):]
    focus: list[str] = []
    for w in rest:
        if w in articles and not focus:
            continue
        if w in _FOCUS_END.get(lang, frozenset()) or w in articles:
            break
        focus.append(w)
        if len(focus) == _FOCUS_MAX:
            break
    if any(w in _EMPTY_NOUNS for w in focus):
        return ()
    # "free wifi", "kostenloses WLAN": the kind of value asked is not the thing
    return tuple(w for w in focus if w not in _VALUE_WORDS)


def _owned(rest: list[str], lang: str) -> list[str]:
    """What is brought, without the owner's words before it ("my dog", "meinen Hund")."""
    owners = _OWNER_WORDS.get(lang, frozenset())
    i = 0
    while i < len(rest) and rest[i] in owners:
        i += 1
    return rest[i:]


def _after_trigger(ws: list[str], lang: str) -> list[str] | None:
    """The words after what makes a question ask for a thing ("is there", "gibt es", "does the café
    have", "can I borrow"); None when it does not."""
    for trigger in _EXISTS.get(lang, ()):
        t = trigger.split()
        # "is there", "hey is there", "entschuldigung gibt es": the trigger opens the question
        at = next((i for i in range(min(3, len(ws))) if ws[i:i + len(t)] == t), None)
        if at is not None:
            return ws[at + len(t):]
    text = " ".join(ws) + " "
    if lang == "en":
        m = _HAVE_EN.match(text) or _GET_EN.match(text) or _BRING_EN.match(text)
        if m:
            return _owned(ws[len(m.group(0).split()):], lang)
        if _ALLOWED_EN.match(text):
            return ws[1:next(i for i, w in enumerate(ws) if w in ("allowed", "permitted"))]
        return None
    if lang == "de" and len(ws) >= 3 and ws[0] in ("sind", "ist") and ws[-1] in _ALLOWED_DE:
        return ws[1:-1]  # "sind | Hunde | erlaubt"
    if (lang == "de" and len(ws) >= 4 and ws[0] in _GET_DE_START and ws[1] in _GET_DE_WHO
            and ws[-1] in _BRING_DE_VERBS):
        return _owned(ws[2:-1], lang)  # "darf ich | meinen Hund | mitnehmen"
    if (lang == "de" and len(ws) >= 4 and ws[0] in _GET_DE_START and ws[1] in _GET_DE_WHO
            and ws[-1] in _GET_DE_VERBS):
        return ws[2:-1]  # "kann ich | hier ein Tablet | ausleihen": the verb comes last
    return None


# --- the value a question asks for, and whether a fact holds it ------------------------------------------
# "What's the phone number of the pharmacy?" at a pack whose pharmacy fact gives only its floor, "wie warm
# ist es im Tropenhaus?" where the glasshouse fact gives only its hours: the fact is about the thing asked,
# but it does not hold the value asked for, so it does not answer (it would be said as if it did).
_VALUE_CUES = {
    "phone": ("telefonnummer", "rufnummer", "nummer", "anrufen", "phone number", "telephone number", "number to call",
              "call you", "call the", "ring you"),
    "email": ("e mail", "email", "mail", "mailadresse", "e mail adresse", "email address"),
    "temperature": ("wie warm", "wie kalt", "temperatur", "wie heiß", "grad", "how warm", "how cold", "how hot",
                    "temperature", "degrees"),
    # "Wie lautet das WLAN-Passwort?" where the pack only says the wifi is free
    "password": ("passwort", "kennwort", "password", "passcode", "zugangscode", "zugangsdaten"),
}
_VALUE_PATTERNS = {
    "phone": re.compile(r"\+?\d[\d /()-]{5,}\d"),
    "email": re.compile(r"@|\bwww\.|\.\w{2,3}\b/"),
    "temperature": re.compile(r"°|\bgrad\b|\bdegrees?\b", re.IGNORECASE),
    "password": re.compile(r"passwor|kennwort|passcode|code|zugangsdaten|login|ohne anmeldung|without (?:a )?login|"
                           r"no password|open network|offenes netz", re.IGNORECASE),
}


_BY = ("per", "by", "via", "über", "mit", "through", "over the")
_PAYING = ("pay", "paying", "bezahlen", "zahlen", "bezahle", "zahle", "payment", "bezahlung", "zahlung")
_AMOUNT_ASKED = ("how much", "wie viel", "wieviel", "was kostet", "what does", "was kosten", "how expensive")
_PRICE_ASKED = ("kostet", "kosten", "preis", "preise", "gebühr", "gebühren", "teuer", "how much is", "how much are",
                "how much does", "how much do", "cost", "costs", "price", "prices", "fee", "fees")


# "Is the dentist open on Saturday?" at a mall whose dentist fact gives only the floor: an opening-time
# question needs a time (or "closed", "daily") in the fact; "how long" questions are left out (durations).
_OPEN_STARTS = frozenset("hat habt haben macht machen wann bis ab ist sind".split())
_OPEN_ASKED = ("offen", "geöffnet", "öffnet", "schließt", "öffnungszeiten", "open", "opens", "close", "closes",
               "opening hours")
# what answers an opening question: the times `holds_kind` reads, and "12 noon", "geschl.", "Ruhetag", "24 Std."
_OPEN_HELD = re.compile(_TIME.pattern + r"|\b\d{1,2}\s*noon\b|geschl|ruhetag|24 std", re.IGNORECASE)
# how long something lasts or holds ("gültig 3 Jahre", "60 Min.", "valid for 2 years"): answers "wie lange"
_DURATION = re.compile(r"\b\d+\s*(?:min|minuten|minutes|std|stunden|hours?|hrs?|tage|days?|wochen|weeks?|"
                       r"monate|months?|jahre|years?)\b", re.IGNORECASE)


def asked_value(question: str) -> str:
    """'phone' | 'email' | 'temperature' | 'password' | 'price' | 'hours' when the question asks for that value, else ''. Only the
    words that ask for an amount count as price cues: "can I pay by card" asks how, not how much."""
    text = (" " + " ".join(words(question)) + " ").replace(" e mail ", " email ")
    for kind, cues in _VALUE_CUES.items():
        # "kann ich mich per E-Mail anmelden", "can I book by phone": the way, not the address or number
        if any(f" {c} " in text and not any(f" {m} {c} " in text for m in _BY) for c in cues):
            return kind
    if any(f" {c} " in text for c in _PRICE_ASKED):
        # "can I pay the fees in cash": how to pay, not how much
        paying = any(f" {p} " in text for p in _PAYING) and not any(f" {c} " in text for c in _AMOUNT_ASKED)
        return "" if paying else "price"
    ws = text.split()
    # "hat der Zahnarzt am Samstag auf", "wann macht ihr auf": "auf" ends a question about opening, but
    # "wie lange hebt ihr Fundsachen auf" asks how long
    opening = bool(ws) and ws[-1] == "auf" and ws[0] in _OPEN_STARTS
    if opening or any(f" {c} " in text for c in _OPEN_ASKED):
        return "hours"
    return ""


def holds_duration(text: str) -> bool:
    """The text says how long something lasts ("3 Jahre gültig", "about 60 minutes")."""
    return bool(_DURATION.search(text))


def holds_value(text: str, kind: str) -> bool:
    """The text holds a value of that kind (a phone number, an e-mail address, a temperature, a price or
    "free", an opening time or "closed")."""
    if kind == "price":
        return holds_kind(text, kind)
    if kind == "hours":
        return bool(_OPEN_HELD.search(text))
    pattern = _VALUE_PATTERNS.get(kind)
    return pattern is None or bool(pattern.search(text))


# --- the thing a price, hours or place question is about ---------------------------------------------------
# "How much is the ticket to the moon?", "what does the zoo cost", "wann öffnet der Zoo", "where is the moon":
# the question names its thing, and a fact about another thing (the museum's admission) does not answer it,
# however well its other words fit. The thing follows the question's opening ("how much is", "was kostet",
# "when does", "wo ist"); a place it is for ("to the moon", "zum Mond") is part of what is asked.
_SUBJECT_OPENINGS = {
    "en": (re.compile(r"^(?:\w+ )?how much (?:is|are|does|do|would|will) (?P<rest>.+?)(?: cost| costs| be)?$"),
           re.compile(r"^(?:\w+ )?(?:what|how much) (?:does|do|would|will) (?P<rest>.+?) cost$"),
           re.compile(r"^(?:\w+ )?(?:what is|what s|whats) the (?:price|cost|fee) (?:of|for) (?P<rest>.+)$"),
           re.compile(r"^(?:\w+ )?how expensive (?:is|are) (?P<rest>.+)$"),
           re.compile(r"^(?:\w+ )?(?:when|what time) (?:does|do|is|are|will) (?P<rest>.+?) (?:open|opens|close|closes|shut)"
                      r"(?: \w+)*$"),
           re.compile(r"^(?:\w+ )?where (?:is|are|s) (?P<rest>.+)$"),
           re.compile(r"^(?:\w+ )?where (?:can|do) (?:i|we) find (?P<rest>.+)$")),
    "de": (re.compile(r"^(?:\w+ )?(?:was|wie ?viel) (?:kostet|kosten) (?P<rest>.+)$"),
           re.compile(r"^(?:\w+ )?(?:wann|bis wann|ab wann) (?:öffnet|schließt|hat|haben|macht|machen|ist|sind) "
                      r"(?P<rest>.+?)(?: (?:auf|zu|offen|geöffnet|geschlossen))?$"),
           re.compile(r"^(?:\w+ )?wo (?:ist|sind|liegt|liegen|finde ich|finden wir|gibt es) (?P<rest>.+)$")),
}
_FOOD_OPENINGS = {  # "what can I eat on the moon", "was kann man auf dem Mond essen"
    "en": (re.compile(r"^(?:\w+ )?what (?:can|could) (?:i|we|you) (?:eat|drink|get to eat|buy) (?P<rest>.+)$"),
           re.compile(r"^(?:\w+ )?what (?:food|drinks|snacks) (?:is there|are there|do you have|can i get) (?P<rest>.+)$")),
    "de": (re.compile(r"^(?:\w+ )?was (?:kann|können) (?:ich|man|wir) (?P<rest>.+) (?:essen|trinken|kaufen)$"),),
}
_PER = frozenset("per pro je a".split())  # "electricity per night", "ein Kind pro Nacht"
_PAYING_VERBS = frozenset("pay zahlen bezahlen zahlt".split())
_FOR_PLACE = {"en": frozenset("to on at".split()), "de": frozenset("zum zur nach auf".split())}  # "to the moon"
_ARTICLES = {"de": frozenset("der die das den dem des ein eine einen einem einer eines".split()),
             "en": frozenset("a an the one".split())}


def asked_subject(question: str, lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The thing a price, hours or place question asks about, and the place it is for (also of an "is
    there" or a what-can-I-eat question): "how much is the ticket to the moon" -> (("ticket",), ("moon",));
    "what does the zoo cost" -> (("zoo",), ()); "is there a café on mars" -> ((), ("mars",)). No thing when
    it is "it", "das", "ihr" (the venue itself) or the one who pays ("how much do children pay")."""
    ws = words(re.split(r"[?.!]", question, maxsplit=1)[0])
    text = " ".join(ws)
    articles, end = _ARTICLES.get(lang, frozenset()), _FOCUS_END.get(lang, frozenset())
    skip, places = articles | _OWNER_WORDS.get(lang, frozenset()), _FOR_PLACE.get(lang, frozenset())

    def phrase(rest: list[str], i: int) -> tuple[list[str], int]:
        while i < len(rest) and rest[i] in skip:
            i += 1
        out = []
        while i < len(rest) and rest[i] not in end | _PER and rest[i] not in articles and len(out) < _FOCUS_MAX:
            out.append(rest[i])
            i += 1
        return out, i

    def place_at(rest: list[str], i: int) -> list[str]:
        return phrase(rest, i + 1)[0] if i < len(rest) and rest[i] in places else []

    keep = lambda ws: tuple(dict.fromkeys(w for w in ws if w not in _VALUE_WORDS and w not in _EMPTY_NOUNS))
    rest = next((m.group("rest").split() for p in _SUBJECT_OPENINGS.get(lang, ()) for m in [p.match(text)] if m), None)
    if rest:
        if rest[-1] in _PAYING_VERBS:
            return (), ()
        thing, i = phrase(rest, 0)
        return (() if any(w in _EMPTY_NOUNS for w in thing) else keep(thing)), keep(place_at(rest, i))
    rest = next((m.group("rest").split() for p in _FOOD_OPENINGS.get(lang, ()) for m in [p.match(text)] if m), None)
    if rest:
        return (), keep(place_at(rest, 0))
    rest = _after_trigger(ws, lang)
    if rest:  # "is there a café on mars", "gibt es auf dem Mond ein Café"
        if rest[0] in places:
            return (), keep(place_at(rest, 0))
        _, i = phrase(rest, 0)
        return (), keep(place_at(rest, i))
    return (), ()
