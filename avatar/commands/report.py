"""`avatar report TRACE [--png OUT] [--turn N]`: per-stage percentiles of a debug trace and a plot."""
from __future__ import annotations

import json
from pathlib import Path

from avatar.errors import AudioFileError


def add_arguments(parser) -> None:
    parser.add_argument("trace", help="Chrome trace JSON written by `avatar run --debug` (or any Tracer export)")
    parser.add_argument("--png", metavar="OUT", help="write a waterfall + histogram plot to this PNG file")
    parser.add_argument("--turn", type=int, help="turn drawn in the waterfall (default: the slowest)")
    parser.add_argument("--json", action="store_true", help="print the percentiles as JSON instead of a table")


def run(args, cfg) -> int:
    from avatar.report import format_table, load_trace, merge_turn_metrics, plot_report, stage_stats, turns_from_spans

    path = Path(args.trace)
    try:
        spans, metrics = load_trace(path)
    except FileNotFoundError:
        raise AudioFileError(f"trace file not found: {path}",
                             hint=f"debug runs write traces into {cfg.general.trace_dir}/") from None
    except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise AudioFileError(f"{path} is not a Chrome trace file ({type(exc).__name__})",
                             hint="pass a file written by `avatar run --debug`") from None
    budgets = cfg.budget.as_dict()
    turns = merge_turn_metrics(turns_from_spans(spans), metrics)
    stats = stage_stats([t.stages for t in turns], budgets)
    if args.json:
        print(json.dumps({"turns": len(turns), "stages": {s.name: {"n": s.n, "p50": round(s.p50, 2),
                          "p95": round(s.p95, 2), "mean": round(s.mean, 2), "max": round(s.max, 2),
                          "budget": s.budget} for s in stats}}, indent=2))
    else:
        print(f"{path}: {len(turns)} turns, {len(spans)} spans")
        print(format_table(stats))
    if args.png:
        out = plot_report(turns, args.png, budgets, turn=args.turn, title=f"avatar report: {path.name}")
        print(f"plot: {out}")
    return 0
