"""Barge-in or backchannel? Speech over the avatar's reply stops it only when it is a real turn.

"mhm", "ja", "genau", "okay", "yeah" tell the avatar to go on; a question or "stop" must stop it.
Without a transcript only the length decides (cfg.pipeline.barge_in_min_ms); with a partial
transcript the words decide: only backchannel words, and not too long, means go on.
"""
from __future__ import annotations

import re

# Words that acknowledge without taking the turn (German and English; ASR spellings included).
BACKCHANNEL_WORDS = frozenset({
    "mhm", "mm", "mmh", "mhmm", "hm", "hmm", "hmhm", "aha", "ah", "oh", "ach", "achso",
    "ja", "jo", "jap", "jawohl", "genau", "okay", "ok", "okey", "gut", "super", "stimmt", "klar", "richtig",
    "yeah", "ya", "yah", "yes", "yep", "yup", "right", "uh-huh", "sure", "cool", "great", "alright",
    "danke", "thanks",
})
# Acknowledgements of more than one word, and ASR spellings of "uh-huh".
_PHRASES = {"i see": "ok", "ach so": "ok", "alles klar": "ok", "all right": "ok", "uh huh": "uh-huh"}
MAX_BACKCHANNEL_MS = 1500.0  # longer than this is a turn whatever the words
MAX_WORDLESS_MS = 800.0      # speech the recogniser found no words in, shorter than this: "mhm", a laugh
DEFAULT_MIN_MS = 240.0       # cfg.pipeline.barge_in_min_ms
MAX_SHORT_MS = 600.0         # one or two words shorter than this are an acknowledgement the recogniser misread
# ... unless one of them asks for the turn ("Stopp!", "Wait", "Wie bitte?", "Where?")
TURN_WORDS = frozenset("""
    stop stopp wait warte warten halt moment nein no not nicht hey hallo hello what was wie where wo wann when
    who wer why warum how again nochmal noch repeat sorry entschuldigung excuse pardon bitte please help hilfe
""".split())

_WORD = re.compile(r"[\w'-]+", re.UNICODE)


def words_of(text: str) -> list[str]:
    return [w.strip("-'") for w in _WORD.findall(text.lower()) if w.strip("-'")]


def is_backchannel_text(text: str) -> bool:
    """True when every word of `text` is an acknowledgement ("ja genau", "okay, mhm", "I see")."""
    joined = f" {' '.join(words_of(text))} "
    for phrase, word in _PHRASES.items():
        joined = joined.replace(f" {phrase} ", f" {word} ")
    words = joined.split()
    return bool(words) and all(w in BACKCHANNEL_WORDS for w in words)


def is_backchannel(duration_ms: float, partial_text: str | None = "", min_ms: float = DEFAULT_MIN_MS,
                   transcribed: bool = False) -> bool:
    """Whether speech of `duration_ms` over the reply (with its partial transcript, if any) is a
    backchannel that must not stop playback. Called while the visitor speaks and at its end.
    `transcribed`: the recogniser has run on this speech, so an empty text means it heard no words
    ("mhm", a laugh) rather than that no transcript exists yet."""
    if duration_ms >= MAX_BACKCHANNEL_MS:
        return False
    text = (partial_text or "").strip()
    if text:
        if is_backchannel_text(text):
            return True
        # Whisper turns a short "genau" into "Get out", "right" into "life": a word or two this
        # short is an acknowledgement unless it asks for the turn
        words = words_of(text)
        return duration_ms < MAX_SHORT_MS and len(words) <= 2 and not any(w in TURN_WORDS for w in words)
    if transcribed:
        return duration_ms < MAX_WORDLESS_MS
    return duration_ms < min_ms


def backchannel_rule(min_ms: float = DEFAULT_MIN_MS):
    """The rule the barge-in decision uses: `words` is the partial transcript, None while there is none."""
    return lambda duration_ms, words: is_backchannel(duration_ms, words or "", min_ms, transcribed=words is not None)
