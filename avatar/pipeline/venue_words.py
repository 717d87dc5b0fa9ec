"""The venue's words for the recognizer: names and keywords of the knowledge pack, per language.

The ASR stage knows nothing of knowledge packs; the pipeline reads the pack and hands the recognizer
plain word lists (`WhisperASR.set_vocabulary`), most important first, since the recognizer keeps only
as many as fit its prompt: the venue's name, then names the facts use in both languages (a street,
a stop, a car park: words no dictionary has), then the facts' keywords, one per fact in turn so that
every topic is represented before any fact gets its second word.

A pack's keywords carry no language ("words visitors may use ... in either language"). A keyword
belongs to the language whose sentence of the fact contains it, else whose sentences of the whole
pack contain it (or its first five letters: "abends" meets "Abend"); one found in neither is German
when it has a German letter, else takes the language of its block: operators write a fact's keywords
language by language, so the list is split where it contradicts the placed words least (and then the
look of the word least: capitalised or ending like a German verb or noun is German).
"""
from __future__ import annotations

import re
from typing import Sequence

_WORD = re.compile(r"[^\W\d_][\w'’.-]*", re.UNICODE)
_DE_LETTERS = re.compile(r"[äöüßÄÖÜ]")
_DE_ENDINGS = ("en", "eln", "ern", "ung", "lich", "isch")  # infinitives, nouns, adjectives
# Capitalised English words that are not names (sentence starts, days, months).
_EN_COMMON = frozenset("""
the a an and or on in at by for from to of is are we you it there please every each our your this that
monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
saturdays sundays january february march april may june july august september october november december
i if when where what how which since until unfortunately taking public groups food prams plan
""".split())


def venue_words(pack, languages: Sequence[str] = ("de", "en")) -> dict[str, list[str]]:
    """{lang: [word or name, ...]} for the languages asked, most important first, no duplicates."""
    entries = list(getattr(pack, "entries", ()))
    names = _shared_names(entries)
    corpus = {lang: " ".join(e.text(lang) for e in entries) for lang in ("de", "en")}
    placed = [keyword_languages(e.keywords, e.text("de"), e.text("en"), corpus["de"], corpus["en"])
              for e in entries]
    out: dict[str, list[str]] = {}
    for lang in languages:
        first = [pack.display_name(lang), pack.name] if hasattr(pack, "display_name") else [pack.name]
        per_fact = [[k for k, l in zip(e.keywords, langs) if l == lang] for e, langs in zip(entries, placed)]
        out[lang] = _unique([*first, *names, *_round_robin(per_fact)])
    return out


def keyword_languages(keywords: Sequence[str], de_text: str, en_text: str,
                      de_corpus: str = "", en_corpus: str = "") -> list[str]:
    """'de' or 'en' for each keyword of a fact with these two sentences (and the pack's texts)."""
    strong: list[str | None] = []
    for word in keywords:
        key = word.casefold()
        lang = _evidence(key, de_text, en_text) or _evidence(key, de_corpus, en_corpus, stem=True)
        if lang is None and _DE_LETTERS.search(word):
            lang = "de"
        strong.append(lang)
    # the rest by the list's layout: one language's block, then the other's, split where it
    # contradicts the placed words least, and then the look of the words (capitalised nouns,
    # German endings)
    weak = ["de" if w[:1].isupper() or w.casefold().endswith(_DE_ENDINGS) else "en" for w in keywords]
    n = len(keywords)
    best: tuple[int, list[str]] | None = None
    for first, second in (("de", "en"), ("en", "de")):
        for k in range(n + 1):
            block = [first] * k + [second] * (n - k)
            cost = sum(10 * (s is not None and s != b) + (s is None and w != b)
                       for s, w, b in zip(strong, weak, block))
            if best is None or cost <= best[0]:  # a tie: the later split (German blocks run long)
                best = (cost, block)
    block = best[1] if best else []
    return [s or b for s, b in zip(strong, block)]


def _evidence(key: str, de: str, en: str, stem: bool = False) -> str | None:
    if stem and len(key) > 5:
        key = key[:5]
    in_de, in_en = _contains(de, key), _contains(en, key)
    if in_de != in_en:
        return "de" if in_de else "en"
    return None


def _shared_names(entries) -> list[str]:
    """Capitalised words inside an English sentence that the German sentence has too: names
    ("Marktplatz", "Bahnhofstraße", "Parkhaus Altstadt"), which Whisper cannot know."""
    names: list[str] = []
    for e in entries:
        de, en = e.text("de"), e.text("en")
        for sentence in re.split(r"(?<=[.;:!?])\s+", en):
            tokens = _WORD.findall(sentence)
            run: list[str] = []
            for i, tok in enumerate(tokens + [""]):
                word = tok.strip(".-'’")
                named = (i > 0 and word[:1].isupper() and word.casefold() not in _EN_COMMON
                         and _contains(de, word.casefold()))
                if named:
                    run.append(word)
                elif run:
                    names.append(" ".join(run))
                    run = []
    return names


def _contains(text: str, key: str) -> bool:
    """The word (or a German compound's part, 4+ letters) occurs in the text, ignoring case."""
    text = text.casefold()
    if len(key) >= 4:
        return key in text
    return key in _WORD.findall(text)


def _round_robin(lists: list[list[str]]) -> list[str]:
    out: list[str] = []
    depth = max((len(l) for l in lists), default=0)
    for i in range(depth):
        out.extend(l[i] for l in lists if i < len(l))
    return out


def _unique(words) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for w in words:
        w = " ".join(str(w).split())
        if w and w.casefold() not in seen:
            seen.add(w.casefold())
            out.append(w)
    return out
