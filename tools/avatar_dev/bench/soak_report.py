"""The soak's report (tools/avatar_dev/bench/soak.py): what each turn did (TurnRecord), the bounds, the trends
over turns (latency drift, RSS slope, threads, fds, spans), the verdict per bound and its text."""
from __future__ import annotations

import os
import platform
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any, Sequence

import numpy as np

from avatar.stats import percentile_ms


@dataclass
class Bounds:
    """What the soak must show (issue 13): the defaults are the issue's numbers."""
    rss_growth_pct: float = 5.0        # RSS at the end against RSS after the warm-up tenth
    threads_slack: int = 2             # threads (and fds) above the warm-up level, at most
    fds_slack: int = 4
    latency_drift_pct: float = 10.0    # p95 of the last tenth against turns 10-30 %
    errors: int = 0                    # stage errors, turns that never ended, logged errors
    min_turns_for_drift: int = 20      # fewer turns: drift is reported, not judged
    warmup_turns: int = 200            # memory is compared from here on (at most half the run): caches fill by turns
    heard_shrink_s: float = 0.1        # the audio a clip's question is recognized from, last tenth against turns 10-30 %



@dataclass
class TurnRecord:
    index: int
    kind: str
    clip: str
    lang: str
    overlay: str = ""            # what was said over the reply (barge-in, backchannel clip) and when
    overlay_at_s: float = 0.0
    replies: int = 0
    voice_to_voice_ms: float | None = None
    later_v2v_ms: list[float] = field(default_factory=list)  # replies after the first (an interruption's)
    barge_in_stops: int = 0
    answered_after_stop: bool = False  # a reply to what stopped the reply started (its own turn)
    asked_again: int = 0         # the avatar found no words in what stopped the reply and asked again
    pauses: int = 0              # replies paused at a voice onset this turn (then stopped or resumed)
    transcripts: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # why a transcript of the turn was dropped (empty, noise, ...)
    stage_errors: list[str] = field(default_factory=list)
    heard_s: float | None = None  # the audio the turn's first reply was recognized from (pre-roll included)
    # a barge-in that stopped the reply: its words as recognized after the stop, and their word
    # accuracy against what the visitor said (0 when nothing was recognized)
    interruption_text: str = ""
    interruption_accuracy: float | None = None
    gaps: int = 0                # silences inside the turn's replies: a piece synthesized too late (ReplyDone)
    gap_ms: float = 0.0
    timed_out: bool = False
    miss: str = ""               # the turn did not go as a kiosk should (not an error: reported)
    wall_s: float = 0.0
    rss_mb: float = 0.0
    threads: int = 0
    py_threads: int = 0
    fds: int = 0
    spans: int = 0


def slope_per_100(values: Sequence[float]) -> float | None:
    """Least-squares slope of values against turn index, per 100 turns (None under 3 points)."""
    if len(values) < 3:
        return None
    x = np.arange(len(values), dtype=np.float64)
    return float(np.polyfit(x, np.asarray(values, np.float64), 1)[0] * 100)


def summarize(records: list[TurnRecord], bounds: Bounds, logged_errors: int, wall_s: float,
              setup: dict | None = None) -> dict[str, Any]:
    n = len(records)
    out: dict[str, Any] = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                           "machine": f"{platform.machine()} {os.cpu_count() or 0} cores",
                           **(setup or {}), "turns_done": n, "wall_s": round(wall_s, 1)}
    warm = max(1, n // 10)  # the first tenth warms up latency (lazy imports, first-use costs)
    # memory: caches fill by turns (clauses spoken, word stems, allocator pools), so its warm-up is
    # counted in turns (the soak: from turn 200 of 2,000), at most half the run
    mem_warm = max(1, min(bounds.warmup_turns, n // 2))
    v2v = [r.voice_to_voice_ms for r in records]
    early = [v for v in v2v[warm: max(warm + 1, (3 * n) // 10)] if v is not None]
    late = [v for v in v2v[n - max(1, n // 10):] if v is not None]
    p95_early, p95_late = percentile_ms(early, 95), percentile_ms(late, 95)
    drift = (None if not p95_early or p95_late is None else round(100 * (p95_late - p95_early) / p95_early, 1))
    all_v = [v for v in v2v if v is not None]
    out["latency"] = {"p50": percentile_ms(all_v, 50), "p95": percentile_ms(all_v, 95), "n": len(all_v),
                      "p95_turns_10_30pct": p95_early, "p95_last_10pct": p95_late, "drift_pct": drift,
                      "slope_ms_per_100_turns": _round(slope_per_100(all_v)),
                      "by_lang": {lang: percentile_ms([r.voice_to_voice_ms for r in records if r.lang == lang
                                                       and r.voice_to_voice_ms is not None], 50)
                                  for lang in sorted({r.lang for r in records})}}
    rss = [r.rss_mb for r in records]
    second = rss[n // 2:]
    span = max(1, min(10, n // 20))  # medians over a few turns: RSS moves by tens of MB within a turn
    rss_warm = float(np.median(rss[max(0, mem_warm - span): mem_warm + span])) if rss else 0.0
    rss_end = float(np.median(rss[-span:])) if rss else 0.0
    tenths = [rss[i * n // 10:(i + 1) * n // 10] for i in range(10)] if n >= 10 else []
    out["rss_mb"] = {"first": rss[0] if rss else None, "warmup_turn": mem_warm, "after_warmup": round(rss_warm, 1),
                     "end": round(rss_end, 1), "max": max(rss, default=None),
                     "median_by_tenth": [round(float(np.median(t)), 1) for t in tenths],
                     "growth_pct": round(100 * (rss_end - rss_warm) / rss_warm, 2) if rss_warm else None,
                     "slope_mb_per_100_turns_second_half": _round(slope_per_100(second), 2)}
    out["heard"] = _heard(records, warm, n)
    over = [r for r in records if r.kind in ("barge_in", "backchannel")]
    out["over_reply"] = {  # what was said over the reply: did an onset pause it, did it stop
        f"{r_kind}/{name}": {"turns": len(rs), "paused": sum(r.pauses > 0 for r in rs),
                             "stopped": sum(r.barge_in_stops > 0 for r in rs),
                             "answered": sum(r.answered_after_stop for r in rs),
                             "asked_again": sum(r.asked_again > 0 for r in rs), "missed": sum(bool(r.miss) for r in rs)}
        for r_kind, name in sorted({(r.kind, r.overlay) for r in over})
        for rs in [[r for r in over if (r.kind, r.overlay) == (r_kind, name)]]}
    out["interruptions_heard"] = _interruptions_heard(records)
    gapped = [r for r in records if r.gaps]
    out["reply_gaps"] = {"turns": len(gapped), "of": sum(r.replies > 0 for r in records),
                         "gaps": sum(r.gaps for r in gapped), "ms_median": percentile_ms([r.gap_ms for r in gapped], 50),
                         "ms_max": max((r.gap_ms for r in gapped), default=None)}
    for key in ("threads", "fds", "spans"):
        series = [getattr(r, key) for r in records]
        out[key] = {"first": series[0] if series else None, "after_warmup": series[warm - 1] if series else None,
                    "end": series[-1] if series else None, "max": max(series, default=None),
                    "max_after_warmup": max(series[warm:], default=None) if series[warm:] else None,
                    "max_last_half": max(series[n // 2:], default=None) if series[n // 2:] else None}
    stage_errors = sum(len(r.stage_errors) for r in records)
    timeouts = sum(r.timed_out for r in records)
    kinds = sorted({r.kind for r in records})
    out["kinds"] = {k: {"turns": sum(r.kind == k for r in records), "misses": sum(r.kind == k and bool(r.miss)
                                                                                  for r in records)} for k in kinds}
    out["misses"] = [{"turn": r.index, "kind": r.kind, "clip": r.clip, "overlay": r.overlay, "miss": r.miss}
                     for r in records if r.miss]
    # a kiosk that slowly goes deaf shows as misses that grow from tenth to tenth
    out["missed_by_tenth"] = {kind: [f"{sum(bool(r.miss) for r in part if r.kind == kind)}/"
                                     f"{sum(r.kind == kind for r in part)}"
                                     for part in (records[i * n // 10:(i + 1) * n // 10] for i in range(10))]
                              for kind in ("question", "barge_in")} if n >= 10 else {}
    out["errors"] = {"stage_errors": stage_errors, "turns_timed_out": timeouts, "logged": logged_errors,
                     "total": stage_errors + timeouts + logged_errors}
    out["bounds"] = asdict(bounds)
    out["checks"] = checks = _checks(out, bounds, n)
    out["ok"] = all(c["ok"] for c in checks.values() if c["ok"] is not None)
    out["records"] = [asdict(r) for r in records]
    return out


def _checks(out: dict, b: Bounds, n: int) -> dict[str, dict]:
    judged = n >= b.min_turns_for_drift

    def check(ok, value, limit) -> dict:
        return {"ok": ok, "value": value, "limit": limit}

    growth = out["rss_mb"]["growth_pct"]
    drift = out["latency"]["drift_pct"]
    th, fd = out["threads"], out["fds"]
    shrink = out["heard"]["shrink_s"]
    return {
        "rss_growth_pct": check(None if growth is None or not judged else growth <= b.rss_growth_pct,
                                growth, b.rss_growth_pct),
        "threads_flat": check(None if th["max_after_warmup"] is None else
                              th["max_after_warmup"] <= th["after_warmup"] + b.threads_slack,
                              th["max_after_warmup"], th["after_warmup"] + b.threads_slack if th["after_warmup"] else None),
        "fds_flat": check(None if fd["max_after_warmup"] is None else
                          fd["max_after_warmup"] <= fd["after_warmup"] + b.fds_slack,
                          fd["max_after_warmup"], fd["after_warmup"] + b.fds_slack if fd["after_warmup"] else None),
        "latency_drift_pct": check(None if drift is None or not judged else drift <= b.latency_drift_pct,
                                   drift, b.latency_drift_pct),
        "errors": check(out["errors"]["total"] <= b.errors, out["errors"]["total"], b.errors),
        "heard_shrink_s": check(None if shrink is None or not judged else shrink <= b.heard_shrink_s,
                                shrink, b.heard_shrink_s),
    }


def _heard(records: list[TurnRecord], warm: int, n: int) -> dict[str, Any]:
    """Whether the kiosk hears the same question as much at the end as early on: per clip, the median
    length of the audio its answered turns were recognized from, turns 10-30 % against the last
    tenth; `shrink_s` is the median over the clips heard in both. A question that loses its start
    (the endpointer's buffer shifted by lost frames: 0.58 s after 500 turns once) shows here long
    before it is missed, while memory, threads and latency stay flat."""
    early_end, late_start = max(warm + 1, (3 * n) // 10), n - max(1, n // 10)
    by_clip: dict[str, tuple[list[float], list[float]]] = {}
    for r in records:
        if r.heard_s is None or r.kind not in ("question", "barge_in", "backchannel"):
            continue
        early, late = by_clip.setdefault(r.clip, ([], []))
        if warm <= r.index < early_end:
            early.append(r.heard_s)
        elif r.index >= late_start:
            late.append(r.heard_s)
    shrinks = [float(np.median(e) - np.median(lt)) for e, lt in by_clip.values() if e and lt]
    return {"clips_compared": len(shrinks), "shrink_s": round(float(np.median(shrinks)), 3) if shrinks else None,
            "worst_clip_shrink_s": round(max(shrinks), 3) if shrinks else None}


def _interruptions_heard(records: list[TurnRecord]) -> dict[str, Any]:
    """How well the words of interruptions that stopped the reply were recognized, per clip said over
    the reply and over all: a stopped reply answered from misheard words ("Pencil Hall Tigers" for
    "cancel all timers") is no better for the visitor than one that went on."""
    def summary(rs: list[TurnRecord]) -> dict[str, Any]:
        acc = [r.interruption_accuracy for r in rs]
        return {"stopped": len(rs), "word_accuracy_median": _round(float(np.median(acc)), 2) if acc else None,
                "every_word": sum(a >= 1.0 for a in acc)}
    stopped = [r for r in records if r.kind == "barge_in" and r.interruption_accuracy is not None]
    out = {"all": summary(stopped)}
    for name in sorted({r.overlay for r in stopped}):
        out[name] = summary([r for r in stopped if r.overlay == name])
    return out


def _round(v: float | None, digits: int = 1) -> float | None:
    return None if v is None else round(v, digits)


def format_report(r: dict) -> str:
    lat, rss = r["latency"], r["rss_mb"]
    lines = [f"soak: {r['turns_done']} turns in {r['wall_s']:.0f} s ({r['machine']}, answer {r.get('answer')})",
             f"  voice-to-voice p50 {lat['p50']} ms, p95 {lat['p95']} ms (n={lat['n']}); p95 turns 10-30 % "
             f"{lat['p95_turns_10_30pct']} ms, last 10 % {lat['p95_last_10pct']} ms, drift {lat['drift_pct']} %",
             f"  RSS {rss['first']} -> {rss['after_warmup']} (turn {rss['warmup_turn']}) -> {rss['end']} MB, growth "
             f"{rss['growth_pct']} %, second-half slope {rss['slope_mb_per_100_turns_second_half']} MB/100 turns; "
             f"median by tenth {rss['median_by_tenth']}",
             f"  threads {r['threads']['after_warmup']} -> {r['threads']['end']} (max {r['threads']['max_after_warmup']}), "
             f"open fds {r['fds']['after_warmup']} -> {r['fds']['end']} (max {r['fds']['max_after_warmup']}), "
             f"trace spans held {r['spans']['end']} (max {r['spans']['max']})",
             f"  errors {r['errors']}",
             f"  questions heard: {r['heard']['shrink_s']} s shorter in the last tenth than in turns 10-30 % "
             f"(median over {r['heard']['clips_compared']} clips, worst {r['heard']['worst_clip_shrink_s']} s)",
             "  turns: " + ", ".join(f"{k} {v['turns']} ({v['misses']} missed)" for k, v in r["kinds"].items())]
    heard = r.get("interruptions_heard", {}).get("all")
    if heard and heard["stopped"]:
        lines.append(f"  interruptions that stopped the reply: {heard['stopped']}, every word recognized in "
                     f"{heard['every_word']}, word accuracy median {heard['word_accuracy_median']}")
    gaps = r.get("reply_gaps")
    if gaps:
        lines.append(f"  replies with a silence inside (a piece synthesized too late): {gaps['turns']} of {gaps['of']} "
                     f"turns, {gaps['gaps']} silences, median {gaps['ms_median']} ms, longest {gaps['ms_max']} ms")
    for kind, parts in r.get("missed_by_tenth", {}).items():
        lines.append(f"  {kind} turns missed, by tenth of the run: {', '.join(parts)}")
    for m in r["misses"][:20]:
        lines.append(f"    miss turn {m['turn']} ({m['kind']}, {m['clip']}): {m['miss']}")
    for name, c in r["checks"].items():
        verdict = "not judged" if c["ok"] is None else ("ok" if c["ok"] else "BROKEN")
        lines.append(f"  {name}: {c['value']} (limit {c['limit']}) {verdict}")
    if r.get("stopped"):
        lines.append(f"  stopped early: {r['stopped']} of {r.get('turns')}")
    lines.append("soak: " + ("all bounds held" if r["ok"] else "a bound is broken"))
    return "\n".join(lines)
