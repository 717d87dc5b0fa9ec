"""What `avatar run --kiosk` waits for at boot: the display, the microphone and the loudspeaker.

A kiosk started by systemd or the desktop autostart may come up before its display server or its
sound server. Playing the sample questions headless and exiting 0 would leave it dark for good
(Restart=on-failure never fires), so the kiosk says once per device what it is waiting for, polls,
and gives up after `kiosk.device_wait_s` with DeviceWaitExpired: a non-zero exit its supervisor
answers by starting it again (with the session's environment as it is by then).
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Callable, Mapping

from avatar.errors import DeviceError, DeviceWaitExpired
from avatar.trace import now

POLL_S = 1.0  # a PortAudio rescan costs ~50 ms here: once a second is ~5 % of a core while waiting
DEVICES = ("display", "microphone", "loudspeaker")
_KIND = {"microphone": "input", "loudspeaker": "output"}
_QT_PLATFORMS = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb", "wayland", "xcb")


def display_missing(env: Mapping[str, str] = os.environ) -> str | None:
    """Why no window can be shown yet, or None. Unlike `run.display_problem` it looks for the display
    server's socket, so a DISPLAY named before its X server is up counts as missing."""
    platform = env.get("QT_QPA_PLATFORM", "").split(":")[0]
    if platform in _QT_PLATFORMS and platform not in ("wayland", "xcb"):
        return None  # Qt draws without a display server
    if sys.platform in ("win32", "darwin"):
        return None
    wayland = env.get("WAYLAND_DISPLAY", "")
    if wayland and platform != "xcb":
        socket = Path(wayland) if wayland.startswith("/") else Path(env.get("XDG_RUNTIME_DIR", "/nonexistent")) / wayland
        if socket.exists():
            return None
        if not env.get("DISPLAY"):
            return f"no Wayland display yet (no socket {socket})"
    display = env.get("DISPLAY", "")
    if not display:
        return "no display (DISPLAY and WAYLAND_DISPLAY unset; a restart takes the session's environment)"
    host, _, rest = display.rpartition(":")
    if host not in ("", "unix"):
        return None  # a display on another host (or a forwarded one): only Qt can tell, so try it
    number = rest.split(".")[0]
    socket = Path("/tmp/.X11-unix") / f"X{number}"
    if number.isdigit() and not socket.exists():
        return f"no X server on DISPLAY={display} yet (no socket {socket})"
    return None


def audio_missing(cfg, rescan: bool = True) -> dict[str, str]:
    """{"microphone"|"loudspeaker": why} for each one that cannot be opened now. rescan: PortAudio
    lists its devices once, when it starts; a sound server that came up since is seen only after a
    new start (there is no stream open while the kiosk waits). A missing PortAudio library raises
    DeviceError: no wait makes it appear."""
    from avatar.audio.devices import import_sounddevice

    sd = import_sounddevice()
    if rescan and hasattr(sd, "_terminate") and hasattr(sd, "_initialize"):
        try:
            sd._terminate()
            sd._initialize()
        except Exception as exc:  # PortAudio could not start: no device at all
            return {name: f"the audio system does not start ({exc})" for name in _KIND}
    try:
        listed = len(sd.query_devices())
    except Exception:
        listed = 0
    if not listed:
        return {name: "no audio device at all (no sound card, and no sound server answering)" for name in _KIND}
    missing = {}
    for name, kind in _KIND.items():
        spec = cfg.audio.input_device if kind == "input" else cfg.audio.output_device
        device = int(spec) if isinstance(spec, str) and spec.isdigit() else (spec or None)
        try:
            if not sd.query_devices(device, kind=kind):
                missing[name] = f"no audio {kind} device"
        except Exception as exc:  # ValueError or PortAudioError: no such device, or no default one
            missing[name] = f"no audio {kind} device {device or '(system default)'}: {exc}"
    return missing


class DeviceWait:
    """Waits for the kiosk's devices until one deadline, `wait_s` after it was made (or renewed)."""

    def __init__(self, cfg, wait_s: float, env: Mapping[str, str] = os.environ,
                 say: Callable[[str], None] | None = None, sleep: Callable[[float], None] = time.sleep,
                 poll_s: float = POLL_S):
        self.cfg, self.wait_s, self.env, self.sleep, self.poll_s = cfg, float(wait_s), env, sleep, poll_s
        self.say = say or (lambda line: print(line, flush=True))
        self.deadline = now() + self.wait_s
        self.started = now()
        self.reported: set[str] = set()

    def renew(self) -> None:
        """A new deadline from now (the loop is built again after it ended: a microphone lost)."""
        self.deadline = now() + self.wait_s
        self.started = now()
        self.reported.clear()

    def missing(self, which=DEVICES) -> dict[str, str]:
        out: dict[str, str] = {}
        if "display" in which:
            problem = display_missing(self.env)
            if problem:
                out["display"] = problem
        if any(name in which for name in _KIND):
            out.update({k: v for k, v in audio_missing(self.cfg).items() if k in which})
        return out

    def report(self, which=DEVICES) -> dict[str, str]:
        """Say, once per device, what is missing now; returns it."""
        missing = self.missing(which)
        for name, why in missing.items():
            if name not in self.reported:
                self.reported.add(name)
                left = max(0.0, self.deadline - now())
                self.say(f"avatar: waiting for the {name}: {why} (at most {left:.0f} s more)")
        return missing

    def wait(self, which=DEVICES, on_missing: Callable[[str], None] | None = None,
             on_found: Callable[[str], None] | None = None) -> None:
        """Return once every device of `which` is there; DeviceWaitExpired at the deadline.
        on_missing / on_found: called with a device's name when it is first seen missing / when it comes."""
        missing = self.report(which)
        shown: set[str] = set()
        while True:
            for name in missing:
                if on_missing is not None and name not in shown:
                    shown.add(name)
                    on_missing(name)
            if not missing:
                return
            if now() >= self.deadline:
                details = "; ".join(f"{name}: {why}" for name, why in missing.items())
                raise DeviceWaitExpired(
                    f"no {' and no '.join(missing)} after {self.wait_s:.0f} s ({details})",
                    hint="connect it or start its server; the service (Restart=on-failure) or the autostart "
                         "script starts the kiosk again; kiosk.device_wait_s sets the wait")
            self.sleep(min(self.poll_s, max(0.0, self.deadline - now())))
            still = self.missing(which)
            for name in missing:
                if name not in still:
                    self.say(f"avatar: the {name} is there ({now() - self.started:.1f} s after the wait began)")
                    if on_found is not None and name in shown:
                        on_found(name)
            for name, why in still.items():
                if name not in self.reported:
                    self.reported.add(name)
                    self.say(f"avatar: waiting for the {name}: {why}")
            missing = still
