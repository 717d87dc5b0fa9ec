"""The latency HUD's numbers: per turn, each stage's milliseconds against its budget, voice to voice,
the decode and the checks, fed from trace spans and TurnMetrics (no Qt; `hud.HudWidget` draws them)."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Mapping

from avatar.answer_types import CheckReport, DecodeStats
from avatar.events import TurnMetrics
from avatar.report import is_stage_span, stage_budget, stage_sort_key
from avatar.stage_names import VOICE_TO_VOICE, is_check
from avatar.trace import Span

RECENT_TURNS = 10


@dataclass
class TurnRecord:
    turn: int
    lang: str = ""
    stages: dict[str, float] = field(default_factory=dict)  # stage name (avatar.stage_names) -> ms
    voice_to_voice_ms: float | None = None
    decode: DecodeStats = field(default_factory=DecodeStats)
    checks: CheckReport = field(default_factory=CheckReport)
    voice: str = ""  # the voice that spoke the reply (its first clause's)
    finished: bool = False  # TurnMetrics arrived


@dataclass(frozen=True)
class StageRow:
    key: str
    ms: float
    budget: float | None

    @property
    def over(self) -> bool:
        return self.budget is not None and self.ms > self.budget


class HudModel:
    def __init__(self, budgets: Mapping[str, Any]):
        self.budgets = dict(budgets)
        self.turns: deque[TurnRecord] = deque(maxlen=RECENT_TURNS)
        self.current: TurnRecord | None = None
        self.run_stages: list[dict[str, float]] = []  # every finished turn of the run (debug panel)

    def _record(self, turn: int) -> TurnRecord:
        for r in self.turns:
            if r.turn == turn:
                return r
        r = TurnRecord(turn)
        self.turns.append(r)
        return r

    def begin_turn(self, turn: int, lang: str = "") -> None:
        self.current = self._record(turn)
        if lang:
            self.current.lang = lang

    def set_voice(self, turn: int, voice: str) -> None:
        """The voice speaking the turn's reply (the first clause that names one)."""
        r = self._record(turn)
        if voice and not r.voice:
            r.voice = voice

    def add_span(self, span: Span) -> None:
        """A stage span of a turn: shown live, before the turn's metrics arrive."""
        if not is_stage_span(span):
            return  # no turn, or it would count a stage twice (see avatar.report.is_stage_span)
        r = self._record(int(span.turn))
        if r.finished:
            return  # the metrics are authoritative once in
        if span.name == VOICE_TO_VOICE:
            r.voice_to_voice_ms = span.ms
        else:
            r.stages[span.name] = r.stages.get(span.name, 0.0) + span.ms
        if self.current is None or r.turn >= self.current.turn:
            self.current = r

    def add_metrics(self, m: TurnMetrics) -> TurnRecord:
        r = self._record(m.turn)
        stages = {k: float(v) for k, v in m.stages.items() if v is not None}
        # keep per-check spans the metrics summarise away, let the metrics win elsewhere
        r.stages = {**{k: v for k, v in r.stages.items() if is_check(k)}, **stages}
        r.voice_to_voice_ms = m.voice_to_voice_ms if m.voice_to_voice_ms is not None else r.voice_to_voice_ms
        r.decode = m.decode
        r.checks = m.checks
        r.lang = m.lang or r.lang
        r.finished = True
        self.run_stages.append({**r.stages, **({VOICE_TO_VOICE: r.voice_to_voice_ms}
                                                if r.voice_to_voice_ms is not None else {})})
        self.current = r
        return r

    def rows(self, record: TurnRecord | None = None) -> list[StageRow]:
        r = record or self.current
        if r is None:
            return []
        keys = sorted((k for k in r.stages if k != VOICE_TO_VOICE), key=stage_sort_key)
        return [StageRow(k, r.stages[k], stage_budget(k, self.budgets)) for k in keys]

    def reset_view(self) -> None:
        """A new visitor: the current turn display starts empty (run statistics stay)."""
        self.current = None


# The checks in the order the checker runs them (avatar/answer/checks/table.py), the CheckReport
# field that holds each one's last verdict (None: only `passes` and the fallback tell), and the
# reason (hud.reasons) a failure of each gives for re-decoding or replacing the reply.
