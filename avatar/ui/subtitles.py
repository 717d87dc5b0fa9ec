"""Subtitles of the conversation: what the visitor says (live partials, then the final text) and
the avatar's reply, clause by clause as it is spoken.

The texts word-wrap to the panel's width and the panel asks the window's layout for the height they
need (height for width). A reply longer than the window gives the panel scrolls inside it, kept at
its end so the clause being spoken is in view (and a finger can drag it back).
"""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QScroller, QSizePolicy, QVBoxLayout, QWidget

from avatar.locales import Strings


class SubtitlePanel(QFrame):
    MIN_HEIGHT = 150  # a line of question and of reply, when the window is short of room
    PAD_V = 12        # the box's padding above and below its texts

    def __init__(self, strings: Strings, parent=None):
        super().__init__(parent)
        self.setObjectName("subtitles")
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Maximum)
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
        self.body = QWidget()
        self.body.setObjectName("subtitleBody")
        self.texts = QVBoxLayout(self.body)
        self.texts.setContentsMargins(28, 4, 28, 6)
        self.texts.setSpacing(2)
        self.texts.addStretch(1)  # a short exchange sits in the middle of its box
        for w in (self.visitor_name, self.visitor, self.avatar_name, self.reply):
            w.setAlignment(Qt.AlignLeft | Qt.AlignVCenter)
            if w is self.avatar_name:
                self.texts.addSpacing(8)
            self.texts.addWidget(w)
        self.texts.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setObjectName("subtitleScroll")
        self.scroll.setWidget(self.body)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        # no bars: the texts wrap to the box's width (a bar appearing would narrow it and rewrap them), and
        # a reply taller than the box follows the clause being spoken; a finger drags it back
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.scroll.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.scroll.viewport().setAutoFillBackground(False)
        self.body.setAutoFillBackground(False)
        QScroller.grabGesture(self.scroll.viewport(), QScroller.LeftMouseButtonGesture)  # touch: drag to scroll
        self.scroll.verticalScrollBar().rangeChanged.connect(lambda _lo, hi: self._follow_end(hi))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, self.PAD_V, 0, self.PAD_V)  # scrolled text is cut off inside the padding
        layout.addWidget(self.scroll)
        self._clauses: list[str] = []
        self.partial = False
        self.set_strings(strings)
        self.clear()

    # --- size: as tall as the wrapped texts need (the window's layout caps it) ---------------------
    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self.texts.totalHeightForWidth(max(1, width)) + 2 * self.PAD_V + 2  # +2: no scrolling for a rounding error

    def sizeHint(self) -> QSize:
        width = self.width() if self.width() > 1 else 800
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        """The height its texts need, up to its maximum (the window's cap): the conversation keeps its
        lines, the character above it gives way (a reply past the cap scrolls)."""
        width = self.width() if self.width() > 1 else 800
        return QSize(200, max(self.MIN_HEIGHT, min(self.heightForWidth(width), self.maximumHeight())))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the texts rewrap: the height they need changed

    @property
    def scrolls(self) -> bool:
        """The texts are taller than the panel: the reply scrolls inside it."""
        return self.scroll.verticalScrollBar().maximum() > 0

    def _follow_end(self, maximum: int) -> None:
        self.scroll.verticalScrollBar().setValue(maximum)  # the texts grew or the box shrank: the newest in view

    def _texts_changed(self) -> None:
        self.updateGeometry()  # the window's layout gives the panel the height the new text needs
        bar = self.scroll.verticalScrollBar()
        bar.setValue(bar.maximum())  # and once the layout has run, through rangeChanged

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
        self._texts_changed()

    def start_reply(self) -> None:
        self._clauses.clear()
        self.reply.setText("")
        self.avatar_name.setVisible(False)
        self._texts_changed()

    def add_clause(self, text: str) -> None:
        self._clauses.append(text.strip())
        self.reply.setText(" ".join(c for c in self._clauses if c))
        self.avatar_name.setVisible(True)
        self._texts_changed()

    def set_reply(self, text: str) -> None:
        """The whole reply at once (a turn whose clauses were not streamed)."""
        self._clauses = [text.strip()]
        self.reply.setText(text.strip())
        self.avatar_name.setVisible(bool(text.strip()))
        self._texts_changed()

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
        self._texts_changed()
