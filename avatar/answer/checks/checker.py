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
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from avatar.answer.base import Fact
from avatar.answer.checks.answers import (answering_fact, asked_kind, contradicting_lead, coverage, dangling_end, snap_to_clause,
                                          source_fact)
from avatar.answer.checks.candidate import Candidate
from avatar.answer.checks.consistency import compare, content_signature, vote
from avatar.answer.checks.fallback import fallback_reply
from avatar.answer.checks.grounding import banned_strings, check_grounding
from avatar.answer.checks.policy import CostPredictor, TurnBudget
from avatar.answer.checks.relevance import check_relevance
from avatar.answer.checks.remask import content_surfaces
from avatar.answer.checks.lexicon import garbled_decline, unknown_pairs, unknown_words
from avatar.model_contract import is_decline
from avatar.answer.checks.schema import check_schema
from avatar.cancel import NEVER, CancelToken
from avatar.trace import TRACER, Tracer, now

DecodeFn = Callable[[int, frozenset], Candidate]
VerifyFn = Callable[[Candidate, list], Candidate]  # (candidate, content surfaces) -> only those re-decoded
TRACK = "checks"
SPAN_PREFIX = "check."  # span names the HUD and `avatar report` file under the checks budget
NO_DECLINE = "<sorry>"  # in `banned`: the answerer closes off the decline mood for that decode


@dataclass
class CheckedAnswer:
    reply: str
    lang: str
    mood: str
    gesture: str
    checks: dict[str, Any]
    fallback_used: bool
    candidate: Candidate | None = None  # the decode that was said (None after a fallback)
    candidates: list[Candidate] = field(default_factory=list)  # every decode of the turn, in order


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


class _TurnChecks:
    """The bookkeeping of one turn's checks: budget, spans, the `checks` record."""

    def __init__(self, question, lang, facts, decode, cfg, budget: TurnBudget, tracer: Tracer, turn,
                 predictor: CostPredictor, cancel: CancelToken, clock: Callable[[], float],
                 verify: VerifyFn | None = None, keywords_of: Callable[[Fact], str] | None = None):
        self._verify = verify
        self.keywords_of = keywords_of
        self.question, self.lang, self.facts, self._decode, self.cfg = question, lang, list(facts), decode, cfg
        self.budget, self.tracer, self.turn, self.predictor, self.cancel = budget, tracer, turn, predictor, cancel
        self.always = set(cfg.checks.always)
        self.clock = clock  # decode costs are measured on it, so a test's fake clock drives the policy
        self.banned: frozenset[str] = frozenset()
        self.candidates: list[Candidate] = []
        self.next_variant = 1
        self.last_decode_ms = 0.0
        self.report: dict[str, Any] = {
            "enabled": True, "passes": [], "grounded": None, "relevant": None, "agreement": None, "vote": None,
            "schema_ok": None, "fallback_used": False, "fallback": "", "redecodes": 0, "decodes": 0,
            "unsupported": [], "schema_problems": [], "banned": [], "ms": {}, "skipped": [], "not_needed": [],
            "budget_ms": round(budget.budget_ms, 1)}

    # --- helpers -------------------------------------------------------------------------------
    def add_ms(self, name: str, ms: float) -> None:
        self.report["ms"][name] = round(self.report["ms"].get(name, 0.0) + ms, 3)

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
        if check not in self.report["skipped"]:
            self.report["skipped"].append(check)
        return False

    def decode(self, variant: int, purpose: str, of: Candidate | None = None, surfaces: list[str] = ()) -> Candidate:
        """A full decode of `variant`; or, with `of`, the answerer's re-decode of only its content surfaces."""
        self.cancel.raise_if_cancelled()
        t0 = self.clock()
        # the first decode belongs to the decode stage, the others to what the checks bought
        name, track = ("decode", "answer") if purpose == "answer" else (SPAN_PREFIX + "decode", TRACK)
        with self.tracer.span(name, turn=self.turn, track=track, variant=variant, purpose=purpose,
                              banned=len(self.banned)) as span:
            cand = self._decode(variant, self.banned) if of is None else self._verify(of, list(surfaces))
            span["outcome"] = "ok"
        ms = (self.clock() - t0) * 1000.0
        self.last_decode_ms = ms
        self.predictor.observe("decode" if of is None else "verify", ms)
        cand.variant = variant
        self.candidates.append(cand)
        self.report["decodes"] += 1
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
        if self.report["redecodes"] >= self.cfg.checks.max_redecodes or \
                not self.budget.fits(self.predict("decode", *recheck)):
            return None
        self.report["redecodes"] += 1
        cand = self.decode(self.fresh_variant() if variant is None else variant, purpose)
        self.add_ms("redecode", self.last_decode_ms)
        return cand

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
        if not getattr(c, "snap", False) or _is_decline(cand) or cand.decode_info.get("snapped"):
            return None
        t0 = now()
        with self.tracer.span(SPAN_PREFIX + "snap", turn=self.turn, track=TRACK, reason=reason) as span:
            found = snap_to_clause(cand.text, self.lang, self.facts, float(c.snap_min_ratio),
                                   keep_lead=asked_kind(self.question, self.lang) == "yesno")
            span["outcome"] = "snapped" if found else "none"
        self.add_ms("snap", (now() - t0) * 1000.0)
        if found is None:
            return None
        self.report["snapped"] = {"reason": reason, "ratio": found.ratio, "fact": found.fact_id, "from": cand.text}
        return Candidate(found.text, cand.lang, cand.mood if cand.mood != "sorry" else "info", cand.token_ids,
                         {**cand.decode_info, "snapped": True}, cand.gesture, cand.variant)

    def fallback(self, reason: str) -> CheckedAnswer:
        t0 = now()
        with self.tracer.span(SPAN_PREFIX + "fallback", turn=self.turn, track=TRACK, reason=reason) as span:
            sure = float(self.cfg.answer.min_score) if getattr(self.cfg.checks, "fallback_trusts_retrieval", False) \
                else None
            fb = fallback_reply(self.question, self.lang, self.facts, self.cfg.checks.fallback_min_match,
                                self.keywords_of, sure_score=sure,
                                clause=bool(getattr(self.cfg.checks, "fallback_clause", True)))
            span["outcome"] = fb.kind
        self.add_ms("fallback", (now() - t0) * 1000.0)
        self.report.update(fallback_used=True, fallback=f"{fb.kind}:{reason}")
        return self.finish(CheckedAnswer(fb.text, self.lang, fb.mood, "", self.report, True, None, self.candidates))

    def finish(self, answer: CheckedAnswer) -> CheckedAnswer:
        self.report["banned"] = sorted(self.banned)
        self.report["spent_ms"] = round(self.budget.spent_ms, 3)
        answer.candidates = self.candidates
        return answer


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
            with tracer.span("decode", turn=turn, track="answer", variant=0, purpose="answer") as span:
                cand = decode(0, frozenset())
                span["outcome"] = "ok"
        return CheckedAnswer(cand.text, cand.lang or lang, cand.mood, cand.gesture,
                             {"enabled": False, "decodes": 1}, False, cand, [cand])
    predictor = predictor or shared_predictor(cfg)
    verify = verify if c.remask_consistency else None
    t = _TurnChecks(question, lang, facts, decode, cfg, TurnBudget(0.0, clock), tracer, turn, predictor, cancel,
                    clock, verify, keywords_of)
    if first is not None:
        first.variant = 0
        if isinstance(first.decode_info.get("ms"), (int, float)):
            predictor.observe("decode", float(first.decode_info["ms"]))  # the caller's decode teaches the policy too
        t.candidates.append(first)
        t.report["decodes"] += 1
        cand = first
    else:
        cand = t.decode(0, "answer")
    budget = float(cfg.budget.checks if budget_ms is None else budget_ms)
    if c.max_extra_ratio > 0:  # keep checked latency within (1 + ratio) x one decode
        first_ms = t.last_decode_ms if first is None else float(first.decode_info.get("ms", budget))
        budget = min(budget, c.max_extra_ratio * first_ms)
    t.budget = TurnBudget(budget, clock)
    t.report["budget_ms"] = round(t.budget.budget_ms, 1)
    consistency_done = False
    answerable_checked = False

    while True:
        passes: list[str] = []
        # (0) a decline although a retrieved fact answers: decode again with the decline closed off
        if getattr(c, "declined_answerable", False) and not answerable_checked and _is_decline(cand):
            answerable_checked = True
            found = _answerable(t, question, lang, facts, cfg)
            if found is not None:
                t.report["answerable"] = found.id
                t.banned = t.banned | {NO_DECLINE}
                # worth a full decode even over the ratio cap: the alternative is a wrong "I don't know"
                t.budget = TurnBudget(max(t.budget.left_ms, float(cfg.budget.decode)), clock)
                mended = t.redecode("redecode_declined", "grounding")
                t.banned = t.banned - {NO_DECLINE}
                if mended is None or _is_decline(mended):
                    return t.fallback("declined_answerable")
                cand = mended
                continue
            passes.append("declined_answerable")

        # (1) grounding: every item of the reply backed by a fact
        if c.grounding and t.may_run("grounding", "grounding"):
            g = t.ground(cand)
            t.report["grounded"] = g.ok
            if not g.ok:
                t.report["unsupported"] = sorted(set(t.report["unsupported"]) | set(g.unsupported))
                t.banned = t.banned | banned_strings(g, facts)
                mended = t.redecode("redecode_unsupported", "grounding", variant=t.redecode_variant(cand))
                if mended is None and not any(ch.isdigit() for u in g.unsupported for ch in u):
                    mended = t.snap(cand, "unsupported_name")  # a name copied with a glitch ("Parkhausog")
                if mended is None:
                    return t.fallback("unsupported")
                cand = mended
                continue
            passes.append("grounding")

        # (1b) relevance: a reply with values is about what was asked (the day, the name)
        if c.relevance and t.may_run("relevance", "relevance"):
            with tracer.span(SPAN_PREFIX + "relevance", turn=turn, track=TRACK, variant=cand.variant) as span:
                r = check_relevance(cand.text, lang, facts, question)
                span["outcome"] = "pass" if r.ok else "fail"
            t.predictor.observe("relevance", r.ms)
            t.add_ms("relevance", r.ms)
            t.report["relevant"] = r.ok
            if not r.ok:
                t.report["asked"] = r.asked
                t.banned = t.banned | frozenset(r.off_topic)
                # another unmasking order: the off-topic words are in the facts too, so bans rarely bite
                mended = t.redecode("redecode_off_topic", "grounding", "relevance")
                if mended is None:
                    return t.fallback("off_topic")
                cand = mended
                continue
            passes.append("relevance")

        # (1c) the reply comes from a fact that does not name what was asked
        if getattr(c, "wrong_source", False) and not _is_decline(cand) and t.may_run("source", "source"):
            with tracer.span(SPAN_PREFIX + "source", turn=turn, track=TRACK, variant=cand.variant) as span:
                src = source_fact(cand.text, lang, facts)
                kw = t.keywords_of(src) if (src is not None and t.keywords_of) else ""
                cov = coverage(question, lang, f"{src.text} {kw}") if src is not None else 1.0
                ok = cov >= float(c.source_min_coverage)
                span["outcome"] = "pass" if ok else "fail"
            t.predictor.observe("source", 0.1)
            t.report["source"] = {"fact": src.id if src is not None else "", "coverage": round(cov, 2)}
            if not ok:
                t.banned = t.banned | frozenset(w for w in cand.text.split() if any(ch.isdigit() for ch in w))
                mended = t.redecode("redecode_wrong_source", "grounding")
                if mended is None:
                    return t.fallback("wrong_source")
                cand = mended
                continue
            passes.append("source")

        # (2) self-consistency: a second decode must carry the same content; else a third and a vote
        if (c.self_consistency and not consistency_done and c.consistency_needs_content
                and not content_signature(cand.text, lang)):
            consistency_done = True  # nothing a second decode could contradict: a decline, a greeting
            t.report["not_needed"].append("self_consistency")
        surfaces = content_surfaces(cand.text, lang) if verify is not None else []
        second = "verify" if surfaces else "decode"  # re-masking the content only is the cheap second look
        if c.self_consistency and not consistency_done and t.may_run("self_consistency", second, "compare"):
            consistency_done = True
            t0 = now()
            other = t.decode(t.fresh_variant(), "consistency_remask" if surfaces else "consistency",
                             of=cand if surfaces else None, surfaces=surfaces)
            # spans never nest (the pipeline adds them up per name): decodes are their own spans
            with tracer.span(SPAN_PREFIX + "self_consistency", turn=turn, track=TRACK, step="compare") as span:
                agreement = compare(cand, other, lang, c.agreement_overlap)
                outcome = span["outcome"] = "agree" if agreement.agree else "disagree"
            t.predictor.observe("compare", agreement.ms)
            t.report["agreement"] = agreement.agree
            t.report["overlap"] = agreement.overlap
            if not agreement.agree and t.budget.fits(t.predict("decode", "compare", "compare", "compare")):
                third = t.decode(t.fresh_variant(), "vote")
                pool = [cand, other, third]
                with tracer.span(SPAN_PREFIX + "self_consistency", turn=turn, track=TRACK, step="vote") as span:
                    result = vote(pool, lang, c.agreement_overlap)
                    outcome = span["outcome"] = "vote" if result.majority else "no_majority"
                    span["votes"] = result.votes
                t.report["vote"] = result.as_dict(pool)
                winner = pool[result.winner]
                if result.majority and winner is not cand:
                    if not c.grounding or t.ground(winner).ok:
                        cand = winner
                    else:
                        outcome = "vote_ungrounded"  # the majority says something unbacked: keep ours
            elif not agreement.agree:
                outcome = "disagree_no_budget"
                t.report["skipped"].append("vote")
            t.add_ms("self_consistency", (now() - t0) * 1000.0)
            if outcome == "no_majority":
                return t.fallback("no_majority")
            if outcome in ("agree", "vote"):
                passes.append("self_consistency")

        # (3) schema: the record is well formed; a malformed one is re-decoded, never patched
        if c.schema and t.may_run("schema", "schema"):
            with tracer.span(SPAN_PREFIX + "schema", turn=turn, track=TRACK, variant=cand.variant) as span:
                s = check_schema(cand, lang, tuple(c.moods), c.max_reply_chars, c.max_reply_words)
                if c.lexicon and not cand.decode_info.get("snapped"):  # glued pieces ("exhibitionoth") are not a reply
                    context = [f.text for f in facts] + [question]
                    unknown = unknown_words(cand.text, context)
                    if unknown:
                        s.ok = False
                        s.problems.append("unknown words: " + ", ".join(unknown))
                    odd = unknown_pairs(cand.text, context) if getattr(c, "word_pairs", False) else []
                    if odd:  # words in an order the model never saw: "If is is help is", "bis bis"
                        s.ok = False
                        s.problems.append("unknown word pairs: " + ", ".join(odd))
                    if dangling_end(cand.text, lang):  # "The entrance is on." lost the name after "on"
                        s.ok = False
                        s.problems.append("ends on an article or preposition")
                    if contradicting_lead(cand.text):  # "Ja. Hunde sind nicht erlaubt."
                        s.ok = False
                        s.problems.append("its yes or no contradicts what follows")
                    if cand.mood == "sorry" and garbled_decline(cand.text, lang):
                        s.ok = False
                        s.problems.append("a decline in words the model never learned for one")
                span["outcome"] = "pass" if s.ok else "fail"
                if s.problems:
                    span["problems"] = s.problems
            t.predictor.observe("schema", s.ms)
            t.add_ms("schema", s.ms)
            t.report["schema_ok"] = s.ok
            if not s.ok:
                t.report["schema_problems"] = s.problems
                mended = t.redecode("redecode_schema", "grounding", "schema")
                if mended is None:
                    mended = t.snap(cand, "schema")
                    if mended is None:
                        return t.fallback("schema")
                cand = mended
                continue
            passes.append("schema")
        break

    t.report["passes"] = passes
    return t.finish(CheckedAnswer(cand.text.strip(), cand.lang or lang, cand.mood, cand.gesture, t.report,
                                  False, cand))


def _is_decline(cand: Candidate) -> bool:
    return is_decline(cand.text, cand.mood)


def _answerable(t: _TurnChecks, question: str, lang: str, facts: Sequence[Fact], cfg) -> Fact | None:
    """The retrieved fact that answers the question (answers.py), timed as a check span."""
    with t.tracer.span(SPAN_PREFIX + "declined_answerable", turn=t.turn, track=TRACK) as span:
        t0 = now()
        found = answering_fact(question, lang, facts, float(cfg.answer.min_score), t.keywords_of,
                               float(cfg.checks.answer_coverage))
        span["outcome"] = "answerable" if found is not None else "pass"
    t.add_ms("declined_answerable", (now() - t0) * 1000.0)
    return found
