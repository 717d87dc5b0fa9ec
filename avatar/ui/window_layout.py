"""The kiosk window's layout (avatar/ui/window.py): the widgets it is made of, the layout managers
that place them, and how the arrangement follows the window's shape (landscape: the HUD in a column
beside the conversation; portrait: the HUD above the character)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QBoxLayout, QButtonGroup, QHBoxLayout, QLabel, QPushButton, QStackedLayout,
                               QVBoxLayout)

from avatar.ui.admin import AdminCorner
from avatar.ui.avatar_widget import AvatarWidget
from avatar.ui.banner import Banner
from avatar.ui.conversation_box import ConversationBox
from avatar.ui.debug_panel import DebugPanel
from avatar.ui.hud import HudWidget
from avatar.ui.hud_model import HudModel
from avatar.ui.idle_screen import IdleScreen
from avatar.ui.subtitles import SubtitlePanel


class KioskLayout:
    """Part of KioskWindow (a QWidget; this class comes first among its bases): builds the window's
    widgets and layouts (_build) and fits them to its size (_arrange). Uses the window's cfg,
    languages, strings, strings_by_lang, set_language, open_admin and show_idle."""

    def _build(self) -> None:
        self.status = QLabel()
        self.status.setObjectName("statusChip")
        self.lang_buttons: dict[str, QPushButton] = {}
        self.lang_group = QButtonGroup(self)
        self.lang_group.setExclusive(True)
        top = QHBoxLayout()
        top.setSpacing(6)  # its own: the window's layout has none
        top.setContentsMargins(24, 18, 24, 0)
        top.addWidget(self.status, 0, Qt.AlignLeft)
        top.addStretch(1)
        for code in [*self.languages, "auto"] if len(self.languages) > 1 else self.languages:
            button = QPushButton()
            button.setObjectName("langButton")
            button.setCheckable(True)
            button.setFocusPolicy(Qt.NoFocus)
            button.clicked.connect(lambda _checked=False, c=code: self.set_language(c))
            self.lang_group.addButton(button)
            self.lang_buttons[code] = button
            top.addWidget(button)

        self.avatar = AvatarWidget()
        self.subtitles = SubtitlePanel(self.strings)
        self.idle_screen = IdleScreen(self.strings_by_lang, self.languages)
        self.bottom = QStackedLayout()
        self.bottom.addWidget(self.idle_screen)
        self.bottom.addWidget(self.subtitles)
        self.bottom_box = bottom_box = ConversationBox(self.bottom)
        # operator notices (a fallback in use): small, out of the visitor's way, never silent
        self.notices = QLabel()
        self.notices.setObjectName("notices")
        self.notices.setWordWrap(True)
        self.notices.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        self.notices.hide()

        self.hud_model = HudModel(self.cfg.budget.as_dict())
        self.hud = HudWidget(self.hud_model, self.strings)
        self.debug_panel = DebugPanel(self.strings, self.cfg.budget.as_dict())

        # Layout managers place everything, so no panel can lie over the conversation:
        #   landscape: [debug panel | character] above the conversation, the HUD in a column beside them
        #   portrait:  the HUD above [debug panel | character] above the conversation
        # A hidden HUD or debug panel takes no room: the conversation then spans the whole width.
        upper = QHBoxLayout()
        upper.setSpacing(16)
        upper.addWidget(self.debug_panel, 0, Qt.AlignTop)
        upper.addWidget(self.avatar, 1)
        self.stage = stage = QVBoxLayout()
        stage.setSpacing(12)
        stage.addLayout(upper, 1)
        stage.addWidget(bottom_box)
        self.body = body = QBoxLayout(QBoxLayout.LeftToRight)
        body.setContentsMargins(24, 14, 24, 24)
        body.setSpacing(20)
        body.addLayout(stage, 1)
        body.addWidget(self.hud, 0, Qt.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        # the screen sets the window's size, not its contents: _arrange fits the panels to any size
        layout.setSizeConstraint(QVBoxLayout.SetNoConstraint)
        layout.addLayout(top)
        layout.addLayout(body, 1)
        notice_row = QHBoxLayout()
        notice_row.setContentsMargins(24, 0, 24, 8)
        notice_row.addWidget(self.notices)
        layout.addLayout(notice_row)

        # overlays: the message strip (placed above the conversation) and the invisible admin corner
        self.banner = Banner(self)
        self.admin_corner = AdminCorner(self.open_admin, self)
        self.show_idle()

    # the panels' widths and the conversation's share of the height, by window size
    CONVERSATION_SHARE = 0.5   # the conversation's box at most this part of the window's height (then it scrolls)

    @property
    def portrait(self) -> bool:
        return self.height() > self.width()

    def _arrange(self) -> None:
        """Fit the layout to the window's shape: where the HUD goes, the panels' widths, how tall the
        conversation's box may grow. Layout managers do the placing."""
        w, h = self.width(), self.height()
        if self.portrait:
            direction, hud_w, align = QBoxLayout.BottomToTop, min(620, w - 48), Qt.AlignHCenter
            stage_w = w - 48
        else:  # beside the conversation: about a third of the width, never below a readable width
            hud_w = max(HudWidget.MIN_WIDTH, min(HudWidget.WIDTH, int(w * 0.36)))
            direction, align = QBoxLayout.LeftToRight, Qt.AlignTop
            stage_w = w - 48 - (hud_w + self.body.spacing() if self.hud.isVisibleTo(self) else 0)
        if self.body.direction() != direction:
            self.body.setDirection(direction)
        self.body.setAlignment(self.hud, align)
        if self.hud.width() != hud_w:
            self.hud.setFixedWidth(hud_w)
        # the debug panel beside the character, who keeps at least its minimum width
        debug_w = max(DebugPanel.MIN_WIDTH, min(DebugPanel.WIDTH, stage_w - 16 - self.avatar.minimumWidth() - 20))
        if self.debug_panel.width() != debug_w:
            self.debug_panel.setFixedWidth(debug_w)
        # the conversation's box: as tall as its texts, at most a share of the window and never so tall
        # that the character (or, in portrait, the HUD above it) loses its minimum height; past that it scrolls
        outer = self.layout()
        chrome = outer.itemAt(0).sizeHint().height() + self.body.contentsMargins().top() + \
            self.body.contentsMargins().bottom() + outer.itemAt(2).sizeHint().height() + self.stage.spacing()
        if self.portrait and self.hud.isVisibleTo(self):
            chrome += self.hud.sizeHint().height() + self.body.spacing()
        cap = max(SubtitlePanel.MIN_HEIGHT, min(int(h * self.CONVERSATION_SHARE), h - chrome - self.avatar.minimumHeight()))
        if self.subtitles.maximumHeight() != cap:
            self.subtitles.setMaximumHeight(cap)
            self.idle_screen.setMaximumHeight(cap)
