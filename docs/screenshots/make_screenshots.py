"""Regenerate the screenshots in this folder (offscreen Qt; the models in models/ and the voices):

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/make_screenshots.py [--only NAME ...]

The turn pictures are real turns: `avatar run` on the bundled sample questions about the sample
venue (assets/samples/, assets/venues/sample/), with the real loop, models and voices, on this
machine; their timings are what this machine measured (a slow or busy machine shows red bars).
The report is `avatar report` on the trace of the debug run. Only `stage_restarted.png` is
scripted (avatar/ui/demo_script.py: a stage that hangs cannot be ordered up), and its window says
it is a demo.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

OUT = Path(__file__).resolve().parent
SIZE = (1280, 800)
SAMPLES = ROOT / "assets" / "samples"
# picture -> (settings, `avatar run` flags, question): each a real turn of `avatar run` on the sample
# venue. No German venue question is recorded yet, and Whisper (base) mishears espeak-ng's German at
# its normal rate, so the German question is spoken by espeak-ng slowly (SAY) and the visitor has
# chosen DE (the espeak voice sounds foreign enough for the language detector to guess English).
SAY = {"de_cafe.wav": (["tts.espeak_rate=120"], "Wann hat das Café geöffnet?", "de")}
REAL_TURNS = {
    "turn_de_hud.png": (["kiosk.hud=true"], ["--lang", "de"], "de_cafe.wav"),
    "turn_en_hud.png": (["kiosk.hud=true"], [], "venue/en/when_is_the_museum_open_today.wav"),
}
DEBUG_RUN = ["venue/en/where_can_i_leave_my_coat.wav", "venue/en/how_much_is_a_ticket_for_students.wav",
             "long/de/jacken_und_kinderfuehrung.flac", "venue/en/is_there_a_cafe_in_the_museum.wav",
             "venue/en/where_are_the_toilets.wav"]


def avatar(*args: str) -> str:
    """One `avatar` command in a child process (each run loads its own models); its output."""
    cmd = [sys.executable, "-m", "avatar", *args]
    print("$", " ".join(cmd[2:]), flush=True)
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout + done.stderr


def sets(*settings: str) -> list[str]:
    return [a for s in settings for a in ("--set", s)]


def question(name: str, tmp: Path) -> str:
    """A bundled recording, or one of SAY spoken into `tmp` by this project's voice."""
    if name not in SAY:
        return str(SAMPLES / name)
    settings, text, lang = SAY[name]
    avatar(*sets(*settings), "say", text, "--lang", lang, "-o", str(tmp / name))
    return str(tmp / name)


def real_turn(name: str, settings: list[str], flags: list[str], questions: list[str], tmp: Path,
              debug: bool = False) -> str:
    return avatar(*sets(*settings, f"general.trace_dir={tmp}"), "run", "--windowed", *flags,
                  *(["--debug"] if debug else []), "--input", *(question(q, tmp) for q in questions),
                  "--output", str(tmp / "replies.wav"), "--screenshot", str(OUT / name))


def scripted(names: set[str]) -> None:
    from PySide6.QtWidgets import QApplication

    from avatar import config
    from avatar import events as ev
    from avatar.trace import Span, now
    from avatar.ui.app import notice_key
    from avatar.ui.demo_script import DEMO_NOTICE, DEMO_TURNS, turn_script
    from avatar.ui.window import KioskWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    cfg = config.load()
    if "idle.png" in names:  # no turn: what a visitor sees first
        w = KioskWindow(cfg, None, kiosk=False, lang="auto")
        w.resize(*SIZE)
        w.show()
        app.processEvents()
        w.grab().save(str(OUT / "idle.png"))
    if "stage_restarted.png" in names:
        w = KioskWindow(cfg, None, kiosk=False, lang="auto")
        w.resize(*SIZE)
        w.add_notice(DEMO_NOTICE, notice_key(DEMO_NOTICE))
        w.show()
        for _, item in turn_script(1, DEMO_TURNS[1], now() - 10):
            if not isinstance(item, ev.PlaybackStopped):
                w.handle_span(item) if isinstance(item, Span) else w.handle_event(item)
        w.handle_event(ev.StageError(now(), stage="asr", message="asr took longer than 5.0 s", restarted=True))
        app.processEvents()
        w.grab().save(str(OUT / "stage_restarted.png"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="just these pictures (file names)")
    args = parser.parse_args()
    every = {"idle.png", "stage_restarted.png", *REAL_TURNS, "debug_panel.png", "report.png"}
    names = set(args.only or every)
    scripted(names)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (settings, flags, q) in REAL_TURNS.items():
            if name in names:
                real_turn(name, settings, flags, [q], Path(tmp))
        if names & {"debug_panel.png", "report.png"}:
            out = real_turn("debug_panel.png", [], [], DEBUG_RUN, Path(tmp), debug=True)
            trace = re.search(r"trace: (\S+\.json)", out)
            if trace is None:
                sys.exit(f"the debug run wrote no trace:\n{out}")
            avatar("report", trace.group(1), "--png", str(OUT / "report.png"))
    for name in sorted(names):
        print(OUT / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
