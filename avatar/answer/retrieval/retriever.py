"""The Retriever: the facts of a pack that fit a question best (BM25 over the index, lifted by the
question's cue words, reordered by what the question asks), and the Match that says whether the
best fact can answer it.
"""
from __future__ import annotations

import logging
import math
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Iterable

from avatar.answer.asked import asked_focus, asked_kind, asked_subject, asked_value, holds_kind, holds_value
from avatar.answer.base import Fact
from avatar.answer.knowledge import KnowledgePack
from avatar.answer.retrieval import semantic
from avatar.answer.retrieval.index import (RENDERED_HOURS, _Index, _join_split_compounds, _vocabulary_matches,
                                           build_index)
from avatar.answer.retrieval.words import (_CALENDAR, _CUE_TERMS, _TODAY_WORDS, _TOPIC_CUES, SPECIFIC_ZIPF, STOPWORDS,
                                           _everyday_zipf, _venue_compound, analyze, asked_zipf, holds_part)
from avatar.answer.text import words
from avatar.answer.thesaurus import siblings

log = logging.getLogger(__name__)

_CUE_BOOST = 0.3
_VENUE_WORD_WEIGHT = 0.3
_HOURS_BOOST = 1.0
_CUE_WORD_WEIGHT = 0.6
_SYNONYM_WEIGHT = 0.7
_CONTEXT_WEIGHT = 0.5  # a follow-up's previous question ("und was kostet das?" after "wo ist die sauna")
GATE_COVERAGE = 0.55  # a fact that lacks a specific word must hold at least this share of the question
RERANK_RATIO = 0.5  # a lower fact holding the specific words the best one lacks goes first down to this score share
SEMANTIC_WEIGHT = 0.4  # answer.semantic_weight: how far meaning moves a fact, in best word scores per standard deviation


@dataclass
class Match:
    facts: list[Fact]  # best first, with their scores
    coverage: float  # share of the question's words (venue name aside) that the pack knows
    # What the best fact leaves open: the question's specific words (rare in everyday language: "imax",
    # "rutsche", "atm") it does not hold, and the idf-weighted share of the question's words it holds.
    unmatched: tuple[str, ...] = ()
    fact_coverage: float = 1.0
    # The words of the thing a "gibt es / is there" question asks for that the best fact lacks ("steam"
    # of "is there a steam room in the sauna"): the fact does not say there is one.
    absent: tuple[str, ...] = ()
    # What meaning says of the best fact: how many standard deviations above the pack its similarity to the
    # question lies, when it is also the fact meaning alone would pick (else 0.0; no semantic scorer: 0.0)
    meaning_z: float = 0.0
    # The best fact lacks the kind of value the question asks for (a phone number, a temperature): ''
    lacks_value: str = ""
    # The best fact names the thing an "is there" question asks for ("einen Aufzug für Kinderwagen": the
    # lift's fact) and the specific words it lacks only say what the thing is for: no reason to decline
    focus_held: bool = False

    def answers(self) -> bool:
        """The best fact can answer: it holds every specific word the question asks about, or most of
        the question's words ("gibt es eine rutsche" at a pool whose pack never mentions one: no), and
        it names the thing an "is there" question asks for."""
        return (bool(self.facts) and not self.absent and not self.lacks_value
                and not (self.unmatched and self.fact_coverage < GATE_COVERAGE and not self.focus_held))


_PURPOSE = {"für", "fuer", "for"}


def _purpose_words(question: str) -> set[str]:
    """The words of the question's "für ... / for ..." phrases (up to three words each)."""
    ws = words(question)
    out: set[str] = set()
    for i, w in enumerate(ws):
        if w in _PURPOSE:
            out.update(ws[i + 1:i + 4])
    return out


class Retriever:
    """`retrieve(question, lang, k)`: the k facts of a pack that fit a question best, with scores.

    With a `semantic` scorer (semantic.py) the facts are ordered by their word score plus what the
    question means: each fact's similarity to the question, in standard deviations over the pack,
    times `semantic_weight` times the best word score. A fact's `score` stays its word score, so
    whether to answer is still decided by the words (meaning only chooses among the facts)."""

    def __init__(self, pack: KnowledgePack, k1: float = 1.2, b: float = 0.3, semantic=None,
                 semantic_weight: float = SEMANTIC_WEIGHT) -> None:
        self.pack = pack
        self.k1, self.b = k1, b
        self.semantic, self.semantic_weight = semantic, float(semantic_weight)
        self._indexes: dict[str, _Index] = {}

    def prepare(self, languages=("de", "en"), today: date | None = None, background: bool = False) -> None:
        """Build the index of each language now (at load), not on the first question; the facts'
        vectors too, or (`background`) while the kiosk starts (a new pack's take seconds)."""
        for lang in languages:
            index = self._index(lang, today or datetime.now().date())
            if self._semantic_for(index):
                self.semantic.prepare(index.facts, self._keywords(lang), background=background)
            _everyday_zipf("information", lang)  # loads the word-frequency list now, not in a visitor's turn

    def retrieve(self, question: str, lang: str, k: int = 3, today: date | None = None, context: str = "") -> list[Fact]:
        return self.match(question, lang, k, today, context).facts

    def match(self, question: str, lang: str, k: int = 3, today: date | None = None, context: str = "",
              focus_from: str | None = None) -> "Match":
        """The best facts and how much of the question the pack's words cover. `context` (the previous
        question of a follow-up) adds its words at a lower weight. `focus_from`: the visitor's own
        question when `question` reads it together with the one before ("is there a smaller stage?" +
        "how much are tickets there?"): only its "is there" thing must be in the fact."""
        index = self._index(lang, today or datetime.now().date())
        question = _join_split_compounds(question, lang, index)
        terms, has_subject, coverage = self._query_terms(question, lang, index)
        if context:
            extra, _, _ = self._query_terms(context, lang, index)
            for t, w in extra.items():
                terms[t] = max(terms.get(t, 0.0), w * _CONTEXT_WEIGHT)
        if not terms:
            return Match([], coverage)
        scores: dict[int, float] = defaultdict(float)
        k1, b = self.k1, self.b
        for term, weight in terms.items():
            idf = index.idf(term)
            for doc, tf in index.postings[term]:
                norm = tf * (k1 + 1) / (tf + k1 * (1 - b + b * index.lengths[doc] / index.avg_len))
                scores[doc] += weight * idf * norm
        if index.today_doc is not None and not set(words(question)) & _TODAY_WORDS:
            scores.pop(index.today_doc, None)
        cues = self._cued_topics(question)
        if cues:
            for doc in scores:
                fact = index.facts[doc]
                if fact.topic in cues:
                    # The rendered opening hours answer a plain "when are you open" (no subject named).
                    general = fact.id in RENDERED_HOURS and not has_subject
                    scores[doc] *= 1.0 + (_HOURS_BOOST if general else _CUE_BOOST)
        order, z = self._with_meaning(scores, f"{context} {question}".strip(), lang, index)
        best = [(doc, score) for doc, score in sorted(order.items(), key=lambda item: (-item[1], item[0]))[:k] if score > 0]
        unmatched, fact_coverage, absent, meaning_z, lacks_value, focus_held = (), 1.0, (), 0.0, "", False
        if best:
            asked = self._asked_words(question, lang, index)
            held = [self._held(asked, index.doc_terms[doc]) for doc, _ in best]
            kind = asked_kind(question, lang)
            # A lower fact goes first when it holds more of what is asked: the specific words ("bis wann
            # hat die Bar freitags auf": the bar's fact, not the week's hours) and then the kind of
            # value ("how much is parking": the fact with the price, not the car park's address).
            # A follow-up read with the question before it ("und die haie" after the seals' feeding)
            # asks first of all for what its own words name.
            own = set(words(focus_from)) if focus_from is not None else set()

            focus = asked_focus(question if focus_from is None else focus_from, lang)
            purpose = _purpose_words(question if focus_from is None else focus_from)

            def qualifies_only(i: int) -> bool:
                """The fact names the thing an "is there" question asks for and lacks only words of what
                it is for ("einen Aufzug für Kinderwagen": the lift's fact lacks "Kinderwagen")."""
                missing = held[i][0]
                return bool(focus) and bool(missing) and set(missing) <= purpose \
                    and not self._absent(asked, focus, index.doc_terms[best[i][0]])

            close = [i for i in range(len(best)) if best[i][1] >= RERANK_RATIO * best[0][1]]
            # "is there a lift for prams": the strollers fact holds "prams" but no lift; the lift's goes first
            named = any(qualifies_only(i) for i in close)

            def lacks(i: int) -> tuple[int, bool, int, bool, bool]:
                missing = held[i][0]
                return (sum(w in own for w in missing),
                        named and bool(self._absent(asked, focus, index.doc_terms[best[i][0]])),
                        len(missing), not qualifies_only(i), not holds_kind(index.facts[best[i][0]].text, kind))
            first = min(close, key=lambda i: (*lacks(i), i))
            best.insert(0, best.pop(first))
            held.insert(0, held.pop(first))
            unmatched, fact_coverage = held[0]
            absent = self._absent(asked, focus, index.doc_terms[best[0][0]])
            focus_held = qualifies_only(0)
            absent += self._not_about(asked, question if focus_from is None else focus_from, lang,
                                      index.doc_terms[best[0][0]])
            if z is not None and int(z.argmax()) == best[0][0]:
                meaning_z = float(z[best[0][0]])
            value = asked_value(question if focus_from is None else focus_from)
            if value and not holds_value(index.facts[best[0][0]].text, value):
                lacks_value = value
        return Match([replace(index.facts[doc], score=round(scores.get(doc, 0.0), 4)) for doc, _ in best], coverage,
                     unmatched, round(fact_coverage, 3), absent, round(meaning_z, 2), lacks_value, focus_held)

    def _with_meaning(self, scores: dict[int, float], question: str, lang: str, index: _Index):
        """The order of the facts: word scores, moved by meaning when a semantic scorer is there; and
        each fact's similarity to the question in standard deviations over the pack (or None)."""
        if not scores or not self._semantic_for(index):
            return scores, None
        try:
            sims = self.semantic.similarities(question, index.facts, self._keywords(lang))
        except (ValueError, RuntimeError, OSError) as exc:  # a broken engine costs the order, not the turn
            log.warning("semantic retrieval failed for one question, words alone decide: %s", exc)
            return scores, None
        if sims is None:  # the pack's vectors are still being made (the kiosk's first seconds)
            return scores, None
        z = (sims - sims.mean()) / (float(sims.std()) or 1.0)
        lift = self.semantic_weight * max(scores.values())
        # Every fact may rise by meaning, except today's hours, which only a question about today gets.
        return {doc: scores.get(doc, 0.0) + lift * float(z[doc]) for doc in range(len(index.facts))
                if doc != index.today_doc or doc in scores}, z

    def _semantic_for(self, index: _Index) -> bool:
        return (self.semantic is not None and self.semantic_weight > 0
                and 2 <= len(index.facts) <= semantic.MAX_FACTS)

    def _keywords(self, lang: str):
        return lambda fact: self.pack.keywords(fact.id, lang)

    def names_subject(self, question: str, lang: str, ignore: Iterable[str] = ()) -> bool:
        """Whether the question names something besides the venue, the kind of answer ("open",
        "kostet") and the `ignore` words: "sauna hours on saturday" does, "are you open on sundays"
        does not (with the weekdays ignored)."""
        index = self._index(lang, datetime.now().date())
        question = _join_split_compounds(question, lang, index)  # "stand es amt": the Standesamt
        skip = {t for w in ignore for t in analyze(w, lang)} | _CUE_TERMS[lang] | index.venue_terms
        return any(t not in skip and not _venue_compound(t, index.venue_terms) for t in analyze(question, lang))

    def _asked_words(self, question: str, lang: str, index: _Index) -> list[tuple[str, float, bool, frozenset[str]]]:
        """The question's content words: (word, idf weight, specific, the pack terms that stand for it)."""
        asked = []
        cue_terms = _CUE_TERMS[lang]
        for w in dict.fromkeys(words(question)):
            if w in STOPWORDS[lang] or len(w) < 2 or w.isdigit():
                continue
            stems = analyze(w, lang)
            if not stems or stems[0] in index.venue_terms or stems[0] in cue_terms:
                continue
            if _venue_compound(stems[0], index.venue_terms):
                continue  # "schwimmbad" at the "Hallenbad": the venue itself
            found = {t for t, _ in _vocabulary_matches(stems[0], index) if _stands_for(stems[0], t, lang)}
            found |= {t for sib in siblings(w) for t in analyze(sib, lang) if t in index.postings}
            weight = max((index.idf(t) for t in found), default=math.log(1.0 + len(index.facts)))
            zipf = asked_zipf(w, lang)
            # A word neither the pack nor everyday language knows ("kombo") is more likely misheard or
            # misspelt than the name of what is asked: it cannot tell whether a fact answers.
            specific = len(w) > 2 and zipf < SPECIFIC_ZIPF and (bool(found) or zipf > 0)
            asked.append((w, weight, specific, frozenset(found)))
        return asked

    @staticmethod
    def _held(asked, terms: frozenset[str]) -> tuple[tuple[str, ...], float]:
        """The specific asked words a fact lacks, and the weighted share of asked words it holds."""
        have = [bool(found & terms) or any(holds_part(t, terms) for t in found) for _, _, _, found in asked]
        total = sum(weight for _, weight, _, _ in asked)
        held = sum(weight for (_, weight, _, _), h in zip(asked, have) if h)
        missing = tuple(w for (w, _, specific, _), h in zip(asked, have) if specific and not h)
        return missing, (held / total if total else 1.0)

    @staticmethod
    def _absent(asked, focus: tuple[str, ...], terms: frozenset[str]) -> tuple[str, ...]:
        """The focus words a fact does not hold, by the same reading as `_held` (stems, compounds, the
        thesaurus); words retrieval does not read as asked (stopwords, the venue, cue words) never count."""
        found_for = {w: found for w, _, _, found in asked}
        return tuple(w for w in focus if w in found_for
                     and not (found_for[w] & terms or any(holds_part(t, terms) for t in found_for[w])))

    def _not_about(self, asked, question: str, lang: str, terms: frozenset[str]) -> tuple[str, ...]:
        """What a price, hours or place question asks about that the best fact is not about (asked.py,
        `asked_subject`): the thing ("what does the zoo cost") when the fact holds no word of it, the place
        it is for ("a ticket to the moon") when the whole pack knows no word of it (a ticket to the
        exhibition is the admission); a place word everyday language does not know either does not count
        (more likely misheard than a place)."""
        thing, place = asked_subject(question, lang)
        counted = {w for w, _, _, _ in asked}
        known = {w: found for w, _, _, found in asked}
        thing = tuple(w for w in thing if w in counted)
        place = tuple(w for w in place if w in counted and asked_zipf(w, lang) > 0
                      and w not in _CALENDAR and w not in _TODAY_WORDS)
        lacking = self._absent(asked, thing, terms)
        out = lacking if thing and len(lacking) == len(thing) else ()
        if place and not any(known[w] for w in place):
            out += place
        return out

    def _cued_topics(self, question: str) -> set[str]:
        tokens = set(words(question))
        return {topic for topic, cue in _TOPIC_CUES.items() if tokens & cue}

    def _query_terms(self, question: str, lang: str, index: _Index) -> tuple[dict[str, float], bool, float]:
        """Stemmed question words mapped onto the pack's vocabulary, with weights for inexact matches;
        whether the question names a subject; the share of its words the pack knows."""
        terms: dict[str, float] = {}
        analyzed = analyze(question, lang)
        content = [t for t in analyzed if t not in index.venue_terms and not _venue_compound(t, index.venue_terms)]
        known = direct_known = 0
        cue_terms = _CUE_TERMS[lang]
        # "open", "kostet" say what kind of answer is wanted; the subject ("café") decides which.
        has_subject = any(t not in cue_terms and t not in index.venue_terms for t in analyzed)
        # Words the visitor uses for what the pack names otherwise ("loo" for "WC"): the pack's own
        # words of the same thesaurus group count as weaker matches.
        synonyms: dict[str, float] = {}
        understood: set[str] = set()  # stems of words only the thesaurus maps onto the pack ("windel", "baby")
        for w in words(question):
            if w in STOPWORDS[lang]:
                continue
            direct = any(t in index.postings for t in analyze(w, lang))
            found = {t for sib in siblings(w) for t in analyze(sib, lang) if t in index.postings and t not in cue_terms}
            if found and not direct:
                understood.update(analyze(w, lang))
            # The rarest one (two) of the pack's siblings stand in; siblings as rare as the last one taken
            # share its place and weight: a tie cut by set order changed answers from run to run (hash seed).
            ranked = sorted(found, key=lambda t: (-index.idf(t), t))
            n = 1 if direct else 2
            share = {t: 1.0 for t in ranked}
            if len(ranked) > n:
                cut = index.idf(ranked[n - 1])
                above = [t for t in ranked if index.idf(t) > cut]
                tied = [t for t in ranked if index.idf(t) == cut]
                share = {**{t: 1.0 for t in above}, **{t: (n - len(above)) / len(tied) for t in tied}}
            for t, part in share.items():
                weight = _SYNONYM_WEIGHT * (0.5 if direct else 1.0) * part
                synonyms[t] = max(synonyms.get(t, 0.0), weight)
        for term in analyzed:
            # At the venue, "museum" says little about what is asked.
            scale = _VENUE_WORD_WEIGHT if term in index.venue_terms else 1.0
            if term in cue_terms and has_subject:
                scale = min(scale, _CUE_WORD_WEIGHT)
            matches = _vocabulary_matches(term, index)
            direct_known += bool(matches) and term not in index.venue_terms
            # a word the pack knows (not only a common piece of it), or one the thesaurus understood for it
            knows = any(_stands_for(term, match, lang) for match, _ in matches)
            known += (knows or term in understood) and term in content
            for match, weight in matches:
                terms[match] = max(terms.get(match, 0.0), weight * scale)
        for t, weight in synonyms.items():
            terms[t] = max(terms.get(t, 0.0), weight)
        if synonyms:  # the thesaurus helped with at least one word, even one the pack also uses
            known = max(known, min(len(content), direct_known + 1))
        return terms, has_subject, min(1.0, known / len(content)) if content else 1.0

    def _index(self, lang: str, day: date) -> _Index:
        index = self._indexes.get(lang)
        # The hours-today fact depends on the date, so the index is rebuilt when the day changes.
        if index is None or (self.pack.hours is not None and index.day != day):
            index = self._build(lang, day)
            self._indexes[lang] = index
        return index

    def _build(self, lang: str, day: date) -> _Index:
        return build_index(self.pack, lang, day)


def _stands_for(term: str, match: str, lang: str) -> bool:
    """Whether a pack term found for an asked term names the same thing: not when it is only a common
    piece of it ("haus" in "krankenhaus": a fact about the "Parkhaus" holds "haus", not a hospital;
    "karte" in "tageskarte"). Such a piece still helps to rank the facts, but does not tell that the
    pack knows what is asked."""
    return not (len(match) < len(term) and match in term and _everyday_zipf(match, lang) >= SPECIFIC_ZIPF)


def retriever_for(pack: KnowledgePack, cfg) -> Retriever:
    """The kiosk's retriever for a pack: words, and meaning when answer.semantic_weight > 0 and the
    model loads (else words alone, logged once)."""
    weight = float(cfg.answer.semantic_weight)
    threads = cfg.answer.semantic_threads or 1  # 0: one thread
    return Retriever(pack, semantic=semantic.shared_scorer(threads) if weight > 0 else None, semantic_weight=weight)
