"""Adaptive endpointing: how long to wait for more speech, judged from the words so far.

After a complete question the visitor is done: answer sooner (cfg.vad.complete_end_ms). After a
hesitation ("ähm", "uh") or a trailing "und"/"and"/"the" the visitor is still thinking: wait longer
(cfg.vad.hesitation_end_ms). Anything else keeps the normal wait (cfg.vad.end_of_turn_ms).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

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
_WORD = re.compile(r"[\w'-]+", re.UNICODE)


@dataclass(frozen=True)
class EndWait:
    ms: float
    reason: str  # complete | hesitation | default


def classify(text: str, cfg_vad: Any) -> EndWait:
    """The end-of-turn wait for a partial transcript, with the reason."""
    stripped = (text or "").strip()
    words = [w.strip("-'") for w in _WORD.findall(stripped.lower())]
    words = [w for w in words if w]
    if not words:
        return EndWait(float(cfg_vad.end_of_turn_ms), "default")
    last = words[-1]
    if last in FILLERS or last in TRAILING_INCOMPLETE or stripped.endswith(("...", "…", "-", ",")):
        return EndWait(float(cfg_vad.hesitation_end_ms), "hesitation")
    asks = stripped.endswith("?") or words[0] in QUESTION_WORDS
    if asks and len(words) >= 2 and not (set(words[-2:]) & FILLERS):
        return EndWait(float(cfg_vad.complete_end_ms), "complete")
    return EndWait(float(cfg_vad.end_of_turn_ms), "default")


def end_wait_ms(text: str, cfg_vad: Any) -> float:
    """The silence (ms) that confirms the end of the turn after `text` (set on Endpointer.end_wait_ms)."""
    return classify(text, cfg_vad).ms
