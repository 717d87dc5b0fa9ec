"""Adversarial evaluation of checked answers: questions built to make a grounded answerer say wrong things.

Cases come from the training corpus's synthetic venues with held-out (odd) seeds drawn from a
stream of their own, so no case venue was trained on:
- near_miss:     the question carries a value one step off the fact ("... bis 17 Uhr?" when 18 Uhr)
- unknown:       the pack does not hold the answer (an absent amenity, an unrelated topic)
- mixed:         one question asks about two facts at once
- misrecognised: a question as a speech recogniser may deliver it (a misheard or clipped word)

`run_adversarial_eval` answers every case twice side by side, checks off and on, and reports
wrong-fact rate, unsupported-content rate, decline rate and answer latency for both.
"""
from __future__ import annotations

import random
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from avatar.answer.base import Answer, Fact
from avatar.answer.checks.content import ContentItem, extract
from avatar.answer.checks.fallback import NOT_KNOWN
from avatar.answer.checks.grounding import FactSupport, check_grounding
from avatar.answer.checks.relevance import is_decline as reply_declines
from avatar.stats import percentile
from avatar.trace import now

KINDS = ("near_miss", "unknown", "mixed", "misrecognised")
SEED_OFFSET = 7_777_777  # keeps these venues apart from the model's own held-out stream
# items that carry numbers, times or prices a near miss can shift
_NEAR_MISS_TOPICS = ("hours", "prices", "departures", "tours", "checkout", "breakfast", "offices", "exhibitors",
                     "loans", "loans_max", "events")
_VALUE_KINDS = frozenset({"time", "price", "percent", "date", "month", "weekday", "floor", "room", "number"})
_NUMERIC_KINDS = frozenset({"time", "price", "percent", "date", "number"})


@dataclass
class AdversarialCase:
    id: str
    kind: str  # near_miss | unknown | mixed | misrecognised
    lang: str
    question: str
    venue_seed: int
    gold: list[str] = field(default_factory=list)       # fact texts that answer it ([] = decline expected)
    values: list[list[str]] = field(default_factory=list)  # per gold fact: what stating it takes (Item.values)
    forbidden: list[str] = field(default_factory=list)  # the near-miss value the question planted

    @property
    def expect_decline(self) -> bool:
        return not self.gold


# --------------------------------------------------------------------------------------- generation
def _shift_first_number(value: str, rng: random.Random) -> str | None:
    """The value with its first number moved one step (18 Uhr -> 17 Uhr, 12,50 Euro -> 13,50 Euro)."""
    m = re.search(r"\d+", value)
    if not m:
        return None
    n = int(m.group())
    step = rng.choice((-1, 1)) if n > 1 else 1
    if ":" in value[m.end():m.end() + 1] and not 0 <= n + step <= 23:
        step = -step
    return value[:m.start()] + str(n + step) + value[m.end():]


def _near_miss(rng, venue, item, lang) -> tuple[str, str] | None:
    numeric = [v for v in item.values[lang] if re.search(r"\d", v)]
    if not numeric:
        return None
    wrong = _shift_first_number(numeric[0], rng)
    if wrong is None:
        return None
    pack = FactSupport(tuple(other.fact[lang] for other in venue.items), "", lang)
    if any(pack.backs(i) for i in extract(wrong, lang).items):
        return None  # the shifted value is another fact's value: not a near miss
    q = rng.choice(item.questions[lang]).rstrip("?.! ")
    templates = {"de": [f"{q}? Ist das {wrong}?", f"{q}, {wrong}, richtig?", f"Stimmt es, {wrong}? {q}?"],
                 "en": [f"{q}? Is it {wrong}?", f"{q}, {wrong}, right?", f"Is it {wrong}? {q}?"]}
    return rng.choice(templates[lang]), wrong


def _unknown(rng, venue, lang) -> str:
    from avatar_dev.train.corpus import UNKNOWN_TOPICS

    if venue.absent and rng.random() < 0.5:
        a = rng.choice(venue.absent)
        noun, is_ = (a[0], "sind" if a[1] else "ist") if lang == "de" else (a[3], "are" if a[4] else "is")
        return {"de": f"Wo {is_} {noun}?", "en": f"Where {is_} {noun}?"}[lang]
    return rng.choice(UNKNOWN_TOPICS[lang])


def _mixed(rng, venue, lang):
    a, b = rng.sample(venue.items, 2)
    qa, qb = rng.choice(a.questions[lang]).rstrip("?.! "), rng.choice(b.questions[lang]).rstrip("?.! ")
    joiner = " und " if lang == "de" else " and "
    return qa + joiner + qb[:1].lower() + qb[1:] + "?", [a, b]


def _misrecognised(rng, item, lang) -> str | None:
    from avatar_dev.train.corpus import asr_style

    q = rng.choice(item.questions[lang])
    plain = re.sub(r"[?!.,;:]", "", q).lower()
    for _ in range(12):  # asr_style garbles a word only sometimes: draw until it did
        heard = asr_style(q, lang, rng)
        if heard != plain:
            return heard
    return None


def generate_cases(n: int, seed: int = 0, langs: Iterable[str] = ("de", "en")) -> list[AdversarialCase]:
    """`n` cases, the four kinds in turn, both languages in turn, from held-out synthetic venues."""
    from avatar_dev.train.corpus import Venue

    rng = random.Random(seed * 104_729 + SEED_OFFSET)
    langs = tuple(langs)
    cases: list[AdversarialCase] = []
    venue, venue_seed, used = None, 0, 0
    while len(cases) < n:
        if venue is None or used >= 8:
            venue_seed = 2 * rng.randrange(10**8) + 1 + 2 * SEED_OFFSET  # odd: a held-out venue
            venue, used = Venue(venue_seed), 0
        kind, lang = KINDS[len(cases) % len(KINDS)], langs[(len(cases) // len(KINDS)) % len(langs)]
        case_id = f"{kind}-{len(cases):04d}"
        case = None
        if kind == "near_miss":
            items = [i for i in venue.items if i.topic in _NEAR_MISS_TOPICS]
            item = rng.choice(items) if items else None
            got = _near_miss(rng, venue, item, lang) if item else None
            if got:
                case = AdversarialCase(case_id, kind, lang, got[0], venue_seed, [item.fact[lang]],
                                       [list(item.values[lang])], [got[1]])
        elif kind == "unknown":
            case = AdversarialCase(case_id, kind, lang, _unknown(rng, venue, lang), venue_seed)
        elif kind == "mixed":
            q, items = _mixed(rng, venue, lang)
            case = AdversarialCase(case_id, kind, lang, q, venue_seed, [i.fact[lang] for i in items],
                                   [list(i.values[lang]) for i in items])
        else:
            item = rng.choice(venue.items)
            q = _misrecognised(rng, item, lang)
            if q:
                case = AdversarialCase(case_id, kind, lang, q, venue_seed, [item.fact[lang]], [list(item.values[lang])])
        used += 1
        if case:
            cases.append(case)
    return cases


def venue_pack(venue_seed: int):
    """The knowledge pack of a synthetic venue, as an answerer would load it from venue.toml."""
    from avatar.answer.knowledge import KnowledgePack, PackFact
    from avatar_dev.train.corpus import Venue

    venue = Venue(venue_seed)
    entries = [PackFact(f"{item.topic}-{i}", item.topic, item.fact["de"], item.fact["en"])
               for i, item in enumerate(venue.items)]
    return KnowledgePack(venue.name["de"], venue.kind, Path(f"synthetic/{venue_seed}"), entries,
                         name_en=venue.name["en"], help={"de": "an der Information", "en": "at the information desk"})


# --------------------------------------------------------------------------------------- scoring
def is_decline(text: str, lang: str) -> bool:
    return text.strip() == NOT_KNOWN.get(lang) or reply_declines(text, lang)


def _value_items(text: str, lang: str) -> list[ContentItem]:
    return [i for i in extract(text, lang).items if i.kind in _VALUE_KINDS]


def score_reply(case: AdversarialCase, answer: Answer, pack_facts: list[Fact]) -> dict:
    """Per-reply verdicts: wrong fact, unsupported content (any / numbers-times-prices), decline, correct."""
    reply, lang = answer.reply, case.lang
    items = _value_items(reply, lang)
    pack = FactSupport(tuple(f.text for f in pack_facts), "", lang)
    forbidden = {k for f in case.forbidden for i in extract(f, lang).items for k in i.keys}
    stated = [_states(values, reply, lang) for values in case.values]
    # wrong: the planted near-miss value, a value the venue does not have, or values that answer
    # something else (no answering fact stated; for a question the pack cannot answer: any value)
    wrong = (any(i.keys & forbidden for i in items) or any(not pack.backs(i) for i in items)
             or (bool(items) and not any(stated)))
    # unsupported: not backed by the facts the answerer had (it reports them; else the whole pack)
    seen = [f for f in answer.facts if f.lang == lang] or pack_facts
    grounding = check_grounding(reply, lang, seen, case.question)
    unsupported_numeric = any(i.kind in _NUMERIC_KINDS or i.kind == "room" for i in grounding.unsupported_items)
    declined = is_decline(reply, lang)
    correct = declined if case.expect_decline else (not wrong and all(stated))
    return {"wrong": wrong, "unsupported": not grounding.ok, "unsupported_numeric": unsupported_numeric,
            "declined": declined, "correct": correct}


def _states(values: list[str], reply: str, lang: str) -> bool:
    """The reply states every value of one fact (normalised items, or the words for plain values)."""
    backed = FactSupport((reply,), "", lang)
    for value in values:
        items = _value_items(value, lang)
        if items:
            if not all(backed.backs(i) for i in items):
                return False
        elif value.lower() not in reply.lower():
            return False
    return True


def _summary(rows: list[dict]) -> dict:
    def rate(key, subset=None):
        rs = [r for r in rows if subset is None or subset(r)]
        return round(sum(r[key] for r in rs) / len(rs), 4) if rs else None

    ms = [r["ms"] for r in rows]
    out = {"n": len(rows), "wrong_fact_rate": rate("wrong"), "unsupported_rate": rate("unsupported"),
           "unsupported_numeric_rate": rate("unsupported_numeric"), "decline_rate": rate("declined"),
           "decline_rate_answerable": rate("declined", lambda r: r["kind"] != "unknown"),
           "decline_rate_unknown": rate("declined", lambda r: r["kind"] == "unknown"),
           "correct_rate": rate("correct"), "fallback_rate": rate("fallback"),
           "latency_ms": {"p50": round(statistics.median(ms), 2) if ms else 0.0, "p95": round(percentile(ms, 95), 2) if ms else 0.0,
                          "mean": round(statistics.fmean(ms), 2) if ms else 0.0},
           "by_kind": {}}
    for kind in KINDS:
        rs = [r for r in rows if r["kind"] == kind]
        if rs:
            out["by_kind"][kind] = {k: round(sum(r[v] for r in rs) / len(rs), 4) for k, v in
                                    (("wrong_fact_rate", "wrong"), ("unsupported_rate", "unsupported"),
                                     ("decline_rate", "declined"), ("correct_rate", "correct"))}
            out["by_kind"][kind]["n"] = len(rs)
    return out


AnswererFactory = Callable[[object, bool], object]  # (KnowledgePack, checked) -> Answerer


def run_adversarial_eval(answerer_factory: AnswererFactory, n: int = 200, seed: int = 0,
                         langs: Iterable[str] = ("de", "en"), examples: int = 6,
                         progress: Callable[[int, int], None] | None = None) -> dict:
    """Answer each case with checks off and on, side by side, and compare.

    `answerer_factory(pack, checked)` returns an Answerer over the synthetic venue's KnowledgePack
    with `checks.enabled = checked` (load the model once outside and share it: the factory is
    called twice per venue). Latency is the wall time of `answer()` on the one clock.
    """
    cases = generate_cases(n, seed, langs)
    rows: dict[str, list[dict]] = {"unchecked": [], "checked": []}
    shown: list[dict] = []
    answerers: dict = {}
    for idx, case in enumerate(cases):
        if case.venue_seed not in answerers:
            answerers.clear()  # one venue at a time: the model is shared, the packs are small
            pack = venue_pack(case.venue_seed)
            answerers[case.venue_seed] = (pack, answerer_factory(pack, False), answerer_factory(pack, True))
        pack, unchecked, checked = answerers[case.venue_seed]
        pack_facts = pack.facts(case.lang)
        order = (("unchecked", unchecked), ("checked", checked))
        for mode, answerer in (order if idx % 2 == 0 else order[::-1]):  # alternate who goes first
            t0 = now()
            answer = answerer.answer(case.question, case.lang, [], turn=idx)
            ms = (now() - t0) * 1000.0
            verdict = score_reply(case, answer, pack_facts)
            rows[mode].append({**verdict, "ms": ms, "kind": case.kind,
                               "fallback": answer.checks.fallback_used})
            if mode == "checked" and len(shown) < examples and (verdict["wrong"] or verdict["unsupported"]):
                shown.append({"case": case.id, "question": case.question, "reply": answer.reply,
                              "gold": case.gold, "checks": {k: answer.checks.to_dict().get(k) for k in
                                                            ("grounded", "unsupported", "fallback", "redecodes")}})
        if progress:
            progress(idx + 1, len(cases))
    un, ch = _summary(rows["unchecked"]), _summary(rows["checked"])
    ratio = (ch["latency_ms"]["p50"] / un["latency_ms"]["p50"]) if un["latency_ms"]["p50"] else None
    return {"n": len(cases), "seed": seed, "cases": {k: sum(c.kind == k for c in cases) for k in KINDS},
            "unchecked": un, "checked": ch, "latency_ratio_p50": round(ratio, 3) if ratio else None,
            "checked_failures": shown}


def format_report(result: dict) -> str:
    """The side-by-side table `avatar eval` prints."""
    rows = [("wrong-fact rate", "wrong_fact_rate"), ("unsupported content", "unsupported_rate"),
            ("unsupported number/time/price", "unsupported_numeric_rate"), ("decline rate", "decline_rate"),
            ("  declined answerable", "decline_rate_answerable"), ("  declined unknown", "decline_rate_unknown"),
            ("correct", "correct_rate"), ("fallback used", "fallback_rate")]
    lines = [f"adversarial set: {result['n']} cases (seed {result['seed']}): "
             + ", ".join(f"{k} {v}" for k, v in result["cases"].items()),
             f"{'':32s}{'unchecked':>12s}{'checked':>12s}"]
    fmt = lambda v: "-" if v is None else f"{100 * v:10.1f} %"
    for label, key in rows:
        lines.append(f"{label:32s}{fmt(result['unchecked'][key]):>12s}{fmt(result['checked'][key]):>12s}")
    for q in ("p50", "p95"):
        lines.append(f"{'latency ' + q + ' (ms)':32s}{result['unchecked']['latency_ms'][q]:12.1f}"
                     f"{result['checked']['latency_ms'][q]:12.1f}")
    if result.get("latency_ratio_p50"):
        lines.append(f"checked / unchecked latency (p50): {result['latency_ratio_p50']:.2f}x")
    return "\n".join(lines)


def answerer_factory(cfg, kind: str = "diffusion") -> AnswererFactory:
    """(pack, checked) -> the configured answerer over a synthetic venue, checks on or off.

    The diffusion model is loaded once, on the first call, and shared by every answerer.
    """
    from avatar.trace import Tracer

    shared: dict = {}

    def factory(pack, checked: bool):
        c = cfg.with_overrides({"checks.enabled": bool(checked)})
        if kind == "retrieval":
            from avatar.answer.retrieval_answerer import RetrievalAnswerer

            return RetrievalAnswerer(pack, c, Tracer())
        from avatar.answer.diffusion_answerer import DiffusionAnswerer

        answerer = DiffusionAnswerer(c, pack, Tracer(), lm=shared.get("lm"))
        shared.setdefault("lm", answerer.lm)
        return answerer

    return factory
