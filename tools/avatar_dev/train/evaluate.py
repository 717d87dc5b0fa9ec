"""Evaluate the embedded model on held-out synthetic venues (odd seeds: training never saw them).

For every example the reply record is decoded by the engine and scored: does it state the right
fact (every value the fact holds for this question), is it in the question's language, is an
unanswerable question declined, does it hold a number, time or name that the prompt does not
(unsupported content). The same examples are decoded twice: with the configured confidence
threshold and one token per step (the baseline).
"""
from __future__ import annotations

import random
import re
import statistics
from dataclasses import dataclass, field, replace
from typing import Any

from avatar.answer.prompt import PromptCodec
from avatar.answer.text import detect_language
from avatar.llm.engine import DecodeOptions, confidence_stats
from avatar.stats import percentile
from avatar_dev.train import corpus

DECLINE_MARKERS = ("leider", "weiß ich", "keine information", "personal", "sorry", "don't know", "no information",
                   "staff", "i'm afraid", "can't tell")
# names the generator can produce: one of these in a reply but not in the prompt was made up
NAME_POOL = frozenset(w for group in (corpus.CITIES, corpus.COMPANY, corpus.FIRST, corpus.LAST, corpus.PLACES,
                                      corpus.STREETS, corpus.DAYS["de"], corpus.DAYS["en"],
                                      corpus.MONTHS["de"], corpus.MONTHS["en"]) for name in group for w in name.split())
_NUMBER = re.compile(r"\d+")
_WORD = re.compile(r"[^\W\d_]+")


@dataclass
class Scored:
    kind: str
    lang: str
    question: str
    facts: list[str]
    reply: str
    reply_lang: str
    mood: str
    well_formed: bool
    right: bool | None        # answerable questions: every value stated
    declined: bool
    unsupported: list[str]
    ms: float
    steps: int
    tokens: int
    confidence_min: float = 1.0  # the decoder's least sure commit in the reply (a guess shows here)


@dataclass
class Report:
    decoding: str
    n: int
    right_fact: float
    in_language: float
    declined_unanswerable: float
    false_declines: float
    unsupported: float
    well_formed: float
    median_ms: float
    p95_ms: float
    tokens_per_step: float
    by_kind: dict[str, dict[str, float]] = field(default_factory=dict)


def unsupported_content(reply: str, prompt_text: str) -> list[str]:
    """Numbers and known names in the reply that the prompt (facts, history, question) does not hold."""
    numbers = set(_NUMBER.findall(prompt_text))
    names = set(_WORD.findall(prompt_text.lower()))
    bad = [n for n in _NUMBER.findall(reply) if n not in numbers]
    bad += [w for w in _WORD.findall(reply) if w in NAME_POOL and w.lower() not in names]
    return bad


def score(ex: corpus.Example, record, ms: float, steps: int, tokens: int) -> Scored:
    text = record.text
    low = text.lower()
    declined = record.mood == "sorry" and any(m in low for m in DECLINE_MARKERS)
    right = None
    if ex.kind in ("fact", "followup"):
        right = all(v.lower() in low for v in ex.values) and not declined
    prompt_text = " ".join(ex.facts + [q + " " + r for q, r in ex.history] + [ex.question])
    unsupported = unsupported_content(text, prompt_text) if ex.kind != "smalltalk" else []
    reply_lang = record.lang if detect_language(text, default=record.lang or ex.lang) == record.lang else "mixed"
    return Scored(ex.kind, ex.lang, ex.question, ex.facts, text, reply_lang, record.mood, record.well_formed,
                  right, declined, unsupported, ms, steps, tokens)


def held_out_examples(n: int, seed: int = 1) -> list[corpus.Example]:
    """n examples from held-out venues, alternating German and English questions."""
    rng = random.Random(seed)
    out: list[corpus.Example] = []
    while len(out) < n:
        venue = corpus.Venue(2 * rng.randrange(10**8) + 1)
        for _ in range(4):
            out.append(corpus.make_example(rng, venue, ("de", "en")[len(out) % 2]))
    return out[:n]


def evaluate(lm, examples: list[corpus.Example], options: DecodeOptions, name: str) -> tuple[Report, list[Scored]]:
    codec = PromptCodec(lm.tokenizer)
    stops = set(lm.eos_token_ids)
    rows = []
    for ex in examples:
        prompt = codec.prompt_ids(ex.facts, ex.history, ex.question)
        result = lm.generate(prompt, options)
        record = codec.parse_reply(result.answer_ids)
        row = score(ex, record, result.ms, result.steps, max(0, result.tokens - 3))
        end = next((i for i, t in enumerate(result.answer_ids) if t in stops), len(result.answer_ids))
        row.confidence_min = confidence_stats(result.confidence, range(end))["confidence_min"]
        rows.append(row)
    return summarise(name, rows), rows


def summarise(name: str, rows: list[Scored]) -> Report:
    share = lambda xs: round(sum(xs) / len(xs), 4) if xs else float("nan")
    answerable = [r for r in rows if r.right is not None]
    unanswerable = [r for r in rows if r.kind == "decline"]
    grounded = [r for r in rows if r.kind != "smalltalk"]
    ms = sorted(r.ms for r in rows)
    by_kind = {}
    for kind in sorted({r.kind for r in rows}):
        rs = [r for r in rows if r.kind == kind]
        by_kind[kind] = {"n": len(rs), "right": share([r.right for r in rs if r.right is not None]),
                         "declined": share([r.declined for r in rs]),
                         "in_language": share([r.reply_lang == r.lang for r in rs])}
    return Report(
        decoding=name, n=len(rows),
        right_fact=share([r.right for r in answerable]),
        in_language=share([r.reply_lang == r.lang for r in rows]),
        declined_unanswerable=share([r.declined for r in unanswerable]),
        false_declines=share([r.declined for r in answerable]),
        unsupported=share([bool(r.unsupported) for r in grounded]),
        well_formed=share([r.well_formed for r in rows]),
        median_ms=round(statistics.median(ms), 2) if ms else float("nan"),
        p95_ms=round(percentile(ms, 95), 2),  # NaN without rows
        tokens_per_step=round(sum(r.tokens for r in rows) / max(1, sum(r.steps for r in rows)), 3),
        by_kind=by_kind)


def run_eval(lm, n: int, options: DecodeOptions, seed: int = 1, baseline: bool = True) -> dict[str, Any]:
    examples = held_out_examples(n, seed)
    reports, samples = [], {}
    for name, opts in [("threshold", options)] + ([("one_per_step", options.one_per_step)] if baseline else []):
        report, rows = evaluate(lm, examples, opts, name)
        reports.append(report)
        samples[name] = rows
    return {"reports": reports, "rows": samples}


def options_for(cfg, lm) -> DecodeOptions:
    """The configured decode options, with the answer window capped at what the model was trained on, and
    no time limit (llm.max_ms): the model's own replies are scored, however long they took."""
    opts = DecodeOptions.from_config(cfg.llm, max_ms=0.0)
    limit = int(getattr(lm.model.config, "max_answer_len", opts.gen_length))
    return replace(opts, gen_length=min(opts.gen_length, limit), **PromptCodec(lm.tokenizer).decision_options(cfg.llm))


# Questions about the sample venue (assets/venues/sample) and a word the right reply holds; None = decline.
SAMPLE_PACK_QUESTIONS = [
    ("Was kostet der Eintritt?", "de", "9 €"), ("How much is admission?", "en", "9 €"),
    ("Wo ist die Garderobe?", "de", "Untergeschoss"), ("Where is the cloakroom?", "en", "basement"),
    ("Wann habt ihr am Donnerstag offen?", "de", "21:00"), ("When are you open on Sunday?", "en", "18:00"),
    ("Wie heißt das WLAN?", "de", "Stadtmuseum-Gast"), ("Is there wifi?", "en", "Stadtmuseum-Gast"),
    ("Wo ist der Aufzug?", "de", "rechts neben dem Eingang"), ("Where is the lift?", "en", "right of the entrance"),
    ("Was kostet die Familienkarte?", "de", "18 €"), ("How much is the family ticket?", "en", "18 €"),
    ("Wann gibt es Führungen?", "de", "11:00"), ("When are the guided tours?", "en", "11:00"),
    ("Am Montag geöffnet?", "de", "geschlossen"), ("Are you open on Monday?", "en", "closed"),
    ("Kann man hier Fahrräder leihen?", "de", None), ("Is there a cinema here?", "en", None),
    ("Wo ist das nächste Krankenhaus?", "de", None), ("Can I change money here?", "en", None),
]


def sample_pack_eval(answerer) -> dict[str, Any]:
    """The answerer (checks as configured) on SAMPLE_PACK_QUESTIONS: share right, and every reply."""
    rows = []
    for question, lang, expected in SAMPLE_PACK_QUESTIONS:
        ans = answerer.answer(question, lang)
        if expected is None:
            ok = ans.mood == "sorry" or any(m in ans.reply.lower() for m in DECLINE_MARKERS)
        else:
            ok = expected.lower() in ans.reply.lower()
        rows.append({"question": question, "lang": lang, "expected": expected, "reply": ans.reply, "ok": ok,
                     "source": ans.source, "ms": ans.decode.answer_time_ms})
    return {"right": round(sum(r["ok"] for r in rows) / len(rows), 4),
            "from_model": round(sum(r["ok"] and r["source"] == "diffusion" for r in rows) / len(rows), 4), "rows": rows}
