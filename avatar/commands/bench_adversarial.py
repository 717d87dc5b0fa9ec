"""`avatar bench-adversarial [--n N]`: checked vs unchecked answers on questions built to mislead
(tools/avatar_dev/bench/adversarial.py; `avatar eval --adversarial N` runs it next to the model's evaluation)."""
from __future__ import annotations

import json
from pathlib import Path


def add_arguments(p) -> None:
    p.add_argument("--n", type=int, default=200, help="cases (near-miss numbers, absent facts, mixed, misheard)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--answerer", choices=("diffusion", "retrieval"), default="diffusion")
    p.add_argument("--json", metavar="FILE", help="write the report and every scored reply here")


def run(args, cfg) -> int:
    from avatar_dev.bench.adversarial import answerer_factory, format_report, run_adversarial_eval

    result = run_adversarial_eval(answerer_factory(cfg, args.answerer), args.n, args.seed)
    print(format_report(result))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1, ensure_ascii=False))
    return 0
