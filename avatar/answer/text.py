"""Language helpers for typed and transcribed text: word splitting and German/English detection."""
from __future__ import annotations

import re
import unicodedata

# Words as ASR and typing produce them: letters and digits; hyphens and apostrophes split words
# so that "Museums-Café" and "museum's" meet their parts.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)

# Frequent short words of each language (the detector's evidence; not the retrieval stopwords).
_DE_MARKERS = frozenset("""
der die das den dem des ein eine einen einem einer und oder ist sind war hat haben wird kann können
ich du sie wir ihr es er mich mir sich uns nicht kein keine auch noch schon nur wie wo wann was wer
warum welche welcher welches wieviel viel viele gibt gibt's bitte danke gern gerne ja nein hallo
tschüss heute morgen jetzt hier dort im in am um zum zur vom von mit für auf aus bei nach über unter
zu bis ab ob dass wenn aber denn doch mal guten tag abend wiedersehen geöffnet offen kostet eintritt
darf man meine mein dein sehr etwas nichts alles kann's geht gehts hier's toilette
""".split())
_EN_MARKERS = frozenset("""
the a an and or is are was were has have will can could would should i you he she we they it me my
your our their not no also still only how where when what who why which much many there please
thank thanks yes hello hi bye goodbye today tomorrow now here in on at to from with for of by about
into do does did is it's what's where's don't can't open opening cost costs price ticket tickets
may get go the this that these those any some good morning evening afternoon toilet toilets
""".split())
_DE_CHARS = re.compile(r"[äöüß]")
MARKERS = {"de": _DE_MARKERS, "en": _EN_MARKERS}


def words(text: str) -> list[str]:
    """Lower-case words of `text` without punctuation (the shape an ASR transcript has)."""
    return _WORD.findall(text.lower())


def fold_accents(word: str) -> str:
    """'café' -> 'cafe': typed accents and ASR spelling meet on the same key."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def detect_language(text: str, default: str = "de", choices: tuple[str, ...] = ("de", "en")) -> str:
    """'de' or 'en' for a short typed sentence, from marker words and German letters.

    Ties (no evidence, e.g. a single name) go to `default`, the kiosk's first language.
    """
    tokens = words(text)
    de = sum(1.0 for w in tokens if w in _DE_MARKERS)
    en = sum(1.0 for w in tokens if w in _EN_MARKERS)
    de += 1.5 * len(_DE_CHARS.findall(text.lower()))
    if de > en:
        lang = "de"
    elif en > de:
        lang = "en"
    else:
        lang = default
    return lang if lang in choices else (choices[0] if choices else default)
