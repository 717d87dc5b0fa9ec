"""A log file that rotates by size, and a command's output written into one.

The desktop autostart (assets/kiosk/avatar-kiosk.sh) runs the kiosk for weeks with its output in
~/.local/state/avatar/kiosk.log: `python -m avatar.rotating_log LOG -- COMMAND...` runs COMMAND, writes
everything it prints (the native libraries' lines too: it reads the process's stdout and stderr) into
LOG, moves LOG to LOG.1 (LOG.1 to LOG.2, ...) once it is past `general.log_max_kb`, keeps
`general.log_keep` old files, passes SIGTERM/SIGINT/SIGHUP on, and exits with COMMAND's status.
(The systemd service logs to the journal, which journald rotates itself.)
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

DEFAULT_MAX_KB, DEFAULT_KEEP = 1024, 5  # what avatar/defaults.toml says, for a settings file that fails to load


class RotatingLog:
    """Appends bytes to `path`; past `max_bytes` the file becomes path.1 and the older ones move up
    (path.keep is the oldest kept). Files are cut at line ends."""

    def __init__(self, path: str | os.PathLike, max_bytes: int, keep: int):
        if max_bytes < 1 or keep < 1:
            raise ValueError(f"a rotating log needs max_bytes >= 1 and keep >= 1, got {max_bytes}, {keep}")
        self.path, self.max_bytes, self.keep = Path(path), int(max_bytes), int(keep)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "ab")
        if self._file.tell() >= self.max_bytes:  # left big by an earlier run or an older launcher
            self.rotate()

    def write(self, data: bytes) -> None:
        while data:
            room = self.max_bytes - self._file.tell()
            if len(data) < room:
                self._file.write(data)
                break
            cut = data.rfind(b"\n", 0, room) + 1  # the lines that fit; a line is not split over two files
            if cut == 0:
                if self._file.tell() > 0:
                    self.rotate()
                    continue
                cut = data.find(b"\n") + 1 or len(data)  # one line longer than the limit: it goes whole
            self._file.write(data[:cut])
            data = data[cut:]
            self.rotate()
        self._file.flush()

    def rotate(self) -> None:
        self._file.close()
        oldest = self.path.with_name(f"{self.path.name}.{self.keep}")
        oldest.unlink(missing_ok=True)
        for n in range(self.keep - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{n}")
            if older.exists():
                older.rename(self.path.with_name(f"{self.path.name}.{n + 1}"))
        if self.path.exists():
            self.path.rename(self.path.with_name(f"{self.path.name}.1"))
        self._file = open(self.path, "ab")

    def close(self) -> None:
        self._file.close()


def _limits() -> tuple[int, int, str | None]:
    """(max bytes, files kept, why the defaults are used) from the settings (AVATAR_CONFIG, AVATAR__...)."""
    from avatar import config
    from avatar.errors import ConfigError

    try:
        cfg = config.load()
    except ConfigError as exc:
        return DEFAULT_MAX_KB * 1024, DEFAULT_KEEP, f"settings not loaded ({exc.message}): the log keeps " \
                                                     f"{DEFAULT_KEEP} files of {DEFAULT_MAX_KB} KB"
    return int(cfg.general.log_max_kb) * 1024, int(cfg.general.log_keep), None


def run_into(log: RotatingLog, command: list[str]) -> int:
    """Run `command` with its output in `log`; its exit status (128 + N for a signal N, as a shell says)."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def forward(signum, _frame):
        if proc.poll() is None:
            proc.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    try:
        assert proc.stdout is not None
        while True:
            chunk = proc.stdout.read1(65536)
            if not chunk:
                break
            log.write(chunk)
        code = proc.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    return code if code >= 0 else 128 - code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m avatar.rotating_log",
                                     description="run COMMAND with its output in LOG, rotated by size")
    parser.add_argument("log", metavar="LOG")
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND ...")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no COMMAND given (LOG -- COMMAND ...)")
    max_bytes, keep, why = _limits()
    log = RotatingLog(args.log, max_bytes, keep)
    try:
        if why:
            log.write(f"avatar-kiosk: {why}\n".encode())
        try:
            return run_into(log, command)
        except OSError as exc:
            log.write(f"avatar-kiosk: cannot start {command[0]}: {exc}\n".encode())
            return 127
    finally:
        log.close()


if __name__ == "__main__":
    sys.exit(main())
