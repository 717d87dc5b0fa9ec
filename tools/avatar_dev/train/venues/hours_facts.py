"""A templated venue's opening hours: drawn per weekday, and rendered as the per-day, "today" and
week facts in the words the kiosk uses for a pack's [hours] (avatar/model_contract.py), so that
what the model learned is what the kiosk says."""
from __future__ import annotations

from avatar import model_contract
from avatar.model_contract import DAYS
from avatar_dev.train.venues.values import DrawnVenue, Item, day_hours_text, intervals, week_hours_text


def opening_hours(venue: DrawnVenue) -> list[tuple[dict, dict] | None]:
    """The week's opening hours (None: closed that day), drawn and added as per-day facts (the
    answerer renders a pack's [hours] the same way) and the grouped "week" fact (the "today" one is
    today_item's; avatar/answer/knowledge.py words them like this). Returns the hours."""
    rng, noun = venue.rng, venue.noun
    open_h, close_h = rng.choice([8, 9, 10, 11]), rng.choice([16, 17, 18, 19, 20, 22])
    open_m = rng.choice([0, 0, 0, 30])
    closed = set(rng.sample(range(7), rng.choice([0, 1, 1, 2])))
    hours: list[tuple[dict, dict] | None] = []
    for d in range(7):
        if d in closed:
            hours.append(None)
            continue
        oh = open_h + (1 if d >= 5 and rng.random() < 0.5 else 0)
        ch = close_h - (2 if d >= 5 and rng.random() < 0.5 else 0)
        hours.append(({lang: venue.t(oh, open_m, lang, bare=True) for lang in ("de", "en")},
                           {lang: venue.t(ch, 0, lang, bare=True) for lang in ("de", "en")}))
    for d in range(7):
        day = {lang: DAYS[lang][d] for lang in ("de", "en")}
        q = {"de": [f"Wann hat {noun['de']} am {day['de']} geöffnet?", f"Wie lange ist am {day['de']} offen?",
                    f"Habt ihr am {day['de']} auf?", f"Öffnungszeiten am {day['de']}?", f"Wann habt ihr {day['de']}s offen?",
                    f"Bis wann ist am {day['de']} geöffnet?", f"Ist {noun['de']} am {day['de']} offen?"],
             "en": [f"When is {noun['en']} open on {day['en']}?", f"What are the opening hours on {day['en']}?",
                    f"Are you open on {day['en']}?", f"How long are you open on {day['en']}?", f"Opening times on {day['en']}s?",
                    f"Is {noun['en']} open on {day['en']}?", f"What time do you close on {day['en']}?"]}
        fact = {lang: day_hours_text(d, hours[d], lang) for lang in ("de", "en")}
        if hours[d] is None:
            reply = {"de": [fact["de"], f"Am {day['de']} ist {noun['de']} geschlossen."],
                     "en": [fact["en"], f"Sorry, we are closed on {day['en']}."]}
            values = {"de": [day["de"], "geschlossen"], "en": [day["en"], "closed"]}
        else:
            (o, c) = hours[d]
            reply = {"de": [fact["de"], f"Am {day['de']} ist {noun['de']} von {o['de']} bis {c['de']} Uhr geöffnet."],
                     "en": [fact["en"], f"On {day['en']}, {noun['en']} is open from {o['en']} to {c['en']}."]}
            values = {"de": [o["de"], c["de"]], "en": [o["en"], c["en"]]}
        venue.items.append(Item("hours", fact, q, reply, values, key=f"day{d}"))
    week = {lang: week_hours_text(hours, lang) for lang in ("de", "en")}
    venue.items.append(Item("hours_week", week,
        {"de": ["Wann habt ihr geöffnet?", "Wie sind die Öffnungszeiten?", "Öffnungszeiten?", "Wann ist geöffnet?",
                f"Wann hat {noun['de']} offen?", "Wann kann ich kommen?"],
         "en": ["When are you open?", "What are the opening hours?", "Opening hours?", "When can I visit?",
                f"When is {noun['en']} open?", "What are your hours?"]},
        {lang: [week[lang]] for lang in ("de", "en")},
        {lang: [x for h in hours if h for x in (h[0][lang], h[1][lang])][:2] for lang in ("de", "en")}))
    return hours


def today_item(hours: list[tuple[dict, dict] | None], noun: dict[str, str], d: int) -> Item:
    """The pack's "today" fact for weekday d and the question about it."""
    h = hours[d]
    day = {lang: DAYS[lang][d] for lang in ("de", "en")}
    if h is None:
        fact = {lang: model_contract.today_hours_text(d, [], lang) for lang in ("de", "en")}
        reply = {"de": ["Heute haben wir leider geschlossen.", f"Heute, am {day['de']}, haben wir geschlossen."],
                 "en": ["Sorry, we are closed today.", f"Today, {day['en']}, we are closed."]}
        values = {"de": ["geschlossen"], "en": ["closed"]}
    else:
        o, c = h
        fact = {lang: model_contract.today_hours_text(d, intervals(h, lang), lang) for lang in ("de", "en")}
        reply = {"de": [f"Heute haben wir von {o['de']} bis {c['de']} Uhr geöffnet.", fact["de"]],
                 "en": [f"Today we are open from {o['en']} to {c['en']}.", fact["en"]]}
        values = {"de": [o["de"], c["de"]], "en": [o["en"], c["en"]]}
    q = {"de": [f"Wann hat {noun['de']} heute geöffnet?", "Habt ihr heute offen?", "Bis wann ist heute geöffnet?",
                "Wie lange ist heute offen?", "Ist heute geöffnet?", "Wann macht ihr heute zu?"],
         "en": [f"When is {noun['en']} open today?", "Are you open today?", "What time do you close today?",
                "How long are you open today?", "Is it open today?", "When do you close today?"]}
    return Item("hours_today", fact, q, reply, values)
