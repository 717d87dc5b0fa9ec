"""Final passes without timestamp tokens (asr.plain_decode_max_ms) at several limits, side by side
on the same clips (docs/PERF.md, "Short English questions decode without timestamp tokens"):

    PYTHONPATH=. python evals/asr/plain_decode.py 0,2500,4000 [EXTRA_DIR ...]

The clips: the bench set (assets/samples), the joined questions (evals/asr/joined) and any
EXTRA_DIR (e.g. ../shared/testdata/speech-to-phrase; files without a transcript as their name,
oov_*, are skipped). Each clip is trimmed as the bench trims it and transcribed twice per limit
(the better time kept). Prints the clips whose words differ, then per language and length (under
or over 2.5 s of audio) the word accuracy, the ASR median and how many transcripts were decoded
again with timestamps."""
import statistics, sys
from pathlib import Path

from avatar import config
from avatar.asr import WhisperASR
from avatar.asr.word_accuracy import word_errors
from avatar.frames import SAMPLE_RATE
from avatar.trace import Tracer
from evals.asr.clips import clips, trimmed

LIMITS = [int(x) for x in sys.argv[1].split(",")]
extra = sys.argv[2:]
cfg = config.load(env={})
asr = WhisperASR(cfg.asr, cfg.general.languages)
asr.warmup()
tracer = asr.tracer = Tracer()
totals: dict = {}
for f, pcm, ref, lang in clips(extra):
    pcm = trimmed(pcm)
    runs: dict = {}
    for limit in LIMITS * 2:
        asr.cfg.plain_decode_max_ms = limit
        tracer.clear()
        tr = asr.transcribe(pcm)
        redone = any(s.name == "asr.plain_redone" for s in tracer._instants)  # the tracer's instants (no public list)
        runs.setdefault(limit, []).append((tr.text, tr.ms, redone))
    length = "short" if len(pcm) / SAMPLE_RATE < 2.5 else "long"
    for limit, got in runs.items():
        errors, words = word_errors(ref, got[0][0])
        t = totals.setdefault((lang, length, limit), [0, 0, [], 0])
        t[0] += errors
        t[1] += words
        t[2].append(min(ms for _, ms, _ in got))
        t[3] += got[0][2]
    texts = {limit: got[0][0] for limit, got in runs.items()}
    if len(set(texts.values())) > 1:
        print(Path(f).name[:40], texts, flush=True)
for (lang, length, limit), (errors, words, ms, redone) in sorted(totals.items()):
    print(f"{lang} {length:5} limit {limit:5}: words right {1 - errors / words:.3f} of {words} ({len(ms)} clips), "
          f"ASR median {statistics.median(ms):.1f} ms, decoded again {redone}")
