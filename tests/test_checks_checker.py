"""check_and_choose with scripted decodes: re-decode under a ban, vote, schema re-decode, budget policy."""
import pytest

from avatar import config
from avatar.answer.base import Fact
from avatar.answer.checks import Candidate, CostPredictor, TurnBudget, check_and_choose
from avatar.answer.checks.fallback import NOT_KNOWN
from avatar.trace import Tracer

FACTS = [Fact("price", "en", "Admission costs 12.50 euros, reduced 6 euros."),
         Fact("hours", "en", "The museum is open daily from 9 am to 6 pm.")]


class FakeClock:
    """Seconds that only move when a fake decode says so: budgets are tested without wall-clock time."""

    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class ScriptedDecoder:
    """Returns the scripted reply for (variant, whether anything is banned); records every call."""

    def __init__(self, clock, script, decode_ms=10.0, lang="en", mood="info"):
        self.clock, self.script, self.decode_ms, self.lang, self.mood = clock, script, decode_ms, lang, mood
        self.calls = []

    def __call__(self, variant, banned):
        self.calls.append((variant, frozenset(banned)))
        self.clock.t += self.decode_ms / 1000.0
        text = self.script(variant, banned)
        return Candidate(text, self.lang, self.mood, decode_info={"variant": variant})


def cfg(**checks):
    checks.setdefault("max_extra_ratio", 0)  # these tests give budgets in ms; the ratio cap has its own test
    checks.setdefault("word_pairs", False)  # scripted replies are not the embedded model's; its own test below
    return config.load(sets=[f"checks.{k}={v!r}".replace("'", '"') if isinstance(v, str) else
                             f"checks.{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in checks.items()],
                       env={})


def predictor():
    return CostPredictor({"decode": 10.0, "grounding": 0.5, "compare": 0.5, "schema": 0.5})


def test_wrong_price_is_redecoded_with_it_banned_and_the_grounded_reply_is_said():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "Admission costs 12.50 euros." if banned else "Admission costs 13.50 euros.")
    tracer = Tracer()
    out = check_and_choose("How much is admission?", "en", FACTS, dec, cfg(self_consistency=False), budget_ms=100,
                           tracer=tracer, turn=7, predictor=predictor(), clock=clock)
    assert out.reply == "Admission costs 12.50 euros." and not out.fallback_used
    assert dec.calls[0] == (0, frozenset()) and "13.50 euros" in dec.calls[1][1] and "13" in dec.calls[1][1]
    assert out.checks.redecodes == 1 and out.checks.grounded is True
    assert out.checks.unsupported == ["13.50 euros"] and out.checks.passes == ["grounding", "relevance", "source",
                                                                                     "schema"]
    outcomes = [(s.name, s.args.get("outcome")) for s in tracer.spans(turn=7) if s.track == "checks"]
    assert ("check.grounding", "fail") in outcomes and ("check.grounding", "pass") in outcomes
    assert ("check.decode", "ok") in outcomes and ("check.schema", "pass") in outcomes
    assert [s.name for s in tracer.spans(turn=7) if s.track == "answer"] == ["decode"]  # the first decode


def test_still_unsupported_after_max_redecodes_falls_back_to_the_best_fact():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: f"Admission costs {14 + len(banned)}.50 euros.")
    out = check_and_choose("How much does admission cost?", "en", FACTS, dec, cfg(max_redecodes=2), budget_ms=100,
                           tracer=Tracer(), predictor=predictor(), clock=clock)
    assert out.fallback_used and out.reply == "Admission costs 12.50 euros, reduced 6 euros."
    assert out.checks.redecodes == 2 and out.checks.fallback == "fact:unsupported" and out.mood == "info"


def test_unknown_question_with_invented_number_points_to_staff():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "You can park for 3 euros.")
    out = check_and_choose("Where can I park my bike?", "en", FACTS, dec, cfg(max_redecodes=0), budget_ms=100,
                           tracer=Tracer(), predictor=predictor(), clock=clock)
    assert out.fallback_used and out.reply == NOT_KNOWN["en"] and out.mood == "sorry"


def test_disagreeing_decodes_trigger_a_third_and_the_majority_is_said():
    clock = FakeClock()
    replies = {0: "We are open from 9 am.", 1: "We close at 6 pm.", 2: "We close at 18:00."}
    dec = ScriptedDecoder(clock, lambda v, banned: replies[v])
    out = check_and_choose("When do you close?", "en", FACTS, dec, cfg(), budget_ms=100, tracer=Tracer(),
                           predictor=predictor(), clock=clock)
    assert [v for v, _ in dec.calls] == [0, 1, 2]
    assert out.reply == "We close at 6 pm." and out.checks.agreement is False
    assert out.checks.vote == {"winner": 1, "votes": [0, 1, 1], "majority": True}
    assert "self_consistency" in out.checks.passes


def test_check_spans_never_overlap_so_the_pipeline_can_add_them_up():
    clock = FakeClock()
    replies = {0: "We are open from 9 am.", 1: "We close at 6 pm.", 2: "We close at 18:00."}
    tracer = Tracer()
    check_and_choose("When do you close?", "en", FACTS, ScriptedDecoder(clock, lambda v, b: replies[v]), cfg(),
                     budget_ms=100, tracer=tracer, turn=3, predictor=predictor(), clock=clock)
    spans = sorted((s for s in tracer.spans(turn=3) if s.end > s.start), key=lambda s: s.start)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:]))
    assert {s.name for s in spans} >= {"decode", "check.decode", "check.grounding", "check.self_consistency"}


def test_agreeing_decodes_need_no_third():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "We close at 6 pm." if v == 0 else "We close at 18:00 today.")
    out = check_and_choose("When do you close?", "en", FACTS, dec, cfg(), budget_ms=100, tracer=Tracer(),
                           predictor=predictor(), clock=clock)
    assert len(dec.calls) == 2 and out.checks.agreement is True and out.checks.vote is None


def test_malformed_record_is_redecoded_not_repaired():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "We close today at 6 pm" if v == 0 else "We close today at 6 pm.")
    out = check_and_choose("When do you close?", "en", FACTS, dec, cfg(self_consistency=False), budget_ms=100,
                           tracer=Tracer(), predictor=predictor(), clock=clock)
    assert [v for v, _ in dec.calls] == [0, 1] and out.reply == "We close today at 6 pm."
    assert out.checks.redecodes == 1 and out.checks.schema_ok is True
    assert out.checks.schema_problems == ["text does not end like a sentence"]


def test_exhausted_budget_skips_every_check_and_records_the_skips():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "We close at 6 pm.")
    tracer = Tracer()
    out = check_and_choose("When do you close?", "en", FACTS, dec, cfg(always=[]), budget_ms=0, tracer=tracer,
                           turn=1, predictor=predictor(), clock=clock)
    assert len(dec.calls) == 1 and out.reply == "We close at 6 pm."
    assert out.checks.skipped == ["grounding", "relevance", "source", "self_consistency", "schema"]
    assert out.checks.passes == []
    assert {s.name for s in tracer.spans(turn=1) if s.args.get("outcome") == "skipped"} == {
        "check.grounding", "check.relevance", "check.source", "check.self_consistency", "check.schema"}


def test_only_checks_whose_predicted_cost_fits_run():
    clock = FakeClock()
    replies = {0: "We close at 6 pm.", 1: "We open at 9 am.", 2: "We close at 18:00."}
    dec = ScriptedDecoder(clock, lambda v, banned: replies[v], decode_ms=40.0)
    pred = predictor()
    pred.observe("decode", 40.0)
    # 50 ms: the second decode (40 + compare) fits, a third one no longer does
    out = check_and_choose("When do you close?", "en", FACTS, dec, cfg(), budget_ms=50, tracer=Tracer(),
                           predictor=pred, clock=clock)
    assert [v for v, _ in dec.calls] == [0, 1]
    assert out.checks.agreement is False and "vote" in out.checks.skipped
    assert out.reply == "We close at 6 pm." and not out.fallback_used


def test_always_grounding_runs_over_budget_and_blocks_an_unsupported_price():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "Admission costs 13.50 euros.")
    out = check_and_choose("How much is admission?", "en", FACTS, dec, cfg(), budget_ms=0, tracer=Tracer(),
                           predictor=predictor(), clock=clock)
    assert out.fallback_used and "13.50" not in out.reply and out.checks.redecodes == 0


def test_disabled_checks_decode_once_and_say_it():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "Admission costs 13.50 euros.")
    out = check_and_choose("How much is admission?", "en", FACTS, dec, cfg(enabled=False), tracer=Tracer(),
                           predictor=predictor(), clock=clock)
    assert out.reply == "Admission costs 13.50 euros." and out.checks.to_dict() == {"enabled": False, "decodes": 1}


def test_cost_predictor_learns_from_measurements_and_budget_counts_on_the_injected_clock():
    pred = CostPredictor({"decode": 30.0})
    assert pred.predict("decode") == 30.0
    pred.observe("decode", 10.0)
    assert pred.predict("decode") == 10.0  # the first measurement replaces the prior
    pred.observe("decode", 20.0)
    assert pred.predict("decode") == pytest.approx(13.0)
    clock = FakeClock()
    budget = TurnBudget(100.0, clock)
    clock.t += 0.06
    assert budget.left_ms == pytest.approx(40.0) and budget.fits(39.9) and not budget.fits(40.1)


def test_a_decline_is_not_decoded_twice():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "Sorry, I don't know that. Please ask our staff.", mood="sorry")
    out = check_and_choose("Can I rent a bike?", "en", FACTS, dec, cfg(), budget_ms=100, tracer=Tracer(),
                           predictor=predictor(), clock=clock)
    assert len(dec.calls) == 1 and out.checks.not_needed == ["self_consistency"]
    assert out.checks.passes == ["declined_answerable", "grounding", "relevance", "schema"] and not out.fallback_used


def test_extra_ratio_caps_the_budget_at_a_share_of_the_first_decode():
    clock = FakeClock()
    replies = {0: "We close at 6 pm.", 1: "We close at 18:00."}
    dec = ScriptedDecoder(clock, lambda v, banned: replies[v], decode_ms=40.0)
    pred = predictor()
    pred.observe("decode", 40.0)
    out = check_and_choose("When do you close?", "en", FACTS, dec, cfg(max_extra_ratio=0.5), budget_ms=1000,
                           tracer=Tracer(), predictor=pred, clock=clock)
    assert out.checks.budget_ms == 20.0 and "self_consistency" in out.checks.skipped and len(dec.calls) == 1
    assert out.checks.grounded is True  # grounding still runs: it is in checks.always


def test_when_the_bans_do_not_change_the_reply_the_next_redecode_tries_another_order():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "Admission costs 13.50 euros." if v == 0 else "Admission costs 12.50 euros.")
    out = check_and_choose("How much is admission?", "en", FACTS, dec, cfg(self_consistency=False), budget_ms=100,
                           tracer=Tracer(), predictor=predictor(), clock=clock)
    assert [v for v, _ in dec.calls] == [0, 0, 1] and out.reply == "Admission costs 12.50 euros."


def test_a_first_candidate_from_the_caller_is_used_and_its_decode_time_teaches_the_policy():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "We close at 18:00.")
    pred = predictor()
    first = Candidate("We close at 6 pm.", "en", "info", decode_info={"ms": 80.0})
    out = check_and_choose("When do you close?", "en", FACTS, dec, cfg(), budget_ms=50, tracer=Tracer(),
                           predictor=pred, clock=clock, first=first)
    assert out.reply == "We close at 6 pm." and dec.calls == []  # a second decode (~80 ms) does not fit 50 ms
    assert pred.predict("decode") == 80.0 and "self_consistency" in out.checks.skipped


def test_with_verify_self_consistency_remasks_only_the_content():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "We close at 6 pm.")
    seen = []

    def verify(cand, surfaces):
        seen.append((cand.text, surfaces))
        return Candidate(cand.text.replace("6 pm", "18:00"), cand.lang, cand.mood)

    out = check_and_choose("When do you close?", "en", FACTS, dec, cfg(), budget_ms=100, tracer=Tracer(),
                           predictor=predictor(), clock=clock, verify=verify)
    assert len(dec.calls) == 1 and seen == [("We close at 6 pm.", ["6 pm"])]
    assert out.checks.agreement is True and "self_consistency" in out.checks.passes


def test_a_garbled_decline_is_never_said():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "Sorry, in speak't know that.", mood="sorry")
    out = check_and_choose("Where can I leave my coat?", "en", FACTS, dec, cfg(self_consistency=False),
                           budget_ms=100, tracer=Tracer(), predictor=predictor(), clock=clock)
    assert out.fallback_used and out.reply == NOT_KNOWN["en"]
    assert any("decline" in p for p in out.checks.schema_problems)


def test_words_strung_in_an_order_the_model_never_learned_are_not_said():
    clock = FakeClock()
    dec = ScriptedDecoder(clock, lambda v, banned: "If is is help is.")
    out = check_and_choose("We feel what is this.", "en", FACTS, dec, cfg(self_consistency=False, word_pairs=True),
                           budget_ms=100, tracer=Tracer(), predictor=predictor(), clock=clock)
    assert out.fallback_used and "If is" not in out.reply
    assert any("word pairs" in p for p in out.checks.schema_problems)
