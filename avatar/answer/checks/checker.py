"""Checked answers: decode, check within the turn's budget, re-decode or fall back, choose what is said.

The seam with the answerer is `decode(variant, banned) -> Candidate`: variant 0 is the answerer's
default decode, other variants use another seed or unmasking order; `banned` are strings the decode
must not write (the answerer maps them to token ids). The decode must be deterministic for a given
(variant, banned), so the checks never depend on luck. Nothing here knows the model.

Order of value: grounding (and relevance: the values are about what was asked), then
self-consistency, then schema. A check runs while its predicted cost (running average of its own
measured cost) fits in what is left of the budget; the checks in `cfg.checks.always` run even over
budget (they cost well under a millisecond and are what keeps an unsupported number from being
spoken). Every check is a span on the "checks" track; spans never nest.

The checks are a table (table.py, CHECKS): `check_and_choose` sets up the turn (turn.py,
`TurnChecks`: budget, spans, decodes, snap, fallback) and `walk`s the table; each check's verdict
(verdict.py) says pass, mend (re-decode under a constraint, or snap) or fall back. What they did is
the turn's CheckReport (avatar/answer/base.py).
"""
from __future__ import annotations

from typing import Callable, Sequence

from avatar.answer.base import CheckReport, Fact
from avatar.answer.checks.candidate import Candidate
from avatar.answer.checks.policy import CostPredictor, TurnBudget
from avatar.answer.checks.table import CHECKS, Check
from avatar.answer.checks.turn import CheckedAnswer, TurnChecks, VerifyFn
from avatar.answer.checks.verdict import NO_DECLINE, SPAN_PREFIX, TRACK, is_decline
from avatar.cancel import NEVER, CancelToken
from avatar.stage_names import DECODE
from avatar.trace import TRACER, Tracer, now

DecodeFn = Callable[[int, frozenset], Candidate]
_is_decline = is_decline  # the name tests and older callers use
__all__ = ["CheckedAnswer", "DecodeFn", "VerifyFn", "NO_DECLINE", "SPAN_PREFIX", "TRACK", "check_and_choose",
           "make_predictor", "shared_predictor"]


def make_predictor(cfg) -> CostPredictor:
    c = cfg.checks
    return CostPredictor({"decode": c.prior_decode_ms, "verify": c.prior_decode_ms / 3, "grounding": c.prior_check_ms,
                          "compare": c.prior_check_ms, "schema": c.prior_check_ms,
                          "relevance": c.prior_check_ms}, default_ms=c.prior_check_ms)


_PREDICTORS: dict[tuple, CostPredictor] = {}


def shared_predictor(cfg) -> CostPredictor:
    """The process's predictor for these priors: it learns this machine's costs across turns."""
    key = (cfg.checks.prior_decode_ms, cfg.checks.prior_check_ms)
    if key not in _PREDICTORS:
        _PREDICTORS[key] = make_predictor(cfg)
    return _PREDICTORS[key]


def check_and_choose(question: str, lang: str, facts: Sequence[Fact], decode: DecodeFn, cfg,
                     budget_ms: float | None = None, tracer: Tracer = TRACER, turn: int | None = None, *,
                     predictor: CostPredictor | None = None, clock: Callable[[], float] = now,
                     cancel: CancelToken = NEVER, first: Candidate | None = None,
                     verify: VerifyFn | None = None,
                     keywords_of: Callable[[Fact], str] | None = None) -> CheckedAnswer:
    """Decode, check and choose the reply of one turn; see the module docstring for the policy.

    `budget_ms` defaults to cfg.budget.checks and counts from the end of the first decode (that one
    belongs to the decode budget); `first` is a variant-0 candidate the caller already has.
    `verify(candidate, surfaces)`, when given, re-decodes only the candidate's content surfaces
    (remask.py) with the rest fixed: self-consistency then costs a few steps, not a second decode.
    `keywords_of(fact)` gives the operator's keywords of a fact (what the visitor may call it).
    """
    c = cfg.checks
    if not c.enabled:
        cand = first
        if cand is None:
            with tracer.span(DECODE, turn=turn, track="answer", variant=0, purpose="answer") as span:
                cand = decode(0, frozenset())
                span["outcome"] = "ok"
        return CheckedAnswer(cand.text, cand.lang or lang, cand.mood, cand.gesture,
                             CheckReport(enabled=False, decodes=1), False, cand, [cand])
    predictor = predictor or shared_predictor(cfg)
    t = TurnChecks(question, lang, facts, decode, cfg, TurnBudget(0.0, clock), tracer, turn, predictor, cancel,
                    clock, verify if c.remask_consistency else None, keywords_of)
    if first is not None:
        first.variant = 0
        if isinstance(first.decode_info.get("ms"), (int, float)):
            predictor.observe("decode", float(first.decode_info["ms"]))  # the caller's decode teaches the policy too
        t.candidates.append(first)
        t.report.decodes += 1
        cand = first
    else:
        cand = t.decode(0, "answer")
    budget = float(cfg.budget.checks if budget_ms is None else budget_ms)
    if c.max_extra_ratio > 0:  # keep checked latency within (1 + ratio) x one decode
        first_ms = t.last_decode_ms if first is None else float(first.decode_info.get("ms", budget))
        budget = min(budget, c.max_extra_ratio * first_ms)
    t.budget = TurnBudget(budget, clock)
    t.report.budget_ms = round(t.budget.budget_ms, 1)
    return walk(t, cand, [check for check in CHECKS if check.enabled(c)])


def walk(t: TurnChecks, cand: Candidate, checks: Sequence[Check]) -> CheckedAnswer:
    """Run the checks in order on the candidate. A failure mends (re-decode or snap, then the walk
    starts over with the new candidate) or falls back; a walk with no failure says the candidate."""
    while True:
        passes: list[str] = []
        for check in checks:
            verdict = check.run(t, cand)
            if verdict.failed:
                t.report.failed.append(check.name)
            if verdict.fallback:
                return t.fallback(verdict.fallback)
            if verdict.mend is not None:
                mended = t.mend(cand, verdict.mend)
                if mended is None:
                    return t.fallback(verdict.mend.fallback)
                cand = mended
                break
            if verdict.cand is not None:
                cand = verdict.cand
            if verdict.passed:
                passes.append(check.name)
        else:
            t.report.passes = passes
            return t.finish(cand.text.strip(), cand.lang or t.lang, cand.mood, cand.gesture, False, cand)
