"""What the speculative final pass hears at the tentative end, for several vad.tentative_end_ms
(docs/PERF.md, twenty-second session, "An earlier tentative end"):

    PYTHONPATH=. python evals/asr/tentative_cut.py 32,64,96 [EXTRA_DIR ...]

Each clip (the bench set, and any EXTRA_DIR such as ../shared/testdata/speech-to-phrase; oov_*
skipped), with 0.5 s of silence before and 1 s after, is fed to the endpointer in 20 ms frames as
the loop feeds it; the utterance at the last tentative end before the end of turn (the audio the
speculative final pass transcribes) is transcribed whole. Prints word accuracy per language and
setting, and the tentative ends that were not the last (speculative work the loop throws away)."""
import sys

import numpy as np

from avatar import config
from avatar.asr import WhisperASR
from avatar.asr.word_accuracy import word_errors
from avatar.events import EndOfTurn, TentativeEnd
from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.vad.endpointer import Endpointer
from evals.asr.clips import clips

SETTINGS = [int(x) for x in sys.argv[1].split(",")]
extra = sys.argv[2:]
cfg = config.load(env={})
asr = WhisperASR(cfg.asr, cfg.general.languages)
asr.warmup()
FRAME = SAMPLE_RATE // 50
totals: dict = {}
for f, pcm, ref, lang in clips(extra, joined=False):
    pcm = np.concatenate([np.zeros(SAMPLE_RATE // 2, np.int16), pcm, np.zeros(SAMPLE_RATE, np.int16)])
    for ms in SETTINGS:
        endpointer = Endpointer(cfg.with_overrides({"vad.tentative_end_ms": ms}).vad)
        heard, tentative_ends, ended = None, 0, False
        for i in range(0, len(pcm) - FRAME, FRAME):
            for event in endpointer.process(AudioFrame(pcm[i:i + FRAME], 0.0, i / SAMPLE_RATE)):
                if isinstance(event, TentativeEnd):
                    tentative_ends += 1
                    heard = endpointer.utterance()
                ended = ended or isinstance(event, EndOfTurn)
            if ended:
                break
        if heard is None:
            continue
        errors, words = word_errors(ref, asr.transcribe(heard).text)
        t = totals.setdefault((lang, ms), [0, 0, 0, 0])
        t[0] += errors
        t[1] += words
        t[2] += tentative_ends - 1
        t[3] += 1
for (lang, ms), (errors, words, thrown, clips) in sorted(totals.items()):
    print(f"{lang} tentative end {ms} ms: words right {1 - errors / words:.3f} of {words} ({clips} clips), "
          f"speculations thrown away {thrown}")
