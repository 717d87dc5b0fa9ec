"""The decoder's threads (asr.decode_threads) side by side on the same clips (docs/PERF.md, "The
decoder on one thread"):

    PYTHONPATH=. python evals/asr/decode_threads.py 0,1 [EXTRA_DIR ...]

One Whisper per setting (0 = the decoder steps on the encoder's model and threads). The clips: the
bench set (assets/samples), the joined questions (evals/asr/joined) and any EXTRA_DIR (e.g.
../shared/testdata/speech-to-phrase; oov_* skipped). Each clip is trimmed as the bench trims it and
transcribed three times per setting, the settings taking turns (the fastest run kept). Prints the
clips whose words differ, then per language and length (under or over 2.5 s of audio) the word
accuracy and the medians of the whole pass and of its encoder, language and decode spans."""
import statistics, sys
from pathlib import Path

from avatar import config
from avatar.asr import WhisperASR
from avatar.asr.word_accuracy import word_errors
from avatar.frames import SAMPLE_RATE
from avatar.trace import Tracer
from evals.asr.clips import clips, trimmed

SETTINGS = [int(x) for x in sys.argv[1].split(",")]
extra = sys.argv[2:]
models = {}
for n in SETTINGS:
    cfg = config.load(env={}, sets=[f"asr.decode_threads={n}"])
    asr = WhisperASR(cfg.asr, cfg.general.languages)
    asr.warmup()
    asr.tracer = Tracer()
    models[n] = asr
STAGES = ("asr.encode", "asr.language", "asr.decode")
totals: dict = {}
for f, pcm, ref, lang in clips(extra):
    pcm = trimmed(pcm)
    runs: dict = {}
    for n in SETTINGS * 3:
        asr = models[n]
        asr.tracer.clear()
        tr = asr.transcribe(pcm)
        spans = {s: sum(x.ms for x in asr.tracer.spans() if x.name == s) for s in STAGES}
        runs.setdefault(n, []).append((tr.text, tr.ms, spans))
    length = "short" if len(pcm) / SAMPLE_RATE < 2.5 else "long"
    for n, got in runs.items():
        errors, words = word_errors(ref, got[0][0])
        t = totals.setdefault((lang, length, n), [0, 0, [], {s: [] for s in STAGES}])
        t[0] += errors
        t[1] += words
        best = min(got, key=lambda g: g[1])
        t[2].append(best[1])
        for s in STAGES:
            t[3][s].append(best[2][s])
    texts = {n: got[0][0] for n, got in runs.items()}
    if len(set(texts.values())) > 1:
        print(Path(f).name[:40], texts, flush=True)
for (lang, length, n), (errors, words, ms, stages) in sorted(totals.items()):
    parts = ", ".join(f"{s.split('.')[1]} {statistics.median(v):.1f}" for s, v in stages.items())
    print(f"{lang} {length:5} decode_threads {n}: words right {1 - errors / words:.3f} of {words} ({len(ms)} clips), "
          f"ASR median {statistics.median(ms):.1f} ms ({parts})")
