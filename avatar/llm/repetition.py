"""Runaway repetition: a reply that has fallen into a loop ("the the the", "ab ab ab ab") is cut."""
from __future__ import annotations

from typing import Sequence

MAX_NGRAM = 8        # longest repeating unit looked for
MIN_REPEATS = 3      # a unit must repeat this often in a row ...
MIN_LOOP_TOKENS = 8  # ... and the loop must span this many tokens (so "!!" or "00" in a number pass)


def loop_cut(tokens: Sequence[int], search_from: int = 0) -> int | None:
    """Where to cut `tokens` so one copy of a repeating loop is left, or None without a loop.

    Only loops that end at or after `search_from` are looked for (earlier text was already
    checked), and the cut never falls before `search_from` (that text was already emitted).
    """
    for end in range(max(search_from, 1), len(tokens) + 1):
        for n in range(1, MAX_NGRAM + 1):
            repeats = max(MIN_REPEATS, -(-MIN_LOOP_TOKENS // n))
            span = n * repeats
            if span > end:
                continue
            unit = tokens[end - n:end]
            if all(tokens[end - span + i] == unit[i % n] for i in range(span)):
                return max(end - span + n, search_from)
    return None
