"""`avatar eval --vs-ar` (issue 15): both models, the same questions, checks off/on and budget-matched."""
import time

import pytest

from avatar import config
from avatar_dev.bench import vs_ar
from avatar_dev.train.trainer import TrainOptions, train


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    out = {}
    for arch in ("mdlm", "ar"):
        run = tmp_path_factory.mktemp(f"tiny-{arch}")
        train(TrainOptions(out=run, steps=2, batch=4, size="tiny", vocab_size=600, tokenizer_examples=300, arch=arch))
        out["diffusion" if arch == "mdlm" else "ar"] = run / "model"
    return out


def test_one_clock_counts_cpu_time_meanwhile():
    from avatar.trace import now

    with vs_ar.one_clock("cpu"):
        t0 = now()
        time.sleep(0.2)  # sleeping costs no CPU
        slept = now() - t0
    t0 = now()
    time.sleep(0.05)
    assert slept < 0.05 and now() - t0 >= 0.05


def test_heldout_cases_are_evaluate_pys_questions():
    from avatar_dev.train.evaluate import held_out_examples

    cases = vs_ar.heldout_cases(6)
    assert [c.question for c in cases] == [e.question for e in held_out_examples(6)]
    assert [c.lang for c in cases] == ["de", "en"] * 3 and all(c.facts is not None for c in cases)


def test_side_by_side_run_asks_every_model_every_question_in_every_mode(models):
    cfg = config.load(None, ["llm.threads=1", "llm.gen_length=16"])
    cases = vs_ar.heldout_cases(2) + vs_ar.adversarial_cases(2)
    result = vs_ar.run(models, cases, cfg, budgets=(80.0,))
    rows = result["rows"]
    assert len(rows) == len(cases) * 2 * 3  # two models; unchecked, checked, budget80
    assert {r["mode"] for r in rows} == {"unchecked", "checked", "budget80"}
    assert result["models"]["ar"]["decoder"] == "autoregressive"
    assert result["models"]["ar"]["params"] == result["models"]["diffusion"]["params"]
    assert all(r["passes"] >= r["steps"] + 1 and r["decodes"] >= 1 for r in rows)
    for r in rows:
        if r["mode"] == "unchecked":
            assert r["first_clause_ms"] <= r["answer_ms"]
    summary = result["report"]["all"]["ar"]["checked"]
    assert {"right", "wrongly_declined", "unsupported", "first_clause_p50_ms", "decodes_in_80ms"} <= set(summary)
    assert "== all" in vs_ar.format_report(result)
