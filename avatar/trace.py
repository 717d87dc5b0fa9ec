"""The one clock of the program, and the spans every stage records on it.

All timings use `now()` (seconds on a monotonic clock). A turn's spans are laid end to end on
this clock, so they add up to its voice-to-voice latency, and export to the Chrome trace-event
JSON format (opens in Perfetto or chrome://tracing).
"""
from __future__ import annotations

import json
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

_EPOCH = time.perf_counter()


def process_age_s() -> float:
    """Seconds since this process started (Linux /proc; elsewhere since the trace module loaded):
    how long start-up took, the interpreter and imports included."""
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return now()


def now() -> float:
    """Seconds since program start on the one monotonic clock."""
    return time.perf_counter() - _EPOCH


def sleep_until(t: float) -> None:
    """Sleep until the clock reads `t` (used to pace file audio in real time)."""
    delay = t - now()
    if delay > 0:
        time.sleep(delay)


@dataclass
class Span:
    name: str
    start: float
    end: float
    turn: int | None = None
    track: str = "pipeline"
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def ms(self) -> float:
        return (self.end - self.start) * 1000.0


# Span args that may carry a visitor's words (a transcript, a reply, surfaces quoted from them).
# They leave every span when the visit ends and are never written to disk unless asked for.
WORD_ARGS = frozenset({"text", "transcript", "reply", "question", "partial_text", "unsupported", "words"})


class Tracer:
    """Collects spans from every stage (thread-safe) and tells its observers about each one.

    A visit's spans are bounded (`max_spans_per_visit`, the oldest of the visit go first);
    `end_visit()` drops the visitor's words from every span it holds. `keep_words` (set by
    `avatar run --debug-transcripts`) keeps them, in memory and in exported traces;
    `keep_past_visits=False` (a kiosk without a trace file to write) drops past visits' spans altogether.
    """

    def __init__(self, max_spans: int = 200_000, max_spans_per_visit: int = 20_000, keep_words: bool = False,
                 keep_past_visits: bool = True) -> None:
        self._lock = threading.Lock()
        self._spans: list[Span] = []
        self._instants: list[Span] = []
        self._observers: list[Callable[[Span], None]] = []
        self.max_spans = max_spans
        self.max_spans_per_visit = max_spans_per_visit
        self.keep_words = keep_words
        self.keep_past_visits = keep_past_visits
        self._visit_start = 0  # index in _spans of the current visit's first span

    def subscribe(self, observer: Callable[[Span], None]) -> None:
        self._observers.append(observer)

    def add(self, span: Span) -> Span:
        with self._lock:
            if len(self._spans) - self._visit_start >= self.max_spans_per_visit:
                drop = max(1, self.max_spans_per_visit // 10)
                del self._spans[self._visit_start: self._visit_start + drop]
            if len(self._spans) >= self.max_spans:
                drop = self.max_spans // 10
                del self._spans[:drop]
                self._visit_start = max(0, self._visit_start - drop)
            self._spans.append(span)
        for obs in list(self._observers):
            try:
                obs(span)
            except Exception:  # an observer (HUD) must never break a stage
                pass
        return span

    def record(self, name: str, start: float, end: float | None = None, *, turn: int | None = None,
               track: str = "pipeline", **args: Any) -> Span:
        return self.add(Span(name, start, now() if end is None else end, turn, track, args))

    def instant(self, name: str, *, turn: int | None = None, track: str = "pipeline", t: float | None = None,
                **args: Any) -> None:
        t = now() if t is None else t
        with self._lock:
            if len(self._instants) >= self.max_spans:  # bounded as the spans are (a --debug kiosk keeps past visits)
                del self._instants[:max(1, self.max_spans // 10)]
            self._instants.append(Span(name, t, t, turn, track, args))

    @contextmanager
    def span(self, name: str, *, turn: int | None = None, track: str = "pipeline", **args: Any) -> Iterator[dict]:
        """Time a block; the yielded dict can be filled with results (outcome, counts) for the span."""
        start = now()
        extra: dict[str, Any] = {}
        try:
            yield extra
        except BaseException as exc:
            extra.setdefault("error", type(exc).__name__)
            raise
        finally:
            self.add(Span(name, start, now(), turn, track, {**args, **extra}))

    def spans(self, turn: int | None = None) -> list[Span]:
        with self._lock:
            spans = list(self._spans)
        return spans if turn is None else [s for s in spans if s.turn == turn]

    def clear(self) -> None:
        with self._lock:
            self._spans.clear()
            self._instants.clear()
            self._visit_start = 0

    def end_visit(self) -> None:
        """The visitor left: their words leave every span and instant (the timings and ids stay)."""
        with self._lock:
            if not self.keep_past_visits:
                self._spans.clear()
                self._instants.clear()
            elif not self.keep_words:
                for s in (*self._spans, *self._instants):
                    if _has_words(s.args):
                        s.args = _without_words(s.args)
            self._visit_start = len(self._spans)

    def to_chrome(self) -> dict:
        """The Chrome trace-event JSON object (complete 'X' events, µs timestamps, one thread per track)."""
        with self._lock:
            spans, instants = list(self._spans), list(self._instants)
        clean = (lambda a: a) if self.keep_words else _without_words  # a trace on disk: timings, not words
        tids: dict[str, int] = {}
        events: list[dict] = []
        pid = os.getpid()

        def tid(track: str) -> int:
            if track not in tids:
                tids[track] = len(tids) + 1
                events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tids[track],
                               "args": {"name": track}})
            return tids[track]

        for s in spans:
            args = {k: _jsonable(v) for k, v in clean(s.args).items()}
            if s.turn is not None:
                args["turn"] = s.turn
            events.append({"ph": "X", "name": s.name, "cat": s.track, "pid": pid, "tid": tid(s.track),
                           "ts": round(s.start * 1e6, 1), "dur": round((s.end - s.start) * 1e6, 1), "args": args})
        for s in instants:
            args = {k: _jsonable(v) for k, v in clean(s.args).items()}
            if s.turn is not None:
                args["turn"] = s.turn
            events.append({"ph": "i", "s": "t", "name": s.name, "cat": s.track, "pid": pid, "tid": tid(s.track),
                           "ts": round(s.start * 1e6, 1), "args": args})
        return {"traceEvents": events, "displayTimeUnit": "ms"}

    def export_chrome(self, path: str | os.PathLike) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_chrome()))
        return path


def load_chrome(path: str | os.PathLike) -> list[Span]:
    """Read the complete events of a Chrome trace file back into spans (for `avatar report`)."""
    data = json.loads(Path(path).read_text())
    events = data["traceEvents"] if isinstance(data, dict) else data
    out = []
    for e in events:
        if e.get("ph") != "X":
            continue
        args = dict(e.get("args", {}))
        turn = args.pop("turn", None)
        start = e["ts"] / 1e6
        out.append(Span(e["name"], start, start + e.get("dur", 0) / 1e6, turn, e.get("cat", "pipeline"), args))
    return out


def _has_words(args: dict) -> bool:
    return any(k in WORD_ARGS or (isinstance(v, dict) and _has_words(v)) for k, v in args.items())


def _without_words(args: dict) -> dict:
    return {k: _without_words(v) if isinstance(v, dict) else v for k, v in args.items() if k not in WORD_ARGS}


def _jsonable(v: Any) -> Any:
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return str(v)


TRACER = Tracer()  # the program's tracer; tests make their own
