"""Questions as a speech recogniser delivers them: lower case, no punctuation, now and then a misheard word."""
from __future__ import annotations

import random
import re

_MISHEARD = {"de": {"wo": "so", "wann": "dann", "ist": "is", "die": "der", "gibt": "gib", "finde": "finden", "ich": "ick"},
             "en": {"where": "wear", "is": "his", "the": "a", "to": "two", "for": "four", "when": "then", "can": "could"}}


def asr_style(text: str, lang: str, rng: random.Random) -> str:
    """Lower case without punctuation, sometimes with one misheard word, like a speech recogniser's output."""
    out = re.sub(r"[?!.,;:]", "", text).lower()
    words = out.split()
    if words and rng.random() < 0.35:
        i = rng.randrange(len(words))
        if words[i] in _MISHEARD[lang]:
            words[i] = _MISHEARD[lang][words[i]]
        elif len(words[i]) > 5 and not any(ch.isdigit() for ch in words[i]):
            j = rng.randrange(1, len(words[i]) - 1)
            words[i] = words[i][:j] + words[i][j + 1:]
    return " ".join(words)
