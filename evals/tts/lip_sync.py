"""How close a borrowed mouth comes to the speech: Pico reports no phoneme timings, so its mouth is
espeak-ng's phonemes for the same text moved onto its audio (avatar/tts/phoneme_warp.py). That cannot
be scored on Pico itself (nothing knows its true timings), so it is scored on the English piper voice,
whose own phoneme durations give the true mouth: espeak-ng's English phonemes are moved onto piper's
audio exactly as they are onto Pico's, and every 10 ms frame of the result is compared with piper's
own track (docs/PERF.md, "The German voice"):

    PYTHONPATH=. python evals/tts/lip_sync.py [--n 24] [--json FILE]

Beside it, the two simpler mouths: espeak-ng's phonemes stretched over the whole clause in one piece,
and the mouth that follows the loudness (what Pico falls back to without espeak-ng). Reported per
mouth: the share of frames where it is open or shut as the true mouth is (a shut mouth: rest, M),
the share with the same shape, and the median distance (ms) from each change of shape to the nearest
change in the other track (both ways).
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import numpy as np

from avatar import config
from avatar.tts import visemes
from avatar.tts.espeak_engine import EspeakEngine
from avatar.tts.phoneme_warp import warp_phonemes
from avatar.tts.speech_text import speakable
from avatar.tts.synthesizer import Synthesizer
from evals.tts.round_trip import replies

FRAME_S = 0.01
SHUT = {"rest", "M"}


def frames(track, total_s: float) -> list[str]:
    """The shape of every 10 ms frame of a track (rest where none is given)."""
    out = ["rest"] * int(round(total_s / FRAME_S))
    for offset, duration, shape in track:
        for i in range(int(offset / FRAME_S), min(len(out), int(round((offset + duration) / FRAME_S)))):
            out[i] = shape
    return out


def changes(shapes: list[str]) -> list[int]:
    """Frames where the mouth takes a new shape."""
    return [i for i in range(1, len(shapes)) if shapes[i] != shapes[i - 1]]


def _nearest_ms(points: list[int], others: list[int]) -> list[float]:
    return [min(abs(p - o) for o in others) * FRAME_S * 1000 for p in points] if others else []


def score(truth: list[str], guess: list[str]) -> dict:
    n = min(len(truth), len(guess))
    same_open = sum((truth[i] in SHUT) == (guess[i] in SHUT) for i in range(n)) / max(1, n)
    same_shape = sum(truth[i] == guess[i] for i in range(n)) / max(1, n)
    t, g = changes(truth[:n]), changes(guess[:n])
    # both ways: a mouth that changes shape every frame is not near every true change for free
    return {"open_shut_agree": same_open, "shape_agree": same_shape,
            "change_ms": _nearest_ms(t, g) + _nearest_ms(g, t)}


def stretched(timed, source_s: float, total_s: float):
    """espeak-ng's phonemes stretched over the whole clause in one piece."""
    k = total_s / max(source_s, 1e-6)
    return [(p, a * k, d * k) for p, a, d in timed]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--json")
    args = ap.parse_args()
    cfg = config.load(env={}, sets=["tts.alignments=true", "tts.stream=false", "tts.cache_clauses=0"])
    tts = Synthesizer(cfg.tts)
    espeak = EspeakEngine("en")
    mouths = {"espeak-ng moved stretch by stretch (Pico's)": [], "espeak-ng stretched whole": [], "loudness": []}
    sentences = replies(cfg, "en", args.n)
    for text in sentences:
        for chunk in tts.synthesize(text, "en"):  # one clause a chunk: each scored on its own
            pcm = np.asarray(chunk.pcm)
            total = len(pcm) / chunk.sample_rate
            if total < 0.3 or not chunk.visemes:
                continue
            truth = frames(chunk.visemes, total)
            source, timed = espeak.timed_phonemes(speakable(chunk.text, "en"))
            moved = warp_phonemes(timed, source, espeak.sample_rate, pcm, chunk.sample_rate)
            if moved:
                mouths["espeak-ng moved stretch by stretch (Pico's)"].append(
                    score(truth, frames(visemes.from_timed_phonemes(moved, total), total)))
            whole = stretched(timed, len(source) / espeak.sample_rate, total)
            mouths["espeak-ng stretched whole"].append(score(truth, frames(visemes.from_timed_phonemes(whole, total), total)))
            mouths["loudness"].append(score(truth, frames(visemes.from_loudness(pcm, chunk.sample_rate), total)))
    report = {}
    for name, rows in mouths.items():
        offsets = [d for r in rows for d in r["change_ms"]]
        report[name] = {"clauses": len(rows),
                        "open_shut_agree": round(statistics.mean(r["open_shut_agree"] for r in rows), 3),
                        "shape_agree": round(statistics.mean(r["shape_agree"] for r in rows), 3),
                        "change_ms_mean": round(statistics.mean(offsets), 1) if offsets else None}
        r = report[name]
        print(f"{name:45} {r['clauses']} clauses: open/shut as piper's own {r['open_shut_agree']:.1%}, "
              f"same shape {r['shape_agree']:.1%}, a change of shape off by {r['change_ms_mean']} ms on average")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
