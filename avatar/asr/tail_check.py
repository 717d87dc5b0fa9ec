"""Is the tail pass to be trusted? The final transcript of incremental recognition is the confirmed
words plus the tail pass's words after the overlap; this module decides when it must be the
whole-utterance pass instead, and says why (`Transcript.fallback`).

The whole-utterance pass stays the fallback whenever the tail pass looks wrong: suspect (a loop,
no end token), dropped (empty, noise, low confidence), a mean token log probability below
TAIL_MIN_LOGPROB (`tail_unsure`; off by default), a hallucination, not hearing the overlap as
confirmed (`tail_disagrees`: it disagrees with the confirmed prefix), transcribing confirmed audio
again, looping with the confirmed words, words that end long before its audio does (`tail_short`:
Whisper sometimes stops after the tail's first sentence), or losing most of the words the last
partial pass heard after the confirmed ones. Too little confirmed yet (`none_confirmed`, `no_cut`)
also means the whole pass, and so does an utterance heard in a language whose words are not
confirmed while spoken (`language`: asr.incremental_languages).
"""
from __future__ import annotations

import numpy as np

from avatar.asr.agreement import Commit, head_of, match_start, similar, word_key
from avatar.asr.transcript import Transcript
from avatar.asr.transcript_checks import is_hallucination, looks_looped
from avatar.frames import SAMPLE_RATE

TAIL_MIN_LOGPROB = -10.0  # the tail pass's mean token log probability below this: the whole pass decides
AGREE_SHARE = 0.5      # the tail pass must keep this share of the last partial pass's unconfirmed words (in order)
OVERLAP_AGREE = 0.6    # share of the overlap words the tail pass must hear again, in order
UNCOVERED_S = 1.0      # the tail pass's words must end at most this long before the end of its audio


def usable(commit: Commit | None, audio: np.ndarray) -> str:
    """"" when the tail pass can run on `commit`, else why not."""
    if commit is not None and commit.barred:
        return "language"  # an utterance in a language whose words are not confirmed while spoken
    if commit is None or not commit.words:
        return "none_confirmed"
    if commit.head and head_of(audio) != commit.head:
        return "other_audio"
    if commit.cut <= 0 or commit.cut >= len(audio):
        return "no_cut"
    return ""


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
    words = [w for w in tail.text.split() if word_key(w)]
    # the tail's audio starts with the overlap (the last confirmed words): the pass must hear
    # most of them again, as confirmed, at its start (a fragment of the word before may come
    # first), else it disagrees with the confirmed words
    overlap = list(commit.words[len(commit.words) - commit.overlap:]) if commit.overlap else []
    matched, at = match_start(overlap, words[:len(overlap) + 2])
    if overlap and (matched < OVERLAP_AGREE * len(overlap) or at < 0):
        return "tail_disagrees", []
    rest = words[at + 1:]
    done = [word_key(w) for w in commit.words]
    keys = [word_key(w) for w in rest]
    if len(done) >= 3 and len(keys) >= 3 and _contains(done, keys[:3]):
        return "tail_repeats_confirmed", []  # it transcribed confirmed audio again
    if looks_looped(" ".join([*done, *keys])):
        return "loop", []
    # the words must reach the end of the speech: Whisper sometimes stops after the first
    # sentence of the tail ("door." and nothing of "what time is it, cancel timer")
    if tail.covered_s and tail.covered_s < tail_samples / SAMPLE_RATE - UNCOVERED_S:
        return "tail_short", []
    pending = [word_key(w) for w in commit.pending if word_key(w)]
    if len(pending) >= 3 and _in_order(pending, keys) < AGREE_SHARE * len(pending):
        return "tail_disagrees_partial", []  # it lost most of the words the last partial pass heard there
    return "", rest


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
