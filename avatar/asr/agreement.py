"""Local agreement: which words of the partial passes are confirmed, and where the next pass starts (the cut).

Each partial pass transcribes the audio after the cut (with the confirmed words before the cut as
its prompt) and aligns its words to the audio. A word is confirmed ("committed") when two
consecutive passes agree on it and on everything before it (local agreement, the policy of
whisper_streaming; AGREE_PASSES, FIRST_AGREE_PASSES: more passes), the earlier of the two heard at
least RIGHT_CONTEXT_S of audio after it, one of them gave it at least MIN_WORD_PROB (the mean
probability of its tokens: two passes agreeing on a word Whisper was unsure of, "schon begun" for
"Entschuldigung", confirmed it wrongly), and, for the first words, both passes had 2 s of audio and
the same, sure language (kept for the rest of the utterance). The cut then moves to a word
boundary (word times from the alignment) about OVERLAP_S before the end of the confirmed words: the
next pass, and the final one after the end of speech, encode only the audio after the cut, and hear
the last confirmed words again (the overlap: acoustic context for the tail, and a check; it is found
at its first place in the pass's words, not at a similar spelling further on: "wir"/"Wie").

`LocalAgreement` is the bookkeeping alone (no model; tests drive it with scripted passes); `Commit`
is what the final pass needs of it (avatar/asr/tail_check.py judges that pass, avatar/asr/incremental.py
runs the passes). The word matching both use (`similar`, `match_start`) is here.
"""
from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Sequence

import numpy as np

from avatar.asr.transcript import Word
from avatar.asr.transcript_checks import normalize
from avatar.frames import SAMPLE_RATE

MAX_OVERLAP = 5        # words: a pass that starts by repeating up to this many confirmed words has them removed
OVERLAP_NEAR_S = 1.0   # ... only when they lie this close to the cut (the confirmed audio's edge)
CUT_MARGIN_S = 0.12    # the cut lies this much before the overlap's first word (alignment is coarse; a cut into its onset makes Whisper stop early)
OVERLAP_S = 1.0        # the cut keeps at least this much of the confirmed words' audio (whole words) before the tail (the kiosk: asr.incremental_overlap_ms):
                       # the tail pass hears them again (acoustic context; the final pass checks them)
RIGHT_CONTEXT_S = 1.0  # a word is confirmed only if it ended this long before the end of the earlier pass's audio (Whisper heard what follows it; the kiosk: asr.incremental_right_context_ms)
MIN_TAIL_S = 0.3       # the cut never comes closer than this to the end of the audio heard so far
FIRST_COMMIT_S = 2.0   # no word is confirmed before a pass has heard this much: language ID needs it
FIRST_COMMIT_PROB = 0.9  # ... and both passes' language, this sure, the same (it is then kept for the utterance)
AGREE_PASSES = 2       # a word is confirmed when this many consecutive passes agree on it (and on all before it)
FIRST_AGREE_PASSES = 2  # ... the first words of an utterance (nothing confirmed yet)
MIN_WORD_PROB = 0.4    # ... and one of them gave it at least this probability (its tokens' mean)
STEADY_PASSES = 4      # ... or this many consecutive passes gave it, unsure each time: Whisper keeps hearing the
                       # same word ("and" at 0.3 in every pass); without this one such word held back the whole rest
SIMILAR_RATIO = 0.6    # two spellings of one word (difflib ratio)
HEAD = 160             # samples compared to tell that the audio is still the same utterance


def head_of(audio) -> bytes:
    """The utterance's first HEAD samples: a pass, a commit and the final audio with the same head
    belong to the same utterance."""
    return np.asarray(audio[:HEAD]).tobytes()


def word_key(word: str) -> str:
    return normalize(word)


@dataclass(frozen=True)
class Commit:
    """What the final pass needs of the confirmed part: its words, where their audio ends, their language."""
    words: tuple[str, ...]
    cut: int                      # samples of the utterance's audio the words cover (the tail starts here)
    lang: str
    lang_prob: float
    pending: tuple[str, ...] = ()  # the last pass's words after the confirmed ones (not yet agreed on)
    passes: int = 0
    head: bytes = b""
    overlap: int = 1               # the last this many confirmed words lie after the cut (heard again by the tail pass)
    barred: bool = False           # heard in a language whose words are not confirmed (asr.incremental_languages)

    @property
    def text(self) -> str:
        return " ".join(self.words)

    @property
    def context(self) -> str:
        """The confirmed words before the cut: the tail pass's prompt (the overlap is in its audio)."""
        return " ".join(self.words[:len(self.words) - self.overlap])


class LocalAgreement:
    """Confirmed words, the last passes' unconfirmed words, and the cut (local agreement of two or more passes)."""

    def __init__(self, min_words: int = 1, first_commit_s: float = FIRST_COMMIT_S,
                 right_context_s: float = RIGHT_CONTEXT_S, overlap_s: float = OVERLAP_S,
                 agree_passes: int = AGREE_PASSES, first_agree_passes: int = FIRST_AGREE_PASSES,
                 min_prob: float = MIN_WORD_PROB, languages: Sequence[str] | None = None):
        self.min_words = max(1, int(min_words))
        # the languages whose words may be confirmed (None: any); an utterance in another is left
        # whole to the final pass (nothing confirmed: `usable` says "language")
        self.languages = frozenset(languages) if languages is not None else None
        self.first_commit_s = first_commit_s
        self.right_context_s = right_context_s
        self.overlap_s = overlap_s
        self.agree_passes = max(2, int(agree_passes))
        self.first_agree_passes = max(self.agree_passes, int(first_agree_passes))
        self.min_prob = min_prob
        self.reset()

    def reset(self) -> None:
        self.committed: list[Word] = []
        self._history: list[list[Word]] = []  # the last passes' words after the confirmed ones, oldest first
        self._steady: list[tuple[str, int]] = []  # per pending word: its key, in how many passes in a row (with all before it)
        self.cut = 0                   # samples: the next pass transcribes audio[cut:]
        self.overlap = 0               # confirmed words after the cut
        self.lang = ""
        self.lang_prob = 0.0
        self.barred = False  # a pass heard a language not in `languages` before anything was confirmed
        self.passes = 0
        self._last_lang = ""  # the previous pass's language
        self._last_len = 0    # the previous pass's audio length in samples

    @property
    def pending(self) -> list[Word]:
        """The previous pass's words after the confirmed ones (not yet agreed on)."""
        return self._history[-1] if self._history else []

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.committed)

    @property
    def context(self) -> str:
        """The confirmed words before the cut (the overlap's lie after it)."""
        return " ".join(w.text for w in self.committed[:len(self.committed) - self.overlap])

    def hypothesis(self) -> str:
        """Confirmed words plus the last pass's others: what the visitor said so far, best guess."""
        return " ".join(w.text for w in [*self.committed, *self.pending])

    def insert(self, words: Sequence[Word], lang: str, lang_prob: float, audio_len: int) -> list[Word]:
        """A new pass over audio[cut:]: its words (times in seconds from `cut`), language and the
        audio length it saw. Returns the words it confirmed (and moves the cut past them).

        A word is confirmed when this pass and the `agree_passes - 1` before it (consecutive, in
        the same language) all have it, and everything before it, as their next words; the pass
        before this one heard `right_context_s` of audio after it; and at least one of them gave it
        `min_prob` (one pass unsure of a word's case or the comma before it, "and" 0.49, is common;
        all of them unsure is what a misheard word looks like). The first words need `first_agree_passes` passes, 2 s of audio
        and a sure language, one of `languages`."""
        self.passes += 1
        offset = self.cut / SAMPLE_RATE
        new = [Word(w.text, w.start + offset, w.end + offset, w.prob) for w in words if word_key(w.text)]
        new = self._drop_overlap(new, offset)
        if not new:
            return []  # a pass that heard nothing (dropped, a loop) says nothing about the words
        if not self.committed and self.languages is not None and lang not in self.languages:
            # however unsure: Whisper hears the German bench questions as English at 1.5 s (0.53-0.86)
            # and as German from ~2 s on; an English question it hears as English (1.00) throughout
            self.barred = True
        if self.lang and lang != self.lang:
            # a pass in another language than the confirmed words: nothing agrees, nothing confirmed
            self._history, self._steady = [], []
            return []
        if lang != self._last_lang:
            self._history, self._steady = [], []  # passes in another language do not vote with this one
        self._steady = _steady(self._steady, new)
        self._last_lang = lang
        heard, self._last_len = self._last_len / SAMPLE_RATE, audio_len
        first = not self.committed
        need = self.first_agree_passes if first else self.agree_passes
        voters = self._history[len(self._history) - (need - 1):] if len(self._history) >= need - 1 else None
        agreed = 0
        if voters is not None:
            for i, b in enumerate(new):
                earlier = [v[i] if i < len(v) else None for v in voters]
                # the same word in every voting pass, one the previous pass heard whole (not cut
                # off by the end of its audio), and one at least one of them was sure enough of
                if (any(a is None or word_key(a.text) != word_key(b.text) for a in earlier)
                        or max(b.end, earlier[-1].end) > heard - self.right_context_s
                        or (max(b.prob, *(a.prob for a in earlier)) < self.min_prob
                            and self._steady[i][1] < STEADY_PASSES)):
                    break
                agreed += 1
        if first and (agreed < self.min_words or lang_prob < FIRST_COMMIT_PROB
                      or audio_len < self.first_commit_s * SAMPLE_RATE or self.barred):
            agreed = 0  # the first words wait until the language is sure (and one whose words may be confirmed)
        confirmed = new[:agreed]
        keep = self.first_agree_passes - 1  # enough passes for either rule
        self._history = [*self._history, new][-keep:] if keep else []
        if confirmed:
            # every kept pass agreed on them (the voters) or is older: drop them from the votes
            self._history = [h[agreed:] if self._agrees(h, confirmed) else [] for h in self._history]
            self._steady = self._steady[agreed:]
            if not self.lang:
                self.lang, self.lang_prob = lang, lang_prob
            self.committed.extend(confirmed)
            self._move_cut(audio_len)
        return confirmed

    @staticmethod
    def _agrees(h: list[Word], confirmed: list[Word]) -> bool:
        return len(h) >= len(confirmed) and all(word_key(a.text) == word_key(b.text) for a, b in zip(h, confirmed))

    def _drop_overlap(self, new: list[Word], offset: float) -> list[Word]:
        """A pass hears the last confirmed word again at the start of its audio (the cut lies before
        it): drop what repeats the confirmed words, and any word that lies within their audio."""
        if not self.committed or not new or new[0].start > offset + OVERLAP_NEAR_S:
            return new
        if self.overlap:
            again = [w.text for w in self.committed[-self.overlap:]]
            matched, at = match_start(again, [w.text for w in new[:len(again) + 2]])
            if matched:
                new = new[at + 1:]
        else:
            new = new[repeated_start([w.text for w in self.committed], [w.text for w in new]):]
        edge = self.committed[-1].end
        while new and (new[0].start + new[0].end) / 2 < edge - CUT_MARGIN_S:
            new = new[1:]
        return new

    def _move_cut(self, audio_len: int) -> None:
        """Cut in the gap before the confirmed words of the last OVERLAP_S (at least the last word):
        the next pass hears them again, as acoustic context (and the final pass checks that it
        heard them as confirmed: the overlap)."""
        words = self.committed
        end = words[-1].end
        k = len(words) - 1
        while k > 0 and end - words[k].start < self.overlap_s:
            k -= 1
        if k > 0:  # else the confirmed words are not yet longer than the overlap: no cut yet
            first, before = words[k], words[k - 1].end
            at = (before + first.start) / 2 if first.start > before else first.start - CUT_MARGIN_S
            cut = min(int(round(at * SAMPLE_RATE)), audio_len - int(MIN_TAIL_S * SAMPLE_RATE))
            if cut > self.cut:
                self.cut = cut
        # the confirmed words whose audio lies after the cut (all of them before the first cut):
        # the next pass hears them, so they must not be in its prompt
        self.overlap = sum(1 for w in words if (w.start + w.end) / 2 * SAMPLE_RATE > self.cut)

    def snapshot(self, head: bytes = b"") -> Commit:
        return Commit(tuple(w.text for w in self.committed), self.cut, self.lang, self.lang_prob,
                      tuple(w.text for w in self.pending), self.passes, head, self.overlap, self.barred)


def similar(a: str, b: str) -> bool:
    """The same word, give or take an ending or a spelling ("ticket"/"tickets", "Stadt"/"Stadth")."""
    a, b = word_key(a), word_key(b)
    return a == b or (min(len(a), len(b)) >= 3 and SequenceMatcher(None, a, b).ratio() >= SIMILAR_RATIO)


def repeated_start(committed: Sequence[str], words: Sequence[str]) -> int:
    """How many of `words`' first words repeat the end of the confirmed words (up to MAX_OVERLAP)."""
    done = [word_key(w) for w in committed[-MAX_OVERLAP:]]
    head = [word_key(w) for w in words[:MAX_OVERLAP]]
    for n in range(min(len(done), len(head)), 0, -1):
        if done[-n:] == head[:n]:
            return n
    return 0


def match_start(overlap: list[str], head: list[str]) -> tuple[int, int]:
    """(how many overlap words the head repeats in order, the head index of the last one; -1: none).
    Of the matchings with the most words, one with the most exact spellings, and of those the one
    that ends earliest: a short word "similar" to the last overlap word further on ("wir" and "Wie",
    "whether" and "the") must not swallow the words between."""
    # best[i][j]: (words matched, of them exact, -(head index of the last match)) of overlap[:i], head[:j]
    best = [[(0, 0, 1)] * (len(head) + 1) for _ in range(len(overlap) + 1)]
    for i, o in enumerate(overlap, 1):
        for j, h in enumerate(head, 1):
            options = [best[i - 1][j], best[i][j - 1]]
            if similar(o, h):
                n, e, _ = best[i - 1][j - 1]
                options.append((n + 1, e + (word_key(o) == word_key(h)), -(j - 1)))
            best[i][j] = max(options)
    n, _, last = best[-1][-1]
    return (n, -last) if n else (0, -1)


def _steady(before: list[tuple[str, int]], words: Sequence[Word]) -> list[tuple[str, int]]:
    """For each word of a pass: its key and how many passes in a row had it there, with every word
    before it the same too (a change at one place starts the count again from there on)."""
    out: list[tuple[str, int]] = []
    for i, w in enumerate(words):
        key = word_key(w.text)
        same = i < len(before) and before[i][0] == key and (i == 0 or out[i - 1][1] > 1)
        out.append((key, before[i][1] + 1 if same else 1))
    return out
