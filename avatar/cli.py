"""`avatar` command line. Each command lives in avatar/commands/<name>.py with
`add_arguments(parser)` and `run(args, cfg) -> int`; only the chosen command's module is imported,
so `avatar --help` stays instant and a broken optional stage cannot break the others. The bench-*
commands are thin: what they measure lives in tools/avatar_dev/bench/.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from pathlib import Path

from avatar import terminate
from avatar.errors import AvatarError

COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("avatar.commands.run", "start the kiosk app (headless on files or sample questions without a display)"),
    "bench": ("avatar.commands.bench", "time the whole voice loop on WAV files fed at real-time pace"),
    "ask": ("avatar.commands.ask", "answer a typed question from the knowledge pack"),
    "soak": ("avatar.commands.soak", "endurance run: N turns of the whole voice loop; memory, threads, files, drift"),
    "bench-llm": ("avatar.commands.bench_llm", "decoder speed of the diffusion LM against one-token-per-step decoding"),
    "bench-echo": ("avatar.commands.bench_echo", "echo cancellation and barge-in in a simulated room"),
    "bench-tts": ("avatar.commands.bench_tts", "time to first audio of the voices, side by side"),
    "bench-ui": ("avatar.commands.bench_ui", "what the kiosk window costs to paint and to feed with events (offscreen)"),
    "bench-checks": ("avatar.commands.bench_checks", "cost of each answer check on crafted replies (no model)"),
    "bench-adversarial": ("avatar.commands.bench_adversarial",
                          "checked vs unchecked answers on questions built to mislead"),
    "say": ("avatar.commands.say", "synthesize TEXT to a WAV file"),
    "transcribe": ("avatar.commands.transcribe", "transcribe a WAV file"),
    "models": ("avatar.commands.models", "list, verify and import models"),
    "doctor": ("avatar.commands.doctor", "check devices, models and display; say what falls back"),
    "train": ("avatar.commands.train", "train the embedded diffusion model"),
    "eval": ("avatar.commands.eval", "evaluate the answerer on held-out synthetic venues"),
    "report": ("avatar.commands.report", "turn a debug trace into per-stage percentiles and a plot"),
    "check-pack": ("avatar.commands.check_pack",
                   "what in a knowledge pack makes answers wrong or rarer: numbers that differ between the "
                   "languages, missing keywords, long facts"),
    "admin": ("avatar.commands.admin", "set the kiosk's admin PIN (none is shipped), or say whether one is set"),
}


def build_parser(command: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="avatar", description="Offline bilingual kiosk avatar.")
    parser.add_argument("--config", help="settings file (TOML); see avatar/defaults.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="override one setting (repeatable)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == command:
            importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; as the program (argv None), also make sure the process exits with its status."""
    if argv is not None:
        return _main(argv)
    from avatar.sysmem import bound_onednn_cache, limit_arenas

    bound_onednn_cache()  # before any model runs: see avatar/sysmem.py
    if "MALLOC_ARENA_MAX" not in os.environ:  # before any thread: see avatar/sysmem.py
        limit_arenas(2)
    terminate.install()  # SIGTERM closes what the command started, as Ctrl-C does
    code = _main(sys.argv[1:])
    terminate.restore()
    _exit_cleanly(code)
    return code


# A Python thread still inside a native call (CTranslate2's Whisper, onnxruntime's piper) when the
# interpreter tears down aborts the process after the command has finished: "terminate called without
# an active exception" (exit 134) or a segfault (139), although the command succeeded. Commands close
# what they started (VoiceLoop.close joins its threads); what is still running then gets a few seconds
# to end, and a call that never returns (a hung stage) is left behind by exiting without the teardown.
EXIT_WAIT_S = 10.0


def _exit_cleanly(code: int, wait_s: float = EXIT_WAIT_S) -> None:
    import threading

    from avatar.trace import now

    _stop_tqdm_monitor()
    deadline = now() + wait_s
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and thread.is_alive():
            thread.join(max(0.0, deadline - now()))
    left = [t.name for t in threading.enumerate() if t is not threading.current_thread() and t.is_alive()]
    if not left:
        return  # the normal exit: nothing native can be cut off mid-call
    logging.getLogger("avatar").warning("threads still running at exit (%s): exiting without the interpreter's "
                                        "teardown", ", ".join(left))
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)


def _stop_tqdm_monitor() -> None:
    """tqdm's monitor thread (started by the first progress bar some library shows: a soak saw one at
    turn 687) sleeps in a loop until told to stop: waiting for it would only hold the exit up."""
    tqdm = sys.modules.get("tqdm")
    monitor = getattr(getattr(tqdm, "tqdm", None), "monitor", None)
    if monitor is not None:
        try:
            monitor.exit()
        except Exception:  # an older or newer tqdm: the join below waits for it as for any thread
            pass


def _main(argv: list[str]) -> int:
    command = next((a for a in argv if a in COMMANDS), None)
    try:
        parser = build_parser(command)
        args = parser.parse_args(argv)
        _absolute_paths(args)
        if not args.command:
            parser.print_help()
            return 0
        from avatar import config

        cfg = config.load(args.config, args.set)
        logging.basicConfig(level=getattr(logging, cfg.general.log_level.upper()),
                            format="%(levelname)s %(name)s: %(message)s")
        code = int(importlib.import_module(COMMANDS[args.command][0]).run(args, cfg) or 0)
        return terminate.EXIT_CODE if terminate.received() else code  # a window that SIGTERM closed
    except AvatarError as exc:
        print(f"avatar: error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("avatar_dev"):
            return _internal_error(exc)
        print(f"avatar: error: `avatar {command}` needs the developer tools (benches, evaluations, "
              "training), which this kiosk install does not carry\n"
              "  hint: make install, or pip install -e ./tools in the project folder", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        return terminate.EXIT_CODE if isinstance(exc, terminate.Terminated) else 130
    except BrokenPipeError:  # `avatar ... | head`: the reader has gone, which is no error of ours
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (the interpreter flushes stdout at exit)
        except OSError:
            pass
        return 0
    except Exception as exc:
        return _internal_error(exc)


def _internal_error(exc: Exception) -> int:
    """A bug: one clear line for people, the traceback only when asked for."""
    if os.environ.get("AVATAR_TRACEBACK"):
        raise exc
    print(f"avatar: internal error: {type(exc).__name__}: {exc}\n"
          "  hint: rerun with AVATAR_TRACEBACK=1 for the details and report it", file=sys.stderr)
    return 1


# Folders and files typed on the command line mean the current folder, as in any shell command;
# paths in a settings file keep resolving against the project root (avatar.paths.resolve).
_PATH_OPTIONS = ("config", "knowledge", "model", "init", "pin_file")


def _absolute_paths(args: argparse.Namespace) -> None:
    for name in _PATH_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value:
            setattr(args, name, str(Path(value).expanduser().absolute()))


if __name__ == "__main__":
    sys.exit(main())
