"""The question's words as retrieval reads them: stopwords, stems, the cue words that say which kind
of fact is wanted, how common a word is in everyday language, and the shapes of compounds.

Pure text: no pack and no index (avatar/answer/retrieval/index.py holds the pack's side).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable

import snowballstemmer

from avatar.answer.text import fold_accents, words

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
        whats wheres hows whos thats theres heres im ive youre dont doesnt cant wont isnt arent didnt
    """.split()),  # the last line: speech recognition writes "what's" without its apostrophe
}

# Days, parts of the day and seasons say *when* something is asked about ("is the café open on weekdays in
# winter", "habt ihr am Wochenende offen"): they ask for hours, not for a thing the pack must name. (Not
# "may", "march", "fall", "spring": in a question they are more often something else.)
_CALENDAR = frozenset("""
    montag dienstag mittwoch donnerstag freitag samstag sonnabend sonntag montags dienstags mittwochs donnerstags
    freitags samstags sonntags wochenende wochenenden werktag werktage werktags wochentag wochentage wochentags
    feiertag feiertage feiertags morgens vormittags mittags nachmittags abends nachts
    frühling sommer herbst winter sommerferien
    januar februar märz april mai juni juli august september oktober november dezember
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays
    sundays weekend weekends weekday weekdays holiday holidays mornings afternoons evenings tonight
    summer autumn winter january february april june july august september october november december
""".split())
# Question words that say which kind of fact is wanted; they lift facts of that topic a little.
_TOPIC_CUES = {
    "hours": frozenset("wann geöffnet offen öffnungszeiten schließt uhr when open opening hours close closes closing time".split())
    | _CALENDAR,
    "prices": frozenset("kostet kosten preis preise teuer euro eintritt much cost costs price prices expensive euros fee".split()),
    "rooms": frozenset("wo wohin stock etage geschoss where floor".split()),
    "directions": frozenset("wo wohin komme hinkommen weg where way get".split()),
}
# Only questions about today get today's hours; the others get the week.
_TODAY_WORDS = frozenset("heute jetzt noch gerade momentan today now still currently tonight right".split())
_STEMMERS = {"de": "german", "en": "english"}
# A question word rarer than this in everyday language (wordfreq's Zipf scale: 4 = once per 100,000
# words) names the thing asked about; common words ("need", "bringen", "long") do not.
SPECIFIC_ZIPF = 4.0


# German separable particles: "abschließen", "ausleihen", "zurückgeben" are everyday verbs made of a particle
# and an everyday verb, however rare the whole word is in the frequency list.
PARTICLES_DE = ("ab", "an", "auf", "aus", "bei", "ein", "fest", "her", "hin", "los", "mit", "nach", "vor", "weg",
                "zu", "zurück", "zusammen", "um", "heraus", "herein", "raus", "rein", "hoch", "runter", "durch")


@lru_cache(maxsize=20_000)
def _stem(word: str, lang: str) -> str:
    if lang == "de":
        word = _participle_infinitive(_infinitive(word))
    return fold_accents(_stemmer(lang).stemWord(word))


def _infinitive(word: str) -> str:
    """A German particle verb's "zu" form as its infinitive ("anzumelden" -> "anmelden", "abzugeben" ->
    "abgeben"): the question says "die Hochzeit anzumelden", the fact "Anmeldung"."""
    if len(word) > 8 and word.endswith("en"):
        for particle in PARTICLES_DE:
            if word.startswith(particle + "zu") and len(word) - len(particle) - 2 >= 5 and particle != "zu":
                return particle + word[len(particle) + 2:]
    return word


# German prefixes whose verbs take no "ge" in the participle ("bezahlt", "erlaubt", "verkauft")
_INSEPARABLE_DE = ("be", "er", "ver", "zer", "ent", "emp")
# everyday words that look like weak participles and whose "infinitive" is a common word too
_NOT_PARTICIPLES_DE = frozenset({"gesamt", "insgesamt"})


def _participle_infinitive(word: str) -> str:
    """A German weak participle (or "-iert" form) as its infinitive, when that is an everyday word:
    "gefüttert" -> "füttern", "angemeldet" -> "anmelden", "reserviert" -> "reservieren", "erlaubt" ->
    "erlauben". The snowball stemmer keeps the "-t" ("gefuttert" against "futt" for "füttern"), so
    "Wann werden die Seehunde gefüttert?" found no word of a fact that says "füttern". A noun that
    only looks like one ("Gebiet", "Gesicht", "gesamt") is left alone: its "infinitive" is no
    common word, or a much rarer one than the word itself."""
    if len(word) < 6 or not word.endswith("t") or not word.isalpha() or word in _NOT_PARTICIPLES_DE:
        return word
    bodies = []
    for particle in ("", *PARTICLES_DE):
        rest = word[len(particle):]
        if word.startswith(particle) and rest.startswith("ge") and len(rest) >= 6:
            bodies.append(particle + rest[2:-1])  # an-ge-meld-et -> anmelde
    if word.startswith(("ge", *_INSEPARABLE_DE)) or word.endswith("iert"):
        bodies.append(word[:-1])  # gestatte-t, erlaub-t, reservier-t
    own = _known_zipf(word)
    best, best_zipf = word, 3.0  # an infinitive at least this common (wordfreq's Zipf scale)
    for body in bodies:
        verb = body + ("n" if body.endswith(("e", "er", "el")) and not body.endswith("ier") else "en")
        zipf = _known_zipf(verb)
        if own is not None and zipf is not None and zipf >= best_zipf and zipf >= own - 1.0:
            best, best_zipf = verb, zipf
    return best


def _known_zipf(word: str) -> float | None:
    """`_everyday_zipf` for German, None without the frequency list (then no word is rewritten)."""
    return _everyday_zipf(word, "de") if _has_wordfreq() else None


@lru_cache(maxsize=1)
def _has_wordfreq() -> bool:
    import importlib.util

    return importlib.util.find_spec("wordfreq") is not None


@lru_cache(maxsize=4)
def _stemmer(lang: str):
    return snowballstemmer.stemmer(_STEMMERS[lang])


def analyze(text: str, lang: str) -> list[str]:
    """Search terms of `text`: words without stopwords, stemmed, accents folded."""
    stop = STOPWORDS[lang]
    return [_stem(w, lang) for w in words(text) if w not in stop and len(w) > 1 or w.isdigit()]


class _CueTerms(dict):
    """The topic cue words' search terms per language, made at first use: stemming German reads
    wordfreq (participles), which must not load when this module is imported."""

    def __missing__(self, lang: str) -> frozenset[str]:
        terms = frozenset(analyze(" ".join(w for cue in _TOPIC_CUES.values() for w in cue), lang))
        self[lang] = terms
        return terms


_CUE_TERMS = _CueTerms()


def holds_part(term: str, terms: Iterable[str]) -> bool:
    """A fact word is a compound with the asked term at its start or end: "badeschluss" holds "bad" (ASR
    splits "bade schluss"), "saunazeit" holds "sauna". The one rule for "a fact word names a question
    word" of retrieval and the checks; a fact word inside the asked compound does not name it ("haus"
    in "krankenhaus": a hospital is asked), nor does one that holds the term in its middle ("park" in
    "sparkasse")."""
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


def asked_zipf(word: str, lang: str) -> float:
    """How common an asked word is, for telling the thing asked about from everyday words: a German
    particle verb in the infinitive counts as common as its verb ("abschließen" as "schließen")."""
    zipf = _everyday_zipf(word, lang)
    if lang != "de" or not word.endswith("en"):
        return zipf
    for particle in PARTICLES_DE:
        rest = word[len(particle):]
        if word.startswith(particle) and len(rest) >= 4:
            zipf = max(zipf, _everyday_zipf(rest, lang))
    return zipf


def _trigrams(term: str) -> frozenset[str]:
    padded = f"#{term}#"
    return frozenset(padded[i:i + 3] for i in range(len(padded) - 2))


def forget_words() -> None:
    """Drop the stems of words seen in questions (a visitor's words, phone digits included) from the
    caches; the packs' indexes keep their own terms, so nothing of the venue is lost."""
    _stem.cache_clear()
    _everyday_zipf.cache_clear()


def source_fact(reply: str, lang: str, facts):
    """The fact a reply was taken from: the one sharing most of its content words (None when none shares two)."""
    terms = set(analyze(reply, lang))
    best, best_n = None, 1
    for fact in facts:
        n = len(terms & set(analyze(fact.text, lang)))
        if n > best_n:
            best, best_n = fact, n
    return best
