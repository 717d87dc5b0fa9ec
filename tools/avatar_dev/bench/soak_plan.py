"""The soak's visitors (tools/avatar_dev/bench/soak.py): a reproducible script of turns, one TurnPlan each.

Recorded questions in both languages with room noise mixed in, barge-ins and backchannels said over
the reply (tests/data/echo/), and bad input (noise alone, silence, a click, clipped or very quiet
speech); `plan_turns` draws the mix from a seed.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from avatar.errors import AvatarError
from avatar.frames import SAMPLE_RATE
from avatar.paths import ROOT, assets_dir

ECHO_CLIPS = ROOT / "tests" / "data" / "echo"
# the share of each kind of turn (the rest are plain questions)
MIX = {"barge_in": 0.15, "backchannel": 0.10, "bad": 0.15}
BAD_KINDS = ("noise", "silence", "click", "clipped", "quiet")
PHANTOM_KINDS = ("noise", "silence", "click")  # a reply to these is a phantom turn


@dataclass
class TurnPlan:
    index: int
    kind: str            # question | barge_in | backchannel | bad
    clip: str            # file name (or the bad input's kind)
    lang: str
    audio: np.ndarray    # what the visitor says first (int16, noise mixed in)
    overlay: np.ndarray | None = None  # said over the reply (barge-in, backchannel)
    overlay_text: str = ""
    overlay_at_s: float = 0.0          # seconds into the audible reply
    leaves: bool = False               # the visitor leaves after this turn


def overlay_words(name: str) -> str:
    """The words of a barge-in clip, from its name ("visitor_de_wie_spaet_ist_es" -> "wie spaet ist
    es"); umlauts are written out in the names, so compare with `fold_umlauts` on both sides."""
    parts = name.split("_")
    return " ".join(parts[2:] if len(parts) > 2 and parts[0] == "visitor" else [])


def fold_umlauts(text: str) -> str:
    return text.lower().replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("ß", "ss")


def question_clips() -> list[tuple[str, Path]]:
    """(lang, file) of every bundled question recording: assets/samples/{venue,real,long}/{de,en}."""
    samples = assets_dir() / "samples"
    out = []
    for path in sorted([*samples.rglob("*.wav"), *samples.rglob("*.flac")]):
        lang = path.parent.name
        if lang in ("de", "en"):
            out.append((lang, path))
    if not out:
        raise AvatarError("no question recordings in assets/samples/", hint="the soak needs the bundled samples")
    return out


def _read(path: Path) -> np.ndarray:
    from avatar.audio.convert import read_wav_16k

    return read_wav_16k(path)


def _level(pcm: np.ndarray) -> float:
    x = pcm.astype(np.float64)
    return float(np.sqrt(np.mean(x ** 2))) if x.size else 0.0


def _mix(speech: np.ndarray, noise: np.ndarray, snr_db: float, rng) -> np.ndarray:
    reps = int(np.ceil(speech.size / max(1, noise.size)))
    start = int(rng.integers(0, max(1, noise.size)))
    bed = np.roll(np.tile(noise, reps), -start)[: speech.size].astype(np.float64)
    gain = _level(speech) / max(1e-9, _level(bed)) * 10 ** (-snr_db / 20)
    return np.clip(speech.astype(np.float64) + gain * bed, -32768, 32767).astype(np.int16)


def plan_turns(n_turns: int, seed: int = 0, visit_turns: int = 6,
               kinds: Sequence[str] | None = None) -> list[TurnPlan]:
    """A reproducible mix of questions (both languages), barge-ins, backchannels and bad input;
    `kinds` fixes the kind of each turn (cycled; a bad input may be named: "bad:noise")."""
    rng = np.random.default_rng(seed)
    questions = [(lang, p, _read(p)) for lang, p in question_clips()]
    noise = _read(ECHO_CLIPS / "background_noise_3s.wav")
    visitors = [(p.stem, _read(p)) for p in sorted(ECHO_CLIPS.glob("visitor_*.wav"))]
    backchannels = [(p.stem, _read(p)) for p in sorted(ECHO_CLIPS.glob("backchannel_*.wav"))]
    langs = ("de", "en")
    plans = []
    for i in range(n_turns):
        r = rng.random()
        kind = ("barge_in" if r < MIX["barge_in"] else
                "backchannel" if r < MIX["barge_in"] + MIX["backchannel"] else
                "bad" if r < sum(MIX.values()) else "question")
        if i < 2:
            kind = "question"  # the first turns warm the loop up with plain questions
        bad = BAD_KINDS[int(rng.integers(len(BAD_KINDS)))]
        if kinds:
            kind, _, named = kinds[i % len(kinds)].partition(":")
            bad = named or bad
            if kind not in (*MIX, "question") or bad not in BAD_KINDS:
                raise AvatarError(f"unknown soak turn kind {kinds[i % len(kinds)]!r}",
                                  hint="question, barge_in, backchannel, bad or bad:" + "|".join(BAD_KINDS))
        lang = langs[i % 2]  # both languages, alternating
        pool = [q for q in questions if q[0] == lang]
        _, path, pcm = pool[int(rng.integers(len(pool)))]
        audio = _mix(pcm, noise, float(rng.uniform(12, 30)), rng)
        plan = TurnPlan(i, kind, path.name, lang, audio, leaves=(i + 1) % visit_turns == 0)
        if kind == "bad":
            plan.clip = bad
            if bad == "noise":
                plan.audio = (noise.astype(np.float64) * 4).clip(-32768, 32767).astype(np.int16)
            elif bad == "silence":
                plan.audio = np.zeros(2 * SAMPLE_RATE, np.int16)
            elif bad == "click":
                plan.audio = np.zeros(SAMPLE_RATE, np.int16)
                plan.audio[SAMPLE_RATE // 2: SAMPLE_RATE // 2 + 400] = (
                    rng.standard_normal(400) * 20000).clip(-32768, 32767).astype(np.int16)
            elif bad == "clipped":
                plan.audio = (pcm.astype(np.float64) * 12).clip(-32768, 32767).astype(np.int16)
            else:  # quiet: 40 dB down
                plan.audio = (pcm.astype(np.float64) / 100).astype(np.int16)
        elif kind in ("barge_in", "backchannel"):
            name, clip = (visitors if kind == "barge_in" else backchannels)[
                int(rng.integers(len(visitors if kind == "barge_in" else backchannels)))]
            plan.overlay, plan.overlay_text = clip, name
            plan.overlay_at_s = float(rng.uniform(0.4, 1.0))
        plans.append(plan)
    return plans
