"""Word accuracy (1 - word error rate) of a transcript against a reference, for benches."""
from __future__ import annotations

from typing import Sequence

from avatar.asr.transcript_checks import normalize


def words(text: str) -> list[str]:
    return normalize(text.replace("%", " percent").replace("-", " ")).split()


def word_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(substitutions + insertions + deletions, reference word count) by edit distance over words."""
    ref = words(reference)
    return edit_distance(ref, words(hypothesis)), len(ref)


def edit_distance(ref: Sequence, hyp: Sequence) -> int:
    """Substitutions + insertions + deletions that turn `ref` into `hyp` (words, letters, ...)."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h))
        prev = cur
    return prev[-1]
