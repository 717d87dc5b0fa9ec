"""Training examples from randomised synthetic venues: (facts, history, question) -> reply record.

Every venue is drawn from a seeded random generator and rendered to fact sentences in German and
English; a question about one fact is asked in the fact's language, often as speech recognition
would deliver it (lower case, no punctuation, a misheard word). The prompt holds the fact that
answers it plus a few distractors (the retriever's other hits), so the model learns to pick and
copy values, not to memorise venues. Some questions have no answer in the facts (decline and point
to staff), some are follow-ups ("und am Sonntag?"), some are small talk from chatterbot-corpus and
chitchat-dataset. Train and held-out venues come from disjoint seeds.

The venues are built in venues/ (venue.py, kind_facts.py), the small talk in small_talk.py, the
recogniser's spelling in asr_style.py; this module turns them into the stream of examples.
"""
from __future__ import annotations

import random
from typing import Iterator

from avatar.model_contract import DAYS, DECLINE  # the wording the kiosk shares (avatar/model_contract.py)
from avatar_dev.train.asr_style import asr_style
from avatar_dev.train.example import Example
from avatar_dev.train.small_talk import KIOSK_TALK, chatterbot_pairs, require_small_talk, small_talk_pairs
from avatar_dev.train.styled import styled_examples
from avatar_dev.train.venues.values import Item, week_hours_text
from avatar_dev.train.venues.venue import Venue
from avatar_dev.train.venues.words import AMENITIES, CITIES, COMPANY, FIRST, LAST, MONTHS, PLACES, STREETS

# the stream, and what other modules and the tests read from the corpus (its venues, word lists, small talk)
__all__ = ["CITIES", "COMPANY", "DAYS", "DECLINE", "DECLINE_SHARE", "FIRST", "LAST", "MONTHS", "PLACES", "STREETS",
           "STYLED_SHARE", "UNKNOWN_TOPICS", "Example", "Venue", "asr_style", "examples", "make_example",
           "require_small_talk", "small_talk_pairs", "take", "week_hours_text"]

UNKNOWN_TOPICS = {  # questions no synthetic venue can answer
    "de": ["Kann man hier Fahrräder leihen?", "Wie wird das Wetter morgen?", "Gibt es hier eine Apotheke?",
           "Wer hat das Gebäude gebaut?", "Wie viele Besucher kommen pro Jahr?", "Gibt es Führungen auf Chinesisch?",
           "Kann ich hier mit Bitcoin bezahlen?", "Wo ist das nächste Krankenhaus?", "Wie alt ist das Gebäude?",
           "Wann ist das Konzert heute Abend?", "Wie komme ich zum Flughafen?", "Wie hoch ist der Turm?",
           "Kann man hier Geld wechseln?", "Wo ist die nächste Tankstelle?", "Gibt es hier ein Kino?",
           "Wann fährt der Bus zum Stadion?", "Kann ich hier heiraten?", "Wo gibt es hier gutes Eis?"],
    "en": ["Can I rent a bike here?", "What will the weather be like tomorrow?", "Is there a pharmacy here?",
           "Who built this building?", "How many visitors come each year?", "Are there tours in Chinese?",
           "Can I pay with bitcoin?", "Where is the nearest hospital?", "How old is the building?",
           "When is the concert tonight?", "How do I get to the airport?", "How tall is the tower?",
           "Can I change money here?", "Where is the nearest petrol station?", "Is there a cinema here?",
           "When does the bus to the stadium leave?", "Can I get married here?", "Where can I get good ice cream?"]}


def _prompt_facts(rng: random.Random, venue: Venue, targets: list[Item], lang: str, extra: int) -> list[str]:
    """The target facts plus distractors, preferring the same topic (the retriever's near misses)."""
    others = [i for i in venue.items if i not in targets]
    same = [i for i in others if i.topic == targets[0].topic] if targets else []
    pool = rng.sample(same, min(len(same), rng.randint(0, extra))) if same else []
    rest = [i for i in others if i not in pool]
    pool += rng.sample(rest, max(0, min(len(rest), extra - len(pool))))
    facts = list(dict.fromkeys(i.fact[lang] for i in targets + pool[:extra]))  # grouped facts repeat
    rng.shuffle(facts)
    return facts


def _ask(rng: random.Random, item: Item, lang: str) -> str:
    q = rng.choice(item.questions[lang])
    return asr_style(q, lang, rng) if rng.random() < 0.5 else q


DECLINE_SHARE = 0.15  # unanswerable questions in the mix (the held-out evaluation always uses this)


def make_example(rng: random.Random, venue: Venue, lang: str | None = None,
                 decline_share: float = DECLINE_SHARE) -> Example:
    lang = lang or rng.choice(("de", "en"))
    r = rng.random()
    if r < 0.10:
        return _small_talk(rng, venue, lang)
    if r < 0.10 + decline_share:
        return _decline(rng, venue, lang)
    r -= decline_share - DECLINE_SHARE  # the other kinds keep their order; facts give up the difference
    if r < 0.35:
        ex = _follow_up(rng, venue, lang)
        if ex:
            return ex
    if r < 0.42:
        return _today(rng, venue, lang)
    item = rng.choice(venue.items)
    facts = _prompt_facts(rng, venue, [item], lang, rng.randint(1, 3))
    return Example(lang, facts, _ask(rng, item, lang), rng.choice(item.reply[lang]), item.mood, "fact",
                   values=item.values[lang])


def _today(rng: random.Random, venue: Venue, lang: str) -> Example:
    item = venue.today_item(rng.randrange(7))
    week = next(i for i in venue.items if i.topic == "hours_week")
    facts = [item.fact[lang]] + ([week.fact[lang]] if rng.random() < 0.6 else [])
    facts += [i.fact[lang] for i in rng.sample(venue.items, rng.randint(0, 1))]
    rng.shuffle(facts)
    return Example(lang, facts, _ask(rng, item, lang), rng.choice(item.reply[lang]), item.mood, "fact",
                   values=item.values[lang])


def _follow_up(rng: random.Random, venue: Venue, lang: str) -> Example | None:
    keyed = [i for i in venue.items if i.key and i.topic in ("hours", "departures", "amenities", "exhibitors")]
    first = rng.choice(keyed)
    same = [i for i in keyed if i.topic == first.topic and i is not first]
    if not same:
        return None
    second = rng.choice(same)
    if first.topic == "hours":
        day = DAYS[lang][int(second.key[3:])]
        q = {"de": f"Und am {day}?", "en": f"And on {day}?"}[lang]
    elif first.topic == "departures":
        q = {"de": f"Und nach {second.key}?", "en": f"And to {second.key}?"}[lang]
    elif first.topic == "exhibitors":
        q = {"de": f"Und {second.key}?", "en": f"And {second.key}?"}[lang]
    else:
        noun = next(a for a in AMENITIES if a[3] == second.key)
        q = {"de": f"Und {noun[0]}?", "en": f"And {noun[3]}?"}[lang]
    facts = _prompt_facts(rng, venue, [second, first], lang, rng.randint(0, 1))
    history = [(rng.choice(first.questions[lang]), rng.choice(first.reply[lang]))]
    return Example(lang, facts, asr_style(q, lang, rng) if rng.random() < 0.4 else q, rng.choice(second.reply[lang]),
                   second.mood, "followup", history, second.values[lang])


def _decline(rng: random.Random, venue: Venue, lang: str) -> Example:
    r = rng.random()
    if r < 0.45 and venue.absent:
        a = rng.choice(venue.absent)
        de, is_de, en, is_en = a[0], "sind" if a[1] else "ist", a[3], "are" if a[4] else "is"
        q = rng.choice({"de": [f"Wo {is_de} {de}?", f"Gibt es hier {rng.choice(a[2])}?", f"Wo finde ich {rng.choice(a[2])}?"],
                        "en": [f"Where {is_en} {en}?", f"Is there a {rng.choice(a[5]).removeprefix('the ')} here?",
                               f"Where can I find the {rng.choice(a[5]).removeprefix('the ')}?"]}[lang])
        topic = "amenities"
    elif r < 0.6 and venue.kind == "station":
        city = rng.choice(venue.absent_cities)
        q = {"de": f"Wann fährt der Zug nach {city}?", "en": f"When does the train to {city} leave?"}[lang]
        topic = "departures"
    elif r < 0.6 and venue.kind == "fair":
        firm = rng.choice(venue.absent_firms)
        q = {"de": f"Wo finde ich {firm}?", "en": f"Where can I find {firm}?"}[lang]
        topic = "exhibitors"
    elif r < 0.8 and venue.absent_services:
        q, topic = rng.choice(rng.choice(venue.absent_services).questions[lang]), ""
    else:
        q, topic = rng.choice(UNKNOWN_TOPICS[lang]), ""
    near = [i for i in venue.items if i.topic == topic] or venue.items
    facts = [i.fact[lang] for i in rng.sample(near, min(len(near), rng.randint(1, 3)))]
    return Example(lang, facts, asr_style(q, lang, rng) if rng.random() < 0.5 else q, rng.choice(DECLINE[lang]),
                   "sorry", "decline")


def _small_talk(rng: random.Random, venue: Venue, lang: str) -> Example:
    facts = [i.fact[lang] for i in rng.sample(venue.items, rng.randint(0, 2))]
    if rng.random() < 0.5:
        qs, replies, mood = rng.choice(KIOSK_TALK[lang])
        q, reply = rng.choice(qs), rng.choice(replies)
    else:
        pairs = small_talk_pairs()[lang]
        # chitchat's many English pairs would drown chatterbot's few; draw each corpus half the time
        q, reply = rng.choice(chatterbot_pairs(lang) if rng.random() < 0.5 else pairs)
        mood = "neutral"
    return Example(lang, facts, asr_style(q, lang, rng) if rng.random() < 0.3 else q, reply, mood, "smalltalk")


STYLED_SHARE = 0.5  # examples from venues written in other operators' styles (styled.py, issue 11)


def examples(seed: int, held_out: bool = False, decline_share: float = DECLINE_SHARE,
             styled_share: float = 0.0) -> Iterator[Example]:
    """An endless, reproducible stream of examples; a new venue every few examples. With
    `styled_share` > 0 that share comes from styled.py's venues (many kinds and writing styles)."""
    rng = random.Random(seed * 7919 + (1 if held_out else 0))
    styled = None
    if styled_share > 0:
        styled = styled_examples(seed, held_out, decline_share=max(decline_share, 0.2))
    while True:
        venue = Venue(2 * rng.randrange(10**8) + (1 if held_out else 0))
        for _ in range(8):
            if styled is not None and rng.random() < styled_share:
                yield next(styled)
            else:
                yield make_example(rng, venue, decline_share=decline_share)


def take(stream: Iterator[Example], n: int) -> list[Example]:
    return [next(stream) for _ in range(n)]
