"""Time to first audio of the voices, side by side in one run: `avatar bench-tts [--repeats N] [--first-breath | --stream]`.

For each voice a one-sentence reply is synthesized N times (after a warm-up) and the median and
p90 of the time until its first clause is audio are printed, with the real-time factor.
"""
from __future__ import annotations

import statistics

import numpy as np

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
    variants = {n: Synthesizer(cfg.with_overrides({"tts.first_breath_chars": n, "tts.cache_clauses": 0,
                                                   "tts.stream": False}).tts, Tracer())  # the cut is the fallback
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
    """piper with and without alignments, with two threads, stock piper, Pico and espeak-ng, interleaved."""
    variants = [("en", "piper + alignments", {"tts.alignments": True, "tts.threads": 1}),
                ("en", "piper, no alignments", {"tts.alignments": False, "tts.threads": 1}),
                ("en", "piper, 2 threads", {"tts.alignments": True, "tts.threads": 2}),
                ("de", "Pico", {"tts.engines_de": ["pico"]}),
                ("de", "espeak-ng", {"tts.engines_de": ["espeak"]})]
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


def _played(chunks) -> np.ndarray:
    """The pieces as the loudspeaker gets them (16 kHz, one resampler across the pieces)."""
    from avatar.audio.playback_queue import PlaybackQueue

    queue = PlaybackQueue()
    for c in chunks:
        queue.put(c.pcm, c.sample_rate)
    out = []
    while True:
        block, got = queue.take(320, 0.0)
        if not got:
            return np.concatenate(out) if out else np.zeros(0, np.int16)
        out.append(block[:got])


def _stats(pcm: np.ndarray) -> str:
    """What `sox FILE -n stats` says first (sox is not installed here): RMS and peak level, DC offset."""
    x = pcm.astype(np.float64) / 32768
    rms, peak = np.sqrt(np.mean(x ** 2)), np.max(np.abs(x))
    return f"RMS {20 * np.log10(rms):6.1f} dBFS  peak {20 * np.log10(peak):5.1f} dBFS  DC {np.mean(x):+.5f}"


def stream_vs_whole(cfg, repeats: int) -> None:
    """piper streamed (tts.stream) vs whole clauses, interleaved: time to first audio, total synthesis
    time, and whether the streamed audio is the whole synthesis (same latent frames: SNR) without a
    click at the joins."""
    from avatar.tts.piper_stream import snr_db
    from avatar.tts.speech_text import speakable as spoken_form

    breath = int(cfg.tts.first_breath_chars) or 32
    setups = [(label, Synthesizer(cfg.with_overrides({"tts.stream": on, "tts.cache_clauses": 0,
                                                       "tts.first_breath_chars": cut}).tts, Tracer()))
              for label, on, cut in (("streamed", True, breath), ("whole, first breath cut", False, breath),
                                     ("whole, first clause whole", False, 0))]
    for _, tts in setups:
        tts.warmup(["en"])
    engine = setups[0][1]._engine("en")
    if engine.streamer is None:
        print(f"piper voice {engine.info.name} is not streamed: {engine.stream_problem}")
        return
    first = {label: [] for label, _ in setups}
    total = {label: [] for label, _ in setups}
    pieces = {label: [] for label, _ in setups}
    margins = {label: [] for label, _ in setups}  # how long before it was due each later piece was ready
    for _ in range(repeats):  # interleaved: the shared machine's load hits every variant alike
        for text in REPLIES_EN:
            for label, tts in setups:
                t0 = now()
                ready, due = [], None
                for chunk in tts.synthesize(text, "en"):
                    t = now()
                    due = t if due is None else due  # played from the first piece on, without a gap
                    ready.append((t, due))
                    due = max(due, t) + chunk.duration_s
                first[label].append((ready[0][0] - t0) * 1000)
                total[label].append((ready[-1][0] - t0) * 1000)
                pieces[label].append(len(ready))
                margins[label] += [(d - t) * 1000 for t, d in ready[1:]]
    print(f"piper {engine.info.name}: {len(REPLIES_EN)} English replies x {repeats}, interleaved (ms)")
    for label, _ in setups:
        print(f"  {label:30s} first audio median {statistics.median(first[label]):6.1f}  p90 "
              f"{percentile(first[label], 90):6.1f}   whole reply median {statistics.median(total[label]):6.1f}  "
              f"p90 {percentile(total[label], 90):6.1f}   pieces {statistics.median(pieces[label]):.0f}   "
              f"later pieces ready before due: {sum(m >= 0 for m in margins[label])}/{len(margins[label])}, "
              f"least margin {min(margins[label], default=0):.0f} ms")
    # correctness: every clause of the replies, windows vs the whole decode of the same frames
    snrs, corrs, level = [], [], []
    from avatar.tts.clause_splitter import split_clauses

    streamer = engine.streamer
    for text in REPLIES_EN:
        for clause in split_clauses(text, "en", int(cfg.tts.min_clause_chars)):
            for phonemes in engine.voice.phonemize(spoken_form(clause, "en")):
                ids = engine.voice.phonemes_to_ids(phonemes)
                latent, mask, _ = streamer.front(ids, engine._scales())
                whole = streamer.whole(latent, mask)
                streamed = np.concatenate(list(streamer.stream(latent, mask, engine._first_frames)))
                snrs.append(snr_db(whole, streamed))
                corrs.append(float(np.corrcoef(whole, streamed)[0, 1]))
                piper_pcm, _ = engine.synthesize(spoken_form(clause, "en"))  # piper's own, peak-normalised
                ours = np.clip(streamed * streamer.gain, -1, 1)
                level.append(20 * np.log10(np.sqrt(np.mean(ours ** 2)) /
                                           np.sqrt(np.mean((piper_pcm.astype(np.float64) / 32767) ** 2))))
    print(f"  streamed vs whole decode of the same latent frames, {len(snrs)} sentences: SNR min "
          f"{min(snrs):.1f} dB, median {statistics.median(snrs):.1f} dB; correlation min {min(corrs):.7f}")
    print(f"  level vs piper's peak-normalised whole synthesis (other noise draw): median "
          f"{statistics.median(level):+.1f} dB, range {min(level):+.1f} to {max(level):+.1f} dB "
          f"(one gain per voice: {streamer.gain:.2f})")
    # the joins as the loudspeaker hears them
    tts = setups[0][1]
    chunks = list(tts.synthesize(REPLIES_EN[0], "en"))
    played = _played(chunks).astype(np.int32)
    ends = np.cumsum([round(len(c.pcm) * 16000 / c.sample_rate) for c in chunks])[:-1]
    steps = np.abs(np.diff(played))
    at_joins = [int(steps[max(0, j - 3):j + 3].max()) for j in ends if j + 3 < len(steps)]
    print(f"  joins of '{REPLIES_EN[0][:40]}...' ({len(chunks)} pieces, 16 kHz as played): largest sample step "
          f"at a join {max(at_joins)}, 99.9th percentile step elsewhere {np.percentile(steps, 99.9):.0f}")
    whole = np.concatenate([c.pcm for c in list(setups[2][1].synthesize(REPLIES_EN[0], "en"))])
    print(f"  streamed {_stats(np.concatenate([c.pcm for c in chunks]))}")
    print(f"  whole    {_stats(whole)}")
