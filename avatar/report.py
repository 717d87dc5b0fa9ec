"""Turn a debug trace (spans) into per-stage percentiles, a text table and a PNG plot.

Used by `avatar report TRACE`, by the debug panel of the app (p50/p95 over the run) and by the
headless runner (one HUD line per turn). No Qt here; matplotlib only when a plot is asked for.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from avatar.errors import AudioFileError, AvatarError
from avatar.stage_names import (ASR, CHECKS, DECODE, ENDPOINT, OUTPUT, RETRIEVAL, STAGE_ORDER,
                                TTS_FIRST_AUDIO, VOICE_TO_VOICE, is_check)
from avatar.stats import percentile
from avatar.trace import Span

# Tracks whose spans time the inside of a stage another span already covers (the LLM's forward
# passes inside "decode", the ASR encoder inside "asr"): counting them again would double a stage.
INNER_TRACKS = ("llm", "asr", "tts")


def is_stage_span(span: Span) -> bool:
    """A span that is one stage of a turn (or its voice-to-voice total)."""
    if span.turn is None or span.track in INNER_TRACKS:
        return False
    # other spans on the "turn" track enclose stages (answer_total) and would count them twice
    return span.track != "turn" or span.name == VOICE_TO_VOICE


def trace_file_for_run(cfg) -> Path:
    """Where a debug run writes its trace: a file of its own in general.trace_dir, made (empty) here so
    that no other run takes the name (two runs in the same second: the process id and a count tell them
    apart); the oldest traces beyond general.trace_keep go."""
    from datetime import datetime

    from avatar.paths import resolve

    folder = resolve(cfg.general.trace_dir)
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"run-{datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}"
    for n in range(1, 10_000):
        path = folder / (f"{stem}.json" if n == 1 else f"{stem}-{n}.json")
        try:
            with open(path, "x", encoding="utf-8") as f:
                f.write('{"traceEvents": []}')  # a valid, empty trace until the run writes its own
        except FileExistsError:
            continue
        prune_traces(folder, int(cfg.general.trace_keep), keep=path)
        return path
    raise OSError(f"no free trace file name for {stem} in {folder}")


def prune_traces(folder: Path, keep_count: int, keep: Path | None = None) -> list[Path]:
    """Remove the oldest run-*.json traces in `folder` beyond `keep_count` (never `keep`); the removed."""
    traces = sorted((p for p in folder.glob("run-*.json") if p != keep), key=lambda p: (p.stat().st_mtime, p.name))
    extra = len(traces) + (keep is not None) - keep_count
    removed = []
    for path in traces[:max(0, extra)]:
        try:
            path.unlink()
            removed.append(path)
        except OSError:  # gone already, or not ours to remove: the next run tries again
            pass
    return removed


def stage_budget(key: str, budgets: Mapping[str, Any]) -> float | None:
    """The budget (ms) a stage is drawn against ([budget] in defaults.toml, keyed by the stage's name):
    each check against the checks budget, voice to voice against the turn's."""
    if is_check(key):
        key = CHECKS
    if key == VOICE_TO_VOICE:
        key = "turn"
    value = budgets.get(key)
    return float(value) if isinstance(value, (int, float)) else None


def stage_sort_key(key: str) -> tuple[int, str]:
    if key in STAGE_ORDER:
        return STAGE_ORDER.index(key) * 2, key
    if is_check(key):
        return STAGE_ORDER.index(CHECKS) * 2 - 1, key  # each check just before the checks total
    if key == VOICE_TO_VOICE:
        return 100, key
    return 50, key


@dataclass(frozen=True)
class StageStats:
    name: str
    n: int
    p50: float
    p95: float
    mean: float
    max: float
    budget: float | None = None

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.p95 > self.budget


@dataclass
class TurnStages:
    """One turn of a trace: its spans and the milliseconds per stage (repeated spans summed)."""
    turn: int
    spans: list[Span] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)
    # the loop's own stage list (TurnMetrics.stages, in order): consecutive intervals from the end
    # of speech that add up to voice to voice, so they draw an exact waterfall
    sequence: list[tuple[str, float]] = field(default_factory=list)

    @property
    def start(self) -> float:
        return min((s.start for s in self.spans), default=0.0)

    @property
    def voice_to_voice_ms(self) -> float | None:
        return self.stages.get(VOICE_TO_VOICE)


def turns_from_spans(spans: Iterable[Span]) -> list[TurnStages]:
    turns: dict[int, TurnStages] = {}
    for s in spans:
        if not is_stage_span(s):
            continue
        t = turns.setdefault(int(s.turn), TurnStages(int(s.turn)))
        t.spans.append(s)
        t.stages[s.name] = t.stages.get(s.name, 0.0) + s.ms
    for t in turns.values():
        t.spans.sort(key=lambda s: s.start)
    return [turns[k] for k in sorted(turns)]


# Some stages are measured by the loop from marks, not as spans (endpoint, hold, output): debug
# runs also record each TurnMetrics as an instant event so `avatar report` sees every stage.
METRICS_INSTANT = "turn_metrics"


def record_turn_metrics(tracer, metrics) -> None:
    """Put a TurnMetrics into the trace (call from any thread)."""
    tracer.instant(METRICS_INSTANT, turn=metrics.turn, stages=dict(metrics.stages),
                   voice_to_voice_ms=metrics.voice_to_voice_ms, lang=metrics.lang)


def load_trace(path: str | os.PathLike) -> tuple[list[Span], dict[int, dict[str, float]]]:
    """The spans of a Chrome trace file and the per-turn stage ms of its turn_metrics instants."""
    import json

    from avatar.trace import load_chrome

    spans = load_chrome(path)
    data = json.loads(Path(path).read_text())
    events = data["traceEvents"] if isinstance(data, dict) else data
    metrics: dict[int, dict[str, float]] = {}
    for e in events:
        args = e.get("args") or {}
        if e.get("ph") == "i" and e.get("name") == METRICS_INSTANT and isinstance(args.get("turn"), int):
            stages = {k: float(v) for k, v in (args.get("stages") or {}).items() if isinstance(v, (int, float))}
            if isinstance(args.get("voice_to_voice_ms"), (int, float)):
                stages[VOICE_TO_VOICE] = float(args["voice_to_voice_ms"])
            metrics[args["turn"]] = stages
    return spans, metrics


def merge_turn_metrics(turns: list[TurnStages], metrics: Mapping[int, Mapping[str, float]]) -> list[TurnStages]:
    """Add the stages only the metrics know (no span) to each turn; turns without spans are added."""
    by_turn = {t.turn: t for t in turns}
    for turn, stages in metrics.items():
        t = by_turn.setdefault(turn, TurnStages(turn))
        t.sequence = [(name, ms) for name, ms in stages.items() if name != VOICE_TO_VOICE]
        for name, ms in stages.items():
            t.stages.setdefault(name, ms)
    return [by_turn[k] for k in sorted(by_turn)]


def stage_stats(per_turn: Iterable[Mapping[str, float]], budgets: Mapping[str, Any] | None = None) -> list[StageStats]:
    """Percentiles per stage over turns, each turn given as {stage: ms}."""
    values: dict[str, list[float]] = {}
    for stages in per_turn:
        for name, ms in stages.items():
            if ms is not None and not math.isnan(ms):
                values.setdefault(name, []).append(float(ms))
    budgets = budgets or {}
    out = []
    for name in sorted(values, key=stage_sort_key):
        xs = values[name]
        out.append(StageStats(name, len(xs), percentile(xs, 50), percentile(xs, 95), sum(xs) / len(xs), max(xs),
                              stage_budget(name, budgets)))
    return out


def format_table(stats: list[StageStats]) -> str:
    if not stats:
        return "no turn spans in this trace (spans need a turn number)"
    width = max(12, *(len(s.name) for s in stats))
    lines = [f"{'stage':<{width}} {'n':>5} {'p50 ms':>9} {'p95 ms':>9} {'mean ms':>9} {'max ms':>9} {'budget':>8}"]
    for s in stats:
        budget = f"{s.budget:.0f}" if s.budget is not None else "-"
        flag = "  over" if s.over_budget else ""
        lines.append(f"{s.name:<{width}} {s.n:>5} {s.p50:>9.1f} {s.p95:>9.1f} {s.mean:>9.1f} {s.max:>9.1f} {budget:>8}{flag}")
    return "\n".join(lines)


# --- one line per turn, for the headless runner -------------------------------------------------
HEADLESS_COLUMNS = STAGE_ORDER
_SHORT = {ENDPOINT: "endpt", RETRIEVAL: "retr", TTS_FIRST_AUDIO: "tts1st"}


def turn_table_header() -> str:
    cols = " ".join(f"{_SHORT.get(c, c):>8}" for c in HEADLESS_COLUMNS)
    return f"{'turn':>4} {'lang':<4} {cols} {'v2v ms':>8}  transcript -> reply"


def turn_table_row(turn: int, lang: str, stages: Mapping[str, float], voice_to_voice_ms: float | None,
                   transcript: str, reply: str, budgets: Mapping[str, Any]) -> str:
    """A per-turn HUD line; a stage over its budget is marked with '!'."""
    canon: dict[str, float] = {}
    for name, ms in stages.items():
        if is_check(name) and CHECKS not in stages:
            canon[CHECKS] = canon.get(CHECKS, 0.0) + ms
        canon[name] = canon.get(name, 0.0) + ms
    cells = []
    for c in HEADLESS_COLUMNS:
        if c not in canon:
            cells.append(f"{'-':>8}")
            continue
        budget = stage_budget(c, budgets)
        mark = "!" if budget is not None and canon[c] > budget else " "
        cells.append(f"{canon[c]:>7.0f}{mark}")
    v2v = "-" if voice_to_voice_ms is None else f"{voice_to_voice_ms:.0f}"
    text = f"{_clip(transcript, 40)!r} -> {_clip(reply, 60)!r}"
    return f"{turn:>4} {lang:<4} {' '.join(cells)} {v2v:>8}  {text}"


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# --- plot ---------------------------------------------------------------------------------------
_COLORS = {ENDPOINT: "#7aa6c2", ASR: "#4f86c6", RETRIEVAL: "#9b7fd1", DECODE: "#e0884f",
           CHECKS: "#d9b44a", TTS_FIRST_AUDIO: "#5bb38a", OUTPUT: "#8a9aa8", VOICE_TO_VOICE: "#444444"}


def stage_color(key: str) -> str:
    if is_check(key):
        return "#e8c766"
    return _COLORS.get(key, "#b0b0b0")


def plot_report(turns: list[TurnStages], out: str | os.PathLike, budgets: Mapping[str, Any],
                turn: int | None = None, title: str = "") -> Path:
    """A PNG: the waterfall of one turn (default: the slowest) above the stage percentiles and a
    histogram of voice-to-voice (or whole-turn) latency."""
    if not turns:
        raise AvatarError("the trace has no turn spans to plot",
                          hint="record a run with `avatar run --debug`; spans need a turn number")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pick = _pick_turn(turns, turn)
    stats = stage_stats([t.stages for t in turns], budgets)
    fig = plt.figure(figsize=(12, 8.5), dpi=100)
    grid = fig.add_gridspec(2, 2, height_ratios=[1.1, 1], hspace=0.38, wspace=0.28)
    _draw_waterfall(fig.add_subplot(grid[0, :]), pick, budgets)
    _draw_stage_bars(fig.add_subplot(grid[1, 0]), [s for s in stats if s.name != VOICE_TO_VOICE])
    _draw_histogram(fig.add_subplot(grid[1, 1]), turns, budgets)
    fig.suptitle(title or f"avatar report: {len(turns)} turns", fontsize=14, fontweight="bold")
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, bbox_inches="tight")
    except OSError as exc:
        raise AudioFileError(f"cannot write the plot {out}: {exc.strerror}", hint="choose a writable path") from None
    finally:
        plt.close(fig)
    return out


def _pick_turn(turns: list[TurnStages], turn: int | None) -> TurnStages:
    if turn is not None:
        for t in turns:
            if t.turn == turn:
                return t
        raise AvatarError(f"turn {turn} is not in the trace",
                          hint=f"turns in it: {', '.join(str(t.turn) for t in turns[:20])}")
    return max(turns, key=lambda t: t.voice_to_voice_ms or sum(t.stages.values()))


def _waterfall_bars(turn: TurnStages) -> tuple[list[tuple[str, float, float]], str]:
    """(name, start ms, duration ms) per bar, and what the x axis counts from."""
    if turn.sequence:  # the loop's stages, end to end from the last speech sample
        bars, at = [], 0.0
        for name, ms in turn.sequence:
            bars.append((name, at, ms))
            at += ms
        return bars, "ms since the end of speech"
    v2v = next((s for s in turn.spans if s.name == VOICE_TO_VOICE), None)
    t0 = v2v.start if v2v is not None else turn.start
    origin = "ms since the end of speech" if v2v is not None else "ms since the turn's first span"
    return [(s.name, (s.start - t0) * 1000, s.ms) for s in turn.spans if s is not v2v], origin


def _draw_waterfall(ax, turn: TurnStages, budgets: Mapping[str, Any]) -> None:
    bars, origin = _waterfall_bars(turn)
    for row, (name, left, ms) in enumerate(bars):
        width = max(ms, 0.5)
        ax.barh(row, width, left=left, color=stage_color(name), edgecolor="white", height=0.7)
        budget = stage_budget(name, budgets)
        over = budget is not None and ms > budget
        ax.text(left + width + 4, row, f"{ms:.0f} ms" + (f"  (budget {budget:.0f})" if over else ""),
                va="center", fontsize=9, color="#b3261e" if over else "#333333")
    ax.set_yticks(range(len(bars)), [name for name, _, _ in bars])
    ax.invert_yaxis()
    ax.set_xlim(left=0)
    v2v = turn.voice_to_voice_ms
    turn_budget = stage_budget(VOICE_TO_VOICE, budgets)
    if turn_budget:
        ax.axvline(turn_budget, color="#b3261e", linestyle="--", linewidth=1, label=f"turn budget {turn_budget:.0f} ms")
    gap = budgets.get("human_gap")
    if isinstance(gap, (int, float)):
        ax.axvline(gap, color="#2e7d32", linestyle=":", linewidth=1.5, label=f"human gap {gap:.0f} ms")
    ax.set_xlabel(origin)
    extra = f", voice to voice {v2v:.0f} ms" if v2v is not None else ""
    ax.set_title(f"waterfall of turn {turn.turn}{extra}", loc="left")
    ax.legend(loc="upper right", fontsize=9)
    ax.grid(axis="x", alpha=0.3)


def _draw_stage_bars(ax, stats: list[StageStats]) -> None:
    names = [s.name for s in stats]
    ys = range(len(stats))
    ax.barh(ys, [s.p95 for s in stats], color="#dddddd", height=0.7, label="p95")
    ax.barh(ys, [s.p50 for s in stats], color=[stage_color(n) for n in names], height=0.7, label="p50")
    for y, s in zip(ys, stats):
        if s.budget is not None:
            ax.plot([s.budget, s.budget], [y - 0.4, y + 0.4], color="#b3261e", linewidth=2)
    ax.set_yticks(list(ys), names)
    ax.invert_yaxis()
    ax.set_xlabel("ms (red tick: budget)")
    ax.set_title("per stage: p50 (colour) and p95 (grey)", loc="left")
    ax.legend(loc="lower right", fontsize=9)
    ax.grid(axis="x", alpha=0.3)


def _draw_histogram(ax, turns: list[TurnStages], budgets: Mapping[str, Any]) -> None:
    v2v = [t.voice_to_voice_ms for t in turns if t.voice_to_voice_ms is not None]
    label = "voice to voice"
    if not v2v:  # a trace without a voice-to-voice span: the sum of the stages is the best we have
        v2v = [sum(ms for k, ms in t.stages.items() if not is_check(k)) for t in turns]
        label = "sum of stages"
    lo, hi = min(v2v), max(v2v)
    bins = min(30, max(5, len(v2v) // 2))
    if hi - lo < 20:  # one turn (or all alike): one bar with some width
        lo, hi, bins = lo - 10, hi + 10, 1
    ax.hist(v2v, bins=bins, range=(lo, hi), color="#4f86c6", edgecolor="white")
    turn_budget = stage_budget(VOICE_TO_VOICE, budgets)
    if turn_budget:
        ax.axvline(turn_budget, color="#b3261e", linestyle="--", label=f"budget {turn_budget:.0f}")
    gap = budgets.get("human_gap")
    if isinstance(gap, (int, float)):
        ax.axvline(gap, color="#2e7d32", linestyle=":", linewidth=1.5, label=f"human gap {gap:.0f}")
    p50, p95 = percentile(v2v, 50), percentile(v2v, 95)
    ax.set_title(f"{label}: p50 {p50:.0f} ms, p95 {p95:.0f} ms (n={len(v2v)})", loc="left")
    ax.set_xlabel("ms")
    ax.set_ylabel("turns")
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize=9)
    ax.grid(axis="y", alpha=0.3)
