#!/bin/sh
# The kiosk under a desktop autostart entry (avatar-kiosk.desktop), for sessions without systemd's
# graphical-session.target. Like the service's Restart=on-failure: a failed run starts again after
# 5 s (at most 10 times in a row), leaving through the admin PIN (exit 0) ends it. `--kiosk`: a
# display or sound device late at boot is waited for (kiosk.device_wait_s), not replaced by the demo.
# Output goes to ~/.local/state/avatar/kiosk.log, rotated by avatar/rotating_log.py (general.log_max_kb,
# general.log_keep). AVATAR_HOME: the project folder (default: the one holding this script);
# AVATAR_RESTART_S: the pause before a new start (default 5).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "${AVATAR_HOME:-$here}" || exit 1
log_dir="${XDG_STATE_HOME:-$HOME/.local/state}/avatar"
mkdir -p "$log_dir"
n=0
until .venv/bin/python -m avatar.rotating_log "$log_dir/kiosk.log" -- .venv/bin/avatar run --kiosk "$@"; do
    n=$((n + 1))
    if [ "$n" -ge 10 ]; then
        echo "avatar-kiosk: the kiosk failed 10 times in a row; not starting it again" >>"$log_dir/kiosk.log"
        exit 1
    fi
    echo "avatar-kiosk: the kiosk failed ($n of 10), starting it again in ${AVATAR_RESTART_S:-5} s" >>"$log_dir/kiosk.log"
    sleep "${AVATAR_RESTART_S:-5}"
done
