"""Long utterances with known words: short clips of the project joined with short pauses.

    python evals/asr/make_joined.py   # writes evals/asr/joined/{de,en}/<transcript>.flac

Each file is three clips of one source (their speech only, Silero span +-50 ms) with 250 ms of
silence between them: a reader's pause, shorter than the endpointer's end of turn. The file name is
the transcript (the clips' names joined by commas), as for evals/asr/venue. Sources: the real
English recordings and German clips of assets/samples/real and tests/data/speech (speech-to-phrase,
Apache-2.0, see tests/data/README.md) and the synthesized venue questions of evals/asr/venue.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from avatar.audio.convert import read_wav_16k  # noqa: E402
from avatar.frames import SAMPLE_RATE  # noqa: E402
from avatar.vad.speech_span import speech_span  # noqa: E402

GAP_S = 0.25
MARGIN_S = 0.05
LEAD_S, TRAIL_S = 0.4, 0.6  # silence before and after the utterance (the endpointer needs some)


def sources() -> dict[str, list[Path]]:
    real_en = sorted((ROOT / "assets/samples/real/en").glob("*.wav")) + \
        sorted((ROOT / "tests/data/speech").glob("en_*.wav"))
    real_de = sorted((ROOT / "assets/samples/real/de").glob("*.wav")) + \
        sorted((ROOT / "tests/data/speech").glob("de_*.wav"))
    return {"en-real": real_en, "en-venue": sorted((ROOT / "evals/asr/venue/en").glob("*.flac")),
            "de-real": real_de, "de-venue": sorted((ROOT / "evals/asr/venue/de").glob("*.flac"))}


def transcript(path: Path) -> str:
    stem = path.stem
    for prefix in ("en_", "de_"):
        if path.parent.name == "speech" and stem.startswith(prefix):
            stem = stem[len(prefix):]
    return stem.replace("_", " ")


def speech_only(path: Path) -> np.ndarray:
    pcm = read_wav_16k(path)
    span = speech_span(pcm) or (0.0, len(pcm) / SAMPLE_RATE)
    a = max(0, int((span[0] - MARGIN_S) * SAMPLE_RATE))
    b = min(len(pcm), int((span[1] + MARGIN_S) * SAMPLE_RATE))
    return pcm[a:b]


def main() -> None:
    import soundfile as sf

    rng = np.random.default_rng(12)
    out_dir = ROOT / "evals/asr/joined"
    for name, clips in sources().items():
        lang = name[:2]
        order = [clips[i] for i in rng.permutation(len(clips))]
        for i in range(0, len(order) - 2, 3):
            group = order[i:i + 3]
            gap = np.zeros(int(GAP_S * SAMPLE_RATE), np.int16)
            parts = [np.zeros(int(LEAD_S * SAMPLE_RATE), np.int16)]
            for j, clip in enumerate(group):
                parts += ([gap] if j else []) + [speech_only(clip)]
            parts.append(np.zeros(int(TRAIL_S * SAMPLE_RATE), np.int16))
            text = ", ".join(transcript(c) for c in group)
            path = out_dir / lang / f"{text}.flac"
            path.parent.mkdir(parents=True, exist_ok=True)
            sf.write(path, np.concatenate(parts), SAMPLE_RATE, subtype="PCM_16")
            print(f"{path.relative_to(ROOT)}: {sum(len(p) for p in parts) / SAMPLE_RATE:.1f} s")


if __name__ == "__main__":
    main()
