"""Incremental recognition: the growing utterance is transcribed while the visitor speaks.

Partial passes run on the audio after the cut while the visitor speaks; words two passes agree on
are confirmed and the cut moves past them (avatar/asr/agreement.py: `LocalAgreement`, `Commit`).
The final pass after the end of speech encodes only the audio after the cut (the overlap, the
unconfirmed words and Whisper's padding), so it costs what the tail costs, not what the utterance
costs. The final transcript is the confirmed words plus the tail pass's words after the overlap,
or the whole-utterance pass when the tail pass looks wrong (avatar/asr/tail_check.py:
`judge_tail`, `usable`; `Transcript.fallback` says why). `Transcript.path` is "tail" when the tail
pass was used.

`IncrementalRecognizer` runs the passes on a recognizer (`WhisperASR`) for the voice loop;
`replay()` does what the loop does on a recording, offline (`avatar transcribe --incremental-compare`).
The agreement and tail-check names stay importable from here: the loop and the tests import them so.
"""
from __future__ import annotations

import threading
from dataclasses import replace
from typing import Sequence

import numpy as np

from avatar.asr.agreement import (AGREE_PASSES, FIRST_AGREE_PASSES, MIN_WORD_PROB, OVERLAP_S, RIGHT_CONTEXT_S,
                                  Commit, LocalAgreement, head_of, similar)
from avatar.asr.tail_check import TAIL_MIN_LOGPROB, judge_tail, usable
from avatar.asr.transcript import Transcript, Word
from avatar.cancel import NEVER, CancelToken
from avatar.frames import SAMPLE_RATE
from avatar.trace import now

__all__ = ["Commit", "IncrementalRecognizer", "LocalAgreement", "incremental_rules", "judge_tail", "replay", "similar",
           "usable"]


class IncrementalRecognizer:
    """Incremental recognition of one utterance at a time for the voice loop.

    `partial()` is called by the partial-transcript thread with the utterance so far; `commit()`
    gives a final pass what is confirmed at that moment; `final()` runs the tail pass (and the
    whole-utterance fallback) on a recognizer. A new utterance (different first samples, or
    `reset()`) starts afresh."""

    def __init__(self, min_words: int = 1, right_context_s: float = RIGHT_CONTEXT_S, overlap_s: float = OVERLAP_S,
                 agree_passes: int = AGREE_PASSES, first_agree_passes: int = FIRST_AGREE_PASSES,
                 min_prob: float = MIN_WORD_PROB, tail_min_logprob: float = TAIL_MIN_LOGPROB,
                 languages: Sequence[str] | None = None):
        self._agree = LocalAgreement(min_words, right_context_s=right_context_s, overlap_s=overlap_s,
                                     agree_passes=agree_passes, first_agree_passes=first_agree_passes,
                                     min_prob=min_prob, languages=languages)
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
        head = head_of(audio)
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

    def confirming(self, audio: np.ndarray) -> bool:
        """Whether a pass over `audio` should still be an incremental one: not once a pass heard this
        utterance in a language whose words are not confirmed (`asr.incremental_languages`) before any
        was confirmed; its passes can then be plain ones (no word times, the slower cadence), as the
        final pass will be the whole one."""
        with self._lock:
            return not (self._agree.barred and head_of(audio) == self._head)

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
            "min_prob": float(a.incremental_min_word_prob), "tail_min_logprob": float(a.incremental_tail_min_logprob),
            "languages": tuple(a.incremental_languages)}


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
