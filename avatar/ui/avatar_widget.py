"""The animated character: idles (blinks, breathes), listens, thinks, speaks with lip-sync.

Drawn with QPainter in a 400 x 480 design space scaled to the widget (the parts in
avatar/ui/character_drawing.py); colours come from assets/avatar/character.toml; the mouth shapes
of the visemes are in avatar/ui/mouth.py. Lip-sync: Viseme events carry the clock time they become audible,
so each frame shows the viseme under `avatar.trace.now()`; without visemes, loudness opens the mouth.
"""
from __future__ import annotations

import bisect
import math
import random

from PySide6.QtCore import QPointF, QRect, QTimer
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QWidget

from avatar.trace import now
from avatar.ui.character_drawing import _DEFAULT_GLOW, _DEFAULT_PALETTE, CharacterDrawing, load_look
from avatar.ui.mouth import VISEMES, MouthShape, VisemeCue

__all__ = ["MOODS", "STATES", "VISEMES", "AvatarWidget", "MouthShape", "VisemeCue", "load_look"]

STATES = ("idle", "listening", "thinking", "speaking")
MOODS = ("neutral", "happy", "sorry", "info")


class AvatarWidget(CharacterDrawing, QWidget):
    """The character: its state, mood and gesture, the viseme cues, the animation clock (blinks,
    breath, the eased mouth); the parts are painted by CharacterDrawing (avatar/ui/character_drawing.py)."""

    def __init__(self, parent: QWidget | None = None, look: dict | None = None):
        super().__init__(parent)
        look = load_look() if look is None else look
        self.palette_colors = {k: QColor(v) for k, v in {**_DEFAULT_PALETTE, **look.get("palette", {})}.items()}
        self.glow_colors = {k: QColor(v) for k, v in {**_DEFAULT_GLOW, **look.get("glow", {})}.items()}
        timing = look.get("timing", {})
        self._blink_every = tuple(timing.get("blink_every_s", (2.5, 5.5)))
        self._blink_s = float(timing.get("blink_s", 0.14))
        self._breath_s = float(timing.get("breath_s", 4.2))
        self.state = "idle"
        self.mood = "neutral"
        self.gesture = ""
        self._cues: list[VisemeCue] = []
        self._cue_starts: list[float] = []
        self._mouth_open = 0.0
        self._mouth_width = 0.55
        self._shape = VISEMES["rest"]
        self._state_since = now()
        self._next_blink = now() + random.uniform(*self._blink_every)
        self._rng = random.Random(7)
        self._glow_cache: dict[tuple, QPixmap] = {}
        self._origin = QPointF(0, 0)
        self.setMinimumSize(200, 240)
        self._timer = QTimer(self)
        self._busy_interval = int(1000 / max(1, int(timing.get("fps", 30))))
        self._timer.setInterval(self._busy_interval)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    # --- what the window tells it ---------------------------------------------------------------
    def set_state(self, state: str) -> None:
        if state not in STATES:
            state = "idle"
        if state != self.state:
            self.state = state
            self._state_since = now()
            self.update()

    def set_mood(self, mood: str, gesture: str = "") -> None:
        self.mood = mood if mood in MOODS else "neutral"
        self.gesture = gesture or ""
        self.update()

    def push_viseme(self, at: float, duration: float, viseme: str, level: float = 0.0) -> None:
        cue = VisemeCue(at, max(0.0, duration), viseme, max(0.0, min(1.0, level)))
        i = bisect.bisect_right(self._cue_starts, at)
        self._cue_starts.insert(i, at)
        self._cues.insert(i, cue)

    def clear_visemes(self) -> None:
        self._cues.clear()
        self._cue_starts.clear()

    def current_shape(self, t: float | None = None) -> MouthShape:
        """The mouth shape the visemes ask for at clock time t (rest when nothing is audible)."""
        t = now() if t is None else t
        i = bisect.bisect_right(self._cue_starts, t) - 1
        if i < 0:
            return VISEMES["rest"]
        cue = self._cues[i]
        if t > cue.at + cue.duration:
            return VISEMES["rest"]
        shape = VISEMES.get(cue.viseme) or VISEMES.get(cue.viseme.upper())
        if shape is None or (cue.viseme == "rest" and cue.level > 0):
            # unknown viseme or loudness only: the louder, the wider open
            return MouthShape(min(1.0, cue.level * 1.2), 0.6 + 0.2 * cue.level)
        return shape

    # --- animation ------------------------------------------------------------------------------
    def _tick(self) -> None:
        t = now()
        # forget cues that ended long ago so the lists stay short over a long day
        while self._cues and self._cues[0].at + self._cues[0].duration < t - 1.0:
            self._cues.pop(0)
            self._cue_starts.pop(0)
        self._shape = self.current_shape(t)
        ease = 0.55
        self._mouth_open += (self._shape.open - self._mouth_open) * ease
        self._mouth_width += (self._shape.width - self._mouth_width) * ease
        if t > self._next_blink + self._blink_s:
            self._next_blink = t + self._rng.uniform(*self._blink_every)
        if self.isVisible():
            self.update(self.character_rect())
        # lip-sync needs the full rate; idling (breath, blinks) looks the same at half of it
        interval = self._busy_interval if self.state != "idle" or self._cues else self._busy_interval * 2
        if self._timer.interval() != interval:
            self._timer.setInterval(interval)

    def character_rect(self) -> QRect:
        """The part of the widget the character (with its halo) covers: all a frame repaints."""
        scale = min(self.width() / 400.0, self.height() / 480.0)
        x0 = (self.width() - 400 * scale) / 2
        y0 = (self.height() - 480 * scale) / 2
        margin = 20 * scale
        return QRect(int(x0 - margin), int(y0 - margin), int(440 * scale) + 2, int(520 * scale) + 2)

    def _blink_amount(self, t: float) -> float:
        """0 = eyes open, 1 = closed."""
        if self._next_blink <= t <= self._next_blink + self._blink_s:
            phase = (t - self._next_blink) / self._blink_s
            return math.sin(phase * math.pi)
        return 0.0

    # --- drawing --------------------------------------------------------------------------------
    def paintEvent(self, _event) -> None:
        t = now()
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        scale = min(self.width() / 400.0, self.height() / 480.0)
        self._origin = QPointF((self.width() - 400 * scale) / 2, (self.height() - 480 * scale) / 2)
        self._draw_glow(p, t, scale)
        p.translate(self._origin)
        p.scale(scale, scale)
        breath = math.sin(2 * math.pi * t / self._breath_s)
        self._draw_body(p, breath)
        head_dy = 1.5 * breath
        if self.gesture == "nod" and self.state == "speaking":
            head_dy += 4 * math.sin(t * 6)
        p.save()
        p.translate(0, head_dy)
        tilt = {"listening": 3.0, "thinking": -4.0}.get(self.state, 0.0)
        p.translate(200, 200)
        p.rotate(tilt)
        p.translate(-200, -200)
        self._draw_head(p, t)
        p.restore()
        self._draw_gesture(p, t)
        if self.state == "thinking":
            self._draw_thinking(p, t)
        elif self.state == "listening":
            self._draw_listening(p, t)
        p.end()
