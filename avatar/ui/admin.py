"""The only way out of the kiosk: an admin gesture (5 taps in the top-left corner, or Ctrl+Alt+Q)
followed by the operator's PIN (stored as a salted hash, avatar/ui/pin.py), typed on an on-screen
keypad. No PIN is shipped: until one is set the panel refuses every entry, and wrong tries lock the
keypad for a growing time."""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtWidgets import (QDialog, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout,
                               QWidget)

from avatar.trace import now
from avatar.ui.pin import PinLock, StoredPin
from avatar.locales import Strings

CORNER_PX = 120
TAPS = 5
TAP_WINDOW_S = 3.0


class CornerTaps:
    """Counts taps in the top-left corner; TAPS of them within TAP_WINDOW_S make the gesture."""

    def __init__(self, taps: int = TAPS, window_s: float = TAP_WINDOW_S, corner_px: int = CORNER_PX):
        self.taps, self.window_s, self.corner_px = taps, window_s, corner_px
        self._times: list[float] = []

    def tap(self, pos: QPointF, t: float | None = None) -> bool:
        """Record a tap; True when it completes the gesture."""
        t = now() if t is None else t
        if pos.x() > self.corner_px or pos.y() > self.corner_px:
            self._times.clear()
            return False
        self._times = [x for x in self._times if t - x <= self.window_s] + [t]
        if len(self._times) >= self.taps:
            self._times.clear()
            return True
        return False


class PinDialog(QDialog):
    """Asks for the admin PIN; emits `unlocked` and closes only when it is right. `lock` outlives the
    dialog (the window keeps it), so closing and reopening does not reset the wrong tries."""

    unlocked = Signal()

    def __init__(self, stored: StoredPin, strings: Strings, lock: PinLock | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName("pinDialog")
        self._stored = stored
        self.lock = lock or PinLock()
        self.strings = strings
        self.attempts = 0
        self.setWindowTitle(strings.get("admin.title"))
        self.setModal(True)
        self.prompt = QLabel(strings.get("admin.prompt"))
        self.prompt.setObjectName("pinPrompt")
        self.field = QLineEdit()
        self.field.setEchoMode(QLineEdit.Password)
        self.field.setAlignment(Qt.AlignCenter)
        self.field.setMaxLength(12)
        self.field.returnPressed.connect(self.submit)
        self.message = QLabel("")
        self.message.setObjectName("pinMessage")
        self.message.setWordWrap(True)
        self._wrong_text = strings.get("admin.wrong")
        keypad = QGridLayout()
        self.keys: list[QPushButton] = []
        for i, digit in enumerate("123456789"):
            keypad.addWidget(self._key(digit), i // 3, i % 3)
        clear = QPushButton(strings.get("admin.clear"))
        clear.clicked.connect(self.field.clear)
        keypad.addWidget(clear, 3, 0)
        keypad.addWidget(self._key("0"), 3, 1)
        self.ok_button = QPushButton(strings.get("admin.ok"))
        self.ok_button.clicked.connect(self.submit)
        keypad.addWidget(self.ok_button, 3, 2)
        cancel = QPushButton(strings.get("admin.cancel"))
        cancel.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt)
        layout.addWidget(self.field)
        layout.addWidget(self.message)
        layout.addLayout(keypad)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(cancel)
        layout.addLayout(row)
        self._ticker = QTimer(self)  # counts a lock down on screen, and opens the keypad again
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self.refresh)
        self.refresh()

    def _key(self, digit: str) -> QPushButton:
        button = QPushButton(digit)
        button.setMinimumSize(64, 52)
        button.clicked.connect(lambda: self.field.insert(digit))
        self.keys.append(button)
        return button

    def refresh(self) -> None:
        """Show what the keypad takes now: nothing without a PIN, nothing while locked."""
        if not self._stored.is_set:
            self._enable(False)
            self.message.setText(self.strings.get("admin.no_pin"))
            return
        left = self.lock.remaining_s()
        if left > 0:
            self._enable(False)
            self.message.setText(self.strings.get("admin.locked", seconds=math.ceil(left)))
            if not self._ticker.isActive():
                self._ticker.start()
            return
        self._ticker.stop()
        if not self.field.isEnabled():  # a lock just ended
            self.message.setText("")
        self._enable(True)

    def _enable(self, on: bool) -> None:
        for w in (*self.keys, self.ok_button, self.field):
            w.setEnabled(on)

    def submit(self) -> bool:
        entered = self.field.text()
        self.field.clear()
        if not self._stored.is_set or self.lock.locked:  # refused, and not counted as a try
            self.refresh()
            return False
        if self._stored.verify(entered):
            self.lock.succeeded()
            self.message.setText("")
            self.unlocked.emit()
            self.accept()
            return True
        self.attempts += 1
        if self.lock.failed() > 0:
            self.refresh()
        else:
            self.message.setText(self._wrong_text)
        return False


class AdminCorner(QWidget):
    """An invisible square in the top-left corner that counts taps for the admin gesture."""

    def __init__(self, on_gesture, parent=None):
        super().__init__(parent)
        self.taps = CornerTaps()
        self._on_gesture = on_gesture
        self.setFixedSize(self.taps.corner_px, self.taps.corner_px)

    def mousePressEvent(self, event) -> None:
        if self.taps.tap(QPointF(event.position())):
            self._on_gesture()
