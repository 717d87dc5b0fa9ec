"""`avatar bench-ui [--size WxH]`: what the kiosk window costs to paint and to feed with events,
offscreen, no models (tools/avatar_dev/bench/ui.py)."""
from __future__ import annotations


def add_arguments(p) -> None:
    p.add_argument("--size", default="1280x800", help="window size, WIDTHxHEIGHT")
    p.add_argument("--frames", type=int, default=120, help="animation frames to paint")
    p.add_argument("--events", type=int, default=300, help="events sent from a worker thread")


def run(args, cfg) -> int:
    from avatar_dev.bench.ui import measure

    measure(cfg, args.size, args.frames, args.events)
    return 0
