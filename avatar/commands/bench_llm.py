"""`avatar bench-llm`: decoder speed, threshold decoding against one token per step, cache on/off
(the measurement: tools/avatar_dev/bench/llm.py)."""
from __future__ import annotations

import json
from pathlib import Path


def add_arguments(parser) -> None:
    from avatar_dev.bench.llm import PROMPTS

    parser.add_argument("--model", help="model folder (default: llm.model, the embedded model)")
    parser.add_argument("--family", help="model family (default: llm.family, else detected)")
    parser.add_argument("--json", help="write the results to this JSON file")
    parser.add_argument("--repeats", type=int, default=3, help="decodes per prompt and setting")
    parser.add_argument("--prompts", type=int, default=len(PROMPTS), help="how many of the built-in prompts")
    parser.add_argument("--sweep", default="", metavar="T1,T2",
                        help="extra thresholds to decode with (cache on), e.g. 0.7,0.5")
    parser.add_argument("--no-guard", action="store_true", help="switch the repetition guard off (random models)")
    parser.add_argument("--make-random", metavar="DIR",
                        help="write a tiny random model to DIR (for tests and demos) and exit")
    parser.add_argument("--random-kind", default="modernbert", help="modernbert | bert | qwen2 | avatar-mdlm")


def run(args, cfg) -> int:
    if args.make_random:
        from avatar.llm.random_model import make_random_model

        folder = make_random_model(args.make_random, args.random_kind)
        print(f"wrote a tiny random {args.random_kind} model to {folder}")
        return 0
    from avatar_dev.bench.llm import print_report, run_llm_bench
    from avatar.llm.e5_reader import is_reader_folder
    from avatar.llm.engine import DecodeOptions
    from avatar.llm.loader import load_configured
    from avatar.paths import resolve

    if is_reader_folder(resolve(args.model or cfg.llm.model)):  # the e5 reader: its own decoder
        return _run_reader(args, cfg)

    lm = load_configured(cfg.llm, args.model, **({"family": args.family} if args.family else {}))
    base = DecodeOptions.from_config(cfg.llm, repetition_guard=not args.no_guard, max_ms=0.0)  # timed, never cut
    report = run_llm_bench(lm, base, threads=cfg.llm.threads, repeats=args.repeats, n_prompts=args.prompts,
                           sweep=_sweep(args))
    return _done(args, report, print_report)


def _run_reader(args, cfg) -> int:
    from avatar.answer.retrieval.semantic import model_file
    from avatar_dev.bench.llm import print_reader_report, run_reader_bench
    from avatar.llm.e5_reader import load_reader

    reader = load_reader(args.model or cfg.llm.model, model_file, threads=cfg.llm.threads)
    report = run_reader_bench(reader, repeats=args.repeats, n_prompts=args.prompts, threshold=cfg.llm.threshold,
                              sweep=_sweep(args))
    return _done(args, report, print_reader_report)


def _sweep(args) -> tuple[float, ...]:
    return tuple(float(v) for v in args.sweep.split(",") if v.strip())


def _done(args, report: dict, show) -> int:
    """Print the report and write it to --json."""
    show(report)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return 0
