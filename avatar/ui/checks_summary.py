"""What the checks did to a turn's reply, in a few words for the HUD: the headline ("passed, 2 decodes
agree", "re-decoded: declined though a fact answers", "replaced by the fact: wrong source") and the
verdict marks ("✓ grounding, relevance ✗ source"), in the kiosk's language."""
from __future__ import annotations

from typing import Any, Mapping

from avatar.answer_types import CheckReport
from avatar.locales import Strings

CHECK_VERDICTS = (("declined_answerable", None), ("grounding", "grounded"), ("relevance", "relevant"),
                  ("source", None), ("self_consistency", "agreement"), ("schema", "schema_ok"))
CHECK_REASON = {"declined_answerable": "declined_answerable", "grounding": "unsupported", "relevance": "off_topic",
                "source": "wrong_source", "self_consistency": "no_majority", "schema": "schema"}
FALLBACK_CHECK = {reason: check for check, reason in CHECK_REASON.items()}  # fallback reason -> the check
UNSUPPORTED_SHOWN = 3  # unbacked words named in the HUD; the rest are counted


def checks_summary(checks: CheckReport | Mapping[str, Any] | None, strings: Strings) -> str:
    """A few words on what the checks did: what happened to the reply (checked, re-decoded and why,
    snapped, replaced by the fact or by "I don't know" and why), then the checks that passed (✓) and
    failed (✗), unbacked words and the checks skipped for time."""
    r = CheckReport.of(checks)
    if r.enabled is False:
        return strings.get("hud.checks_off")
    if r.enabled is None:  # no checker: a retrieval answer (after the model failed, say so)
        return strings.get("hud.model_failed", error=r.fallback_reason) if r.fallback_reason \
            else strings.get("hud.no_checks")
    parts = [_headline(r, strings)]
    marks = _marks(r, strings)
    if marks:
        parts.append(marks)
    if r.unsupported:
        more = len(r.unsupported) - UNSUPPORTED_SHOWN
        words = ", ".join(str(w) for w in r.unsupported[:UNSUPPORTED_SHOWN]) + (f" +{more}" if more > 0 else "")
        parts.append(strings.get("hud.unsupported", words=words))
    skipped = [n for n in r.skipped if n in CHECK_REASON]
    if skipped:
        parts.append(strings.get("hud.skipped", names=", ".join(_name(n, strings) for n in skipped)))
    return " · ".join(parts)


def _headline(r: CheckReport, s: Strings) -> str:
    """What became of the reply, in a few words."""
    kind, _, reason = r.fallback.partition(":")
    if r.fallback_used:
        key = "hud.by_retrieval" if r.retrieval_backed is not None else \
            "hud.by_not_known" if kind == "not_known" else "hud.by_fact"
        return s.get(key, why=_why(reason, s))
    if r.retrieval_backed is not None:  # a decline the retrieval answerer could answer
        return s.get("hud.by_retrieval", why=_why("decline_follows", s))
    if r.snapped:
        return s.get("hud.snapped", why=_why(str(r.snapped.get("reason", "")), s))
    if r.redecodes:
        why = _why(CHECK_REASON.get(r.failed[0], "") if r.failed else "", s)
        return s.get("hud.redecoded" if r.redecodes == 1 else "hud.redecoded_n", n=r.redecodes) + \
            (f": {why}" if why else "")
    if r.vote and r.vote.get("majority"):
        return s.get("hud.vote")
    if r.agreement is False:  # the second decode differed and the turn had no time for a third to vote
        return s.get("hud.disagree_kept")
    return s.get("hud.agree" if r.agreement else "hud.passed")


def _marks(r: CheckReport, s: Strings) -> str:
    """"✓ grounding, relevance ✗ schema": each check that ran, by its last verdict."""
    fell_on = FALLBACK_CHECK.get(r.fallback.partition(":")[2]) if r.fallback_used else None
    ok, bad = [], []
    for name, field_name in CHECK_VERDICTS:
        verdict = getattr(r, field_name) if field_name else None
        if name == fell_on:
            bad.append(name)
        elif name in r.passes:
            ok.append(name)
        elif verdict is False:
            bad.append(name)
        elif verdict is True or name in r.failed:  # a failure a re-decode mended
            ok.append(name)
    # a no-break space keeps each mark on the line of the name it marks
    return " ".join(f"{mark}\u00a0{', '.join(_name(n, s) for n in names)}"
                    for mark, names in (("✓", ok), ("✗", bad)) if names)


def _name(check: str, s: Strings) -> str:
    return s.get(f"hud.check_names.{check}") if s.has(f"hud.check_names.{check}") else check


def _why(reason: str, s: Strings) -> str:
    return s.get(f"hud.reasons.{reason}") if s.has(f"hud.reasons.{reason}") else reason
