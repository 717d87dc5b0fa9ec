"""How the character looks: its palette and halo colours (assets/avatar/character.toml over the
built-in look), and the painting of each part in the 400 x 480 design space: halo, body, head,
eyes, brows, mouth, hands, the thinking bubble and the listening waves.

`CharacterDrawing` is a mixin of AvatarWidget (avatar/ui/avatar_widget.py); it only reads the
widget's state: `state`, `mood`, `gesture`, `palette_colors`, `glow_colors`, the eased mouth
(`_mouth_open`, `_mouth_width`, `_shape`), `_origin`, `_glow_cache` and `_blink_amount(t)`.
"""
from __future__ import annotations

import math
import tomllib
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen, QPixmap, QRadialGradient

from avatar.paths import assets_dir


def load_look(path: Path | None = None) -> dict:
    path = path or assets_dir() / "avatar" / "character.toml"
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}  # the built-in look below still draws a complete character


_DEFAULT_PALETTE = {
    "skin": "#f2c6a0", "skin_shadow": "#e0a985", "hair": "#3b2a33", "hair_light": "#5a4150", "top": "#1f8a8a",
    "top_dark": "#17706f", "collar": "#f4f1ea", "eye_white": "#fbfbfb", "iris": "#3a6ea5", "pupil": "#1b1b24",
    "brow": "#2f2129", "lip": "#c0605a", "mouth_inside": "#5a1f27", "teeth": "#ffffff", "tongue": "#d9777a",
    "blush": "#f19c9c",
}
_DEFAULT_GLOW = {"idle": "#3d6fa3", "listening": "#3fae7a", "thinking": "#d9a441", "speaking": "#4f8fe0"}


class CharacterDrawing:
    """The painting of the character's parts, for AvatarWidget.paintEvent."""

    def _c(self, name: str) -> QColor:
        return self.palette_colors[name]

    def _draw_glow(self, p: QPainter, t: float, scale: float) -> None:
        """The halo, from a pixmap rendered once per state and size (a radial gradient per frame
        cost more than the whole character); it pulses through its opacity."""
        key = (self.state, round(scale, 3))
        if key not in self._glow_cache:
            self._glow_cache.clear()
            self._glow_cache[key] = self._render_glow(scale)
        pixmap = self._glow_cache[key]
        pulse = 0.5 + 0.5 * math.sin(t * (4.0 if self.state == "listening" else 1.5))
        depth = 0.35 if self.state in ("listening", "speaking") else 0.15
        p.save()
        p.resetTransform()
        p.setOpacity(1.0 - depth + depth * pulse)
        center = self._origin + QPointF(200 * scale, 230 * scale)
        p.drawPixmap(int(center.x() - pixmap.width() / 2), int(center.y() - pixmap.height() / 2), pixmap)
        p.restore()

    def _render_glow(self, scale: float) -> QPixmap:
        radius = 215 * scale
        size = int(2 * radius) + 2
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.transparent)
        color = QColor(self.glow_colors.get(self.state, self.glow_colors["idle"]))
        grad = QRadialGradient(QPointF(size / 2, size / 2), radius)
        for at, alpha in ((0.0, 110), (0.6, 45), (1.0, 0)):
            c = QColor(color)
            c.setAlpha(alpha)
            grad.setColorAt(at, c)
        gp = QPainter(pixmap)
        gp.setRenderHint(QPainter.Antialiasing)
        gp.setPen(Qt.NoPen)
        gp.setBrush(QBrush(grad))
        gp.drawEllipse(QPointF(size / 2, size / 2), radius, radius)
        gp.end()
        return pixmap

    def _draw_body(self, p: QPainter, breath: float) -> None:
        rise = 2.5 * breath
        body = QPainterPath()
        body.moveTo(60, 480)
        body.cubicTo(60, 380 - rise, 110, 345 - rise, 200, 342 - rise)
        body.cubicTo(290, 345 - rise, 340, 380 - rise, 340, 480)
        body.closeSubpath()
        p.setPen(Qt.NoPen)
        p.setBrush(self._c("top"))
        p.drawPath(body)
        # neck, then the collar over it
        p.setBrush(self._c("skin_shadow"))
        p.drawRoundedRect(QRectF(178, 290, 44, 62 - rise), 14, 14)
        collar = QPainterPath()
        collar.moveTo(162, 345 - rise)
        collar.lineTo(200, 392 - rise)
        collar.lineTo(238, 345 - rise)
        collar.lineTo(222, 340 - rise)
        collar.lineTo(200, 368 - rise)
        collar.lineTo(178, 340 - rise)
        collar.closeSubpath()
        p.setBrush(self._c("collar"))
        p.drawPath(collar)
        p.setBrush(self._c("top_dark"))
        p.drawEllipse(QPointF(200, 420 - rise), 5, 5)
        p.drawEllipse(QPointF(200, 450 - rise), 5, 5)

    def _draw_head(self, p: QPainter, t: float) -> None:
        p.setPen(Qt.NoPen)
        # hair behind the head
        p.setBrush(self._c("hair"))
        back = QPainterPath()
        back.moveTo(108, 215)
        back.cubicTo(95, 100, 170, 62, 200, 62)
        back.cubicTo(230, 62, 305, 100, 292, 215)
        back.cubicTo(300, 280, 290, 318, 270, 322)
        back.lineTo(130, 322)
        back.cubicTo(110, 318, 100, 280, 108, 215)
        p.drawPath(back)
        # ears and face
        p.setBrush(self._c("skin_shadow"))
        p.drawEllipse(QPointF(123, 210), 13, 20)
        p.drawEllipse(QPointF(277, 210), 13, 20)
        p.setBrush(self._c("skin"))
        face = QPainterPath()
        face.moveTo(126, 170)
        face.cubicTo(126, 110, 165, 88, 200, 88)
        face.cubicTo(235, 88, 274, 110, 274, 170)
        face.cubicTo(274, 250, 245, 305, 200, 305)
        face.cubicTo(155, 305, 126, 250, 126, 170)
        p.drawPath(face)
        # fringe
        p.setBrush(self._c("hair"))
        fringe = QPainterPath()
        fringe.moveTo(122, 180)
        fringe.cubicTo(118, 105, 170, 76, 205, 80)
        fringe.cubicTo(250, 84, 284, 115, 278, 182)
        fringe.cubicTo(262, 140, 236, 122, 214, 116)
        fringe.cubicTo(190, 134, 150, 140, 122, 180)
        p.drawPath(fringe)
        p.setBrush(self._c("hair_light"))
        shine = QPainterPath()
        shine.moveTo(170, 96)
        shine.cubicTo(190, 88, 225, 90, 240, 100)
        shine.cubicTo(220, 96, 195, 98, 170, 104)
        p.drawPath(shine)
        if self.mood == "happy":
            blush = QColor(self._c("blush"))
            blush.setAlpha(120)
            p.setBrush(blush)
            p.drawEllipse(QPointF(155, 238), 16, 9)
            p.drawEllipse(QPointF(245, 238), 16, 9)
        self._draw_eyes(p, t)
        self._draw_brows(p)
        # nose
        p.setPen(QPen(self._c("skin_shadow"), 3, Qt.SolidLine, Qt.RoundCap))
        nose = QPainterPath()
        nose.moveTo(202, 212)
        nose.cubicTo(206, 228, 208, 236, 198, 240)
        p.setBrush(Qt.NoBrush)
        p.drawPath(nose)
        self._draw_mouth(p)

    def _draw_eyes(self, p: QPainter, t: float) -> None:
        closed = self._blink_amount(t)
        look = {"thinking": QPointF(4, -5), "listening": QPointF(0, 1)}.get(self.state, QPointF(0, 0))
        eye_h = 15 * (1.0 - 0.92 * closed)
        if self.mood == "happy" and self.state == "speaking":
            eye_h *= 0.8
        for cx in (162, 238):
            p.setPen(Qt.NoPen)
            p.setBrush(self._c("eye_white"))
            p.drawEllipse(QPointF(cx, 190), 17, eye_h)
            if eye_h > 4:
                p.save()
                clip = QPainterPath()
                clip.addEllipse(QPointF(cx, 190), 17, eye_h)
                p.setClipPath(clip)
                p.setBrush(self._c("iris"))
                p.drawEllipse(QPointF(cx, 191) + look, 10, 10)
                p.setBrush(self._c("pupil"))
                p.drawEllipse(QPointF(cx, 191) + look, 5, 5)
                p.setBrush(QColor(255, 255, 255, 220))
                p.drawEllipse(QPointF(cx + 3, 187) + look, 2.5, 2.5)
                p.restore()
            # upper lid line
            p.setPen(QPen(self._c("brow"), 2.5, Qt.SolidLine, Qt.RoundCap))
            p.setBrush(Qt.NoBrush)
            p.drawArc(QRectF(cx - 17, 190 - eye_h, 34, 2 * eye_h), 20 * 16, 140 * 16)

    def _draw_brows(self, p: QPainter) -> None:
        p.setPen(QPen(self._c("brow"), 5, Qt.SolidLine, Qt.RoundCap))
        p.setBrush(Qt.NoBrush)
        raise_all = {"happy": -4, "listening": -3}.get(self.mood if self.mood != "neutral" else self.state, 0)
        for side, cx in ((-1, 162), (1, 238)):
            inner_y, outer_y = 163 + raise_all, 165 + raise_all
            if self.mood == "sorry":
                inner_y -= 7  # worried: inner ends up
                outer_y += 2
            elif self.mood == "info" and side == 1:
                inner_y -= 5
                outer_y -= 7  # one brow raised: "here is the thing"
            elif self.state == "thinking" and side == -1:
                inner_y -= 4
            inner_x, outer_x = cx - side * 14, cx + side * 16
            path = QPainterPath()
            path.moveTo(inner_x, inner_y)
            path.quadTo((inner_x + outer_x) / 2, min(inner_y, outer_y) - 6, outer_x, outer_y)
            p.drawPath(path)

    def _draw_mouth(self, p: QPainter) -> None:
        cx, cy = 200, 262
        smile = {"happy": 9, "sorry": -5, "info": 3}.get(self.mood, 3)
        half_w = 14 + 14 * self._mouth_width
        opening = 26 * self._mouth_open
        shape = self._shape
        if opening < 2.0:
            # closed: a line with the mood's curve
            p.setPen(QPen(self._c("lip"), 5 if shape.pressed else 4, Qt.SolidLine, Qt.RoundCap))
            p.setBrush(Qt.NoBrush)
            line = QPainterPath()
            line.moveTo(cx - half_w, cy - smile * 0.4)
            line.quadTo(cx, cy + smile, cx + half_w, cy - smile * 0.4)
            p.drawPath(line)
            return
        top = QPainterPath()
        top.moveTo(cx - half_w, cy - smile * 0.3)
        top.cubicTo(cx - half_w * 0.5, cy - opening * 0.35 - 2, cx + half_w * 0.5, cy - opening * 0.35 - 2,
                    cx + half_w, cy - smile * 0.3)
        top.cubicTo(cx + half_w * 0.6, cy + opening * 0.9 + smile * 0.3, cx - half_w * 0.6,
                    cy + opening * 0.9 + smile * 0.3, cx - half_w, cy - smile * 0.3)
        p.setPen(QPen(self._c("lip"), 4, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
        p.setBrush(self._c("mouth_inside"))
        p.drawPath(top)
        p.save()
        p.setClipPath(top)
        p.setPen(Qt.NoPen)
        if shape.teeth:
            p.setBrush(self._c("teeth"))
            p.drawRect(QRectF(cx - half_w, cy - opening * 0.4 - 4, 2 * half_w, 8 + opening * 0.12))
        if shape.tongue or opening > 16:
            p.setBrush(self._c("tongue"))
            p.drawEllipse(QPointF(cx, cy + opening * 0.8), half_w * 0.6, 7 + opening * 0.2)
        if shape.lip_bite:
            p.setBrush(self._c("lip"))
            p.drawRect(QRectF(cx - half_w, cy + opening * 0.1, 2 * half_w, 20))
        p.restore()

    def _draw_gesture(self, p: QPainter, t: float) -> None:
        if self.state != "speaking":
            return  # gestures go with the words
        gesture = self.gesture or ("point_up" if self.mood == "info" else "")
        if not gesture:
            return
        if gesture in ("wave", "greet", "hello"):
            angle = 12 * math.sin(t * 7)
            self._draw_hand(p, QPointF(332, 300), angle, finger=False)
        elif gesture in ("point_up", "info", "explain"):
            self._draw_hand(p, QPointF(322, 318), -8, finger=True)
        elif gesture in ("point_left", "point", "left"):
            self._draw_hand(p, QPointF(60, 360), -70, finger=True)
        elif gesture in ("point_right", "right"):
            self._draw_hand(p, QPointF(340, 360), 70, finger=True)

    def _draw_hand(self, p: QPainter, at: QPointF, angle: float, finger: bool) -> None:
        p.save()
        p.translate(at)
        p.rotate(angle)
        p.setPen(Qt.NoPen)
        p.setBrush(self._c("top"))
        p.drawRoundedRect(QRectF(-16, 20, 32, 80), 14, 14)  # sleeve
        p.setBrush(self._c("skin"))
        p.drawEllipse(QPointF(0, 8), 19, 21)
        if finger:
            p.drawRoundedRect(QRectF(-5, -34, 11, 36), 5, 5)
        else:
            for dx in (-13, -4, 5, 14):
                p.drawRoundedRect(QRectF(dx - 4, -24, 9, 28), 4, 4)
        p.restore()

    def _draw_thinking(self, p: QPainter, t: float) -> None:
        p.setPen(Qt.NoPen)
        bubble = QColor(255, 255, 255, 215)
        p.setBrush(bubble)
        p.drawEllipse(QPointF(300, 118), 6, 6)
        p.drawEllipse(QPointF(318, 96), 9, 9)
        p.drawRoundedRect(QRectF(312, 38, 78, 44), 22, 22)
        for i in range(3):
            phase = (t * 2.2 - i * 0.33) % 1.0
            lift = 5 * math.sin(phase * math.pi) if phase < 1.0 else 0
            dot = QColor(self.glow_colors["thinking"])
            dot.setAlpha(150 + int(105 * math.sin(phase * math.pi)))
            p.setBrush(dot)
            p.drawEllipse(QPointF(332 + i * 19, 60 - lift), 6, 6)

    def _draw_listening(self, p: QPainter, t: float) -> None:
        color = QColor(self.glow_colors["listening"])
        for i in range(3):
            phase = (t * 1.6 + i / 3.0) % 1.0
            color.setAlpha(int(220 * (1 - phase)))
            p.setPen(QPen(color, 4, Qt.SolidLine, Qt.RoundCap))
            p.setBrush(Qt.NoBrush)
            r = 18 + 26 * phase
            p.drawArc(QRectF(277 - r, 210 - r, 2 * r, 2 * r), -40 * 16, 80 * 16)
            p.drawArc(QRectF(123 - r, 210 - r, 2 * r, 2 * r), 140 * 16, 80 * 16)
