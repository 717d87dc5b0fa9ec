"""The kiosk's look: one Qt style sheet (dark, high contrast, large type for a standing visitor)."""

BACKGROUND_TOP = "#16304a"
BACKGROUND_BOTTOM = "#0a1420"

STYLE_SHEET = """
QWidget { color: #eef3f8; font-family: "DejaVu Sans", "Noto Sans", sans-serif; }
#statusChip { background: rgba(255,255,255,0.10); border-radius: 16px; padding: 6px 16px;
              font-size: 17px; font-weight: 600; }
#statusChip[state="listening"] { background: rgba(63,174,122,0.85); }
#statusChip[state="thinking"] { background: rgba(217,164,65,0.85); color: #1d1606; }
#statusChip[state="speaking"] { background: rgba(79,143,224,0.85); }
#langButton { background: rgba(255,255,255,0.10); border: 2px solid rgba(255,255,255,0.25);
              border-radius: 22px; min-width: 64px; min-height: 40px; font-size: 17px; font-weight: 700;
              padding: 0 12px; }
#langButton:checked { background: #eef3f8; color: #10202f; border-color: #eef3f8; }
#langButton[detected="true"] { border-color: #7ee0a1; }
#subtitles, #idleScreen { background: rgba(6,12,20,0.72); border-radius: 18px; }
#speakerName { color: #8fb4d8; font-size: 14px; font-weight: 700; letter-spacing: 1px; }
#visitorText { font-size: 22px; color: #f3f6f9; }
#visitorText[live="true"] { color: #9fb0c0; font-style: italic; }
#replyText { font-size: 27px; font-weight: 600; color: #ffffff; }
#idleLang { color: #8fb4d8; font-size: 14px; font-weight: 700; letter-spacing: 1px; }
#idleHeadline { font-size: 31px; font-weight: 700; }
#idleSubline { font-size: 18px; color: #c9d6e3; }
#idleHint { font-size: 15px; color: #7ee0a1; }
#notices { font-size: 12px; color: #8193a5; }
#banner { background: rgba(40,60,90,0.95); border-radius: 14px; padding: 12px 20px; font-size: 19px; }
#banner[kind="error"] { background: rgba(160,52,44,0.95); }
#banner[kind="recovered"] { background: rgba(176,120,20,0.96); }
#debugPanel { background: rgba(8,14,24,0.85); border-radius: 14px; }
#debugTitle { font-size: 15px; font-weight: 700; }
#debugTrace { font-size: 11px; color: #9fb0c0; }
#debugPanel QScrollBar:vertical { background: transparent; width: 8px; margin: 0; }
#debugPanel QScrollBar::handle:vertical { background: rgba(255,255,255,0.28); border-radius: 4px; min-height: 24px; }
#debugPanel QScrollBar::add-line, #debugPanel QScrollBar::sub-line { height: 0; width: 0; }
#debugPanel QScrollBar::add-page, #debugPanel QScrollBar::sub-page { background: none; }
#subtitleScroll, #subtitleBody { background: transparent; }
QTableWidget { background: transparent; gridline-color: rgba(255,255,255,0.08); border: none; font-size: 13px; }
QHeaderView { background-color: transparent; }
QHeaderView::section { background-color: #1b2b3d; color: #c9d4df; border: none; padding: 4px; font-weight: 600; }
QTableCornerButton::section { background-color: #1b2b3d; border: none; }
#pinDialog { background: #12263a; }
#pinDialog QPushButton { background: rgba(255,255,255,0.12); border-radius: 10px; font-size: 20px; padding: 8px; }
#pinDialog QLineEdit { font-size: 26px; padding: 6px; background: #0a1420; border: 2px solid #3d6fa3;
                       border-radius: 8px; }
#pinMessage { color: #ff8a80; font-size: 16px; }
#pinPrompt { font-size: 17px; }
"""
