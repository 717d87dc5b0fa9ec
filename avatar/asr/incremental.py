"""Incremental recognition: the growing utterance is transcribed while the visitor speaks.

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
at its first place in the pass's words, not at a similar spelling further on: "wir"/"Wie"). The final pass therefore costs what the tail costs
(the overlap, the unconfirmed words and Whisper's padding), not what the utterance costs.

The final transcript is the confirmed words plus the tail pass's words after the overlap. The
whole-utterance pass stays the fallback whenever the tail pass looks wrong, and the transcript says
why (`Transcript.fallback`): suspect (a loop, no end token), dropped (empty, noise, low confidence),
a mean token log probability below TAIL_MIN_LOGPROB (`tail_unsure`; off by default),
a hallucination, not hearing the overlap as confirmed (`tail_disagrees`: it disagrees with the
confirmed prefix), transcribing confirmed audio again, looping with the confirmed words, words that
end long before its audio does (`tail_short`: Whisper sometimes stops after the tail's first
sentence), or losing most of the words the last partial pass heard after the confirmed ones. Too
little confirmed yet (`none_confirmed`, `no_cut`) also means the whole pass. `Transcript.path` is
"tail" when the tail pass was used.

`LocalAgreement` is the bookkeeping alone (no model; tests drive it with scripted passes);
`IncrementalRecognizer` runs the passes on a recognizer (`WhisperASR`) for the voice loop;
`replay()` does what the loop does on a recording, offline (`avatar transcribe --incremental-compare`).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from typing import Sequence

import numpy as np

from avatar.asr.transcript import Transcript, Word
from avatar.asr.transcript_checks import is_hallucination, looks_looped, normalize
from avatar.cancel import NEVER, CancelToken
from avatar.frames import SAMPLE_RATE
from avatar.trace import now

MAX_OVERLAP = 5        # words: a pass that starts by repeating up to this many confirmed words has them removed
OVERLAP_NEAR_S = 1.0   # ... only when they lie this close to the cut (the confirmed audio's edge)
CUT_MARGIN_S = 0.12    # the cut lies this much before the overlap's first word (alignment is coarse; a cut into its onset makes Whisper stop early)
OVERLAP_S = 1.0        # the cut keeps at least this much of the confirmed words' audio (whole words) before the tail:
                       # the tail pass hears them again (acoustic context; the final pass checks them)
RIGHT_CONTEXT_S = 1.0  # a word is confirmed only if it ended this long before the end of the earlier pass's audio (Whisper heard what follows it)
MIN_TAIL_S = 0.3       # the cut never comes closer than this to the end of the audio heard so far
FIRST_COMMIT_S = 2.0   # no word is confirmed before a pass has heard this much: language ID needs it
FIRST_COMMIT_PROB = 0.9  # ... and both passes' language, this sure, the same (it is then kept for the utterance)
AGREE_PASSES = 2       # a word is confirmed when this many consecutive passes agree on it (and on all before it)
FIRST_AGREE_PASSES = 2  # ... the first words of an utterance (nothing confirmed yet)
MIN_WORD_PROB = 0.4    # ... and one of them gave it at least this probability (its tokens' mean)
TAIL_MIN_LOGPROB = -10.0  # the tail pass's mean token log probability below this: the whole pass decides
AGREE_SHARE = 0.5      # the tail pass must keep this share of the last partial pass's unconfirmed words (in order)
OVERLAP_AGREE = 0.6    # share of the overlap words the tail pass must hear again, in order
SIMILAR_RATIO = 0.6    # two spellings of one word (difflib ratio)
UNCOVERED_S = 1.0      # the tail pass's words must end at most this long before the end of its audio
HEAD = 160             # samples compared to tell that the audio is still the same utterance


def _key(word: str) -> str:
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
                 min_prob: float = MIN_WORD_PROB):
        self.min_words = max(1, int(min_words))
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
        self.cut = 0                   # samples: the next pass transcribes audio[cut:]
        self.overlap = 0               # confirmed words after the cut
        self.lang = ""
        self.lang_prob = 0.0
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
        and a sure language."""
        self.passes += 1
        offset = self.cut / SAMPLE_RATE
        new = [Word(w.text, w.start + offset, w.end + offset, w.prob) for w in words if _key(w.text)]
        new = self._drop_overlap(new, offset)
        if not new:
            return []  # a pass that heard nothing (dropped, a loop) says nothing about the words
        if self.lang and lang != self.lang:
            # a pass in another language than the confirmed words: nothing agrees, nothing confirmed
            self._history = []
            return []
        if lang != self._last_lang:
            self._history = []  # passes in another language do not vote with this one
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
                if (any(a is None or _key(a.text) != _key(b.text) for a in earlier)
                        or max(b.end, earlier[-1].end) > heard - self.right_context_s
                        or max(b.prob, *(a.prob for a in earlier)) < self.min_prob):
                    break
                agreed += 1
        if first and (agreed < self.min_words or lang_prob < FIRST_COMMIT_PROB
                      or audio_len < self.first_commit_s * SAMPLE_RATE):
            agreed = 0  # the first words wait until the language is sure
        confirmed = new[:agreed]
        keep = self.first_agree_passes - 1  # enough passes for either rule
        self._history = [*self._history, new][-keep:] if keep else []
        if confirmed:
            # every kept pass agreed on them (the voters) or is older: drop them from the votes
            self._history = [h[agreed:] if self._agrees(h, confirmed) else [] for h in self._history]
            if not self.lang:
                self.lang, self.lang_prob = lang, lang_prob
            self.committed.extend(confirmed)
            self._move_cut(audio_len)
        return confirmed

    @staticmethod
    def _agrees(h: list[Word], confirmed: list[Word]) -> bool:
        return len(h) >= len(confirmed) and all(_key(a.text) == _key(b.text) for a, b in zip(h, confirmed))

    def _drop_overlap(self, new: list[Word], offset: float) -> list[Word]:
        """A pass hears the last confirmed word again at the start of its audio (the cut lies before
        it): drop what repeats the confirmed words, and any word that lies within their audio."""
        if not self.committed or not new or new[0].start > offset + OVERLAP_NEAR_S:
            return new
        if self.overlap:
            again = [w.text for w in self.committed[-self.overlap:]]
            matched, at = _match_start(again, [w.text for w in new[:len(again) + 2]])
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
                      tuple(w.text for w in self.pending), self.passes, head, self.overlap)


class IncrementalRecognizer:
    """Incremental recognition of one utterance at a time for the voice loop.

    `partial()` is called by the partial-transcript thread with the utterance so far; `commit()`
    gives a final pass what is confirmed at that moment; `final()` runs the tail pass (and the
    whole-utterance fallback) on a recognizer. A new utterance (different first samples, or
    `reset()`) starts afresh."""

    def __init__(self, min_words: int = 1, right_context_s: float = RIGHT_CONTEXT_S, overlap_s: float = OVERLAP_S,
                 agree_passes: int = AGREE_PASSES, first_agree_passes: int = FIRST_AGREE_PASSES,
                 min_prob: float = MIN_WORD_PROB, tail_min_logprob: float = TAIL_MIN_LOGPROB):
        self._agree = LocalAgreement(min_words, right_context_s=right_context_s, overlap_s=overlap_s,
                                     agree_passes=agree_passes, first_agree_passes=first_agree_passes,
                                     min_prob=min_prob)
        self.tail_min_logprob = tail_min_logprob
        self._lock = threading.Lock()
        self._generation = 0
        self._head = b""

    def reset(self) -> None:
        with self._lock:
            self._agree.reset()
            self._generation += 1
            self._head = b""

    def partial(self, asr, audio: np.ndarray, lang: str | None = None, prior: str | None = None,
                cancel: CancelToken = NEVER) -> Transcript:
        """One pass over the audio after the confirmed words; returns the best guess so far
        (confirmed words + this pass's others) as a partial transcript."""
        head = np.asarray(audio[:HEAD]).tobytes()
        with self._lock:
            if head != self._head or self._agree.cut >= len(audio):
                self._agree.reset()  # a new utterance (or the audio was trimmed under us)
                self._generation += 1
                self._head = head
            generation, cut, context = self._generation, self._agree.cut, self._agree.context
            fixed = lang or self._agree.lang or None
        tr = asr.transcribe(audio[cut:], lang=fixed, partial=True, cancel=cancel,
                            prior=prior, context=context, words=True)
        with self._lock:
            if generation != self._generation:
                return tr  # reset while it ran: its words belong to no utterance now
            if tr.dropped or tr.fallback:
                words: tuple[Word, ...] = ()
            else:
                words = tr.words
            self._agree.insert(words, tr.lang, tr.lang_prob, len(audio))
            text = self._agree.hypothesis()
            committed = len(self._agree.committed)
            lang_now = self._agree.lang or tr.lang
        return replace(tr, text=text, lang=lang_now, committed_words=committed,
                       dropped="" if text else (tr.dropped or "empty"))

    def commit(self) -> Commit:
        with self._lock:
            return self._agree.snapshot(self._head)

    def final(self, asr, audio: np.ndarray, commit: Commit | None, lang: str | None = None, prior: str | None = None,
              cancel: CancelToken = NEVER) -> Transcript:
        """The final transcript of `audio`: the confirmed words of `commit` plus a pass over the
        audio after them; the whole-utterance pass when nothing is confirmed or the tail pass
        looks wrong (then `fallback` says why)."""
        t0 = now()
        reason = usable(commit, audio)
        if reason:
            tr = asr.transcribe(audio, lang=lang, cancel=cancel, prior=prior)
            if reason != "none_confirmed":
                tr.fallback = reason
            return tr
        tail_lang = lang or commit.lang
        tail = asr.transcribe(audio[commit.cut:], lang=tail_lang, cancel=cancel, context=commit.context)
        reason, tail_words = judge_tail(commit, tail, len(audio) - commit.cut, self.tail_min_logprob)
        if reason:
            whole = asr.transcribe(audio, lang=lang, cancel=cancel, prior=prior)
            whole.fallback = reason
            whole.encoded_s = round(whole.encoded_s + tail.encoded_s, 3)
            whole.ms = (now() - t0) * 1000.0
            return whole
        text = " ".join([*commit.words, *tail_words]).strip()
        return replace(tail, text=text, raw_text=text, lang=tail_lang, path="tail", dropped="",
                       committed_words=len(commit.words), ms=(now() - t0) * 1000.0)


def incremental_rules(cfg) -> dict:
    """The confirmation and tail rules of the settings (`asr.incremental_*`), as keyword arguments
    of IncrementalRecognizer and replay()."""
    a = cfg.asr
    return {"right_context_s": a.incremental_right_context_ms / 1000, "overlap_s": a.incremental_overlap_ms / 1000,
            "agree_passes": int(a.incremental_agree_passes),
            "first_agree_passes": int(a.incremental_first_agree_passes),
            "min_prob": float(a.incremental_min_word_prob), "tail_min_logprob": float(a.incremental_tail_min_logprob)}


def usable(commit: Commit | None, audio: np.ndarray) -> str:
    """"" when the tail pass can run on `commit`, else why not."""
    if commit is None or not commit.words:
        return "none_confirmed"
    if commit.head and np.asarray(audio[:HEAD]).tobytes() != commit.head:
        return "other_audio"
    if commit.cut <= 0 or commit.cut >= len(audio):
        return "no_cut"
    return ""


def similar(a: str, b: str) -> bool:
    """The same word, give or take an ending or a spelling ("ticket"/"tickets", "Stadt"/"Stadth")."""
    a, b = _key(a), _key(b)
    return a == b or (min(len(a), len(b)) >= 3 and SequenceMatcher(None, a, b).ratio() >= SIMILAR_RATIO)


def repeated_start(committed: Sequence[str], words: Sequence[str]) -> int:
    """How many of `words`' first words repeat the end of the confirmed words (up to MAX_OVERLAP)."""
    done = [_key(w) for w in committed[-MAX_OVERLAP:]]
    head = [_key(w) for w in words[:MAX_OVERLAP]]
    for n in range(min(len(done), len(head)), 0, -1):
        if done[-n:] == head[:n]:
            return n
    return 0


def judge_tail(commit: Commit, tail: Transcript, tail_samples: int,
               min_logprob: float = TAIL_MIN_LOGPROB) -> tuple[str, list[str]]:
    """("", the tail's words after the confirmed ones) when the tail pass can be trusted, else
    (why the whole utterance must be decoded, [])."""
    if tail.fallback:
        return tail.fallback, []  # suspect (a loop, no end token) or too long for the trimmed window
    if tail.dropped:
        return f"tail_{tail.dropped}", []  # it should at least hear the overlap word again
    if tail.avg_logprob < min_logprob:
        return "tail_unsure", []  # the decoder was unsure of the tail: the whole question's context may help
    if is_hallucination(tail.text):
        return "tail_hallucination", []
    words = [w for w in tail.text.split() if _key(w)]
    # the tail's audio starts with the overlap (the last confirmed words): the pass must hear
    # most of them again, as confirmed, at its start (a fragment of the word before may come
    # first), else it disagrees with the confirmed words
    overlap = list(commit.words[len(commit.words) - commit.overlap:]) if commit.overlap else []
    matched, at = _match_start(overlap, words[:len(overlap) + 2])
    if overlap and (matched < OVERLAP_AGREE * len(overlap) or at < 0):
        return "tail_disagrees", []
    rest = words[at + 1:]
    done = [_key(w) for w in commit.words]
    keys = [_key(w) for w in rest]
    if len(done) >= 3 and len(keys) >= 3 and _contains(done, keys[:3]):
        return "tail_repeats_confirmed", []  # it transcribed confirmed audio again
    if looks_looped(" ".join([*done, *keys])):
        return "loop", []
    # the words must reach the end of the speech: Whisper sometimes stops after the first
    # sentence of the tail ("door." and nothing of "what time is it, cancel timer")
    if tail.covered_s and tail.covered_s < tail_samples / SAMPLE_RATE - UNCOVERED_S:
        return "tail_short", []
    pending = [_key(w) for w in commit.pending if _key(w)]
    if len(pending) >= 3 and _in_order(pending, keys) < AGREE_SHARE * len(pending):
        return "tail_disagrees_partial", []  # it lost most of the words the last partial pass heard there
    return "", rest


def _match_start(overlap: list[str], head: list[str]) -> tuple[int, int]:
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
                options.append((n + 1, e + (_key(o) == _key(h)), -(j - 1)))
            best[i][j] = max(options)
    n, _, last = best[-1][-1]
    return (n, -last) if n else (0, -1)


def _in_order(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence of two word lists (similar words count as the same)."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if similar(x, y) else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def _contains(seq: list[str], sub: list[str]) -> bool:
    n = len(sub)
    return any(seq[i:i + n] == sub for i in range(len(seq) - n + 1))


def replay(asr, pcm: np.ndarray, interval_ms: float = 300.0, first_ms: float = 500.0, lang: str | None = None,
           prior: str | None = None, speech_end: int | None = None,
           paced: bool = True, right_context_s: float = RIGHT_CONTEXT_S,
           overlap_s: float = OVERLAP_S, **rules) -> tuple[Commit, list[Transcript], Transcript]:
    """The voice loop's partial passes and final pass on a recording, offline: a pass on the audio
    heard so far, the next one `interval_ms` after it started or at once when it took longer (in
    stream time: a slow pass leaves fewer passes, as in the loop; `paced=False`: every
    `interval_ms` of audio whatever the passes take, the same passes on any machine), none after
    `speech_end` (samples; default the end), then the final pass on the whole of `pcm`. (The loop's
    passes under 1.5 s are plain ones that confirm nothing, avatar/pipeline/partials.py; here every
    pass from `first_ms` on is an incremental one.)
    Returns (what was confirmed, the partials, the final)."""
    inc = IncrementalRecognizer(right_context_s=right_context_s, overlap_s=overlap_s, **rules)
    end = len(pcm) if speech_end is None else min(len(pcm), speech_end)
    t = int(first_ms * SAMPLE_RATE / 1000)
    partials = []
    while t < end:
        tr = inc.partial(asr, pcm[:t], lang=lang, prior=prior)
        partials.append(tr)
        step = max(interval_ms, tr.ms) if paced else interval_ms
        t += int(step * SAMPLE_RATE / 1000)
    commit = inc.commit()
    return commit, partials, inc.final(asr, pcm, commit, lang=lang, prior=prior)
