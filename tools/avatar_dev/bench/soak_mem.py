"""Where a soak's memory goes (`avatar soak --tracemalloc A,B`): a dev probe, off the normal path.

At turn A it starts tracemalloc (only allocations from then on are traced, so the turns before run
at full speed), takes a snapshot and counts the live Python objects by type (gc); at turn B it does
both again and reports what grew between them: the allocation sites (grouped by line and by
traceback) that hold more memory, the object types that are more numerous, and RSS against the
Python heap traced, so native growth (malloc arenas, onnxruntime, CTranslate2, torch) is told
from Python objects. Tracing costs time and memory: a run with the probe is not a soak to quote.
"""
from __future__ import annotations

import gc
import tracemalloc
from collections import Counter
from typing import Any

FRAMES = 12  # traceback depth kept per allocation


def type_counts() -> Counter:
    gc.collect()
    return Counter(type(o).__name__ for o in gc.get_objects())


class MemProbe:
    def __init__(self, start_turn: int, end_turn: int, top: int = 25):
        if not 0 < start_turn < end_turn:
            raise ValueError("--tracemalloc A,B needs 0 < A < B")
        self.start_turn, self.end_turn, self.top = start_turn, end_turn, top
        self._snap: tracemalloc.Snapshot | None = None
        self._types: Counter | None = None
        self._rss0 = 0.0
        self.report: dict[str, Any] | None = None

    def on_turn(self, turn: int, rss_mb: float) -> None:
        """Called after every turn (1-based count of turns done)."""
        if turn == self.start_turn:
            tracemalloc.start(FRAMES)
            self._types = type_counts()
            self._snap = tracemalloc.take_snapshot()
            self._rss0 = rss_mb
        elif turn == self.end_turn and self._snap is not None:
            self.report = self.compare(rss_mb)
            tracemalloc.stop()
            self._snap = None

    def compare(self, rss_mb: float) -> dict[str, Any]:
        types = type_counts()
        snap = tracemalloc.take_snapshot()
        filters = [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, __file__)]
        old, new = self._snap.filter_traces(filters), snap.filter_traces(filters)
        traced_old = sum(s.size for s in old.statistics("filename"))
        traced_new = sum(s.size for s in new.statistics("filename"))

        def stats(key: str) -> list[dict]:
            out = []
            for d in new.compare_to(old, key)[: self.top]:
                if d.size_diff <= 0:
                    continue
                frames = [f"{f.filename.split('site-packages/')[-1]}:{f.lineno}" for f in d.traceback]
                out.append({"kib_diff": round(d.size_diff / 1024, 1), "count_diff": d.count_diff,
                            "kib": round(d.size / 1024, 1), "where": frames if key == "traceback" else frames[0]})
            return out

        grown = {k: types[k] - self._types.get(k, 0) for k in types}
        return {"turns": [self.start_turn, self.end_turn],
                "rss_mb_diff": round(rss_mb - self._rss0, 1),
                "python_traced_mb_diff": round((traced_new - traced_old) / 2 ** 20, 2),
                "by_line": stats("lineno"),
                "by_traceback": stats("traceback")[:10],
                "object_types_grown": dict(sorted(((k, v) for k, v in grown.items() if v > 0),
                                                  key=lambda kv: -kv[1])[: self.top])}


def format_probe(r: dict[str, Any]) -> str:
    lines = [f"tracemalloc turns {r['turns'][0]} -> {r['turns'][1]}: RSS {r['rss_mb_diff']:+} MB, "
             f"Python heap traced {r['python_traced_mb_diff']:+} MB"]
    for s in r["by_line"]:
        lines.append(f"  {s['kib_diff']:+9.1f} KiB {s['count_diff']:+7d} blocks  {s['where']}")
    lines.append("  objects grown: " + ", ".join(f"{k} {v:+d}" for k, v in r["object_types_grown"].items()))
    for s in r["by_traceback"][:5]:
        lines.append(f"  {s['kib_diff']:+9.1f} KiB via " + " <- ".join(reversed(s["where"][-6:])))
    return "\n".join(lines)
