"""`avatar bench`: the whole voice loop on WAV files fed at real-time pace, one record per turn.

Voice-to-voice = first audible reply sample minus the last speech sample of the input file (found
in the whole file offline, not by the streaming endpointer). With `sequential`, every file also runs the way most
voice assistants work (confirmed end of turn, then full-window ASR, then the whole answer, then
whole-reply TTS), interleaved with the streaming run so both see the same machine load.

Every turn also carries its utterance length (first to last speech sample of the file, Silero over
the whole file), and the summary gives voice-to-voice per length bucket (under 2 s, 2-4 s, 4-8 s,
over 8 s) for each design side by side: whether the wait grows with the question.

Each turn also says how its final transcript was made (`asr`: the tail after the words confirmed
while the visitor spoke, or the whole utterance and why), so `--vs asr.incremental=false` compares
incremental recognition with the whole-utterance pass on the same clips. With reference texts
(`references`: file name -> text; with `names_are_transcripts` the file name itself, underscores
as spaces) every turn is scored and the summary gives each design's word accuracy of the final
transcripts, per language (the language of the clip's folder, de/ or en/).
"""
from __future__ import annotations

import platform
import statistics
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from avatar.errors import ConfigError
from avatar.frames import SAMPLE_RATE
from avatar.pipeline.turn_metrics import LOOP_STAGES
from avatar.stage_names import ANSWER, ASR, ENDPOINT, OUTPUT, TTS_FIRST_AUDIO
from avatar.stats import p50_p95
from avatar.trace import Tracer

# Utterance length buckets (seconds of speech, first to last speech sample): label, from, up to.
LENGTH_BUCKETS: tuple[tuple[str, float, float], ...] = (
    ("<2s", 0.0, 2.0), ("2-4s", 2.0, 4.0), ("4-8s", 4.0, 8.0), (">8s", 8.0, float("inf")))
LONG_S, SHORT_S = 4.0, 2.0  # the check: p50 over 4 s against p50 under 2 s

MODES = {
    "streaming": {},
    "sequential": {"pipeline.speculative": False, "pipeline.streaming_tts": False,
                   "asr.trim_window": False, "asr.partial_interval_ms": 0},
}


def mode_overrides(mode: str) -> dict:
    """A named design, or `streaming+section.key=value[,section.key=value]`: the streaming design
    with those settings (`avatar bench --vs ...` compares a setting side by side)."""
    if mode in MODES:
        return MODES[mode]
    base, _, sets = mode.partition("+")
    if base not in MODES or not sets:
        raise ConfigError(f"unknown bench mode '{mode}'", hint="streaming, sequential or streaming+section.key=value")
    from avatar.config import _parse_scalar

    out = dict(MODES[base])
    for item in sets.split(","):
        if "=" not in item:
            raise ConfigError(f"--vs expects section.key=value, got '{item}'")
        key, raw = item.split("=", 1)
        out[key.strip()] = _parse_scalar(raw.strip())
    return out


@dataclass
class Turn:
    mode: str
    input: str
    lang: str
    transcript: str
    reply: str
    stages: dict[str, float]
    voice_to_voice_ms: float | None
    speculative: bool = False
    discarded: int = 0
    speech_s: float | None = None  # utterance length: first to last speech sample of the file
    asr: dict = field(default_factory=dict)  # how the final transcript was made (TurnMetrics.asr)
    word_errors: int | None = None  # against the reference text, when there is one
    ref_words: int | None = None
    first_prepared: bool = False  # the reply's first clause was prepared ahead (tts.prefill)

    @property
    def bucket(self) -> str:
        return length_bucket(self.speech_s)

    def to_json(self) -> dict:
        return {"mode": self.mode, "input": self.input, "lang": self.lang, "transcript": self.transcript,
                "reply": self.reply, "stages": self.stages, "voice_to_voice_ms": self.voice_to_voice_ms,
                "speculative": self.speculative, "discarded": self.discarded,
                "speech_s": self.speech_s, "length_bucket": self.bucket, "asr": self.asr,
                "word_errors": self.word_errors, "ref_words": self.ref_words, "first_prepared": self.first_prepared}


def length_bucket(seconds: float | None) -> str:
    """The LENGTH_BUCKETS label of an utterance this long ("" when unknown); a bound belongs to the longer bucket."""
    if seconds is None:
        return ""
    for label, lo, hi in LENGTH_BUCKETS:
        if lo <= seconds < hi:
            return label
    return LENGTH_BUCKETS[-1][0]


def last_speech_sample(pcm: np.ndarray, rate: int = SAMPLE_RATE) -> float:
    """Stream seconds of the file's last speech sample: Silero over the whole file with a fresh
    state (an energy threshold mistakes a real recording's noise floor for speech)."""
    return speech_bounds(pcm, rate)[1]


def speech_bounds(pcm: np.ndarray, rate: int = SAMPLE_RATE) -> tuple[float, float]:
    """(first, last) speech sample of the file in stream seconds; the whole file when Silero hears none."""
    from avatar.vad.speech_span import speech_span

    span = speech_span(pcm)
    return span if span else (0.0, len(pcm) / rate)


def reference_text(wav, references: dict[str, str] | None = None, names_are_transcripts: bool = False) -> str:
    """The words said in `wav`: from `references` (by file name), else its name when names are transcripts."""
    name = Path(wav).name
    if references and name in references:
        return references[name]
    return Path(wav).stem.replace("_", " ") if names_are_transcripts else ""


def clip_language(wav) -> str:
    """The language of a clip by its folder (…/de/… or …/en/…); "" when the path does not say."""
    parts = Path(wav).parts
    return next((p for p in reversed(parts[:-1]) if p in ("de", "en")), "")


def run_bench(cfg, wavs: Sequence[Path], modes: Sequence[str] = ("streaming",), repeats: int = 1,
              progress: Callable[[str], None] = print, tracer: Tracer | None = None,
              references: dict[str, str] | None = None, names_are_transcripts: bool = False) -> dict:
    from avatar.asr.word_accuracy import word_errors

    from avatar.audio.convert import read_wav_16k
    from avatar.pipeline.build import build_voice_loop, load_stages, prefill_now

    tracer = tracer or Tracer()
    cfg = cfg.with_overrides({"tts.cache_clauses": 0})  # every turn synthesizes: no replayed audio
    # each design gets its own stages: the ASR path (trimmed or full window) is set when it loads
    overrides = {mode: mode_overrides(mode) for mode in modes}  # a typo fails before any model loads
    stages_of = {mode: load_stages(cfg.with_overrides(overrides[mode]), tracer, progress=progress) for mode in modes}
    # the voice's likely replies ready, as on a kiosk that has been idle (tts.prefill; the clause cache
    # of replies already spoken stays off: every other reply is synthesized in its turn)
    prepared = {mode: prefill_now(stages_of[mode], cfg.with_overrides(overrides[mode]), progress) for mode in modes}
    turns: list[Turn] = []
    with tempfile.TemporaryDirectory() as tmp:
        total = len(wavs) * repeats * len(modes)
        done = 0
        for rep in range(repeats):
            for wav in wavs:
                start, true_end = speech_bounds(read_wav_16k(wav))
                speech_s = round(true_end - start, 2)
                for mode in modes:  # interleaved: both designs see the same load
                    mode_cfg = cfg.with_overrides(overrides[mode])
                    loop = build_voice_loop(mode_cfg, [wav], Path(tmp) / "out.wav", tracer, stages_of[mode])
                    try:
                        metrics = loop.run_until_done(drain=False, timeout=60)
                    finally:  # the reply's remaining clauses are still being synthesized: wait for them
                        loop.close()
                    done += 1
                    if not metrics:
                        turns.append(Turn(mode, str(wav), "", "", "", {}, None, speech_s=speech_s))
                        progress(f"[{done}/{total}] {mode:<10} {Path(wav).name}: no reply")
                        continue
                    m = metrics[0]  # one question per file
                    true_end_clock = true_end + (loop.audio_offset or 0.0)
                    v2v = (m.audible - true_end_clock) * 1000
                    stage_ms = dict(m.stages)
                    # the endpoint stage runs from the true end of speech, so the stages still add up
                    stage_ms[ENDPOINT] = round(stage_ms.get(ENDPOINT, 0.0) + (m.speech_end - true_end_clock) * 1000, 2)
                    turn = Turn(mode, str(wav), m.lang, m.transcript, m.reply, stage_ms, round(v2v, 1),
                                m.speculative, loop.discarded, speech_s, dict(getattr(m, "asr", {}) or {}),
                                first_prepared=bool(getattr(m, "first_prepared", False)))
                    ref = reference_text(wav, references, names_are_transcripts)
                    if ref:
                        turn.word_errors, turn.ref_words = word_errors(ref, m.transcript)
                    turns.append(turn)
                    progress(f"[{done}/{total}] {mode:<10} {Path(wav).name} ({speech_s:.1f} s): {v2v:.0f} ms  "
                             f"'{m.transcript}' -> '{m.reply[:60]}'")
    out = summarize(turns, stages_of[modes[0]].notices)
    out["prefill"] = {mode: (None if p is None else {"clauses": p.held, "listed": p.wanted, "full": p.full})
                      for mode, p in prepared.items()}
    return out


def summarize(turns: list[Turn], notices: Sequence[str] = ()) -> dict:
    out: dict = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "machine": f"{platform.machine()} {platform.processor() or ''} {_cores()} cores".strip(),
                 "notices": list(notices), "turns": [t.to_json() for t in turns], "modes": {}}
    for mode in dict.fromkeys(t.mode for t in turns):
        mt = [t for t in turns if t.mode == mode]
        names = list(dict.fromkeys(k for t in mt for k in t.stages))
        summary = {"voice_to_voice": p50_p95([t.voice_to_voice_ms for t in mt]),
                   "stages_p50": {k: round(statistics.median([t.stages[k] for t in mt if k in t.stages]), 1)
                                  for k in names},
                   "by_lang": {lang: p50_p95([t.voice_to_voice_ms for t in mt if t.lang == lang])
                               for lang in sorted({t.lang for t in mt if t.lang})},
                   "no_reply": sum(1 for t in mt if t.voice_to_voice_ms is None),
                   # speculative work thrown away because the visitor went on speaking
                   "discarded": sum(t.discarded for t in mt),
                   "turns_with_discard": sum(1 for t in mt if t.discarded),
                   "by_length": _by_length(mt),
                   "asr_final": _asr_final(mt),
                   "word_accuracy": _word_accuracy(mt),
                   "first_turn": _first_turn(mt),
                   # replies whose first clause was prepared ahead (tts.prefill): their first audio is a replay
                   "first_prepared": sum(1 for t in mt if t.first_prepared)}
        long = p50_p95([t.voice_to_voice_ms for t in mt if t.speech_s is not None and t.speech_s >= LONG_S])
        short = p50_p95([t.voice_to_voice_ms for t in mt if t.speech_s is not None and t.speech_s < SHORT_S])
        summary["long_vs_short"] = {"long_p50": long["p50"], "long_n": long["n"], "short_p50": short["p50"],
                                    "short_n": short["n"], "difference_ms": (
                                        round(long["p50"] - short["p50"], 1)
                                        if long["p50"] is not None and short["p50"] is not None else None)}
        out["modes"][mode] = summary
    # the bucket table, designs side by side: {bucket: {mode: p50}}
    out["length_buckets"] = {label: {mode: s["by_length"][label]["voice_to_voice"]["p50"]
                                     for mode, s in out["modes"].items()}
                             for label, _, _ in LENGTH_BUCKETS}
    if {"streaming", "sequential"} <= set(out["modes"]):
        s = out["modes"]["streaming"]["voice_to_voice"]["p50"]
        q = out["modes"]["sequential"]["voice_to_voice"]["p50"]
        if s and q:
            out["sequential_over_streaming_p50"] = round(q / s, 2)
    return out


def format_table(summary: dict) -> str:
    lines = []
    for mode, s in summary["modes"].items():
        v = s["voice_to_voice"]
        lines.append(f"{mode}: voice-to-voice p50 {v['p50']} ms, p95 {v['p95']} ms over {v['n']} turns"
                     f" ({s['no_reply']} without reply; speculation discarded {s.get('discarded', 0)} times"
                     f" in {s.get('turns_with_discard', 0)} turns)")
        for lang, p in s["by_lang"].items():
            lines.append(f"  {lang}: p50 {p['p50']} ms, p95 {p['p95']} ms (n={p['n']})")
        if s.get("first_prepared"):
            lines.append(f"  first clause prepared ahead (tts.prefill) in {s['first_prepared']} of {v['n']} turns")
        lines.append("  stage medians (ms): " + ", ".join(f"{k} {v}" for k, v in s["stages_p50"].items()))
        a = s.get("asr_final") or {}
        if a.get("paths"):
            lines.append("  final ASR: " + ", ".join(f"{k} {v}" for k, v in a["paths"].items())
                         + (" (fallback: " + ", ".join(f"{k} {v}" for k, v in a["fallbacks"].items()) + ")"
                            if a.get("fallbacks") else "")
                         + f"; audio encoded median {a['encoded_s_p50']} s of {a['speech_s_p50']} s heard")
        for lang, f in (s.get("first_turn") or {}).items():
            lines.append(f"  first {lang} turn against the same clip later (ms, median of {f['later_n']}): " +
                         ", ".join(f"{k} {v['first']}/{v['later']}" + (f" ({v['ratio']}x)" if v["ratio"] else "")
                                   for k, v in f["stages"].items()))
        if s.get("word_accuracy"):
            lines.append("  word accuracy: " + ", ".join(f"{k} {v['accuracy']} ({v['words']} words)"
                                                         for k, v in s["word_accuracy"].items()))
    if "sequential_over_streaming_p50" in summary:
        lines.append(f"sequential / streaming p50: {summary['sequential_over_streaming_p50']}x")
    lines.extend(format_length_table(summary))
    return "\n".join(lines)


def format_length_table(summary: dict) -> list[str]:
    """Voice-to-voice p50 per utterance length bucket, one column per design (and the ASR median)."""
    modes = list(summary.get("modes", {}))
    if not modes:
        return []
    rows: list[list[str]] = []
    for label, _, _ in LENGTH_BUCKETS:
        cells = [label]
        for m in modes:
            b = summary["modes"][m]["by_length"][label]
            v, asr = b["voice_to_voice"], b["stages_p50"].get("asr")
            cells.append("-" if v["p50"] is None else
                         f"{v['p50']:.0f} (n={v['n']}" + (f", asr {asr:.0f})" if asr is not None else ")"))
        rows.append(cells)
    diffs = [summary["modes"][m].get("long_vs_short", {}).get("difference_ms") for m in modes]
    rows.append([">4s - <2s", *("-" if d is None else f"{d:+.0f}" for d in diffs)])
    width = max(len(c) for row in rows + [modes] for c in row) + 2
    lines = ["voice-to-voice p50 by utterance length (ms; n turns; ASR final median):",
             "  " + "speech".ljust(10) + "".join(m.rjust(width) for m in modes)]
    lines += ["  " + row[0].ljust(10) + "".join(c.rjust(width) for c in row[1:]) for row in rows]
    return lines


FIRST_TURN_STAGES = (ENDPOINT, ASR, ANSWER, TTS_FIRST_AUDIO, OUTPUT)


def _coarse_stages(stages: dict[str, float]) -> dict[str, float]:
    """The loop's stages with the answerer's spans (retrieval, decode, check.*, answer_other) as one."""
    answer = sum(v for k, v in stages.items() if k not in LOOP_STAGES)
    return {**{k: stages.get(k, 0.0) for k in FIRST_TURN_STAGES}, "answer": answer}


def _first_turn(turns: list[Turn]) -> dict:
    """Warm-up's test (issue 12): each language's first turn against the same clip's later turns (with
    --repeats), stage by stage; the same audio, so only what the first turn paid extra differs."""
    out = {}
    for lang in dict.fromkeys(t.lang for t in turns if t.lang):
        first = next(t for t in turns if t.lang == lang)
        later = [t for t in turns if t.input == first.input and t is not first and t.voice_to_voice_ms is not None]
        if first.voice_to_voice_ms is None or not later:
            continue
        f, rest = _coarse_stages(first.stages), [_coarse_stages(t.stages) for t in later]
        stages = {}
        for k in FIRST_TURN_STAGES:
            med = statistics.median(r[k] for r in rest)
            stages[k] = {"first": round(f[k], 1), "later": round(med, 1),
                         "ratio": round(f[k] / med, 2) if med > 1.0 else None}
        out[lang] = {"input": first.input, "later_n": len(later), "stages": stages}
    return out


def _by_length(turns: list[Turn]) -> dict:
    out = {}
    for label, _, _ in LENGTH_BUCKETS:
        bt = [t for t in turns if t.bucket == label]
        names = list(dict.fromkeys(k for t in bt for k in t.stages))
        out[label] = {"voice_to_voice": p50_p95([t.voice_to_voice_ms for t in bt]),
                      "stages_p50": {k: round(statistics.median([t.stages[k] for t in bt if k in t.stages]), 1)
                                     for k in names},
                      "inputs": len({t.input for t in bt})}
    return out


def _word_accuracy(turns: list[Turn]) -> dict:
    """Word accuracy of the final transcripts of turns with a reference, per clip language and over all."""
    out = {}
    for lang in [*sorted({clip_language(t.input) for t in turns if t.ref_words}), "all"]:
        scored = [t for t in turns if t.ref_words and lang in ("all", clip_language(t.input))]
        words = sum(t.ref_words for t in scored)
        if words:
            out[lang] = {"accuracy": round(1 - sum(t.word_errors for t in scored) / words, 3),
                         "words": words, "turns": len(scored)}
    return out


def _asr_final(turns: list[Turn]) -> dict:
    """How the final transcripts were made: paths (tail = incremental), fallbacks and why, audio encoded."""
    with_info = [t for t in turns if t.asr]
    enc = [t.asr["encoded_s"] for t in with_info if t.asr.get("encoded_s")]
    heard = [t.asr["speech_s"] for t in with_info if t.asr.get("speech_s")]
    return {"paths": dict(Counter(t.asr.get("path", "") for t in with_info)),
            "fallbacks": dict(Counter(t.asr["fallback"] for t in with_info if t.asr.get("fallback"))),
            "encoded_s_p50": round(statistics.median(enc), 2) if enc else None,
            "speech_s_p50": round(statistics.median(heard), 2) if heard else None}


def _cores() -> int:
    import os

    return os.cpu_count() or 0
