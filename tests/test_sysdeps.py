"""System libraries (issue 13, item 7): `make run` installs PortAudio and Qt's xcb libraries when it
may, else says what is missing and how to install it; `avatar doctor` reports them; `avatar run` on
an X display without them gives a clear message instead of Qt's SIGABRT."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import subprocess  # noqa: E402

import pytest  # noqa: E402

from avatar import cli, config, sysdeps  # noqa: E402
from avatar.commands import doctor  # noqa: E402
from avatar.commands import run as run_cmd  # noqa: E402

ICCCM = next(lib for lib in sysdeps.QT_XCB if lib.package == "libxcb-icccm4")
KEYSYMS = next(lib for lib in sysdeps.QT_XCB if lib.package == "libxcb-keysyms1")


@pytest.fixture
def without(monkeypatch):
    """Pretend these libraries are not installed."""
    def absent(*libs):
        gone = set(libs)
        real = sysdeps.missing
        monkeypatch.setattr(sysdeps, "missing", lambda wanted=sysdeps.KIOSK: [
            lib for lib in wanted if lib in gone] + [lib for lib in real(wanted) if lib not in gone])
    return absent


def test_a_library_is_found_by_its_file_in_the_linker_folders(tmp_path, monkeypatch):
    (tmp_path / ICCCM.soname).write_bytes(b"")
    monkeypatch.setattr(sysdeps.ctypes.util, "find_library", lambda name: None)
    assert sysdeps.found(ICCCM, [str(tmp_path)])
    assert not sysdeps.found(KEYSYMS, [str(tmp_path)])
    monkeypatch.setattr(sysdeps, "_library_dirs", lambda: [str(tmp_path)])
    assert KEYSYMS in sysdeps.missing() and ICCCM not in sysdeps.missing()


def test_every_library_names_its_debian_package():
    assert {"libportaudio2", "libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"} <= set(sysdeps.packages(sysdeps.KIOSK))
    assert sysdeps.install_command([ICCCM, KEYSYMS]).endswith("apt-get install libxcb-icccm4 libxcb-keysyms1")


def test_display_problem_only_for_xcb_on_an_x_display(without):
    without(ICCCM)
    problem = sysdeps.display_problem({"DISPLAY": ":0"})
    assert ICCCM.soname in problem and "apt-get install libxcb-icccm4" in problem
    assert sysdeps.display_problem({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}) == problem
    assert sysdeps.display_problem({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}) is None
    assert sysdeps.display_problem({}) is None
    assert sysdeps.display_problem({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}) is None


def test_avatar_run_on_an_x_display_without_the_libraries_says_so_before_qt_starts(without, monkeypatch, capsys):
    without(ICCCM, KEYSYMS)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(run_cmd, "run_window", lambda *a: pytest.fail("Qt was started"))
    assert cli.main(["run", "--demo"]) != 0
    err = capsys.readouterr().err
    assert "libxcb-icccm.so.4" in err and "apt-get install libxcb-icccm4 libxcb-keysyms1" in err
    assert "--headless" in err


def test_doctor_reports_missing_xcb_libraries_and_portaudio_with_the_command(without, monkeypatch, tmp_path):
    without(ICCCM, *sysdeps.PORTAUDIO)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    cfg = config.load(sets=[f"llm.model={tmp_path / 'no-model'}"], env={})
    checks = {c.name: c for c in doctor.collect(cfg)}
    display, audio = checks["display"], checks["audio devices"]
    assert display.status == "missing" and ICCCM.soname in display.detail
    assert "apt-get install libxcb-icccm4" in display.hint
    assert audio.status == "missing" and "PortAudio" in audio.detail
    assert "apt-get install libportaudio2" in audio.hint
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")  # no X display in use: a fallback, not a failure
    assert {c.name: c for c in doctor.collect(cfg)}["display"].status == "fallback"


def test_ensure_without_permission_prints_what_is_missing_and_the_command(without, monkeypatch, capsys):
    without(ICCCM)
    monkeypatch.setattr(sysdeps, "_as_root_prefix", lambda: None)
    assert sysdeps.ensure(install=True) == 1
    out = capsys.readouterr().out
    assert "libxcb-icccm.so.4" in out and "libxcb-icccm4" in out
    assert "apt-get install libxcb-icccm4" in out


def test_ensure_as_root_installs_only_what_is_missing(monkeypatch, capsys):
    state = {"installed": False}
    monkeypatch.setattr(sysdeps, "missing", lambda libs=sysdeps.KIOSK: [] if state["installed"] else [KEYSYMS])
    monkeypatch.setattr(sysdeps, "_as_root_prefix", lambda: [])
    monkeypatch.setattr(sysdeps, "_installed_debian", lambda package: False)
    monkeypatch.setattr(sysdeps.shutil, "which", lambda name: f"/usr/bin/{name}")
    calls = []

    def fake_run(cmd, **kw):
        calls.append(cmd)
        state["installed"] = True
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(sysdeps.subprocess, "run", fake_run)
    assert sysdeps.ensure(install=True) == 0
    assert calls == [["apt-get", "install", "-y", "-q", "--no-install-recommends", "libxcb-keysyms1"]]
    assert "installing system packages: libxcb-keysyms1" in capsys.readouterr().out


def test_the_module_runs_with_the_system_python_before_the_venv_exists():
    """`make run` calls it with the venv's python, but it needs only the standard library."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(sysdeps.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"__future__", "argparse", "ctypes", "glob", "os", "shutil", "subprocess", "sys",
                        "sysconfig", "dataclasses"}
