"""A message strip over the top of the window: a stage that failed or was restarted, a notice.
It hides itself after a while; it never shows a traceback, only the friendly text it is given."""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel


class Banner(QLabel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("banner")
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignCenter)
        self.setAttribute(Qt.WA_TransparentForMouseEvents)
        self.kind = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.dismiss)
        self.hide()

    def show_message(self, text: str, kind: str = "info", seconds: float = 8.0) -> None:
        """kind: info | error | recovered (styles the strip)."""
        self.kind = kind
        self.setProperty("kind", kind)
        self.style().unpolish(self)
        self.style().polish(self)
        self.setText(text)
        self.show()
        self.raise_()
        self._timer.start(int(seconds * 1000))

    def dismiss(self) -> None:
        self.kind = ""
        self.hide()
