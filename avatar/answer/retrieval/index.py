"""The BM25 index of one language's facts, and how a question word the pack never uses is matched
onto pack words: compound parts, words it starts or ends, and misheard spellings (shared
trigrams), each found by lookup, not by scanning the vocabulary.
"""
from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date

from avatar.answer.base import Fact
from avatar.answer.knowledge import KnowledgePack
from avatar.answer.retrieval.signage import written_out
from avatar.answer.retrieval.words import PARTICLES_DE, STOPWORDS, _everyday_zipf, _trigrams, analyze
from avatar.answer.text import words

RENDERED_HOURS = ("hours-today", "hours-week", "hours-special")


@dataclass
class _Index:
    """BM25 postings of one language's facts, and the lookups that map a question word the pack
    never uses onto pack words without scanning the vocabulary (built once per pack and day)."""
    facts: list[Fact]
    postings: dict[str, list[tuple[int, int]]]  # term -> [(fact index, term frequency)]
    lengths: list[int]
    avg_len: float
    trigrams: dict[str, frozenset[str]]
    day: date | None
    venue_terms: frozenset[str] = frozenset()
    doc_terms: list[frozenset[str]] = field(default_factory=list)  # each fact's terms (text, keywords, parts)
    order: dict[str, int] = field(default_factory=dict)  # term -> its place in postings (ties keep pack order)
    sorted_terms: list[str] = field(default_factory=list)  # for "pack words that start with" a question word
    sorted_reversed: list[str] = field(default_factory=list)  # the same, spelt backwards: "that end with"
    gram_terms: dict[str, list[str]] = field(default_factory=dict)  # trigram -> pack terms holding it
    today_doc: int | None = None  # the hours-today fact, left out unless the question is about today

    def __post_init__(self) -> None:
        self.order = {t: i for i, t in enumerate(self.postings)}
        self.sorted_terms = sorted(self.postings)
        self.sorted_reversed = sorted(t[::-1] for t in self.postings)
        grams: dict[str, list[str]] = defaultdict(list)
        for t, tg in self.trigrams.items():
            for g in tg:
                grams[g].append(t)
        self.gram_terms = dict(grams)
        self.today_doc = next((i for i, f in enumerate(self.facts) if f.id == "hours-today"), None)
        terms_of: list[set[str]] = [set() for _ in self.facts]
        for t, plist in self.postings.items():
            for doc, _ in plist:
                terms_of[doc].add(t)
        self.doc_terms = [frozenset(t) for t in terms_of]

    def idf(self, term: str) -> float:
        n, df = len(self.facts), len(self.postings.get(term, ()))
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def build_index(pack: KnowledgePack, lang: str, day: date) -> _Index:
    """The index of `pack`'s facts in `lang` on `day` (today's hours are among the facts)."""
    facts = pack.facts(lang, day)
    texts = [_pack_terms(f.text, lang) for f in facts]
    keywords = [_pack_terms(" ".join(pack.keywords(f.id, lang)), lang) for f in facts]
    vocab = {t for doc in texts + keywords for t in doc}
    postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
    lengths = []
    for i, (text, extra) in enumerate(zip(texts, keywords)):
        counts = Counter(text + extra)
        # Keywords are the operator's hints, not prose: they add matches but not length.
        lengths.append(max(1, len(text)))
        # A compound also stands for the pack words it is made of: "museumscafe" is a "cafe".
        for term in list(counts):
            for part in _compound_parts(term, vocab):
                counts[part] += 1
        for term, tf in counts.items():
            postings[term].append((i, tf))
    avg = sum(lengths) / max(1, len(lengths))
    # The rendered hours list every weekday; their length says nothing about their focus.
    lengths = [avg if f.id in RENDERED_HOURS else n for f, n in zip(facts, lengths)]
    venue_words = f"{pack.kind} {pack.name} {pack.name_en}"
    return _Index(facts, dict(postings), lengths, avg, {t: _trigrams(t) for t in postings}, day,
                  frozenset(analyze(venue_words, lang)))


# Each pack text's search terms, shared by every Retriever: a new day (today's hours), a renewed
# answerer or a reloaded pack analyzes only texts it has not seen (stemming 5,000 facts takes a
# second). Pack texts only, never a question; emptied when it grows past its bound.
_PACK_TERMS: dict[tuple[str, str], list[str]] = {}
_MAX_PACK_TERMS = 100_000


def _pack_terms(text: str, lang: str) -> list[str]:
    key = (lang, text)
    terms = _PACK_TERMS.get(key)
    if terms is None:
        if len(_PACK_TERMS) >= _MAX_PACK_TERMS:
            _PACK_TERMS.clear()
        # what operators shorten ("Geburts-, Ehe- oder Sterbeurkunde") is searched written out too
        extra = written_out(text, lang)
        terms = _PACK_TERMS[key] = analyze(f"{text} {extra}" if extra else text, lang)
    return terms


def _compound_parts(term: str, vocab: set[str]) -> list[str]:
    """Pack words (4+ letters, at least 3 shorter) that `term` starts or ends with: its own prefixes
    and suffixes looked up, not the vocabulary scanned."""
    if len(term) < 8:
        return []
    found = {piece for n in range(4, len(term) - 2) for piece in (term[:n], term[-n:]) if piece in vocab}
    return sorted(found)


def _vocabulary_matches(term: str, index: _Index) -> list[tuple[str, float]]:
    # Not cached: the lookups cost well under a millisecond, and a cache would keep the visitor's
    # words (a name, a phone number's digits) after the visit.
    if term in index.postings:
        return [(term, 1.0)]
    return _inexact_matches(term, index)


def _extensions(term: str, ordered: list[str]) -> list[str]:
    """The words of sorted `ordered` that start with `term` (a bisected range, not a scan)."""
    out = []
    for i in range(bisect_left(ordered, term), len(ordered)):
        if not ordered[i].startswith(term):
            break
        out.append(ordered[i])
    return out


_HEAD_MAX_ZIPF = 5.0  # wordfreq Zipf: "lass", "mach", "stay" and more common words are no compound's head


def _inexact_matches(term: str, index: _Index) -> list[tuple[str, float]]:
    if term in index.postings:
        return [(term, 1.0)]
    # Compound parts: "garderobenschrank" holds "garderob"; "ticketpreis" holds "preis"; and pack
    # words that hold the question word. Each found by lookup: prefixes and suffixes of the word,
    # and the sorted vocabulary (forwards and backwards) for the words it starts or ends.
    parts: set[str] = set()
    if len(term) >= 5:
        postings = index.postings
        parts.update(piece for n in range(4, len(term) + 1) for piece in (term[:n], term[-n:]) if piece in postings)
        parts.update(_extensions(term, index.sorted_terms))
        parts.update(t[::-1] for t in _extensions(term[::-1], index.sorted_reversed))
        parts.discard(term)
    elif len(term) >= 3 and max(_everyday_zipf(term, lang) for lang in ("de", "en")) < _HEAD_MAX_ZIPF:
        # a short word is the head of a pack compound that ends with it ("cafe" in "museumscafe", "bar" in
        # "hotelbar"): German puts the thing last; a start ("bad" in "badminton") is not looked for, nor
        # the stem of a common verb ("lass" of "lassen" is not a "Steigenlassen")
        parts.update(t[::-1] for t in _extensions(term[::-1], index.sorted_reversed) if len(t) >= len(term) + 4)
    if parts:
        best = sorted(parts, key=lambda t: (-len(t), index.order[t]))
        return [(t, 0.7) for t in best[:3]]
    # Misheard or misspelt words: the closest pack words by shared trigrams (Jaccard), counted over
    # the pack words that share at least one trigram with the question word.
    grams = _trigrams(term)
    if len(term) < 4:
        return []
    shared: Counter[str] = Counter()
    for g in grams:
        shared.update(index.gram_terms.get(g, ()))
    near = []
    for t, common in shared.items():
        sim = common / (len(grams) + len(index.trigrams[t]) - common)
        if sim >= 0.45:
            near.append((sim, t))
    near.sort(reverse=True)
    return [(t, 0.6 * sim) for sim, t in near[:2]]


def _join_split_compounds(question: str, lang: str, index: _Index) -> str:
    """Speech recognition splits compounds the pack writes whole ("seiten weise" for the shop
    "Seitenweise", "lade säule", "sprung turm"): two neighbouring words whose join is a pack word
    are read as that word."""
    tokens = words(question)
    stop = STOPWORDS[lang]
    out, i, joined = [], 0, False
    while i < len(tokens):
        a = tokens[i]
        b = tokens[i + 1] if i + 1 < len(tokens) else ""
        # a particle split off its verb ("aus leihen") is a stopword alone, not in the join
        particle = lang == "de" and a in PARTICLES_DE
        if (particle or (len(a) >= 3 and a not in stop)) and len(b) >= 3 and b not in stop and not (a + b).isdigit():
            stems = analyze(a + b, lang)
            if stems and stems[0] in index.postings:
                out.append(a + b)
                i, joined = i + 2, True
                continue
        c = tokens[i + 2] if i + 2 < len(tokens) else ""
        # a linking "s" / "es" heard as a word of its own ("stand es amt" for "Standesamt")
        if lang == "de" and len(a) >= 3 and b in ("s", "es", "n", "en") and len(c) >= 3 and (a + b + c).isalpha():
            stems = analyze(a + b + c, lang)
            if stems and stems[0] in index.postings:
                out.append(a + b + c)
                i, joined = i + 3, True
                continue
        out.append(a)
        i += 1
    return " ".join(out) if joined else question
