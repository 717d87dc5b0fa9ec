"""BM25 over a knowledge pack's facts, per language, for questions as ASR writes them.

Questions arrive lower-case and without punctuation, often with German compounds the pack spells
differently ("Garderobenschrank" vs "Garderobe"). Words are stemmed (Snowball, German and
English); a question word the pack never uses is matched to pack words it contains or that contain
it (compound parts), else to pack words sharing most character trigrams (misheard spellings).
"""
from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from functools import lru_cache
from typing import Iterable

import snowballstemmer

from avatar.answer.asked import asked_kind, holds_kind
from avatar.answer.base import Fact
from avatar.answer.knowledge import KnowledgePack
from avatar.answer.text import fold_accents, words
from avatar.answer.thesaurus import siblings

STOPWORDS = {
    "de": frozenset("""
        der die das den dem des ein eine einer eines einem einen und oder aber ich du er sie es wir
        ihr man mich mir dich dir sich uns euch habt mein meine meinen meiner meinem meines dein deine deinen deinem
        unser unsere unseren unserem euer eure euren ihre ihren ist sind bin bist
        seid war waren hat haben habe hast wird werden kann kann's können könnte darf dürfen muss
        müssen soll sollte möchte möchten will wollen gibt gibt's geben hier da dort wie was wer
        welche welcher welches welchen wo wohin woher wann warum ob im in am an auf aus bei mit nach
        von vom zu zum zur für um über unter vor bis nicht noch schon auch nur mal bitte denn doch ja
        nein so sehr gern gerne eigentlich hallo entschuldigung entschuldigen sie ähm äh hm also dann
        einmal etwas irgendwo sagen sag mir wissen weiß würde würden gern bei beim es's findet finde
        finden ich's kriege krieg kriegt hab gibts bekomme bekommen viel viele heißt heisst lautet nächste nächsten nächster fürs ins ans aufs vors übers
    """.split()),
    "en": frozenset("""
        the a an and or but i you he she it we they me my your our us them is are am was were be been
        do does did have has had can could may might must shall should will would there here what
        which who whom when where why how this that these those of in on at to from by with for about
        into over under up down out not no yes please thanks hello hi um uh so any some get got just
        it's what's where's i'm don't can't tell know want like much many find go going excuse sorry
        there's is's some one called nearest closest
    """.split()),
}

# Question words that say which kind of fact is wanted; they lift facts of that topic a little.
_TOPIC_CUES = {
    "hours": frozenset("wann geöffnet offen öffnungszeiten schließt uhr when open opening hours close closes closing time".split()),
    "prices": frozenset("kostet kosten preis preise teuer euro eintritt much cost costs price prices expensive euros fee".split()),
    "rooms": frozenset("wo wohin stock etage geschoss where floor".split()),
    "directions": frozenset("wo wohin komme hinkommen weg where way get".split()),
}
_CUE_BOOST = 0.3
_VENUE_WORD_WEIGHT = 0.3
_HOURS_BOOST = 1.0
_CUE_WORD_WEIGHT = 0.6
_SYNONYM_WEIGHT = 0.7
_CONTEXT_WEIGHT = 0.5  # a follow-up's previous question ("und was kostet das?" after "wo ist die sauna")
RENDERED_HOURS = ("hours-today", "hours-week")
# Only questions about today get today's hours; the others get the week.
_TODAY_WORDS = frozenset("heute jetzt noch gerade momentan today now still currently tonight right".split())
_STEMMERS = {"de": "german", "en": "english"}
# A question word rarer than this in everyday language (wordfreq's Zipf scale: 4 = once per 100,000
# words) names the thing asked about; common words ("need", "bringen", "long") do not.
SPECIFIC_ZIPF = 4.0
GATE_COVERAGE = 0.5  # a fact that lacks a specific word must hold at least this share of the question
RERANK_RATIO = 0.5  # a lower fact holding the specific words the best one lacks goes first down to this score share


@lru_cache(maxsize=20_000)
def _stem(word: str, lang: str) -> str:
    return fold_accents(_stemmer(lang).stemWord(word))


@lru_cache(maxsize=4)
def _stemmer(lang: str):
    return snowballstemmer.stemmer(_STEMMERS[lang])


def analyze(text: str, lang: str) -> list[str]:
    """Search terms of `text`: words without stopwords, stemmed, accents folded."""
    stop = STOPWORDS[lang]
    return [_stem(w, lang) for w in words(text) if w not in stop and len(w) > 1 or w.isdigit()]


_CUE_TERMS = {lang: frozenset(analyze(" ".join(w for cue in _TOPIC_CUES.values() for w in cue), lang))
              for lang in _STEMMERS}


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
        if len(a) >= 3 and len(b) >= 3 and a not in stop and b not in stop and not (a + b).isdigit():
            stems = analyze(a + b, lang)
            if stems and stems[0] in index.postings:
                out.append(a + b)
                i, joined = i + 2, True
                continue
        out.append(a)
        i += 1
    return " ".join(out) if joined else question


def _holds_part(term: str, terms: frozenset[str]) -> bool:
    """A fact's compound holds the term: "badeschluss" holds "bad" (ASR splits "bade schluss")."""
    return len(term) >= 3 and any(len(t) > len(term) and (t.startswith(term) or t.endswith(term)) for t in terms)


def _venue_compound(term: str, venue_terms: frozenset[str]) -> bool:
    """A long word with the same last part as a long word of the venue's name or kind ("schwimmbad",
    "hallenbad"): the visitor's name for the venue."""
    if len(term) < 6:
        return False
    return any(len(v) >= 6 and v != term and _common_tail(term, v) >= 3 for v in venue_terms)


def _common_tail(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


@lru_cache(maxsize=4096)
def _everyday_zipf(word: str, lang: str) -> float:
    """How common a word is in everyday German or English (wordfreq; 0 for words it does not list)."""
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # no frequency list: every word counts as everyday, the gate stays open
        return 9.0
    return zipf_frequency(word, lang, wordlist="small")


def _trigrams(term: str) -> frozenset[str]:
    padded = f"#{term}#"
    return frozenset(padded[i:i + 3] for i in range(len(padded) - 2))


@dataclass
class Match:
    facts: list[Fact]  # best first, with their scores
    coverage: float  # share of the question's words (venue name aside) that the pack knows
    # What the best fact leaves open: the question's specific words (rare in everyday language: "imax",
    # "rutsche", "atm") it does not hold, and the idf-weighted share of the question's words it holds.
    unmatched: tuple[str, ...] = ()
    fact_coverage: float = 1.0

    def answers(self) -> bool:
        """The best fact can answer: it holds every specific word the question asks about, or most of
        the question's words ("gibt es eine rutsche" at a pool whose pack never mentions one: no)."""
        return bool(self.facts) and not (self.unmatched and self.fact_coverage < GATE_COVERAGE)


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


class Retriever:
    """`retrieve(question, lang, k)`: the k facts of a pack that fit a question best, with scores."""

    def __init__(self, pack: KnowledgePack, k1: float = 1.2, b: float = 0.3) -> None:
        self.pack = pack
        self.k1, self.b = k1, b
        self._indexes: dict[str, _Index] = {}

    def prepare(self, languages=("de", "en"), today: date | None = None) -> None:
        """Build the index of each language now (at load), not on the first question."""
        for lang in languages:
            self._index(lang, today or datetime.now().date())
            _everyday_zipf("information", lang)  # loads the word-frequency list now, not in a visitor's turn

    def retrieve(self, question: str, lang: str, k: int = 3, today: date | None = None, context: str = "") -> list[Fact]:
        return self.match(question, lang, k, today, context).facts

    def match(self, question: str, lang: str, k: int = 3, today: date | None = None, context: str = "") -> "Match":
        """The best facts and how much of the question the pack's words cover. `context` (the previous
        question of a follow-up) adds its words at a lower weight."""
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
        best = [(doc, score) for doc, score in sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k] if score > 0]
        unmatched, fact_coverage = (), 1.0
        if best:
            asked = self._asked_words(question, lang, index)
            held = [self._held(asked, index.doc_terms[doc]) for doc, _ in best]
            kind = asked_kind(question, lang)
            # A lower fact goes first when it holds more of what is asked: the specific words ("bis wann
            # hat die Bar freitags auf": the bar's fact, not the week's hours) and then the kind of
            # value ("how much is parking": the fact with the price, not the car park's address).
            def lacks(i: int) -> tuple[int, bool]:
                return len(held[i][0]), not holds_kind(index.facts[best[i][0]].text, kind)
            close = [i for i in range(len(best)) if best[i][1] >= RERANK_RATIO * best[0][1]]
            first = min(close, key=lambda i: (*lacks(i), i))
            best.insert(0, best.pop(first))
            held.insert(0, held.pop(first))
            unmatched, fact_coverage = held[0]
        return Match([replace(index.facts[doc], score=round(score, 4)) for doc, score in best], coverage,
                     unmatched, round(fact_coverage, 3))

    def names_subject(self, question: str, lang: str, ignore: Iterable[str] = ()) -> bool:
        """Whether the question names something besides the venue, the kind of answer ("open",
        "kostet") and the `ignore` words: "sauna hours on saturday" does, "are you open on sundays"
        does not (with the weekdays ignored)."""
        index = self._index(lang, datetime.now().date())
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
            found = {t for t, _ in _vocabulary_matches(stems[0], index)}
            found |= {t for sib in siblings(w) for t in analyze(sib, lang) if t in index.postings}
            weight = max((index.idf(t) for t in found), default=math.log(1.0 + len(index.facts)))
            zipf = _everyday_zipf(w, lang)
            # A word neither the pack nor everyday language knows ("kombo") is more likely misheard or
            # misspelt than the name of what is asked: it cannot tell whether a fact answers.
            specific = len(w) > 2 and zipf < SPECIFIC_ZIPF and (bool(found) or zipf > 0)
            asked.append((w, weight, specific, frozenset(found)))
        return asked

    @staticmethod
    def _held(asked, terms: frozenset[str]) -> tuple[tuple[str, ...], float]:
        """The specific asked words a fact lacks, and the weighted share of asked words it holds."""
        have = [bool(found & terms) or any(_holds_part(t, terms) for t in found) for _, _, _, found in asked]
        total = sum(weight for _, weight, _, _ in asked)
        held = sum(weight for (_, weight, _, _), h in zip(asked, have) if h)
        missing = tuple(w for (w, _, specific, _), h in zip(asked, have) if specific and not h)
        return missing, (held / total if total else 1.0)

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
            # a word the pack knows, or one the thesaurus understood for it
            known += (bool(matches) or term in understood) and term in content
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
        facts = self.pack.facts(lang, day)
        texts = [_pack_terms(f.text, lang) for f in facts]
        keywords = [_pack_terms(" ".join(self.pack.keywords(f.id, lang)), lang) for f in facts]
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
        venue_words = f"{self.pack.kind} {self.pack.name} {self.pack.name_en}"
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
        terms = _PACK_TERMS[key] = analyze(text, lang)
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


def main(argv: list[str] | None = None) -> int:
    """`python -m avatar.answer.retrieval PACK LANG QUESTION...`: what each question retrieves, and how fast.
    PACK `synthetic:N` is the sample pack grown to N facts (avatar/answer/synthetic_pack.py)."""
    import argparse
    import tempfile

    from avatar.answer.knowledge import load_pack
    from avatar.trace import now

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("pack", help="a venue folder or venue.toml, or synthetic:N for a generated pack of N facts")
    parser.add_argument("lang", choices=("de", "en"))
    parser.add_argument("questions", nargs="+")
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=200, help="timing repeats per question")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.pack
        if path.startswith("synthetic:"):
            from avatar.answer.synthetic_pack import write_synthetic_pack

            path, _ = write_synthetic_pack(tmp, int(path.split(":", 1)[1]))
        t0 = now()
        pack = load_pack(path)
        print(f"{len(pack.entries)} facts loaded in {(now() - t0) * 1000:.1f} ms")
    retriever = Retriever(pack)
    t0 = now()
    retriever.prepare([args.lang])
    print(f"index built in {(now() - t0) * 1000:.1f} ms")
    for q in args.questions:
        t0 = now()
        facts = retriever.retrieve(q, args.lang, args.k)
        first_ms = (now() - t0) * 1000
        t0 = now()
        for _ in range(args.repeats):
            retriever.retrieve(q, args.lang, args.k)
        ms = (now() - t0) * 1000 / args.repeats
        print(f"{q!r}: first {first_ms:.3f} ms, then {ms:.3f} ms per query")
        for f in facts:
            print(f"  {f.score:7.3f} {f.id}: {f.text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def forget_words() -> None:
    """Drop the stems of words seen in questions (a visitor's words, phone digits included) from the
    caches; the packs' indexes keep their own terms, so nothing of the venue is lost."""
    _stem.cache_clear()
    _everyday_zipf.cache_clear()
