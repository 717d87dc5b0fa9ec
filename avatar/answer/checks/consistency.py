"""Self-consistency: two decodes (different seed or unmasking order) must say the same content.

Content is the normalised set of facts-bearing items (content.py) plus the names; the wording
around them may differ, so the rest is compared by token overlap against a low threshold. When
two decodes disagree, a third one decides by majority vote.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from avatar.answer.checks.candidate import Candidate
from avatar.answer.checks.common_words import common_words
from avatar.answer.checks.content import extract
from avatar.trace import now

_WORD = re.compile(r"[\wÄÖÜäöüß]+")


@dataclass
class Agreement:
    agree: bool
    same_items: bool
    overlap: float  # Jaccard overlap of the remaining words (lower-cased)
    ms: float = 0.0


@dataclass
class Vote:
    winner: int  # index into the candidates
    votes: list[int] = field(default_factory=list)  # per candidate: how many others agree with it
    majority: bool = False  # the winner agrees with at least half of the others

    def as_dict(self, candidates: Sequence[Candidate]) -> dict:
        return {"winner": candidates[self.winner].variant, "votes": self.votes, "majority": self.majority}


def content_signature(text: str, lang: str) -> frozenset[str]:
    """The reply's normalised items and names (capitalised common words such as "I" or "Sie" are not names)."""
    content = extract(text, lang)
    common = common_words(lang)
    return content.keys | frozenset(f"name:{n.lower()}" for n in content.names if n.lower() not in common)


def _rest_words(text: str, lang: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(extract(text, lang).rest)}


def compare(a: Candidate, b: Candidate, lang: str, min_overlap: float = 0.2) -> Agreement:
    """Agree when both carry the same items and names and enough of the other words match."""
    t0 = now()
    same = content_signature(a.text, lang) == content_signature(b.text, lang)
    wa, wb = _rest_words(a.text, lang), _rest_words(b.text, lang)
    overlap = len(wa & wb) / len(wa | wb) if wa | wb else 1.0
    return Agreement(same and overlap >= min_overlap, same, round(overlap, 3), (now() - t0) * 1000.0)


def vote(candidates: Sequence[Candidate], lang: str, min_overlap: float = 0.2) -> Vote:
    """The candidate most others agree with; ties go to the earlier decode (the default order first)."""
    n = len(candidates)
    votes = [0] * n
    for i in range(n):
        for j in range(i + 1, n):
            if compare(candidates[i], candidates[j], lang, min_overlap).agree:
                votes[i] += 1
                votes[j] += 1
    winner = max(range(n), key=lambda i: (votes[i], -i))
    return Vote(winner, votes, n > 1 and votes[winner] * 2 >= n - 1 and votes[winner] > 0)
