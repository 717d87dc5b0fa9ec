"""`avatar soak --turns N [--json FILE] [--seed S] [--listen-s S]`: endurance run of the whole voice loop.

Drives the real pipeline headless (models loaded once, one VoiceLoop) for N turns of recorded
questions in both languages with room noise and echo, barge-ins, backchannels and bad input;
reports voice-to-voice drift, RSS over turns (slope over the second half), threads, open files,
trace spans held and errors; exits 1 when a bound is broken (tools/avatar_dev/bench/soak.py).
"""
from __future__ import annotations

import json
from pathlib import Path


def add_arguments(p) -> None:
    p.add_argument("--turns", type=int, default=100, help="turns to run (default 100; a full soak: 2000)")
    p.add_argument("--json", metavar="FILE", help="write the report (every turn, the trends, the verdict) here")
    p.add_argument("--seed", type=int, default=0, help="which visitors, clips and noise levels (reproducible)")
    p.add_argument("--listen-s", type=float, default=2.0,
                   help="seconds of each reply the visitor listens to before walking on (0 = the whole reply)")
    p.add_argument("--visit-turns", type=int, default=6, help="turns per visitor (then the visitor leaves)")
    p.add_argument("--room", default="office", help="simulated room of the echo path (office|lobby|hall|atrium)")
    p.add_argument("--max-rss-growth-pct", type=float, default=5.0,
                   help="bound: RSS growth from turn 200 (at most half the run) to the end (default 5)")
    p.add_argument("--max-drift-pct", type=float, default=10.0,
                   help="bound: voice-to-voice p95 of the last tenth over turns 10-30 %% (default 10)")
    p.add_argument("--max-errors", type=int, default=0, help="bound: stage errors, hung turns, logged errors")
    p.add_argument("--kinds", metavar="KIND[,KIND...]",
                   help="fix the turns' kinds, cycled: question, barge_in, backchannel, bad, bad:noise|silence|click|clipped|quiet"
                        " (default: a seeded mix, 15 %% barge-ins, 10 %% backchannels, 15 %% bad input)")
    p.add_argument("--max-minutes", type=float, metavar="M",
                   help="start no turn after M minutes (the report covers the turns done; Ctrl-C does the same)")
    p.add_argument("--tracemalloc", metavar="A,B",
                   help="dev probe: trace Python allocations from turn A and report what grew by turn B "
                        "(by line, by traceback, gc object types); slows the run: not a soak to quote")
    p.add_argument("--quiet", action="store_true", help="no line per turn")


def run(args, cfg) -> int:
    from avatar.errors import ConfigError
    from avatar_dev.bench.soak import Bounds, format_report, run_soak

    if args.turns < 1:
        raise ConfigError(f"--turns {args.turns} must be at least 1", hint="avatar soak --turns 100")
    if not 0 <= args.listen_s <= 60:
        raise ConfigError(f"--listen-s {args.listen_s:g} is out of range", hint="0 (whole reply) to 60 seconds")
    if args.visit_turns < 1:
        raise ConfigError(f"--visit-turns {args.visit_turns} must be at least 1")
    probe = None
    if args.tracemalloc:
        from avatar_dev.bench.soak_mem import MemProbe

        try:
            a, b = (int(v) for v in args.tracemalloc.split(","))
            probe = MemProbe(a, b)
        except ValueError:
            raise ConfigError(f"--tracemalloc {args.tracemalloc!r}: two turns A,B with 0 < A < B",
                              hint="avatar soak --turns 300 --tracemalloc 100,300") from None
    bounds = Bounds(rss_growth_pct=args.max_rss_growth_pct, latency_drift_pct=args.max_drift_pct,
                    errors=args.max_errors)
    report = run_soak(cfg, args.turns, seed=args.seed, listen_s=args.listen_s, visit_turns=args.visit_turns,
                      room_name=args.room, bounds=bounds,
                      kinds=[k.strip() for k in args.kinds.split(",") if k.strip()] if args.kinds else None,
                      probe=probe, max_minutes=args.max_minutes,
                      progress=(lambda msg: None) if args.quiet else (lambda msg: print(msg, flush=True)))
    print(format_report(report))
    if "tracemalloc" in report:
        from avatar_dev.bench.soak_mem import format_probe

        print(format_probe(report["tracemalloc"]))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=1, ensure_ascii=False))
        print(f"wrote {args.json}")
    return 0 if report["ok"] else 1
