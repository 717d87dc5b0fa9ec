"""Debug panel: per-stage p50/p95 over every turn of this run, and where the trace file goes."""
from __future__ import annotations

from typing import Any, Mapping

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QFrame, QHeaderView, QLabel, QSizePolicy, QTableWidget, QTableWidgetItem,
                               QVBoxLayout)

from avatar.report import StageStats, stage_stats
from avatar.locales import Strings


class DebugPanel(QFrame):
    """Its width is set by the window (WIDTH, less on a small screen); the table shows every row where
    the window has the room, and scrolls where it has not."""
    WIDTH = 470
    MIN_WIDTH = 300
    ROW_H = 26

    def __init__(self, strings: Strings, budgets: Mapping[str, Any], parent=None):
        super().__init__(parent)
        self.setObjectName("debugPanel")
        self.strings = strings
        self.budgets = dict(budgets)
        self.stats: list[StageStats] = []
        self.trace_path = ""
        self.title = QLabel()
        self.title.setObjectName("debugTitle")
        self.table = QTableWidget(0, 5)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.setFocusPolicy(Qt.NoFocus)
        self.table.setSelectionMode(QTableWidget.NoSelection)
        self.table.setSizeAdjustPolicy(QTableWidget.AdjustToContents)  # asks for every row; gets what fits
        self.table.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)  # the panel's width is set, not asked
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeToContents)
        self.trace_label = QLabel()
        self.trace_label.setObjectName("debugTrace")
        self.trace_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.addWidget(self.title)
        layout.addWidget(self.table)
        layout.addWidget(self.trace_label)
        self.setFixedWidth(self.WIDTH)
        self.setSizePolicy(QSizePolicy.Fixed, QSizePolicy.Maximum)
        self.set_strings(strings)

    def set_strings(self, strings: Strings) -> None:
        self.strings = strings
        s = strings
        self.title.setText(s.get("debug.title"))
        self.table.setHorizontalHeaderLabels([s.get("debug.stage"), s.get("debug.count"), s.get("debug.p50"),
                                              s.get("debug.p95"), s.get("debug.budget")])
        self.set_trace_path(self.trace_path)
        self._fill()

    def set_trace_path(self, path: str) -> None:
        self.trace_path = path
        self.trace_label.setText(self.strings.get("debug.trace", path=path) if path else "")

    def update_stats(self, run_stages: list[dict[str, float]]) -> None:
        self.stats = stage_stats(run_stages, self.budgets)
        self._fill()

    def _fill(self) -> None:
        self.table.setRowCount(max(1, len(self.stats)))
        if not self.stats:
            self.table.setItem(0, 0, QTableWidgetItem(self.strings.get("debug.no_data")))
            for c in range(1, 5):
                self.table.setItem(0, c, QTableWidgetItem(""))
        for row, st in enumerate(self.stats):
            cells = [st.name, str(st.n), f"{st.p50:.0f}", f"{st.p95:.0f}",
                     "–" if st.budget is None else f"{st.budget:.0f}"]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignVCenter | (Qt.AlignLeft if col == 0 else Qt.AlignRight))
                if col == 3 and st.over_budget:
                    item.setForeground(QColor("#ff8a80"))
                self.table.setItem(row, col, item)
        rows = max(1, len(self.stats))
        head = self.table.horizontalHeader().height() + 6
        self.table.setMinimumHeight(head + min(rows, 3) * self.ROW_H)  # a short window: the table scrolls
        self.table.setMaximumHeight(head + rows * self.ROW_H)
        for r in range(rows):
            self.table.setRowHeight(r, self.ROW_H)
        self.updateGeometry()

    def row(self, stage: str) -> StageStats | None:
        return next((s for s in self.stats if s.name == stage), None)
