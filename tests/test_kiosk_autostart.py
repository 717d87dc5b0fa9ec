"""The autostart files in assets/kiosk/: a systemd user service that runs `avatar run --kiosk` and
restarts it on failure, and a desktop autostart entry whose launcher does the same, its output in a
kiosk.log rotated by size (avatar/rotating_log.py; docs/KIOSK.md)."""
import configparser
import os
import shlex
import shutil
import stat
import subprocess
import sys

import pytest

from avatar.paths import ROOT

KIOSK = ROOT / "assets" / "kiosk"


def _ini(path):
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # systemd and desktop keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return parser


def test_the_service_runs_avatar_run_and_restarts_on_failure():
    unit = _ini(KIOSK / "avatar-kiosk.service")
    service = unit["Service"]
    exec_start = shlex.split(service["ExecStart"])
    # --kiosk: a late display or sound server is waited for, then a non-zero exit (tests/test_kiosk_boot.py)
    assert exec_start[0].endswith("/.venv/bin/avatar") and exec_start[1:] == ["run", "--kiosk"]
    assert exec_start[0].startswith(service["WorkingDirectory"] + "/")  # the project's own venv
    assert service["Restart"] == "on-failure" and float(service["RestartSec"]) > 0
    assert "143" in service["SuccessExitStatus"].split()  # `systemctl stop`: SIGTERM, a clean exit 143
    assert service.get("Type", "simple") == "simple"
    assert unit["Install"]["WantedBy"] == "graphical-session.target"
    assert int(unit["Unit"]["StartLimitBurst"]) > 1


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze not installed")
def test_systemd_accepts_the_service(tmp_path):
    unit = tmp_path / "avatar-kiosk.service"
    shutil.copy(KIOSK / "avatar-kiosk.service", unit)
    try:
        out = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.skip("systemd-analyze did not answer")
    if "Failed to initialize manager" in out.stderr or "Failed to" in out.stderr and "manager" in out.stderr:
        pytest.skip(f"systemd-analyze cannot run here: {out.stderr.strip()}")
    # the only complaint allowed: this machine has no ~/avatar/.venv
    problems = [line for line in out.stderr.splitlines() if line.strip() and "is not executable" not in line]
    assert not problems, out.stderr


def test_the_desktop_entry_starts_the_launcher():
    entry = _ini(KIOSK / "avatar-kiosk.desktop")["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Terminal"] == "false"
    argv = _desktop_exec(entry["Exec"])
    assert argv[:2] == ["sh", "-c"] and argv[2] == "exec $HOME/avatar/assets/kiosk/avatar-kiosk.sh"
    launcher = KIOSK / "avatar-kiosk.sh"
    assert launcher.stat().st_mode & stat.S_IXUSR
    assert ".venv/bin/avatar run --kiosk" in launcher.read_text(encoding="utf-8")
    subprocess.run(["sh", "-n", str(launcher)], check=True)


def _desktop_exec(value: str) -> list[str]:
    """An Exec line split as the desktop entry spec says: the string's escapes (\\\\ -> \\) first, then
    arguments, double-quoted ones with \\" \\` \\$ \\\\ escaped."""
    value = value.replace("\\\\", "\\")
    argv, arg, quoted, i, started = [], "", False, 0, False
    while i < len(value):
        c = value[i]
        if quoted and c == "\\" and i + 1 < len(value) and value[i + 1] in '"`$\\':
            arg += value[i + 1]
            i += 2
            continue
        if c == '"':
            quoted, started = not quoted, True
        elif c == " " and not quoted:
            if started:
                argv.append(arg)
            arg, started = "", False
        else:
            arg, started = arg + c, True
        i += 1
    assert not quoted, f"unbalanced quotes in Exec: {value}"
    if started:
        argv.append(arg)
    return argv


def _fake_project(tmp_path, script: str):
    project = tmp_path / "avatar"
    (project / ".venv" / "bin").mkdir(parents=True)
    fake = project / ".venv" / "bin" / "avatar"
    fake.write_text("#!/bin/sh\n" + script)
    fake.chmod(0o755)
    python = project / ".venv" / "bin" / "python"  # the real interpreter: the launcher's log rotation is ours
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AVATAR_")}
    env.update(AVATAR_HOME=str(project), AVATAR_RESTART_S="0", XDG_STATE_HOME=str(tmp_path / "state"))
    return project, env


def test_the_launcher_restarts_a_failed_kiosk_and_stops_after_the_admin_exit(tmp_path):
    project, env = _fake_project(tmp_path, 'echo "$@" >> runs; [ "$(wc -l < runs)" -ge 3 ]\n')
    done = subprocess.run(["sh", str(KIOSK / "avatar-kiosk.sh")], env=env, cwd=tmp_path, timeout=30)
    assert done.returncode == 0
    # two failures, then a clean exit
    assert (project / "runs").read_text().splitlines() == ["run --kiosk"] * 3
    log = (tmp_path / "state" / "avatar" / "kiosk.log").read_text()
    assert log.count("starting it again") == 2


def test_the_launcher_gives_up_after_ten_failures_in_a_row(tmp_path):
    project, env = _fake_project(tmp_path, 'echo run >> runs; echo "avatar: error: no display" >&2; exit 2\n')
    done = subprocess.run(["sh", str(KIOSK / "avatar-kiosk.sh")], env=env, cwd=tmp_path, timeout=30)
    assert done.returncode == 1
    assert len((project / "runs").read_text().splitlines()) == 10
    log = (tmp_path / "state" / "avatar" / "kiosk.log").read_text()
    assert "no display" in log and "not starting it again" in log


def test_the_launcher_rotates_kiosk_log_while_the_kiosk_runs(tmp_path):
    """A kiosk that prints for weeks: kiosk.log is moved to kiosk.log.1 (and on) past general.log_max_kb,
    general.log_keep old files stay, no line is cut in two, and the status is the kiosk's."""
    line = "x" * 99  # 100 bytes with its newline
    project, env = _fake_project(tmp_path, f'i=0; while [ $i -lt 100 ]; do echo {line}; i=$((i+1)); done\n')
    env.update(AVATAR__GENERAL__LOG_MAX_KB="2", AVATAR__GENERAL__LOG_KEEP="3")
    done = subprocess.run(["sh", str(KIOSK / "avatar-kiosk.sh")], env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0
    logs = tmp_path / "state" / "avatar"
    names = sorted(p.name for p in logs.iterdir())
    assert names == ["kiosk.log", "kiosk.log.1", "kiosk.log.2", "kiosk.log.3"], names
    for p in logs.iterdir():
        text = p.read_text()
        assert p.stat().st_size <= 2048 + 100, (p.name, p.stat().st_size)
        assert all(entry == line for entry in text.splitlines()), p.name
    kept = sum(len(p.read_text().splitlines()) for p in logs.iterdir())
    assert 60 <= kept < 100  # 10 KB were written, 8 KB at most are kept: the oldest went


def test_the_launcher_passes_the_kiosks_failure_status_on(tmp_path):
    project, env = _fake_project(tmp_path, 'echo run >> runs; exit 3\n')
    env["AVATAR_RESTART_S"] = "0"
    done = subprocess.run(["sh", str(KIOSK / "avatar-kiosk.sh")], env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 1 and len((project / "runs").read_text().splitlines()) == 10


def test_a_settings_file_that_does_not_load_keeps_the_log_rotating_with_the_defaults(tmp_path):
    from avatar import rotating_log

    bad = tmp_path / "bad.toml"
    bad.write_text("[general\n")
    log = tmp_path / "kiosk.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AVATAR_")}
    env.update(AVATAR_CONFIG=str(bad), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "avatar.rotating_log", str(log), "--", "sh", "-c", "echo hello; exit 4"],
                          env=env, timeout=60)
    assert done.returncode == 4
    text = log.read_text()
    assert "settings not loaded" in text and f"{rotating_log.DEFAULT_MAX_KB} KB" in text and "hello" in text


def test_a_rotating_log_refuses_limits_that_keep_nothing(tmp_path):
    from avatar.rotating_log import RotatingLog

    with pytest.raises(ValueError, match="max_bytes >= 1 and keep >= 1"):
        RotatingLog(tmp_path / "x.log", 0, 3)
