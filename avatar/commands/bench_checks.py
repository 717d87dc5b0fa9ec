"""`avatar bench-checks [--json] [--repeat N]`: the cost of each answer check on crafted replies,
no model (tools/avatar_dev/bench/checks_cost.py)."""
from __future__ import annotations

import json


def add_arguments(p) -> None:
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--repeat", type=int, default=200, help="calls per check (the median is reported)")


def run(args, cfg) -> int:
    from avatar_dev.bench.checks_cost import format_table, measure

    result = measure(args.repeat)
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0
