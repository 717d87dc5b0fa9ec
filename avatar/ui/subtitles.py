"""Subtitles of the conversation: what the visitor says (live partials, then the final text) and
the avatar's reply, clause by clause as it is spoken."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout

from avatar.ui.strings import Strings


class SubtitlePanel(QFrame):
    def __init__(self, strings: Strings, parent=None):
        super().__init__(parent)
        self.setObjectName("subtitles")
        self.visitor_name = QLabel()
        self.visitor_name.setObjectName("speakerName")
        self.visitor = QLabel()
        self.visitor.setObjectName("visitorText")
        self.visitor.setWordWrap(True)
        self.avatar_name = QLabel()
        self.avatar_name.setObjectName("speakerName")
        self.reply = QLabel()
        self.reply.setObjectName("replyText")
        self.reply.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 16, 28, 18)
        layout.setSpacing(2)
        for w in (self.visitor_name, self.visitor, self.avatar_name, self.reply):
            w.setAlignment(Qt.AlignLeft | Qt.AlignVCenter)
            layout.addWidget(w)
        self._clauses: list[str] = []
        self.partial = False
        self.set_strings(strings)
        self.clear()

    def set_strings(self, strings: Strings) -> None:
        self.strings = strings
        self.visitor_name.setText(strings.get("conversation.visitor"))
        self.avatar_name.setText(strings.get("persona.name"))

    def show_partial(self, text: str) -> None:
        self.partial = True
        self._set_visitor(text, live=True)

    def show_final(self, text: str) -> None:
        self.partial = False
        self._set_visitor(text, live=False)

    def _set_visitor(self, text: str, live: bool) -> None:
        self.visitor.setProperty("live", live)
        self.visitor.style().unpolish(self.visitor)
        self.visitor.style().polish(self.visitor)
        self.visitor.setText(text + (" …" if live and text else ""))
        self.visitor_name.setVisible(bool(text))

    def start_reply(self) -> None:
        self._clauses.clear()
        self.reply.setText("")
        self.avatar_name.setVisible(False)

    def add_clause(self, text: str) -> None:
        self._clauses.append(text.strip())
        self.reply.setText(" ".join(c for c in self._clauses if c))
        self.avatar_name.setVisible(True)

    def set_reply(self, text: str) -> None:
        """The whole reply at once (a turn whose clauses were not streamed)."""
        self._clauses = [text.strip()]
        self.reply.setText(text.strip())
        self.avatar_name.setVisible(bool(text.strip()))

    @property
    def visitor_text(self) -> str:
        return self.visitor.text()

    @property
    def reply_text(self) -> str:
        return self.reply.text()

    def clear(self) -> None:
        self.partial = False
        self._clauses.clear()
        self.visitor.setText("")
        self.reply.setText("")
        self.visitor_name.setVisible(False)
        self.avatar_name.setVisible(False)
