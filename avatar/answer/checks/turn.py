"""The bookkeeping of one turn's checks (`TurnChecks`): the budget, the spans, the decodes and
re-decodes, the snap and the fallback, and the CheckReport they fill; `CheckedAnswer` is what the
turn ends with. The checks themselves are table.py's; checker.py sets the turn up and walks them."""
from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Callable

from avatar.answer.base import CheckReport, Fact
from avatar.answer.checks.answers import asked_kind, snap_to_clause
from avatar.answer.checks.candidate import Candidate
from avatar.answer.checks.fallback import fallback_reply
from avatar.answer.checks.grounding import check_grounding
from avatar.answer.checks.policy import CostPredictor, TurnBudget
from avatar.answer.checks.verdict import SPAN_PREFIX, TRACK, Mend, is_decline
from avatar.cancel import CancelToken
from avatar.stage_names import DECODE
from avatar.trace import Tracer, now

VerifyFn = Callable[[Candidate, list], Candidate]  # (candidate, content surfaces) -> only those re-decoded


class ReportDraft:
    """The checks' record while one turn is checked: CheckReport's fields, set as the checks run;
    `freeze()` gives the CheckReport that leaves the checker (frozen: nothing changes it after)."""

    def __init__(self, **values: Any) -> None:
        for f in fields(CheckReport):
            default = f.default_factory() if f.default_factory is not MISSING else f.default  # type: ignore[misc]
            setattr(self, f.name, values.get(f.name, default))

    def freeze(self) -> CheckReport:
        return CheckReport(**{f.name: _copied(getattr(self, f.name)) for f in fields(CheckReport)})


def _copied(value: Any) -> Any:
    """A list or dict the report owns alone (the draft may go on; the report does not change)."""
    return type(value)(value) if isinstance(value, (list, dict)) else value


@dataclass(frozen=True)
class CheckedAnswer:
    reply: str
    lang: str
    mood: str
    gesture: str
    checks: CheckReport
    fallback_used: bool
    candidate: Candidate | None = None  # the decode that was said (None after a fallback)
    candidates: list[Candidate] = field(default_factory=list)  # every decode of the turn, in order


class TurnChecks:
    """The bookkeeping of one turn's checks: budget, spans, decodes, the CheckReport."""

    def __init__(self, question, lang, facts, decode, cfg, budget: TurnBudget, tracer: Tracer, turn,
                 predictor: CostPredictor, cancel: CancelToken, clock: Callable[[], float],
                 verify: VerifyFn | None = None, keywords_of: Callable[[Fact], str] | None = None):
        self.verify = verify
        self.keywords_of = keywords_of
        self.question, self.lang, self.facts, self._decode, self.cfg = question, lang, list(facts), decode, cfg
        self.budget, self.tracer, self.turn, self.predictor, self.cancel = budget, tracer, turn, predictor, cancel
        self.always = set(cfg.checks.always)
        self.clock = clock  # decode costs are measured on it, so a test's fake clock drives the policy
        self.banned: frozenset[str] = frozenset()
        self.candidates: list[Candidate] = []
        self.done: set[str] = set()  # the checks that run once a turn and have run
        self.next_variant = 1
        self.last_decode_ms = 0.0
        self.report = ReportDraft(enabled=True, budget_ms=round(budget.budget_ms, 1))

    # --- helpers -------------------------------------------------------------------------------
    def add_ms(self, name: str, ms: float) -> None:
        self.report.ms[name] = round(self.report.ms.get(name, 0.0) + ms, 3)

    def predict(self, *names: str) -> float:
        return sum(self.predictor.predict(n) for n in names)

    def may_run(self, check: str, *costs: str) -> bool:
        """Whether `check` fits the budget (or must run anyway); a skip is recorded as a span."""
        predicted = self.predict(*costs)
        if check in self.always or self.budget.fits(predicted):
            return True
        t = now()
        self.tracer.record(SPAN_PREFIX + check, t, t, turn=self.turn, track=TRACK, outcome="skipped",
                           predicted_ms=round(predicted, 2), left_ms=round(self.budget.left_ms, 2))
        if check not in self.report.skipped:
            self.report.skipped.append(check)
        return False

    def decode(self, variant: int, purpose: str, of: Candidate | None = None, surfaces: list[str] = ()) -> Candidate:
        """A full decode of `variant`; or, with `of`, the answerer's re-decode of only its content surfaces."""
        self.cancel.raise_if_cancelled()
        t0 = self.clock()
        # the first decode belongs to the decode stage, the others to what the checks bought
        name, track = (DECODE, "answer") if purpose == "answer" else (SPAN_PREFIX + DECODE, TRACK)
        with self.tracer.span(name, turn=self.turn, track=track, variant=variant, purpose=purpose,
                              banned=len(self.banned)) as span:
            cand = self._decode(variant, self.banned) if of is None else self.verify(of, list(surfaces))
            span["outcome"] = "ok"
        ms = (self.clock() - t0) * 1000.0
        self.last_decode_ms = ms
        self.predictor.observe("decode" if of is None else "verify", ms)
        cand.variant = variant
        self.candidates.append(cand)
        self.report.decodes += 1
        return cand

    def fresh_variant(self) -> int:
        """A seed/unmasking order no decode of this turn has used yet."""
        self.next_variant += 1
        return self.next_variant - 1

    def redecode_variant(self, cand: Candidate) -> int:
        """Variant 0 under the bans, unless variant 0 already gave this text twice (the bans did not bite)."""
        if sum(c.variant == 0 and c.text == cand.text for c in self.candidates) > 1:
            return self.fresh_variant()
        return 0

    def redecode(self, purpose: str, *recheck: str, variant: int | None = None) -> Candidate | None:
        """A re-decode to mend a failed check (costs: the decode and the checks to run again), while
        the turn's re-decodes and budget allow; else None."""
        if self.report.redecodes >= self.cfg.checks.max_redecodes or \
                not self.budget.fits(self.predict("decode", *recheck)):
            return None
        self.report.redecodes += 1
        cand = self.decode(self.fresh_variant() if variant is None else variant, purpose)
        self.add_ms("redecode", self.last_decode_ms)
        return cand

    def mend(self, cand: Candidate, m: Mend) -> Candidate | None:
        """What a failed check's Mend buys: a re-decode under its constraint, else a snapped clause;
        None: nothing left to try (the caller falls back)."""
        self.banned = self.banned | m.ban
        if m.min_budget_ms is not None:
            self.budget = TurnBudget(max(self.budget.left_ms, m.min_budget_ms), self.clock)
        variant = self.redecode_variant(cand) if m.same_variant else None
        mended = self.redecode(m.purpose, *m.recheck, variant=variant)
        if m.only_this_decode:
            self.banned = self.banned - m.ban
        if mended is not None and m.reject_decline and is_decline(mended):
            return None
        if mended is None and m.snap:
            mended = self.snap(cand, m.snap)
        return mended

    def ground(self, cand: Candidate):
        self.cancel.raise_if_cancelled()
        with self.tracer.span(SPAN_PREFIX + "grounding", turn=self.turn, track=TRACK, variant=cand.variant) as span:
            result = check_grounding(cand.text, self.lang, self.facts, self.question)
            span["outcome"] = "pass" if result.ok else "fail"
            if result.unsupported:
                span["unsupported"] = result.unsupported
        self.predictor.observe("grounding", result.ms)
        self.add_ms("grounding", result.ms)
        return result

    def snap(self, cand: Candidate, reason: str) -> Candidate | None:
        """A garbled reply (its form failed: glued pieces, unknown word pairs, a lost last word) that was
        copying a fact clause becomes that clause, verbatim: the model chose it, the operator's words
        say it. A reply with an unbacked number, time or price is not snapped (its content is wrong, not
        its form); one whose only unbacked items are names garbled in copying is.
        None when no clause is close enough."""
        c = self.cfg.checks
        if not c.snap or is_decline(cand) or cand.decode_info.get("snapped"):
            return None
        t0 = now()
        with self.tracer.span(SPAN_PREFIX + "snap", turn=self.turn, track=TRACK, reason=reason) as span:
            found = snap_to_clause(cand.text, self.lang, self.facts, float(c.snap_min_ratio),
                                   keep_lead=asked_kind(self.question, self.lang) == "yesno")
            span["outcome"] = "snapped" if found else "none"
        self.add_ms("snap", (now() - t0) * 1000.0)
        if found is None:
            return None
        self.report.snapped = {"reason": reason, "ratio": found.ratio, "fact": found.fact_id, "from": cand.text}
        return Candidate(found.text, cand.lang, cand.mood if cand.mood != "sorry" else "info", cand.token_ids,
                         {**cand.decode_info, "snapped": True}, cand.gesture, cand.variant)

    def fallback(self, reason: str) -> CheckedAnswer:
        t0 = now()
        with self.tracer.span(SPAN_PREFIX + "fallback", turn=self.turn, track=TRACK, reason=reason) as span:
            sure = self.cfg.answer.min_score if self.cfg.checks.fallback_trusts_retrieval else None
            fb = fallback_reply(self.question, self.lang, self.facts, self.cfg.checks.fallback_min_match,
                                self.keywords_of, sure_score=sure,
                                clause=self.cfg.checks.fallback_clause)
            span["outcome"] = fb.kind
        self.add_ms("fallback", (now() - t0) * 1000.0)
        self.report.fallback_used, self.report.fallback = True, f"{fb.kind}:{reason}"
        return self.finish(fb.text, self.lang, fb.mood, "", True, None)

    def finish(self, reply: str, lang: str, mood: str, gesture: str, fallback_used: bool,
               candidate: Candidate | None) -> CheckedAnswer:
        """The turn's answer, its CheckReport frozen from the draft."""
        self.report.banned = sorted(self.banned)
        self.report.spent_ms = round(self.budget.spent_ms, 3)
        return CheckedAnswer(reply, lang, mood, gesture, self.report.freeze(), fallback_used, candidate,
                             list(self.candidates))
