"""Schema check: the reply record is well formed (language, mood, speakable text), never repaired.

The record is decoded into a fixed skeleton by structured infilling, so it is well formed by
construction when the decoder keeps its contract; this check is the proof. A record that fails is
re-decoded under the constraint by the checker, not patched here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from avatar.answer.checks.candidate import Candidate
from avatar.answer.checks.relevance import SOCIAL_REPLY_WORDS
from avatar.trace import now

LANGUAGES = ("de", "en")
DEFAULT_MOODS = ("neutral", "happy", "sorry", "info")
# pronouns and articles: a reply made only of them says nothing ("Ich", "The")
_EMPTY_WORDS = frozenset("ich du er sie es wir ihr man der die das den dem des ein eine einen einem "
                            "i you he she it we they the a an".split())
SHORT_REPLY_WORDS = 3  # below this ("Super", "Ganz okay") a reply needs no final punctuation; "Das kann ich" does
# special tokens of any tokenizer (<eos>, [MASK], <|im_end|>) and markup a voice must not read out
_SPECIAL = re.compile(r"<\|[^|]*\|>|</?[A-Za-z_][\w-]*>|\[(?:MASK|SEP|CLS|PAD|UNK|BOS|EOS)\]", re.IGNORECASE)
_MARKUP = re.compile(r"[*_#`~{}\\|<>\[\]]|https?://")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SENTENCE_END = re.compile(r"[.!?…][\"'“”»«)]*\s*$")
_WORD = re.compile(r"[\wÄÖÜäöüß']+")
_CLAUSE_BREAK = re.compile(r"[.,;:!?…]")  # "Thank you. You too." repeats nothing
# a few frequent function words per language: enough to notice a reply in the wrong language
_FUNCTION_WORDS = {
    "de": frozenset("der die das und ist sind nicht ein eine wir sie ich im in am um bis von mit für zu auf es den dem des gibt haben hat leider bitte".split()),
    "en": frozenset("the and is are not a an we you i in at on to from with for of it there have has until sorry please".split()),
}


# words only one of the languages has ("am" is English too: "9 am", "I am")
_EXCLUSIVE_WORDS = {"de": _FUNCTION_WORDS["de"] - _FUNCTION_WORDS["en"] - {"am", "die"},
                    "en": _FUNCTION_WORDS["en"] - _FUNCTION_WORDS["de"]}


@dataclass
class SchemaResult:
    ok: bool
    problems: list[str] = field(default_factory=list)
    ms: float = 0.0


def text_language(text: str) -> str | None:
    """de or en when the function words say so clearly (two more hits than the other), else None."""
    words = [w.lower() for w in _WORD.findall(text)]
    hits = {lang: sum(w in fw for w in words) for lang, fw in _FUNCTION_WORDS.items()}
    if hits["de"] >= hits["en"] + 2:
        return "de"
    if hits["en"] >= hits["de"] + 2:
        return "en"
    return None


# words German or English may legitimately say twice in a row ("die, die ...", "that that")
_MAY_DOUBLE = frozenset("die der das that had is".split())


def mixes_languages(text: str) -> bool:
    """Both languages' function words at least twice ("Geschichte ist der into another check the ..."):
    a decode that lost its language half way. A quoted English name has no two function words."""
    words = [w.lower() for w in _WORD.findall(text)]
    return all(sum(w in fw for w in words) >= 2 for fw in _EXCLUSIVE_WORDS.values())


# "... in the basement. d." / "... kostenlos. F.": a lone letter after a real sentence end
# (a word of 3+ letters before the period, so "z. B." and initials are not fragments)
_FRAGMENT = re.compile(r"[^\W\d_]{3,}[.!?]\s+[^\W\d_][.!?]*$")


def _repeats(words: list[str]) -> bool:
    """A decoder loop: a word twice in a row ("fährt fährt"; "die die" only thrice), or a 2-4 word run twice."""
    for i in range(len(words) - 1):
        if words[i] == words[i + 1] and (words[i] not in _MAY_DOUBLE or words[i + 1:i + 3] == [words[i]] * 2):
            return True
    for n in (2, 3, 4):
        for i in range(len(words) - 2 * n + 1):
            if words[i:i + n] == words[i + n:i + 2 * n]:
                return True
    return False


def check_schema(candidate: Candidate, question_lang: str, moods=DEFAULT_MOODS, max_chars: int = 300,
                 max_words: int = 60) -> SchemaResult:
    t0 = now()
    problems: list[str] = []
    text = candidate.text or ""
    if candidate.lang not in LANGUAGES:
        problems.append(f"language {candidate.lang!r} is not de or en")
    elif candidate.lang != question_lang:
        problems.append(f"language {candidate.lang} differs from the question's {question_lang}")
    if candidate.decode_info.get("well_formed") is False:  # the decoder's own record parse: header or <eos> missing
        problems.append("record not well formed (header tokens or closing <eos> missing)")
    if candidate.mood not in moods:
        problems.append(f"mood {candidate.mood!r} is not one of {', '.join(moods)}")
    stripped = text.strip()
    words = [w.lower() for w in _WORD.findall(stripped)]
    if not stripped or not words:
        problems.append("empty text")
    else:
        if len(stripped) > max_chars:
            problems.append(f"text longer than {max_chars} characters")
        if len(words) > max_words:
            problems.append(f"text longer than {max_words} words")
        if _SPECIAL.search(stripped):
            problems.append("special token in text")
        elif _MARKUP.search(stripped):
            problems.append("markup in text")
        if _CONTROL.search(stripped):
            problems.append("control character in text")
        # a cut-off reply is the failure here; a short interjection ("Ganz okay") needs no period
        cut = candidate.decode_info.get("stopped") == "length"
        if not _SENTENCE_END.search(stripped) and (len(words) >= SHORT_REPLY_WORDS or cut):
            problems.append("text does not end like a sentence")
        if not any(len(w) >= 3 for w in words) and not all(w in SOCIAL_REPLY_WORDS for w in words):
            problems.append("no word of three letters or more")  # "id"; "Hi" is judged by relevance
        elif all(w in _EMPTY_WORDS for w in words):
            problems.append("no content word")  # "Ich", "The": a decode that stopped before saying anything
        if _FRAGMENT.search(stripped):
            problems.append("a sentence fragment after the reply's end")
        if any(_repeats([w.lower() for w in _WORD.findall(part)]) for part in _CLAUSE_BREAK.split(stripped)):
            problems.append("repeated words (decoder loop)")
        spoken = text_language(stripped)
        if spoken and spoken != question_lang:
            problems.append(f"text reads as {spoken}, the question was {question_lang}")
        elif mixes_languages(stripped):
            problems.append("text mixes German and English")
    return SchemaResult(not problems, problems, (now() - t0) * 1000.0)
