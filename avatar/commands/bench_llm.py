"""`avatar bench-llm`: decoder speed, threshold decoding against one token per step, cache on/off.

All four settings decode the same prompts with the same model in one run, interleaved, so the
ratios are fair on a shared, noisy machine. Reported per setting (medians over prompts and
repeats): tokens/s, tokens per forward pass, first committed block ms, reply ms.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import replace
from pathlib import Path

from avatar.errors import ConfigError

# (facts, question): kiosk-like prompts in both languages
PROMPTS = [  # three retrieved facts each, as the answerer's default top_k gives
    (["Das Museum ist täglich von 9 bis 18 Uhr geöffnet.", "Montags ist das Museum geschlossen.",
      "Der Eintritt kostet 12 Euro."], "Wann hat das Museum geöffnet?"),
    (["The museum is open daily from 9 am to 6 pm.", "The museum is closed on Mondays.",
      "Admission is 12 euros."], "When is the museum open?"),
    (["Der Eintritt kostet 12 Euro, ermäßigt 8 Euro.", "Kinder unter 6 Jahren haben freien Eintritt.",
      "Das Café ist im ersten Stock."], "Was kostet der Eintritt?"),
    (["The cloakroom is on the ground floor, left of the entrance.", "The café is on the first floor.",
      "The shop is next to the exit."], "Where is the cloakroom?"),
    (["Die Toiletten sind im Untergeschoss neben dem Aufzug.", "Der Aufzug ist hinter der Kasse.",
      "Das Museum ist täglich von 9 bis 18 Uhr geöffnet."], "Wo sind die Toiletten?"),
    (["The shop closes at 5:30 pm.", "The museum is open daily from 9 am to 6 pm.",
      "The café serves lunch from 12 to 2 pm."], "When does the shop close?"),
]


def add_arguments(parser) -> None:
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
    from avatar.llm.engine import DecodeOptions
    from avatar.llm.loader import load_model

    lm = load_model(args.model or cfg.llm.model, family=args.family or cfg.llm.family or None,
                    device=cfg.llm.device, threads=cfg.llm.threads, dtype=cfg.llm.dtype)
    base = DecodeOptions.from_config(cfg.llm, repetition_guard=not args.no_guard)
    if base.steps_per_block > 0:
        raise ConfigError("bench-llm compares threshold decoding with one token per step: set llm.steps_per_block = 0")
    options = {"threshold+cache": replace(base, prompt_cache=True),
               "threshold": replace(base, prompt_cache=False),
               "one-per-step+cache": replace(base.one_per_step, prompt_cache=True),
               "one-per-step": replace(base.one_per_step, prompt_cache=False)}
    for t in (float(v) for v in args.sweep.split(",") if v.strip()):
        options[f"threshold={t:g}+cache"] = replace(base, threshold=t, prompt_cache=True)
    prompts = [_prompt(lm, facts, question) for facts, question in PROMPTS[:max(1, args.prompts)]]
    lm.generate(prompts[0], options["threshold+cache"])  # warm-up: first-call allocations are not the decoder's speed
    runs: dict[str, list] = {name: [] for name in options}
    texts: dict[str, list[str]] = {name: [] for name in options}
    for p, prompt in enumerate(prompts):
        for r in range(args.repeats):
            for name in options:  # interleaved, so machine noise hits every setting alike
                result = lm.generate(prompt, options[name])
                runs[name].append(result)
                if r == 0:
                    texts[name].append(result.text)
    report = {
        "model": str(lm.path), "family": lm.family.name, "device": str(lm.device), "threads": cfg.llm.threads,
        "cache_kind": lm.forward.cache_kind, "prompts": len(prompts), "repeats": args.repeats,
        "prompt_tokens": statistics.median(len(p) for p in prompts),
        "options": {"gen_length": base.gen_length, "block_length": base.block_length,
                    "threshold": base.threshold, "confidence": base.confidence},
        "settings": {name: _summary(results) for name, results in runs.items()},
    }
    s = report["settings"]
    report["speedup_threshold_vs_one_per_step"] = _ratio(s["one-per-step+cache"]["ms"], s["threshold+cache"]["ms"])
    report["cache_speedup_threshold"] = _ratio(s["threshold"]["ms"], s["threshold+cache"]["ms"])
    report["cache_speedup_one_per_step"] = _ratio(s["one-per-step"]["ms"], s["one-per-step+cache"]["ms"])
    report["same_text_vs_one_per_step"] = {
        name: sum(a == b for a, b in zip(texts[name], texts["one-per-step+cache"])) / len(prompts)
        for name in options if name.startswith("threshold") and name.endswith("+cache")}
    report["same_text_cache_vs_no_cache"] = sum(
        a == b for a, b in zip(texts["threshold+cache"], texts["threshold"])) / len(prompts)
    report["examples"] = [{"prompt": q, "reply": t} for (_, q), t in zip(PROMPTS, texts["threshold+cache"])][:3]
    _print(report)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


def _prompt(lm, facts: list[str], question: str) -> list[int]:
    if lm.family.name == "avatar-mdlm":  # the answerer's own prompt layout
        from avatar.answer.prompt import PromptCodec

        return PromptCodec(lm.tokenizer.backend_tokenizer).prompt_ids(facts, [], question)
    return lm.chat_prompt(question, system=" ".join(facts))


def _summary(results: list) -> dict:
    med = lambda xs: round(statistics.median(xs), 3) if xs else None
    return {
        "tokens_per_s": med([r.tokens / (r.ms / 1000.0) for r in results if r.ms > 0]),
        "tokens_per_step": med([r.tokens_per_step for r in results]),
        "first_block_ms": med([r.first_block_ms for r in results if r.first_block_ms is not None]),
        "ms": med([r.ms for r in results]),
        "steps": med([r.steps for r in results]),
        "tokens": med([r.tokens for r in results]),
        "cache": results[0].cache if results else "none",
    }


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a and b else None


def _print(report: dict) -> None:
    print(f"model {report['model']} ({report['family']}, {report['device']}, cache {report['cache_kind']}), "
          f"{report['prompts']} prompts (median {report['prompt_tokens']} tokens) x {report['repeats']} repeats, medians:")
    print(f"{'setting':<20}{'tok/s':>9}{'tok/step':>10}{'1st block ms':>14}{'reply ms':>10}{'steps':>7}{'tokens':>8}")
    for name, s in report["settings"].items():
        print(f"{name:<20}{s['tokens_per_s']:>9.1f}{s['tokens_per_step']:>10.2f}{s['first_block_ms']:>14.1f}"
              f"{s['ms']:>10.1f}{s['steps']:>7.0f}{s['tokens']:>8.0f}")
    print(f"threshold vs one-per-step: {report['speedup_threshold_vs_one_per_step']}x faster, "
          f"same text {report['same_text_vs_one_per_step']['threshold+cache']:.0%}; prompt cache: "
          f"{report['cache_speedup_threshold']}x (threshold), {report['cache_speedup_one_per_step']}x (one per step)")
