"""The idle screen: an invitation to talk, in both languages at once (nobody has spoken yet)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout

from avatar.locales import Strings


class IdleScreen(QFrame):
    def __init__(self, strings_by_lang: dict[str, Strings], languages: list[str], parent=None):
        super().__init__(parent)
        self.setObjectName("idleScreen")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(28, 14, 28, 16)
        layout.setSpacing(40)
        self.headlines: dict[str, QLabel] = {}
        for lang in languages:
            s = strings_by_lang[lang]
            column = QVBoxLayout()
            column.setSpacing(4)
            flag = QLabel(s.get("meta.name"))
            flag.setObjectName("idleLang")
            headline = QLabel(s.get("idle.headline"))
            headline.setObjectName("idleHeadline")
            headline.setWordWrap(True)
            sub = QLabel(s.get("idle.subline"))
            sub.setObjectName("idleSubline")
            sub.setWordWrap(True)
            hint = QLabel(s.get("idle.hint"))
            hint.setObjectName("idleHint")
            for w in (flag, headline, sub, hint):
                w.setAlignment(Qt.AlignLeft | Qt.AlignTop)
                column.addWidget(w)
            column.addStretch(1)
            layout.addLayout(column, 1)
            self.headlines[lang] = headline

    def texts(self) -> list[str]:
        return [label.text() for label in self.headlines.values()]
