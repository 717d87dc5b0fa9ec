#!/bin/sh
# The kiosk under a desktop autostart entry (avatar-kiosk.desktop), for sessions without systemd's
# graphical-session.target. Like the service's Restart=on-failure: a failed run starts again after
# 5 s (at most 10 times in a row), leaving through the admin PIN (exit 0) ends it. Output is
# appended to ~/.local/state/avatar/kiosk.log. AVATAR_HOME: the project folder (default: the one
# holding this script); AVATAR_RESTART_S: the pause before a new start (default 5).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "${AVATAR_HOME:-$here}" || exit 1
log_dir="${XDG_STATE_HOME:-$HOME/.local/state}/avatar"
mkdir -p "$log_dir"
n=0
until .venv/bin/avatar run "$@" >>"$log_dir/kiosk.log" 2>&1; do
    n=$((n + 1))
    if [ "$n" -ge 10 ]; then
        echo "avatar-kiosk: the kiosk failed 10 times in a row; not starting it again" >>"$log_dir/kiosk.log"
        exit 1
    fi
    echo "avatar-kiosk: the kiosk failed ($n of 10), starting it again in ${AVATAR_RESTART_S:-5} s" >>"$log_dir/kiosk.log"
    sleep "${AVATAR_RESTART_S:-5}"
done
