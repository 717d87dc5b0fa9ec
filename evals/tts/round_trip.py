"""Round trip of the kiosk's voices through the kiosk's ear: the project's own replies (the retrieval
answerer on the sample pack and the dev packs, what the kiosk says) synthesized by each voice and
transcribed by Whisper base with the language fixed; the word error against the text that was
spoken, every voice on the same sentences in one run (docs/PERF.md, "The German voice"):

    PYTHONPATH=. python evals/tts/round_trip.py [--de 48] [--en 24] [--json FILE]

German is spoken by SVOX Pico and by espeak-ng (tts.engines_de set to each), English by the
configured piper voice. Numbers are compared as words (num2words), so "18" heard as "achtzehn"
is no error, and a price or a time in either order ("8,90 €" / "8 Euro 90") is one; beside the word
error, the letter error (the words' letters in a row: a compound Whisper writes apart, "Archiv
Personal", is no error there, as German compounds make word error harsh); the venue prompt is off (asr.venue_prompt_languages = []), so no voice is helped by it.
The test packs are not used.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path

import numpy as np
from num2words import num2words

from avatar import config
from avatar.answer import knowledge as kp
from avatar.answer.retrieval_answerer import RetrievalAnswerer
from avatar.asr import WhisperASR
from avatar.asr.word_accuracy import edit_distance, words
from avatar.audio.convert import to_pcm_16k
from avatar_dev.train.evaluate import SAMPLE_PACK_QUESTIONS
from avatar_dev.train.pack_eval import load_questions
from avatar.tts.speech_text import speakable
from avatar.tts.synthesizer import Synthesizer

ROOT = Path(__file__).resolve().parents[2]
DEV = sorted(p for p in (ROOT / "evals" / "packs").glob("dev*/*") if (p / "questions.toml").is_file())


def replies(cfg, lang: str, n: int) -> list[str]:
    """Up to n different replies of the retrieval answerer in `lang`: the sample pack's, then the dev packs' in turn."""
    sets = [(ROOT / "assets" / "venues" / "sample", [q for q, ql, _ in SAMPLE_PACK_QUESTIONS if ql == lang])]
    sets += [(d, [q.q for q in load_questions(d) if q.lang == lang]) for d in DEV]
    per_set = [[RetrievalAnswerer(kp.load_pack(folder), cfg).answer(q, lang).reply for q in qs] for folder, qs in sets]
    out: list[str] = []
    for i in range(max(len(s) for s in per_set)):  # round robin, so every pack's wording is in
        for s in per_set:
            if i < len(s) and s[i].strip() and s[i] not in out:
                out.append(s[i])
    return out[:n]


def as_words(text: str, lang: str) -> list[str]:
    """The text's words, lower case, numbers written out; a price in one order ("8,90 €" as "8 Euro 90")."""
    unit = "Euro" if lang == "de" else "euros"
    text = re.sub(r"(\d+)[.,](\d{2})\s*(?:€|EUR\b|Euro\b|euros?\b)", rf"\1 {unit} \2", text)
    text = re.sub(r"\s*€", f" {unit}", text)
    text = re.sub(r"\b(\d{1,2})[.,:](\d{2})\s*Uhr\b", r"\1 Uhr \2", text)  # "14,30 Uhr" as "14 Uhr 30"
    text = re.sub(r"(\d)[.:,](\d)", r"\1 \2", text)
    out = []
    for w in words(text):
        out += words(num2words(int(w), lang=lang)) if w.isdigit() and len(w) < 7 else [w]
    return out


def letters(words_: list[str]) -> list[str]:
    """The words' letters in a row: a compound written apart ("Archiv Personal") is no error here."""
    return list("".join(words_))


def errors(ref: list, hyp: list) -> int:
    return edit_distance(ref, hyp)


def run(cfg, asr, voice_sets: dict[str, tuple[str, list[str]]]) -> dict:
    report = {}
    for name, (lang, sentences) in voice_sets.items():
        over = {"de": ["tts.engines_de=[\"espeak\"]"] if name == "espeak-ng" else []}.get(lang, [])
        tts = Synthesizer(config.load(env={}, sets=over).tts)
        voice = tts.voice_for(lang).name
        errs = total = cerrs = ctotal = 0
        rows, rtf = [], []
        for text in sentences:
            spoken = speakable(text, lang)
            chunks = list(tts.synthesize(text, lang))
            pcm16 = [to_pcm_16k(c.pcm, c.sample_rate) for c in chunks]
            audio = np.concatenate(pcm16)
            synth_s = sum(c.ms for c in chunks if c.part == 0) / 1000
            rtf.append(synth_s / max(1e-3, len(audio) / 16000))
            heard = asr.transcribe(audio, lang=lang).text
            ref, hyp = as_words(spoken, lang), as_words(heard, lang)
            e, ce = errors(ref, hyp), errors(letters(ref), letters(hyp))
            errs, total, cerrs, ctotal = errs + e, total + len(ref), cerrs + ce, ctotal + len(letters(ref))
            rows.append({"spoken": spoken, "heard": heard, "errors": e, "words": len(ref), "letter_errors": ce})
        report[name] = {"voice": voice, "lang": lang, "sentences": len(sentences), "words": total,
                        "word_error": round(errs / max(1, total), 4),
                        "letter_error": round(cerrs / max(1, ctotal), 4), "rtf_median": round(statistics.median(rtf), 4),
                        "rows": rows}
        print(f"{name:10} ({voice}, {lang}): {len(sentences)} sentences, {total} words, "
              f"word error {errs / max(1, total):.1%}, letter error {cerrs / max(1, ctotal):.1%}, real-time factor median {statistics.median(rtf):.3f}", flush=True)
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--de", type=int, default=48)
    ap.add_argument("--en", type=int, default=24)
    ap.add_argument("--json")
    args = ap.parse_args()
    cfg = config.load(env={}, sets=["asr.venue_prompt_languages=[]"])
    asr = WhisperASR(cfg.asr, cfg.general.languages)
    asr.warmup()
    de, en = replies(cfg, "de", args.de), replies(cfg, "en", args.en)
    report = run(cfg, asr, {"pico": ("de", de), "espeak-ng": ("de", de), "piper": ("en", en)})
    if args.json:
        Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
