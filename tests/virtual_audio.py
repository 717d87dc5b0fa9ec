"""Virtual audio devices for the device tests: a private PulseAudio with a null sink as the loudspeaker
and a virtual source as the microphone, set up (and torn down) by the test run itself.

What worked on the project's Debian image is in /work/shared/recipes/virtual-audio.md: PortAudio
(`libportaudio2`) reaches PulseAudio through ALSA's `pulse` device (`libasound2-plugins`).

Every step that cannot be done raises `Unavailable` with the reason, which the fixture turns into
the test's skip reason (never a pass).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

PACKAGES = ("pulseaudio", "pulseaudio-utils", "libasound2-plugins", "libportaudio2")
RATE = 48000  # the devices' own rate: the app's 16 kHz streams go through PulseAudio's resampler


class Unavailable(Exception):
    """Virtual devices cannot be set up here; the message says why (the skip reason)."""


def _tail(text: str, lines: int = 4) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:])


def missing_packages(packages=PACKAGES) -> list[str]:
    """Debian packages of `packages` not installed (dpkg -s)."""
    if shutil.which("dpkg") is None:
        raise Unavailable("not a Debian system (no dpkg): install PulseAudio, pactl/paplay/parec, the ALSA "
                          "pulse plugin and PortAudio by hand")
    return [p for p in packages if not installed(p)]


def installed(package: str) -> bool:
    result = subprocess.run(["dpkg", "-s", package], capture_output=True, text=True)
    return result.returncode == 0 and "Status: install ok installed" in result.stdout


def ensure_packages(packages=PACKAGES, timeout_s: float = 600) -> list[str]:
    """Install the missing packages with apt-get (as root only); returns what was installed."""
    missing = missing_packages(packages)
    if not missing:
        return []
    command = "apt-get install -y --no-install-recommends " + " ".join(missing)
    if os.geteuid() != 0:
        raise Unavailable(f"packages missing and not root, so apt-get is impossible: {command}")
    if shutil.which("apt-get") is None:
        raise Unavailable(f"packages missing and no apt-get: {' '.join(missing)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing]
    result = subprocess.run(install, capture_output=True, text=True, env=env, timeout=timeout_s)
    if result.returncode != 0:  # stale or absent package lists: refresh once and try again
        update = subprocess.run(["apt-get", "update", "-q"], capture_output=True, text=True, env=env,
                                timeout=timeout_s)
        if update.returncode != 0:
            raise Unavailable(f"apt-get update failed ({_tail(update.stderr or update.stdout)}), so `{command}` "
                              "is impossible here")
        result = subprocess.run(install, capture_output=True, text=True, env=env, timeout=timeout_s)
    if result.returncode != 0:
        raise Unavailable(f"`{command}` failed: {_tail(result.stderr or result.stdout)}")
    still = missing_packages(packages)
    if still:
        raise Unavailable(f"apt-get ran but {' '.join(still)} is still not installed")
    return missing


class PulseServer:
    """A private PulseAudio daemon (its own runtime folder and socket) with virtual devices."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="avatar-pulse-"))
        os.chmod(self.dir, 0o700)
        self.runtime = self.dir / "runtime"
        self.runtime.mkdir(mode=0o700)
        self.home = self.dir / "home"
        self.home.mkdir(mode=0o700)
        self.socket = self.runtime / "pulse" / "native"
        self.env = {**os.environ, "XDG_RUNTIME_DIR": str(self.runtime), "HOME": str(self.home),
                    "PULSE_RUNTIME_PATH": str(self.runtime / "pulse"), "PULSE_SERVER": f"unix:{self.socket}"}
        self.env.pop("PULSE_SINK", None)
        self.env.pop("PULSE_SOURCE", None)
        self.pid: int | None = None
        self.log = self.dir / "pulseaudio.log"

    # -- the daemon ----------------------------------------------------------------------------
    def start(self, timeout_s: float = 10.0) -> None:
        if shutil.which("pulseaudio") is None:
            raise Unavailable("no `pulseaudio` binary although the package is installed")
        # -n: none of the system's default.pa (no hardware detection, no suspend-on-idle that would
        # cut the start of each sound); only the socket, the test loads its devices with pactl
        command = ["pulseaudio", "-D", "--exit-idle-time=-1", "--disallow-exit", "-n",
                   "--load=module-native-protocol-unix", "--log-target=file:" + str(self.log), "--log-level=notice"]
        result = subprocess.run(command, capture_output=True, text=True, env=self.env, timeout=timeout_s)
        if result.returncode != 0:
            raise Unavailable(f"`{' '.join(command[:4])}` failed (exit {result.returncode}): "
                              f"{_tail(result.stderr)} {_tail(self._log_text())}")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.pactl("info", check=False).returncode == 0:
                self.pid = self._read_pid()
                return
            time.sleep(0.1)
        raise Unavailable(f"PulseAudio started but its socket {self.socket} never answered: {_tail(self._log_text())}")

    def _read_pid(self) -> int | None:
        try:
            return int((self.runtime / "pulse" / "pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def _log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        pid = self.pid or self._read_pid()
        if pid:
            try:
                os.kill(pid, signal.SIGTERM)
                for _ in range(50):
                    os.kill(pid, 0)
                    time.sleep(0.05)
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.pid = None
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- the tools -----------------------------------------------------------------------------
    def pactl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run(["pactl", *args], capture_output=True, text=True, env=self.env, timeout=10)
        if check and result.returncode != 0:
            raise Unavailable(f"`pactl {' '.join(args)}` failed: {_tail(result.stderr)}")
        return result

    def load(self, module: str, **args) -> int:
        result = self.pactl("load-module", module, *(f"{k}={v}" for k, v in args.items()))
        return int(result.stdout.strip())

    def unload(self, index: int) -> None:
        self.pactl("unload-module", str(index), check=False)

    def play(self, wav: str | Path, sink: str) -> subprocess.Popen:
        """paplay the file into `sink` (returns at once; wait() on the process for its end)."""
        return subprocess.Popen(["paplay", f"--device={sink}", str(wav)], env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def record(self, source: str, path: str | Path) -> "Recorder":
        return Recorder(self, source, Path(path))


class Recorder:
    """parec from a source (a sink's monitor: what the loudspeaker played) into raw 16 kHz mono s16le."""

    RATE = 16000

    def __init__(self, server: PulseServer, source: str, path: Path) -> None:
        self.path = path
        self._file = open(path, "wb")
        self.started = time.monotonic()
        self._proc = subprocess.Popen(["parec", f"--device={source}", f"--rate={self.RATE}", "--channels=1",
                                       "--format=s16le", "--latency-msec=20"], env=server.env,
                                      stdout=self._file, stderr=subprocess.PIPE)

    def stop(self):
        """Stop recording; the samples as an int16 array."""
        import numpy as np

        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._file.close()
        return np.frombuffer(self.path.read_bytes(), dtype="<i2").astype(np.int16)
