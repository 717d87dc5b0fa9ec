"""Mouth shapes (visemes) for the avatar: from phoneme timings, from phonemes alone, or from loudness.

A viseme track is a list of (offset_s, duration_s, viseme) inside one clause's audio, with
neighbouring equal shapes merged. The set is small on purpose: the avatar draws each one.
"""
from __future__ import annotations

import numpy as np

VISEMES = ("rest", "A", "E", "I", "O", "U", "M", "F", "L", "S")
Track = list[tuple[float, float, str]]

# IPA symbols (as espeak-ng writes them for piper and for its own synthesis) to mouth shapes.
_IPA = {}
for _chars, _shape in (
    ("aɑɐæʌáàâ", "A"), ("eɛəɜɚœøɘ", "E"), ("iɪjyʏɨ", "I"), ("oɔɒɵ", "O"), ("uʊwɯʉ", "U"),
    ("mbpɱ", "M"), ("fvʋ", "F"), ("lɫɭʎ", "L"),
    ("szʃʒçxtdnkgŋɹrʁɾʀhθðɡʔcɟqχʂʐɕʑ", "S"),
):
    for _c in _chars:
        _IPA[_c] = _shape
# Marks that belong to the phoneme before them (stress, length, tie bars).
_MODIFIERS = set("ˈˌːˑ̃͡‿̩̯")
_PAUSES = set(" ,.;:!?_^$-")


def viseme_of(phoneme: str) -> str | None:
    """The mouth shape of one phoneme, "rest" for pauses, None for a mark that extends the last one."""
    for ch in phoneme:
        if ch in _MODIFIERS:
            continue
        if ch in _IPA:
            return _IPA[ch]
        if ch in _PAUSES:
            return "rest"
    return None if phoneme and all(c in _MODIFIERS for c in phoneme) else "rest"


def from_timed_phonemes(timed: list[tuple[str, float, float]], total_s: float) -> Track:
    """Visemes from (phoneme, offset_s, duration_s), clipped to the audio and merged."""
    track: Track = []
    for phoneme, offset, duration in timed:
        shape = viseme_of(phoneme)
        if shape is None:
            if track:  # stress/length mark: the previous shape lasts longer
                o, d, v = track[-1]
                track[-1] = (o, max(d, offset + duration - o), v)
            continue
        _append(track, offset, duration, shape)
    return _clip(track, total_s)


def from_phonemes(phonemes: list[str], total_s: float, lead_s: float = 0.0) -> Track:
    """Visemes when only the phoneme sequence is known: spread over the audio, vowels twice as long."""
    shapes = [s for s in (viseme_of(p) for p in phonemes) if s is not None]
    if not shapes or total_s <= lead_s:
        return [(0.0, total_s, "rest")] if total_s > 0 else []
    weights = np.array([2.0 if s in "AEIOU" else 1.0 for s in shapes])
    durations = weights / weights.sum() * (total_s - lead_s)
    track: Track = []
    t = lead_s
    for shape, d in zip(shapes, durations):
        _append(track, t, float(d), shape)
        t += float(d)
    return _clip(track, total_s)


def from_loudness(pcm: np.ndarray, sample_rate: int, frame_s: float = 0.04) -> Track:
    """Visemes from loudness alone: open mouth when loud, half open when soft, rest when silent."""
    if len(pcm) == 0:
        return []
    x = pcm.astype(np.float32) / 32768.0
    hop = max(1, int(frame_s * sample_rate))
    n = int(np.ceil(len(x) / hop))
    x = np.pad(x, (0, n * hop - len(x)))
    rms = np.sqrt(np.mean(x.reshape(n, hop) ** 2, axis=1))
    peak = float(rms.max()) or 1.0
    track: Track = []
    for i, level in enumerate(rms / peak):
        shape = "A" if level > 0.5 else "E" if level > 0.2 else "rest"
        _append(track, i * frame_s, frame_s, shape)
    return _clip(track, len(pcm) / sample_rate)


def _append(track: Track, offset: float, duration: float, shape: str) -> None:
    if duration <= 0:
        return
    if track and track[-1][2] == shape and abs(track[-1][0] + track[-1][1] - offset) < 1e-3:
        o, d, _ = track[-1]
        track[-1] = (o, offset + duration - o, shape)
    else:
        track.append((offset, duration, shape))


def _clip(track: Track, total_s: float) -> Track:
    out: Track = []
    for o, d, v in track:
        if o >= total_s:
            break
        out.append((round(o, 4), round(min(d, total_s - o), 4), v))
    return out
