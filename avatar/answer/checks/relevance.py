"""Relevance: a reply that states facts must be about what was asked (the asked day, the asked name).

A question asking for a price or a time needs a price or a time in the reply (or a decline), and
a greeting or farewell only answers something social ("What's the temperature?" -> "Hi" fails).

Grounding proves every value comes from a fact, not that it is the right fact: asked about Sunday,
a reply may copy Thursday's hours from a neighbouring fact. When the question names a weekday, or
a name that the facts contain (a city, a company, an exhibition), a reply carrying values must
mention at least one of them. Declines and small talk (no values, no names) are always relevant.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from avatar.answer.base import Fact
from avatar.answer.checks.common_words import common_words
from avatar.answer.checks.content import extract
from avatar.trace import now

_WORD = re.compile(r"[\wÄÖÜäöüß'-]+")
_CUES = {
    "price": re.compile(r"\b(?:kostet|kosten|preis\w*|teuer|gebühr|how much (?:is|are|does|do)|costs?|price\w*|fee)\b"),
    "time": re.compile(r"\b(?:wann|uhrzeit|wie ?viel uhr|öffnungszeit\w*|when|what time|opening hours)\b"),
}
_ANSWER_KINDS = {"price": {"price"}, "time": {"time", "weekday", "date", "number"}}
_TIME_WORDS = re.compile(r"\b(?:geschlossen|closed|heute|today|morgen|tomorrow)\b", re.I)  # "closed today" answers "when"
DECLINE_RE = {
    "de": re.compile(r"weiß ich (?:hier )?(?:leider )?nicht|keine Information|nicht sagen|fragen Sie|Personal", re.I),
    "en": re.compile(r"don't know|do not know|no information|can't tell|cannot tell|ask our staff|ask at the|ask a member", re.I),
}
# capitalised inside titles ("Die Römer", "The Romans") but never what a question is about
_FUNCTION_WORDS = frozenset("der die das den dem des ein eine und oder von vom zum zur für mit the and for with from".split())
_DAY_NAMES = {name: day for names, day in (
    (("montag", "monday"), "mon"), (("dienstag", "tuesday"), "tue"), (("mittwoch", "wednesday"), "wed"),
    (("donnerstag", "thursday"), "thu"), (("freitag", "friday"), "fri"), (("samstag", "saturday"), "sat"),
    (("sonntag", "sunday"), "sun")) for name in names}


# A reply made only of these is a greeting or a farewell: it answers "hallo" or "danke", not a question.
SOCIAL_REPLY_WORDS = frozenset("""
    hi hello hey good morning afternoon evening day goodbye bye see you soon have a nice great lovely and take
    care welcome there thanks thank too as well same to
    hallo guten tag morgen abend tschüss auf wiedersehen einen schönen noch bis bald ciao servus moin willkommen
    herzlich danke ihnen dir auch gleichfalls
""".split())
# a question with one of these is social itself: a greeting back is the right answer
_SOCIAL_CUE = frozenset("""
    hi hello hey good morning evening bye goodbye thanks thank cheers welcome
    hallo guten tag morgen abend tschüss wiedersehen danke ciao servus moin grüß gott
""".split())


def greets_instead_of_answering(reply: str, question: str) -> bool:
    """The reply is only a greeting or farewell ("Hi", "Goodbye and have a nice day!") while the
    visitor said nothing social: it does not answer them."""
    words = [w.lower() for w in _WORD.findall(reply)]
    if not words or not all(w in SOCIAL_REPLY_WORDS for w in words):
        return False
    return not any(w.lower() in _SOCIAL_CUE for w in _WORD.findall(question))


@dataclass
class RelevanceResult:
    ok: bool
    asked: list[str] = field(default_factory=list)      # weekdays and fact names the question asks about
    off_topic: list[str] = field(default_factory=list)  # what the reply says instead (surfaces), for banning
    ms: float = 0.0


def _one_edit_apart(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = next((k for k in range(len(a)) if a[k] != b[k]), len(a))
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:]  # one letter wrong
    return a[i:] == b[i + 1:]  # one letter missing from a


def _misheard_days(word: str) -> set[str]:
    """The weekdays a word is one letter off ("suday"; "tursday" may be Tuesday or Thursday)."""
    if len(word) < 5:
        return set()
    return {day for name, day in _DAY_NAMES.items() if _one_edit_apart(word, name)}


def asked_days(question: str, lang: str) -> set[str]:
    """The weekdays a question names, misheard ones included ("suday")."""
    days = {v for i in extract(question, lang).items if i.kind == "weekday" for v in i.values}
    return days | {day for w in _WORD.findall(question.lower()) for day in _misheard_days(w)}


def is_decline(text: str, lang: str) -> bool:
    """The reply says it does not know (and points to staff)."""
    return bool(DECLINE_RE.get(lang, DECLINE_RE["en"]).search(text))


def asked_kinds(question: str) -> set[str]:
    """The kinds of value a question asks for: a price ("was kostet"), a time ("wann", "what time")."""
    q = question.lower()
    return {kind for kind, cue in _CUES.items() if cue.search(q)}


def check_relevance(reply: str, lang: str, facts: Sequence[Fact], question: str) -> RelevanceResult:
    t0 = now()
    if greets_instead_of_answering(reply, question):
        return RelevanceResult(False, ["an answer, not a greeting"], [], (now() - t0) * 1000.0)
    content = extract(reply, lang)
    common = common_words(lang)
    reply_names = {n.lower() for n in content.names} - common
    kinds = asked_kinds(question)
    answered = any(i.kind in _ANSWER_KINDS[k] for k in kinds for i in content.items) or (
        "time" in kinds and _TIME_WORDS.search(reply))
    if kinds and not answered and not is_decline(reply, lang):
        # asked for a price or a time, answered with neither and not declined: not an answer
        return RelevanceResult(False, sorted(kinds), [i.surface for i in content.items], (now() - t0) * 1000.0)
    if not content.items and not reply_names:
        return RelevanceResult(True, ms=(now() - t0) * 1000.0)
    days = asked_days(question, lang)
    fact_names = {n.lower() for f in facts for n in extract(f.text, f.lang or lang).names
                  if len(n) > 3 and n.lower() not in _FUNCTION_WORDS} - common
    asked_names = fact_names & {w.lower() for w in _WORD.findall(question)}
    reply_days = {v for i in content.items if i.kind == "weekday" for v in i.values}
    reply_lower = reply.lower()
    asked = sorted(days) + sorted(asked_names)
    # one asked thing named is enough: "Und am Sonntag?" needs Sunday, not the venue's name too
    ok = (not asked or bool(days & reply_days)
          or any(re.search(rf"\b{re.escape(n)}\b", reply_lower) for n in asked_names))
    off_topic: list[str] = []
    if not ok:
        off_topic = [i.surface for i in content.items if i.kind == "weekday"]
        off_topic += sorted(n for n in content.names if n.lower() in fact_names)
    return RelevanceResult(ok, asked, list(dict.fromkeys(off_topic)), (now() - t0) * 1000.0)
