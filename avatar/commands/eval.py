"""`avatar eval`: the embedded model on held-out synthetic venues, threshold vs one-token-per-step decoding."""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path


def add_arguments(parser) -> None:
    parser.add_argument("--json", metavar="FILE", help="write the reports and every scored reply here")
    parser.add_argument("--n", type=int, default=200, help="held-out questions (half German, half English)")
    parser.add_argument("--model", help="model folder (default: llm.model)")
    parser.add_argument("--seed", type=int, default=1, help="which held-out venues")
    parser.add_argument("--no-baseline", action="store_true", help="skip one-token-per-step decoding")
    parser.add_argument("--pack", action="store_true",
                        help="also ask the diffusion answerer 20 questions about the sample venue, checks off and on")
    parser.add_argument("--packs", metavar="DIR",
                        help="evaluate on hand-written knowledge packs instead (evals/packs/dev or .../test; "
                             "venue.toml + questions.toml each), the retrieval-only answerer side by side")
    parser.add_argument("--adversarial", type=int, default=0, metavar="N",
                        help="also run N adversarial cases (near-miss numbers, absent facts, mixed facts, misheard words), "
                             "checked vs unchecked side by side")
    parser.add_argument("--vs-ar", metavar="AR_DIR",
                        help="the diffusion model (--model) against this autoregressive twin, side by side: "
                             "--n held-out questions, the --vs-packs packs, --adversarial cases; checks off, on, and "
                             "under each --budget-ms")
    parser.add_argument("--vs-packs", default="evals/packs/dev,evals/packs/test", metavar="DIRS",
                        help="with --vs-ar: comma-separated pack roots ('' = none)")
    parser.add_argument("--per-pack", type=int, default=0, metavar="K", help="with --vs-ar: the first K questions of each pack (0 = all)")
    parser.add_argument("--budget-ms", default="80", metavar="MS",
                        help="with --vs-ar: comma-separated total answer budgets for the budget-matched comparison")
    parser.add_argument("--clock", default="cpu", choices=["cpu", "wall"],
                        help="with --vs-ar: what every timing counts (cpu: this thread's CPU time, the cost on a free core)")
    parser.add_argument("--reference", metavar="MODEL_DIR", help="with --vs-ar: a third model side by side (e.g. models/avatar-mdlm)")


def run(args, cfg) -> int:
    if args.vs_ar:
        return _run_vs_ar(args, cfg)
    from avatar.llm.e5_reader import is_reader_folder
    from avatar.llm.loader import load_configured
    from avatar.paths import resolve
    from avatar_dev.train.evaluate import options_for, run_eval

    if args.model:
        cfg = cfg.with_overrides({"llm.model": args.model})
    if is_reader_folder(resolve(cfg.llm.model)):  # the e5 reader: evaluated on packs only
        if not args.packs:
            print("avatar eval: the reader model is evaluated on packs: add --packs evals/packs/dev")
            return 2
        return _run_packs(args, cfg, None)
    lm = load_configured(cfg.llm, args.model, family=None)
    if args.packs:
        return _run_packs(args, cfg, lm)
    result = run_eval(lm, args.n, options_for(cfg, lm), seed=args.seed, baseline=not args.no_baseline)
    cols = ("right_fact", "in_language", "declined_unanswerable", "false_declines", "unsupported", "well_formed",
            "median_ms", "p95_ms", "tokens_per_step")
    print(f"{'decoding':<14}" + "".join(f"{c:>22}" for c in cols))
    for r in result["reports"]:
        print(f"{r.decoding:<14}" + "".join(f"{getattr(r, c):>22}" for c in cols))
    pack_results = {}
    if args.pack:
        from avatar.answer import load_knowledge
        from avatar.answer.diffusion_answerer import DiffusionAnswerer
        from avatar.trace import Tracer
        from avatar_dev.train.evaluate import sample_pack_eval

        for checked in (False, True):
            c = cfg.with_overrides({"checks.enabled": checked})
            res = sample_pack_eval(DiffusionAnswerer(c, load_knowledge(c), Tracer(), lm=lm))
            pack_results["checked" if checked else "unchecked"] = res
            print(f"sample venue, checks {'on ' if checked else 'off'}: right {res['right']:.2f} "
                  f"(from the model itself: {res['from_model']:.2f})")
    adversarial = {}
    if args.adversarial > 0:
        from avatar_dev.bench.adversarial import answerer_factory, format_report, run_adversarial_eval

        adversarial = run_adversarial_eval(answerer_factory(cfg), args.adversarial, seed=0)
        print(format_report(adversarial))
    if args.json:
        out = {"model": str(lm.path), "n": args.n, "seed": args.seed, "sample_venue": pack_results,
               "adversarial": {k: v for k, v in adversarial.items() if k != "rows"},
               "reports": [asdict(r) for r in result["reports"]],
               "rows": {k: [asdict(x) for x in v] for k, v in result["rows"].items()}}
        Path(args.json).write_text(json.dumps(out, indent=1, ensure_ascii=False))
        print(f"wrote {args.json}")
    return 0


def _meaning(cfg) -> str:
    """Whether retrieval used meaning beside words in this run (it falls back to words alone)."""
    from avatar.answer.retrieval import semantic

    weight = float(cfg.answer.semantic_weight)
    if weight <= 0:
        return "words only (answer.semantic_weight = 0)"
    if semantic.shared_scorer() is None:
        return "words only (the semantic model did not load: see the log)"
    return f"words and meaning (multilingual-e5-small, answer.semantic_weight = {weight:g})"


def _run_packs(args, cfg, lm) -> int:
    from avatar.paths import resolve
    from avatar_dev.train.pack_eval import format_report, run_packs

    root = Path(args.packs) if Path(args.packs).is_absolute() or Path(args.packs).exists() else resolve(args.packs)
    result = run_packs(root, cfg, lm=lm)
    print(format_report(result["report"]))
    meaning = _meaning(cfg)
    print(f"facts found by: {meaning}")
    if args.json:
        Path(args.json).write_text(json.dumps({"model": str(lm.path) if lm is not None else cfg.llm.model, "packs": str(root), "retrieval": meaning,
                                               **result}, indent=1, ensure_ascii=False))
        print(f"wrote {args.json}")
    return 0


def _run_vs_ar(args, cfg) -> int:
    import sys

    from avatar.paths import resolve
    from avatar_dev.bench import vs_ar

    where = lambda p: Path(p) if Path(p).is_absolute() or Path(p).exists() else resolve(p)
    models = {"diffusion": where(args.model or cfg.llm.model), "ar": where(args.vs_ar)}
    if args.reference:
        models["reference"] = where(args.reference)
    cases = vs_ar.heldout_cases(args.n, args.seed) if args.n else []
    for root in filter(None, args.vs_packs.split(",")):
        cases += vs_ar.pack_cases(where(root), args.per_pack)
    if args.adversarial:
        cases += vs_ar.adversarial_cases(args.adversarial)
    budgets = tuple(float(b) for b in args.budget_ms.split(",") if b.strip())
    progress = lambda what, i, n: print(f"\r{what}: {i}/{n}", end="", file=sys.stderr, flush=True)
    result = vs_ar.run(models, cases, cfg, budgets, tables_from=resolve(cfg.llm.model), progress=progress,
                         clock=args.clock)
    print(file=sys.stderr)
    print(vs_ar.format_report(result))
    if args.json:
        Path(args.json).write_text(json.dumps({"command": " ".join(sys.argv), **result}, indent=1, ensure_ascii=False))
        print(f"wrote {args.json}")
    return 0
