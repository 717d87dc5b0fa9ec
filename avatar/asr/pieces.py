"""Audio longer than one Whisper window, in pieces: where to cut, and how to join the pieces' words.

Whisper hears 30 s at a time, and the kiosk's trimmed window (speech plus `asr.pad_frames` of
padding) about 24 s. Longer audio is cut into pieces of at most `piece_s` seconds, each cut in the
last pause of the piece's second half (between sentences). Where a piece has no pause, the cut
falls at its quietest 300 ms, and the next piece starts `OVERLAP_S` earlier, so a word cut in two
is heard whole in the next piece; `join_overlap` then drops the words both pieces heard.
"""
from __future__ import annotations

import numpy as np

from avatar.frames import SAMPLE_RATE

PIECE_S = 20.0  # under the trimmed window's ~24 s (asr.pad_frames = 600), so each piece takes the fast path
OVERLAP_S = 1.0  # a cut inside speech: the next piece starts this much earlier
_FRAME = SAMPLE_RATE // 50  # 20 ms
_QUIET_FRAMES = 15  # a pause: the quietest 300 ms
_TAIL_WORDS = 10  # the overlap is looked for among this many last words of the text so far


def split_points(pcm: np.ndarray, piece_s: float = PIECE_S) -> list[tuple[int, int, bool]]:
    """(start, end, at_pause) sample ranges covering `pcm` (int16 scale), each at most `piece_s`
    long; every cut but the last is in the middle of the last pause (300 ms quiet) of the piece's
    second half, or at its quietest 300 ms when it has none: `at_pause` False, the cut may fall
    inside a word."""
    limit = int(piece_s * SAMPLE_RATE)
    n_frames = len(pcm) // _FRAME
    frames = np.asarray(pcm[: n_frames * _FRAME], np.float64).reshape(n_frames, _FRAME)
    rms = np.sqrt(np.mean(frames ** 2, axis=1)) if n_frames else np.zeros(0)
    # a pause is quiet against the file's own speech level, and quiet in absolute terms (-50 dBFS) always
    quiet_level = max(0.1 * float(np.percentile(rms, 90)) if n_frames else 0.0, 32768 * 10 ** (-50 / 20))
    window = np.ones(_QUIET_FRAMES) / _QUIET_FRAMES
    pieces, start = [], 0
    while len(pcm) - start > limit:
        lo, hi = (start + limit // 2) // _FRAME, (start + limit) // _FRAME - _QUIET_FRAMES
        smooth = np.convolve(rms[lo:hi + _QUIET_FRAMES], window, mode="valid") if hi > lo else np.zeros(0)
        if smooth.size:
            quiet = np.flatnonzero(smooth <= quiet_level)
            # the last pause keeps pieces long (fewer calls); without one, the quietest moment
            best = int(quiet[-1]) if quiet.size else int(np.argmin(smooth))
            cut = (lo + best + _QUIET_FRAMES // 2) * _FRAME
            at_pause = bool(quiet.size)
        else:
            cut, at_pause = start + limit, False
        cut = min(max(cut, start + _FRAME), start + limit)
        pieces.append((start, cut, at_pause))
        start = cut
    pieces.append((start, len(pcm), True))
    return pieces


def _key(word: str) -> str:
    return "".join(c for c in word.casefold() if c.isalnum())


def join_overlap(before: str, after: str) -> str:
    """`before` + `after`, where `after` was decoded from audio that began up to OVERLAP_S before
    `before`'s audio ended: the words both heard are said once, in `after`'s version (it heard
    them whole; `before` may end in a word cut in two).

    The overlap is the placement of `after`'s first words on `before`'s last ones with the most
    words in common (at least two, or one when a single word overlaps); none: plain concatenation."""
    old, new = before.split(), after.split()
    if not old or not new:
        return " ".join(old + new)
    old_keys, new_keys = [_key(w) for w in old], [_key(w) for w in new]
    best_at, best_hits = None, 0
    for at in range(max(0, len(old) - _TAIL_WORDS), len(old)):
        span = len(old) - at
        hits = sum(1 for a, b in zip(old_keys[at:], new_keys[:span]) if a and a == b)
        enough = hits >= 2 or (hits == 1 and span == 1) or (hits == span - 1 and hits >= 1 and span <= 3)
        if enough and hits > best_hits:
            best_at, best_hits = at, hits
    if best_at is None:
        return " ".join(old + new)
    return " ".join(old[:best_at] + new)
