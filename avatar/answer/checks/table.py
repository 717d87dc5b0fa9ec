"""The checks of a turn as a table: `check_and_choose` (checker.py) walks CHECKS in order.

Each row is a check: its name, whether the configuration switches it on, what it tests (`run`:
the turn and the candidate in, a Verdict out), and what a failure does, as the verdict says:
re-decode under some constraint (a Mend: strings banned, the decline closed off, another seed or
unmasking order), snap the reply to the fact clause it was copying, or fall back (the fact quoted,
or "I don't know"). A re-decode starts the walk over with the new candidate; a check that cannot
pay for itself in the turn's budget is skipped (recorded) and the walk goes on.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from avatar.answer.base import Fact
from avatar.answer.checks.answers import (answering_fact, contradicting_lead, coverage, dangling_end,
                                          source_fact, subject_missing)
from avatar.answer.checks.candidate import Candidate
from avatar.answer.checks.consistency import compare, content_signature, vote
from avatar.answer.checks.grounding import banned_strings
from avatar.answer.checks.lexicon import garbled_decline, unknown_pairs, unknown_words
from avatar.answer.checks.relevance import check_relevance
from avatar.answer.checks.remask import content_surfaces
from avatar.answer.checks.schema import check_schema
from avatar.answer.checks.turn import TurnChecks as Turn
from avatar.answer.checks.verdict import NO_DECLINE, NO_VERDICT, PASS, SPAN_PREFIX, TRACK, Mend, Verdict, is_decline
from avatar.model_contract import foreign_kinds
from avatar.trace import now


@dataclass(frozen=True)
class Check:
    name: str
    enabled: Callable[[Any], bool]                 # cfg.checks -> switched on
    run: Callable[[Turn, Candidate], Verdict]      # what it tests, and what a failure does
    tests: str = ""                                # in words


# --- the checks ------------------------------------------------------------------------------------
def declined_answerable(t: Turn, cand: Candidate) -> Verdict:
    """A decline although a retrieved fact answers: decode again with the decline closed off (once)."""
    if "declined_answerable" in t.done or not is_decline(cand):
        return NO_VERDICT
    t.done.add("declined_answerable")
    with t.tracer.span(SPAN_PREFIX + "declined_answerable", turn=t.turn, track=TRACK) as span:
        t0 = now()
        found = answering_fact(t.question, t.lang, t.facts, float(t.cfg.answer.min_score), t.keywords_of,
                               float(t.cfg.checks.answer_coverage))
        span["outcome"] = "answerable" if found is not None else "pass"
    t.add_ms("declined_answerable", (now() - t0) * 1000.0)
    if found is None:
        return PASS
    t.report.answerable = found.id
    # worth a full decode even over the ratio cap: the alternative is a wrong "I don't know"
    return Verdict(mend=Mend("declined_answerable", "redecode_declined", ban=frozenset({NO_DECLINE}),
                             only_this_decode=True, reject_decline=True,
                             min_budget_ms=float(t.cfg.budget.decode)))


def grounding(t: Turn, cand: Candidate) -> Verdict:
    """Every item of the reply backed by a fact; else re-decode with the unbacked strings banned."""
    if not t.may_run("grounding", "grounding"):
        return NO_VERDICT
    g = t.ground(cand)
    t.report.grounded = g.ok
    if g.ok:
        return PASS
    t.report.unsupported = sorted(set(t.report.unsupported) | set(g.unsupported))
    names_only = not any(ch.isdigit() for u in g.unsupported for ch in u)  # a name copied with a glitch
    return Verdict(mend=Mend("unsupported", "redecode_unsupported", ("grounding",), banned_strings(g, t.facts),
                             same_variant=True, snap="unsupported_name" if names_only else ""))


def relevance(t: Turn, cand: Candidate) -> Verdict:
    """A reply with values is about what was asked (the day, the name); else another unmasking order
    (the off-topic words are in the facts too, so bans rarely bite)."""
    if not t.may_run("relevance", "relevance"):
        return NO_VERDICT
    with t.tracer.span(SPAN_PREFIX + "relevance", turn=t.turn, track=TRACK, variant=cand.variant) as span:
        r = check_relevance(cand.text, t.lang, t.facts, t.question)
        t0 = now()
        # "how much is the ticket to the moon": no retrieved fact names the moon, so no reply but a decline
        # is about it, and no re-decode from these facts can be: the fallback declines (fallback.py)
        texts = [f.text for f in t.facts] + [t.keywords_of(f) for f in t.facts if t.keywords_of]
        missing = () if is_decline(cand) else subject_missing(t.question, t.lang, texts)
        span["outcome"] = "fail" if missing or not r.ok else "pass"
    ms = r.ms + (now() - t0) * 1000.0
    t.predictor.observe("relevance", ms)
    t.add_ms("relevance", ms)
    t.report.relevant = r.ok and not missing
    if missing:
        t.report.asked = list(missing)
        return Verdict(fallback="not_asked_about")
    if r.ok:
        return PASS
    t.report.asked = r.asked
    return Verdict(mend=Mend("off_topic", "redecode_off_topic", ("grounding", "relevance"), frozenset(r.off_topic)))


def source(t: Turn, cand: Candidate) -> Verdict:
    """The reply comes from a fact that names what was asked; else re-decode with its numbers banned."""
    if is_decline(cand) or not t.may_run("source", "source"):
        return NO_VERDICT
    with t.tracer.span(SPAN_PREFIX + "source", turn=t.turn, track=TRACK, variant=cand.variant) as span:
        src = source_fact(cand.text, t.lang, t.facts)
        kw = t.keywords_of(src) if (src is not None and t.keywords_of) else ""
        cov = coverage(t.question, t.lang, f"{src.text} {kw}") if src is not None else 1.0
        ok = cov >= float(t.cfg.checks.source_min_coverage)
        span["outcome"] = "pass" if ok else "fail"
    t.predictor.observe("source", 0.1)
    t.report.source = {"fact": src.id if src is not None else "", "coverage": round(cov, 2)}
    if ok:
        return PASS
    numbers = frozenset(w for w in cand.text.split() if any(ch.isdigit() for ch in w))
    return Verdict(mend=Mend("wrong_source", "redecode_wrong_source", ("grounding",), numbers))


def self_consistency(t: Turn, cand: Candidate) -> Verdict:
    """A second decode (or a re-mask of the values only) must carry the same content; else a third
    decode and a vote: a grounded majority replaces the reply, no majority falls back. Once a turn."""
    c = t.cfg.checks
    if "self_consistency" in t.done:
        return NO_VERDICT
    if c.consistency_needs_content and not content_signature(cand.text, t.lang):
        t.done.add("self_consistency")  # nothing a second decode could contradict: a decline, a greeting
        t.report.not_needed.append("self_consistency")
        return NO_VERDICT
    surfaces = content_surfaces(cand.text, t.lang) if t.verify is not None else []
    second = "verify" if surfaces else "decode"  # re-masking the content only is the cheap second look
    if not t.may_run("self_consistency", second, "compare"):
        return NO_VERDICT
    t.done.add("self_consistency")
    t0 = now()
    other = t.decode(t.fresh_variant(), "consistency_remask" if surfaces else "consistency",
                     of=cand if surfaces else None, surfaces=surfaces)
    # spans never nest (the pipeline adds them up per name): decodes are their own spans
    with t.tracer.span(SPAN_PREFIX + "self_consistency", turn=t.turn, track=TRACK, step="compare") as span:
        agreement = compare(cand, other, t.lang, c.agreement_overlap)
        outcome = span["outcome"] = "agree" if agreement.agree else "disagree"
    t.predictor.observe("compare", agreement.ms)
    t.report.agreement = agreement.agree
    t.report.overlap = agreement.overlap
    chosen = cand
    if not agreement.agree and t.budget.fits(t.predict("decode", "compare", "compare", "compare")):
        outcome, chosen = _vote(t, cand, other)
    elif not agreement.agree:
        outcome = "disagree_no_budget"
        t.report.skipped.append("vote")
    t.add_ms("self_consistency", (now() - t0) * 1000.0)
    if outcome == "no_majority":
        return Verdict(fallback="no_majority")
    return Verdict(passed=outcome in ("agree", "vote"), cand=chosen)


def _vote(t: Turn, cand: Candidate, other: Candidate) -> tuple[str, Candidate]:
    """A third decode and a vote of the three: (outcome, the candidate to go on with)."""
    c = t.cfg.checks
    third = t.decode(t.fresh_variant(), "vote")
    pool = [cand, other, third]
    with t.tracer.span(SPAN_PREFIX + "self_consistency", turn=t.turn, track=TRACK, step="vote") as span:
        result = vote(pool, t.lang, c.agreement_overlap)
        outcome = span["outcome"] = "vote" if result.majority else "no_majority"
        span["votes"] = result.votes
    t.report.vote = result.as_dict(pool)
    winner = pool[result.winner]
    if result.majority and winner is not cand:
        if not c.grounding or t.ground(winner).ok:
            return outcome, winner
        return "vote_ungrounded", cand  # the majority says something unbacked: keep ours
    return outcome, cand


def schema(t: Turn, cand: Candidate) -> Verdict:
    """The record is well formed and in words the model learned; a malformed one is re-decoded (or
    snapped to the clause it was copying), never patched."""
    c = t.cfg.checks
    if not t.may_run("schema", "schema"):
        return NO_VERDICT
    with t.tracer.span(SPAN_PREFIX + "schema", turn=t.turn, track=TRACK, variant=cand.variant) as span:
        s = check_schema(cand, t.lang, tuple(c.moods), c.max_reply_chars, c.max_reply_words)
        if c.lexicon and not cand.decode_info.get("snapped"):  # glued pieces ("exhibitionoth") are not a reply
            venue = " ".join(t.keywords_of(f) for f in t.facts) if t.keywords_of else ""
            problems = form_problems(cand, t.lang, t.facts, t.question, c.word_pairs, venue)
            if problems:
                s.ok = False
                s.problems.extend(problems)
        span["outcome"] = "pass" if s.ok else "fail"
        if s.problems:
            span["problems"] = s.problems
    t.predictor.observe("schema", s.ms)
    t.add_ms("schema", s.ms)
    t.report.schema_ok = s.ok
    if s.ok:
        return PASS
    t.report.schema_problems = s.problems
    return Verdict(mend=Mend("schema", "redecode_schema", ("grounding", "schema"), snap="schema"))


def form_problems(cand: Candidate, lang: str, facts: list[Fact], question: str, word_pairs: bool,
                  venue: str = "") -> list[str]:
    """What is wrong with the reply's words (the lexicon part of the schema check). `venue`: the facts'
    keywords with the venue's own name and kind."""
    problems = []
    context = [f.text for f in facts] + [question]
    unknown = unknown_words(cand.text, context)
    if unknown:
        problems.append("unknown words: " + ", ".join(unknown))
    odd = unknown_pairs(cand.text, context) if word_pairs else []
    if odd:  # words in an order the model never saw: "If is is help is", "bis bis"
        problems.append("unknown word pairs: " + ", ".join(odd))
    if dangling_end(cand.text, lang):  # "The entrance is on." lost the name after "on"
        problems.append("ends on an article or preposition")
    if contradicting_lead(cand.text):  # "Ja. Hunde sind nicht erlaubt."
        problems.append("its yes or no contradicts what follows")
    if cand.mood == "sorry" and garbled_decline(cand.text, lang):
        problems.append("a decline in words the model never learned for one")
    foreign = foreign_kinds(cand.text, lang, " ".join(context) + " " + venue)
    if foreign:  # "die Messe ist ... geöffnet" at a zoo: a training venue's sentence, not this venue's
        problems.append("names a kind of venue this is not: " + ", ".join(foreign))
    # "Today", "Hauptwege": one word answers no question about the venue (a greeting's "Gerne!" may be short)
    asks = bool(facts) or len(_CONTENT_WORD.findall(question)) >= 4
    if asks and cand.mood != "sorry" and len(_CONTENT_WORD.findall(cand.text)) < 2:
        problems.append("one word is no answer to a question")
    return problems


_CONTENT_WORD = re.compile(r"[^\W_]+")


# --- the table, in the order of value: grounding (and relevance, source: the values are about what
# was asked), then self-consistency, then schema ------------------------------------------------------
CHECKS: tuple[Check, ...] = (
    Check("declined_answerable", lambda c: c.declined_answerable, declined_answerable,
          "a decline although a retrieved fact answers the question"),
    Check("grounding", lambda c: bool(c.grounding), grounding, "every value of the reply is in a fact"),
    Check("relevance", lambda c: bool(c.relevance), relevance, "the reply's values are about what was asked"),
    Check("source", lambda c: c.wrong_source, source, "the fact the reply comes from names what was asked"),
    Check("self_consistency", lambda c: bool(c.self_consistency), self_consistency,
          "a second decode says the same"),
    Check("schema", lambda c: bool(c.schema), schema, "a well-formed reply in words the model learned"),
)
