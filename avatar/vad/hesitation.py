"""Adaptive endpointing: how long to wait for more speech, judged from the words so far.

After a complete question the visitor is done: answer sooner (cfg.vad.complete_end_ms). After a
hesitation ("ähm", "uh") or a trailing "und"/"and"/"the" the visitor is still thinking: wait longer
(cfg.vad.hesitation_end_ms). Anything else keeps the normal wait (cfg.vad.end_of_turn_ms).

Two rules (`vad.end_wait_rule`):
- "clauses" (default): a question is recognized where its clause starts, after a greeting or an
  "and" ("Excuse me, is there ...", "und was kostet das"), after a preposition ("bis wann hat ...",
  "up to what age ..."), from a German verb-first question ("habt ihr ...", "fährt ein Bus ..."), in
  the spoken contractions ("whats", "gibts"), and from a question word inside a clause where Whisper
  heard the sentence end ("... wondering whether the museum stays open late.", "... möchten wissen,
  ob wir uns anmelden müssen."). A question that ends on a separable German particle whose verb it
  holds ("Wann hat der Zoo im Winter auf") or on Whisper's "?" ("Can I bring my dog in?") is not a
  hesitation; words after which a question goes on ("where is", "can I", "habt ihr auch") keep the
  normal wait.
- "first_word" (before 2026-12-05): a question only when its first word asks or it ends in "?".
On the hand-written dev packs' questions (evals/turns/end_wait.py) the clauses rule takes 94 % of
English and 88 % of German questions as complete (first word: 87 / 79 %), and 34 / 28 % of the word
ends inside a question (first word: 42 / 38 %). On Whisper's partial text of long questions cut off
after a word (evals/turns/cut_texts.py) it takes more of the cuts as complete (English 33 % against
20 %, German 11 % against 8 %): a visitor who stops mid-sentence for longer than the short wait is
answered too soon more often (docs/PERF.md, "The end-of-turn wait").
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from avatar.settings import Vad

FILLERS = frozenset({
    "äh", "ähm", "öh", "öhm", "ehm", "hm", "hmm", "mh", "em", "ääh", "äähm",
    "uh", "um", "uhm", "umm", "erm", "er", "err", "ah", "eh",
})
# A turn does not end on these: conjunctions, articles, prepositions, possessives.
TRAILING_INCOMPLETE = frozenset({
    "und", "oder", "aber", "sondern", "denn", "weil", "dass", "ob", "wenn", "als", "also",
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "mein", "meine",
    "zum", "zur", "zu", "mit", "von", "vom", "für", "nach", "bei", "auf", "an", "am", "im", "in", "ins", "über",
    "and", "or", "but", "so", "because", "that", "if", "than", "then",
    "the", "a", "an", "my", "your", "to", "of", "for", "with", "from", "at", "on", "in", "into", "about", "by",
})
QUESTION_WORDS = frozenset({
    "wo", "wann", "was", "wie", "wer", "wen", "wem", "wessen", "warum", "wieso", "weshalb", "welche",
    "welcher", "welches", "welchen", "wieviel", "wohin", "woher", "gibt", "kann", "können", "darf", "haben",
    "hat", "ist", "sind", "muss", "bitte",
    "where", "when", "what", "how", "who", "whom", "whose", "why", "which", "can", "could", "may", "is",
    "are", "do", "does", "did", "will", "would", "should", "have", "has", "tell", "please",
})
# -- the clauses rule's words --
# spoken and written contractions, as the word they start with
CONTRACTED = {
    "what's": "what", "whats": "what", "where's": "where", "wheres": "where", "who's": "who", "whos": "who",
    "how's": "how", "hows": "how", "when's": "when", "what're": "what", "where're": "where", "isn't": "is",
    "aren't": "are", "don't": "do", "doesn't": "does", "can't": "can", "didn't": "did", "won't": "will",
    "gibt's": "gibt", "gibts": "gibt", "wie's": "wie", "wo's": "wo",
}
# words before a question's first word: greetings, "excuse me", "and", "so"
LEADING = frozenset({
    "and", "und", "so", "also", "but", "aber", "oder", "or", "then", "dann", "ok", "okay", "excuse", "me",
    "sorry", "hello", "hi", "hey", "entschuldigung", "entschuldigen", "sie", "hallo", "guten", "tag", "morgen",
    "abend", "good", "afternoon", "morning", "evening", "please", "bitte", "yes", "ja", "nein", "no", "well",
    "na", *FILLERS,
})
# prepositions before a question word ("bis wann", "ab wie vielen", "up to what age", "in which hall")
PREPOSITIONS = frozenset({
    "bis", "ab", "seit", "um", "in", "an", "auf", "für", "mit", "zu", "von", "aus", "nach",
    "up", "to", "from", "at", "for", "with", "since", "until", "till", "on", "of", "by",
})
ASKING_AFTER_PREPOSITION = QUESTION_WORDS | {"welchem", "wieviele"}
# finite verbs that open a German yes/no question (the English ones are in QUESTION_WORDS), and
# English auxiliaries QUESTION_WORDS lacks
VERB_FIRST = frozenset({
    "habt", "hast", "fährt", "fahren", "fahrt", "dürfen", "darfst", "kannst", "könnt", "könnte", "könnten",
    "musst", "müssen", "müsst", "soll", "sollen", "sollte", "brauche", "brauchen", "braucht", "kostet", "kosten",
    "bin", "bist", "seid", "wird", "werden", "verkauft", "verkaufen", "macht", "machen", "nehmt", "nehmen",
    "bietet", "bieten", "geht", "gehen", "kommt", "kommen", "gilt", "gelten", "würde", "hätte", "hätten",
    "habe", "schneidet", "hält", "halten", "liegt", "fängt", "beginnt", "läuft", "dauert", "reicht", "passt",
    "funktioniert", "klappt", "bekomme", "bekommt", "kriege", "krieg", "kriegt", "will", "möchte", "mag",
    "weißt", "wisst", "wissen", "steht", "führt", "fahre",
    "am", "was", "were", "shall", "must", "might", "need", "got",
})
# an indirect question ("we were wondering whether ...", "ich wollte fragen, ob ...")
INDIRECT = frozenset({"whether", "ob", "wondering"})
# question words that also open statements: inside an utterance they do not make it a question
AUXILIARIES = frozenset({
    "is", "are", "do", "does", "did", "can", "could", "may", "will", "would", "should", "have", "has", "tell",
    "please", "haben", "hat", "ist", "sind", "muss", "kann", "können", "darf", "gibt", "bitte",
})
# the subject after a question's verb: the question goes on ("can I", "habt ihr")
SUBJECTS = frozenset({
    "i", "you", "we", "he", "she", "it", "they", "there", "this", "that", "these", "those",
    "ich", "du", "wir", "ihr", "er", "sie", "es", "man",
})
# words a question does not end on ("habt ihr auch", "in welchem")
NOT_LAST = frozenset({"auch", "noch", "eigentlich", "schon", "mal", "etwa", "welchem", "wieviele", "vielen", "viele"})
# a German separable particle ends a question when its verb is in it ("Wann hat der Zoo auf")
PARTICLE_VERBS = {
    "auf": frozenset({"hat", "habt", "haben", "macht", "machen", "ist", "sind", "sperrt", "sperren", "schließt",
                      "schließen"}),
    "zu": frozenset({"hat", "habt", "haben", "macht", "machen", "ist", "sind", "schneidet", "schneiden"}),
    "an": frozenset({"fängt", "fangt", "fangen", "kommt", "kommen", "ruft", "rufen", "bietet", "bieten", "zieht",
                     "meldet", "melden", "melde", "nimmt", "nehmt", "nehmen"}),
    "ab": frozenset({"fährt", "fahren", "geht", "holt", "holen", "gibt", "geben", "gebe", "hebt", "heben", "läuft",
                     "legt", "legen"}),
    "aus": frozenset({"sieht", "sehen", "leiht", "leihen", "gibt", "geht", "fällt", "füllt", "füllen"}),
}
ALWAYS_PARTICLES = frozenset({"vorbei", "zurück", "los", "weg", "rein", "raus", "hin", "her"})
ASKING_VERBS = QUESTION_WORDS | VERB_FIRST
RULES = ("clauses", "first_word")

_WORD = re.compile(r"[\w'-]+", re.UNICODE)
_CLAUSE_END = re.compile(r"[.,;:!?]")


@dataclass(frozen=True)
class EndWait:
    ms: float
    reason: str  # complete | hesitation | default


def classify(text: str, cfg_vad: Vad) -> EndWait:
    """The end-of-turn wait for a partial transcript, with the reason."""
    stripped = (text or "").strip()
    rule = cfg_vad.end_wait_rule
    reason = (_by_clauses if rule == "clauses" else _by_first_word)(stripped)
    ms = {"complete": cfg_vad.complete_end_ms, "hesitation": cfg_vad.hesitation_end_ms}.get(reason, cfg_vad.end_of_turn_ms)
    return EndWait(float(ms), reason)


def end_wait_ms(text: str, cfg_vad: Vad) -> float:
    """The silence (ms) that confirms the end of the turn after `text` (set on Endpointer.end_wait_ms)."""
    return classify(text, cfg_vad).ms


def _words(text: str, contractions: bool = False) -> list[str]:
    words = [w.strip("-'") for w in _WORD.findall(text.lower())]
    return [CONTRACTED.get(w, w) if contractions else w for w in words if w]


def _by_first_word(stripped: str) -> str:
    words = _words(stripped)
    if not words:
        return "default"
    last = words[-1]
    if last in FILLERS or last in TRAILING_INCOMPLETE or stripped.endswith(("...", "…", "-", ",")):
        return "hesitation"
    asks = stripped.endswith("?") or words[0] in QUESTION_WORDS
    if asks and len(words) >= 2 and not (set(words[-2:]) & FILLERS):
        return "complete"
    return "default"


def _after_leading(words: list[str]) -> list[str]:
    """`words` from the first one that is not a greeting, an "and" or a filler."""
    start = 0
    while start < len(words) - 1 and words[start] in LEADING:
        start += 1
    return words[start:]


def _opens_question(words: list[str]) -> bool:
    if not words:
        return False
    if words[0] in ASKING_VERBS:
        return True
    at = 0
    while at < min(2, len(words) - 1) and words[at] in PREPOSITIONS:  # "bis wann", "up to what age"
        at += 1
    return at > 0 and words[at] in ASKING_AFTER_PREPOSITION


def _by_clauses(stripped: str) -> str:
    words = _words(stripped, contractions=True)
    if not words:
        return "default"
    last = words[-1]
    asked = stripped.endswith("?")
    body = _after_leading(words)
    clauses = (_after_leading(_words(c, contractions=True)) for c in _CLAUSE_END.split(stripped))
    opened = _opens_question(body) or any(_opens_question(c) for c in clauses)
    # a question word inside a clause ("... we would like to know how long it takes ...") counts only
    # where Whisper heard a sentence end: cut off mid-sentence it often writes one anyway, but less
    # often than not (evals/turns/cut_texts.py)
    indirect = stripped.endswith((".", "?", "!")) and any(
        w in INDIRECT or (w in QUESTION_WORDS and w not in AUXILIARIES) for w in words[1:-1])
    if last in FILLERS or stripped.endswith(("...", "…", "-", ",")):
        return "hesitation"
    separable = last in ALWAYS_PARTICLES or bool(PARTICLE_VERBS.get(last, frozenset()) & set(words[:-1]))
    if last in TRAILING_INCOMPLETE and not (asked or (separable and opened and len(body) >= 3)):
        return "hesitation"
    if set(words[-2:]) & FILLERS:
        return "default"
    if asked:
        return "complete" if len(words) >= 2 else "default"
    verb_last = any(w in INDIRECT for w in words[:-2])  # "..., ob wir uns anmelden müssen": a German clause ends on its verb
    if last in QUESTION_WORDS or (last in VERB_FIRST and not verb_last) or last in INDIRECT or last in NOT_LAST:
        return "default"  # "where is", "ich möchte wissen ob": the question is still to come
    if len(words) >= 2 and words[-2] in ASKING_VERBS and last in SUBJECTS:
        return "default"  # "can I", "habt ihr"
    return "complete" if (opened or indirect) and len(body) >= 2 else "default"
