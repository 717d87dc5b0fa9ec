"""Time to first audio of the voices, side by side in one run: `avatar bench-tts [--repeats N] [--first-breath]`.

For each voice a one-sentence reply is synthesized N times (after a warm-up) and the median and
p90 of the time until its first clause is audio are printed, with the real-time factor.
"""
from __future__ import annotations

import statistics

from avatar.stats import percentile
from avatar.trace import Tracer, now
from avatar.tts.speech_text import speakable
from avatar.tts.synthesizer import Synthesizer

SENTENCES = {
    "de": "Heute haben wir von 10:00 bis 18:00 Uhr geöffnet.",
    "en": "Today we are open from 10:00 to 18:00.",
}


def time_to_first_audio(tts: Synthesizer, text: str, lang: str, repeats: int) -> tuple[list[float], float]:
    firsts, audio_s, total_s = [], 0.0, 0.0
    for _ in range(repeats):
        t0 = now()
        chunks = tts.synthesize(text, lang)
        first = next(chunks)
        firsts.append((now() - t0) * 1000)
        rest = list(chunks)
        total_s += now() - t0
        audio_s += sum(c.duration_s for c in [first, *rest])
    return firsts, total_s / audio_s


# replies of the sample venue as the answerer gives them (long first clauses)
REPLIES_EN = [
    "The current special exhibition is called Light and Shadow and shows photographs from 1900 to today.",
    "The museum café on the ground floor is open from 10:00 to 17:30 and serves cake.",
    "Taking photos for private use is allowed, but please without flash or tripod.",
    "The reduced ticket is 5.50 € for students, trainees and people over 65.",
    "The whole museum is accessible without steps. You can borrow a wheelchair at the ticket desk.",
    "It is 07:40, and today is Monday, 30 November.",
    "I'm sorry, I don't know that for certain here. Please ask our staff.",
    "Our opening hours: Monday closed; Tuesday and Wednesday from 10:00 to 18:00.",
]


def first_breath(cfg, repeats: int) -> None:
    """A long first clause whole vs. cut at a phrase boundary (tts.first_breath_chars), interleaved."""
    variants = {n: Synthesizer(cfg.with_overrides({"tts.first_breath_chars": n, "tts.cache_clauses": 0}).tts, Tracer())
                for n in (0, int(cfg.tts.first_breath_chars) or 32)}
    for tts in variants.values():
        tts.warmup(["en"])
    firsts = {n: [] for n in variants}
    chars = {n: [] for n in variants}
    for _ in range(repeats):
        for text in REPLIES_EN:
            for n, tts in variants.items():
                ms, _ = time_to_first_audio(tts, text, "en", 1)
                firsts[n] += ms
                chars[n].append(len(next(tts.synthesize(text, "en")).text))
    print(f"time to first audio of {len(REPLIES_EN)} English replies x {repeats} (ms)")
    for n in variants:
        label = "whole first clause" if n == 0 else f"first breath <= {n} chars"
        xs = firsts[n]
        print(f"  {label:26s} median {statistics.median(xs):7.1f}  p90 {percentile(xs, 90):7.1f}  "
              f"first piece {statistics.median(chars[n]):.0f} chars (median)")


def _stock_piper(info):
    from piper.voice import PiperVoice

    voice = PiperVoice.load(str(info.model), str(info.config))
    list(voice.synthesize("Hello."))
    return voice


def compare_voices(cfg, repeats: int) -> None:
    """piper with and without alignments, with two threads, stock piper and espeak-ng, interleaved."""
    variants = [("en", "piper + alignments", {"tts.alignments": True, "tts.threads": 1}),
                ("en", "piper, no alignments", {"tts.alignments": False, "tts.threads": 1}),
                ("en", "piper, 2 threads", {"tts.alignments": True, "tts.threads": 2}),
                ("de", "espeak-ng", {})]
    # the clause cache is off: every run synthesizes
    rows = [(lang, label, Synthesizer(cfg.with_overrides({**over, "tts.cache_clauses": 0}).tts, Tracer()))
            for lang, label, over in variants]
    for lang, _, tts in rows:
        tts.warmup([lang])
    results = {label: [] for _, label, _ in rows}
    rtf = {label: [] for _, label, _ in rows}
    # piper's own loader (onnxruntime's default spinning threads), for the side-by-side comparison
    stock = _stock_piper(rows[0][2].voice_for("en"))
    results["piper, stock session"], rtf["piper, stock session"] = [], []
    for _ in range(repeats):  # interleaved: the shared machine's load hits every voice alike
        for lang, label, tts in rows:
            firsts, factor = time_to_first_audio(tts, SENTENCES[lang], lang, 1)
            results[label] += firsts
            rtf[label].append(factor)
        t0 = now()
        chunk = next(iter(stock.synthesize(speakable(SENTENCES["en"], "en"))))
        results["piper, stock session"].append((now() - t0) * 1000)
        rtf["piper, stock session"].append((now() - t0) / (len(chunk.audio_float_array) / chunk.sample_rate))
    rows.append(("en", "piper, stock session", rows[0][2]))
    print(f"time to first audio, one sentence, {repeats} runs each (ms)")
    for lang, label, tts in rows:
        xs = results[label]
        print(f"  {lang} {label:22s} median {statistics.median(xs):7.1f}  p90 {percentile(xs, 90):7.1f}  "
              f"real-time factor {statistics.median(rtf[label]):.3f}  voice {tts.voice_for(lang).name}")
