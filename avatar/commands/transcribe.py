"""`avatar transcribe WAV... [--json] [--lang de|en]`: files through the recognizer the kiosk uses.

The recognizer is made for one visitor's utterance (its trimmed window holds up to ~24 s). A longer
file is split into pieces of at most `--piece-s` seconds, each cut in the last pause of its second
half (a pause between sentences), and every piece is transcribed: the whole file is written
out, piece by piece with its times, and a cut that found no pause is said, with where it fell.

`--compare` also runs faster-whisper's plain transcribe() (30 s window) on each file, side by side
in one run; with `--names-are-transcripts` it scores word accuracy against the file names.
Like the kiosk, the recognizer gets the knowledge pack's words as its prompt (`asr.venue_prompt`,
pack `general.knowledge`); `--venue-compare` decodes each file with and without them, side by side;
`--prior de|en` is the previous turn's language (the kiosk's prior for short, unsure utterances).
`--incremental-compare` replays each file as the voice loop hears it (partial passes every
`asr.incremental_interval_ms` while the speech lasts, avatar/asr/incremental.py) and compares the
final transcript of incremental recognition (confirmed words + a pass over the tail) with the
whole-utterance pass, side by side: time of the final pass, audio it encoded, word accuracy.
`--references FILE` (JSON: file name -> transcript) gives reference texts for files whose names
are not their transcripts.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import asdict
from pathlib import Path

import numpy as np

from avatar.audio import read_wav_16k
from avatar.errors import ConfigError
from avatar.frames import SAMPLE_RATE
from avatar.trace import now

from avatar.asr.pieces import PIECE_S, split_points  # noqa: F401  (split_points: also imported by tests)


def add_arguments(parser) -> None:
    parser.add_argument("wav", nargs="+", help="audio files (any rate and channel count soundfile reads)")
    parser.add_argument("--json", action="store_true", help="print one JSON record per file")
    parser.add_argument("--lang", choices=("de", "en"), help="skip language detection")
    parser.add_argument("--full", action="store_true", help="decode the whole 30 s window (no trimmed fast path)")
    parser.add_argument("--compare", action="store_true",
                        help="bench: also run faster-whisper's plain transcribe() on each file and compare")
    parser.add_argument("--repeat", type=int, default=1, help="bench: runs per file (the median time is kept)")
    parser.add_argument("--names-are-transcripts", action="store_true",
                        help="bench: the file name (without .wav) is the reference text; report word accuracy")
    parser.add_argument("--piece-s", type=float, default=PIECE_S,
                        help=f"files longer than this are transcribed in pieces cut at pauses (default {PIECE_S:g} s, 5-28)")
    parser.add_argument("--venue-compare", action="store_true",
                        help="bench: decode each file with the venue's words as prompt and without, side by side")
    parser.add_argument("--incremental-compare", action="store_true",
                        help="bench: final pass of incremental recognition (confirmed words + tail) against the "
                             "whole-utterance pass, side by side")
    parser.add_argument("--references", metavar="FILE",
                        help="bench: JSON object, file name -> reference transcript (word accuracy)")
    parser.add_argument("--prior", choices=("de", "en"),
                        help="the previous turn's language (decides short utterances Whisper is unsure of)")


def run(args, cfg) -> int:
    from avatar.asr import WhisperASR

    if args.full:
        cfg = cfg.with_overrides({"asr.trim_window": False})
    if not 5.0 <= args.piece_s <= 28.0:
        raise ConfigError(f"--piece-s {args.piece_s:g} is out of range", hint="use 5 to 28 seconds (Whisper hears 30 s at most)")
    if args.venue_compare:
        cfg = cfg.with_overrides({"asr.venue_prompt": True})
    asr = WhisperASR(cfg.asr, cfg.general.languages)
    if cfg.asr.venue_prompt:  # as the kiosk does (avatar/pipeline/build.py)
        from avatar.pipeline.build import give_venue_words

        give_venue_words(asr, cfg)
    if args.incremental_compare:
        return _incremental_bench(asr, args, cfg)
    if args.compare or args.repeat > 1 or args.names_are_transcripts or args.venue_compare:
        return _bench(asr, args)
    for path in args.wav:
        pcm = read_wav_16k(path)
        if len(pcm) > args.piece_s * SAMPLE_RATE:
            _print_pieces(path, pcm, _transcribe_pieces(asr, pcm, args.lang, args.piece_s), args.json)
            continue
        tr = asr.transcribe(pcm, lang=args.lang, prior=args.prior)
        if args.json:
            print(json.dumps({"input": path, **asdict(tr)}, ensure_ascii=False))
        elif tr.dropped:
            print(f"[{tr.lang} {tr.lang_prob:.2f}] (dropped: {tr.dropped}; Whisper said {tr.raw_text!r})  {tr.ms:.0f} ms")
        else:
            print(f"[{tr.lang} {tr.lang_prob:.2f}] {tr.text}  ({tr.ms:.0f} ms, {tr.path})")
    return 0


def _transcribe_pieces(asr, pcm: np.ndarray, lang: str | None, piece_s: float) -> list[dict]:
    out = []
    for start, end, at_pause in split_points(pcm, piece_s):
        tr = asr.transcribe(pcm[start:end], lang=lang)
        out.append({"start_s": round(start / SAMPLE_RATE, 2), "end_s": round(end / SAMPLE_RATE, 2),
                    "cut": "end" if end == len(pcm) else ("pause" if at_pause else "mid-speech"), **asdict(tr)})
    return out


def _clock(seconds: float) -> str:
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


def _print_pieces(path: str, pcm: np.ndarray, pieces: list[dict], as_json: bool) -> None:
    kept = [p for p in pieces if not p["dropped"]]
    langs = [p["lang"] for p in kept] or [pieces[0]["lang"]]
    lang = max(set(langs), key=langs.count)
    text = " ".join(p["text"] for p in kept)
    ms = sum(p["ms"] for p in pieces)
    rough = [p["end_s"] for p in pieces if p["cut"] == "mid-speech"]
    if as_json:
        print(json.dumps({"input": path, "seconds": round(len(pcm) / SAMPLE_RATE, 2), "text": text, "lang": lang,
                          "dropped": "" if kept else "empty", "ms": round(ms, 1), "path": "pieces",
                          "raw_text": " ".join(p["raw_text"] for p in pieces), "cuts_mid_speech_s": rough,
                          "pieces": pieces}, ensure_ascii=False))
        return
    print(f"[{lang}] {text}  ({len(pcm) / SAMPLE_RATE:.1f} s in {len(pieces)} pieces, {ms:.0f} ms)")
    for p in pieces:
        said = p["text"] if not p["dropped"] else f"(dropped: {p['dropped']}; Whisper said {p['raw_text']!r})"
        print(f"  {_clock(p['start_s'])}-{_clock(p['end_s'])} [{p['lang']}] {said}")
        if p["cut"] == "mid-speech":
            print(f"  (cut at {_clock(p['end_s'])} without a pause: a word there may be split or lost)")


def _bench(asr, args) -> int:
    from avatar.asr.word_accuracy import word_errors

    asr.warmup()
    rows = []
    totals = {"kiosk": [0, 0], "plain": [0, 0], "no_venue": [0, 0]}
    for path in args.wav:
        pcm = read_wav_16k(path)
        ref = Path(path).stem if args.names_are_transcripts else ""
        row = {"input": path, "seconds": round(len(pcm) / SAMPLE_RATE, 2)}
        kiosk_ms, plain_ms, bare_ms = [], [], []
        for _ in range(max(1, args.repeat)):  # interleaved, so both paths see the same machine load
            tr = asr.transcribe(pcm, lang=args.lang, prior=args.prior)
            kiosk_ms.append(tr.ms)
            if args.venue_compare:
                asr.prompting = False
                try:
                    bare = asr.transcribe(pcm, lang=args.lang, prior=args.prior)
                finally:
                    asr.prompting = True
                bare_ms.append(bare.ms)
            if args.compare:
                t0 = now()
                segments, info = asr.model.transcribe(pcm.astype(np.float32) / 32768.0, language=args.lang,
                                                      beam_size=1, without_timestamps=True,
                                                      condition_on_previous_text=False)
                plain = " ".join(s.text.strip() for s in segments).strip()
                plain_ms.append((now() - t0) * 1000.0)
        row.update(text=tr.raw_text, lang=tr.lang, lang_prob=round(tr.lang_prob, 3), dropped=tr.dropped,
                   path=tr.path, ms=round(statistics.median(kiosk_ms), 1), prompt_tokens=tr.prompt_tokens,
                   prior_used=tr.prior_used)
        if args.venue_compare:
            row.update(no_venue_text=bare.raw_text, no_venue_lang=bare.lang, no_venue_dropped=bare.dropped,
                       no_venue_ms=round(statistics.median(bare_ms), 1))
        if args.compare:
            row.update(plain_text=plain, plain_lang=info.language, plain_ms=round(statistics.median(plain_ms), 1))
        if ref:
            errs, n = word_errors(ref, tr.raw_text)
            totals["kiosk"][0] += errs; totals["kiosk"][1] += n
            row["word_errors"] = errs
            if args.compare:
                errs, n = word_errors(ref, plain)
                totals["plain"][0] += errs; totals["plain"][1] += n
                row["plain_word_errors"] = errs
            if args.venue_compare:
                errs, n = word_errors(ref, bare.raw_text)
                totals["no_venue"][0] += errs; totals["no_venue"][1] += n
                row["no_venue_word_errors"] = errs
        rows.append(row)
        if args.json:
            print(json.dumps(row, ensure_ascii=False), flush=True)
        else:
            extra = f" | plain {row['plain_ms']:.0f} ms [{row['plain_lang']}] {row['plain_text']}" if args.compare else ""
            if args.venue_compare:
                extra += f" | no venue words {row['no_venue_ms']:.0f} ms [{bare.lang}] {bare.raw_text}"
            print(f"{row['ms']:6.0f} ms [{tr.lang} {tr.lang_prob:.2f}] {tr.raw_text}{extra}  <- {Path(path).name}", flush=True)
    summary = {"files": len(rows), "median_ms": round(statistics.median(r["ms"] for r in rows), 1),
               "langs": {l: sum(r["lang"] == l for r in rows) for l in sorted({r["lang"] for r in rows})},
               "dropped": sum(bool(r["dropped"]) for r in rows), "fallbacks": sum(r["path"] == "full" for r in rows)}
    if args.compare:
        summary["plain_median_ms"] = round(statistics.median(r["plain_ms"] for r in rows), 1)
        summary["plain_langs"] = {l: sum(r["plain_lang"] == l for r in rows) for l in sorted({r["plain_lang"] for r in rows})}
    summary["prior_used"] = sum(bool(r["prior_used"]) for r in rows)
    if args.venue_compare:
        summary["no_venue_median_ms"] = round(statistics.median(r["no_venue_ms"] for r in rows), 1)
        summary["no_venue_langs"] = {l: sum(r["no_venue_lang"] == l for r in rows)
                                     for l in sorted({r["no_venue_lang"] for r in rows})}
        summary["no_venue_dropped"] = sum(bool(r["no_venue_dropped"]) for r in rows)
    if args.names_are_transcripts:
        for key, (errs, n) in totals.items():
            if n and (key == "kiosk" or (key == "plain" and args.compare) or (key == "no_venue" and args.venue_compare)):
                summary[f"{key}_word_accuracy"] = round(1 - errs / n, 3)
    print(json.dumps({"summary": summary}) if args.json else f"summary: {json.dumps(summary)}")
    return 0


def _references(args) -> dict[str, str]:
    refs = json.loads(Path(args.references).read_text(encoding="utf-8")) if args.references else {}
    return {Path(k).name: v for k, v in refs.items()}


def _incremental_bench(asr, args, cfg) -> int:
    """Each file as the loop hears it (its speech, 200 ms before and 100 ms after), interleaved:
    the whole-utterance pass, then incremental recognition (partials, then the final pass)."""
    from avatar.asr.incremental import incremental_rules, replay
    from avatar.asr.word_accuracy import word_errors
    from avatar.vad.speech_span import speech_span

    asr.warmup()
    refs = _references(args)
    interval = cfg.asr.incremental_interval_ms
    rows = []
    for path in args.wav:
        pcm = read_wav_16k(path)
        span = speech_span(pcm) or (0.0, len(pcm) / SAMPLE_RATE)
        a = max(0, int((span[0] - 0.2) * SAMPLE_RATE))
        pcm = pcm[a: int((span[1] + 0.1) * SAMPLE_RATE)]
        whole = asr.transcribe(pcm, lang=args.lang, prior=args.prior)
        commit, partials, final = replay(asr, pcm, interval, lang=args.lang, prior=args.prior,
                                         speech_end=len(pcm) - int(0.1 * SAMPLE_RATE),
                                         **incremental_rules(cfg))
        ref = refs.get(Path(path).name) or (Path(path).stem if args.names_are_transcripts else "")
        row = {"input": path, "speech_s": round(span[1] - span[0], 2), "lang": whole.lang,
               "whole_text": whole.text, "whole_ms": round(whole.ms, 1), "whole_path": whole.path,
               "whole_encoded_s": whole.encoded_s,
               "final_text": final.text, "final_lang": final.lang, "final_ms": round(final.ms, 1),
               "final_path": final.path, "fallback": final.fallback, "final_encoded_s": final.encoded_s,
               "committed_words": len(commit.words), "cut_s": round(commit.cut / SAMPLE_RATE, 2),
               "partial_passes": len(partials),
               "partial_median_ms": round(statistics.median(p.ms for p in partials), 1) if partials else None}
        if ref:
            row["reference"] = ref
            row["whole_word_errors"], row["words"] = word_errors(ref, whole.text)
            row["final_word_errors"], _ = word_errors(ref, final.text)
        rows.append(row)
        if args.json:
            print(json.dumps(row, ensure_ascii=False), flush=True)
        else:
            errs = (f" errors {row['final_word_errors']} vs {row['whole_word_errors']} of {row['words']}"
                    if ref else "")
            print(f"{Path(path).name} ({row['speech_s']:.1f} s): final {row['final_ms']:.0f} ms [{final.path}"
                  f"{', ' + final.fallback if final.fallback else ''}; {row['committed_words']} words confirmed,"
                  f" {final.encoded_s:.1f} s encoded] vs whole {row['whole_ms']:.0f} ms{errs}\n"
                  f"    incremental: {final.text}\n    whole:       {whole.text}", flush=True)
    summary = {"files": len(rows), "interval_ms": interval, "by_lang": {}}
    for lang in sorted({r["lang"] for r in rows}) + ["all"]:
        sel = [r for r in rows if lang in ("all", r["lang"])]
        scored = [r for r in sel if "words" in r]
        s = {"files": len(sel), "whole_median_ms": round(statistics.median(r["whole_ms"] for r in sel), 1),
             "final_median_ms": round(statistics.median(r["final_ms"] for r in sel), 1),
             "whole_encoded_median_s": round(statistics.median(r["whole_encoded_s"] for r in sel), 2),
             "final_encoded_median_s": round(statistics.median(r["final_encoded_s"] for r in sel), 2),
             "tail_used": sum(r["final_path"] == "tail" for r in sel),
             "fallbacks": dict(sorted({f: sum(r["fallback"] == f for r in sel)
                                       for f in {r["fallback"] for r in sel} if f}.items()))}
        if scored:
            n = sum(r["words"] for r in scored)
            s["whole_word_accuracy"] = round(1 - sum(r["whole_word_errors"] for r in scored) / n, 3)
            s["final_word_accuracy"] = round(1 - sum(r["final_word_errors"] for r in scored) / n, 3)
            s["reference_words"] = n
        summary["by_lang"][lang] = s
    print(json.dumps({"summary": summary}, ensure_ascii=False) if args.json
          else f"summary: {json.dumps(summary, ensure_ascii=False)}")
    return 0
