"""What a check says, shared by the checks (table.py) and the turn that runs them (turn.py): a
Verdict (pass, mend, fall back), the Mend a failure asks for, the span names, and what counts as a
decline. Below both, so that neither imports the other's module for it."""
from __future__ import annotations

from dataclasses import dataclass

from avatar.answer.checks.candidate import Candidate
from avatar.model_contract import is_decline as declines
from avatar.stage_names import CHECK_PREFIX

TRACK = "checks"
SPAN_PREFIX = CHECK_PREFIX  # span names the HUD and `avatar report` file under the checks budget
NO_DECLINE = "<sorry>"  # in `banned`: the answerer closes off the decline mood for that decode


@dataclass(frozen=True)
class Mend:
    """A failed check's remedy: re-decode under `ban` (added to the turn's bans); when the turn has
    no re-decode left, snap to a fact clause (`snap` names the reason; "" never); else fall back."""
    fallback: str                          # the fallback's reason ("kind:reason" in the report)
    purpose: str                           # the re-decode's span purpose
    recheck: tuple[str, ...] = ("grounding",)  # the checks its predicted cost runs again
    ban: frozenset = frozenset()
    same_variant: bool = False             # variant 0 again under the bans (else a fresh seed/order)
    snap: str = ""
    only_this_decode: bool = False         # the ban is lifted once this re-decode is done
    reject_decline: bool = False           # a re-decode that declines again mends nothing
    min_budget_ms: float | None = None     # the budget left is raised to at least this first


@dataclass(frozen=True)
class Verdict:
    passed: bool = False
    mend: Mend | None = None
    fallback: str = ""              # fall back at once, for this reason
    cand: Candidate | None = None   # go on with this candidate (a vote's winner)

    @property
    def failed(self) -> bool:
        return self.mend is not None or bool(self.fallback)


PASS = Verdict(passed=True)
NO_VERDICT = Verdict()  # not run for this reply: skipped for time, not needed, not applicable


def is_decline(cand: Candidate) -> bool:
    """The sorry record, or a decline sentence the model learned under another mood (model_contract)."""
    return declines(cand.text, cand.mood)
