"""`avatar` command line. Each command lives in avatar/commands/<name>.py with
`add_arguments(parser)` and `run(args, cfg) -> int`; only the chosen command's module is imported,
so `avatar --help` stays instant and a broken optional stage cannot break the others.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from pathlib import Path

from avatar.errors import AvatarError

COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("avatar.commands.run", "start the kiosk app (headless on files or sample questions without a display)"),
    "bench": ("avatar.commands.bench", "time the whole voice loop on WAV files fed at real-time pace"),
    "ask": ("avatar.commands.ask", "answer a typed question from the knowledge pack"),
    "soak": ("avatar.commands.soak", "endurance run: N turns of the whole voice loop; memory, threads, files, drift"),
    "bench-llm": ("avatar.commands.bench_llm", "decoder speed of the diffusion LM against one-token-per-step decoding"),
    "say": ("avatar.commands.say", "synthesize TEXT to a WAV file"),
    "transcribe": ("avatar.commands.transcribe", "transcribe a WAV file"),
    "models": ("avatar.commands.models", "list, verify and import models"),
    "doctor": ("avatar.commands.doctor", "check devices, models and display; say what falls back"),
    "train": ("avatar.commands.train", "train the embedded diffusion model"),
    "eval": ("avatar.commands.eval", "evaluate the answerer on held-out synthetic venues"),
    "report": ("avatar.commands.report", "turn a debug trace into per-stage percentiles and a plot"),
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
    argv = sys.argv[1:] if argv is None else argv
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
        return int(importlib.import_module(COMMANDS[args.command][0]).run(args, cfg) or 0)
    except AvatarError as exc:
        print(f"avatar: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug: one clear line for people, the traceback only when asked for
        if os.environ.get("AVATAR_TRACEBACK"):
            raise
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
