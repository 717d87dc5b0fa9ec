"""The kiosk window's conversation box (avatar/ui/window.py): the idle screen or the conversation's
subtitles, one at a time, as tall as the one shown."""
from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QSizePolicy, QStackedLayout, QWidget


class ConversationBox(QWidget):
    """The idle screen or the conversation, one at a time, asking the window's layout for the height
    of the one shown (a stacked layout would ask for the taller of the two)."""

    def __init__(self, stack: QStackedLayout, parent=None):
        super().__init__(parent)
        self.stack = stack
        self.setLayout(stack)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Maximum)  # as tall as its texts (capped)
        stack.currentChanged.connect(lambda _i: self.updateGeometry())

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        shown = self.stack.currentWidget()
        return shown.heightForWidth(width) if shown is not None and shown.hasHeightForWidth() \
            else self.sizeHint().height()

    def sizeHint(self) -> QSize:
        shown = self.stack.currentWidget()
        return shown.sizeHint() if shown is not None else super().sizeHint()

    def minimumSizeHint(self) -> QSize:
        shown = self.stack.currentWidget()
        return shown.minimumSizeHint() if shown is not None else super().minimumSizeHint()
