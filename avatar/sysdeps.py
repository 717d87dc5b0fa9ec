"""The system libraries the kiosk needs beyond its Python packages: PortAudio (microphone and
loudspeaker) and the X11/xcb libraries of Qt's `xcb` platform plugin (the window on an X display).

Standard library only: `make run` runs this with the system Python before the virtual environment
exists (`python3 -m avatar.sysdeps --install`), `avatar doctor` reports it, and `avatar run` checks
it before creating the window (without these libraries Qt aborts the process with SIGABRT).

Libraries are found by their file name (soname) in the dynamic linker's folders; the Debian package
that ships each one is named, so the message can say the exact install command.
"""
from __future__ import annotations

import argparse
import ctypes.util
import glob
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass


@dataclass(frozen=True)
class Library:
    soname: str   # the file the dynamic linker looks for
    package: str  # the Debian package that ships it
    why: str


PORTAUDIO = (Library("libportaudio.so.2", "libportaudio2", "microphone and loudspeaker (sounddevice)"),)

# What Qt's xcb platform plugin (PySide6's libqxcb.so / libQt6XcbQpa.so.6) links against, beyond what
# any X desktop has; `ldd libQt6XcbQpa.so.6` on Debian 12. The first three are the ones a minimal
# Debian lacks most often (a missing one aborts `avatar run` on an X display).
QT_XCB = (
    Library("libxcb-cursor.so.0", "libxcb-cursor0", "Qt xcb: cursors"),
    Library("libxcb-icccm.so.4", "libxcb-icccm4", "Qt xcb: window manager hints"),
    Library("libxcb-keysyms.so.1", "libxcb-keysyms1", "Qt xcb: keyboard"),
    Library("libxcb-image.so.0", "libxcb-image0", "Qt xcb"),
    Library("libxcb-randr.so.0", "libxcb-randr0", "Qt xcb"),
    Library("libxcb-render-util.so.0", "libxcb-render-util0", "Qt xcb"),
    Library("libxcb-render.so.0", "libxcb-render0", "Qt xcb"),
    Library("libxcb-shape.so.0", "libxcb-shape0", "Qt xcb"),
    Library("libxcb-shm.so.0", "libxcb-shm0", "Qt xcb"),
    Library("libxcb-sync.so.1", "libxcb-sync1", "Qt xcb"),
    Library("libxcb-util.so.1", "libxcb-util1", "Qt xcb"),
    Library("libxcb-xfixes.so.0", "libxcb-xfixes0", "Qt xcb"),
    Library("libxcb-xkb.so.1", "libxcb-xkb1", "Qt xcb"),
    Library("libxcb.so.1", "libxcb1", "Qt xcb"),
    Library("libX11-xcb.so.1", "libx11-xcb1", "Qt xcb"),
    Library("libX11.so.6", "libx11-6", "Qt xcb"),
    Library("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "Qt xcb: keyboard"),
    Library("libxkbcommon.so.0", "libxkbcommon0", "Qt: keyboard"),
)
# Qt's GUI library itself (needed on every platform, offscreen included).
QT_GUI = (
    Library("libEGL.so.1", "libegl1", "Qt GUI"),
    Library("libGL.so.1", "libgl1", "Qt GUI"),
    Library("libfontconfig.so.1", "libfontconfig1", "Qt GUI: fonts"),
    Library("libdbus-1.so.3", "libdbus-1-3", "Qt GUI"),
    Library("libglib-2.0.so.0", "libglib2.0-0", "Qt GUI"),
)
KIOSK = PORTAUDIO + QT_XCB + QT_GUI


def _library_dirs() -> list[str]:
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    for base in ("/lib", "/usr/lib", "/usr/local/lib", "/lib64", "/usr/lib64"):
        if multiarch:
            dirs.append(f"{base}/{multiarch}")
        dirs.append(base)
    for conf in ["/etc/ld.so.conf", *sorted(glob.glob("/etc/ld.so.conf.d/*.conf"))]:
        try:
            with open(conf, encoding="utf-8", errors="replace") as f:
                dirs += [line.strip() for line in f if line.strip().startswith("/")]
        except OSError:
            continue
    return list(dict.fromkeys(dirs))


def found(lib: Library, dirs: list[str] | None = None) -> bool:
    """The library's file is where the dynamic linker looks (or ldconfig knows it)."""
    for d in dirs if dirs is not None else _library_dirs():
        if os.path.exists(os.path.join(d, lib.soname)):
            return True
    name = lib.soname[3:].split(".so")[0]  # libxcb-icccm.so.4 -> xcb-icccm
    return ctypes.util.find_library(name) == lib.soname


def missing(libs=KIOSK) -> list[Library]:
    if not sys.platform.startswith("linux"):
        return []  # wheels bring their own libraries elsewhere
    dirs = _library_dirs()
    return [lib for lib in libs if not found(lib, dirs)]


def packages(libs) -> list[str]:
    return list(dict.fromkeys(lib.package for lib in libs))


def install_command(libs) -> str:
    if not libs:
        return ""
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    return ("" if root else "sudo ") + "apt-get install " + " ".join(packages(libs))


def display_problem(env=os.environ) -> str | None:
    """Why Qt's xcb plugin would abort on this X display, or None (not xcb, or every library there)."""
    platform = env.get("QT_QPA_PLATFORM", "").split(":")[0]
    if platform not in ("", "xcb") or not env.get("DISPLAY"):
        return None
    if not platform and env.get("WAYLAND_DISPLAY"):
        return None  # Qt picks wayland first on a Wayland session
    absent = missing(QT_XCB + QT_GUI)
    if not absent:
        return None
    return (f"the window cannot open on X display {env.get('DISPLAY')}: Qt's xcb platform needs "
            f"{', '.join(lib.soname for lib in absent)}; install them with `{install_command(absent)}` "
            "(or run with --headless)")


# --- `make run`: install what is missing when allowed ------------------------------------------
def _installed_debian(package: str) -> bool:
    result = subprocess.run(["dpkg", "-s", package], capture_output=True, text=True)
    return result.returncode == 0 and "Status: install ok installed" in result.stdout


def _as_root_prefix() -> list[str] | None:
    """How to run apt-get as root without asking anyone: directly, or `sudo -n`; None if neither."""
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n"]
    return None


def ensure(libs=KIOSK, install: bool = True, out=None) -> int:
    """Check (and with install, apt-get install) the kiosk's system libraries. 0 when all are there."""
    out = out or sys.stdout
    absent = missing(libs)
    if not absent:
        return 0
    names = packages(absent)
    if shutil.which("dpkg") and shutil.which("apt-get"):
        names = [p for p in names if not _installed_debian(p)] or names
        prefix = _as_root_prefix() if install else None
        if prefix is not None:
            print(f"avatar: installing system packages: {' '.join(names)}", file=out, flush=True)
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            cmd = [*prefix, "apt-get", "install", "-y", "-q", "--no-install-recommends", *names]
            if subprocess.run(cmd, env=env).returncode != 0:  # stale package lists: refresh once
                subprocess.run([*prefix, "apt-get", "update", "-q"], env=env)
                subprocess.run(cmd, env=env)
            absent = missing(libs)
            if not absent:
                return 0
    print("avatar: missing system libraries:", file=out)
    for lib in absent:
        print(f"  {lib.soname:<26} ({lib.why}; Debian package {lib.package})", file=out)
    print(f"install them with: {install_command(absent)}", file=out)
    if not shutil.which("apt-get"):
        print("(not a Debian system: install the same libraries with your package manager)", file=out)
    print("the kiosk still starts: without PortAudio it answers WAV files only, without the Qt xcb "
          "libraries it runs headless (--headless)", file=out, flush=True)
    return 1


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m avatar.sysdeps", description=__doc__.splitlines()[0])
    p.add_argument("--install", action="store_true",
                   help="apt-get install what is missing (as root, or with sudo that asks no password)")
    args = p.parse_args(argv)
    return ensure(install=args.install)


if __name__ == "__main__":
    sys.exit(main())
