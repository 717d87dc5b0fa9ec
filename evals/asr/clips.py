"""The clips the offline ASR evals share: the bench set (assets/samples), optionally the joined
questions (evals/asr/joined), and any extra folder of WAV files (e.g. ../shared/testdata/speech-to-phrase);
files without a transcript as their name (oov_*, background noise) are left out. Each comes with its
reference transcript (evals/asr/long-references.json, else the file name) and its language."""
from __future__ import annotations

import glob
import json
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from avatar.audio import read_wav_16k
from avatar.frames import SAMPLE_RATE


def clip_files(extra: Sequence[str] = (), joined: bool = True) -> list[str]:
    files = sorted(glob.glob("assets/samples/*/*/*.*"))
    if joined:
        files += sorted(glob.glob("evals/asr/joined/*/*.flac"))
    for d in extra:
        files += sorted(glob.glob(f"{d}/**/*.wav", recursive=True))
    return [f for f in files if f.endswith((".wav", ".flac")) and not Path(f).name.startswith(("oov_", "background"))]


def clips(extra: Sequence[str] = (), joined: bool = True) -> Iterator[tuple[str, np.ndarray, str, str]]:
    """(path, 16 kHz samples, reference transcript, language) of each clip, whole."""
    refs = {Path(k).name: v for k, v in json.load(open("evals/asr/long-references.json")).items()}
    for f in clip_files(extra, joined):
        ref = refs.get(Path(f).name) or Path(f).stem.replace("_", " ")
        yield f, read_wav_16k(f), ref, "de" if "/de/" in f else "en"


def trimmed(pcm: np.ndarray) -> np.ndarray:
    """The clip as the bench trims it: its speech (Silero over the whole file), 0.2 s before, 0.1 s after."""
    from avatar.vad.speech_span import speech_span

    span = speech_span(pcm) or (0.0, len(pcm) / SAMPLE_RATE)
    return pcm[max(0, int((span[0] - 0.2) * SAMPLE_RATE)): int((span[1] + 0.1) * SAMPLE_RATE)]
