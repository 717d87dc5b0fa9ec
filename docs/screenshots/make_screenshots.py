"""Regenerate the screenshots in this folder (offscreen, scripted demo turns, no models needed):

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/make_screenshots.py

The numbers in the pictures come from the scripted demo (avatar/ui/demo_script.py), not from a
measurement; the plot of a real run is `avatar run --debug ...` then `avatar report TRACE --png`.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from PySide6.QtWidgets import QApplication  # noqa: E402

from avatar import config  # noqa: E402
from avatar import events as ev  # noqa: E402
from avatar.report import plot_report, turns_from_spans  # noqa: E402
from avatar.trace import Span, Tracer, now  # noqa: E402
from avatar.ui.demo_script import DEMO_TURNS, demo_script, turn_script, varied_turns  # noqa: E402
from avatar.ui.window import KioskWindow  # noqa: E402

OUT = Path(__file__).resolve().parent
SIZE = (1280, 800)


def feed(window: KioskWindow, items, app: QApplication, stop_before=ev.PlaybackStopped, tracer: Tracer | None = None):
    for _, item in items:
        if isinstance(item, stop_before):
            continue
        if isinstance(item, Span):
            window.handle_span(item)
            if tracer is not None:
                tracer.add(item)
        else:
            window.handle_event(item)
    app.processEvents()


def speaking_pose(window: KioskWindow, app: QApplication, viseme: str) -> None:
    window.handle_event(ev.PlaybackStarted(now(), turn=window.current_turn or 0))
    window.avatar.push_viseme(now() - 0.02, 2.0, viseme, 0.8)
    for _ in range(8):
        window.avatar._tick()
    app.processEvents()


def shot(window: KioskWindow, name: str) -> None:
    path = OUT / name
    window.grab().save(str(path))
    print(path)


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    cfg = config.load()

    w = KioskWindow(cfg, None, kiosk=False, lang="auto")
    w.resize(*SIZE)
    w.show()
    app.processEvents()
    shot(w, "idle.png")

    w = KioskWindow(cfg, None, kiosk=False, lang="auto")
    w.resize(*SIZE)
    w.hud.show()
    w.show()
    feed(w, turn_script(1, DEMO_TURNS[0], now() - 10), app)
    speaking_pose(w, app, "A")
    shot(w, "turn_de_hud.png")

    w.handle_event(ev.VisitorLeft(now()))
    feed(w, turn_script(2, DEMO_TURNS[1], now() - 10), app)
    speaking_pose(w, app, "E")
    shot(w, "turn_en_hud.png")

    w.handle_event(ev.StageError(now(), stage="asr", message="asr took longer than 5.0 s", restarted=True))
    app.processEvents()
    shot(w, "stage_restarted.png")

    tracer = Tracer()
    w = KioskWindow(cfg, None, kiosk=False, debug=True, lang="auto")
    w.resize(*SIZE)
    w.show()
    turns = varied_turns(12)
    feed(w, demo_script(now() - 100, turns), app, tracer=tracer)
    w.debug_panel.set_trace_path("traces/run-20261130-060000.json")
    app.processEvents()
    shot(w, "debug_panel.png")

    out = plot_report(turns_from_spans(tracer.spans()), OUT / "report.png", cfg.budget.as_dict(),
                      title="avatar report: 12 scripted demo turns")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
