"""What the soak samples after every turn (tools/avatar_dev/bench/soak.py): resident memory, the process's
threads (native ones included) and open file descriptors."""
from __future__ import annotations

import os
import threading


def rss_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except OSError:  # not Linux: the peak is the best the standard library knows
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def os_threads() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return threading.active_count()


def open_fds() -> int:
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(folder))
        except OSError:
            continue
    return -1
