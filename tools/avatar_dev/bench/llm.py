"""`avatar bench-llm` (avatar/commands/bench_llm.py): decoder speed, threshold decoding against one token per step, cache on/off.

All four settings decode the same prompts with the same model in one run, interleaved, so the
ratios are fair on a shared, noisy machine. Reported per setting (medians over prompts and
repeats): tokens/s, tokens per forward pass, first committed block ms, reply ms.
"""
from __future__ import annotations

import statistics
from dataclasses import replace

from avatar.errors import ConfigError
from avatar.stats import percentile

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


def run_llm_bench(lm, base, *, threads: int, repeats: int = 3, n_prompts: int = len(PROMPTS),
                  sweep: tuple[float, ...] = ()) -> dict:
    """Decode the built-in prompts with `base` (DecodeOptions, threshold decoding) in four settings
    and any extra thresholds, interleaved; a JSON-ready report (printed by `format_report`)."""
    if base.steps_per_block > 0:
        raise ConfigError("bench-llm compares threshold decoding with one token per step: set llm.steps_per_block = 0")
    options = {"threshold+cache": replace(base, prompt_cache=True),
               "threshold": replace(base, prompt_cache=False),
               "one-per-step+cache": replace(base.one_per_step, prompt_cache=True),
               "one-per-step": replace(base.one_per_step, prompt_cache=False)}
    for t in sweep:
        options[f"threshold={t:g}+cache"] = replace(base, threshold=t, prompt_cache=True)
    prompts = [_prompt(lm, facts, question) for facts, question in PROMPTS[:max(1, n_prompts)]]
    lm.generate(prompts[0], options["threshold+cache"])  # warm-up: first-call allocations are not the decoder's speed
    runs: dict[str, list] = {name: [] for name in options}
    texts: dict[str, list[str]] = {name: [] for name in options}
    for p, prompt in enumerate(prompts):
        for r in range(repeats):
            for name in options:  # interleaved, so machine noise hits every setting alike
                result = lm.generate(prompt, options[name])
                runs[name].append(result)
                if r == 0:
                    texts[name].append(result.text)
    report = {
        "model": str(lm.path), "family": lm.family.name, "device": str(lm.device), "backend": lm.backend, "threads": threads,
        "cache_kind": lm.forward.cache_kind, "prompts": len(prompts), "repeats": repeats,
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
    return report


def run_reader_bench(reader, *, repeats: int = 3, n_prompts: int = len(PROMPTS), threshold: float = 0.8,
                     sweep: tuple[float, ...] = ()) -> dict:
    """The e5 reader (avatar/llm/e5_reader.py) on the same prompts: threshold decoding with the facts'
    keys and values cached (the kiosk: a pack's facts are met again and again) and not cached, and one
    token per step; interleaved, medians over prompts and repeats."""
    settings = {"threshold, facts cached": (threshold, True), "threshold, facts new": (threshold, False),
                "one-per-step, facts cached": (2.0, True)}  # a threshold no probability reaches: one token a step
    for t in sweep:
        settings[f"threshold={t:g}, facts cached"] = (t, True)
    prompts = PROMPTS[:max(1, n_prompts)]
    reader.read(*prompts[0], threshold=threshold)  # warm-up
    runs: dict[str, list] = {name: [] for name in settings}
    texts: dict[str, list[str]] = {name: [] for name in settings}
    for facts, question in prompts:
        for r in range(repeats):
            for name, (t, cached) in settings.items():
                if cached:
                    reader.read(facts, question, threshold=t)  # the facts into the cache, not timed
                else:
                    reader.forget_facts()
                result = reader.read(facts, question, threshold=t)
                runs[name].append(result)
                if r == 0:
                    texts[name].append(result.text)
    med = lambda xs: round(statistics.median(xs), 2) if xs else None
    report = {"model": "e5 reader", "prompts": len(prompts), "repeats": repeats, "threshold": threshold,
              "settings": {name: {"ms": med([x.ms for x in rs]), "ms_p90": round(percentile([x.ms for x in rs], 90), 2),
                                  "facts_ms": med([x.fact_ms for x in rs]), "steps": med([x.steps for x in rs]),
                                  "tokens": med([len(x.ids) for x in rs]),
                                  "tokens_per_step": med([len(x.ids) / max(1, x.steps) for x in rs])}
                           for name, rs in runs.items()}}
    s = report["settings"]
    report["speedup_threshold_vs_one_per_step"] = _ratio(s["one-per-step, facts cached"]["ms"], s["threshold, facts cached"]["ms"])
    report["fact_cache_speedup"] = _ratio(s["threshold, facts new"]["ms"], s["threshold, facts cached"]["ms"])
    report["examples"] = [{"prompt": q, "reply": t} for (_, q), t in zip(prompts, texts["threshold, facts cached"])][:3]
    return report


def print_reader_report(report: dict) -> None:
    print(f"{report['model']}, {report['prompts']} prompts x {report['repeats']} repeats, medians:")
    print(f"{'setting':<30}{'reply ms':>10}{'p90':>9}{'facts ms':>10}{'steps':>7}{'tokens':>8}{'tok/step':>10}")
    for name, s in report["settings"].items():
        print(f"{name:<30}{s['ms']:>10.1f}{s['ms_p90']:>9.1f}{s['facts_ms']:>10.1f}{s['steps']:>7.0f}{s['tokens']:>8.0f}"
              f"{s['tokens_per_step']:>10.2f}")
    print(f"threshold vs one-per-step: {report['speedup_threshold_vs_one_per_step']}x; "
          f"facts cached vs new: {report['fact_cache_speedup']}x")


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


def print_report(report: dict) -> None:
    print(f"model {report['model']} ({report['family']}, {report['device']}, {report.get('backend', 'torch')}, cache {report['cache_kind']}), "
          f"{report['prompts']} prompts (median {report['prompt_tokens']} tokens) x {report['repeats']} repeats, medians:")
    print(f"{'setting':<20}{'tok/s':>9}{'tok/step':>10}{'1st block ms':>14}{'reply ms':>10}{'steps':>7}{'tokens':>8}")
    for name, s in report["settings"].items():
        print(f"{name:<20}{s['tokens_per_s']:>9.1f}{s['tokens_per_step']:>10.2f}{s['first_block_ms']:>14.1f}"
              f"{s['ms']:>10.1f}{s['steps']:>7.0f}{s['tokens']:>8.0f}")
    print(f"threshold vs one-per-step: {report['speedup_threshold_vs_one_per_step']}x faster, "
          f"same text {report['same_text_vs_one_per_step']['threshold+cache']:.0%}; prompt cache: "
          f"{report['cache_speedup_threshold']}x (threshold), {report['cache_speedup_one_per_step']}x (one per step)")
