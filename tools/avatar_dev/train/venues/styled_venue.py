"""`StyledVenue`: a venue of any kind whose facts are clauses about its subjects, written in one operator's
style (and sometimes another) and grouped into multi-fact sentences, with the times and prices
written as operators write them."""
from __future__ import annotations

import random
from dataclasses import dataclass

from avatar_dev.train.venues.styled_words import (DAYS_SPEC, EXTRAS, FILLERS, INTRO, JOINERS, OUTRO, PLACES_WHERE, RULES,
                                              STYLES, VENUE_KINDS)
from avatar_dev.train.venues.subjects import SUBJECTS, Subject
from avatar_dev.train.venues.values import made_up_name
from avatar_dev.train.venues.words import PLACES, STREETS


def _hm(h: int, m: int, style: int, lang: str) -> str:
    if style == 0:
        return f"{h}:{m:02d}"
    if style == 1:
        return f"{h}.{m:02d}" if lang == "de" else f"{h}:{m:02d}"
    if lang == "en" and style == 2:
        return f"{h % 12 or 12}{':%02d' % m if m else ''} {'am' if h < 12 else 'pm'}"
    return f"{h}" if not m else f"{h}:{m:02d}"


def times_text(rng: random.Random, lang: str) -> str:
    """An interval as operators write it: 9–18 Uhr, 09:00-18:00, von 9 bis 18 Uhr, 9 am–6 pm, ab 14 Uhr."""
    a = rng.choice([6, 7, 8, 8, 9, 9, 10, 10, 11, 12, 13, 14])
    b = min(23, a + rng.choice([2, 3, 4, 6, 8, 8, 9, 10, 12]))
    ma, mb = rng.choice([0, 0, 0, 30, 15]), rng.choice([0, 0, 0, 30, 45])
    style = rng.randrange(4)
    x, y = _hm(a, ma, style, lang), _hm(b, mb, style, lang)
    r = rng.random()
    if lang == "de":
        uhr = "" if style in (0, 1) and rng.random() < 0.5 else " Uhr"
        if r < 0.45:
            return f"{x}{rng.choice(['–', '-', ' – '])}{y}{uhr}"
        if r < 0.8:
            return f"von {x} bis {y} Uhr"
        return rng.choice([f"ab {x} Uhr", f"bis {y} Uhr"])
    if r < 0.45:
        return f"{x}{rng.choice(['–', '-', ' – '])}{y}"
    if r < 0.8:
        return f"from {x} to {y}" if rng.random() < 0.6 else f"{x} until {y}"
    return rng.choice([f"from {x}", f"until {y}"])


def price_text(rng: random.Random, lang: str) -> tuple[str, str]:
    euros = rng.choice([0, 0, 1, 1, 2, 3, 4, 5, 6, 8, 9, 12, 15, 18, 20, 25, 37, 40, 70])
    cents = rng.choice([0, 0, 0, 50, 80, 20, 90])
    per = rng.choice([("", ""), (" / Std.", "/hour"), (" pro Tag", " per day"), (" pro Person", " per person"),
                      ("/Stunde", " an hour"), (" je Nutzung", " per use")]) if rng.random() < 0.35 else ("", "")
    if euros == 0 and cents == 0:
        return rng.choice([("kostenlos", "free of charge"), ("gratis", "free"), ("frei", "free")])
    de_amt = f"{euros},{cents:02d}" if cents else f"{euros}"
    en_amt = f"{euros}.{cents:02d}" if cents else f"{euros}"
    s = rng.randrange(4)
    de = [f"{de_amt} €", f"{de_amt} Euro", f"EUR {de_amt}", f"{de_amt}€"][s] + per[0]
    en = [f"€{en_amt}", f"{en_amt} euros", f"EUR {en_amt}", f"{en_amt} €"][s] + per[1]
    return de, en



@dataclass
class Clause:
    key: str          # subject key
    attr: str         # place | hours | price | name | freq | rule
    text: dict        # lang -> clause text
    negative: bool = False


@dataclass
class Fact:
    clauses: list
    text: dict        # lang -> the whole fact as the operator wrote it


def cap_first(s: str) -> str:
    return s[:1].upper() + s[1:]


def _uncap(s: str) -> str:
    """"Die Garderobe ..." after a semicolon or "Liebe Gäste," reads "die Garderobe ..." (nouns keep their capital)."""
    return s[:1].lower() + s[1:] if s.split(" ", 1)[0] in ("Die", "Der", "Das", "The", "You", "We", "Wir") else s


def _fill(template: str, fills: dict) -> str:
    return template.format(**fills)


class StyledVenue:
    """A venue of any kind whose facts are written in one operator's style (and sometimes another)."""

    def __init__(self, seed: int):
        rng = self.rng = random.Random(seed)
        kind = rng.choice(VENUE_KINDS)
        place = rng.choice(PLACES)
        self.name = {"de": f"{kind[0]} {place}", "en": f"{place} {kind[1]}" if rng.random() < 0.5 else f"{kind[1]} {place}"}
        self.kind = kind
        self.style = rng.choice(STYLES)
        self.fills = {"n": rng.randint(0, 9), "m": f"{rng.randint(1, 40):02d}", "L": rng.choice("ABCDEFGH"),
                      "S": rng.choice(STREETS + [made_up_name(rng) + "straße", made_up_name(rng) + "weg"])}
        subjects = rng.sample(SUBJECTS, rng.randint(6, 14))
        self.absent = [s for s in SUBJECTS if s not in subjects]
        self.clauses: list[Clause] = []
        self.missing: list[tuple[Subject, str]] = []   # (present subject, attribute the pack does not say)
        for s in subjects:
            attrs = [a for a in s.attrs if rng.random() < 0.7] or [s.attrs[0]]
            self.missing += [(s, a) for a in s.attrs if a not in attrs]
            for a in attrs:
                self.clauses.append(self._clause(s, a))
        self.subjects = subjects
        self.rules = rng.sample(RULES, rng.randint(1, 4))
        self.absent_rules = [r for r in RULES if r not in self.rules]
        for key, de, en, _, _ in self.rules:
            i = rng.randrange(4)
            self.clauses.append(Clause(key, "rule", {"de": de[i], "en": en[i]}, negative=i in (1, 3)))
        self.clauses.append(self._opening())
        rng.shuffle(self.clauses)
        self.facts = self._group(self.clauses)

    # --- clauses ----------------------------------------------------------------------------------
    def _style(self) -> str:
        return self.style if self.rng.random() < 0.7 else self.rng.choice(STYLES)

    def _clause(self, s: Subject, attr: str) -> Clause:
        rng, style = self.rng, self._style()
        verb_de, verb_en = ("sind", "are") if s.plural else ("ist", "is")
        De, En, f = cap_first(s.de), cap_first(s.en), self.fills
        if attr == "place":
            p = rng.choice(PLACES_WHERE)
            if rng.random() < 0.3:
                q = rng.choice([x for x in PLACES_WHERE if x is not p])
                p = (f"{p[0]}, {q[0]}", f"{p[1]}, {q[1]}", f"{p[2]}, {q[2]}", f"{p[3]}, {q[3]}")
            pd, pe, sd, se = (_fill(x, f) for x in p)
            text = {"sign": (f"{s.label_de}: {sd}", f"{s.label_en}: {se}"),
                    "plain": (f"{De} {verb_de} {pd}", f"{En} {verb_en} {pe}"),
                    "polite": (f"{De} befinde{'n' if s.plural else 't'} sich bequem {pd}", f"You will find {s.en} {pe}"),
                    "bureau": (f"{cap_first(pd)} befinde{'n' if s.plural else 't'} sich {s.de}", f"{s.label_en} {pe}")}[style]
        elif attr == "hours":
            days = rng.choice(DAYS_SPEC)
            t = {lang: times_text(rng, lang) for lang in ("de", "en")}
            text = {"sign": (f"{s.label_de}: {days[0]} {t['de']}", f"{s.label_en}: {days[1]} {t['en']}"),
                    "plain": (f"{De} {'haben' if s.plural else 'hat'} {days[0]} {t['de']} geöffnet", f"{En} {verb_en} open {days[1]} {t['en']}"),
                    "polite": (f"{De} {verb_de} {days[0]} {t['de']} für Sie da", f"{En} {verb_en} there for you {days[1]} {t['en']}"),
                    "bureau": (f"Öffnungszeiten {s.label_de}: {days[0]} {t['de']}", f"Opening hours, {s.label_en}: {days[1]} {t['en']}")}[style]
        elif attr == "price":
            pd, pe = price_text(rng, "de"), None
            pd, pe = pd
            free = pd in ("kostenlos", "gratis", "frei")
            if free and style in ("plain", "polite"):
                text = (f"{De} {verb_de} {pd}", f"{En} {verb_en} {pe}")
            else:
                text = {"sign": (f"{s.label_de}: {pd}", f"{s.label_en}: {pe}"),
                        "plain": (f"{De} kostet {pd}", f"{En} cost{'' if s.plural else 's'} {pe}"),
                        "polite": (f"Für {s.label_de} zahlen Sie {pd}", f"{En} {verb_en} available for {pe}"),
                        "bureau": (f"Gebühr {s.label_de}: {pd}", f"Fee, {s.label_en.lower()}: {pe}")}[style]
        elif attr == "freq":
            mins = rng.choice([5, 10, 15, 20, 30, 60])
            where = cap_first(_fill(rng.choice(PLACES_WHERE)[2], f))
            text = {"sign": (f"{s.label_de}: alle {mins} Min. ab {where}", f"{s.label_en}: every {mins} min from {where}"),
                    "plain": (f"{De} fährt alle {mins} Minuten ab {where}", f"{En} runs every {mins} minutes from {where}"),
                    "polite": (f"{De} bringt Sie alle {mins} Minuten bequem ans Ziel", f"{En} takes you there every {mins} minutes"),
                    "bureau": (f"Takt {s.label_de}: {mins} Minuten", f"{s.label_en} interval: {mins} minutes")}[style]
        else:  # name: a line, a network, a number; the kind of name follows the subject
            text = self._name_clause(s, style)
        if rng.random() < 0.2:
            extra = rng.choice(EXTRAS)
            h, n = rng.randint(14, 20), rng.randint(2, 15)
            text = (text[0] + extra[0].format(h=h, n=n), text[1] + extra[1].format(h=h, n=n))
        return Clause(s.key, attr, {"de": text[0], "en": text[1]})

    def _name_clause(self, s: Subject, style: str) -> tuple[str, str]:
        rng = self.rng
        if s.key == "wifi":
            net = f"{made_up_name(rng)}-{rng.choice(['Gast', 'Free', 'Guest', 'WLAN', 'Public'])}"
            pw = rng.choice(["kein Passwort", f"Passwort {made_up_name(rng).lower()}{rng.randint(10, 99)}"])
            pw_en = "no password" if pw == "kein Passwort" else pw.replace("Passwort", "password")
            return {"sign": (f"WLAN: {net} ({pw})", f"Wi-Fi: {net} ({pw_en})"),
                    "plain": (f"Das WLAN heißt {net}, {pw}", f"The Wi-Fi is called {net}, {pw_en}"),
                    "polite": (f"Surfen Sie kostenlos im Netz {net} ({pw})", f"Surf for free on the network {net} ({pw_en})"),
                    "bureau": (f"Gäste-WLAN {net}; {pw}", f"Guest Wi-Fi {net}; {pw_en}")}[style]
        if s.key == "hotline":
            num = f"0{rng.randint(30, 999)} {rng.randint(100, 999)} {rng.randint(10, 9999)}"
            return {"sign": (f"Tel. {num}", f"Phone {num}"), "plain": (f"Die Hotline hat die Nummer {num}", f"The hotline number is {num}"),
                    "polite": (f"Sie erreichen uns telefonisch unter {num}", f"You can reach us by phone at {num}"),
                    "bureau": (f"Telefonische Auskunft: {num}", f"Telephone enquiries: {num}")}[style]
        line = rng.choice([f"{rng.randint(1, 199)}", f"S{rng.randint(1, 9)}", f"U{rng.randint(1, 9)}", f"RE {rng.randint(1, 30)}",
                           f"{rng.choice('ABCX')}{rng.randint(1, 99)}"])
        stop = rng.choice([f"{made_up_name(rng)}platz", f"{rng.choice(STREETS)}", f"{rng.choice(PLACES)} Mitte", f"{made_up_name(rng)}straße"])
        if s.key == "train":
            return {"sign": (f"{line} → Hbf / Innenstadt", f"{line} → central station / city centre"),
                    "plain": (f"Die Linie {line} fährt direkt in die Innenstadt", f"Line {line} goes straight to the city centre"),
                    "polite": (f"Mit der {line} sind Sie bequem in der Innenstadt", f"Take the {line} to reach the city centre comfortably"),
                    "bureau": (f"Anbindung Innenstadt: {line}", f"City centre connection: {line}")}[style]
        return {"sign": (f"Bus {line}, Haltestelle {stop}", f"Bus {line}, stop {stop}"),
                "plain": (f"Der Bus {line} hält an der Haltestelle {stop}", f"Bus {line} stops at {stop}"),
                "polite": (f"Mit dem Bus {line} erreichen Sie uns bequem, Haltestelle {stop}", f"Bus {line} brings you to us, stop {stop}"),
                "bureau": (f"ÖPNV: Linie {line}, Hst. {stop}", f"Public transport: line {line}, stop {stop}")}[style]

    def _opening(self) -> Clause:
        rng, style = self.rng, self._style()
        days = rng.choice(DAYS_SPEC)
        t = {lang: times_text(rng, lang) for lang in ("de", "en")}
        extra = rng.random() < 0.4
        if extra:
            d2 = rng.choice([d for d in DAYS_SPEC if d is not days])
            t2 = {lang: times_text(rng, lang) for lang in ("de", "en")}
        name = self.name
        text = {"sign": (f"{days[0]} {t['de']}", f"{days[1]} {t['en']}"),
                "plain": (f"{name['de']}: geöffnet {days[0]} {t['de']}", f"{name['en']} is open {days[1]} {t['en']}"),
                "polite": (f"Wir freuen uns {days[0]} {t['de']} auf Ihren Besuch", f"We look forward to your visit {days[1]} {t['en']}"),
                "bureau": (f"Öffnungszeiten: {days[0]} {t['de']}", f"Opening hours: {days[1]} {t['en']}")}[style]
        if extra:
            text = (f"{text[0]}, {d2[0]} {t2['de']}", f"{text[1]}, {d2[1]} {t2['en']}")
        return Clause("venue", "hours", {"de": text[0], "en": text[1]})

    # --- facts ------------------------------------------------------------------------------------
    def _group(self, clauses: list[Clause]) -> list[Fact]:
        rng, facts, i = self.rng, [], 0
        multi = rng.choice([0.3, 0.5, 0.7])  # how often this operator packs several facts into one sentence
        while i < len(clauses):
            n = rng.choice([2, 2, 3, 4]) if rng.random() < multi else 1
            group = clauses[i:i + n]
            while len(group) > 1 and sum(len(c.text["de"]) + len(c.text["en"]) for c in group) > 440:
                group = group[:-1]  # the prompt keeps ~110 tokens of a fact: the answer must be in them
            i += len(group)
            if rng.random() < 0.3:  # a sentence that answers nothing, somewhere in the fact
                f = rng.choice(FILLERS)
                fills = {"year": rng.randint(1950, 2024), "name": self.name, "n": rng.randint(5, 80)}
                filler = Clause("", "filler", {lang: f[k].format(**{**fills, "name": fills["name"][lang]})
                                               for k, lang in ((0, "de"), (1, "en"))})
                group = group[:] + [filler] if rng.random() < 0.5 else [filler] + group[:]
            joiner = rng.choice(JOINERS)
            text = {}
            for lang in ("de", "en"):
                j = (" und " if lang == "de" else " and ") if joiner == " und " else joiner
                parts = [c.text[lang] for c in group]
                if j in ("; ", ", ", " und ", " and ", " – "):
                    parts = parts[:1] + [_uncap(p) for p in parts[1:]]
                body = j.join(parts)
                intro = rng.choice(INTRO[lang]) if self.style == "polite" or rng.random() < 0.1 else ""
                if intro.endswith(", "):
                    body = _uncap(body)
                end = "" if body.endswith((")", ".")) else "."
                outro = rng.choice(OUTRO[lang]) if self.style == "polite" and rng.random() < 0.25 else ""
                text[lang] = intro + body + end + outro
            facts.append(Fact(group, text))
        return facts

    def fact_of(self, clause: Clause) -> Fact:
        return next(f for f in self.facts if clause in f.clauses)
