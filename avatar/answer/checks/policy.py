"""Budget policy: a check runs only while its predicted cost fits in what is left of the turn's budget.

Each check's cost is predicted by the running average of its own measured costs (starting from a
prior from the config), so the policy learns this machine's speed within a few turns.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

from avatar.trace import now


class CostPredictor:
    """Running (exponential) average of each cost in ms; shared across turns, thread-safe."""

    def __init__(self, priors: dict[str, float] | None = None, default_ms: float = 1.0, weight: float = 0.3):
        self._mean: dict[str, float] = dict(priors or {})
        self._seen: dict[str, int] = {}
        self.default_ms = default_ms
        self.weight = weight
        self._lock = threading.Lock()

    def predict(self, name: str) -> float:
        with self._lock:
            return self._mean.get(name, self.default_ms)

    def observe(self, name: str, ms: float) -> None:
        with self._lock:
            seen = self._seen.get(name, 0)
            # the first measurement replaces the prior: a prior is a guess, a measurement is not
            self._mean[name] = ms if seen == 0 else (1 - self.weight) * self._mean[name] + self.weight * ms
            self._seen[name] = seen + 1


@dataclass
class TurnBudget:
    """What is left of one turn's checking budget, on an injectable clock (seconds)."""
    budget_ms: float
    clock: Callable[[], float] = now
    start: float = field(default=-1.0)

    def __post_init__(self) -> None:
        if self.start < 0:
            self.start = self.clock()

    @property
    def spent_ms(self) -> float:
        return (self.clock() - self.start) * 1000.0

    @property
    def left_ms(self) -> float:
        return self.budget_ms - self.spent_ms

    def fits(self, predicted_ms: float) -> bool:
        return predicted_ms <= self.left_ms
