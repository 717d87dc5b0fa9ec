"""The adversarial set and its side-by-side evaluation, run with a scripted noisy answerer (no model)."""
import re

from avatar import config
from avatar.answer.base import Answer, Fact
from avatar.answer.checks import Candidate, check_and_choose
from avatar_dev.bench.adversarial import KINDS, format_report, generate_cases, run_adversarial_eval, venue_pack
from avatar.answer.checks.content import extract
from avatar.answer.checks.grounding import check_grounding
from avatar.answer.retrieval import Retriever
from avatar.trace import Tracer


def test_cases_are_reproducible_balanced_and_from_held_out_venues():
    cases = generate_cases(16, seed=3)
    assert [c.question for c in cases] == [c.question for c in generate_cases(16, seed=3)]
    assert {c.kind for c in cases} == set(KINDS) and {c.lang for c in cases} == {"de", "en"}
    assert all(c.venue_seed % 2 == 1 for c in cases)  # odd seeds: the corpus never trains on them
    assert all(c.expect_decline == (c.kind == "unknown") for c in cases)


def test_near_miss_plants_a_value_the_venue_does_not_have():
    for case in (c for c in generate_cases(40, seed=1) if c.kind == "near_miss"):
        pack = [f.text for f in venue_pack(case.venue_seed).facts(case.lang)]
        reply = ("Ja, " if case.lang == "de" else "Yes, ") + case.forbidden[0] + "."
        assert extract(case.forbidden[0], case.lang).items and not check_grounding(reply, case.lang, [
            Fact(str(i), case.lang, t) for i, t in enumerate(pack)]).ok, case


class NoisyAnswerer:
    """Says the best retrieved fact, but variant 0 miscopies its first number on every other question."""

    def __init__(self, pack, checked):
        self.retriever, self.checked = Retriever(pack), checked
        self.cfg = config.load(sets=[f"checks.enabled={str(checked).lower()}", "checks.max_extra_ratio=0"], env={})

    def answer(self, question, lang, history=(), cancel=None, turn=None):
        facts = self.retriever.retrieve(question, lang, 3)

        def decode(variant, banned):
            if not facts:
                return Candidate("Sorry, I don't know that." if lang == "en" else "Das weiß ich leider nicht.", lang, "sorry")
            text = facts[0].text
            m = re.search(r"\d+", text)
            if m and variant == 0 and len(question) % 2 == 0:
                wrong = str(int(m.group()) + 1)
                if wrong not in banned:
                    text = text[:m.start()] + wrong + text[m.end():]
            return Candidate(text, lang, "info")

        out = check_and_choose(question, lang, facts, decode, self.cfg, budget_ms=1e6, tracer=Tracer(), turn=turn)
        return Answer(out.reply, out.lang, facts, out.mood, checks=out.checks)


def test_checked_answers_never_say_an_unsupported_number_where_unchecked_ones_do():
    result = run_adversarial_eval(NoisyAnswerer, n=24, seed=5)
    assert result["unchecked"]["unsupported_numeric_rate"] > 0
    assert result["checked"]["unsupported_numeric_rate"] == 0
    assert result["checked"]["wrong_fact_rate"] < result["unchecked"]["wrong_fact_rate"]
    report = format_report(result)
    assert "wrong-fact rate" in report and "latency p95" in report
