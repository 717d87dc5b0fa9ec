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

The venues are built in venues/ (styled_venue.py, subjects.py, styled_words.py); this module asks
the questions, writes the replies and yields the examples. The word lists were written from
general knowledge of kiosks and signage, never from the evaluation packs in evals/ (those are for
measuring only).
"""
from __future__ import annotations

import random

from avatar.model_contract import DECLINE
from avatar_dev.train.asr_style import asr_style
from avatar_dev.train.example import Example
from avatar_dev.train.venues.styled_venue import Clause, Fact, StyledVenue, cap_first
from avatar_dev.train.venues.styled_words import RULES
from avatar_dev.train.venues.subjects import SUBJECTS, Subject

PREFIXES = {"de": ["Entschuldigung, ", "Hallo, ", "Eine Frage: ", "Sagen Sie mal, ", "Hallo, ich hätte eine Frage: ", "Ähm, "],
            "en": ["Excuse me, ", "Hi, ", "Quick question: ", "Sorry, ", "Hello, I have a question: ", "Um, "]}


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
    return rng.choice([f"Welcher {s.label_de} fährt hierher?", f"Wie komme ich mit {s.label_de} hierher?", "Welche Linie fährt in die Stadt?",
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
    text = cap_first(text) + ("" if text.endswith((".", ")", "!")) else ".")
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
