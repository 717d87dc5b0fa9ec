"""The decode loop on tiny random models saved as real HF folders and loaded through load_model."""
from __future__ import annotations

from dataclasses import replace

import pytest
import numpy as np
import torch

from avatar.cancel import CancelToken, Cancelled
from avatar.llm.engine import DecodeOptions
from avatar.llm.loader import load_model
from avatar.llm.random_model import make_random_model
from avatar.llm.repetition import loop_cut

EOS = 3  # <eos> in the random models' tokenizer

# family per case: a bidirectional masked LM, a shifted-logit Dream-style model, a causal AR-adapted
# model (exact prefix cache) and the embedded model's architecture (exact prompt cache)
CASES = {"modernbert": ("modernbert", None), "dream": ("qwen2", "dream"),
         "fast-dllm-v2": ("qwen2", "fast-dllm-v2"), "avatar-mdlm": ("avatar-mdlm", None)}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("llm")
    folders = {kind: make_random_model(root / kind, kind) for kind in {k for k, _ in CASES.values()}}
    return {name: load_model(folders[kind], family=fam, threads=1) for name, (kind, fam) in CASES.items()}


@pytest.fixture(scope="module")
def eos_model(tmp_path_factory):
    """A ModernBERT whose output bias makes <eos> the certain prediction everywhere."""
    from transformers import AutoModelForMaskedLM

    folder = make_random_model(tmp_path_factory.mktemp("eos") / "m", "modernbert")
    model = AutoModelForMaskedLM.from_pretrained(str(folder), local_files_only=True)
    with torch.no_grad():
        model.decoder.bias[EOS] += 50.0
    model.save_pretrained(str(folder))
    return load_model(folder, threads=1)


def prompt(lm, question="Wann schließt das Museum heute?"):
    return lm.chat_prompt(question, system="Das Museum ist von 9 bis 18 Uhr geöffnet.")


OPTS = DecodeOptions(gen_length=24, block_length=8, threshold=0.9, repetition_guard=False)


@pytest.mark.parametrize("name", list(CASES))
def test_decoding_is_deterministic_at_temperature_zero(models, name):
    lm = models[name]
    a, b = lm.generate(prompt(lm), OPTS), lm.generate(prompt(lm), OPTS)
    assert a.answer_ids == b.answer_ids and a.steps == b.steps
    assert lm.mask_token_id not in a.answer_ids


@pytest.mark.parametrize("name", ["modernbert", "dream", "avatar-mdlm"])
def test_committed_tokens_and_blocks_never_change_across_steps(models, name):
    lm = models[name]
    snapshots = []
    blocks = list(lm.stream(prompt(lm), replace(OPTS, order="random", seed=3),
                            on_step=lambda b, s, x: snapshots.append((b, x))))
    assert len(snapshots) >= OPTS.gen_length // OPTS.block_length
    mask = lm.mask_token_id
    for (_, before), (block, after) in zip(snapshots, snapshots[1:]):
        committed = before != mask
        assert np.array_equal(before[committed], after[committed])  # a committed token never changes
        assert not (after[:block * OPTS.block_length] == mask).any()  # blocks left of the current one are done
    final = snapshots[-1][1]
    streamed = [t for b in blocks for t in b.token_ids]
    assert streamed == final[:len(streamed)].tolist()
    assert [b.index for b in blocks] == sorted(b.index for b in blocks)


@pytest.mark.parametrize("name", ["modernbert", "dream", "fast-dllm-v2", "avatar-mdlm"])
def test_threshold_one_reproduces_one_token_per_step(models, name):
    lm = models[name]
    by_threshold = lm.generate(prompt(lm), replace(OPTS, threshold=1.0))
    by_count = lm.generate(prompt(lm), OPTS.one_per_step)
    assert by_threshold.answer_ids == by_count.answer_ids
    assert by_threshold.steps == by_count.steps == OPTS.gen_length


def test_lower_threshold_commits_several_tokens_per_step(eos_model):
    # every position is certain (<eos>): one step commits the whole block
    result = eos_model.generate(prompt(eos_model), replace(OPTS, threshold=0.5))
    assert result.steps == 1


def test_eos_stops_early_without_decoding_later_blocks(eos_model):
    lm = eos_model
    result = lm.generate(prompt(lm), OPTS.one_per_step)
    assert result.stopped == "eos"
    assert result.tokens == 0 and result.text == ""
    assert result.steps < OPTS.block_length  # one-per-step: the first committed <eos> filled the rest
    assert set(result.answer_ids) == {EOS}


def test_banned_tokens_are_never_committed(eos_model, models):
    lm = eos_model
    result = lm.generate(prompt(lm), replace(OPTS, banned_token_ids=(EOS,)))
    assert EOS not in result.answer_ids and result.tokens == OPTS.gen_length
    lm = models["modernbert"]
    free = lm.generate(prompt(lm), OPTS)
    most_common = max(set(free.answer_ids), key=free.answer_ids.count)
    banned = lm.generate(prompt(lm), replace(OPTS, banned_token_ids=(most_common,)))
    assert most_common not in banned.answer_ids


@pytest.mark.parametrize("name", ["fast-dllm-v2", "avatar-mdlm"])
@pytest.mark.parametrize("one_per_step", [False, True])
def test_exact_prompt_cache_equals_no_cache(models, name, one_per_step):
    lm = models[name]
    opts = OPTS.one_per_step if one_per_step else OPTS
    cached = lm.generate(prompt(lm), replace(opts, prompt_cache=True))
    uncached = lm.generate(prompt(lm), replace(opts, prompt_cache=False))
    assert cached.cache == "exact" and uncached.cache == "none"
    assert cached.answer_ids == uncached.answer_ids
    assert cached.steps == uncached.steps


def test_approximate_cache_is_used_for_bidirectional_models_with_kv_cache(models):
    lm = models["dream"]
    cached = lm.generate(prompt(lm), replace(OPTS, prompt_cache=True))
    assert cached.cache == "approximate"
    assert len(cached.answer_ids) == OPTS.gen_length and lm.mask_token_id not in cached.answer_ids
    # its first step is a full pass, the same as decoding without a cache
    snaps_c, snaps_n = [], []
    lm.generate(prompt(lm), replace(OPTS, prompt_cache=True), on_step=lambda b, s, x: snaps_c.append(x))
    lm.generate(prompt(lm), replace(OPTS, prompt_cache=False), on_step=lambda b, s, x: snaps_n.append(x))
    assert np.array_equal(snaps_c[0], snaps_n[0])


def test_model_without_kv_cache_decodes_without_one(models):
    assert models["modernbert"].generate(prompt(models["modernbert"]), OPTS).cache == "none"


def test_stream_pieces_add_up_to_the_generated_text(models):
    lm = models["dream"]
    blocks = list(lm.stream(prompt(lm), OPTS))
    result = lm.generate(prompt(lm), OPTS)
    assert "".join(b.text for b in blocks) == result.text
    assert [t for b in blocks for t in b.token_ids] == result.token_ids
    assert blocks[-1].last and not any(b.last for b in blocks[:-1])
    assert result.first_block_ms == result.blocks[0].t_ms


def test_left_to_right_order_commits_the_leftmost_masked_position(models):
    lm = models["modernbert"]
    snaps = []
    lm.generate(prompt(lm), replace(OPTS.one_per_step, order="left_to_right"), on_step=lambda b, s, x: snaps.append(x))
    for i, x in enumerate(snaps[:OPTS.gen_length]):
        assert not (x[:i + 1] == lm.mask_token_id).any() and (x[i + 1:] == lm.mask_token_id).all()


def test_sampling_is_reproducible_with_a_seed(models):
    lm = models["modernbert"]
    opts = replace(OPTS, temperature=1.0, seed=7)
    assert lm.generate(prompt(lm), opts).answer_ids == lm.generate(prompt(lm), opts).answer_ids


@pytest.mark.parametrize("confidence", ["margin", "entropy"])
def test_margin_and_entropy_confidence_decode(models, confidence):
    lm = models["avatar-mdlm"]
    result = lm.generate(prompt(lm), replace(OPTS, confidence=confidence))
    assert len(result.answer_ids) == OPTS.gen_length and lm.mask_token_id not in result.answer_ids


def test_repetition_guard_cuts_a_loop(models):
    lm = models["modernbert"]  # untrained: it repeats one token everywhere
    free = lm.generate(prompt(lm), OPTS)
    guarded = lm.generate(prompt(lm), replace(OPTS, repetition_guard=True))
    assert free.tokens == OPTS.gen_length
    assert guarded.stopped == "repetition" and guarded.tokens < free.tokens
    assert loop_cut(guarded.token_ids) is None


def test_loop_cut_finds_loops_and_leaves_ordinary_text():
    assert loop_cut([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) is None
    assert loop_cut([7, 0, 0, 8]) is None  # "00" in a number is not a loop
    assert loop_cut([9] + [5] * 8) == 2  # one copy of the repeated token is kept
    assert loop_cut([1, 2, 3] + [4, 5] * 4) == 5
    assert loop_cut([1, 2, 3] + [4, 5] * 4, search_from=7) == 7  # never cuts text already emitted


def test_decoding_can_be_cancelled(models):
    lm = models["modernbert"]
    token = CancelToken()
    token.cancel("barge-in")
    with pytest.raises(Cancelled):
        lm.generate(prompt(lm), OPTS, cancel=token)


def test_options_come_from_the_llm_settings():
    from avatar import config

    cfg = config.load(env={})
    opts = DecodeOptions.from_config(cfg.llm, seed=5)
    assert (opts.gen_length, opts.block_length, opts.threshold, opts.seed) == (
        cfg.llm.gen_length, cfg.llm.block_length, cfg.llm.threshold, 5)
    assert opts.one_per_step.steps_per_block == opts.block_length


def test_prompts_beyond_the_models_positions_are_refused_clearly(models):
    from avatar.errors import ConfigError

    lm = models["modernbert"]
    with pytest.raises(ConfigError, match="positions"):
        lm.generate([7] * 600, OPTS)
    with pytest.raises(ConfigError, match="empty"):
        lm.generate([], OPTS)


def test_a_logit_bias_makes_its_token_win_and_the_embedded_codec_maps_decline_bias(models):
    from avatar.answer.prompt import PromptCodec
    from avatar import config

    lm = models["avatar-mdlm"]
    prompt = lm.chat_prompt("Hallo?")
    plain = lm.generate(prompt, DecodeOptions(gen_length=8, block_length=8, repetition_guard=False))
    favourite = next(t for t in range(10, lm.vocab_size) if t not in plain.answer_ids)
    biased = lm.generate(prompt, DecodeOptions(gen_length=8, block_length=8, repetition_guard=False,
                                               logit_bias=((favourite, 60.0),)))
    assert biased.answer_ids == [favourite] * 8
    codec = PromptCodec(lm.tokenizer)
    cfg = config.load(sets=["llm.decline_bias=1.5"], env={})
    assert codec.decline_bias(cfg.llm) == ((codec.id["<sorry>"], 1.5),)
    assert codec.decline_bias(config.load(sets=["llm.decline_bias=0"], env={}).llm) == ()  # 0: no bias at all


def test_first_positions_are_committed_in_the_first_step(models):
    lm = models["avatar-mdlm"]
    opts = DecodeOptions(gen_length=8, block_length=8, threshold=1.0, steps_per_block=8, repetition_guard=False)
    seen = []
    lm.generate(lm.chat_prompt("Hallo?"), replace(opts, first_positions=(5,)),
                on_step=lambda b, s, x: seen.append(x.tolist()) if s == 1 else None)
    first = seen[0]
    assert first[5] != lm.mask_token_id  # decided first, whatever its confidence
    assert sum(t != lm.mask_token_id for t in first) == 1  # one per step otherwise


@pytest.mark.parametrize("name", ["avatar-mdlm", "modernbert"])
def test_a_decode_past_its_time_limit_stops(models, name, monkeypatch):
    """llm.max_ms: a decode still running after the limit raises DecodeOverBudget at its next step."""
    from avatar.llm import engine
    from avatar.llm.engine import DecodeOverBudget

    lm = models[name]
    clock = iter(range(0, 10_000, 50))  # every reading of the clock is 50 ms later
    monkeypatch.setattr(engine, "now", lambda: next(clock) / 1000.0)
    with pytest.raises(DecodeOverBudget, match="llm.max_ms = 120"):
        lm.generate(prompt(lm), replace(OPTS, max_ms=120, threshold=1.0))
    monkeypatch.undo()
    assert lm.generate(prompt(lm), replace(OPTS, max_ms=0)).tokens > 0  # 0: no limit


def test_the_ar_twin_keeps_the_same_time_limit(monkeypatch):
    from avatar.llm import ar_engine, engine
    from avatar.llm.engine import check_budget

    clock = iter([0.0, 0.5, 0.5])
    monkeypatch.setattr(engine, "now", lambda: next(clock))
    t0 = engine.now()
    with pytest.raises(engine.DecodeOverBudget):
        check_budget(replace(OPTS, max_ms=100), t0, 3)
    assert ar_engine.check_budget is check_budget


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0])
def test_a_time_limit_that_is_no_number_of_ms_is_refused(value):
    from avatar.errors import ConfigError
    with pytest.raises(ConfigError, match="max_ms"):
        replace(OPTS, max_ms=value)
