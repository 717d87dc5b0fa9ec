"""Checks on Whisper's output: its known hallucinations on silence and noise, repetition loops, and
the rule that drops a transcript Whisper itself doubts (`why_dropped`)."""
from __future__ import annotations

import re
import unicodedata
import zlib

# Whole transcripts Whisper produces on silence, noise or breathing (it was trained on subtitled
# video): never a visitor's question, so a turn ending in one of these gets no reply.
HALLUCINATIONS = {
    # German
    "untertitel im auftrag des zdf", "untertitel im auftrag des zdf für funk",
    "untertitelung im auftrag des zdf", "untertitel der amara org community",
    "untertitelung aufgrund der amara org community", "untertitel von stephanie geiges",
    "vielen dank", "vielen dank fürs zuschauen", "danke fürs zuschauen", "vielen dank für ihre aufmerksamkeit",
    "bis zum nächsten mal", "tschüss", "das war's", "copyright wdr", "musik", "applaus", "ich danke ihnen",
    # English
    "you", "thank you", "thank you very much", "thanks for watching", "thank you for watching",
    "thank you so much for watching", "please subscribe", "like and subscribe", "bye", "bye bye",
    "see you next time", "i'll see you next time", "subtitles by the amara org community",
    "music", "applause", "silence",
}
# prefixes: the subtitle credits come with endless variants ("... für funk, 2017")
HALLUCINATION_PREFIXES = ("untertitel im auftrag des", "untertitelung im auftrag des", "untertitel der amara",
                          "untertitel von ", "subtitles by", "copyright ", "© ", "amara org")


def normalize(text: str) -> str:
    """Lower case, punctuation and symbols removed, whitespace collapsed."""
    text = unicodedata.normalize("NFC", text).lower()
    text = re.sub(r"[^\w\s']", " ", text)
    return " ".join(text.replace("_", " ").split())


def is_hallucination(text: str) -> bool:
    if text.strip().startswith(("©", "[", "(", "♪", "*")):  # sound descriptions and credits, never speech
        return True
    norm = normalize(text)
    return bool(norm) and (norm in HALLUCINATIONS or norm.startswith(HALLUCINATION_PREFIXES))


def compression_ratio(text: str) -> float:
    """How well the text compresses: a looped transcript compresses far better than speech."""
    data = text.encode("utf-8")
    return len(data) / max(1, len(zlib.compress(data)))


def repeated_span(words: list[str]) -> tuple[int, int] | None:
    """(start, length) of the first word span repeated back to back: 3+ words twice, or 1-2 words 4 times."""
    n = len(words)
    for k in range(1, n // 2 + 1):
        need = 2 if k >= 3 else 4
        for i in range(0, n - need * k + 1):
            span = words[i:i + k]
            if all(words[i + j * k:i + (j + 1) * k] == span for j in range(1, need)):
                return i, k
    return None


TRAILING_COPY_WORDS = 5  # the last this many words (or more) said earlier in the transcript, word for word: a loop


def trailing_copy(words: list[str]) -> int | None:
    """Where the transcript's trailing copy starts: its last TRAILING_COPY_WORDS or more words also
    stand, word for word, earlier in it (the decoder started the sentence again and was cut off by
    the end of the audio: "... for the children's tour? Is there somewhere we can leave our coats and
    where do we"). People rarely say five words twice in one question; None when there is no such copy."""
    n = len(words)
    for k in range(n // 2, TRAILING_COPY_WORDS - 1, -1):
        tail = words[n - k:]
        if any(words[i:i + k] == tail for i in range(0, n - 2 * k + 1)):
            return n - k
    return None


def looks_looped(text: str) -> bool:
    words = normalize(text).split()
    return (repeated_span(words) is not None or trailing_copy(words) is not None
            or (len(text) > 40 and compression_ratio(text) > 2.4))


def cut_loop(text: str) -> str:
    """The text up to the end of the first copy of a repeated span, or before a trailing copy (for
    partials, which get no retry)."""
    words = text.split()
    keys = [normalize(w) for w in words]
    found = repeated_span(keys)
    if found:
        i, k = found
        return " ".join(words[:i + k])
    start = trailing_copy(keys)
    return " ".join(words[:start]) if start is not None else text


def settle_repeats(text: str) -> tuple[str, bool]:
    """(text, still suspect). The whole utterance said again and again is cut to one copy (the
    decoder ran on into the padding); a loop starting mid-sentence stays suspect: decode again."""
    found = repeated_span(normalize(text).split())
    if found and found[0] == 0:
        text, found = cut_loop(text), None
    return text, found is not None or looks_looped(text)


# A transcript Whisper itself doubts: with a high no-speech probability and a low log-prob it is
# noise, with a very low log-prob alone its words are guesses.
NO_SPEECH_DROP = 0.6           # with a low log-prob too: noise, not speech (Whisper's own rule)
NOISE_LOGPROB = -1.0
LOW_CONFIDENCE_LOGPROB = -1.5  # below this even with speech: the words are guesses


def why_dropped(tr) -> str:
    """Why a Transcript is dropped: empty, a known hallucination, noise or low confidence ("" to keep it)."""
    if not tr.raw_text.strip() or not any(c.isalnum() for c in tr.raw_text):
        return "empty"
    if is_hallucination(tr.raw_text):
        return "hallucination"
    return logprob_doubt(tr.no_speech_prob, tr.avg_logprob)


def logprob_doubt(no_speech_prob: float, avg_logprob: float) -> str:
    """Why Whisper's own probabilities doubt a transcript: noise or low confidence ("" when not)."""
    if no_speech_prob > NO_SPEECH_DROP and avg_logprob < NOISE_LOGPROB:
        return "noise"
    if avg_logprob < LOW_CONFIDENCE_LOGPROB:
        return "low_confidence"
    return ""
