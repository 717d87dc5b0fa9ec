"""`avatar run`: the kiosk app. Fullscreen by default; headless (one HUD line per turn on the
console) when there is no display or no audio device, on the bundled sample questions. `--kiosk`
(what the service and the autostart script run) never falls back to that demo: it waits for the
missing devices (avatar/commands/device_wait.py) and exits non-zero when they do not come.
No run leaves a file in the temporary folder: replies without --output are played to no file."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from avatar.errors import AvatarError, DeviceError

RESTART_AFTER_S = 3.0  # a live kiosk whose loop ended (microphone lost) builds a new one after this


def add_arguments(parser) -> None:
    parser.add_argument("--windowed", action="store_true", help="a normal window instead of the fullscreen kiosk")
    parser.add_argument("--debug", action="store_true", help="latency HUD, debug panel and a trace file per run")
    parser.add_argument("--debug-transcripts", action="store_true",
                        help="with --debug: keep the visitors' words in the trace file (off: timings and ids only)")
    parser.add_argument("--lang", choices=("de", "en", "auto"), help="language (default: general.lang)")
    parser.add_argument("--knowledge", metavar="DIR", help="the venue's knowledge pack (default: general.knowledge)")
    parser.add_argument("--input", nargs="+", metavar="WAV", help="visitor audio from files instead of the microphone")
    parser.add_argument("--output", metavar="WAV", help="reply audio to a file instead of the loudspeaker")
    parser.add_argument("--screenshot", metavar="PNG", help="save the window after the last input turn, then quit")
    parser.add_argument("--demo", action="store_true", help="play a scripted German and English turn (no models)")
    parser.add_argument("--headless", action="store_true", help="no window even when a display is there")
    parser.add_argument("--kiosk", action="store_true",
                        help="the kiosk itself (the service and autostart run this): wait for a missing display, "
                             "microphone or loudspeaker (kiosk.device_wait_s), then exit 1; never the headless demo")


def display_problem(env=os.environ) -> str | None:
    """Why no window can be shown, or None when one can."""
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform and platform.split(":")[0] in ("offscreen", "minimal", "vnc", "eglfs", "linuxfb", "wayland", "xcb"):
        return None
    if sys.platform in ("win32", "darwin") or env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return "no display (DISPLAY/WAYLAND_DISPLAY unset and QT_QPA_PLATFORM not offscreen)"


def audio_problem(cfg) -> str | None:
    """Why the microphone/loudspeaker cannot be used, or None when they can."""
    try:
        from avatar.audio.devices import import_sounddevice

        sd = import_sounddevice()
        for kind, spec in (("input", cfg.audio.input_device), ("output", cfg.audio.output_device)):
            device = int(spec) if isinstance(spec, str) and spec.isdigit() else (spec or None)
            if not sd.query_devices(device, kind=kind):
                return f"no audio {kind} device"
    except DeviceError as exc:
        return f"no audio device ({exc.message})"
    except Exception as exc:  # PortAudio errors and friends: same outcome, no microphone
        return f"no audio device ({exc})"
    return None


def run(args, cfg) -> int:
    overrides = {}
    if args.lang:
        overrides["general.lang"] = args.lang
    if args.debug or args.debug_transcripts:
        overrides["general.debug"] = True
    if args.debug_transcripts:  # an explicit choice: the trace file will hold what visitors said
        from avatar.trace import TRACER

        TRACER.keep_words = True
    if args.knowledge:
        overrides["general.knowledge"] = args.knowledge
    cfg = cfg.with_overrides(overrides) if overrides else cfg
    debug = bool(cfg.general.debug)
    if not debug:  # no trace file to write: a visit's spans go when the visitor does
        from avatar.trace import TRACER

        TRACER.keep_past_visits = False
    if args.kiosk:
        return run_kiosk(cfg, args, debug)

    no_display = "--headless given" if args.headless else display_problem()
    inputs, output = args.input, args.output
    missing = [p for p in inputs or () if not Path(p).is_file()]
    if missing:  # said now, not after the models have loaded for seconds
        from avatar.errors import AudioFileError

        raise AudioFileError(f"audio file not found: {', '.join(missing)}",
                             hint="check the path; inputs are WAV (or FLAC/OGG) files")
    no_audio = None
    if not args.demo and not inputs:
        no_audio = audio_problem(cfg)
    if no_display or no_audio:
        print(f"avatar: {no_display or no_audio}: running the turns headless"
              + ("" if inputs or args.demo else " on the bundled sample questions"), flush=True)
        if args.screenshot:
            print("avatar: --screenshot needs a display (try QT_QPA_PLATFORM=offscreen)", file=sys.stderr)
        return run_headless(cfg, inputs, output, demo=args.demo, debug=debug)
    problem = window_libraries_problem()
    if problem:  # Qt would abort the process (SIGABRT) with its own message and no advice
        raise DeviceError(problem, hint="`make run` installs them when it may (root or sudo), "
                                        "`avatar doctor` lists what is missing")
    discard = False
    if inputs and not output and not args.demo:
        problem = audio_problem(cfg)
        if problem:
            discard = True
            print(f"avatar: {problem}: the replies are not kept (--output WAV keeps them)", flush=True)
    return run_window(cfg, args, debug, discard_replies=discard)


def run_kiosk(cfg, args, debug: bool) -> int:
    """The kiosk at boot: the window on the live devices, or a non-zero exit; never the headless demo."""
    given = [name for name in ("input", "output", "demo", "headless", "screenshot") if getattr(args, name)]
    if given:
        raise AvatarError(f"--kiosk runs the live kiosk and takes no {', '.join('--' + n for n in given)}",
                          hint="leave them out, or run without --kiosk")
    from avatar.commands.device_wait import DeviceWait

    wait = DeviceWait(cfg, cfg.kiosk.device_wait_s)
    wait.report()  # one line per missing device, at once
    wait.wait(("display",))
    problem = window_libraries_problem()
    if problem:  # no wait installs a library
        raise DeviceError(problem, hint="`make run` installs them when it may (root or sudo), "
                                        "`avatar doctor` lists what is missing")
    return run_window(cfg, args, debug, device_wait=wait)


def window_libraries_problem(env=os.environ) -> str | None:
    """Why Qt's xcb platform plugin cannot load on this X display (missing libraries), or None."""
    from avatar import sysdeps

    return sysdeps.display_problem(env)


# --- with a window ------------------------------------------------------------------------------
def run_window(cfg, args, debug: bool, discard_replies: bool = False, device_wait=None) -> int:
    """device_wait (--kiosk): the microphone and loudspeaker are waited for on the loop's thread, once
    the models are loaded, with a notice on the screen; the app exits when the wait expires."""
    from avatar.trace import TRACER
    from avatar.ui.app import App

    tracer = TRACER
    app: list = []  # the App, for the wait's notices (made below, before make_loop first runs)
    if args.demo:
        from avatar.ui import demo_script

        def make_loop():  # the window says it is a demo: its turns are scripted, not measured
            return demo_script.DemoLoop(tracer), [demo_script.DEMO_NOTICE]
    else:
        loaded: list = []  # the models, loaded once; a restarted loop reuses them

        def make_loop():  # runs on the loop's thread: the window is up while the models load
            if not loaded:
                loaded.append(_load_stages(cfg, tracer))
            elif device_wait is not None:
                device_wait.renew()  # a loop built again (a microphone lost): a new bounded wait
            if device_wait is not None:
                device_wait.wait(("microphone", "loudspeaker"),
                                 on_missing=lambda name: app[0].notice(f"waiting_{name}", name),
                                 on_found=lambda name: app[0].notice(f"waiting_{name}", ""))
            return _build_loop(cfg, args.input, args.output, tracer, loaded[0], discard_replies=discard_replies)
    live = not args.input and not args.demo
    app.append(App(cfg, make_loop, tracer, kiosk=not args.windowed and bool(cfg.kiosk.fullscreen), debug=debug,
                   lang=cfg.general.lang, screenshot=args.screenshot, quit_when_done=bool(args.screenshot),
                   restart_after_s=RESTART_AFTER_S if live else None))
    return app[0].exec()


def _pipeline():
    try:
        from avatar.pipeline import build
    except ImportError as exc:
        raise AvatarError(f"the voice loop cannot be built: {exc}",
                          hint="try `avatar run --demo`, and `avatar doctor` for what is missing") from None
    return build


def _load_stages(cfg, tracer):
    def progress(msg: str) -> None:
        print(f"avatar: {msg} …", flush=True)

    return _pipeline().load_stages(cfg, tracer, cfg.general.knowledge, progress)


def _build_loop(cfg, inputs, output, tracer, stages=None, discard_replies: bool = False):
    stages = stages or _load_stages(cfg, tracer)
    loop = _pipeline().build_voice_loop(cfg, inputs, output, tracer, stages=stages, knowledge=cfg.general.knowledge,
                                        discard_replies=discard_replies)
    return loop, list(stages.notices)


# --- headless -----------------------------------------------------------------------------------
def sample_questions() -> list[Path]:
    """The bundled sample questions: the venue set if present, else the recorded ones ([] if none)."""
    from avatar.paths import assets_dir

    root = assets_dir() / "samples"
    for pattern in ("venue/*/*.wav", "real/*/*.wav", "*.wav"):
        found = sorted(root.glob(pattern))
        if found:
            by_lang: dict[str, list[Path]] = {}
            for p in found:
                by_lang.setdefault(p.parent.name, []).append(p)
            # two per language keeps the headless run short and shows both languages
            return [p for group in by_lang.values() for p in group[:2]]
    return []


def synthesize_questions(cfg, folder: Path) -> list[Path]:
    """No WAVs bundled: speak the locales' sample questions with our own TTS, into `folder`."""
    import numpy as np
    import soundfile as sf

    from avatar.locales import load_strings

    try:
        from avatar.tts.synthesizer import Synthesizer
    except ImportError as exc:
        raise AvatarError(f"no sample questions and no TTS to make them: {exc}",
                          hint="pass --input WAV files") from None
    tts = Synthesizer(cfg.tts)
    out = []
    for lang in cfg.general.languages:
        for i, text in enumerate(load_strings(lang).table.get("samples", {}).get("questions", [])):
            chunks = list(tts.synthesize(text, lang))
            if not chunks:
                continue
            pcm = np.concatenate([c.pcm for c in chunks])
            path = folder / f"{lang}_{i}.wav"
            sf.write(path, pcm, chunks[0].sample_rate)
            out.append(path)
    return out


def run_headless(cfg, inputs, output, demo: bool = False, debug: bool = False) -> int:
    from avatar import events as ev
    from avatar.report import format_table, record_turn_metrics, stage_stats, turn_table_header, turn_table_row
    from avatar.stage_names import VOICE_TO_VOICE
    from avatar.trace import TRACER
    from avatar.locales import load_strings

    tracer = TRACER
    budgets = cfg.budget.as_dict()
    strings = {lang: load_strings(lang) for lang in ("de", "en")}
    metrics: list[ev.TurnMetrics] = []
    last_lang = [cfg.general.lang if cfg.general.lang in strings else cfg.general.languages[0]]

    def observe(e: ev.Event) -> None:
        if isinstance(e, ev.TurnMetrics):
            if debug:
                record_turn_metrics(tracer, e)
            if not metrics:
                print(turn_table_header(), flush=True)
            metrics.append(e)
            print(turn_table_row(e.turn, e.lang, e.stages, e.voice_to_voice_ms, e.transcript, e.reply, budgets),
                  flush=True)
        elif isinstance(e, ev.StageError):
            s = strings[last_lang[0]]
            key = "error.stage_restarted" if e.restarted else "error.stage_failed"
            print(f"  ! {s.get(key, stage=s.stage_name(e.stage))}  [{e.stage}: {e.message}]", flush=True)
        elif isinstance(e, ev.Notice):
            print(f"  i {e.message}", flush=True)
        elif isinstance(e, ev.LanguageChanged) and e.lang in strings:
            last_lang[0] = e.lang
        elif isinstance(e, ev.FinalTranscript) and e.dropped:
            print(f"  - dropped a transcript ({e.dropped})", flush=True)

    samples = None  # a temporary folder of synthesized sample questions
    if demo:
        from avatar.ui import demo_script

        loop = demo_script.DemoLoop(tracer, start_delay_s=0.0)
        print(f"  i {demo_script.DEMO_NOTICE}", flush=True)
    else:
        inputs = inputs or sample_questions()
        if not inputs:  # questions synthesized for this run go with it
            samples = tempfile.TemporaryDirectory(prefix="avatar-samples-")
            inputs = synthesize_questions(cfg, Path(samples.name))
        if not inputs:
            raise AvatarError("no input to run headless", hint="pass --input WAV files")
        print(f"avatar: {len(inputs)} question(s): {', '.join(Path(p).name for p in inputs)}", flush=True)
        try:
            loop, notices = _build_loop(cfg, inputs, output, tracer, discard_replies=not output)
        except BaseException:
            if samples is not None:
                samples.cleanup()
            raise
        from avatar.trace import process_age_s

        print(f"avatar: ready to listen {process_age_s():.1f} s after start (models loaded and warmed up)", flush=True)
        for text in notices:
            print(f"  i {text}", flush=True)
    loop.subscribe(observe)
    try:
        loop.run_until_done()
    finally:  # every thread of the loop ends before the interpreter does
        getattr(loop, "close", loop.stop)()
        if samples is not None:
            samples.cleanup()
    if metrics:
        print()
        rows = [{**m.stages, **({VOICE_TO_VOICE: m.voice_to_voice_ms} if m.voice_to_voice_ms is not None else {})}
                for m in metrics]
        print(format_table(stage_stats(rows, budgets)))
    else:
        print("avatar: no turn was answered")
    if not demo:
        print(f"replies: {output}" if output else "replies: not kept (--output WAV keeps them)")
    if debug:
        from avatar.report import trace_file_for_run

        path = tracer.export_chrome(trace_file_for_run(cfg))
        print(f"trace: {path}")
    return 0 if metrics else 1
