"""Cost of each check on crafted replies (no model): `avatar bench-checks [--json] [--repeat N]`.

Grounding is timed cold (facts never seen: every fact parsed and stemmed) and warm (the same
retrieved facts again, as in a conversation; the reply is always new); check_and_choose is timed
with a decoder that costs nothing (grounding + second decode + compare + schema), so its number is
the checking overhead on top of the decodes.
"""
from __future__ import annotations

import statistics

from avatar import config
from avatar.answer.base import Fact
from avatar.answer.checks.candidate import Candidate
from avatar.answer.checks.checker import check_and_choose
from avatar.answer.checks.consistency import compare, vote
from avatar.answer.checks.content import extract
from avatar.answer.checks.fallback import fallback_reply
from avatar.answer.checks.grounding import check_grounding
from avatar.answer.checks.relevance import check_relevance
from avatar.answer.checks.schema import check_schema
from avatar.trace import Tracer, now

FACTS = {
    "de": ["Am Montag ist das Museum von 10 bis 18 Uhr geöffnet.", "Der Eintritt kostet 12,50 Euro, ermäßigt 6 Euro.",
           "Die Garderobe ist im 2. Obergeschoss, neben dem Aufzug."],
    "en": ["On Monday, the museum is open from 10 am to 6 pm.", "Admission costs 12.50 euros, reduced 6 euros.",
           "The cloakroom is on level 2, next to the lift."],
}
REPLIES = {
    "de": ["Am Montag haben wir von 10 bis 18 Uhr geöffnet.", "Der Eintritt kostet 13,50 Euro.",
           "Die Garderobe finden Sie im 2. Obergeschoss bei Frau Schulz."],
    "en": ["On Monday we are open from 10 am to 6 pm.", "Admission costs 13.50 euros.",
           "You will find the cloakroom on level 2, ask Mrs Schulz."],
}
QUESTION = {"de": "Was kostet der Eintritt?", "en": "How much is admission?"}


def _ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = now()
        fn()
        times.append((now() - t0) * 1000.0)
    return statistics.median(times)


def measure(repeat: int = 200) -> dict:
    out: dict[str, dict[str, float]] = {}
    cfg = config.load(sets=["checks.max_extra_ratio=0"], env={})  # every check runs: a zero-cost decoder
    for lang in ("de", "en"):
        facts = [Fact(f"f{i}", lang, t) for i, t in enumerate(FACTS[lang])]
        cands = [Candidate(r, lang, "info", variant=i) for i, r in enumerate(REPLIES[lang])]
        counter = iter(range(10**9))

        def cold():  # new fact texts each call: nothing cached
            k = next(counter)
            fresh = [Fact(f.id, lang, f.text.replace("Montag" if lang == "de" else "Monday", f"Tag{k}")) for f in facts]
            extract.cache_clear()
            check_grounding(REPLIES[lang][0] + f" Nr{k}.", lang, fresh, QUESTION[lang])

        decoder = lambda v, banned: Candidate(f"{REPLIES[lang][0]} {fresh()}", lang, "info")
        fresh = lambda: (f"Das sind {next(counter)} Euro." if lang == "de" else f"That is {next(counter)} euros.")
        out[lang] = {
            "grounding_cold_ms": _ms(cold, repeat // 4),
            "grounding_warm_ms": _ms(lambda: check_grounding(f"{REPLIES[lang][0]} {fresh()}", lang, facts, QUESTION[lang]), repeat),
            "relevance_ms": _ms(lambda: check_relevance(f"{REPLIES[lang][0]} {fresh()}", lang, facts, QUESTION[lang]), repeat),
            "schema_ms": _ms(lambda: [check_schema(c, lang) for c in cands], repeat) / 3,
            "compare_ms": _ms(lambda: compare(cands[0], cands[1], lang), repeat),
            "vote3_ms": _ms(lambda: vote(cands, lang), repeat),
            "fallback_ms": _ms(lambda: fallback_reply(QUESTION[lang], lang, facts), repeat),
            "check_and_choose_overhead_ms": _ms(lambda: check_and_choose(QUESTION[lang], lang, facts, decoder, cfg,
                                                                         budget_ms=1e6, tracer=Tracer()), repeat),
        }
        out[lang] = {k: round(v, 4) for k, v in out[lang].items()}
    return out


def format_table(result: dict) -> str:
    lines = [f"{'median ms per call':34s}{'de':>10s}{'en':>10s}"]
    lines += [f"{key:34s}{result['de'][key]:10.3f}{result['en'][key]:10.3f}" for key in result["de"]]
    return "\n".join(lines)
