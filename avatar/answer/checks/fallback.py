"""The safe reply when the checks fail and the budget is spent: quote the best fact, or point to staff."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from avatar.answer.base import Fact
from avatar.answer.checks.content import extract
from avatar.answer.checks.stems import stem

NOT_KNOWN = {
    "de": "Das weiß ich hier leider nicht sicher. Bitte fragen Sie unser Personal, es hilft Ihnen gern weiter.",
    "en": "I'm sorry, I don't know that for certain here. Please ask our staff, they will be happy to help.",
}
_WORD = re.compile(r"[\wÄÖÜäöüß]+")
# words that carry no topic: a fact matching only these does not answer the question
_STOP = {
    "de": frozenset("der die das den dem des ein eine einen einem einer und oder ist sind wann wo wie was wer welche welcher "
                    "welches gibt es hier bitte ich sie wir man kann können im in am an um bis von vom zum zur mit für zu "
                    "auf ab noch auch heute morgen denn mal hat haben habe habt hast ihr ihre mir mich richtig stimmt "
                    "das dann so".split()),
    "en": frozenset("the a an and or is are when where how what who which there here please i you we can could do does "
                    "did in at on to until from of for with by it its is be have has my me your today tomorrow right "
                    "correct".split()),
}
DAY_BONUS = 0.5  # a fact about the weekday the question names answers it better than any word overlap


@dataclass
class Fallback:
    text: str
    kind: str  # "fact" (a fact quoted verbatim) | "not_known" (point to staff)
    fact_id: str = ""
    match: float = 0.0

    @property
    def mood(self) -> str:
        return "info" if self.kind == "fact" else "sorry"


def _topic_stems(text: str, lang: str) -> set[str]:
    stop = _STOP.get(lang, _STOP["en"])
    return {stem(w, lang) for w in (w.lower() for w in _WORD.findall(text)) if w not in stop and not w.isdigit()}


def question_match(question: str, fact: Fact, lang: str) -> float:
    """The share of the question's topic words (stemmed) that the fact contains, plus DAY_BONUS
    when the fact is about a weekday the question names (misheard names included)."""
    from avatar.answer.checks.relevance import asked_days

    q = _topic_stems(question, lang)
    score = len(q & _topic_stems(fact.text, lang)) / len(q) if q else 0.0
    days = asked_days(question, lang)
    if days and days & {v for i in extract(fact.text, lang).items if i.kind == "weekday" for v in i.values}:
        score += DAY_BONUS
    return score


def fallback_reply(question: str, lang: str, facts: Sequence[Fact], min_match: float = 0.34,
                   keywords_of: Callable[[Fact], str] | None = None, sure_score: float | None = None,
                   clause: bool = True) -> Fallback:
    """The clause of the retrieved fact in the visitor's language that names most of what the question
    is about (its words, their thesaurus words, the operator's keywords; a named weekday counts
    extra), when it names enough of it, or (with `sure_score`) when retrieval is as sure of the fact as
    the retrieval answerer would need to say it (score >= sure_score and half the question's words
    named, or twice the score); otherwise the staff message in the visitor's language."""
    from avatar.answer.checks.answers import answering_clause, asked_kind, coverage, holds_kind, subject_missing
    from avatar.answer.checks.relevance import asked_days

    lang = lang if lang in NOT_KNOWN else "en"
    kind = asked_kind(question, lang)
    days = asked_days(question, lang)
    best: tuple[float, float, Fact] | None = None  # (score, coverage alone, fact)
    top = max((f.score for f in facts), default=0.0) or 1.0
    for fact in facts:
        if fact.lang and fact.lang != lang:
            continue
        if not holds_kind(fact.text, kind):
            continue  # "wann" is not answered by a fact without a time
        keywords = keywords_of(fact) if keywords_of else ""
        if subject_missing(question, lang, [fact.text, keywords]):
            continue  # "how much is the ticket to the moon": the admission price is about something else
        cov = coverage(question, lang, f"{fact.text} {keywords}")
        score = cov + 0.15 * (fact.score / top if fact.score else 0.0)  # retrieval's order breaks near ties
        if days and days & {v for it in extract(fact.text, lang).items if it.kind == "weekday" for v in it.values}:
            score += DAY_BONUS
        if best is None or score > best[0]:
            best = (score, cov, fact)
    if best:
        score, cov, fact = best
        trusted = sure_score is not None and fact.score >= sure_score and (cov >= 0.5 or fact.score >= 2 * sure_score)
        if score >= min_match or trusted:
            text = answering_clause(question, lang, fact) if clause else _whole(fact)
            return Fallback(text, "fact", fact.id, round(score, 3))
    return Fallback(NOT_KNOWN[lang], "not_known", "", round(best[0], 3) if best else 0.0)


def _whole(fact: Fact) -> str:
    text = fact.text.strip()
    return text if text[-1:] in ".!?" else text + "."
