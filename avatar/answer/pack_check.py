"""What in a knowledge pack will make the kiosk answer wrongly or less often, found before a visitor
does (`avatar check-pack`).

- **problem**: the German and the English text of a fact give different times or prices ("18:00"
  against "7 pm", "9 €" against "8 €"): a visitor hears one or the other depending on the language
  they speak. Every fact is written twice by hand, so this is the mistake a pack is most likely to
  hold and the one no check at answer time can see (each reply is checked against its own
  language's facts).
- **advice**, from what the evaluation on other operators' packs measured (docs/KNOWLEDGE.md,
  "What kind of writing works"): a fact without `keywords` came first for 60% of the questions
  about it against 84% with them; a long fact (more than ~60 tokens) 74% against 84%; a keyword on
  many facts no longer tells them apart; the same text twice.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass

from avatar.answer.knowledge import KnowledgePack
from avatar.answer.text import MARKERS, words

LONG_WORDS = 40  # about 60 of the model's tokens: where the evaluation found long facts came first less often
SHARED_KEYWORD_FACTS = 4  # a keyword on this many facts no longer points to one of them
# A field reads as the other language from this many of that language's own small words (and more than
# twice its own): on the sample and dev packs' 483 facts no false alarm, 82-83% flagged with their two
# texts swapped (at 2: 89-91%, but a one-word margin against a false alarm on a pack yet unseen).
WRONG_LANGUAGE_WORDS = 3

_T = r"(?:2[0-4]|[01]?\d)(?:[:.][0-5]\d)?"  # an hour, maybe with minutes
# German hours end in "Uhr" (or "h"); the numbers before it in a run belong to it: "8–12 Uhr",
# "von 8 bis 18 Uhr", "um 11, 13 und 15 Uhr", "11 + 15 Uhr", a sign's "11 / 14 / 16 / 19:30 Uhr".
_UHR_RUN = re.compile(rf"(?<![\d.,:]){_T}(?:\s*(?:–|-|bis|,|und|\+|&|/)\s*{_T})*\s*(?:uhr|h)\b", re.IGNORECASE)
_H12 = r"(?:1[0-2]|0?\d)(?:[:.][0-5]\d)?"
# English hours carry am/pm, and a run shares the last one: "from 8 to 10 am", "11, 1 and 3 pm",
# "11 / 2 / 4 pm".
_AMPM = re.compile(rf"(?<![\d.,:]){_H12}(?:\s*(?:–|-|to|and|,|&|/)\s*{_H12})*\s*(a\.?m\.?|p\.?m\.?)(?!\w)",
                   re.IGNORECASE)
_COLON = re.compile(r"(?<![\d.,:])(2[0-4]|[01]?\d):([0-5]\d)(?!\d)")
# "12 noon", "until midnight", "bis Mittag", "–Mitternacht": a time; "midday quiet" (the German writes
# "Mittagsruhe") names a rest, not a time, and would be a false alarm
_NOON = re.compile(r"(?:\b12\s+|\b(?:at|by|until|till|til|from|to|before|after|around|past|bis|ab|um|von|gegen|vor|nach|zu|zur)\s+|[–-]\s*)"
                   r"(noon|midday|mittags?|midnight|mitternacht)\b", re.IGNORECASE)
# The currency before the amount ("€9", a formal "EUR 0.50") or after it ("9 €", "0,50 EUR", "2 euros");
# an amount must stand on its own: the "3" of a paper size "A3 EUR 1.00" is no price.
_MONEY = re.compile(r"(?:(?:€|\beur\b)\s*(\d+(?:[.,]\d{1,2})?)|(?<![\w.,])(\d+(?:[.,]\d{1,2})?)\s*(?:€|eur\b|euro\b|euros\b))",
                    re.IGNORECASE)


# Quoted titles ("„Reise zum Mars“ (Journey to Mars)") are the venue's names, and "9 am" is English.
_QUOTED = re.compile(r"„[^“”]*[“”]|\"[^\"]*\"|“[^”]*”")
_AM_PM = re.compile(r"(?<=\d)\s*[ap]\.?m\b\.?", re.IGNORECASE)
_LETTERS = re.compile(r"[^\W\d_]+")
_UMLAUT = re.compile(r"[äöüß]")


@dataclass(frozen=True)
class Finding:
    level: str  # "problem" | "advice"
    fact: str  # the fact's id, "" for the pack as a whole
    message: str
    hint: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def times(text: str) -> set[str]:
    """The clock times a text gives, one way: "18:00", "18 Uhr", "6 pm" -> "18"; "16:30", "4:30 pm"
    -> "16:30"; "12 noon" -> "12", "midnight" -> "24"; "von 8 bis 18 Uhr" -> "8", "18"."""
    found: set[str] = set()

    def clock(hour: int, minute: int) -> str:
        hour = 24 if hour == 0 and minute == 0 else hour  # "0 Uhr", "12 am" and "midnight" are one time
        return str(hour) if minute == 0 else f"{hour}:{minute:02d}"

    def ampm(m: re.Match) -> str:
        pm = m[1].lower().startswith("p")
        run = [(int(h), int(mm or 0)) for h, mm in re.findall(r"(1[0-2]|0?\d)(?:[:.]([0-5]\d))?", m[0][:m.start(1) - m.start()])]
        last = run[-1][0] % 12
        for hour, minute in run:  # before the last one, a larger hour is the other half of the day: "10 to 2 pm"
            later = pm if hour % 12 <= last else not pm
            found.add(clock(hour % 12 + (12 if later else 0), minute))
        return " "

    def uhr(m: re.Match) -> str:
        for h, mm in re.findall(r"(2[0-4]|[01]?\d)(?:[:.]([0-5]\d))?", m[0]):
            found.add(clock(int(h), int(mm or 0)))
        return " "

    def colon(m: re.Match) -> str:
        found.add(clock(int(m[1]), int(m[2])))
        return " "

    def noon(m: re.Match) -> str:
        found.add("24" if m[1].lower() in ("midnight", "mitternacht") else "12")
        return " "

    text = _AMPM.sub(ampm, text)
    text = _UHR_RUN.sub(uhr, text)
    text = _COLON.sub(colon, text)
    _NOON.sub(noon, text)
    return found


def prices(text: str) -> set[str]:
    """The amounts of money a text gives, in euros, one way: "9 €", "€9", "9,00 €" -> "9"; "3,50 €",
    "EUR 3.50" -> "3.5"; "A3 EUR 1.00" -> "1" (a paper size is no price).
    (Not the answer checks' reader, checks/content.py: it also takes a coin's size for a price, "a 1 euro
    coin", which the German text writes "1-€-Münze", a false alarm here; nor its times, which read the
    leading hours of a run, "um 11, 13 und 15 Uhr", as plain numbers.)"""
    return {f"{float((m[1] or m[2]).replace(',', '.')):g}" for m in _MONEY.finditer(text)}


def check_pack(pack: KnowledgePack) -> list[Finding]:
    """Every finding for `pack`, problems first, in the pack's order."""
    problems: list[Finding] = []
    advice: list[Finding] = []
    keyword_facts: Counter[str] = Counter()
    texts: dict[str, str] = {}
    bare = [e.id for e in pack.entries if not e.keywords]
    if bare:
        advice.append(Finding("advice", "", f"{len(bare)} of {len(pack.entries)} facts have no keywords: {', '.join(bare)}",
                              "add the words visitors use for each (measured: facts with keywords came first for "
                              "84% of the questions about them, without 60%)"))
    long = [(e.id, max(len(words(e.de)), len(words(e.en)))) for e in pack.entries]
    long = [(fid, n) for fid, n in long if n > LONG_WORDS]
    if long:
        advice.append(Finding("advice", "", f"{len(long)} facts are long (more than {LONG_WORDS} words): "
                              + ", ".join(f"{fid} ({n})" for fid, n in long),
                              "split facts about different things (long facts came first less often: 74% against 84%)"))
    for e in pack.entries:
        problems += _wrong_language(e.id, e.de, e.en)
        problems += _languages_disagree(e.id, e.de, e.en)
        for k in {k.lower() for k in e.keywords}:
            keyword_facts[k] += 1
        for lang, text in (("de", e.de), ("en", e.en)):
            key = f"{lang}:{' '.join(words(text))}"
            if key in texts:
                advice.append(Finding("advice", e.id, f"says the same as fact '{texts[key]}' ({lang})",
                                      "keep one of them, or say what differs"))
            texts.setdefault(key, e.id)
    for keyword, n in sorted(keyword_facts.items()):
        if n >= SHARED_KEYWORD_FACTS:
            advice.append(Finding("advice", "", f"the keyword '{keyword}' is on {n} facts",
                                  "keep it on the fact it means most, and give the others their own words"))
    return problems + advice


def _languages_disagree(fact_id: str, de: str, en: str) -> list[Finding]:
    out = []
    for kind, read in (("times", times), ("prices", prices)):
        a, b = read(de), read(en)
        if a and b and a != b:
            only_de, only_en = sorted(a - b, key=_order), sorted(b - a, key=_order)
            said = "; ".join(part for part in (
                f"only the German text says {', '.join(only_de)}" if only_de else "",
                f"only the English text says {', '.join(only_en)}" if only_en else "") if part)
            out.append(Finding("problem", fact_id, f"the two languages give different {kind}: {said}",
                               f"a visitor hears different {kind} in each language: make both say the same"))
    return out


def language_evidence(text: str) -> dict[str, int]:
    """How many of each language's own small words a text has ("der", "und" / "the", "with"), and German
    lower-case words with umlauts ("für", "täglich"; a capitalized "Lindenstraße" may be a name in English)."""
    text = _AM_PM.sub(" ", _QUOTED.sub(" ", text))
    tokens = _LETTERS.findall(text)
    de = sum(1 for w in tokens if w.lower() in MARKERS["de"] and w.lower() not in MARKERS["en"])
    de += sum(1 for w in tokens if w.islower() and _UMLAUT.search(w))
    en = sum(1 for w in tokens if w.lower() in MARKERS["en"] and w.lower() not in MARKERS["de"])
    return {"de": de, "en": en}


def _wrong_language(fact_id: str, de: str, en: str) -> list[Finding]:
    out = []
    for lang, text in (("de", de), ("en", en)):
        other = "en" if lang == "de" else "de"
        seen = language_evidence(text)
        if seen[other] >= WRONG_LANGUAGE_WORDS and seen[other] > 2 * seen[lang]:
            name = {"de": "German", "en": "English"}
            out.append(Finding("problem", fact_id, f"the '{lang}' text reads as {name[other]}: {text[:60]!r}",
                               f"a visitor asking in {name[lang]} hears it: write the {name[lang]} text in '{lang}'"))
    return out


def _order(value: str) -> float:
    head = value.split(":")[0]
    try:
        return float(head)
    except ValueError:
        return 0.0


def format_findings(findings: list[Finding], pack: KnowledgePack) -> str:
    if not findings:
        return f"{pack.name}: {len(pack.entries)} facts, nothing found"
    lines = []
    for f in findings:
        where = f"fact '{f.fact}'" if f.fact else "pack"
        lines.append(f"{f.level:7s} {where}: {f.message}")
        if f.hint:
            lines.append(f"        -> {f.hint}")
    n_problems = sum(f.level == "problem" for f in findings)
    lines.append(f"{pack.name}: {len(pack.entries)} facts, {n_problems} problem(s), "
                 f"{len(findings) - n_problems} piece(s) of advice")
    return "\n".join(lines)
