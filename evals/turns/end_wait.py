"""The end-of-turn wait's rules side by side on hand-written visitor questions (text only).

    PYTHONPATH=. python evals/turns/end_wait.py dev,dev2,dev3,dev4,dev5   # for choosing
    PYTHONPATH=. python evals/turns/end_wait.py test,test2,test3 --json OUT.json   # for reporting

The questions are the `questions.toml` of evals/packs/<split>/*/ (written by hand, by people who
never saw this rule). For each rule of `avatar.vad.hesitation.RULES` and each language:
- "complete": the share of whole questions taken as complete (the short wait, vad.complete_end_ms:
  the reply comes sooner); "hesitation": the share taken as a hesitation (the long wait, 900 ms, after
  a question that is done);
- "inside complete": the share of the word ends *inside* a question (every prefix of it, without
  trailing punctuation) taken as complete. A visitor who pauses there longer than the short wait is
  cut off, where the normal wait would have let them go on: lower is better. Not every word end has
  a pause, so this is a relative measure of that risk, not a rate of cut questions.
"""
from __future__ import annotations

import argparse
import glob
import json
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from avatar.vad.hesitation import RULES, classify  # noqa: E402


def questions(splits: list[str]) -> list[dict]:
    out = []
    for split in splits:
        for path in sorted(glob.glob(str(ROOT / "evals" / "packs" / split / "*" / "questions.toml"))):
            out += tomllib.loads(Path(path).read_text(encoding="utf-8")).get("q", [])
    return out


def inside(text: str) -> list[str]:
    words = text.split()
    return [" ".join(words[:k]).rstrip(",.;:!?") for k in range(1, len(words))]


def score(rule: str, qs: list[dict]) -> dict:
    vad = SimpleNamespace(end_wait_rule=rule, complete_end_ms=320, end_of_turn_ms=480, hesitation_end_ms=900)
    whole = [classify(q["q"], vad).reason for q in qs]
    parts = [classify(p, vad).reason for q in qs for p in inside(q["q"])]
    share = lambda xs, r: round(xs.count(r) / len(xs), 3) if xs else 0.0
    return {"questions": len(whole), "complete": share(whole, "complete"), "hesitation": share(whole, "hesitation"),
            "word_ends_inside": len(parts), "inside_complete": share(parts, "complete"),
            "inside_hesitation": share(parts, "hesitation")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("splits", help="comma-separated folders of evals/packs (dev,dev2 or test,test2,test3)")
    ap.add_argument("--json", help="write the scores here")
    ap.add_argument("--show", action="store_true", help="list the questions the first rule does not take as complete")
    args = ap.parse_args()
    qs = questions(args.splits.split(","))
    if not qs:
        sys.exit(f"no questions under evals/packs/{{{args.splits}}}/*/questions.toml")
    scores = {}
    print(f"{'lang':4} {'rule':10} {'questions':>9} {'complete':>8} {'hesitation':>10} {'inside complete':>15} {'inside hesitation':>17}")
    for lang in ("en", "de"):
        sub = [q for q in qs if q.get("lang") == lang]
        for rule in RULES:
            s = scores.setdefault(lang, {})[rule] = score(rule, sub)
            print(f"{lang:4} {rule:10} {s['questions']:9} {s['complete']:8.3f} {s['hesitation']:10.3f} "
                  f"{s['inside_complete']:15.3f} {s['inside_hesitation']:17.3f}")
        if args.show:
            vad = SimpleNamespace(end_wait_rule=RULES[0], complete_end_ms=320, end_of_turn_ms=480, hesitation_end_ms=900)
            for q in sub:
                reason = classify(q["q"], vad).reason
                if reason != "complete":
                    print(f"    {reason:10} {q['q']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"splits": args.splits, "scores": scores}, indent=1) + "\n")


if __name__ == "__main__":
    main()
