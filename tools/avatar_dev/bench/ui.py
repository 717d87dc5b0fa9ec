"""What the UI costs on this machine: paint time per frame, event delivery lag from a worker
thread to the GUI thread, and handling one whole turn's events. Offscreen, no models:

    QT_QPA_PLATFORM=offscreen .venv/bin/avatar bench-ui [--size 1920x1080]
"""
from __future__ import annotations

import os
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QElapsedTimer  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from avatar import events as ev  # noqa: E402
from avatar.stats import percentile  # noqa: E402
from avatar.trace import Span, Tracer, now  # noqa: E402
from avatar.ui.demo_script import DEMO_TURNS, turn_script  # noqa: E402
from avatar.ui.event_bridge import EventBridge  # noqa: E402
from avatar.ui.window import KioskWindow  # noqa: E402


def frame_ms(avatar, frames: int, tracer: Tracer, name: str) -> list[float]:
    """What one animation frame costs on screen: repaint the character's rectangle (the window's
    background under it included), as the 30 fps timer does."""
    for _ in range(frames):
        avatar._tick()
        with tracer.span(name):
            avatar.repaint(avatar.character_rect())
    return [s.ms for s in tracer.spans() if s.name == name]


def paint_ms(widget, frames: int, tracer: Tracer, name: str) -> list[float]:
    image = QImage(widget.size(), QImage.Format_ARGB32_Premultiplied)
    for _ in range(frames):
        with tracer.span(name):
            widget.render(image)
    return [s.ms for s in tracer.spans() if s.name == name]


def delivery_lag_ms(app: QApplication, window: KioskWindow, events: int, gap_s: float) -> list[float]:
    """Worker thread posts PartialTranscripts stamped with now(); the GUI notes when each arrives."""
    bridge = EventBridge()
    lags: list[float] = []

    def on_event(e: ev.Event) -> None:
        lags.append((now() - e.t) * 1000)
        window.handle_event(e)

    bridge.connect_to(on_event)

    def worker() -> None:
        for i in range(events):
            bridge.post_event(ev.PartialTranscript(now(), text=f"partial {i}", lang="en"))
            threading.Event().wait(gap_s)

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    timer = QElapsedTimer()
    timer.start()
    while len(lags) < events and timer.elapsed() < 60_000:
        app.processEvents()  # the avatar's 30 fps animation keeps running meanwhile
        threading.Event().wait(0.001)
    thread.join()
    return lags


def measure(cfg, size: str = "1280x800", frames: int = 120, events: int = 300) -> None:
    """Print paint time per frame, event lag and one turn's handling for a window of `size` (WxH)."""
    w, h = (int(x) for x in size.split("x"))
    app = QApplication.instance() or QApplication([])
    window = KioskWindow(cfg, None, kiosk=False, debug=True, lang="auto")
    window.resize(w, h)
    window.show()
    tracer = Tracer()
    with tracer.span("turn_events") as info:
        items = turn_script(1, DEMO_TURNS[0], now() - 10)
        for _, item in items:
            window.handle_span(item) if isinstance(item, Span) else window.handle_event(item)
        info["events"] = len(items)
    app.processEvents()
    window.handle_event(ev.PlaybackStarted(now(), turn=1))
    window.avatar.push_viseme(now(), 60.0, "A")
    app.processEvents()
    avatar = frame_ms(window.avatar, frames, tracer, "avatar_frame")
    hud = paint_ms(window.hud, frames // 4, tracer, "hud_paint")
    full = paint_ms(window, frames // 4, tracer, "window_paint")
    lags = delivery_lag_ms(app, window, events, 0.005)
    turn = next(s for s in tracer.spans() if s.name == "turn_events")
    print(f"window {w}x{h}, offscreen (software raster)")
    for name, xs in (("avatar frame (repaint)", avatar), ("HUD paint", hud), ("whole window paint", full),
                     ("worker -> GUI event lag", lags)):
        print(f"{name:<26} p50 {percentile(xs, 50):7.2f} ms   p95 {percentile(xs, 95):7.2f} ms   (n={len(xs)})")
    print(f"{'one turn, all events':<26} {turn.ms:7.2f} ms for {turn.args['events']} events and spans")
    fps = 1000 / max(1, window.avatar._timer.interval())
    print(f"avatar animation: {fps:.0f} fps -> ~{percentile(avatar, 50) * fps / 10:.1f}% of one core for painting")
