"""Rules of incremental recognition side by side on the long recordings (docs/PERF.md, "Incremental recognition").

    PYTHONPATH=. python evals/asr/incremental_rules.py '{"old": {"min_prob": 0}, "floor": {"min_prob": 0.4}}' OUT.json

Each variant (keyword arguments of avatar.asr.incremental.replay(); "interval_ms", and
"notailctx": the tail pass without the confirmed words as prompt) replays the partial passes
unpaced (a pass every 300 ms of audio whatever the passes take: the same passes on any machine,
so the variants differ only by their rules), then the final pass; the whole-utterance pass once per
file. Passes are cached by their audio and arguments, so passes the variants share run once.
Prints errors per file and word accuracy per language; OUT.json has every text."""
import hashlib, json, sys, glob, statistics
from dataclasses import replace
from pathlib import Path
import numpy as np
from avatar import config
from avatar.asr import WhisperASR
from avatar.asr.incremental import replay
from avatar.asr.word_accuracy import word_errors
from avatar.audio import read_wav_16k
from avatar.frames import SAMPLE_RATE
from avatar.vad.speech_span import speech_span

VARIANTS = json.loads(sys.argv[1])
out = sys.argv[2]
files = sorted(glob.glob("assets/samples/long/*/*.flac")) + sorted(glob.glob("evals/asr/joined/*/*.flac"))  # the 20 of the replay
refs = {Path(k).name: v for k, v in json.load(open("evals/asr/long-references.json")).items()}
cfg = config.load(env={})
asr = WhisperASR(cfg.asr, cfg.general.languages)
asr.warmup()

class Cached:
    def __init__(self, asr): self.asr, self.cache, self.tails, self.calls, self.hits = asr, {}, [], 0, 0
    notailctx = False
    def transcribe(self, pcm, lang=None, partial=False, cancel=None, prior=None, context="", words=False):
        is_tail = bool(context) and not partial
        if is_tail and self.notailctx:
            context = ""
        key = (hashlib.sha1(np.ascontiguousarray(pcm).tobytes()).hexdigest(), lang, partial, prior, context, words)
        self.calls += 1
        if key in self.cache:
            self.hits += 1; tr = self.cache[key]
        else:
            tr = self.asr.transcribe(pcm, lang=lang, partial=partial, prior=prior, context=context, words=words)
            self.cache[key] = tr
        tr = replace(tr)
        if is_tail:
            self.tails.append(tr)
        return tr

rows = []
for path in files:
    pcm = read_wav_16k(path)
    span = speech_span(pcm) or (0.0, len(pcm) / SAMPLE_RATE)
    a = max(0, int((span[0] - 0.2) * SAMPLE_RATE))
    pcm = pcm[a: int((span[1] + 0.1) * SAMPLE_RATE)]
    c = Cached(asr)
    whole = c.transcribe(pcm)
    ref = refs.get(Path(path).name) or Path(path).stem
    we, n = word_errors(ref, whole.text)
    row = {"file": Path(path).name, "speech_s": round(span[1] - span[0], 2), "lang": whole.lang, "words": n,
           "whole_err": we, "whole": whole.text, "whole_lp": whole.avg_logprob, "v": {}}
    for name, rules in VARIANTS.items():
        rules = dict(rules)
        interval = rules.pop("interval_ms", 300)
        c.notailctx = rules.pop("notailctx", False)
        c.tails = []
        commit, partials, final = replay(c, pcm, interval, paced=False, speech_end=len(pcm) - int(0.1 * SAMPLE_RATE), **rules)
        fe, _ = word_errors(ref, final.text)
        t = c.tails[-1] if c.tails else None
        row["v"][name] = {"err": fe, "path": final.path, "fb": final.fallback, "text": final.text,
                          "confirmed": " ".join(commit.words), "enc": final.encoded_s,
                          "tail_lp": t.avg_logprob if t else None, "tail_text": t.text if t else None,
                          "cut": round(commit.cut / SAMPLE_RATE, 2)}
    rows.append(row)
    print(row["file"][:40], row["lang"], n, "whole", we, " ".join(f"{k}:{v['err']}{'T' if v['path']=='tail' else ''}" for k, v in row["v"].items()),
          f"(cache {c.hits}/{c.calls})", flush=True)
json.dump(rows, open(out, "w"), ensure_ascii=False, indent=1)
for lang in ("en", "de"):
    sel = [r for r in rows if r["lang"] == lang]
    n = sum(r["words"] for r in sel)
    print(lang, len(sel), "files", n, "words; whole", round(1 - sum(r["whole_err"] for r in sel) / n, 3),
          " ".join(f"{k}:{1 - sum(r['v'][k]['err'] for r in sel) / n:.3f}(tail {sum(r['v'][k]['path']=='tail' for r in sel)}, enc {statistics.median(r['v'][k]['enc'] for r in sel):.1f})" for k in VARIANTS))
