"""The latency HUD: per turn, each stage's milliseconds against its budget, voice to voice against
the turn budget with the human turn gap as a reference line, decoder tokens per forward pass and
what the checks bought.

`HudModel` (hud_model.py) holds the numbers (fed from trace spans and TurnMetrics, no Qt),
checks_summary.py says what the checks did in a few words; `HudWidget` draws them.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from avatar.report import stage_budget
from avatar.stage_names import VOICE_TO_VOICE, check_of, is_check
from avatar.ui.checks_summary import checks_summary
from avatar.ui.hud_model import RECENT_TURNS, HudModel, StageRow, TurnRecord
from avatar.locales import Strings


def fit_lines(text: str, metrics: QFontMetrics, width: int, max_lines: int) -> list[str]:
    """`text` word-wrapped to `width` pixels in at most `max_lines` lines, the last one elided."""
    lines: list[str] = []
    words = text.split(" ")
    while words and len(lines) < max_lines:
        line = words.pop(0)
        while words and metrics.horizontalAdvance(f"{line} {words[0]}") <= width:
            line += " " + words.pop(0)
        if len(lines) == max_lines - 1 and words:
            line = " ".join([line, *words])
            words = []
        # elidedText measures a little wider than horizontalAdvance: only a line that does not fit is elided
        lines.append(metrics.elidedText(line, Qt.ElideRight, width) if metrics.horizontalAdvance(line) > width
                     else line)
    return lines


def bar_color(ms: float, budget: float | None) -> QColor:
    if budget is None or budget <= 0:
        return QColor("#8fa3b5")
    ratio = ms / budget
    if ratio <= 1.0:
        return QColor("#4cc38a")
    if ratio <= 1.5:
        return QColor("#e6b042")
    return QColor("#e5534b")


class HudWidget(QWidget):
    """The HUD panel. Its width is set by the window (WIDTH, down to MIN_WIDTH on a small screen); its
    height is what its content needs (sizeHint) or less where the window's layout has less room: then
    the recent-turns chart goes first, the stage rows get closer (down to MIN_ROW_H), and the checks'
    parts (the "↳" rows, summed up in the checks' line anyway) are folded."""
    ROW_H = 21
    MIN_ROW_H = 17
    WIDTH = 470
    MIN_WIDTH = 340
    VALUE_W = 96
    LABEL_W = 138
    CHECK_LINES = 4        # the checks' few words: a line for the reply, at most three for the verdicts
    RECENT_MIN_H = 60      # below this the recent-turns chart is left out
    RECENT_H = 86          # what the chart gets when there is room
    MIN_HEIGHT = 200

    def __init__(self, model: HudModel, strings: Strings, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = model
        self.strings = strings
        self.setAttribute(Qt.WA_TransparentForMouseEvents)  # the HUD never steals a tap
        self.setSizePolicy(QSizePolicy.Fixed, QSizePolicy.Maximum)
        self.setFixedWidth(self.WIDTH)
        self.refresh()

    def set_strings(self, strings: Strings) -> None:
        self.strings = strings
        self.refresh()

    def refresh(self) -> None:
        """The numbers changed: ask the window's layout for the height they need, and repaint."""
        self.updateGeometry()
        if self.parentWidget() is None or self.parentWidget().layout() is None:  # not in a window's layout
            self.resize(self.width(), self.sizeHint().height())
        self.update()

    def _fixed_h(self) -> float:
        """Everything but the stage rows and the chart: title, voice to voice, tokens, voice, the checks' lines."""
        return 40 + 6 + 70 + 2 * 22 + len(self.checks_lines()) * QFontMetrics(self._small_font()).height() + 6 + 10

    def sizeHint(self) -> QSize:
        rows = max(len(self.model.rows()), 1)
        return QSize(self.width(), int(self._fixed_h() + rows * self.ROW_H + self.RECENT_H))

    def minimumSizeHint(self) -> QSize:
        return QSize(self.MIN_WIDTH, self.MIN_HEIGHT)

    def layout_plan(self) -> tuple[list[StageRow], float, bool]:
        """The stage rows shown, their height and whether the recent-turns chart fits, for this height."""
        rows = self.model.rows()
        room = self.height() - self._fixed_h()
        n = max(len(rows), 1)
        if room - self.RECENT_MIN_H >= n * self.ROW_H:
            return rows, self.ROW_H, True
        if room >= n * self.MIN_ROW_H:
            return rows, min(float(self.ROW_H), room / n), False
        folded = [r for r in rows if not is_check(r.key)]  # the checks' line sums them up
        fit = max(1, int(room // self.MIN_ROW_H))
        folded = folded[:fit]
        return folded, min(float(self.ROW_H), max(float(self.MIN_ROW_H), room / max(len(folded), 1))), False

    def shown_rows(self) -> list[StageRow]:
        return self.layout_plan()[0]

    def label_for(self, key: str) -> str:
        if is_check(key):
            name = check_of(key)  # a part of the checks stage (an arrow, not a verdict)
            return "  ↳ " + (self.strings.get(f"hud.check_names.{name}")
                             if self.strings.has(f"hud.check_names.{name}") else name)
        return self.strings.get(f"hud.stages.{key}") if self.strings.has(f"hud.stages.{key}") else key

    def paintEvent(self, _event) -> None:
        s, m = self.strings, self.model
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.setPen(Qt.NoPen)
        p.setBrush(QColor(8, 14, 24, 215))
        p.drawRoundedRect(QRectF(0, 0, self.width(), self.height()), 14, 14)
        pad, label_w = 14, min(self.LABEL_W, int(self.width() * 0.3))
        bar_x, bar_w = pad + label_w, self.width() - 2 * pad - label_w - self.VALUE_W
        title = QFont(self.font())
        title.setPointSizeF(11.5)
        title.setBold(True)
        small = self._small_font()
        p.setFont(title)
        p.setPen(QColor("#e8eef5"))
        r = m.current
        head = s.get("hud.title") + "  ·  " + (s.get("hud.turn", turn=r.turn) + (f"  ·  {r.lang.upper()}" if r.lang else "")
                                               if r else s.get("hud.no_turn"))
        p.drawText(QRectF(pad, 8, self.width() - 2 * pad, 22), Qt.AlignLeft | Qt.AlignVCenter, head)
        y = 38.0
        p.setFont(small)
        rows, row_h, chart = self.layout_plan()
        for row in rows:
            self._stage_bar(p, row, pad, y, label_w, bar_x, bar_w, row_h)
            y += row_h
        if not rows:
            y += self.ROW_H
        y += 6
        self._voice_to_voice(p, r, pad, y, self.width() - 2 * pad)
        y += 70
        p.setFont(small)
        p.setPen(QColor("#c9d4df"))
        for line in (self.decode_line(), self.voice_line()):
            p.drawText(QRectF(pad, y, self.width() - 2 * pad, 20), Qt.AlignLeft | Qt.AlignVCenter,
                       p.fontMetrics().elidedText(line, Qt.ElideRight, int(self.width() - 2 * pad)))
            y += 22
        line_h = p.fontMetrics().height()
        for line in self.checks_lines():
            p.drawText(QRectF(pad, y, self.width() - 2 * pad, line_h), Qt.AlignLeft | Qt.AlignVCenter, line)
            y += line_h
        y += 6
        if chart and self.height() - y - 10 >= self.RECENT_MIN_H:  # a short window keeps the numbers, not the chart
            self._recent(p, pad, y, self.width() - 2 * pad, self.height() - y - 10)
        p.end()

    def decode_line(self) -> str:
        """Tokens per forward pass of the turn's decode."""
        s, r = self.strings, self.model.current
        tpp = r.decode.tokens_per_pass if r else None
        decode_text = "–" if tpp is None else f"{tpp:.1f}  ({r.decode.tokens} / {r.decode.steps})"
        return f"{s.get('hud.tokens_per_pass')}: {decode_text}"

    def voice_line(self) -> str:
        """The voice that speaks the turn's reply ("–" before its first clause)."""
        r = self.model.current
        return f"{self.strings.get('hud.voice')}: {r.voice if r and r.voice else '–'}"

    def _small_font(self) -> QFont:
        small = QFont(self.font())
        small.setPointSizeF(9.5)
        return small

    def checks_lines(self) -> list[str]:
        """What the checks did, wrapped to the panel's width in at most CHECK_LINES lines: what became
        of the reply on the first line, the checks' verdicts on the next."""
        s, r = self.strings, self.model.current
        head, _, rest = (checks_summary(r.checks, s) if r else s.get("hud.no_checks")).partition(" · ")
        metrics, width = QFontMetrics(self._small_font()), self.width() - 28
        lines = fit_lines(f"{s.get('hud.checks')}: {head}", metrics, width, self.CHECK_LINES)
        if rest and len(lines) < self.CHECK_LINES:
            lines += fit_lines(rest, metrics, width, self.CHECK_LINES - len(lines))
        return lines

    def _stage_bar(self, p: QPainter, row: StageRow, pad: float, y: float, label_w: float,
                   bar_x: float, bar_w: float, row_h: float = ROW_H) -> None:
        p.setPen(QColor("#c9d4df"))
        label = p.fontMetrics().elidedText(self.label_for(row.key), Qt.ElideRight, int(label_w - 8))
        p.drawText(QRectF(pad, y, label_w - 6, row_h - 4), Qt.AlignLeft | Qt.AlignVCenter, label)
        # the budget sits at 2/3 of the bar, so overruns up to 1.5x stay visible
        scale = bar_w / (row.budget * 1.5) if row.budget else bar_w / max(row.ms * 1.2, 1.0)
        bar_h = max(5.0, row_h - 12)
        bar_y = y + (row_h - bar_h) / 2 - 1
        track = QRectF(bar_x, bar_y, bar_w, bar_h)
        p.setPen(Qt.NoPen)
        p.setBrush(QColor(255, 255, 255, 28))
        p.drawRoundedRect(track, 4, 4)
        p.setBrush(bar_color(row.ms, row.budget))
        p.drawRoundedRect(QRectF(bar_x, bar_y, min(bar_w, max(2.0, row.ms * scale)), bar_h), 4, 4)
        if row.budget:
            bx = bar_x + row.budget * scale
            p.setPen(QPen(QColor("#f0f4f8"), 2))
            p.drawLine(QPointF(bx, y + 2), QPointF(bx, y + row_h - 4))
        p.setPen(QColor("#ff8a80") if row.over else QColor("#e8eef5"))
        budget = f"/{row.budget:.0f}" if row.budget else ""
        p.drawText(QRectF(bar_x + bar_w + 6, y, self.VALUE_W - 6, row_h - 4), Qt.AlignLeft | Qt.AlignVCenter,
                   f"{row.ms:.0f}{budget} ms")

    def _voice_to_voice(self, p: QPainter, r: TurnRecord | None, x: float, y: float, w: float) -> None:
        s = self.strings
        budget = stage_budget(VOICE_TO_VOICE, self.model.budgets) or 600.0
        gap = float(self.model.budgets.get("human_gap", 200))
        v2v = r.voice_to_voice_ms if r else None
        p.setPen(QColor("#e8eef5"))
        label = s.get("hud.voice_to_voice") + (": –" if v2v is None else f": {v2v:.0f} ms")
        label += f"   ({s.get('hud.budget')} {budget:.0f} ms)"
        bold = QFont(self.font())
        bold.setPointSizeF(10.5)
        bold.setBold(True)
        p.setFont(bold)
        p.drawText(QRectF(x, y, w, 20), Qt.AlignLeft | Qt.AlignVCenter, label)
        top, height = y + 24, 18
        # at most twice the budget wide, so the reference lines keep their place; longer turns overflow
        full = max(budget * 1.3, min(v2v or 0.0, budget * 2.0))
        scale = w / full
        p.setPen(Qt.NoPen)
        p.setBrush(QColor(255, 255, 255, 28))
        p.drawRoundedRect(QRectF(x, top, w, height), 5, 5)
        if v2v is not None:
            p.setBrush(bar_color(v2v, budget))
            p.drawRoundedRect(QRectF(x, top, min(w, max(3.0, v2v * scale)), height), 5, 5)
            if v2v > full:
                p.setPen(QColor("#ffffff"))
                p.drawText(QRectF(x, top, w - 6, height), Qt.AlignRight | Qt.AlignVCenter, "»")
                p.setPen(Qt.NoPen)
        p.setPen(QPen(QColor("#ff8a80"), 2, Qt.DashLine))
        p.drawLine(QPointF(x + budget * scale, top - 4), QPointF(x + budget * scale, top + height + 4))
        p.setPen(QPen(QColor("#7ee0a1"), 2, Qt.DotLine))
        p.drawLine(QPointF(x + gap * scale, top - 4), QPointF(x + gap * scale, top + height + 4))
        small = QFont(self.font())
        small.setPointSizeF(8.5)
        p.setFont(small)
        p.setPen(QColor("#7ee0a1"))
        p.drawText(QRectF(x + gap * scale - 90, top + height + 3, 180, 16), Qt.AlignHCenter,
                   f"{s.get('hud.human_gap')} {gap:.0f}")
        p.setPen(QColor("#ff8a80"))
        p.drawText(QRectF(x + budget * scale - 90, top + height + 3, 180, 16), Qt.AlignHCenter,
                   f"{s.get('hud.budget')} {budget:.0f}")

    def _recent(self, p: QPainter, x: float, y: float, w: float, h: float) -> None:
        s = self.strings
        small = QFont(self.font())
        small.setPointSizeF(9)
        p.setFont(small)
        p.setPen(QColor("#9fb0c0"))
        p.drawText(QRectF(x, y, w, 16), Qt.AlignLeft | Qt.AlignVCenter, s.get("hud.recent"))
        turns = [t for t in self.model.turns if t.voice_to_voice_ms is not None]
        top, height = y + 34, max(30.0, h - 38)  # room for the value labels above the bars
        budget = stage_budget(VOICE_TO_VOICE, self.model.budgets) or 600.0
        gap = float(self.model.budgets.get("human_gap", 200))
        full = max([budget * 1.3] + [min(t.voice_to_voice_ms, budget * 2.0) for t in turns])
        col_w = w / RECENT_TURNS
        for i, t in enumerate(turns):
            bh = height * min(t.voice_to_voice_ms, full) / full
            p.setPen(Qt.NoPen)
            color = bar_color(t.voice_to_voice_ms, budget)
            if self.model.current is not None and t.turn != self.model.current.turn:
                color.setAlpha(150)
            p.setBrush(color)
            p.drawRoundedRect(QRectF(x + i * col_w + 3, top + height - bh, col_w - 6, bh), 3, 3)
            p.setPen(QColor("#9fb0c0"))
            p.drawText(QRectF(x + i * col_w, top + height - bh - 15, col_w, 14), Qt.AlignHCenter,
                       f"{t.voice_to_voice_ms:.0f}")
        for value, color, style in ((budget, "#ff8a80", Qt.DashLine), (gap, "#7ee0a1", Qt.DotLine)):
            ly = top + height - height * value / full
            p.setPen(QPen(QColor(color), 1.5, style))
            p.drawLine(QPointF(x, ly), QPointF(x + w, ly))
