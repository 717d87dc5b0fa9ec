"""What the end-of-turn rules make of Whisper's partial text where a question is cut off mid-way.

    PYTHONPATH=. python evals/turns/cut_texts.py [OUT.json]

For each clip of 2.5 s of speech or more (the bench set's medium and long questions and the joined
questions of evals/asr/joined), a word-aligned pass gives each word's end; the audio is cut after
every word but the last, 0.1 s of silence added (the pause the tentative end needs), and
transcribed as the loop's partial passes do (a plain partial pass; German over its last
`asr.partial_window_ms`, English whole). Each rule of `vad.end_wait_rule` then gives the wait for
that text; "complete" (the short wait) inside a question is where a pause longer than
`vad.complete_end_ms` would end the visitor's turn too soon. The whole clip is the question's real end,
where "complete" is right. Reading text written by Whisper, not by hand, is what evals/turns/end_wait.py
cannot do.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from avatar import config  # noqa: E402
from avatar.asr import WhisperASR  # noqa: E402
from avatar.frames import SAMPLE_RATE  # noqa: E402
from avatar.vad.hesitation import RULES, classify  # noqa: E402
from evals.asr.clips import clips, trimmed  # noqa: E402

PAUSE = np.zeros(SAMPLE_RATE // 10, dtype=np.int16)


def main() -> None:
    cfg = config.load(env={})
    asr = WhisperASR(cfg.asr, cfg.general.languages)
    asr.warmup()
    window = int(cfg.asr.partial_window_ms * SAMPLE_RATE / 1000)
    rules = {r: SimpleNamespace(end_wait_rule=r, complete_end_ms=320, end_of_turn_ms=480, hesitation_end_ms=900) for r in RULES}
    rows = []
    for path, pcm, ref, lang in clips():
        pcm = trimmed(pcm)
        if len(pcm) < 2.5 * SAMPLE_RATE:
            continue
        whole = asr.transcribe(pcm, lang=lang, words=True)
        ends = [w.end for w in whole.words[:-1]]
        for cut in [*ends, None]:
            audio = pcm if cut is None else np.concatenate([pcm[: int(cut * SAMPLE_RATE)], PAUSE])
            if lang == "de" and len(audio) > window:
                audio = audio[len(audio) - window:]
            text = asr.transcribe(audio, partial=True).text
            row = {"file": Path(path).name, "lang": lang, "end": cut is None, "text": text,
                   **{r: classify(text, v).reason for r, v in rules.items()}}
            rows.append(row)
            print(("END  " if cut is None else "     ") + " ".join(f"{row[r][:4]:4}" for r in RULES), lang, text, flush=True)
    print()
    for lang in ("en", "de"):
        for where in (False, True):
            sel = [r for r in rows if r["lang"] == lang and r["end"] == where]
            if sel:
                shares = ", ".join(f"{r} complete {sum(x[r] == 'complete' for x in sel) / len(sel):.3f} "
                                   f"hesitation {sum(x[r] == 'hesitation' for x in sel) / len(sel):.3f}" for r in RULES)
                print(f"{lang} {'question ends' if where else 'cut inside'} (n={len(sel)}): {shares}")
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
