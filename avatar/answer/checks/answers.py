"""Does a fact answer the question, and which clause of it does (issue 11).

Two failures the value checks cannot see: the model declines although a retrieved fact answers
("where's the loo" with "WC: EG, links" in front of it), and it answers from a fact that does not
answer (the car park's price for a question about a meal). Both need the same two judgements:

- what kind of answer the question asks for (`asked_kind`: a time for "when", a price for "how
  much", a place for "where", anything for a yes/no question), and
- whether a fact names the question's subject (its words, the thesaurus's words for them, or a
  strong retrieval score, which counts the operator's keywords) and holds that kind of value.

`answering_clause` cuts a fact at its strong separators (". ", "; ", " – ", " | ", " · ") and picks
the clause that answers, so a fallback says what was asked instead of the operator's whole paragraph.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from avatar.answer.asked import asked_kind, asked_subject, holds_kind
from avatar.answer.base import Fact
from avatar.answer.retrieval.words import (_CALENDAR, _CUE_TERMS, _TODAY_WORDS, STOPWORDS, analyze, holds_part,  # noqa: F401
                                           source_fact)
from avatar.answer.text import words
from avatar.answer.thesaurus import siblings

_SEPARATORS = re.compile(r"(?<=[.!?])\s+(?=[A-ZÄÖÜ„\"(])|\s+[–|·]\s+|;\s*")
# a full stop after these is an abbreviation, not the end of a clause ("inkl. MwSt.", "geb. März")
_ABBREVIATIONS = frozenset("inkl exkl tägl tgl geschl bzw ggf evtl etc ca geb std min max nr tel str zzgl abb bspw "
                           "usw vgl incl excl approx hr hrs no mon tue wed thu fri sat sun mo di mi do fr sa so jan feb "
                           "mär apr jun jul aug sep sept okt oct nov dez dec erw kl gr z b u a j".split())


def _content_words(question: str, lang: str) -> list[tuple[str, str]]:
    """(word, stem) of the question's words that name what it is about: no stopwords, no cue words."""
    cue = _CUE_TERMS[lang]
    out = []
    for w in words(question):
        if w in STOPWORDS[lang] or (len(w) < 2 and not w.isdigit()):
            continue
        stems = analyze(w, lang)
        if stems and stems[0] not in cue:
            out.append((w, stems[0]))
    return out


def coverage(question: str, lang: str, text: str) -> float:
    """The share of the question's content words that `text` names: the word, a compound that starts
    or ends with it, or a thesaurus word for it (1.0 when the question names nothing: "wann habt ihr offen")."""
    content = _content_words(question, lang)
    if not content:
        return 1.0
    terms = set(analyze(text, lang))
    hit = 0
    for w, s in content:
        # a fact's compound names the question's word ("sauna" in "saunazeiten"), as retrieval judges it
        if s in terms or any(t in terms for sib in siblings(w) for t in analyze(sib, lang)) or holds_part(s, terms):
            hit += 1
    return hit / len(content)


def _names(w: str, stem: str, terms: set[str], lang: str) -> bool:
    """`terms` (a text's search terms) name the question word: the word, a compound of it, a thesaurus word."""
    return stem in terms or any(t in terms for sib in siblings(w) for t in analyze(sib, lang)) or holds_part(stem, terms)


def subject_missing(question: str, lang: str, texts: Sequence[str]) -> tuple[str, ...]:
    """The thing a price, hours or place question asks about ("the zoo" of "what does the zoo cost"), or
    the place it is for ("the moon" of "how much is the ticket to the moon"), when none of `texts` (the
    facts with their keywords and the venue's name) names any word of it: those words; else ()."""
    thing, place = asked_subject(question, lang)
    terms = {t for text in texts for t in analyze(text, lang)}
    cue = _CUE_TERMS[lang]
    missing: list[str] = []
    for ws in (thing, place):
        asked = [(w, stems[0]) for w in ws if w not in STOPWORDS[lang] and w not in _CALENDAR
                 and w not in _TODAY_WORDS and not w.isdigit() for stems in [analyze(w, lang)]
                 if stems and stems[0] not in cue]
        if asked and not any(_names(w, s, terms, lang) for w, s in asked):
            missing += [w for w, _ in asked]
    return tuple(missing)


@dataclass
class Judgement:
    answers: bool
    coverage: float
    kind: str


def judge(question: str, lang: str, fact: Fact, keywords: str = "", min_coverage: float = 0.7) -> Judgement:
    """Whether `fact` answers `question`: it names most of what the question is about (its words,
    their thesaurus words, the operator's keywords) and holds the kind of value asked for."""
    kind = asked_kind(question, lang)
    cov = coverage(question, lang, f"{fact.text} {keywords}")
    about = not subject_missing(question, lang, [fact.text, keywords])  # "the ticket to the moon": not this fact
    return Judgement(cov >= min_coverage and holds_kind(fact.text, kind) and about, round(cov, 3), kind)


def answering_fact(question: str, lang: str, facts: Sequence[Fact], min_score: float,
                   keywords_of: Callable[[Fact], str] | None = None, min_coverage: float = 0.7) -> Fact | None:
    """The best retrieved fact that answers the question, when retrieval is confident enough; else None."""
    for fact in facts:
        if fact.lang and fact.lang != lang:
            continue
        if fact.score and fact.score < min_score:
            continue
        kw = keywords_of(fact) if keywords_of else ""
        if judge(question, lang, fact, kw, min_coverage).answers:
            return fact
    return None


def clauses(text: str) -> list[str]:
    """A fact cut at its strong separators; a full stop after an abbreviation or a number does not cut."""
    raw = [p for p in _SEPARATORS.split(text) if p and p.strip(" ,")]
    parts: list[str] = []
    for p in raw:
        last = parts[-1].rstrip() if parts else ""
        word = re.search(r"([^\W\d_]*|\d+)\.$", last)
        ordinal = re.search(r"(?<![:\d])\d{1,2}\.(\d{1,2}\.)?$", last)  # "1. OG", "24.12." (not "16:00.")
        if parts and word and (word.group(1).lower() in _ABBREVIATIONS or ordinal or
                               (word.group(1).islower() and len(word.group(1)) <= 2)):
            parts[-1] = f"{last} {p.strip()}"
        else:
            parts.append(p.strip(" ,"))
    return [p.strip(" ,") for p in parts] or [text.strip()]


def answering_clause(question: str, lang: str, fact: Fact) -> str:
    """The clause of `fact` that answers: the most subject words, holding the asked kind of value;
    the subject's clause and the value's clause together when the fact splits them ("Sauna: ...; Di 14-21 Uhr")."""
    parts = clauses(fact.text)
    if len(parts) == 1:
        return _sentence(parts[0])
    kind = asked_kind(question, lang)
    scored = []
    for i, p in enumerate(parts):
        cov = coverage(question, lang, p)
        scored.append((cov + (0.5 if holds_kind(p, kind) and kind in ("time", "price") else 0.0), -i, i))
    best = max(scored)[2]
    text = parts[best]
    if kind in ("time", "price") and not holds_kind(text, kind):
        nxt = next((j for j in range(best + 1, len(parts)) if holds_kind(parts[j], kind)), None)
        if nxt is not None and nxt == best + 1:
            text = f"{text}; {parts[nxt]}"
        elif nxt is not None or not any(holds_kind(p, kind) for p in parts):
            pass
        else:
            return _sentence(fact.text)
    if coverage(question, lang, text) == 0 and best > 0:
        return _sentence(fact.text)  # the clause holds the value but not what it is about: say it all
    return _sentence(text)


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text[-1:] in ".!?)" else text + "."


_DANGLING = {"de": frozenset("der die das den dem des ein eine einen einem im in am an auf zu zum zur mit von vom bei "
                             "und oder für über unter neben hinter vor nach bis ab um".split()),
             "en": frozenset("the a an in on at to of for with from by and or next behind near until from".split())}


def dangling_end(reply: str, lang: str) -> bool:
    """A reply that stops on an article or preposition lost the word after it ("The entrance is on.")."""
    ws = words(reply)
    return bool(ws) and ws[-1] in _DANGLING.get(lang, frozenset())


_LEAD = re.compile(r"^\s*(ja|yes|nein|no)\b[.,!]?\s*", re.IGNORECASE)
_NEGATION = re.compile(r"\b(nicht|kein|keine|keinen|verboten|untersagt|not|no|never|prohibited|forbidden)\b|n't\b",
                       re.IGNORECASE)


def contradicting_lead(reply: str) -> bool:
    """"Ja. Hunde sind nicht erlaubt." / "No. Dogs are welcome.": the yes or no contradicts the clause after it."""
    m = _LEAD.match(reply)
    if not m:
        return False
    rest = re.sub(r"\b(kein problem|no problem|not a problem|kein thema)\b", "", reply[m.end():], flags=re.IGNORECASE)
    if not rest.strip():
        return False
    negative = bool(_NEGATION.search(rest))
    return negative if m.group(1).lower() in ("ja", "yes") else not negative


@dataclass
class Snap:
    text: str
    ratio: float
    fact_id: str


def _trigrams(text: str) -> set[str]:
    t = f" {' '.join(text.lower().split())} "
    return {t[i:i + 3] for i in range(len(t) - 2)}


def snap_to_clause(reply: str, lang: str, facts: Sequence[Fact], min_ratio: float = 0.45,
                   keep_lead: bool = True) -> Snap | None:
    """The fact clause a garbled reply was copying ("Einwachtritt e 4,53 Std." -> "Einzeleintritt
    Hallenbad (3 Std.): Erwachsene 4,50 €"), said in the operator's exact words, with the reply's
    "Ja."/"Nein." kept (for a yes/no question: `keep_lead`); None when no clause holds enough of the reply's character trigrams
    (an unrelated reply shares almost none)."""
    m = _LEAD.match(reply)
    lead, body = (reply[:m.end()].strip(), reply[m.end():]) if m else ("", reply)
    grams = _trigrams(body)
    if len(body.strip()) < 6 or not grams:
        return None
    best: tuple[float, float, str, str] | None = None
    for fact in facts:
        if fact.lang and fact.lang != lang:
            continue
        for clause in clauses(fact.text):
            other = _trigrams(clause)
            shared = len(grams & other)
            held, covered = shared / len(grams), shared / max(1, len(other))
            if best is None or held + 0.3 * covered > best[0] + 0.3 * best[1]:
                best = (held, covered, clause, fact.id)
    if best is None or best[0] < min_ratio:
        return None
    text = _sentence(best[2])
    if lead and keep_lead:
        text = f"{lead[:1].upper()}{lead[1:].rstrip('.,!')}. {text}"
    return Snap(text, round(best[0], 3), best[3])
