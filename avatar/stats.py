"""Percentiles: the one helper behind every bench, report, HUD figure and evaluation.

numpy's default (linear interpolation between ranks), so a p95 over few turns is comparable
wherever it is printed. Shared core: any stage, bench or command may import it.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np


def percentile(values: Iterable[float | None], q: float) -> float:
    """The q-th percentile (0..100) of the values that are not None; NaN when there are none."""
    xs = [float(v) for v in values if v is not None]
    return float(np.percentile(xs, q)) if xs else math.nan


def percentile_ms(values: Iterable[float | None], q: float) -> float | None:
    """`percentile` rounded to 0.1 (ms), None when there are no values: what benches write to JSON."""
    p = percentile(values, q)
    return None if math.isnan(p) else round(p, 1)


def p50_p95(values: Iterable[float | None]) -> dict[str, float | None]:
    """{"p50", "p95", "n"} of the values that are not None (ms, as `percentile_ms`): a bench's
    summary of one figure."""
    xs = [v for v in values if v is not None]
    return {"p50": percentile_ms(xs, 50), "p95": percentile_ms(xs, 95), "n": len(xs)}
