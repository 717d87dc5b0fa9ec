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
_PRICE = re.compile(r"€|\beuros?\b|\beur\b|kostenlos|kostenfrei|gratis|umsonst|\bfrei(?:e|en|er|es)?\b|free|no charge|\bct\b|cent",
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


